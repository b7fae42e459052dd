/**
 * Payloads as the hook keeps them: text as is (large frames as a head of
 * their own), bytes copied, JS values copied at the moment they are seen.
 */
import type { CapturedPayload, OmittedPayload } from '../src/capture/captured-items.ts';
import { bytesToBase64 } from '../src/protocol/base64.ts';

/** Frames longer than this (UTF-16 units or bytes) keep only their head and their size. */
export const FRAME_CAP = 2 * 1024 * 1024;
/** What a frame over FRAME_CAP keeps: its first HEAD code units. */
export const HEAD = 512;

// Taken at document_start: a page that later replaces JSON.stringify or Object.keys neither sees nor changes the hook's copies.
const stringify = JSON.stringify;
const keysOf = Object.keys;
const protoOf = Object.getPrototypeOf;
const isArray = Array.isArray;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const fromCharCode = String.fromCharCode;
const typedSlice = (Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array).slice;
const NativeUint16Array = Uint16Array;
const charCodeAt = String.prototype.charCodeAt;

/** What a binary frame over the cap keeps: its first BINARY_HEAD bytes, in hex. */
export const BINARY_HEAD = 128;

/**
 * Whether a text holds anything but ASCII: then its UTF-8 size is more than
 * its length. The regex's own `exec` is the engine's, taken now: `test`
 * looks `exec` up on the regex, where a page's RegExp.prototype.exec would
 * otherwise answer.
 */
const NON_ASCII = /[^\x00-\x7f]/;
Object.defineProperty(NON_ASCII, 'exec', { value: RegExp.prototype.exec });
const regexTest = RegExp.prototype.test;
const apply = Reflect.apply;

export function textPayload(text: string): { payload: CapturedPayload; size?: number } {
  if (text.length <= FRAME_CAP) return { payload: { text } };
  // Only for frames over the cap: one scan (about 1 ns a character, stopping at the first non-ASCII one), so the
  // panel can say "50.0 MB" of a frame whose bytes are its characters, and "at least" of one whose are not.
  const payload: OmittedPayload = { omitted: true, head: detachedHead(text) };
  if (!apply(regexTest, NON_ASCII, [text])) payload.ascii = true;
  return { payload, size: text.length };
}

/**
 * The first HEAD code units of `text` as a string of its own. V8 makes
 * `text.slice()` a view that keeps the whole original alive, so a 10 MB frame
 * would stay in memory while the buffer counts 1 KB; building the head from
 * its code units allocates just the head.
 */
function detachedHead(text: string): string {
  const units = new NativeUint16Array(text.length < HEAD ? text.length : HEAD);
  for (let i = 0; i < units.length; i++) units[i] = apply(charCodeAt, text, [i]) as number;
  return apply(fromCharCode, null, units as unknown as number[]) as string;
}

/**
 * A JS value as JSON now, with `text` for the held-answer check; not-JSON
 * values keep a marker.
 */
export function jsonPayload(value: unknown): { payload: CapturedPayload; size?: number; text: string } {
  let text: string;
  try {
    text = stringify(value) ?? 'null';
  } catch {
    return { payload: { omitted: true, head: '[not JSON]' }, text: '' };
  }
  const p = textPayload(text);
  return p.size === undefined ? { payload: p.payload, text } : { payload: p.payload, size: p.size, text };
}

export function bytesPayload(bytes: Uint8Array): { payload: CapturedPayload; size?: number } {
  if (bytes.byteLength <= FRAME_CAP) return { payload: { bytes: apply(typedSlice, bytes, []) as Uint8Array } };
  return bytesHeadPayload(bytes, bytes.byteLength);
}

const HEX = '0123456789abcdef';

/** A binary frame of `size` bytes over the cap, of which `head` holds the first (at least BINARY_HEAD, when there are). */
export function bytesHeadPayload(head: Uint8Array, size: number): { payload: CapturedPayload; size: number } {
  let hex = '';
  const n = head.byteLength < BINARY_HEAD ? head.byteLength : BINARY_HEAD;
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    hex += (i ? ' ' : '') + HEX[b >> 4]! + HEX[b & 15]!;
  }
  return { payload: { omitted: true, head: hex, binary: true }, size };
}

/** Thrown inside the copy: this value is not plain data, let JSON.stringify take it now. */
const NOT_PLAIN = {};
const MAX_DEPTH = 64;
let weight = 0;

function copy(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
      weight += 16 + (v as string).length * 2;
      return v;
    case 'number':
    case 'boolean':
      weight += 16;
      return v;
    case 'undefined':
      return v;
    case 'object':
      break;
    default:
      // Functions, symbols, bigints: what JSON makes of them is decided now, by JSON.
      throw NOT_PLAIN;
  }
  if (v === null) {
    weight += 16;
    return v;
  }
  if (depth > MAX_DEPTH || weight > FRAME_CAP) throw NOT_PLAIN;
  const proto = protoOf(v);
  if (proto === ArrayProto && isArray(v)) {
    const a = v as unknown[];
    const n = a.length;
    const out = new Array<unknown>(n);
    weight += 16 + n * 8;
    for (let i = 0; i < n; i++) out[i] = copy(a[i], depth + 1);
    return out;
  }
  if (proto !== ObjectProto && proto !== null) throw NOT_PLAIN;
  // Spread: the engine copies the own properties in one step (as data properties, so a setter a page put on
  // Object.prototype is not called, and a "__proto__" key stays a key); the values that are objects are copied below.
  const out: Record<string, unknown> = { ...(v as object) };
  const keys = keysOf(out);
  weight += 16;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = out[k];
    weight += 16;
    if (typeof x === 'string') weight += 16 + x.length * 2;
    else if (typeof x === 'number' || typeof x === 'boolean') weight += 16;
    else if (x !== undefined) out[k] = copy(x, depth + 1);
  }
  return out;
}

/**
 * A deep copy of plain data (objects of Object.prototype or none, arrays,
 * strings, numbers, booleans, null, undefined): what JSON.stringify reads
 * of it now, it reads of the copy later, so serialising can wait until the
 * panel reads it. Anything else (class instances, Dates, functions, cycles,
 * very deep or large values), or `undefined` when it is not plain data: the
 * caller serialises it at once instead. `weight`: what the copy
 * holds, estimated in bytes.
 */
export function copyValue(v: unknown): { value: unknown; weight: number } | undefined {
  weight = 0;
  try {
    const value = copy(v, 0);
    if (weight > FRAME_CAP) return undefined;
    return { value, weight };
  } catch {
    return undefined;
  }
}

/** A payload as it leaves the page (extension ports and bindings carry no typed arrays well): bytes as base64. */
export function outwardPayload(payload: CapturedPayload | undefined): CapturedPayload | undefined {
  return payload && typeof payload === 'object' && 'bytes' in payload && payload.bytes instanceof Uint8Array ? { base64: bytesToBase64(payload.bytes) } : payload;
}
