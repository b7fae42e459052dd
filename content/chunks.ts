/**
 * Splits what the hook sends towards the panel into messages the extension
 * can carry. Chrome refuses a runtime message over 64 MiB of JSON, and a
 * refused message is lost whole, so a full buffer replayed in one message
 * reached nobody. The bound is an upper estimate computed without
 * serialising: a UTF-16 unit becomes at most 6 bytes of JSON (`\u0001`), a
 * byte at most 4/3 (the bridge sends bytes as base64).
 */
import type { CapturedItem } from '../src/capture/types.ts';

/** Far below Chrome's 64 MiB, so that the worst case of the estimate still fits, and the panel takes each chunk in small steps. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
const ITEM_OVERHEAD = 256;

function textBound(s: string | undefined): number {
  return s === undefined ? 0 : s.length * 6;
}

/** At least the size of the item as JSON, once the bridge has turned bytes into base64. */
export function jsonBound(item: CapturedItem): number {
  let n = ITEM_OVERHEAD + textBound(item.note) + textBound(item.url) + textBound(item.method) + textBound(item.from) + textBound(item.to);
  const p = item.payload;
  if (p) {
    if ('text' in p) n += textBound(p.text);
    else if ('bytes' in p) n += Math.ceil(p.bytes.byteLength / 3) * 4;
    else if ('base64' in p) n += p.base64.length;
    else n += textBound(p.head);
  }
  return n;
}

/**
 * Consecutive slices of `items`, in order, each bounded by `limit` (one item
 * over the limit goes alone: the hook caps frames, so it still fits Chrome's).
 */
export function chunkItems(items: CapturedItem[], limit = CHUNK_BYTES, bound: (item: CapturedItem) => number = jsonBound): CapturedItem[][] {
  const out: CapturedItem[][] = [];
  let current: CapturedItem[] = [];
  let size = 0;
  // Index loops: the hook runs in the page's world, where array iterators can be replaced.
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const b = bound(item);
    if (current.length && size + b > limit) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += b;
  }
  if (current.length || !out.length) out.push(current);
  return out;
}

/** For each client, the highest seq among `items`: what a receiver must count as lost when they never arrive. */
export function lastSeqs(items: CapturedItem[]): Record<string, number> {
  const through: Record<string, number> = {};
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if ((through[it.client] ?? 0) < it.seq) through[it.client] = it.seq;
  }
  return through;
}
