/**
 * The two hashes of the spec, computed here from the spec texts alone (not
 * from src/protocol): surfacesHash (§7.3.4, oui-spec 0.6.0) and argsHash
 * (approvals, oui-spec 0.6.0).
 */
import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha2.js';

/** JSON.stringify with every object's keys sorted by UTF-16 code units; arrays keep their order. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** 64-bit FNV-1a, one step per unit. */
function fnv1a64(units: Iterable<number>): string {
  let h = FNV_OFFSET;
  for (const u of units) {
    h ^= BigInt(u);
    h = (h * FNV_PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

function* utf16Units(s: string): Iterable<number> {
  for (let i = 0; i < s.length; i++) yield s.charCodeAt(i);
}

/** `fnv1a64:` + 16 lowercase hex digits over the UTF-16 code units of the key-sorted JSON. */
export function surfacesHash(surfaces: unknown): string {
  return `fnv1a64:${fnv1a64(utf16Units(sortedJson(surfaces)))}`;
}

/** The non-conformant variant over UTF-8 bytes (for a mutation). */
export function surfacesHashUtf8(surfaces: unknown): string {
  return `fnv1a64:${fnv1a64(new TextEncoder().encode(sortedJson(surfaces)))}`;
}

/** Lowercase hex SHA-256 of the RFC 8785 canonical JSON of params. */
export function argsHash(params: unknown): string {
  const c = canonicalize(params as object);
  if (c === undefined) throw new Error('params not canonicalizable');
  const bytes = sha256(new TextEncoder().encode(c));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
