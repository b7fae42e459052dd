/**
 * Captured items as JSON text, written by the hook for the extension's
 * bridge (ItemsJsonMessage): one string per batch crosses the page's thread
 * (one clone to the bridge, one string to the background) instead of an
 * object per item, each cloned, deserialised, then serialised again for the
 * extension's messaging. The background parses it.
 *
 * Written field by field from the hook's own objects, reading own properties
 * only: `JSON.stringify` of an object would call a `toJSON` a page put on
 * Object.prototype, and an inherited property a page added would be written.
 * Strings and numbers go through the engine's stringify (taken at load),
 * which calls nothing of the page's for a primitive.
 */
import type { CapturedItem, CapturedPayload } from '../src/capture/captured-items.ts';

const stringify = JSON.stringify;
const hasOwn = Object.hasOwn;
const isFiniteNumber = Number.isFinite;
const NativeUint8Array = Uint8Array;
const floor = Math.floor;

/** A JSON string literal. */
export const jsonString = (s: string): string => stringify(s) as string;

/** A JSON number (null for NaN and infinities, as JSON.stringify writes them). */
export const jsonNumber = (n: number): string => (isFiniteNumber(n) ? `${n}` : 'null');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Standard padded base64, by string concatenation and indexing only
 * (src/protocol/base64.ts uses array methods, which a page can replace in the
 * hook's world).
 */
export function base64Of(bytes: Uint8Array): string {
  let s = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += B64[v >> 18]! + B64[(v >> 12) & 63]! + B64[(v >> 6) & 63]! + B64[v & 63]!;
  }
  if (n - i === 1) {
    const v = bytes[i]! << 16;
    s += `${B64[v >> 18]!}${B64[(v >> 12) & 63]!}==`;
  } else if (n - i === 2) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    s += `${B64[v >> 18]!}${B64[(v >> 12) & 63]!}${B64[(v >> 6) & 63]!}=`;
  }
  return s;
}

function own(o: object, k: string): unknown {
  return hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined;
}

/** A payload as JSON, bytes as base64 (as the bridge sends them: extension messaging carries no typed arrays). */
export function payloadJson(p: CapturedPayload): string {
  const text = own(p, 'text');
  if (typeof text === 'string') return `{"text":${jsonString(text)}}`;
  const bytes = own(p, 'bytes');
  if (bytes instanceof NativeUint8Array) return `{"base64":${jsonString(base64Of(bytes))}}`;
  const base64 = own(p, 'base64');
  if (typeof base64 === 'string') return `{"base64":${jsonString(base64)}}`;
  const head = own(p, 'head');
  let s = `{"omitted":true,"head":${jsonString(typeof head === 'string' ? head : '')}`;
  if (own(p, 'binary') === true) s += ',"binary":true';
  if (own(p, 'ascii') === true) s += ',"ascii":true';
  return `${s}}`;
}

const STRINGS = ['dir', 'method', 'note', 'url', 'from', 'to', 'faulted', 'fault'] as const;
const NUMBERS = ['size', 're'] as const;
const FLAGS = ['held', 'injected'] as const;

/** What the outbox counts of each item it sends: its client, its seq, and its payload's size as the panel measures it. */
export interface ItemFacts {
  client: string;
  seq: number;
  size: number;
}

/** An item object (of the quiet ring, a pending Blob, or a ring entry kept whole) as JSON; `facts` filled in. */
export function itemJson(item: CapturedItem, facts: ItemFacts): string {
  const client = own(item, 'client');
  const seq = own(item, 'seq');
  const t = own(item, 't');
  const kind = own(item, 'kind');
  const hook = own(item, 'hook');
  facts.client = typeof client === 'string' ? client : '';
  facts.seq = typeof seq === 'number' ? seq : 0;
  let s = `{"hook":${jsonString(typeof hook === 'string' ? hook : '')},"client":${jsonString(facts.client)},"seq":${jsonNumber(facts.seq)},"t":${jsonNumber(typeof t === 'number' ? t : 0)},"kind":${jsonString(typeof kind === 'string' ? kind : 'frame')}`;
  for (let i = 0; i < STRINGS.length; i++) {
    const v = own(item, STRINGS[i]!);
    if (typeof v === 'string') s += `,"${STRINGS[i]!}":${jsonString(v)}`;
  }
  let size = -1;
  for (let i = 0; i < NUMBERS.length; i++) {
    const v = own(item, NUMBERS[i]!);
    if (typeof v === 'number') {
      s += `,"${NUMBERS[i]!}":${jsonNumber(v)}`;
      if (i === 0) size = v;
    }
  }
  for (let i = 0; i < FLAGS.length; i++) if (own(item, FLAGS[i]!) === true) s += `,"${FLAGS[i]!}":true`;
  const p = own(item, 'payload') as CapturedPayload | undefined;
  if (p && typeof p === 'object') {
    s += `,"payload":${payloadJson(p)}`;
    if (size < 0) size = payloadSize(p);
  }
  facts.size = size < 0 ? 0 : size;
  return `${s}}`;
}

/** A payload's size as `size` measures a frame (chunks.ts payloadSizes). */
function payloadSize(p: CapturedPayload): number {
  const text = own(p, 'text');
  if (typeof text === 'string') return text.length;
  const bytes = own(p, 'bytes');
  if (bytes instanceof NativeUint8Array) return bytes.byteLength;
  const base64 = own(p, 'base64');
  if (typeof base64 === 'string') return floor((base64.length * 3) / 4);
  return 0;
}
