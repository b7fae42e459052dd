/**
 * A guarded, bounded copy of whatever a transport delivered into plain JSON
 * data: every read in try/catch (getters and Proxies that throw), depth at
 * most MAX_CLONE_DEPTH, at most MAX_CLONE_VALUES values, cycles cut,
 * `__proto__` kept as an own data member and nothing inherited read. What
 * JSON could not carry is replaced as JSON.stringify would (NaN → null,
 * functions left out, …) or by a marker string, with a warning.
 *
 * Pure: no DOM, no extension API, no Node APIs.
 */

import { errorMessage as messageOf, escapePointerSegment, isPlainObject } from './canonical.ts';
import { type Problem, Problems } from './parse-problems.ts';

/** Nested values deeper than this (from the event root) are replaced by TRUNCATED_DEPTH. */
export const MAX_CLONE_DEPTH = 256;
/** At most this many values (of any kind) are copied from one event. */
export const MAX_CLONE_VALUES = 2_000_000;

export const TRUNCATED_DEPTH = '[truncated: depth]';
export const TRUNCATED_SIZE = '[truncated: size]';
export const CIRCULAR = '[circular]';
export const UNREADABLE = '[unreadable]';

// ---------------------------------------------------------------------------
// Step 1: a guarded, bounded copy into plain JSON data
// ---------------------------------------------------------------------------

export const OMIT: unique symbol = Symbol('omit');

export interface CloneState {
  problems: Problems;
  values: number;
  sizeReported: boolean;
  ancestors: object[];
  /** Values left out so far, to the depth cap or the value budget: see `isIncomplete`. */
  cuts?: number;
  /** The depth cap was reported (once per copy: a wide deep value is one problem, not one per branch). */
  depthReported?: boolean;
}

/**
 * The containers of copies that lack something the input had: a value cut at
 * MAX_CLONE_DEPTH or past MAX_CLONE_VALUES somewhere inside (the container
 * and each container around it). A schema verdict, a hash or a comparison
 * taken on such a copy would judge a value that was never sent.
 */
const INCOMPLETE = new WeakSet<object>();

/**
 * Whether `v` is a copy (from `toJsonSafe` or the event parser) with
 * something cut out of it, at its depth cap or its value budget: what is
 * judged of it is not what was sent. False for scalars and for anything
 * that is not such a copy.
 */
export function isIncomplete(v: unknown): boolean {
  return typeof v === 'object' && v !== null && INCOMPLETE.has(v);
}

function safeClassName(o: object): string {
  try {
    const tag = Object.prototype.toString.call(o);
    return tag.slice(8, -1);
  } catch {
    return 'unknown';
  }
}

function defineMember(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

/**
 * A JSON-safe copy of `v`, or OMIT for what JSON leaves out of an object
 * (undefined, functions, symbols). Never throws.
 */
export function cloneJson(st: CloneState, v: unknown, path: string, depth: number): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (v === v && v !== Infinity && v !== -Infinity) return v;
      st.problems.warn(path, `${String(v)} is not a JSON number (it is sent as null)`);
      return null;
    case 'undefined':
      return OMIT;
    case 'function':
      st.problems.warn(path, 'a function is not JSON (it is left out)');
      return OMIT;
    case 'symbol':
      st.problems.warn(path, 'a symbol is not JSON (it is left out)');
      return OMIT;
    case 'bigint':
      st.problems.warn(path, 'a bigint is not JSON (JSON.stringify throws on it)');
      return '[bigint]';
    case 'object':
      if (v === null) return null;
      return cloneObject(st, v, path, depth);
    default:
      return OMIT;
  }
}

/** Counts one more value; false (after reporting it once) when the budget is spent. */
function spend(st: CloneState, path: string): boolean {
  if (++st.values <= MAX_CLONE_VALUES) return true;
  st.cuts = (st.cuts ?? 0) + 1;
  if (!st.sizeReported) {
    st.sizeReported = true;
    st.problems.warn(path, `more than ${MAX_CLONE_VALUES} values: the rest was not copied`);
  }
  return false;
}

/**
 * Objects and arrays spend the value budget (one per container, one per array
 * item or member); once it is spent, containers become TRUNCATED_SIZE while
 * the primitive members of objects still being copied are kept, so a huge
 * value does not take the small fields next to it along.
 */
function cloneObject(st: CloneState, o: object, path: string, depth: number): unknown {
  if (!spend(st, path)) return TRUNCATED_SIZE;
  if (depth >= MAX_CLONE_DEPTH) {
    st.cuts = (st.cuts ?? 0) + 1;
    if (!st.depthReported) {
      st.depthReported = true;
      // JSON sets no depth limit (RFC 8259 §9 lets parsers set one): what is deeper is not checked, never judged.
      st.problems.warn(
        path,
        `nested more than ${MAX_CLONE_DEPTH} levels deep: checked to that depth only (what lies deeper gets no verdict); JSON sets no limit, but parsers may (RFC 8259 §9); the capture and its exports keep the whole value`,
      );
    }
    return TRUNCATED_DEPTH;
  }
  const anc = st.ancestors;
  for (let i = 0; i < anc.length; i++) {
    if (anc[i] === o) {
      st.problems.warn(path, 'a value that contains itself (a cycle) cannot be sent as JSON');
      return CIRCULAR;
    }
  }
  let isArray: boolean;
  let proto: unknown;
  try {
    isArray = Array.isArray(o);
    proto = Object.getPrototypeOf(o);
  } catch (e) {
    st.problems.warn(path, `a value that could not be read (${messageOf(e)})`);
    return UNREADABLE;
  }
  anc.push(o);
  const cutsBefore = st.cuts ?? 0;
  try {
    if (isArray) return markCut(st, cutsBefore, cloneArray(st, o as unknown[], path, depth));
    if (proto !== null && proto !== Object.prototype) {
      const special = cloneSpecial(st, o, path);
      if (special !== OMIT) return special;
    }
    let keys: string[];
    try {
      keys = Object.keys(o);
    } catch (e) {
      st.problems.warn(path, `an object whose members could not be listed (${messageOf(e)})`);
      return UNREADABLE;
    }
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const childPath = path + '/' + escapePointerSegment(k);
      let item: unknown;
      try {
        item = (o as Record<string, unknown>)[k];
      } catch (e) {
        st.problems.warn(childPath, `a member that could not be read (${messageOf(e)})`);
        defineMember(out, k, UNREADABLE);
        continue;
      }
      st.values++;
      const c = cloneJson(st, item, childPath, depth + 1);
      if (c !== OMIT) defineMember(out, k, c);
    }
    return markCut(st, cutsBefore, out);
  } finally {
    anc.pop();
  }
}

/** `copy`, remembered as incomplete when something inside it was cut since `before`. */
function markCut(st: CloneState, before: number, copy: unknown): unknown {
  if ((st.cuts ?? 0) !== before && typeof copy === 'object' && copy !== null) INCOMPLETE.add(copy);
  return copy;
}

function cloneArray(st: CloneState, a: unknown[], path: string, depth: number): unknown {
  let n: number;
  try {
    n = a.length;
  } catch (e) {
    st.problems.warn(path, `an array whose length could not be read (${messageOf(e)})`);
    return UNREADABLE;
  }
  if (typeof n !== 'number' || !(n >= 0)) n = 0;
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (!spend(st, path + '/' + i)) {
      out.push(TRUNCATED_SIZE);
      break;
    }
    let item: unknown;
    try {
      item = a[i];
    } catch (e) {
      st.problems.warn(path + '/' + i, `an item that could not be read (${messageOf(e)})`);
      out.push(UNREADABLE);
      continue;
    }
    const c = cloneJson(st, item, path + '/' + i, depth + 1);
    // JSON turns what it leaves out of objects into null in arrays.
    out.push(c === OMIT ? null : c);
  }
  return out;
}

/**
 * Objects that are not plain: boxed primitives and dates as JSON.stringify
 * writes them; anything else is copied member by member like a plain object,
 * with a warning. toJSON is not called (no code of the page runs here beyond
 * getters).
 */
function cloneSpecial(st: CloneState, o: object, path: string): unknown {
  const tag = safeClassName(o);
  try {
    switch (tag) {
      case 'Number':
        if (o instanceof Number) {
          const n = Number.prototype.valueOf.call(o);
          return Number.isFinite(n) ? n : null;
        }
        break;
      case 'String':
        if (o instanceof String) return String.prototype.valueOf.call(o);
        break;
      case 'Boolean':
        if (o instanceof Boolean) return Boolean.prototype.valueOf.call(o);
        break;
      case 'Date':
        if (o instanceof Date) {
          const t = Date.prototype.getTime.call(o);
          st.problems.warn(path, 'a Date is not JSON (sent as its ISO string)');
          return Number.isFinite(t) ? Date.prototype.toISOString.call(o) : null;
        }
        break;
      case 'Object':
        // Another realm's plain object, or an instance of a class: copy its members.
        if (!isPlainObject(o)) st.problems.warn(path, 'an instance of a class is not plain JSON data (copied as an object of its own members)');
        break;
      default:
        st.problems.warn(path, `${tag} is not plain JSON data (copied as an object of its own members)`);
        return OMIT;
    }
  } catch (e) {
    st.problems.warn(path, `a value that could not be read (${messageOf(e)})`);
    return UNREADABLE;
  }
  return OMIT;
}

/** A bounded, guarded JSON-safe copy (see module comment). Never throws. */
export function toJsonSafe(value: unknown, problems?: Problem[], path = ''): unknown {
  const p = new Problems();
  const st: CloneState = { problems: p, values: 0, sizeReported: false, ancestors: [] };
  let c: unknown;
  try {
    c = cloneJson(st, value, path, 0);
  } catch (e) {
    p.warn(path, `a value that could not be read (${messageOf(e)})`);
    c = UNREADABLE;
  }
  if (problems) problems.push(...p.done());
  return c === OMIT ? undefined : c;
}

/**
 * Reads an own member, as JSON.stringify would send it: inherited members
 * (a polluted prototype, a class's accessors) are not read. An own getter
 * runs, inside try/catch.
 */
export function safeGet(o: object, key: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const d = Object.getOwnPropertyDescriptor(o, key);
    if (d === undefined) return { ok: true, value: undefined };
    if ('value' in d) return { ok: true, value: d.value };
    return { ok: true, value: typeof d.get === 'function' ? d.get.call(o) : undefined };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

export function isArraySafe(v: unknown): boolean {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

export function kindOfRaw(v: unknown): string {
  if (v === null) return 'null';
  if (isArraySafe(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

