/**
 * Every conformance rule the session model checks: what traffic can show of
 * the spec (`/work/shared/docs/oui-digest.md`, sections are the spec's).
 * Approval rules cite the oui-spec 0.6.0 types, which carry no section
 * numbers of their own.
 */
import type { Rule, Severity } from './model-types.ts';

const APPROVALS = 'approvals (oui-spec 0.6.0)';

const DEFS = {
  // -- frames and payloads ---------------------------------------------------
  'malformed-frame': ['warning', '§7.6.2', 'A frame that claims to be OUI cannot be decoded'],
  'event-ignored': ['warning', '§7.6.2', 'A malformed event the receiver must ignore'],
  'payload-problem': ['error', '§7.1', 'A payload field is missing or mistyped'],
  'wrong-direction': ['info', '§7.1', 'An event travelling the wrong way'],
  'ack-shape': ['warning', '§7.3.6', 'An acknowledgment that is neither {ok:true} nor {ok:false, reason}'],
  'timestamp-backwards': ['warning', '§7.4', "A client's timestamps go backwards"],

  // -- surfaces --------------------------------------------------------------
  'surface-id': ['error', '§3.2', 'Surface id pattern and length'],
  'action-id': ['error', '§4.2', 'Action id pattern and length'],
  'observation-id': ['error', '§5.2', 'Observation id pattern and length'],
  'surface-no-actions': ['error', '§3.1', 'A surface with no action'],
  'duplicate-action-id': ['error', '§4.2', 'Two actions with one id on a surface'],
  'duplicate-observation-id': ['error', '§5.2', 'Two observations with one id on a surface'],
  'duplicate-surface-id': ['error', '§3.2', "Two surfaces with one id in a client's reported surfaces"],
  'input-not-object': ['info', '§4.3', "An action's input schema whose top level is not type: object"],
  'deregister-unknown': ['info', '§7.2', 'Deregistration of a surface that is not registered'],

  // -- requests --------------------------------------------------------------
  'request-id-format': ['info', '§7.3.1', 'A requestId that is not a UUID (v4 recommended)'],
  'request-id-reused': ['warning', '§7.3.1', 'One requestId for two different requests'],
  'request-unknown-surface': ['warning', '§7.3.1', 'A request to a surface the client has not registered'],
  'request-unknown-action': ['warning', '§4', 'A request for an action the surface does not declare'],
  'unknown-target-accepted': ['error', '§4', 'Success for a request to an unregistered surface or unknown action'],
  'params-invalid': ['warning', '§7.3.1', "Params that do not conform to the action's input"],
  'params-invalid-accepted': ['error', '§7.3.1', 'Success for params that do not conform to the input'],
  'expected-error-code': ['warning', '§4', 'A refusal with another code than the one the case calls for'],
  'pending-resolved-unavailable': ['info', '§7.6.1', 'Pending requests resolved SURFACE_UNAVAILABLE by deregistration or transport loss'],

  // -- results ---------------------------------------------------------------
  'result-unknown-request': ['warning', '§7.3.3', 'A result for a request never seen'],
  'error-missing': ['error', '§7.3.3', 'success: false without error'],
  'error-with-success': ['error', '§7.3.3', 'success: true with error'],
  'error-code-namespace': ['warning', '§4', 'An error code neither standard nor namespaced (app:x)'],
  'result-output-invalid': ['warning', '§4.1', "Result data that does not conform to the action's output"],
  'duplicate-result': ['error', '§7.3.3', 'A second final result for one request'],
  'interim-on-sync': ['error', '§7.3.3', "A sync action's result with interim: true"],
  'interim-after-final': ['error', '§7.3.3', 'An interim result after the final one'],
  'async-no-interim': ['error', '§7.3.3', "An async action's first result is not its interim acknowledgment"],
  'async-final-interim-unset': ['warning', '§7.3.3', "An async action's final result without interim: false"],
  'result-after-refused-receipt': ['warning', '§7.3.7', 'A result for a request whose receipt refused it'],
  'result-after-unavailable': ['warning', '§7.6.1', 'A result after its surface was deregistered or the transport was lost'],

  // -- timeouts --------------------------------------------------------------
  'sync-timeout': ['error', '§7.5', 'No final result 30 s after a sync request'],
  'async-ack-timeout': ['error', '§7.5', 'No interim acknowledgment 5 s after an async request'],
  'late-result': ['warning', '§7.5', 'A result after the runtime timed the request out'],
  'observation-pull-timeout': ['warning', '§7.5', 'No update 5 s after an observation:request'],

  // -- surfaces hash ---------------------------------------------------------
  'hash-missing': ['error', '§7.3.4', 'A result without surfacesHash'],
  'hash-format': ['error', '§7.3.4', 'A surfacesHash not of the form fnv1a64:<16 hex>'],
  'hash-byte-variant': ['error', '§7.3.4', 'A surfacesHash taken over bytes, not UTF-16 code units'],
  'hash-mismatch': ['error', '§7.3.4', 'A surfacesHash that does not match the surfaces'],
  'surfaces-missing': ['error', '§7.3.4', 'A result without surfaces although the runtime lacks them'],

  // -- refused results -------------------------------------------------------
  'resend-unmarked': ['error', '§7.3.6', 'A re-send after a refusal without delivery.trimmed'],
  'trim-changed-outcome': ['error', '§7.3.6', 'A trimmed re-send that changed success or error'],
  'trim-order': ['error', '§7.3.6', 'A trimmed re-send that left out data before surfaces and observations'],
  'trim-shape': ['warning', '§7.3.6', 'A delivery record that does not match what the re-send left out'],
  'refused-not-resent': ['warning', '§7.3.6', 'A refused result never sent again'],
  'trimmed-without-refusal': ['info', '§7.3.6', 'delivery.trimmed on a result nobody refused'],

  // -- repeated requests -----------------------------------------------------
  'repeat-ran-twice': ['error', '§7.3.7', 'Two different results for one request id'],
  'repeat-answered-in-flight': ['error', '§7.3.7', 'A repeat answered while the first answer was being worked out'],
  'repeat-answered-after-ack': ['error', '§7.3.7', 'A repeat answered after the first answer was acknowledged'],
  'repeat-answered-too-soon': ['error', '§7.3.7', 'A repeat answered within the re-answer interval of the first answer'],

  // -- observations ----------------------------------------------------------
  'observation-unknown': ['warning', '§7.4', 'An update for an observation no registered surface declares'],
  'observation-invalid': ['error', '§7.4', "An observation value that does not conform to its schema"],
  'observation-rate': ['warning', '§7.4', 'More than 10 on-change updates a second'],
  'observation-out-of-order': ['info', '§7.4', 'An update older than the latest one'],
  'polling-pushed': ['info', '§5.3.1', 'A polling observation pushed without being requested'],

  // -- approvals -------------------------------------------------------------
  'approval-missing': ['error', APPROVALS, 'A request for an action that needs approval carries none'],
  'approval-hash-format': ['error', APPROVALS, 'approval.argsHash is not 64 lowercase hex digits'],
  'approval-hash-mismatch': ['error', APPROVALS, 'approval.argsHash is not argsHash(params)'],
  'approval-params-unhashable': ['warning', APPROVALS, 'Params canonical JSON refuses, so no approval can match them'],
  'unapproved-run': ['critical', APPROVALS, "An action that needs approval ran without the user's approval of these params"],
  'approval-expired-run': ['error', APPROVALS, 'An approved action ran after its grant expired'],
} as const satisfies Record<string, readonly [Severity, string, string]>;

export type RuleId = keyof typeof DEFS;

export const RULES: Rule[] = Object.entries(DEFS).map(([id, [severity, section, title]]) => ({ id, severity, section, title }));

const BY_ID = new Map<string, Rule>(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}

export function ruleOf(id: RuleId): Rule {
  return BY_ID.get(id)!;
}
