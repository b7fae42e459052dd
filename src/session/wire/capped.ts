/**
 * What the panel says of a frame, message or call the hook did not keep
 * whole: over the capture cap (its size and its head), or a value that is not
 * JSON. Never silent: every such item becomes an event with this note.
 */
import type { CapturedItem, OmittedPayload } from '../../capture/captured-items.ts';

/** How much of the head the note itself shows; the raw view has all the hook kept. */
const NOTE_HEAD = 120;

/** 50.0 MB, 12.3 kB, 999 B (binary multiples, as the panel's sizes). */
export function sizeText(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function omittedOf(item: CapturedItem): OmittedPayload | undefined {
  const p = item.payload as Partial<OmittedPayload> | undefined;
  return p && typeof p === 'object' && p.omitted === true && typeof p.head === 'string' ? (p as OmittedPayload) : undefined;
}

/**
 * `frame over the capture cap: 50.0 MB, head: {"type":…`, or undefined when
 * the item's payload was kept whole. `what`: frame, message, `sendResult()`.
 * Text is measured in UTF-16 units, which are its bytes when it is ASCII and
 * fewer otherwise: then the size is "at least".
 */
export function cappedNote(what: string, item: CapturedItem): string | undefined {
  const p = omittedOf(item);
  if (!p) return undefined;
  const size = typeof item.size === 'number' && Number.isFinite(item.size) && item.size >= 0 ? item.size : undefined;
  // An older hook's binary marker: `[52428800 bytes]`, no head.
  const legacyBinary = /^\[\d+ bytes\]$/.test(p.head);
  if (p.head === '[not JSON]' && size === undefined) return `${what} not captured: not JSON`;
  if (p.head === '[unreadable Blob]') return `${what} not captured: an unreadable Blob${size !== undefined ? ` of ${sizeText(size)}` : ''}`;
  const exact = p.binary === true || p.ascii === true || legacyBinary;
  const shown = size === undefined ? 'size unknown' : `${exact ? '' : 'at least '}${sizeText(size)}`;
  if (legacyBinary || !p.head) return `${what} over the capture cap: ${shown}`;
  // The frame goes on past its head: the head always ends in an ellipsis.
  return `${what} over the capture cap: ${shown}, head: ${p.head.slice(0, NOTE_HEAD)}…`;
}
