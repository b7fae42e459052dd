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
import { canonicalJson } from './canonical.ts';
import { SURFACES_HASH_PATTERN } from './types.ts';

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
  return subtle.digest('SHA-256', bytes).then(
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

/** `a < b` by UTF-16 code units: insertion sort for the small key lists of real objects. */
function sortKeys(keys: string[]): string[] {
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

/** JSON.stringify's SerializeJSONProperty preamble: toJSON, then unwrap boxed primitives. */
function prepare(v: unknown, key: string): unknown {
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint')) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
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
  const w = new SortedWriter();
  if (!w.value(value, '')) throw new TypeError(`sortedJson: ${typeof value} has no JSON form`);
  return w.out;
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

class HashWriter {
  hi = OFFSET_HI;
  lo = OFFSET_LO;
  private readonly ancestors: object[] = [];

  private unit(u: number): void {
    const lo = this.lo ^ u;
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    this.hi = (Math.imul(this.hi, 0x1b3) + carry + (lo << 8)) | 0;
    this.lo = Math.imul(lo, 0x1b3);
  }

  private text(s: string): void {
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < s.length; i++) {
      lo ^= s.charCodeAt(i);
      const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
      lo = Math.imul(lo, 0x1b3);
    }
    this.hi = hi;
    this.lo = lo;
  }

  /** A JSON string literal: hashed straight from `s` unless something in it needs escaping. */
  private quoted(s: string): void {
    let hi = this.hi;
    let lo = this.lo;
    // the opening quote
    lo ^= 0x22;
    let carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
    for (let i = 0; i < s.length; i++) {
      const u = s.charCodeAt(i);
      if (u < 0x20 || u === 0x22 || u === 0x5c || (u >= 0xd800 && u <= 0xdfff)) {
        // Needs escaping (or may: surrogates): hash JSON.stringify's form instead.
        this.text(JSON.stringify(s));
        return;
      }
      lo ^= u;
      carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
      lo = Math.imul(lo, 0x1b3);
    }
    lo ^= 0x22;
    carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) | 0;
    lo = Math.imul(lo, 0x1b3);
    this.hi = hi;
    this.lo = lo;
  }

  /** Whether `v` (after toJSON) has a JSON form; hashes it if so. */
  value(v: unknown, key: string): boolean {
    v = prepare(v, key);
    if (skipsInObject(v)) return false;
    this.prepared(v);
    return true;
  }

  private object(o: object): void {
    const anc = this.ancestors;
    for (let i = 0; i < anc.length; i++) if (anc[i] === o) throw circular();
    anc.push(o);
    if (Array.isArray(o)) {
      this.unit(0x5b);
      const n = o.length;
      for (let i = 0; i < n; i++) {
        if (i > 0) this.unit(0x2c);
        if (!this.value(o[i], '' + i)) this.text('null');
      }
      this.unit(0x5d);
    } else {
      const keys = sortKeys(Object.keys(o));
      this.unit(0x7b);
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const v = prepare((o as Record<string, unknown>)[k], k);
        if (skipsInObject(v)) continue;
        if (first) first = false;
        else this.unit(0x2c);
        this.quoted(k);
        this.unit(0x3a);
        // Already prepared: hash without calling toJSON a second time.
        this.prepared(v);
      }
      this.unit(0x7d);
    }
    anc.pop();
  }

  private prepared(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.quoted(v);
        return;
      case 'number':
        this.text(v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null');
        return;
      case 'boolean':
        this.text(v ? 'true' : 'false');
        return;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      default:
        if (v === null) this.text('null');
        else this.object(v as object);
    }
  }
}

/**
 * `fnv1a64:` + the 64-bit FNV-1a, in 16 lowercase hex digits, of
 * `sortedJson(surfaces)` taken over its UTF-16 code units (§7.3.4). Computed
 * while walking the value: the sorted JSON text is never built.
 */
export function surfacesHash(surfaces: unknown): string {
  const w = new HashWriter();
  if (!w.value(surfaces, '')) throw new TypeError(`surfacesHash: ${typeof surfaces} has no JSON form`);
  return 'fnv1a64:' + hex64(w.hi, w.lo);
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
