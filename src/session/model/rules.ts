/**
 * Every conformance rule the session model checks: what traffic can show of
 * the spec texts in `../shared/spec/` (sections are the spec's own
 * numbers). `docs/conformance.md` is the matrix from each normative sentence
 * to the rule that checks it, or to why traffic cannot show it; a unit test
 * holds this table and that matrix to each other.
 *
 * Each rule names the party it binds (the one at fault when it fires) and the
 * spec release that introduced it, so a client built on an older release is
 * not judged by rules written after it.
 *
 * Approval rules cite the oui-spec 0.6.0 types, which carry no section
 * numbers of their own; neither does the error-code table of §4.
 */
import type { Party, Rule, Severity } from './model-types.ts';

/**
 * Releases the spec texts span. 0.4.1 is in the list because apps declare
 * it; no text of 0.4.0 → 0.4.1 is published, so it is judged as 0.4.0.
 */
export const SPEC_VERSIONS = ['0.2.0', '0.4.0', '0.4.1', '0.6.0'] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];
export const LATEST_SPEC_VERSION: SpecVersion = '0.6.0';

export function isSpecVersion(v: unknown): v is SpecVersion {
  return typeof v === 'string' && (SPEC_VERSIONS as readonly string[]).includes(v);
}

/** Whether `a` is the same release as `b` or a later one. */
export function versionAtLeast(a: SpecVersion, b: SpecVersion): boolean {
  return SPEC_VERSIONS.indexOf(a) >= SPEC_VERSIONS.indexOf(b);
}

const APPROVALS = 'approvals (oui-spec 0.6.0)';
const TYPES = 'types (oui-spec 0.6.0)';
const CODES = '§4 Standard Error Codes';

const C: Party = 'client';
const R: Party = 'runtime';

/** [severity, section, title, party, since] */
type Def = readonly [Severity, string, string, Party, SpecVersion];

const DEFS = {
  // -- frames and payloads ---------------------------------------------------
  'malformed-frame': ['warning', '§7.1', 'A frame from the client that claims to be OUI cannot be decoded', C, '0.2.0'],
  'malformed-frame-from-runtime': ['warning', '§7.1', 'A frame from the runtime that claims to be OUI cannot be decoded', R, '0.2.0'],
  'event-ignored': ['warning', '§7.1', 'A malformed event from the client, which its receiver must ignore', C, '0.2.0'],
  'event-ignored-from-runtime': ['warning', '§7.1', 'A malformed event from the runtime, which the client must ignore', R, '0.2.0'],
  'payload-problem': ['error', 'Appendix A', 'A payload field of a client event is missing or mistyped', C, '0.2.0'],
  'payload-problem-from-runtime': ['error', 'Appendix A', 'A payload field of a runtime event is missing or mistyped', R, '0.2.0'],
  'wrong-direction': ['info', '§7.1', 'The client sent an event that only a runtime sends', C, '0.2.0'],
  'wrong-direction-from-runtime': ['info', '§7.1', 'The runtime sent an event that only a surface sends', R, '0.2.0'],
  'malformed-not-ignored': ['error', '§7.6.2', 'The client answered a malformed request it had to ignore', C, '0.2.0'],

  // -- surfaces --------------------------------------------------------------
  'surface-shape': ['error', '§3.1', 'A surface field is missing or mistyped', C, '0.2.0'],
  'surface-id': ['error', '§3.2', 'Surface id pattern and length', C, '0.2.0'],
  'duplicate-surface-id': ['error', '§3.2', "Two surfaces with one id in a client's reported surfaces", C, '0.2.0'],
  'surface-no-actions': ['error', '§3.1', 'A surface with no action', C, '0.2.0'],
  'action-shape': ['error', '§4.1', 'An action field is missing or mistyped', C, '0.2.0'],
  'action-id': ['error', '§4.2', 'Action id pattern and length', C, '0.2.0'],
  'duplicate-action-id': ['error', '§4.2', 'Two actions with one id on a surface', C, '0.2.0'],
  'input-not-object': ['info', '§4.3', "An action's input schema whose top level is not type: object", C, '0.2.0'],
  'input-schema': ['error', '§4.3', 'An input schema that is no valid, self-contained JSON Schema (an external $ref, a pattern that is no regular expression)', C, '0.2.0'],
  'observation-shape': ['error', '§5.1', 'An observation declaration field is missing or mistyped', C, '0.2.0'],
  'observation-id': ['error', '§5.2', 'Observation id pattern and length', C, '0.2.0'],
  'duplicate-observation-id': ['error', '§5.2', 'Two observations with one id on a surface', C, '0.2.0'],
  'activation-shape': ['error', '§6.1', 'An activation field is missing or mistyped', C, '0.2.0'],
  'type-shape': ['error', TYPES, 'A field the 0.6.0 types define (effect, title, polling, progress, durationMs) is invalid', C, '0.6.0'],
  'deregister-unknown': ['info', '§7.2', 'Deregistration of a surface that is not registered', C, '0.2.0'],
  'unavailable-while-registered': ['warning', '§7.2', 'SURFACE_UNAVAILABLE from a surface that never deregistered', C, '0.2.0'],
  'not-reregistered': ['warning', '§7.6.1', 'A surface used after reconnection without registering again', C, '0.2.0'],

  // -- requests (the runtime's) ----------------------------------------------
  'request-id-format': ['info', '§7.3.1', 'A requestId that is not a UUID v4 (recommended)', R, '0.2.0'],
  'request-id-reused': ['warning', '§7.3.1', 'One requestId for two different requests', R, '0.2.0'],
  'request-unknown-surface': ['warning', '§7.2', 'A request to a surface the client has not registered or has deregistered', R, '0.2.0'],
  'request-unknown-action': ['warning', '§7.2', 'A request for an action the registered surface does not declare', R, '0.2.0'],
  'request-after-transport-loss': ['warning', '§7.6.1', 'A request to a surface lost with the transport and not registered again', R, '0.2.0'],
  'params-invalid': ['warning', '§7.3.1', "Params that do not conform to the action's input", R, '0.2.0'],
  'retry-after-timeout': ['warning', '§7.5', 'The runtime sent a request again after it timed it out', R, '0.2.0'],
  'resent-despite-receipt': ['warning', '§7.3.7', 'The runtime sent a request again although it held a receipt for it', R, '0.6.0'],
  'resent-without-backoff': ['info', '§7.3.7', 'Repeats of a request without a receipt that do not back off', R, '0.6.0'],
  'known-surfaces-unheld': ['warning', '§7.3.4', 'knownSurfaces sent while the runtime holds no surfaces under the hash it last received', R, '0.6.0'],

  // -- the client's answers --------------------------------------------------
  'unknown-target-accepted': ['error', CODES, 'Success for a request to an unregistered surface or unknown action', C, '0.2.0'],
  'params-invalid-accepted': ['error', '§7.3.1', 'Success for params that do not conform to the input', C, '0.2.0'],
  'expected-error-code': ['warning', CODES, 'A refusal with another code than the one the case calls for', C, '0.2.0'],
  'error-code-namespace': ['warning', CODES, 'An error code neither standard nor namespaced (app:x)', C, '0.2.0'],
  'result-unknown-request': ['warning', '§7.3.3', 'A result for a request never seen', C, '0.2.0'],
  'error-missing': ['error', '§7.3.3', 'success: false without error', C, '0.2.0'],
  'error-with-success': ['error', '§7.3.3', 'success: true with error', C, '0.2.0'],
  'result-output-invalid': ['warning', '§4.1', "Result data that does not conform to the action's output", C, '0.2.0'],
  'duplicate-result': ['error', '§7.3.3', 'A second final result for one request', C, '0.2.0'],
  'interim-on-sync': ['error', '§7.3.3', "A sync action's result with interim: true", C, '0.4.0'],
  'interim-after-final': ['error', '§7.3.3', 'An interim result after the final one', C, '0.4.0'],
  'async-no-interim': ['error', '§7.3.3', "An async action's first result is not its interim acknowledgment", C, '0.4.0'],
  'async-final-interim-unset': ['warning', '§7.3.3', "An async action's final result without interim: false", C, '0.4.0'],


  // -- surfaces hash ---------------------------------------------------------
  'hash-missing': ['error', '§7.3.4', 'A result without surfacesHash', C, '0.6.0'],
  'hash-format': ['error', '§7.3.4', 'A surfacesHash not of the form fnv1a64:<16 hex>', C, '0.6.0'],
  'hash-byte-variant': ['error', '§7.3.4', 'A surfacesHash taken over bytes, not UTF-16 code units', C, '0.6.0'],
  'hash-mismatch': ['error', '§7.3.4', 'A surfacesHash that does not match the surfaces', C, '0.6.0'],
  'surfaces-missing': ['error', '§7.3.4', 'A result without surfaces although the runtime lacks them', C, '0.6.0'],

  // -- refused results -------------------------------------------------------
  'result-ack-shape': ['warning', '§7.3.6', "A result's acknowledgment that is neither {ok:true} nor a refusal with its reason", R, '0.6.0'],
  'resend-unmarked': ['error', '§7.3.6', 'A re-send after a refusal without delivery.trimmed', C, '0.6.0'],
  'trim-changed-outcome': ['error', '§7.3.6', 'A trimmed re-send that changed success, error, or data it did not leave out', C, '0.6.0'],
  'trim-order': ['error', '§7.3.6', 'A trimmed re-send that left out data before surfaces and observations', C, '0.6.0'],
  'trim-shape': ['warning', '§7.3.6', 'A delivery record that does not match what the re-send left out', C, '0.6.0'],
  'refused-not-resent': ['warning', '§7.3.6', 'A refused result never sent again', C, '0.6.0'],
  'trimmed-without-refusal': ['info', '§7.3.6', 'delivery.trimmed on a result nobody refused', C, '0.6.0'],

  // -- receipts and repeated requests ----------------------------------------
  'ack-shape': ['warning', '§7.3.7', 'A receipt that is neither {ok:true} nor {ok:false, reason}', C, '0.6.0'],
  'repeat-ran-twice': ['error', '§7.3.7', 'Two different results for one request id', C, '0.6.0'],
  'repeat-answered-in-flight': ['error', '§7.3.7', 'A repeat that came while the first answer was being worked out, answered less than a re-answer interval after that answer', C, '0.6.0'],
  'repeat-answered-after-ack': ['error', '§7.3.7', 'A repeat answered after the first answer was acknowledged', C, '0.6.0'],
  'repeat-answered-too-soon': ['error', '§7.3.7', 'A repeat answered, while the first answer was unacknowledged, less than a re-answer interval after it', C, '0.6.0'],

  // -- observations ----------------------------------------------------------
  'observation-unknown': ['warning', '§7.4', 'An update for an observation no registered surface declares', C, '0.2.0'],
  'observation-invalid': ['error', '§7.4', 'An observation value that does not conform to its schema', C, '0.2.0'],
  'observation-rate': ['warning', '§7.4', 'More than 10 on-change updates a second', C, '0.2.0'],
  'observation-out-of-order': ['info', '§7.4', 'An update older than the latest one', C, '0.2.0'],
  'polling-pushed': ['info', '§5.3.1', 'A polling observation pushed without being requested', C, '0.2.0'],

  // -- approvals -------------------------------------------------------------
  'approval-missing': ['error', APPROVALS, 'A request for an action that needs approval carries none', R, '0.6.0'],
  'approval-shape': ['error', APPROVALS, 'A request whose approval is not { approvalId, argsHash }', R, '0.6.0'],
  'approval-hash-format': ['error', APPROVALS, 'approval.argsHash is not 64 lowercase hex digits', R, '0.6.0'],
  'approval-hash-mismatch': ['error', APPROVALS, 'approval.argsHash is not argsHash(params)', R, '0.6.0'],
  'approval-params-unhashable': ['warning', APPROVALS, 'Params canonical JSON refuses, so no approval can match them', R, '0.6.0'],
  'unapproved-run': ['critical', APPROVALS, "An action that needs approval ran without a grant for these params (none, another's, or one a run already used)", C, '0.6.0'],
  'approval-expired-run': ['error', APPROVALS, 'An approved action ran after its grant expired', C, '0.6.0'],
} as const satisfies Record<string, Def>;

export type RuleId = keyof typeof DEFS;

export const RULES: Rule[] = Object.entries(DEFS).map(([id, [severity, section, title, party, since]]) => ({ id, severity, section, title, party, since }));

const BY_ID = new Map<string, Rule>(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}

export function isRuleId(id: unknown): id is RuleId {
  return typeof id === 'string' && BY_ID.has(id);
}

export function ruleOf(id: RuleId): Rule {
  return BY_ID.get(id)!;
}

/** Whether a client judged by `version` is held to `rule`: it existed in that release. */
export function ruleApplies(rule: Rule, version: SpecVersion): boolean {
  return versionAtLeast(version, rule.since as SpecVersion);
}

/**
 * The release a client is judged by: the one it declares, else the user's
 * pick. The spec asks that "surfaces and runtimes SHOULD declare which spec
 * version they implement" but defines no field for it (`OUISurface.version`
 * is the surface's own contract version), so a declaration is read where the
 * spec leaves room for one: a surface's `metadata` (see `declaredVersion`).
 */
export function judgedVersion(picked: unknown, declared?: unknown): SpecVersion {
  if (isSpecVersion(declared)) return declared;
  return isSpecVersion(picked) ? picked : LATEST_SPEC_VERSION;
}

/** `metadata` keys under which a surface may declare the spec release its client implements. */
export const VERSION_METADATA_KEYS = ['ouiSpecVersion', 'ouiVersion', 'specVersion', 'oui-spec', 'oui'] as const;

/**
 * The release a surface's `metadata` declares ("0.4.1", "oui-spec@0.4.1",
 * "v0.6"), as the newest release of SPEC_VERSIONS not after it (a 0.5.0
 * client is held to 0.4.1's rules, a 0.1 client to 0.2.0's), or undefined.
 */
export function declaredVersion(metadata: unknown): SpecVersion | undefined {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  for (const key of VERSION_METADATA_KEYS) {
    if (!Object.hasOwn(metadata, key)) continue;
    const v = (metadata as Record<string, unknown>)[key];
    const m = typeof v === 'string' ? /(\d+)\.(\d+)(?:\.(\d+))?/.exec(v) : null;
    if (!m) continue;
    const n = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    let found: SpecVersion = SPEC_VERSIONS[0];
    for (const release of SPEC_VERSIONS) {
      const r = release.split('.').map(Number);
      const cmp = n[0]! - r[0]! || n[1]! - r[1]! || n[2]! - r[2]!;
      if (cmp >= 0) found = release;
    }
    return found;
  }
  return undefined;
}
