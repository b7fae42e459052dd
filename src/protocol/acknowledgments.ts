/**
 * Transport acknowledgments (§7.3.6, §7.3.7): a receipt of a request, or a
 * receiver's acceptance or refusal of a result.
 *
 * Pure: no DOM, no extension API, no Node APIs.
 */

import { isArraySafe, safeGet } from './json-copy.ts';
import type { OUIAcknowledgment } from './oui-types.ts';

/** An acknowledgment as parsed: `via` says which member carried a refusal's reason. */
export type ParsedAcknowledgment = { ok: true } | { ok: false; reason: string; via: 'reason' | 'error' | 'none' };

/**
 * Reads a transport acknowledgment (transport types; §7.3.6, §7.3.7):
 * `{ ok: true }`, or `{ ok: false, reason }`. §7.3.6 writes a refused
 * result's Socket.IO acknowledgment as `{ ok: false, error: "<reason>" }`, so
 * `error` is accepted too (a string, or an object with a string `message`).
 * null when it is not an acknowledgment at all. Never throws.
 */
export function parseAcknowledgment(raw: unknown): ParsedAcknowledgment | null {
  try {
    if (typeof raw !== 'object' || raw === null || isArraySafe(raw)) return null;
    const ok = safeGet(raw, 'ok');
    if (!ok.ok || typeof ok.value !== 'boolean') return null;
    if (ok.value) return { ok: true };
    const reason = safeGet(raw, 'reason');
    if (reason.ok && typeof reason.value === 'string') return { ok: false, reason: reason.value, via: 'reason' };
    const error = safeGet(raw, 'error');
    if (error.ok) {
      if (typeof error.value === 'string') return { ok: false, reason: error.value, via: 'error' };
      if (typeof error.value === 'object' && error.value !== null) {
        const m = safeGet(error.value, 'message');
        if (m.ok && typeof m.value === 'string') return { ok: false, reason: m.value, via: 'error' };
      }
    }
    return { ok: false, reason: '', via: 'none' };
  } catch {
    return null;
  }
}

/** The acknowledgment in the spec's own shape (drops `via`). */
export function toAcknowledgment(ack: ParsedAcknowledgment): OUIAcknowledgment {
  return ack.ok ? { ok: true } : { ok: false, reason: ack.reason };
}
