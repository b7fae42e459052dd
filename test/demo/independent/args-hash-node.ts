/**
 * The args hash for the demo's Node side (its agent runtime): the same
 * definition as args-hash.ts, synchronously, with node:crypto's SHA-256.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

export function argsHashSync(params: unknown): string {
  return createHash('sha256').update(canonicalJson(params), 'utf8').digest('hex');
}
