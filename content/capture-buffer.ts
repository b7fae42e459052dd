/**
 * The hook's bounded memory: every captured item from document_start, until
 * the limits; then the oldest go, counted per client. A panel that opens late
 * replays from here; a panel that reconnects resumes from its cursors.
 *
 * The app's hot path (a frame on a socket that speaks OUI, an OUI
 * postMessage, a direct call) writes a timestamp, a sequence number and the
 * raw data into columns of a ring (`frame`, `value`): no object is built per
 * item, nothing is serialised, nothing is sniffed. The items the panel reads
 * are built from the columns when it reads them (subscribe, then each live
 * flush). Everything rarer (opens, closes, binary and capped frames, held
 * answers, injected items, clients that have shown no OUI traffic yet) is
 * recorded as an item object, as before.
 */
import type { CapturedClient, CapturedItem, CapturedKind, CapturedPayload, Cursors, DropCounts, DropReport, TransportKind } from '../src/capture/types.ts';
import type { Natives } from './natives.ts';
import { createHeldAnswers, type HeldAnswers } from './answers.ts';
import { createQuietRing, showsOui } from './quiet-ring.ts';
import { chunkItems } from './chunks.ts';
import { FRAME_CAP, HEAD, copyValue, jsonPayload, textPayload } from './payloads.ts';
import { createDropLedger, type DropLedger } from './drop-ledger.ts';
import { frameIdentity } from './frame-identity.ts';

export { FRAME_CAP, bytesPayload, jsonPayload, textPayload } from './payloads.ts';

export const MAX_ITEMS = 20_000;
export const MAX_BYTES = 32 * 1024 * 1024;
const MAX_CLIENTS = 2_000;
const FLUSH_DELAY_MS = 16;
/** What an item costs beyond its payload (the weight the limits count). */
const ITEM_WEIGHT = 64;

export interface Live {
  items(items: CapturedItem[], clients: CapturedClient[]): void;
}

/**
 * Where hot-path items of one client go, with what they share: the client,
 * the direction, and for postMessage and direct calls the frame paths or the
 * method. Made once per client and direction (or pairing, or method), not
 * per item.
 */
export interface Sink {
  readonly client: CapturedClient;
  readonly dir: 'in' | 'out';
  readonly method?: string;
  readonly from?: string;
  readonly to?: string;
}

export interface CaptureBuffer {
  readonly hook: string;
  readonly natives: Natives;
  /** Answers to injected requests that must not reach the app's runtime. */
  readonly held: HeldAnswers;
  /** Runs `fn` with every item it records marked as injected by the extension. */
  injecting<T>(fn: () => T): T;
  /** True while `injecting` runs: what the extension itself dispatches is not the page's forgery. */
  isInjecting(): boolean;
  addClient(kind: TransportKind, url: string, key?: string): CapturedClient;
  /** A handle for hot-path items of `client` in direction `dir` (and with these shared fields). */
  sink(client: CapturedClient, dir: 'in' | 'out', shared?: { method?: string; from?: string; to?: string }): Sink;
  /** The hot path: a text frame (a string the app gave or got) of a socket or polling client, kept as is. */
  frame(sink: Sink, text: string, t?: number): void;
  /**
   * The hot path for JS values (postMessage data, direct calls): copied now,
   * since the app may change the value later, and serialised as JSON only when
   * the panel reads it (postMessage and direct clients). `t` when the caller has the time already.
   * Returns the item's seq (0 when nothing was recorded).
   */
  value(sink: Sink, value: unknown, re?: number, t?: number): number;
  /** Records `fields` (a fresh object the caller gives up) as an item of `client`. */
  record(client: CapturedClient, kind: CapturedKind, fields?: Partial<CapturedItem>): CapturedItem;
  /** An item whose payload arrives later (a Blob being read); later items wait for it. */
  recordPending(client: CapturedClient, fields: Partial<CapturedItem>): (payload: CapturedPayload, size?: number) => void;
  /**
   * Sends what waits for the next batch now (to the live subscriber; nothing
   * without one). Returns how many entries still wait: those behind an item
   * whose payload is still being read.
   */
  flushNow(): number;
  /** Per client, the last seq it has numbered (clients with none left out). */
  lastSeqs(): Record<string, number>;
  /** Replays what is buffered after the cursors, then forwards live. */
  subscribe(cursors: Cursors, live: Live): void;
  unsubscribe(): void;
  drops(): DropCounts;
  /** Per client, what a subscriber resuming from `cursors` will never get: the drops after its cursor (clients with none left out; undefined: none at all). */
  lostAfter(cursors: Cursors): Record<string, DropReport> | undefined;
}

/** The size of an item's payload as the panel measures a frame (`size` when the hook capped it). */
function sizeOf(item: CapturedItem): number {
  if (typeof item.size === 'number') return item.size;
  const p = item.payload;
  if (!p) return 0;
  if ('text' in p) return p.text.length;
  if ('bytes' in p) return p.bytes.byteLength;
  if ('base64' in p) return Math.floor((p.base64.length * 3) / 4);
  return 0;
}

function weight(item: CapturedItem): number {
  const p = item.payload;
  if (!p) return ITEM_WEIGHT;
  if ('text' in p) return ITEM_WEIGHT + p.text.length * 2;
  if ('bytes' in p) return ITEM_WEIGHT + p.bytes.byteLength;
  if ('base64' in p) return ITEM_WEIGHT + p.base64.length;
  return ITEM_WEIGHT + HEAD * 2;
}

/** What the buffer knows of a client: its counters, kept off the hot path's maps. */
interface ClientState {
  readonly client: CapturedClient;
  seq: number;
  dropped: number;
  /** Shown OUI traffic (or made only for it): its items go to the ring; the others' to the quiet ring. */
  oui: boolean;
  /** What was dropped, by seq, once anything was. */
  ledger?: DropLedger;
}

function noteDrop(st: ClientState, seq: number, size: number): void {
  st.dropped++;
  (st.ledger ??= createDropLedger()).add(seq, size);
}

/** How a ring entry's data is read. */
const TEXT = 0;
const VALUE = 1;
const ITEM = 2;

interface SinkState extends Sink {
  readonly st: ClientState;
  readonly mode: number;
}

export function createCaptureBuffer(natives: Natives): CaptureBuffer {
  const hook = natives.randomId();
  const now = natives.now;
  const clients = new Map<string, CapturedClient>();
  /** Every client ever made, also those the client limit let go: their drops are still counted. */
  const states = new Map<string, ClientState>();
  const itemSinks = new Map<string, SinkState>();
  const pending = new Set<CapturedItem>();
  let nextClient = 1;
  let injectDepth = 0;
  const quiet = createQuietRing((old) => {
    const st = states.get(old.client);
    if (st) noteDrop(st, old.seq, sizeOf(old));
  }, weight);

  // The ring, in columns: entry g (counted from 0 since the start) is at slot g % MAX_ITEMS while g >= total - count.
  const T = new Float64Array(MAX_ITEMS);
  const S = new Float64Array(MAX_ITEMS);
  const R = new Float64Array(MAX_ITEMS);
  const W = new Float64Array(MAX_ITEMS);
  const D: unknown[] = new Array(MAX_ITEMS).fill(undefined);
  const K: Array<SinkState | undefined> = new Array(MAX_ITEMS).fill(undefined);
  let first = 0;
  let count = 0;
  let total = 0;
  let bytes = 0;

  let live: Live | null = null;
  /** Entries waiting for the next flush: a ring entry by its number, or an item (the quiet ring's). */
  let outbox: Array<number | CapturedItem> = [];
  /** Where in the outbox the oldest ring entry not yet built may be (entries are in ring order). */
  let outNext = 0;
  let announced = new Set<string>();
  let flushScheduled = false;

  function dropOldest(): void {
    const o = first;
    if (live) {
      // Waiting for a flush that has not come yet (the app's loop holds the thread): built now, still delivered.
      const g = total - count;
      while (outNext < outbox.length && typeof outbox[outNext] !== 'number') outNext++;
      if (outbox[outNext] === g) outbox[outNext++] = itemAt(g)!;
    }
    const k = K[o]!;
    // The size the panel would have shown: text's length, a copied value's estimated from its weight (UTF-16 units at 2 bytes).
    noteDrop(k.st, S[o]!, k.mode === TEXT ? (D[o] as string).length : k.mode === ITEM ? sizeOf(D[o] as CapturedItem) : Math.round((W[o]! - ITEM_WEIGHT) / 2));
    bytes -= W[o]!;
    D[o] = undefined;
    K[o] = undefined;
    first = o + 1 === MAX_ITEMS ? 0 : o + 1;
    count--;
  }

  /** The next free slot, after making room (by count, then by bytes once `w` is in). */
  function slot(w: number): number {
    if (count === MAX_ITEMS) dropOldest();
    while (bytes + w > MAX_BYTES && count > 0) dropOldest();
    let i = first + count;
    if (i >= MAX_ITEMS) i -= MAX_ITEMS;
    count++;
    total++;
    bytes += w;
    return i;
  }

  function enqueue(entry: number | CapturedItem): void {
    outbox.push(entry);
    if (!flushScheduled) {
      flushScheduled = true;
      natives.setTimeout(flush, FLUSH_DELAY_MS);
    }
  }

  function itemSink(st: ClientState): SinkState {
    let s = itemSinks.get(st.client.id);
    if (!s) {
      s = { client: st.client, dir: 'in', st, mode: ITEM };
      itemSinks.set(st.client.id, s);
    }
    return s;
  }

  /** An item object into the ring (or the quiet ring). */
  function pushItem(st: ClientState, item: CapturedItem): void {
    if (!st.oui) {
      if (!showsOui(item)) {
        quiet.add(item, weight(item));
        if (live) enqueue(item);
        return;
      }
      st.oui = true;
      const sink = itemSink(st);
      for (const earlier of quiet.take(item.client)) keepItem(sink, earlier, false);
    }
    keepItem(itemSink(st), item, live !== null);
  }

  function keepItem(sink: SinkState, item: CapturedItem, send: boolean): void {
    const i = slot(weight(item));
    T[i] = item.t;
    S[i] = item.seq;
    R[i] = 0;
    W[i] = weight(item);
    D[i] = item;
    K[i] = sink;
    if (send) enqueue(total - 1);
  }

  /** The item of ring entry `g`, built now (the hot path stored only its columns). */
  function itemAt(g: number): CapturedItem | undefined {
    if (g < total - count) return undefined;
    let i = first + (g - (total - count));
    if (i >= MAX_ITEMS) i -= MAX_ITEMS;
    const k = K[i]!;
    const d = D[i];
    if (k.mode === ITEM) return d as CapturedItem;
    const item: CapturedItem = { hook, client: k.client.id, seq: S[i]!, t: T[i]!, kind: 'frame', dir: k.dir };
    if (k.method !== undefined) item.method = k.method;
    if (k.from !== undefined) {
      item.from = k.from;
      item.to = k.to;
    }
    if (R[i]) item.re = R[i];
    if (k.mode === TEXT) item.payload = { text: d as string };
    else {
      const copied = jsonPayload(d);
      item.payload = copied.payload;
      if (copied.size !== undefined) item.size = copied.size;
    }
    return item;
  }

  function isPending(entry: number | CapturedItem): boolean {
    if (typeof entry !== 'number') return pending.has(entry);
    if (entry < total - count) return false;
    let i = first + (entry - (total - count));
    if (i >= MAX_ITEMS) i -= MAX_ITEMS;
    return K[i]!.mode === ITEM && pending.has(D[i] as CapturedItem);
  }

  /** Built items of `entries`, those the ring has since dropped left out (they are counted as drops). */
  function build(entries: Array<number | CapturedItem>): CapturedItem[] {
    const out: CapturedItem[] = [];
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j]!;
      const it = typeof e === 'number' ? itemAt(e) : e;
      if (it) out.push(it);
    }
    return out;
  }

  function unannounced(list: CapturedItem[]): CapturedClient[] {
    const out: CapturedClient[] = [];
    for (const it of list) {
      if (announced.has(it.client)) continue;
      announced.add(it.client);
      const c = clients.get(it.client);
      if (c) out.push(c);
    }
    return out;
  }

  /** Delivers the outbox up to the first entry still waiting for its payload; false when that is the first. */
  function deliverReady(to: Live): boolean {
    let ready = 0;
    while (ready < outbox.length && !isPending(outbox[ready]!)) ready++;
    if (ready === 0) return false;
    const batch = build(outbox.slice(0, ready));
    outbox = outbox.slice(ready);
    outNext = 0;
    if (batch.length) deliver(to, batch, unannounced(batch));
    return true;
  }

  function flush(): void {
    flushScheduled = false;
    if (!live) {
      outbox = [];
      outNext = 0;
      return;
    }
    // Nothing ready: the pending payload schedules the next flush when it arrives.
    if (!deliverReady(live)) return;
    if (outbox.length && !flushScheduled) {
      flushScheduled = true;
      natives.setTimeout(flush, FLUSH_DELAY_MS);
    }
  }

  /** In chunks the extension can carry, in order; the clients go with the first. */
  function deliver(to: Live, list: CapturedItem[], announce: CapturedClient[]): void {
    const chunks = chunkItems(list);
    for (let i = 0; i < chunks.length; i++) to.items(chunks[i]!, i === 0 ? announce : []);
  }

  /** `fields` becomes the item itself (callers pass a fresh literal): no copy on the app's hot path. */
  function record(client: CapturedClient, kind: CapturedKind, fields?: Partial<CapturedItem>): CapturedItem {
    const st = stateOf(client);
    const item = (fields ?? {}) as CapturedItem;
    item.hook = hook;
    item.client = client.id;
    item.seq = ++st.seq;
    item.t = now();
    item.kind = kind;
    if (injectDepth > 0) item.injected = true;
    pushItem(st, item);
    return item;
  }

  function stateOf(client: CapturedClient): ClientState {
    let st = states.get(client.id);
    if (!st) {
      st = { client, seq: 0, dropped: 0, oui: false };
      states.set(client.id, st);
    }
    return st;
  }

  function frame(sink: Sink, text: string, t?: number): void {
    try {
      const s = sink as SinkState;
      const st = s.st;
      if (!st.oui || injectDepth > 0 || s.mode !== TEXT || text.length > FRAME_CAP) {
        record(s.client, 'frame', { dir: s.dir, ...textPayload(text) });
        return;
      }
      const w = ITEM_WEIGHT + text.length * 2;
      const i = slot(w);
      T[i] = t ?? now();
      S[i] = ++st.seq;
      R[i] = 0;
      W[i] = w;
      D[i] = text;
      K[i] = s;
      if (live) enqueue(total - 1);
    } catch {
      // Capture is best effort; never into the app.
    }
  }

  function value(sink: Sink, v: unknown, re?: number, t?: number): number {
    try {
      const s = sink as SinkState;
      const st = s.st;
      const copied = injectDepth > 0 || s.mode !== VALUE || !st.oui ? undefined : copyValue(v);
      if (!copied) {
        const json = jsonPayload(v);
        const item = record(s.client, 'frame', { dir: s.dir, payload: json.payload });
        if (s.method !== undefined) item.method = s.method;
        if (s.from !== undefined) {
          item.from = s.from;
          item.to = s.to;
        }
        if (re) item.re = re;
        if (json.size !== undefined) item.size = json.size;
        return item.seq;
      }
      const w = ITEM_WEIGHT + copied.weight;
      const i = slot(w);
      T[i] = t ?? now();
      const seq = ++st.seq;
      S[i] = seq;
      R[i] = re ?? 0;
      W[i] = w;
      D[i] = copied.value;
      K[i] = s;
      if (live) enqueue(total - 1);
      return seq;
    } catch {
      return 0;
    }
  }

  return {
    hook,
    natives,
    held: createHeldAnswers(natives),
    isInjecting: () => injectDepth > 0,
    injecting(fn) {
      injectDepth++;
      try {
        return fn();
      } finally {
        injectDepth--;
      }
    },
    addClient(kind, url, key) {
      const id = `c${nextClient++}`;
      // An about:blank, srcdoc or document.open()ed frame says whose it is: its creator's origin and page.
      const { origin, frameUrl } = frameIdentity();
      const client: CapturedClient = {
        id,
        kind,
        url,
        origin,
        frameUrl,
        ...(key ? { key } : {}),
      };
      clients.set(id, client);
      // Made only for OUI messages and calls: nothing to wait for.
      states.set(id, { client, seq: 0, dropped: 0, oui: kind === 'postmessage' || kind === 'direct' });
      if (clients.size > MAX_CLIENTS) {
        const oldest = clients.keys().next().value as string;
        clients.delete(oldest);
        itemSinks.delete(oldest);
        const st = states.get(oldest);
        if (st) {
          st.oui = false;
          st.dropped++;
        }
      }
      return client;
    },
    sink(client, dir, shared) {
      return { client, dir, st: stateOf(client), mode: client.kind === 'postmessage' || client.kind === 'direct' ? VALUE : TEXT, ...shared } as SinkState;
    },
    frame,
    value,
    record,
    recordPending(client, fields) {
      const item = record(client, 'frame', fields);
      pending.add(item);
      return (payload, size) => {
        item.payload = payload;
        if (size !== undefined) item.size = size;
        const delta = weight(item) - ITEM_WEIGHT;
        if (quiet.holds(item)) quiet.grew(item, delta);
        else {
          // Newest first: a Blob is read within moments of its frame.
          for (let g = total - 1; g >= total - count; g--) {
            let i = first + (g - (total - count));
            if (i >= MAX_ITEMS) i -= MAX_ITEMS;
            if (D[i] === item) {
              W[i] = W[i]! + delta;
              bytes += delta;
              break;
            }
          }
        }
        pending.delete(item);
        if (live && !flushScheduled) {
          flushScheduled = true;
          natives.setTimeout(flush, FLUSH_DELAY_MS);
        }
      };
    },
    flushNow() {
      // A batch timer already set still fires, and finds nothing (or what came since).
      if (!live) return 0;
      deliverReady(live);
      return outbox.length;
    },
    lastSeqs() {
      const out: Record<string, number> = {};
      for (const [id, st] of states) if (st.seq > 0) out[id] = st.seq;
      return out;
    },
    subscribe(cursors, next) {
      const replay: CapturedItem[] = [];
      outbox = [];
      outNext = 0;
      const held: Array<number | CapturedItem> = [];
      for (let g = total - count; g < total; g++) held.push(g);
      const quietItems = quiet.items();
      for (let j = 0; j < quietItems.length; j++) held.push(quietItems[j]!);
      for (let j = 0; j < held.length; j++) {
        const e = held[j]!;
        if (outbox.length || isPending(e)) {
          outbox.push(e);
          continue;
        }
        const it = typeof e === 'number' ? itemAt(e) : e;
        if (it && it.seq > (cursors[`${hook}/${it.client}`] ?? 0)) replay.push(it);
      }
      live = next;
      announced = new Set(clients.keys());
      deliver(next, replay, [...clients.values()]);
      if (!flushScheduled) {
        flushScheduled = true;
        natives.setTimeout(flush, FLUSH_DELAY_MS);
      }
    },
    unsubscribe() {
      live = null;
      outbox = [];
      outNext = 0;
    },
    drops() {
      const out: DropCounts = {};
      for (const [id, st] of states) if (st.dropped) out[id] = st.dropped;
      return out;
    },
    lostAfter(cursors) {
      let out: Record<string, DropReport> | undefined;
      for (const [id, st] of states) {
        const c = cursors[`${hook}/${id}`];
        const r = st.ledger?.after(typeof c === 'number' ? c : 0);
        if (r) (out ??= {})[id] = r;
      }
      return out;
    },
  };
}
