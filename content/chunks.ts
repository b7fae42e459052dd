/**
 * Splits what the hook sends towards the panel into messages the extension
 * can carry. Chrome refuses a runtime message over 64 MiB of JSON, and a
 * refused message is lost whole, so a full buffer replayed in one message
 * reached nobody. The bound is an upper estimate computed without
 * serialising: a UTF-16 unit becomes at most 6 bytes of JSON (`\u0001`), a
 * byte at most 4/3 (the bridge sends bytes as base64).
 */
import type { CapturedItem } from '../src/capture/captured-items.ts';
import { itemsOfJson, type HookMessage } from '../src/messages.ts';
import { append } from './primordials.ts';

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
  // Index loops and writes: the hook runs in the page's world, where array iterators and methods can be replaced (primordials.ts).
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const b = bound(item);
    if (current.length && size + b > limit) {
      append(out, current);
      current = [];
      size = 0;
    }
    append(current, item);
    size += b;
  }
  if (current.length || !out.length) append(out, current);
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

/** The size of the items' payloads, as `size` measures a frame (the original's, for one over the cap): what a receiver counts as not carried. */
export function payloadSizes(items: CapturedItem[]): number {
  let n = 0;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    const p = it.payload;
    if (typeof it.size === 'number') n += it.size;
    else if (!p) continue;
    else if ('text' in p) n += p.text.length;
    else if ('bytes' in p) n += p.bytes.byteLength;
    else if ('base64' in p) n += Math.floor((p.base64.length * 3) / 4);
  }
  return n;
}

/** What a refused message becomes: its clients apart from its items, then halves; an item alone, a `skipped`. Empty: nothing more to try. */
export function splitRefused(m: HookMessage): HookMessage[] {
  if (m.type === 'items:json') {
    // Refused whole: as items, which split. Only in the bridge (its own world's JSON).
    const items = itemsOfJson(m);
    return items ? [items] : [];
  }
  if (m.type !== 'items') return [];
  const { clients, items } = m;
  if (clients.length && items.length) return [{ ...m, items: [] }, { ...m, clients: [] }];
  if (clients.length) {
    if (clients.length > 1) {
      const half = clients.length >> 1;
      return [{ ...m, clients: clients.slice(0, half) }, { ...m, clients: clients.slice(half) }];
    }
    // One client too large to carry (URLs of megabytes): announced with the heads of its URLs, so its items are still read.
    const c = clients[0]!;
    const url = cut(c.url);
    const frameUrl = cut(c.frameUrl);
    return url === c.url && frameUrl === c.frameUrl ? [] : [{ ...m, clients: [{ ...c, url, frameUrl }] }];
  }
  if (items.length === 1) return [{ type: 'skipped', hook: m.hook, through: lastSeqs(items), size: payloadSizes(items) }];
  if (!items.length) return [];
  const half = items.length >> 1;
  return [{ ...m, items: items.slice(0, half) }, { ...m, items: items.slice(half) }];
}

const URL_HEAD = 2048;

function cut(text: string): string {
  return typeof text === 'string' && text.length > URL_HEAD + 64 ? `${text.slice(0, URL_HEAD)}… [${text.length} characters]` : text;
}
