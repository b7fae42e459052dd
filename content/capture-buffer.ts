/**
 * The hook's bounded memory: every captured item from document_start, until
 * the limits; then the oldest go, each counted against its client. A panel
 * that opens late replays from here; a panel that reconnects resumes from its
 * cursors and is told exactly what it will never get.
 *
 * Invariants:
 * - Memory is bounded: MAX_ITEMS entries and MAX_BYTES of weight in the log
 *   (ColumnRing), the quiet ring's own bounds, 2 × MAX_CLIENTS client states
 *   (ClientTable).
 * - Per client, seqs count up from 1 without gaps; whatever is not delivered
 *   is counted as dropped (noteDrop), never silently lost.
 * - The hot path (a text frame or an OUI value of a client already shown to
 *   speak OUI: `frame`, `value`) builds no object per item and serialises
 *   nothing: it writes a timestamp, a seq and the data (a copied value) into
 *   the ring's columns; items are built when the panel reads them. Items of a
 *   client that has shown no OUI yet go through `record`, where their text is
 *   tested (looksLikeOuiText) and they wait in the quiet ring.
 * - Delivery keeps capture order, and an item whose payload is still being
 *   read (a Blob) holds back the items after it (Outbox).
 */
import type { CapturedClient, CapturedItem, CapturedKind, CapturedPayload, Cursors, DropCounts, DropReport, TransportKind } from '../src/capture/captured-items.ts';
import type { Natives } from './natives.ts';
import { createHeldAnswers, type HeldAnswers } from './answers.ts';
import { createQuietRing, showsOui } from './quiet-ring.ts';
import { FRAME_CAP, HEAD, copyValue, jsonPayload, textPayload } from './payloads.ts';
import { frameIdentity } from './frame-identity.ts';
import { ColumnRing } from './column-ring.ts';
import { Outbox, type Entry, type Live } from './outbox.ts';
import { ClientTable, noteDrop, type ClientState } from './client-table.ts';
import { SafeMap, SafeSet, append } from './primordials.ts';
import { itemJson, jsonNumber, jsonString, payloadJson, type ItemFacts } from './item-json.ts';

export { FRAME_CAP, bytesPayload, jsonPayload, textPayload } from './payloads.ts';
export type { Live } from './outbox.ts';

export const MAX_ITEMS = 20_000;
export const MAX_BYTES = 32 * 1024 * 1024;
/** What an item costs beyond its payload (the weight the limits count). */
const ITEM_WEIGHT = 64;

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
  readonly heldAnswers: HeldAnswers;
  /** Runs `fn` with every item it records marked as injected by the extension. */
  injecting<T>(fn: () => T): T;
  /** True while `injecting` runs: what the extension itself dispatches is not the page's forgery. */
  isInjecting(): boolean;
  /** Runs `fn` as `injecting` does, but what it records is marked as faulted by a rule (`faulted`, `fault`) instead of injected. */
  faulting<T>(mark: { rule: string; did: string }, fn: () => T): T;
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

/** How a ring entry's data is read: a frame's text, a copied JS value, or an item object. */
const TEXT = 0;
const VALUE = 1;
const ITEM = 2;

interface SinkState extends Sink {
  readonly st: ClientState;
  readonly mode: number;
  /** The JSON its items start with (hook, client, kind, direction and shared fields), written once. */
  head?: string;
}

/** The JSON every hot-path item of sink `s` starts with, up to its seq. */
function sinkHead(hook: string, s: SinkState): string {
  let h = `{"hook":${jsonString(hook)},"client":${jsonString(s.client.id)},"kind":"frame","dir":${jsonString(s.dir)}`;
  if (s.method !== undefined) h += `,"method":${jsonString(s.method)}`;
  if (s.from !== undefined) h += `,"from":${jsonString(s.from)},"to":${jsonString(s.to ?? '')}`;
  return h;
}

export function createCaptureBuffer(natives: Natives): CaptureBuffer {
  const hook = natives.randomId();
  const now = natives.now;
  /** The item sink (mode ITEM) of each client with item objects in the ring. */
  const itemSinks = new SafeMap<string, SinkState>();
  const table = new ClientTable(undefined, (id) => itemSinks.delete(id));
  const pending = new SafeSet<CapturedItem>();
  let nextClient = 1;
  let injectDepth = 0;
  /** While `faulting` runs: the rule and what it did, put on every item recorded. */
  let faultMark: { rule: string; did: string } | null = null;
  const quiet = createQuietRing((old) => {
    const st = table.states.get(old.client);
    if (st) noteDrop(st, old.seq, sizeOf(old));
  }, weight);

  const ring: ColumnRing<SinkState> = new ColumnRing<SinkState>(MAX_ITEMS, MAX_BYTES, (slot, g) => {
    if (outbox.live) outbox.keep(g);
    const k = ring.sink[slot]!;
    const d = ring.data[slot];
    // The size the panel would have shown: text's length, a copied value's estimated from its weight (UTF-16 units at 2 bytes).
    noteDrop(k.st, ring.seq[slot]!, k.mode === TEXT ? (d as string).length : k.mode === ITEM ? sizeOf(d as CapturedItem) : Math.round((ring.weight[slot]! - ITEM_WEIGHT) / 2));
  });

  /** The item of ring entry `g`, built now (the hot path stored only its columns). */
  function itemAt(g: number): CapturedItem | undefined {
    const i = ring.slotOf(g);
    if (i < 0) return undefined;
    const k = ring.sink[i]!;
    const d = ring.data[i];
    if (k.mode === ITEM) return d as CapturedItem;
    const item: CapturedItem = { hook, client: k.client.id, seq: ring.seq[i]!, t: ring.time[i]!, kind: 'frame', dir: k.dir };
    if (k.method !== undefined) item.method = k.method;
    if (k.from !== undefined) {
      item.from = k.from;
      item.to = k.to;
    }
    if (ring.re[i]) item.re = ring.re[i];
    if (k.mode === TEXT) item.payload = { text: d as string };
    else {
      const copied = jsonPayload(d);
      item.payload = copied.payload;
      if (copied.size !== undefined) item.size = copied.size;
    }
    return item;
  }

  /** Ring entry `g` as JSON, as `itemAt(g)` would serialise (bytes aside: none on the hot path), with no item object. */
  function jsonAt(g: number, facts: ItemFacts): string | undefined {
    const i = ring.slotOf(g);
    if (i < 0) return undefined;
    const k = ring.sink[i]!;
    const d = ring.data[i];
    if (k.mode === ITEM) return itemJson(d as CapturedItem, facts);
    const seq = ring.seq[i]!;
    facts.client = k.client.id;
    facts.seq = seq;
    let s = `${(k.head ??= sinkHead(hook, k))},"seq":${seq},"t":${jsonNumber(ring.time[i]!)}`;
    if (ring.re[i]) s += `,"re":${ring.re[i]!}`;
    if (k.mode === TEXT) {
      facts.size = (d as string).length;
      return `${s},"payload":{"text":${jsonString(d as string)}}}`;
    }
    const copied = jsonPayload(d);
    facts.size = copied.size ?? copied.text.length;
    s += `,"payload":${payloadJson(copied.payload)}`;
    return copied.size === undefined ? `${s}}` : `${s},"size":${copied.size}}`;
  }

  function isPending(entry: Entry): boolean {
    if (typeof entry !== 'number') return pending.has(entry);
    const i = ring.slotOf(entry);
    return i >= 0 && ring.sink[i]!.mode === ITEM && pending.has(ring.data[i] as CapturedItem);
  }

  const outbox = new Outbox({ isPending, itemAt, jsonAt, client: (id) => table.client(id) }, natives.setTimeout);

  /** Writes one entry into the ring's columns, and queues it for the live subscriber. */
  function keep(s: SinkState, w: number, t: number, seq: number, re: number, data: unknown, send: boolean): void {
    const i = ring.add(w);
    ring.time[i] = t;
    ring.seq[i] = seq;
    ring.re[i] = re;
    ring.data[i] = data;
    ring.sink[i] = s;
    if (send && outbox.live) outbox.add(ring.total - 1);
  }

  function itemSink(st: ClientState): SinkState {
    let s = itemSinks.get(st.client.id);
    if (!s) {
      s = { client: st.client, dir: 'in', st, mode: ITEM };
      itemSinks.set(st.client.id, s);
    }
    return s;
  }

  /** An item object into the ring, or into the quiet ring while its client has shown no OUI traffic. */
  function pushItem(st: ClientState, item: CapturedItem): void {
    if (!st.oui) {
      if (st.gone || !showsOui(item)) {
        quiet.add(item, weight(item));
        if (outbox.live) outbox.add(item);
        return;
      }
      st.oui = true;
      const sink = itemSink(st);
      const earlier = quiet.take(item.client);
      for (let j = 0; j < earlier.length; j++) keep(sink, weight(earlier[j]!), earlier[j]!.t, earlier[j]!.seq, 0, earlier[j], false);
    }
    keep(itemSink(st), weight(item), item.t, item.seq, 0, item, true);
  }

  /** `fields` becomes the item itself (callers pass a fresh literal): no copy on the app's hot path. */
  function record(client: CapturedClient, kind: CapturedKind, fields?: Partial<CapturedItem>): CapturedItem {
    const item = (fields ?? {}) as CapturedItem;
    const st = table.stateOf(client);
    item.hook = hook;
    item.client = client.id;
    // A client the table has forgotten: nothing of it is kept (ClientTable counts such clients).
    item.seq = st ? ++st.seq : 0;
    item.t = now();
    item.kind = kind;
    if (injectDepth > 0) {
      if (faultMark) {
        item.faulted = faultMark.rule;
        item.fault = faultMark.did;
      } else item.injected = true;
    }
    if (st) pushItem(st, item);
    return item;
  }

  function frame(sink: Sink, text: string, t?: number): void {
    try {
      const s = sink as SinkState;
      const st = s.st;
      if (!st.oui || injectDepth > 0 || s.mode !== TEXT || text.length > FRAME_CAP) {
        const p = textPayload(text);
        const fields: Partial<CapturedItem> = { dir: s.dir, payload: p.payload };
        if (p.size !== undefined) fields.size = p.size;
        record(s.client, 'frame', fields);
        return;
      }
      keep(s, ITEM_WEIGHT + text.length * 2, t ?? now(), ++st.seq, 0, text, true);
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
      const seq = ++st.seq;
      keep(s, ITEM_WEIGHT + copied.weight, t ?? now(), seq, re ?? 0, copied.value, true);
      return seq;
    } catch {
      return 0;
    }
  }

  /** Where a let-go (then forgotten) client's sinks point: never OUI, so its items take `record`, which keeps nothing of it. */
  function stateFor(client: CapturedClient): ClientState {
    return table.stateOf(client) ?? { client, seq: 0, dropped: 0, oui: false, gone: true };
  }

  return {
    hook,
    natives,
    heldAnswers: createHeldAnswers(natives),
    isInjecting: () => injectDepth > 0,
    injecting(fn) {
      injectDepth++;
      const mark = faultMark;
      faultMark = null;
      try {
        return fn();
      } finally {
        injectDepth--;
        faultMark = mark;
      }
    },
    faulting(mark, fn) {
      injectDepth++;
      const before = faultMark;
      faultMark = mark;
      try {
        return fn();
      } finally {
        injectDepth--;
        faultMark = before;
      }
    },
    addClient(kind, url, key) {
      const id = `c${nextClient++}`;
      // An about:blank, srcdoc or document.open()ed frame says whose it is: its creator's origin and page.
      const { origin, frameUrl } = frameIdentity();
      const client: CapturedClient = { id, kind, url, origin, frameUrl };
      if (key) client.key = key;
      // Made only for OUI messages and calls: nothing to wait for.
      table.add(client, kind === 'postmessage' || kind === 'direct');
      return client;
    },
    sink(client, dir, shared) {
      const s = { client, dir, st: stateFor(client), mode: client.kind === 'postmessage' || client.kind === 'direct' ? VALUE : TEXT } as { -readonly [K in keyof SinkState]: SinkState[K] };
      if (shared?.method !== undefined) s.method = shared.method;
      if (shared?.from !== undefined) s.from = shared.from;
      if (shared?.to !== undefined) s.to = shared.to;
      return s;
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
          for (let g = ring.total - 1; g >= ring.oldest; g--) {
            const i = ring.slotOf(g);
            if (ring.data[i] === item) {
              ring.grow(i, delta);
              break;
            }
          }
        }
        pending.delete(item);
        outbox.scheduleFlush();
      };
    },
    flushNow: () => outbox.flushNow(),
    lastSeqs() {
      const out: Record<string, number> = {};
      table.states.forEach((st, id) => {
        if (st.seq > 0) out[id] = st.seq;
      });
      return out;
    },
    subscribe(cursors, next) {
      const replay: CapturedItem[] = [];
      const all: Entry[] = [];
      for (let g = ring.oldest; g < ring.total; g++) append<Entry>(all, g);
      const quietItems = quiet.items();
      for (let j = 0; j < quietItems.length; j++) append<Entry>(all, quietItems[j]!);
      // Up to the first pending entry: replayed now, after the cursors. From it on: delivered live, in order, once it is read.
      const waiting: Entry[] = [];
      for (let j = 0; j < all.length; j++) {
        const e = all[j]!;
        if (waiting.length || isPending(e)) {
          append(waiting, e);
          continue;
        }
        const it = typeof e === 'number' ? itemAt(e) : e;
        if (it && it.seq > (cursors[`${hook}/${it.client}`] ?? 0)) append(replay, it);
      }
      outbox.start(next, replay, table.list(), waiting);
    },
    unsubscribe() {
      outbox.stop();
    },
    drops() {
      const out: DropCounts = {};
      table.states.forEach((st, id) => {
        if (st.dropped) out[id] = st.dropped;
      });
      return out;
    },
    lostAfter(cursors) {
      let out: Record<string, DropReport> | undefined;
      table.states.forEach((st, id) => {
        const c = cursors[`${hook}/${id}`];
        const r = st.ledger?.after(typeof c === 'number' ? c : 0);
        if (r) (out ??= {})[id] = r;
      });
      return out;
    },
  };
}
