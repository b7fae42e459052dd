/**
 * What the hook keeps of clients that have shown no OUI traffic yet (most
 * sockets of most sites): a small shared ring, not the 32 MB log, so a busy
 * site that speaks no OUI costs the page little. Each client's first few
 * small items (its open, Engine.IO's handshake) are pinned, because the panel
 * needs them to read the session once OUI traffic starts. When a client shows
 * OUI traffic, its items move to the log in their order.
 */
import type { CapturedItem } from '../src/capture/captured-items.ts';
import { looksLikeOuiText } from '../src/capture/contract.ts';
import { SafeMap, SafeWeakSet, append, firstKey } from './primordials.ts';

export const QUIET_ITEMS = 256;
export const QUIET_BYTES = 1024 * 1024;
/** Items per client kept however old, when each weighs at most PIN_WEIGHT. */
const PIN_ITEMS = 3;
const PIN_WEIGHT = 1024;
/** Pinned items of at most this many clients; beyond, the oldest client's pins go. */
export const PIN_CLIENTS = 256;

/** Whether an item may carry OUI (JSON or Socket.IO text, `x-` extension types included): the test the decoder's reading agrees with (contract.ts). */
export function showsOui(item: CapturedItem): boolean {
  const p = item.payload;
  if (!p) return false;
  if ('text' in p) return looksLikeOuiText(p.text);
  if ('omitted' in p) return looksLikeOuiText(p.head);
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
  // A queue in an array with a moving head (no Array.prototype.shift): compacted once the head is half the array.
  let ring: CapturedItem[] = [];
  let head = 0;
  let ringBytes = 0;
  const pinned: Map<string, CapturedItem[]> = new SafeMap();
  let pinBytes = 0;
  const held: WeakSet<CapturedItem> = new SafeWeakSet();

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
        const oldest = firstKey(pinned)!;
        const gone = pinned.get(oldest)!;
        pinned.delete(oldest);
        for (let i = 0; i < gone.length; i++) {
          pinBytes -= weightOf(gone[i]!);
          drop(gone[i]!);
        }
      }
      list = [];
      pinned.set(item.client, list);
    }
    append(list, item);
    pinBytes += weight;
    return true;
  }

  function compact(): void {
    if (head < 64 || head * 2 < ring.length) return;
    const rest: CapturedItem[] = [];
    for (let i = head; i < ring.length; i++) append(rest, ring[i]!);
    ring = rest;
    head = 0;
  }

  return {
    add(item, weight) {
      held.add(item);
      if (pin(item, weight)) return;
      append(ring, item);
      ringBytes += weight;
      while (ring.length - head > QUIET_ITEMS || (ringBytes > QUIET_BYTES && ring.length > head)) {
        const old = ring[head]!;
        ring[head++] = undefined as unknown as CapturedItem;
        ringBytes -= weightOf(old);
        drop(old);
      }
      compact();
    },
    take(client) {
      const out: CapturedItem[] = [];
      const pins = pinned.get(client);
      if (pins) {
        pinned.delete(client);
        for (let i = 0; i < pins.length; i++) {
          pinBytes -= weightOf(pins[i]!);
          append(out, pins[i]!);
        }
      }
      const rest: CapturedItem[] = [];
      for (let i = head; i < ring.length; i++) {
        const it = ring[i]!;
        if (it.client !== client) append(rest, it);
        else {
          append(out, it);
          ringBytes -= weightOf(it);
        }
      }
      ring = rest;
      head = 0;
      for (let i = 0; i < out.length; i++) held.delete(out[i]!);
      return out;
    },
    items() {
      const out: CapturedItem[] = [];
      pinned.forEach((list) => {
        for (let i = 0; i < list.length; i++) append(out, list[i]!);
      });
      // Pins are each client's first items, so they go before its ring items.
      for (let i = head; i < ring.length; i++) append(out, ring[i]!);
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
