/**
 * The hook's bounded memory: every captured item from document_start, until
 * the limits; then the oldest go, counted per client. A panel that opens late
 * replays from here; a panel that reconnects resumes from its cursors.
 */
import type { CapturedClient, CapturedItem, CapturedKind, CapturedPayload, Cursors, DropCounts, TransportKind } from '../src/capture/types.ts';
import type { Natives } from './natives.ts';
import { createHeldAnswers, type HeldAnswers } from './answers.ts';
import { createQuietRing, showsOui } from './quiet-ring.ts';
import { chunkItems } from './chunks.ts';

export const MAX_ITEMS = 20_000;
export const MAX_BYTES = 32 * 1024 * 1024;
/** Frames longer than this (UTF-16 units or bytes) keep only their head and their size. */
export const FRAME_CAP = 2 * 1024 * 1024;
const HEAD = 512;
const MAX_CLIENTS = 2_000;
const FLUSH_DELAY_MS = 16;

export interface Live {
  items(items: CapturedItem[], clients: CapturedClient[]): void;
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
  /** Records `fields` (a fresh object the caller gives up) as an item of `client`. */
  record(client: CapturedClient, kind: CapturedKind, fields?: Partial<CapturedItem>): CapturedItem;
  /** An item whose payload arrives later (a Blob being read); later items wait for it. */
  recordPending(client: CapturedClient, fields: Partial<CapturedItem>): (payload: CapturedPayload, size?: number) => void;
  /** Replays what is buffered after the cursors, then forwards live. */
  subscribe(cursors: Cursors, live: Live): void;
  unsubscribe(): void;
  drops(): DropCounts;
}

export function textPayload(text: string): { payload: CapturedPayload; size?: number } {
  if (text.length <= FRAME_CAP) return { payload: { text } };
  return { payload: { omitted: true, head: detachedHead(text) }, size: text.length };
}

const fromCharCode = String.fromCharCode;

/**
 * The first HEAD code units of `text` as a string of its own. V8 makes
 * `text.slice()` a view that keeps the whole original alive, so a 10 MB frame
 * would stay in memory while the buffer counts 1 KB; building the head from
 * its code units allocates just the head.
 */
function detachedHead(text: string): string {
  const units = new Uint16Array(Math.min(HEAD, text.length));
  for (let i = 0; i < units.length; i++) units[i] = text.charCodeAt(i);
  return fromCharCode.apply(null, units as unknown as number[]);
}

/**
 * A JS value copied as JSON at the moment it is seen (the app may mutate it
 * later), with `text` for the held-answer check; not-JSON values keep a marker.
 */
export function jsonPayload(value: unknown): { payload: CapturedPayload; size?: number; text: string } {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    return { payload: { omitted: true, head: '[not JSON]' }, text: '' };
  }
  return { ...textPayload(text), text };
}

export function bytesPayload(bytes: Uint8Array): { payload: CapturedPayload; size?: number } {
  if (bytes.byteLength <= FRAME_CAP) return { payload: { bytes: bytes.slice() } };
  return { payload: { omitted: true, head: `[${bytes.byteLength} bytes]` }, size: bytes.byteLength };
}

function weight(item: CapturedItem): number {
  const p = item.payload;
  if (!p) return 64;
  if ('text' in p) return 64 + p.text.length * 2;
  if ('bytes' in p) return 64 + p.bytes.byteLength;
  if ('base64' in p) return 64 + p.base64.length;
  return 64 + HEAD * 2;
}

export function createCaptureBuffer(natives: Natives): CaptureBuffer {
  const hook = natives.randomId();
  let items: CapturedItem[] = [];
  let start = 0;
  let bytes = 0;
  const clients = new Map<string, CapturedClient>();
  const seqs = new Map<string, number>();
  const drops: DropCounts = {};
  const pending = new Set<CapturedItem>();
  let nextClient = 1;
  let injectDepth = 0;
  /** Clients that have shown OUI traffic: their items go to the log; the others' to the quiet ring. */
  const speaksOui = new Set<string>();
  const quiet = createQuietRing((old) => {
    drops[old.client] = (drops[old.client] ?? 0) + 1;
  }, weight);

  let live: Live | null = null;
  let outbox: CapturedItem[] = [];
  let announced = new Set<string>();
  let flushScheduled = false;

  function evict(): void {
    while (items.length - start > MAX_ITEMS || (bytes > MAX_BYTES && items.length - start > 1)) {
      const old = items[start]!;
      items[start] = undefined as unknown as CapturedItem;
      start++;
      bytes -= weight(old);
      drops[old.client] = (drops[old.client] ?? 0) + 1;
    }
    if (start > 4096 && start * 2 > items.length) {
      items = items.slice(start);
      start = 0;
    }
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

  function flush(): void {
    flushScheduled = false;
    if (!live) {
      outbox = [];
      return;
    }
    let ready = 0;
    while (ready < outbox.length && !pending.has(outbox[ready]!)) ready++;
    if (ready === 0) return;
    const batch = outbox.slice(0, ready);
    outbox = outbox.slice(ready);
    deliver(live, batch, unannounced(batch));
  }

  /** In chunks the extension can carry, in order; the clients go with the first. */
  function deliver(to: Live, list: CapturedItem[], announce: CapturedClient[]): void {
    const chunks = chunkItems(list);
    for (let i = 0; i < chunks.length; i++) to.items(chunks[i]!, i === 0 ? announce : []);
  }

  function schedule(): void {
    if (flushScheduled || !live) return;
    flushScheduled = true;
    natives.setTimeout(flush, FLUSH_DELAY_MS);
  }

  function keep(item: CapturedItem): void {
    items.push(item);
    bytes += weight(item);
  }

  function push(item: CapturedItem): void {
    if (speaksOui.has(item.client)) keep(item);
    else if (showsOui(item)) {
      speaksOui.add(item.client);
      for (const earlier of quiet.take(item.client)) keep(earlier);
      keep(item);
    } else quiet.add(item, weight(item));
    evict();
    if (live) {
      outbox.push(item);
      schedule();
    }
  }

  /** `fields` becomes the item itself (callers pass a fresh literal): no copy on the app's hot path. */
  function record(client: CapturedClient, kind: CapturedKind, fields?: Partial<CapturedItem>): CapturedItem {
    const seq = (seqs.get(client.id) ?? 0) + 1;
    seqs.set(client.id, seq);
    const item = (fields ?? {}) as CapturedItem;
    item.hook = hook;
    item.client = client.id;
    item.seq = seq;
    item.t = natives.now();
    item.kind = kind;
    if (injectDepth > 0) item.injected = true;
    push(item);
    return item;
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
      const client: CapturedClient = {
        id,
        kind,
        url,
        origin: location.origin,
        frameUrl: location.href,
        ...(key ? { key } : {}),
      };
      clients.set(id, client);
      // Made only for OUI messages and calls: nothing to wait for.
      if (kind === 'postmessage' || kind === 'direct') speaksOui.add(id);
      if (clients.size > MAX_CLIENTS) {
        const oldest = clients.keys().next().value as string;
        clients.delete(oldest);
        speaksOui.delete(oldest);
        drops[oldest] = (drops[oldest] ?? 0) + 1;
      }
      return client;
    },
    record,
    recordPending(client, fields) {
      const item = record(client, 'frame', fields);
      pending.add(item);
      return (payload, size) => {
        item.payload = payload;
        if (size !== undefined) item.size = size;
        if (quiet.holds(item)) quiet.grew(item, weight(item) - 64);
        else bytes += weight(item) - 64;
        pending.delete(item);
        if (live) schedule();
      };
    },
    subscribe(cursors, next) {
      const replay: CapturedItem[] = [];
      outbox = [];
      const held = items.slice(start);
      held.push(...quiet.items());
      for (const it of held) {
        if (outbox.length || pending.has(it)) outbox.push(it);
        else if (it.seq > (cursors[`${hook}/${it.client}`] ?? 0)) replay.push(it);
      }
      live = next;
      announced = new Set(clients.keys());
      deliver(next, replay, [...clients.values()]);
      schedule();
    },
    unsubscribe() {
      live = null;
      outbox = [];
    },
    drops: () => ({ ...drops }),
  };
}
