/**
 * `surfacesHash`, written from the spec text (§7.3.4 in
 * ../shared/spec/000_…txt): "`fnv1a64:` followed by the 64-bit FNV-1a hash, in
 * 16 lowercase hex digits, of the surfaces' JSON with every object's keys
 * sorted, taken over its UTF-16 code units."
 *
 * "The surfaces' JSON" is read as `JSON.stringify` would write it (members
 * whose value is undefined, a function or a symbol left out, such array
 * elements written `null`, non-finite numbers `null`, `toJSON` honoured), with
 * every object's member names sorted by UTF-16 code units. The keys are
 * sorted by this serialiser itself, not by rebuilding objects (a rebuilt
 * object would put integer-like names such as "10" before "9" again).
 * FNV-1a 64 with BigInt: offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3, one step per UTF-16 code unit, modulo 2^64.
 *
 * No import from src/: the demo is an independent client.
 */

function skipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

export function sortedJson(value: unknown): string {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (skipped(v) ? 'null' : sortedJson(v))).join(',')}]`;
  const names = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: string[] = [];
  for (const name of names) {
    const v = (value as Record<string, unknown>)[name];
    if (skipped(v)) continue;
    parts.push(`${JSON.stringify(name)}:${sortedJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

export function fnv1a64Utf16(text: string): string {
  let h = OFFSET_BASIS;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

export function surfacesHash(surfaces: unknown): string {
  return `fnv1a64:${fnv1a64Utf16(sortedJson(surfaces))}`;
}
