/**
 * Parsing protocol events (§7.1, Appendix A) from whatever a transport
 * delivered: total functions that never throw, whatever the input — cycles,
 * getters or Proxies that throw, 10,000-deep nesting, `__proto__` members,
 * huge arrays, class instances, bigints, symbols, functions.
 *
 * Two steps:
 * 1. A bounded, guarded copy of the input into plain JSON data (every read in
 *    try/catch, depth ≤ MAX_CLONE_DEPTH, at most MAX_CLONE_VALUES values,
 *    `__proto__` kept as an own data member, nothing inherited). What JSON
 *    could not carry is replaced as JSON.stringify would (NaN → null,
 *    functions left out, …) or by a marker string, with a warning.
 * 2. Validation of that copy per event type. An event is usable (`ok: true`)
 *    when its required fields are present with the right types; spec
 *    violations that leave it usable are listed in `problems` for the session
 *    model to raise as findings. A mistyped optional field is left out of the
 *    returned event (an error problem says so), so the event's types hold.
 *
 * Pointers in problems are JSON pointers from the event (`/payload/...`) for
 * `parseEvent`, from the payload for `parsePayload`.
 *
 * Pure: no DOM, no extension API, no Node APIs.
 */

import { isEffectKind } from './effects.ts';
import { patternProblems } from './schema.ts';
import { errorMessage as messageOf, escapePointerSegment } from './canonical.ts';
import { isRecord } from './json-object.ts';
import { OMIT, type CloneState, cloneJson, isArraySafe, kindOfRaw, safeGet } from './json-copy.ts';
import { type Problem, Problems } from './parse-problems.ts';
import {
  ARGS_HASH_PATTERN,
  DELIVERY_OMITTABLE,
  OBSERVATION_UPDATE_FREQUENCIES,
  OUI_PROTOCOL_EVENT_TYPES,
  SURFACES_HASH_PATTERN,
  checkActionId,
  checkSurfaceId,
  isStandardErrorCode,
  type OUIProtocolEvent,
  type OUIProtocolEventType,
} from './oui-types.ts';

export type { Problem } from './parse-problems.ts';

export type ParseResult =
  | { ok: true; event: OUIProtocolEvent; problems: Problem[] }
  | { ok: false; extension?: string; problems: Problem[] };

// ---------------------------------------------------------------------------
// Step 2: validation of the copy
// ---------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = isRecord;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** "a string", "an array", "missing", … for messages. */
function kindOf(v: unknown, present = true): string {
  if (!present) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'object':
      return 'an object';
    case 'string':
      return v === '' ? 'an empty string' : 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return typeof v;
  }
}

function ptr(base: string, key: string | number): string {
  return base + '/' + (typeof key === 'number' ? String(key) : escapePointerSegment(key));
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** A required member: missing or mistyped makes the event unusable. */
function required(
  p: Problems,
  o: Obj,
  key: string,
  base: string,
  test: (v: unknown) => boolean,
  expected: string,
  section?: string,
  rule?: string,
): boolean {
  const present = hasOwn(o, key);
  const v = present ? o[key] : undefined;
  if (present && test(v)) return true;
  p.fail(ptr(base, key), `${key} must be ${expected} (got ${kindOf(v, present)})`, section, rule);
  return false;
}

/** An optional member: when present and mistyped, an error, and it is left out of the event. */
function optional(
  p: Problems,
  o: Obj,
  key: string,
  base: string,
  test: (v: unknown) => boolean,
  expected: string,
  section?: string,
  rule?: string,
): boolean {
  if (!hasOwn(o, key)) return false;
  if (test(o[key])) return true;
  p.error(ptr(base, key), `${key} must be ${expected} when present (got ${kindOf(o[key])}); left out`, section, rule);
  delete o[key];
  return false;
}

function checkTimestamp(p: Problems, o: Obj, base: string, section: string, isRequired = true): void {
  const ok = isRequired
    ? required(p, o, 'timestamp', base, isNumber, 'a number (epoch milliseconds)', section)
    : optional(p, o, 'timestamp', base, isNumber, 'a number (epoch milliseconds)', section);
  if (!ok) return;
  const t = o.timestamp as number;
  if (!Number.isInteger(t)) p.warn(ptr(base, 'timestamp'), `timestamp ${t} is not a whole number of milliseconds`, section);
  else if (t < 0) p.warn(ptr(base, 'timestamp'), `timestamp ${t} is negative`, section);
}

/** `declared`: the id of a surface the client declares (its rule); otherwise an id some event names, charged to its sender. */
/**
 * An id's pattern binds whoever declares it (§3.2, §4.2, §5.2): the client,
 * in what it registers and sends of its own. A runtime's request only refers
 * to ids: echoing one the client got wrong is conformant, and naming one
 * nobody declared is the model's `request-unknown-surface`, so references
 * are not checked here.
 */
function checkSurfaceIdValue(p: Problems, id: string, path: string): void {
  const why = checkSurfaceId(id);
  if (why) p.error(path, `surface id ${JSON.stringify(id)} ${why}`, '§3.2', 'surface-id');
}

function checkActionIdValue(p: Problems, id: string, path: string, what: 'action' | 'observation'): void {
  const why = checkActionId(id);
  if (why) p.error(path, `${what} id ${JSON.stringify(id)} ${why}`, what === 'action' ? '§4.2' : '§5.2', what === 'action' ? 'action-id' : 'observation-id');
}

/** Looks for `$ref`s that leave the schema (§4.3: self-contained), within a bounded walk. */
function externalRefs(schema: unknown, base: string, out: string[]): void {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: schema, path: base, depth: 0 }];
  let visited = 0;
  while (stack.length > 0 && visited < 10_000 && out.length < 5) {
    const { v, path, depth } = stack.pop()!;
    visited++;
    if (typeof v !== 'object' || v === null || depth > 64) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: ptr(path, i), depth: depth + 1 });
      continue;
    }
    for (const k of Object.keys(v)) {
      const c = (v as Obj)[k];
      if (k === '$ref' && typeof c === 'string' && !c.startsWith('#')) out.push(ptr(path, k));
      else stack.push({ v: c, path: ptr(path, k), depth: depth + 1 });
    }
  }
}

const isSchema = (v: unknown): boolean => isObj(v) || typeof v === 'boolean';

/** Checks one action; returns whether it is usable. Mistyped optional members are removed. */
function checkAction(p: Problems, a: unknown, base: string): a is Obj {
  if (!isObj(a)) {
    p.fail(base, `an action must be an object (got ${kindOf(a)})`, '§4.1', 'action-shape');
    return false;
  }
  const A = 'action-shape';
  let usable = required(p, a, 'id', base, isString, 'a string', '§4.1', A);
  if (usable) checkActionIdValue(p, a.id as string, ptr(base, 'id'), 'action');
  usable = required(p, a, 'description', base, isString, 'a string', '§4.1', A) && usable;
  usable = required(p, a, 'input', base, isObj, 'a JSON Schema object', '§4.1', 'input-schema') && usable;
  if (isObj(a.input)) {
    if (a.input.type !== 'object') {
      p.warn(ptr(base, 'input'), `the input schema's top level SHOULD be type "object" (got ${JSON.stringify(a.input.type ?? null)})`, '§4.3', 'input-not-object');
    }
    const refs: string[] = [];
    externalRefs(a.input, ptr(base, 'input'), refs);
    for (const r of refs) p.error(r, 'the input schema MUST be self-contained (no external $ref)', '§4.3', 'input-schema');
    // A pattern that is no ECMA-262 regular expression makes the input no valid JSON Schema; one the validator cannot run is valid.
    for (const x of patternProblems(a.input, 5, ptr(base, 'input'))) {
      if (!x.ecma) p.error(x.path, `${x.message}, so the input is no valid JSON Schema`, '§4.3', 'input-schema');
    }
  }
  optional(p, a, 'title', base, isString, 'a string', 'types: OUIAction', 'type-shape');
  if (hasOwn(a, 'effect') && !isEffectKind(a.effect)) {
    p.error(
      ptr(base, 'effect'),
      `effect must be one of view, selection, navigate, open, edit, file, mutate, job, transaction (got ${JSON.stringify(a.effect)}); left out, so the action counts as a write`,
      'types: OUIEffectKind',
      'type-shape',
    );
    delete a.effect;
  }
  optional(p, a, 'output', base, isSchema, 'a JSON Schema', '§4.1', A);
  optional(p, a, 'confirm', base, isBoolean, 'a boolean', '§4.1', A);
  optional(p, a, 'async', base, isBoolean, 'a boolean', '§4.1', A);
  if (optional(p, a, 'polling', base, isObj, 'an object', 'types: OUIActionPolling', 'type-shape')) {
    const pol = a.polling as Obj;
    const pb = ptr(base, 'polling');
    if (!isNumber(pol.intervalMs) || !(pol.intervalMs > 0)) {
      p.error(ptr(pb, 'intervalMs'), `intervalMs must be a positive number (got ${kindOf(pol.intervalMs, hasOwn(pol, 'intervalMs'))})`, 'types: OUIActionPolling', 'type-shape');
    }
  }
  optional(p, a, 'usage', base, isString, 'a string', '§4.1', A);
  optional(p, a, 'preconditions', base, isString, 'a string', '§4.1', A);
  optional(p, a, 'estimatedDuration', base, isString, 'a string', '§4.1', A);
  optional(p, a, 'tags', base, isStringArray, 'an array of strings', '§4.1', A);
  return usable;
}

/** Checks one observation declaration; returns whether it is usable. */
function checkObservation(p: Problems, o: unknown, base: string): o is Obj {
  if (!isObj(o)) {
    p.error(base, `an observation must be an object (got ${kindOf(o)})`, '§5.1', 'observation-shape');
    return false;
  }
  let usable = true;
  const need = (key: string, test: (v: unknown) => boolean, expected: string): void => {
    if (hasOwn(o, key) && test(o[key])) return;
    p.error(ptr(base, key), `${key} must be ${expected} (got ${kindOf(o[key], hasOwn(o, key))})`, '§5.1', 'observation-shape');
    usable = false;
  };
  need('id', isString, 'a string');
  if (isString(o.id)) checkActionIdValue(p, o.id, ptr(base, 'id'), 'observation');
  need('description', isString, 'a string');
  need('schema', isSchema, 'a JSON Schema');
  optional(
    p,
    o,
    'updateFrequency',
    base,
    (v) => (OBSERVATION_UPDATE_FREQUENCIES as readonly unknown[]).includes(v),
    'one of "realtime", "on-change", "polling"',
    '§5.3.1',
    'observation-shape',
  );
  return usable;
}

function checkActivation(p: Problems, s: Obj, base: string): void {
  const V = 'activation-shape';
  if (!optional(p, s, 'activation', base, isObj, 'an object', '§6.1', V)) return;
  const act = s.activation as Obj;
  const ab = ptr(base, 'activation');
  optional(p, act, 'routes', ab, (v) => isString(v) || isStringArray(v), 'a string or an array of strings', '§6.1', V);
  if (optional(p, act, 'entity', ab, isObj, 'an object', '§6.1', V)) {
    const ent = act.entity as Obj;
    if (!isString(ent.type)) {
      p.error(ptr(ptr(ab, 'entity'), 'type'), `entity.type must be a string (got ${kindOf(ent.type, hasOwn(ent, 'type'))}); entity left out`, '§6.1', V);
      delete act.entity;
    } else {
      optional(p, ent, 'id', ptr(ab, 'entity'), isString, 'a string', '§6.1', V);
    }
  }
  optional(p, act, 'condition', ab, isString, 'a string', '§6.1', V);
}

/**
 * Checks a surface. Problems that make it unusable are recorded as errors
 * and make the return value false; the caller decides what that means.
 */
function checkSurface(p: Problems, s: unknown, base: string): s is Obj {
  // Collect into a scratch sink so the caller can choose fatal or not.
  const S = 'surface-shape';
  if (!isObj(s)) {
    p.error(base, `a surface must be an object (got ${kindOf(s)})`, '§3.1', S);
    return false;
  }
  let usable = true;
  const need = (key: string, test: (v: unknown) => boolean, expected: string): boolean => {
    if (hasOwn(s, key) && test(s[key])) return true;
    p.error(ptr(base, key), `${key} must be ${expected} (got ${kindOf(s[key], hasOwn(s, key))})`, '§3.1', S);
    usable = false;
    return false;
  };
  if (need('id', isString, 'a string')) checkSurfaceIdValue(p, s.id as string, ptr(base, 'id'));
  need('name', isString, 'a string');
  need('description', isString, 'a string');
  optional(p, s, 'version', base, isString, 'a string', '§3.1', S);
  if (need('actions', Array.isArray, 'an array')) {
    const actions = s.actions as unknown[];
    const ab = ptr(base, 'actions');
    if (actions.length === 0) p.error(ab, 'a surface MUST contain at least one action', '§3.1', 'surface-no-actions');
    const seen = new Set<string>();
    const inner = new Problems();
    for (let i = 0; i < actions.length; i++) {
      const a = actions[i];
      if (!checkAction(inner, a, ptr(ab, i))) usable = false;
      else if (seen.has(a.id as string)) p.error(ptr(ptr(ab, i), 'id'), `duplicate action id ${JSON.stringify(a.id)}: ids MUST be unique within a surface`, '§4.2', 'duplicate-action-id');
      else seen.add(a.id as string);
    }
    p.addAll(inner.done());
  }
  if (optional(p, s, 'observations', base, Array.isArray, 'an array', '§3.1', S)) {
    const obs = s.observations as unknown[];
    const ob = ptr(base, 'observations');
    const kept: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < obs.length; i++) {
      const o = obs[i];
      if (!checkObservation(p, o, ptr(ob, i))) {
        p.error(ptr(ob, i), 'this observation is not usable; left out', '§5.1', 'observation-shape');
        continue;
      }
      if (seen.has(o.id as string)) {
        p.error(ptr(ptr(ob, i), 'id'), `duplicate observation id ${JSON.stringify(o.id)}: ids MUST be unique within a surface`, '§5.2', 'duplicate-observation-id');
      } else seen.add(o.id as string);
      kept.push(o);
    }
    if (kept.length !== obs.length) s.observations = kept;
  }
  checkActivation(p, s, base);
  optional(p, s, 'metadata', base, isObj, 'an object', '§3.1', S);
  return usable;
}

// --- per event type ---------------------------------------------------------

function checkRegister(p: Problems, pl: Obj, base: string): void {
  if (!hasOwn(pl, 'surface') || !isObj(pl.surface)) {
    p.fail(ptr(base, 'surface'), `surface must be an object (got ${kindOf(pl.surface, hasOwn(pl, 'surface'))})`, '§7.2');
  } else if (!checkSurface(p, pl.surface, ptr(base, 'surface'))) {
    p.fatal = true;
  }
  checkTimestamp(p, pl, base, '§7.2');
}

function checkDeregister(p: Problems, pl: Obj, base: string): void {
  if (required(p, pl, 'surfaceId', base, isString, 'a string', '§7.2')) checkSurfaceIdValue(p, pl.surfaceId as string, ptr(base, 'surfaceId'));
  checkTimestamp(p, pl, base, '§7.2');
}

function checkRequest(p: Problems, pl: Obj, base: string): void {
  required(p, pl, 'requestId', base, isNonEmptyString, 'a non-empty string', '§7.3.1');
  // The ids a request names are references to the client's declarations (see checkSurfaceIdValue).
  required(p, pl, 'surfaceId', base, isString, 'a string', '§7.3.1');
  required(p, pl, 'actionId', base, isString, 'a string', '§7.3.1');
  required(p, pl, 'params', base, isObj, 'an object', '§7.3.1');
  checkTimestamp(p, pl, base, '§7.3.1');
  if (hasOwn(pl, 'approval')) {
    const ap = pl.approval;
    const apb = ptr(base, 'approval');
    if (!isObj(ap) || !isString(ap.approvalId) || !isString(ap.argsHash)) {
      p.error(apb, `approval must be { approvalId: string, argsHash: string } (got ${describeApproval(ap)}); left out`, 'types: OUIActionApproval', 'approval-shape');
      delete pl.approval;
    } else {
      if (ap.approvalId === '') p.error(ptr(apb, 'approvalId'), 'approvalId is empty', 'types: OUIActionApproval', 'approval-shape');
      if (!ARGS_HASH_PATTERN.test(ap.argsHash)) {
        p.error(ptr(apb, 'argsHash'), `argsHash ${JSON.stringify(ap.argsHash)} is not 64 lowercase hex digits`, 'types: ARGS_HASH_PATTERN', 'approval-hash-format');
      }
    }
  }
  // knownSurfaces hands back a hash the client gave: its form is the client's to get right (hash-format).
  optional(p, pl, 'knownSurfaces', base, isString, 'a string', '§7.3.1');
}

function describeApproval(ap: unknown): string {
  if (!isObj(ap)) return kindOf(ap);
  const parts: string[] = [];
  parts.push(`approvalId ${kindOf(ap.approvalId, hasOwn(ap, 'approvalId'))}`);
  parts.push(`argsHash ${kindOf(ap.argsHash, hasOwn(ap, 'argsHash'))}`);
  return parts.join(', ');
}

function checkResult(p: Problems, pl: Obj, base: string): void {
  required(p, pl, 'requestId', base, isNonEmptyString, 'a non-empty string', '§7.3.2');
  const hasSuccess = required(p, pl, 'success', base, isBoolean, 'a boolean', '§7.3.2');
  checkTimestamp(p, pl, base, '§7.3.2');

  // Whether the sender put an error there at all: a malformed one is its own problem, not also a missing one.
  const sentError = hasOwn(pl, 'error');
  if (sentError) {
    const err = pl.error;
    const eb = ptr(base, 'error');
    if (!isObj(err) || !isString(err.code) || !isString(err.message)) {
      p.error(eb, `error must be { code: string, message: string, details? } (got ${describeError(err)}); left out`, '§7.3.3');
      delete pl.error;
    } else if (!isStandardErrorCode(err.code) && !err.code.includes(':')) {
      p.warn(ptr(eb, 'code'), `error code ${JSON.stringify(err.code)} is neither a standard code nor namespaced (custom codes SHOULD look like "app:code")`, '§4 Standard Error Codes', 'error-code-namespace');
    }
  }
  if (hasSuccess) {
    if (pl.success === false && !sentError) {
      p.error(ptr(base, 'error'), 'success is false, so error MUST be present', '§7.3.3', 'error-missing');
    }
    if (pl.success === true && sentError) {
      p.error(ptr(base, 'error'), 'success is true, so error MUST NOT be present', '§7.3.3', 'error-with-success');
    }
  }
  optional(p, pl, 'interim', base, isBoolean, 'a boolean', '§7.3.3');
  const T = 'type-shape';
  if (optional(p, pl, 'progress', base, isNumber, 'a number', 'types: OUIActionResult', T)) {
    const pr = pl.progress as number;
    if (pr < 0 || pr > 100) p.error(ptr(base, 'progress'), `progress ${pr} is outside 0–100`, 'types: OUIActionResult', T);
  }
  if (optional(p, pl, 'durationMs', base, isNumber, 'a number', 'types: OUIActionResult', T)) {
    if ((pl.durationMs as number) < 0) p.warn(ptr(base, 'durationMs'), `durationMs ${pl.durationMs} is negative`, 'types: OUIActionResult', T);
  }
  optional(p, pl, 'settled', base, isBoolean, 'a boolean', '§7.3.4');

  if (optional(p, pl, 'surfaces', base, Array.isArray, 'an array of surfaces', '§7.3.4')) {
    const list = pl.surfaces as unknown[];
    const sb = ptr(base, 'surfaces');
    const scratch = new Problems();
    let usable = true;
    const ids = new Set<string>();
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (!checkSurface(scratch, s, ptr(sb, i))) usable = false;
      else if (ids.has(s.id as string)) scratch.error(ptr(ptr(sb, i), 'id'), `duplicate surface id ${JSON.stringify(s.id)}: ids MUST be unique for a client`, '§3.2', 'duplicate-surface-id');
      else ids.add(s.id as string);
    }
    p.addAll(scratch.done());
    // The unusable surface is the defect, reported where it is; the set is left out of the copy, not reported twice.
    if (!usable) delete pl.surfaces;
  }
  optional(
    p,
    pl,
    'observations',
    base,
    (v) => isObj(v) && Object.keys(v).every((k) => isObj(v[k])),
    'an object of objects ({ [surfaceId]: { [observationId]: value } })',
    '§7.3.4',
  );
  const sentHash = hasOwn(pl, 'surfacesHash');
  if (optional(p, pl, 'surfacesHash', base, isString, 'a string', '§7.3.4', 'hash-format')) {
    if (!SURFACES_HASH_PATTERN.test(pl.surfacesHash as string)) {
      p.error(ptr(base, 'surfacesHash'), `surfacesHash ${JSON.stringify(pl.surfacesHash)} is not "fnv1a64:" and 16 lowercase hex digits`, '§7.3.4', 'hash-format');
    }
  } else if (!sentHash && hasOwn(pl, 'surfaces')) {
    p.warn(ptr(base, 'surfacesHash'), 'a result with surfaces MUST also carry surfacesHash', '§7.3.4', 'hash-missing');
  }
  if (hasOwn(pl, 'delivery')) checkDelivery(p, pl, base);
}

function describeError(err: unknown): string {
  if (!isObj(err)) return kindOf(err);
  return `code ${kindOf(err.code, hasOwn(err, 'code'))}, message ${kindOf(err.message, hasOwn(err, 'message'))}`;
}

function checkDelivery(p: Problems, pl: Obj, base: string): void {
  const d = pl.delivery;
  const db = ptr(base, 'delivery');
  if (!isObj(d)) {
    p.error(db, `delivery must be { trimmed: true, reason, omitted } (got ${kindOf(d)}); left out`, '§7.3.6', 'trim-shape');
    delete pl.delivery;
    return;
  }
  let usable = true;
  if (d.trimmed !== true) {
    p.error(ptr(db, 'trimmed'), `delivery.trimmed must be true (got ${kindOf(d.trimmed, hasOwn(d, 'trimmed'))})`, '§7.3.6', 'trim-shape');
    usable = false;
  }
  if (!isString(d.reason)) {
    p.error(ptr(db, 'reason'), `delivery.reason must be a string (got ${kindOf(d.reason, hasOwn(d, 'reason'))})`, '§7.3.6', 'trim-shape');
    usable = false;
  }
  if (!Array.isArray(d.omitted)) {
    p.error(ptr(db, 'omitted'), `delivery.omitted must be an array (got ${kindOf(d.omitted, hasOwn(d, 'omitted'))})`, '§7.3.6', 'trim-shape');
    usable = false;
  } else {
    const omitted = d.omitted as unknown[];
    omitted.forEach((o, i) => {
      if (!(DELIVERY_OMITTABLE as readonly unknown[]).includes(o)) {
        p.error(ptr(ptr(db, 'omitted'), i), `only "surfaces", "observations" and "data" can be omitted (got ${JSON.stringify(o)})`, '§7.3.6', 'trim-shape');
      } else if (hasOwn(pl, o as string)) {
        p.warn(ptr(ptr(db, 'omitted'), i), `"${o as string}" is listed as omitted but is present`, '§7.3.6', 'trim-shape');
      }
    });
  }
  if (!usable) {
    p.error(db, 'delivery is not usable; left out', '§7.3.6', 'trim-shape');
    delete pl.delivery;
  }
}

function checkObservationUpdate(p: Problems, pl: Obj, base: string): void {
  if (required(p, pl, 'surfaceId', base, isString, 'a string', '§7.4')) checkSurfaceIdValue(p, pl.surfaceId as string, ptr(base, 'surfaceId'));
  if (required(p, pl, 'observationId', base, isString, 'a string', '§7.4')) checkActionIdValue(p, pl.observationId as string, ptr(base, 'observationId'), 'observation');
  if (!hasOwn(pl, 'value')) p.fail(ptr(base, 'value'), 'value must be present', '§7.4');
  checkTimestamp(p, pl, base, '§7.4');
}

function checkObservationRequest(p: Problems, pl: Obj, base: string): void {
  // The spec texts give no fields for OUIObservationRequest: see oui-types.ts.
  required(p, pl, 'surfaceId', base, isString, 'a string', '§7.1');
  required(p, pl, 'observationId', base, isString, 'a string', '§7.1');
  checkTimestamp(p, pl, base, '§7.1', false);
  optional(p, pl, 'requestId', base, isString, 'a string', '§7.1');
}

const CHECKS: Record<OUIProtocolEventType, (p: Problems, pl: Obj, base: string) => void> = {
  'surface:register': checkRegister,
  'surface:deregister': checkDeregister,
  'action:request': checkRequest,
  'action:result': checkResult,
  'observation:update': checkObservationUpdate,
  'observation:request': checkObservationRequest,
};

// ---------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------

function parseTyped(type: unknown, payload: unknown, payloadPresent: boolean, typePath: string, base: string): ParseResult {
  const p = new Problems();
  try {
    if (typeof type !== 'string') {
      p.fail(typePath, `type must be a string (got ${type === undefined ? 'missing' : kindOfRaw(type)})`, '§7.1');
      return { ok: false, problems: p.done() };
    }
    if (type.startsWith('x-')) {
      // Extension events are ignored silently (extension points).
      return { ok: false, extension: type, problems: [] };
    }
    if (!(OUI_PROTOCOL_EVENT_TYPES as readonly string[]).includes(type)) {
      p.fail(typePath, `unknown event type ${JSON.stringify(type)} (extension types start with "x-")`, '§7.1');
      return { ok: false, problems: p.done() };
    }
    const st: CloneState = { problems: p, values: 0, sizeReported: false, ancestors: [] };
    const copy = payloadPresent ? cloneJson(st, payload, base, base === '' ? 0 : 1) : OMIT;
    if (!isObj(copy)) {
      p.fail(base, `payload must be an object (got ${copy === OMIT ? 'missing' : kindOf(copy)})`, '§7.1');
      return { ok: false, problems: p.done() };
    }
    CHECKS[type as OUIProtocolEventType](p, copy, base);
    if (p.fatal) return { ok: false, problems: p.done() };
    const event = { type, payload: copy } as unknown as OUIProtocolEvent;
    return { ok: true, event, problems: p.done() };
  } catch (e) {
    // Nothing above should throw; if something does, the event is unusable, not the caller's problem.
    p.fail('', `could not parse the event (${messageOf(e)})`);
    return { ok: false, problems: p.done() };
  }
}

/**
 * Parses a protocol event `{ type, payload }` (§7.1). Never throws.
 * `x-` types come back `{ ok: false, extension }` with no problems (ignored
 * silently); malformed events `{ ok: false }` with the reasons (§7.6.2).
 */
export function parseEvent(raw: unknown): ParseResult {
  try {
    if (typeof raw !== 'object' || raw === null || isArraySafe(raw)) {
      return {
        ok: false,
        problems: [{ path: '', message: `an event must be an object { type, payload } (got ${kindOfRaw(raw)})`, section: '§7.1', severity: 'error' }],
      };
    }
    const t = safeGet(raw, 'type');
    if (!t.ok) {
      return { ok: false, problems: [{ path: '/type', message: `type could not be read (${t.error})`, section: '§7.1', severity: 'error' }] };
    }
    const typeValue = t.value;
    if (typeof typeValue === 'string' && typeValue.startsWith('x-')) return { ok: false, extension: typeValue, problems: [] };
    const pl = safeGet(raw, 'payload');
    if (!pl.ok) {
      return { ok: false, problems: [{ path: '/payload', message: `payload could not be read (${pl.error})`, section: '§7.1', severity: 'error' }] };
    }
    // An undefined payload is as good as none.
    const present = pl.value !== undefined;
    return parseTyped(typeValue, pl.value, present, '/type', '/payload');
  } catch (e) {
    return { ok: false, problems: [{ path: '', message: `could not parse the event (${messageOf(e)})`, severity: 'error' }] };
  }
}

/**
 * Parses a payload whose type came separately (a Socket.IO event name, a
 * direct transport's method). Pointers in problems start at the payload.
 * Never throws.
 */
export function parsePayload(type: unknown, payload: unknown): ParseResult {
  try {
    return parseTyped(type, payload, payload !== undefined, '', '');
  } catch (e) {
    return { ok: false, problems: [{ path: '', message: `could not parse the payload (${messageOf(e)})`, severity: 'error' }] };
  }
}
