/**
 * RFC 8785 (JCS) canonical JSON, as the OUI args hash needs it
 * (oui-spec 0.6.0 types, `canonicalJson`):
 *
 * - object members sorted by their names' UTF-16 code units, no whitespace;
 * - numbers in ECMAScript's shortest round-trip form (`-0` is `0`);
 * - strings escaped as ECMAScript's `JSON.stringify` escapes them.
 *
 * The value must be I-JSON (RFC 7493). Anything JSON cannot carry is refused
 * with a `CanonicalJsonError` whose `path` is a JSON pointer to the offending
 * value: `NaN`, infinities, `undefined` outside an object member, a bigint, a
 * function, a symbol, a class instance (anything whose prototype is neither
 * `Object.prototype` nor `null`, arrays aside: `Date`, `Map`, boxed
 * primitives, …), a string or member name with a lone surrogate, and cycles.
 * An object member whose value is `undefined` is left out, as on the wire.
 * `toJSON` is never called: an object carrying a `toJSON` function is refused
 * for its function member, a class instance for being one.
 *
 * Any depth: RFC 8785 sets no limit, and a page can send params nested
 * 100,000 levels deep. A value deeper than the recursive fast path goes
 * (RECURSION_LIMIT) is written by the builder, which keeps its own stack.
 *
 * Pure: no DOM, no Node APIs.
 */

import { setMember } from './json-object.ts';
import { isStackOverflow } from './json-text.ts';

/** What canonical JSON refused. */
export type CanonicalRefusal =
  | 'non-finite-number'
  | 'undefined'
  | 'bigint'
  | 'function'
  | 'symbol'
  | 'class-instance'
  | 'lone-surrogate'
  | 'cycle'
  | 'unreadable'
  | 'too-deep';

export class CanonicalJsonError extends Error {
  /** JSON pointer (RFC 6901) to the refused value; `''` is the value itself. */
  readonly path: string;
  readonly refusal: CanonicalRefusal;
  constructor(refusal: CanonicalRefusal, detail: string, path: string) {
    super(`canonical JSON refuses ${detail} at ${path === '' ? '(root)' : printable(path)}`);
    this.name = 'CanonicalJsonError';
    this.refusal = refusal;
    this.path = path;
  }
}

/** A pointer as a message shows it: lone surrogates and control characters as \\uXXXX. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) =>
    '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

/** Internal: thrown from deep inside; each frame on the way out adds its segment. */
class Refusal {
  readonly segments: string[] = [];
  constructor(
    readonly refusal: CanonicalRefusal,
    readonly detail: string,
  ) {}
}

/** Escapes one JSON pointer segment (RFC 6901). */
export function escapePointerSegment(segment: string): string {
  if (segment.indexOf('~') === -1 && segment.indexOf('/') === -1) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type WellFormedString = string & { isWellFormed?: () => boolean };
const nativeIsWellFormed = (String.prototype as unknown as { isWellFormed?: () => boolean }).isWellFormed;

/** Whether a string holds a surrogate code unit that is not part of a pair. */
export function hasLoneSurrogate(s: string): boolean {
  if (typeof nativeIsWellFormed === 'function') return !nativeIsWellFormed.call(s as WellFormedString);
  return LONE_SURROGATE.test(s);
}

/**
 * `JSON.stringify` escaping; refuses lone surrogates. `JSON.stringify` of a
 * string adds nothing but the two quotes unless it escaped something, and it
 * escapes every lone surrogate (ES2019 well-formed stringify): so the common
 * case is one native pass.
 */
function quote(s: string, what: string): string {
  const q = JSON.stringify(s);
  if (q.length !== s.length + 2 && hasLoneSurrogate(s)) {
    throw new Refusal('lone-surrogate', `${what} with a lone surrogate`);
  }
  return q;
}

function describeValue(v: unknown): string {
  try {
    if (typeof v === 'function') return `a function${v.name ? ` (${v.name})` : ''}`;
    if (typeof v === 'symbol') return 'a symbol';
    if (typeof v === 'bigint') return 'a bigint';
  } catch {
    /* fall through */
  }
  return `a ${typeof v}`;
}

function className(o: object): string {
  try {
    const proto = Object.getPrototypeOf(o) as { constructor?: { name?: unknown } } | null;
    const ctor = proto && Object.prototype.hasOwnProperty.call(proto, 'constructor') ? proto.constructor : undefined;
    const name = ctor && typeof ctor === 'function' ? ctor.name : undefined;
    if (typeof name === 'string' && name) return name;
    return Object.prototype.toString.call(o).slice(8, -1);
  } catch {
    return 'an unknown class';
  }
}

/**
 * Whether `proto` is an `Object.prototype`, ours or another realm's (a frame's
 * object reaching the page hook in the same agent).
 */
function isObjectPrototype(proto: object): boolean {
  if (proto === Object.prototype) return true;
  return (
    Object.getPrototypeOf(proto) === null &&
    Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf') &&
    Object.prototype.hasOwnProperty.call(proto, 'propertyIsEnumerable') &&
    Object.prototype.hasOwnProperty.call(proto, '__lookupGetter__')
  );
}

/** A plain object: prototype `Object.prototype` (any realm) or `null`. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === null || isObjectPrototype(proto);
}

/** A real array, not a subclass instance (`Array.prototype` of any realm is itself an array). */
function isPlainArray(v: object): v is unknown[] {
  if (!Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Array.prototype || Array.isArray(proto);
}

// Cycle detection: ancestors live in `stack[0..depth)`. Shallow levels are
// scanned linearly (cheaper than a Set for the usual handful of levels);
// levels from SHALLOW on also go into `deep` so a very deep value stays linear.
const SHALLOW = 32;

interface State {
  stack: object[];
  deep: Set<object> | null;
}

function isAncestor(st: State, o: object, depth: number): boolean {
  const stack = st.stack;
  const n = depth < SHALLOW ? depth : SHALLOW;
  for (let i = 0; i < n; i++) if (stack[i] === o) return true;
  return depth > SHALLOW && st.deep !== null && st.deep.has(o);
}

/** Why a value that is neither a string, a boolean, null, an object nor a finite number has no JSON form: both writers refuse alike. */
function notJson(v: unknown): Refusal {
  switch (typeof v) {
    case 'number':
      return new Refusal('non-finite-number', `the non-finite number ${String(v)}`);
    case 'undefined':
      return new Refusal('undefined', 'undefined outside an object member');
    case 'bigint':
      return new Refusal('bigint', 'a bigint');
    case 'function':
      return new Refusal('function', describeValue(v));
    case 'symbol':
      return new Refusal('symbol', 'a symbol');
    default:
      return new Refusal('unreadable', `a value of type ${typeof v}`);
  }
}

/** One container the builder is writing. */
interface BuildFrame {
  o: object;
  array: boolean;
  /** Sorted member names, for an object. */
  keys: string[] | null;
  n: number;
  next: number;
  first: boolean;
  /** The member being written: its pointer segment. */
  segment: string | null;
}

/** Deeper than this the builder refuses ('too-deep'): only a getter that makes a new object on every read gets here. */
const MAX_BUILD_DEPTH = 1 << 22;

/**
 * The builder: writes the canonical form piece by piece with an explicit
 * stack (a value of any depth), refusing as the fast path does. Each frame
 * knows the segment of the member it is writing, so a refusal's pointer is
 * the segments of the frames on the stack.
 */
function build(value: unknown): string {
  let out = '';
  const frames: BuildFrame[] = [];
  const onPath = new Set<object>();

  /** Opens a container: checks it, writes its bracket and pushes its frame. */
  const open = (o: object): void => {
    if (onPath.has(o)) throw new Refusal('cycle', 'a cycle (a value that contains itself)');
    if (frames.length >= MAX_BUILD_DEPTH) throw new Refusal('too-deep', `a value nested more than ${MAX_BUILD_DEPTH} levels deep`);
    if (Array.isArray(o)) {
      if (!isPlainArray(o)) throw new Refusal('class-instance', `an instance of ${className(o)}`);
      const n = o.length;
      onPath.add(o);
      frames.push({ o, array: true, keys: null, n, next: 0, first: true, segment: null });
      out += '[';
      return;
    }
    const proto = Object.getPrototypeOf(o) as object | null;
    if (proto !== null && !isObjectPrototype(proto)) throw new Refusal('class-instance', `an instance of ${className(o)}`);
    const keys = sortKeys(Object.keys(o));
    onPath.add(o);
    frames.push({ o, array: false, keys, n: keys.length, next: 0, first: true, segment: null });
    out += '{';
  };

  /** Writes a member's value: a scalar at once, a container by opening it. */
  const write = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        out += quote(v, 'a string');
        return;
      case 'number':
        if (v !== v || v === Infinity || v === -Infinity) throw notJson(v);
        // Number::toString is RFC 8785's number form; -0 prints as "0".
        out += '' + v;
        return;
      case 'boolean':
        out += v ? 'true' : 'false';
        return;
      case 'object':
        if (v === null) out += 'null';
        else open(v);
        return;
      default:
        throw notJson(v);
    }
  };

  try {
    write(value);
    while (frames.length > 0) {
      const f = frames[frames.length - 1]!;
      if (f.next >= f.n) {
        out += f.array ? ']' : '}';
        onPath.delete(f.o);
        frames.pop();
        continue;
      }
      const i = f.next++;
      if (f.array) {
        f.segment = '' + i;
        if (i > 0) out += ',';
        const item: unknown = (f.o as unknown[])[i];
        if (item === undefined) throw new Refusal('undefined', 'undefined in an array');
        write(item);
      } else {
        const k = f.keys![i]!;
        f.segment = k;
        const item: unknown = (f.o as Record<string, unknown>)[k];
        if (item === undefined) continue;
        if (f.first) f.first = false;
        else out += ',';
        out += quote(k, 'a member name');
        out += ':';
        write(item);
      }
    }
  } catch (e) {
    const r = e instanceof Refusal ? e : new Refusal('unreadable', `a value that could not be read (${errorMessage(e)})`);
    // Innermost first, as toCanonicalError reads them.
    for (let j = frames.length - 1; j >= 0; j--) {
      const segment = frames[j]!.segment;
      if (segment !== null) r.segments.push(segment);
    }
    throw r;
  }
  return out;
}

export function errorMessage(e: unknown): string {
  try {
    if (e instanceof Error) return String(e.message);
    return String(e);
  } catch {
    return 'unprintable error';
  }
}

// ---------------------------------------------------------------------------
// Fast path: validate while making a copy whose objects hold their members in
// sorted order, then let the native JSON.stringify write it. JSON.stringify's
// string escaping and number form are, by RFC 8785's definition, the
// canonical ones; what it cannot be trusted with is checked on the way: it
// would write NaN as null, call toJSON, escape lone surrogates, and put
// array-index member names ("0", "12") first in numeric order. An object with
// such a name among others sends the whole value down the builder path.
// ---------------------------------------------------------------------------

const FALLBACK: unique symbol = Symbol('canonical-json-fallback');

/** The fast path's recursive copy goes this deep at most; a deeper value is written by the builder. */
const RECURSION_LIMIT = 1_000;

type WellFormedCheck = (s: string) => boolean;
const isWellFormed: WellFormedCheck =
  typeof nativeIsWellFormed === 'function'
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (s) => !LONE_SURROGATE.test(s);

/** Whether a member name is an array index, which V8 enumerates before the others. */
function isArrayIndexKey(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c < 0x30 || c > 0x39) return false;
  if (k.length > 10) return false;
  if (k.length > 1 && c === 0x30) return false;
  for (let i = 1; i < k.length; i++) {
    const d = k.charCodeAt(i);
    if (d < 0x30 || d > 0x39) return false;
  }
  return Number(k) < 4294967295;
}

function cloneValue(st: State, v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
      if (!isWellFormed(v)) throw new Refusal('lone-surrogate', 'a string with a lone surrogate');
      return v;
    case 'number':
      if (v !== v || v === Infinity || v === -Infinity) throw notJson(v);
      return v;
    case 'boolean':
      return v;
    case 'object':
      return v === null ? null : cloneObject(st, v, depth);
    default:
      throw notJson(v);
  }
}

function cloneObject(st: State, o: object, depth: number): unknown {
  let segment: string | null = null;
  try {
    // Deeper than the fast path goes (well before the stack would run out): the builder, with its own stack, takes the value.
    if (depth >= RECURSION_LIMIT) throw FALLBACK;
    if (isAncestor(st, o, depth)) throw new Refusal('cycle', 'a cycle (a value that contains itself)');
    if (depth < SHALLOW) st.stack[depth] = o;
    else (st.deep ??= new Set()).add(o);
    let copy: unknown;
    if (Array.isArray(o)) {
      if (!isPlainArray(o)) throw new Refusal('class-instance', `an instance of ${className(o)}`);
      const n = o.length;
      const a: unknown[] = [];
      for (let i = 0; i < n; i++) {
        segment = '' + i;
        const item: unknown = o[i];
        if (item === undefined) throw new Refusal('undefined', 'undefined in an array');
        a.push(cloneValue(st, item, depth + 1));
      }
      copy = a;
    } else {
      const proto = Object.getPrototypeOf(o) as object | null;
      if (proto !== null && !isObjectPrototype(proto)) {
        throw new Refusal('class-instance', `an instance of ${className(o)}`);
      }
      const keys = sortKeys(Object.keys(o));
      const out: Record<string, unknown> = {};
      const many = keys.length > 1;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        segment = k;
        if (many && isArrayIndexKey(k)) throw FALLBACK;
        if (!isWellFormed(k)) throw new Refusal('lone-surrogate', 'a member name with a lone surrogate');
        const item: unknown = (o as Record<string, unknown>)[k];
        if (item === undefined) continue;
        const c = cloneValue(st, item, depth + 1);
        if (k === '__proto__') setMember(out, k, c);
        else out[k] = c;
      }
      copy = out;
    }
    if (depth >= SHALLOW) st.deep!.delete(o);
    return copy;
  } catch (e) {
    if (e === FALLBACK) throw e;
    if (e instanceof Refusal) {
      if (segment !== null) e.segments.push(segment);
      throw e;
    }
    // Too deep for this recursive copy: canonicalJson hands the value to the builder.
    if (isStackOverflow(e)) throw e;
    const r = new Refusal('unreadable', `a value that could not be read (${errorMessage(e)})`);
    if (segment !== null) r.segments.push(segment);
    throw r;
  }
}

/** `a < b` by UTF-16 code units (RFC 8785 and surfacesHash alike); insertion sort for the short key lists of real objects. */
export function sortKeys(keys: string[]): string[] {
  const n = keys.length;
  if (n < 2) return keys;
  if (n > 24) return keys.sort();
  for (let i = 1; i < n; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    if (!((keys[j] as string) > k)) continue;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

function toCanonicalError(e: unknown): CanonicalJsonError {
  if (e instanceof Refusal) {
    let path = '';
    for (let i = e.segments.length - 1; i >= 0; i--) path += '/' + escapePointerSegment(e.segments[i] as string);
    return new CanonicalJsonError(e.refusal, e.detail, path);
  }
  if (isStackOverflow(e)) {
    return new CanonicalJsonError('too-deep', 'a value nested too deeply to walk (or cyclic through a getter)', '');
  }
  return new CanonicalJsonError('unreadable', `a value that could not be read (${errorMessage(e)})`, '');
}

/** Whether someone gave every object or array a toJSON: JSON.stringify would call it. */
function prototypesPolluted(): boolean {
  return (
    (Object.prototype as { toJSON?: unknown }).toJSON !== undefined ||
    (Array.prototype as { toJSON?: unknown }).toJSON !== undefined
  );
}

/**
 * The RFC 8785 canonical form of a JSON value. Throws `CanonicalJsonError`
 * for anything that is not I-JSON (see the module comment).
 */
export function canonicalJson(value: unknown): string {
  if (!prototypesPolluted()) {
    const st: State = { stack: [], deep: null };
    let copy: unknown;
    try {
      copy = cloneValue(st, value, 0);
    } catch (e) {
      // Array-index member names, or a value deeper than the stack lets the copy go: the builder has neither limit.
      if (e !== FALLBACK && !isStackOverflow(e)) throw toCanonicalError(e);
      return canonicalJsonByBuilder(value);
    }
    try {
      return JSON.stringify(copy);
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
      return canonicalJsonByBuilder(value);
    }
  }
  return canonicalJsonByBuilder(value);
}

/**
 * The same canonical form, written piece by piece without the native
 * JSON.stringify walking any object (it still escapes single strings), with
 * an explicit stack, so at any depth. Used for values with array-index member
 * names and for values too deep for the fast path; exported so tests can hold
 * both paths to the same output.
 */
export function canonicalJsonByBuilder(value: unknown): string {
  try {
    return build(value);
  } catch (e) {
    throw toCanonicalError(e);
  }
}

// ---------------------------------------------------------------------------
// Duplicate member names (I-JSON, RFC 7493 §2.3)
// ---------------------------------------------------------------------------

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Reads a JSON string starting at the quote at `i`; null when it never ends. */
function readString(t: string, i: number): { value: string; end: number } | null {
  const n = t.length;
  let j = i + 1;
  // Fast path: no escapes.
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === 0x22) return { value: t.slice(i + 1, j), end: j + 1 };
    if (c === 0x5c) break;
    j++;
  }
  if (j >= n) return null;
  let value = t.slice(i + 1, j);
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === 0x22) return { value, end: j + 1 };
    if (c !== 0x5c) {
      value += t[j];
      j++;
      continue;
    }
    const e = t[j + 1];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        value += e;
        j += 2;
        break;
      case 'b':
        value += '\b';
        j += 2;
        break;
      case 'f':
        value += '\f';
        j += 2;
        break;
      case 'n':
        value += '\n';
        j += 2;
        break;
      case 'r':
        value += '\r';
        j += 2;
        break;
      case 't':
        value += '\t';
        j += 2;
        break;
      case 'u': {
        const hex = t.slice(j + 2, j + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return null;
        value += String.fromCharCode(parseInt(hex, 16));
        j += 6;
        break;
      }
      default:
        return null;
    }
  }
  return null;
}

interface ScanFrame {
  obj: boolean;
  ptr: string;
  count: number;
  keys: Set<string> | null;
  reported: Set<string> | null;
}

/**
 * The JSON pointers of the duplicate member names in a JSON text: `{"a":1,"a":2}`
 * gives `["/a"]`. `JSON.parse` keeps the last member silently; I-JSON (RFC 7493)
 * forbids duplicates, so a captured frame with one deserves a finding. Each
 * duplicated name is listed once per object. Pure and total: text that is not
 * JSON yields what was found before the point where it stopped being JSON.
 */
export function findDuplicateMemberNames(text: unknown): string[] {
  const found: string[] = [];
  if (typeof text !== 'string') return found;
  try {
    scanDuplicates(text, found);
  } catch {
    /* total: keep what was found */
  }
  return found;
}

function scanDuplicates(t: string, found: string[]): void {
  const n = t.length;
  const stack: ScanFrame[] = [];
  let i = 0;
  let ptr = '';
  // 0: a value is expected; 1: a value ended; 2: a member name is expected.
  let mode = 0;
  for (;;) {
    while (i < n && isWs(t.charCodeAt(i))) i++;
    if (i >= n) return;
    const c = t.charCodeAt(i);
    if (mode === 0) {
      if (c === 0x7b /* { */) {
        stack.push({ obj: true, ptr, count: 0, keys: null, reported: null });
        i++;
        mode = 2;
      } else if (c === 0x5b /* [ */) {
        const frame: ScanFrame = { obj: false, ptr, count: 0, keys: null, reported: null };
        stack.push(frame);
        i++;
        while (i < n && isWs(t.charCodeAt(i))) i++;
        if (t.charCodeAt(i) === 0x5d /* ] */) {
          i++;
          stack.pop();
          mode = 1;
        } else {
          ptr = frame.ptr + '/0';
        }
      } else if (c === 0x22) {
        const s = readString(t, i);
        if (s === null) return;
        i = s.end;
        mode = 1;
      } else {
        const start = i;
        while (i < n) {
          const d = t.charCodeAt(i);
          if (d === 0x2c || d === 0x5d || d === 0x7d || d === 0x3a || isWs(d)) break;
          i++;
        }
        if (i === start) return;
        mode = 1;
      }
    } else if (mode === 1) {
      const top = stack[stack.length - 1];
      if (top === undefined) return; // the top-level value ended
      if (c === 0x2c /* , */) {
        i++;
        if (top.obj) mode = 2;
        else {
          top.count++;
          ptr = top.ptr + '/' + top.count;
          mode = 0;
        }
      } else if (c === (top.obj ? 0x7d : 0x5d)) {
        i++;
        stack.pop();
      } else {
        return;
      }
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) return;
      if (c === 0x7d && top.count === 0) {
        i++;
        stack.pop();
        mode = 1;
        continue;
      }
      if (c !== 0x22) return;
      const s = readString(t, i);
      if (s === null) return;
      i = s.end;
      while (i < n && isWs(t.charCodeAt(i))) i++;
      if (t.charCodeAt(i) !== 0x3a /* : */) return;
      i++;
      const memberPtr = top.ptr + '/' + escapePointerSegment(s.value);
      const keys = (top.keys ??= new Set());
      if (keys.has(s.value)) {
        const reported = (top.reported ??= new Set());
        if (!reported.has(s.value)) {
          reported.add(s.value);
          found.push(memberPtr);
        }
      } else {
        keys.add(s.value);
      }
      top.count++;
      ptr = memberPtr;
      mode = 0;
    }
  }
}
