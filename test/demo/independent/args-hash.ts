/**
 * The args hash (spec types in ../shared/spec/000_…txt): "SHA-256 of the
 * canonical JSON of a request's params, lowercase hex. Runs wherever WebCrypto
 * does." SHA-256 here is Web Crypto's (the browser's, or Node's
 * `globalThis.crypto`), not the product's @noble/hashes. Asynchronous, as
 * Web Crypto is; the demo's page clients await it.
 */
import { canonicalJson } from './canonical-json.ts';

export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const b of u8) out += b.toString(16).padStart(2, '0');
  return out;
}

export async function argsHash(params: unknown): Promise<string> {
  const text = canonicalJson(params);
  const subtle = globalThis.crypto?.subtle;
  if (typeof subtle?.digest !== 'function') {
    throw new Error('argsHash needs Web Crypto (crypto.subtle): open the demo from a secure context (http://127.0.0.1 or http://localhost)');
  }
  return hex(await subtle.digest('SHA-256', new TextEncoder().encode(text)));
}
