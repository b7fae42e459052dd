/**
 * What the hook keeps of clients that have shown no OUI traffic yet (most
 * sockets of most sites): a small shared ring, not the 32 MB log, so a busy
 * site that speaks no OUI costs the page little. Each client's first few
 * small items (its open, Engine.IO's handshake) are pinned, because the panel
 * needs them to read the session once OUI traffic starts. When a client shows
 * OUI traffic, its items move to the log in their order.
 */
import type { CapturedItem } from '../src/capture/types.ts';

export const QUIET_ITEMS = 256;
export const QUIET_BYTES = 1024 * 1024;
/** Items per client kept however old, when each weighs at most PIN_WEIGHT. */
const PIN_ITEMS = 3;
const PIN_WEIGHT = 1024;
/** Pinned items of at most this many clients; beyond, the oldest client's pins go. */
const PIN_CLIENTS = 256;

/** OUI event names as they appear in JSON and Socket.IO text: `"type":"action:request"`, `42["surface:register",…`. */
const OUI_TEXT = /"(?:surface|action|observation):/;

export function showsOui(item: CapturedItem): boolean {
  const p = item.payload;
  if (!p) return false;
  if ('text' in p) return OUI_TEXT.test(p.text);
  if ('omitted' in p) return OUI_TEXT.test(p.head);
  return false;
}

export interface QuietRing {
  add(item: CapturedItem, weight: number): void;
  /** Removes and returns a client's items, oldest first. */
  take(client: string): CapturedItem[];
  /** Every item held, each client's oldest first. */
  items(): CapturedItem[];
  holds(item: CapturedItem): boolean;
  /** A pending item's payload arrived: its weight changed by `delta`. */
  grew(item: CapturedItem, delta: number): void;
  /** What the ring and the pins weigh together. */
  readonly bytes: number;
}

export function createQuietRing(onDrop: (item: CapturedItem) => void, weightOf: (item: CapturedItem) => number): QuietRing {
  let ring: CapturedItem[] = [];
  let ringBytes = 0;
  const pinned = new Map<string, CapturedItem[]>();
  let pinBytes = 0;
  const held = new WeakSet<CapturedItem>();

  function drop(item: CapturedItem): void {
    held.delete(item);
    onDrop(item);
  }

  /** Only items whose weight is known now (a Blob still being read could grow past PIN_WEIGHT). */
  function pin(item: CapturedItem, weight: number): boolean {
    if (item.seq > PIN_ITEMS || weight > PIN_WEIGHT || (item.kind === 'frame' && !item.payload)) return false;
    let list = pinned.get(item.client);
    if (!list) {
      if (pinned.size >= PIN_CLIENTS) {
        const [oldest, gone] = pinned.entries().next().value as [string, CapturedItem[]];
        pinned.delete(oldest);
        for (const it of gone) {
          pinBytes -= weightOf(it);
          drop(it);
        }
      }
      list = [];
      pinned.set(item.client, list);
    }
    list.push(item);
    pinBytes += weight;
    return true;
  }

  return {
    add(item, weight) {
      held.add(item);
      if (pin(item, weight)) return;
      ring.push(item);
      ringBytes += weight;
      while (ring.length > QUIET_ITEMS || (ringBytes > QUIET_BYTES && ring.length > 0)) {
        const old = ring.shift()!;
        ringBytes -= weightOf(old);
        drop(old);
      }
    },
    take(client) {
      const out = pinned.get(client) ?? [];
      pinned.delete(client);
      for (const it of out) pinBytes -= weightOf(it);
      const rest: CapturedItem[] = [];
      for (const it of ring) {
        if (it.client !== client) rest.push(it);
        else {
          out.push(it);
          ringBytes -= weightOf(it);
        }
      }
      ring = rest;
      for (const it of out) held.delete(it);
      return out;
    },
    items() {
      const out: CapturedItem[] = [];
      for (const list of pinned.values()) out.push(...list);
      // Pins are each client's first items, so they go before its ring items.
      out.push(...ring);
      return out;
    },
    holds: (item) => held.has(item),
    grew(_item, delta) {
      ringBytes += delta;
    },
    get bytes() {
      return ringBytes + pinBytes;
    },
  };
}
