/**
 * The two hashes of the protocol:
 *
 * - `argsHash(params)`: lowercase hex SHA-256 of the UTF-8 of the RFC 8785
 *   canonical JSON of a request's params (oui-spec 0.6.0 types, approvals).
 * - `surfacesHash(surfaces)`: `fnv1a64:` + 16 lowercase hex digits, the 64-bit
 *   FNV-1a of the surfaces' JSON with every object's keys sorted, one step per
 *   UTF-16 code unit (§7.3.4). Offset basis 0xcbf29ce484222325, prime
 *   0x100000001b3, `h ^= unit; h *= prime (mod 2^64)`.
 *
 * Pure: no DOM, no Node APIs. SHA-256 is @noble/hashes (sync, everywhere);
 * the async `argsHash` hands large inputs to WebCrypto when there is one.
 */

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalJson, sortKeys } from './canonical.ts';
import { isStackOverflow, writeJson } from './json-text.ts';
import { SURFACES_HASH_PATTERN } from './oui-types.ts';

// ---------------------------------------------------------------------------
// args hash
// ---------------------------------------------------------------------------

const encoder = new TextEncoder();

/** Below this many bytes noble's sync SHA-256 beats a WebCrypto round trip. */
const SUBTLE_MIN_BYTES = 16 * 1024;

/** `argsHash`, synchronously. Throws `CanonicalJsonError` for params that are not I-JSON. */
export function argsHashSync(params: unknown): string {
  return bytesToHex(sha256(encoder.encode(canonicalJson(params))));
}

/**
 * SHA-256 of the canonical JSON of a request's params, lowercase hex. Rejects
 * with `CanonicalJsonError` for params that are not I-JSON. Small inputs are
 * hashed synchronously (a WebCrypto round trip costs more than hashing a few
 * kilobytes); large ones go to WebCrypto where there is one.
 */
export function argsHash(params: unknown): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = encoder.encode(canonicalJson(params));
    if (bytes.length < SUBTLE_MIN_BYTES) return Promise.resolve(bytesToHex(sha256(bytes)));
  } catch (e) {
    return Promise.reject(e);
  }
  const subtle = getSubtle();
  if (!subtle) return Promise.resolve().then(() => bytesToHex(sha256(bytes)));
  return subtle.digest('SHA-256', bytes as BufferSource).then(
    (digest) => bytesToHex(new Uint8Array(digest)),
    // Not a secure context, or no SHA-256 there: noble does it.
    () => bytesToHex(sha256(bytes)),
  );
}

function getSubtle(): SubtleCrypto | null {
  try {
    const c = (globalThis as { crypto?: Crypto }).crypto;
    return c && c.subtle && typeof c.subtle.digest === 'function' ? c.subtle : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// sorted JSON
// ---------------------------------------------------------------------------

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether the shared prototypes carry a toJSON (someone added one): then
 * every object has to be asked. Checked once per call.
 */
let prototypesHaveToJSON = false;
function checkPrototypes(): void {
  prototypesHaveToJSON =
    (Object.prototype as { toJSON?: unknown }).toJSON !== undefined ||
    (Array.prototype as { toJSON?: unknown }).toJSON !== undefined;
}

/** JSON.stringify's SerializeJSONProperty preamble: toJSON, then unwrap boxed primitives. */
function prepare(v: unknown, key: string): unknown {
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'bigint') {
      const toJSON = (v as unknown as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return prepareSlow(toJSON.call(v, key));
    }
    return v;
  }
  // Plain objects and arrays (the usual case) can only have an own toJSON.
  if (!prototypesHaveToJSON) {
    const proto = Object.getPrototypeOf(v) as unknown;
    if ((proto === Object.prototype || proto === Array.prototype || proto === null) && !hasOwn.call(v, 'toJSON')) {
      return v;
    }
  }
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  return prepareSlow(typeof toJSON === 'function' ? toJSON.call(v, key) : v);
}

function prepareSlow(v: unknown): unknown {
  if (v !== null && typeof v === 'object') {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean) return v.valueOf();
    if (typeof BigInt === 'function' && v instanceof BigInt) return v.valueOf();
  }
  return v;
}

function circular(): TypeError {
  return new TypeError('Converting circular structure to JSON');
}

/**
 * The recursive walks below go this deep at most, then hand the whole value
 * to the explicit-stack walk (json-text.ts), which has no depth limit: well
 * before the stack runs out, and before their linear ancestor scans cost more
 * than the walk itself.
 */
const RECURSION_LIMIT = 1_000;

/** Thrown by a recursive walk at RECURSION_LIMIT: the value goes to the explicit-stack walk. */
const TOO_DEEP: unique symbol = Symbol('too-deep-for-recursion');

/** Whether a walk stopped for depth (its own limit, or the engine's stack), not for the value. */
function tooDeep(e: unknown): boolean {
  return e === TOO_DEEP || isStackOverflow(e);
}

function skipsInObject(v: unknown): boolean {
  const t = typeof v;
  return t === 'undefined' || t === 'function' || t === 'symbol';
}

class SortedWriter {
  out = '';
  private readonly ancestors: object[] = [];

  /** Whether `v` (after toJSON) has a JSON form; writes it if so. */
  value(v: unknown, key: string): boolean {
    v = prepare(v, key);
    if (skipsInObject(v)) return false;
    this.prepared(v);
    return true;
  }

  private prepared(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.out += JSON.stringify(v);
        return;
      case 'number':
        this.out += v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null';
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      default:
        if (v === null) this.out += 'null';
        else this.object(v as object);
    }
  }

  private object(o: object): void {
    const anc = this.ancestors;
    if (anc.length >= RECURSION_LIMIT) throw TOO_DEEP;
    for (let i = 0; i < anc.length; i++) if (anc[i] === o) throw circular();
    anc.push(o);
    if (Array.isArray(o)) {
      this.out += '[';
      const n = o.length;
      for (let i = 0; i < n; i++) {
        if (i > 0) this.out += ',';
        if (!this.value(o[i], '' + i)) this.out += 'null';
      }
      this.out += ']';
    } else {
      const keys = sortKeys(Object.keys(o));
      this.out += '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const v = prepare((o as Record<string, unknown>)[k], k);
        if (skipsInObject(v)) continue;
        if (first) first = false;
        else this.out += ',';
        this.out += JSON.stringify(k) + ':';
        this.prepared(v);
      }
      this.out += '}';
    }
    anc.pop();
  }
}

/**
 * `JSON.stringify(value)` with every object's keys sorted by UTF-16 code
 * units: the text `surfacesHash` hashes. Same semantics as `JSON.stringify`
 * otherwise (toJSON, boxed primitives, `undefined`/functions/symbols left out
 * of objects and `null` in arrays, non-finite numbers as `null`, TypeError on
 * cycles and bigints). A top-level value `JSON.stringify` would turn into
 * `undefined` throws a TypeError.
 */
export function sortedJson(value: unknown): string {
  checkPrototypes();
  const w = new SortedWriter();
  try {
    if (!w.value(value, '')) throw new TypeError(`sortedJson: ${typeof value} has no JSON form`);
    return w.out;
  } catch (e) {
    if (!tooDeep(e)) throw e;
  }
  return deepSortedJson(value);
}

/** The sorted JSON of a value too deep for the recursive writer, by the explicit-stack walk (json-text.ts): the same text, the same errors. */
function deepSortedJson(value: unknown): string {
  const text = writeJson(value, { gap: '', sorted: true });
  if (text === undefined) throw new TypeError(`sortedJson: ${typeof value} has no JSON form`);
  return text;
}

// ---------------------------------------------------------------------------
// FNV-1a 64 without BigInt
// ---------------------------------------------------------------------------
//
// The 64-bit state is two int32 halves (hi, lo). The prime is 2^40 + 0x1b3, so
//   h * prime = h * 0x1b3 + (h << 40)   (mod 2^64)
// h << 40 only moves lo's low 24 bits into hi (lo << 8). h * 0x1b3 needs the
// high half of lo * 0x1b3, computed from lo's 16-bit halves so every
// intermediate stays an exact small integer.

const OFFSET_HI = 0xcbf29ce4 | 0;
const OFFSET_LO = 0x84222325 | 0;

function hex64(hi: number, lo: number): string {
  return ((hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0'));
}

/** FNV-1a 64 over a string's UTF-16 code units, as 16 lowercase hex digits. */
export function fnv1a64Utf16(s: string): string {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  for (let i = 0; i < s.length; i++) {
    lo ^= s.charCodeAt(i);
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  return hex64(hi, lo);
}

/** FNV-1a 64 over bytes, as 16 lowercase hex digits. */
export function fnv1a64Bytes(bytes: Uint8Array): string {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i] as number;
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  return hex64(hi, lo);
}

/** FNV-1a 64 over a string's UTF-16LE bytes (low byte of each code unit first). */
function fnv1a64Utf16le(s: string): string {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    for (let b = 0; b < 2; b++) {
      lo ^= b === 0 ? u & 0xff : u >>> 8;
      const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
      lo = Math.imul(lo, 0x1b3);
    }
  }
  return hex64(hi, lo);
}

// ---------------------------------------------------------------------------
// surfaces hash: the sorted JSON hashed as it is walked, never built
// ---------------------------------------------------------------------------

// The walk keeps the hash state in module variables (H, L): plain locals of
// the module, cheaper than object fields in the hot paths. A surfacesHash call
// runs to completion synchronously, so nothing else sees them mid-way; a
// toJSON that calls surfacesHash re-entrantly is handled by saving them.
let H = OFFSET_HI;
let L = OFFSET_LO;
let ANCESTORS: object[] = [];

function hashUnit(u: number): void {
  const lo = L ^ u;
  const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
  H = (Math.imul(H, 0x1b3) + carry + (lo << 8)) | 0;
  L = Math.imul(lo, 0x1b3);
}

function hashText(s: string): void {
  let hi = H;
  let lo = L;
  for (let i = 0; i < s.length; i++) {
    lo ^= s.charCodeAt(i);
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  H = hi;
  L = lo;
}

/**
 * 1 for the code units `JSON.stringify` may escape: controls, `"`, `\\`, and
 * surrogates (escaped when lone). A table lookup ORed into a flag keeps the
 * hashing loop free of branches.
 */
const MAY_ESCAPE = /* @__PURE__ */ (() => {
  const t = new Uint8Array(65536);
  t.fill(1, 0, 0x20);
  t[0x22] = 1;
  t[0x5c] = 1;
  t.fill(1, 0xd800, 0xe000);
  return t;
})();

/**
 * Hashes `prefix` (one unit or none: -1), then the JSON string literal of `s`,
 * then `suffix` (one unit or none). Straight from `s` unless something in it
 * needs escaping: then JSON.stringify's form is hashed instead.
 */
function hashQuoted(prefix: number, s: string, suffix: number): void {
  const h0 = H;
  const l0 = L;
  let hi = h0;
  let lo = l0;
  let carry: number;
  if (prefix >= 0) {
    lo ^= prefix;
    carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  lo ^= 0x22; // the opening quote
  carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
  hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
  lo = Math.imul(lo, 0x1b3);
  let escapes = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    escapes |= MAY_ESCAPE[u] as number;
    lo ^= u;
    carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  if (escapes !== 0) {
    // Start again from the saved state with the escaped form.
    H = h0;
    L = l0;
    if (prefix >= 0) hashUnit(prefix);
    hashText(JSON.stringify(s));
    if (suffix >= 0) hashUnit(suffix);
    return;
  }
  lo ^= 0x22; // the closing quote
  carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
  hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
  lo = Math.imul(lo, 0x1b3);
  if (suffix >= 0) {
    lo ^= suffix;
    carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  H = hi;
  L = lo;
}

function hashNumber(v: number): void {
  if (v >= 0 && v < 10 && (v | 0) === v) hashUnit(0x30 + v);
  else hashText(v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null');
}

/** Hashes a value already through `prepare` that has a JSON form. */
function hashPrepared(v: unknown): void {
  switch (typeof v) {
    case 'string':
      hashQuoted(-1, v, -1);
      return;
    case 'number':
      hashNumber(v);
      return;
    case 'boolean':
      hashText(v ? 'true' : 'false');
      return;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      if (v === null) hashText('null');
      else hashObject(v as object);
  }
}

/**
 * Ancestors are only searched from this depth on: a cycle makes the walk go
 * deeper without end, so it is caught there, and the usual shallow value pays
 * nothing for the check.
 */
const CYCLE_CHECK_DEPTH = 24;

function hashObject(o: object): void {
  const anc = ANCESTORS;
  if (anc.length >= RECURSION_LIMIT) throw TOO_DEEP;
  if (anc.length >= CYCLE_CHECK_DEPTH) {
    for (let i = 0; i < anc.length; i++) if (anc[i] === o) throw circular();
  }
  anc.push(o);
  if (Array.isArray(o)) {
    hashUnit(0x5b);
    const n = o.length;
    for (let i = 0; i < n; i++) {
      if (i > 0) hashUnit(0x2c);
      let v: unknown = o[i];
      if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') v = prepare(v, '' + i);
      if (skipsInObject(v)) hashText('null');
      else hashPrepared(v);
    }
    hashUnit(0x5d);
  } else {
    const keys = sortKeys(Object.keys(o));
    // '{' goes in front of the first member name (or alone), ',' in front of the others.
    let before = 0x7b;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      let v: unknown = (o as Record<string, unknown>)[k];
      if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') v = prepare(v, k);
      if (skipsInObject(v)) continue;
      hashQuoted(before, k, 0x3a);
      before = 0x2c;
      hashPrepared(v);
    }
    if (before === 0x7b) hashUnit(0x7b);
    hashUnit(0x7d);
  }
  anc.pop();
}

/**
 * `fnv1a64:` + the 64-bit FNV-1a, in 16 lowercase hex digits, of
 * `sortedJson(surfaces)` taken over its UTF-16 code units (§7.3.4). Computed
 * while walking the value: the sorted JSON text is never built (but for a
 * value too deep for the stack, whose text is written by an explicit-stack
 * walk and hashed).
 */
export function surfacesHash(surfaces: unknown): string {
  const saved = [H, L, ANCESTORS] as const;
  H = OFFSET_HI;
  L = OFFSET_LO;
  ANCESTORS = [];
  try {
    checkPrototypes();
    const v = prepare(surfaces, '');
    if (skipsInObject(v)) throw new TypeError(`surfacesHash: ${typeof v} has no JSON form`);
    hashPrepared(v);
    return 'fnv1a64:' + hex64(H, L);
  } catch (e) {
    if (!tooDeep(e)) throw e;
  } finally {
    [H, L, ANCESTORS] = saved;
  }
  // Deeper than the stack lets the walk go (surfaces whose schema nests thousands of levels): the same hash over the text.
  return 'fnv1a64:' + fnv1a64Utf16(deepSortedJson(surfaces));
}

/** The spec's hash and the two wrong variants clients have been seen to compute. */
export interface SurfacesHashVariants {
  /** The spec's: one FNV-1a step per UTF-16 code unit. */
  utf16: string;
  /** One step per UTF-8 byte of the sorted JSON (non-conformant). */
  utf8: string;
  /** Two steps per code unit, low byte first (non-conformant). */
  utf16le: string;
}

export type SurfacesHashVariant = keyof SurfacesHashVariants;

/** The surfaces hash computed the spec's way and the two byte-wise ways. */
export function surfacesHashVariants(surfaces: unknown): SurfacesHashVariants {
  const text = sortedJson(surfaces);
  return {
    utf16: 'fnv1a64:' + fnv1a64Utf16(text),
    utf8: 'fnv1a64:' + fnv1a64Bytes(encoder.encode(text)),
    utf16le: 'fnv1a64:' + fnv1a64Utf16le(text),
  };
}

/**
 * Which way a client computed the `surfacesHash` it reported: `utf16` (the
 * spec's), `utf8` or `utf16le` (byte-wise, non-conformant), or null when it
 * matches none (different surfaces, unsorted keys, other serialisation…).
 * Never throws: surfaces with no JSON form give null.
 */
export function identifySurfacesHashVariant(surfaces: unknown, reported: unknown): SurfacesHashVariant | null {
  if (typeof reported !== 'string' || !SURFACES_HASH_PATTERN.test(reported)) return null;
  let variants: SurfacesHashVariants;
  try {
    variants = surfacesHashVariants(surfaces);
  } catch {
    return null;
  }
  if (variants.utf16 === reported) return 'utf16';
  if (variants.utf8 === reported) return 'utf8';
  if (variants.utf16le === reported) return 'utf16le';
  return null;
}
