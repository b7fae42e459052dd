/**
 * What waits to go to the live subscriber, and its delivery: entries in
 * capture order (a ring entry by its number, or an item object of the quiet
 * ring or a pending Blob), flushed at most every FLUSH_DELAY_MS, up to the
 * first entry whose payload is still being read, in chunks the extension can
 * carry. Each client is announced before its first item. One timer at most is
 * pending (`scheduleFlush`).
 */
import type { CapturedClient, CapturedItem } from '../src/capture/captured-items.ts';
import { CHUNK_BYTES, chunkItems } from './chunks.ts';
import { itemJson, type ItemFacts } from './item-json.ts';
import { SafeSet, append } from './primordials.ts';

export const FLUSH_DELAY_MS = 16;

/**
 * Where the page has idle time (requestIdleCallback, taken at load), live
 * delivery waits for it, at most IDLE_WAIT_MS: the relay to the extension
 * (the clone to the bridge, Chrome's messaging) runs on the page's thread,
 * and a burst of traffic is then not slowed by it. An idle period sends
 * slices of SLICE entries while it lasts; a wait that timed out sends the
 * rest one slice per task, so no delivery is one long task. Beyond
 * MAX_WAITING entries delivery starts without waiting for idle time.
 */
export const IDLE_WAIT_MS = 1000;
export const SLICE = 256;
const MAX_WAITING = 8192;
/** Idle time a slice needs to start, in ms. */
const SLICE_MS = 4;

interface Deadline {
  didTimeout: boolean;
  timeRemaining(): number;
}
type IdleScheduler = (fn: (deadline: Deadline) => void, options: { timeout: number }) => unknown;
// The browser's own, taken at load: a page that wraps requestIdleCallback or IdleDeadline later sees no call of the hook's.
const G = globalThis as { requestIdleCallback?: IdleScheduler; IdleDeadline?: { prototype: Deadline } };
const idleNative = G.requestIdleCallback;
const deadlineProto = G.IdleDeadline?.prototype;
const timeRemainingNative = deadlineProto?.timeRemaining;
const didTimeoutNative = deadlineProto ? Object.getOwnPropertyDescriptor(deadlineProto, 'didTimeout')?.get : undefined;
const applyNative = Reflect.apply;
const requestIdle: ((fn: (deadline: Deadline) => void, timeout: number) => void) | undefined =
  typeof idleNative === 'function' && timeRemainingNative && didTimeoutNative ? (fn, timeout) => applyNative(idleNative, globalThis, [fn, { timeout }]) : undefined;
const timedOut = (d: Deadline) => applyNative(didTimeoutNative!, d, []) as boolean;
const remaining = (d: Deadline) => applyNative(timeRemainingNative!, d, []) as number;

/**
 * A JSON batch's text, in UTF-16 units: as the extension carries it (the
 * string escaped again, in UTF-8) at most 3 bytes a unit, so a batch stays
 * within CHUNK_BYTES as chunkItems' batches do.
 */
export const JSON_CHUNK_UNITS = Math.floor(CHUNK_BYTES / 3);

export interface Live {
  items(items: CapturedItem[], clients: CapturedClient[]): void;
  /**
   * Set by a subscriber that takes items as JSON text (the extension's
   * bridge): `text` is a JSON array of items; `through` the last seq of each
   * client in it and `size` the size of its payloads, for a `skipped` should
   * it not go.
   */
  json?(text: string, clients: CapturedClient[], through: Record<string, number>, size: number): void;
}

/** A ring entry's number, or an item kept as an object. */
export type Entry = number | CapturedItem;

/** What the outbox asks of the buffer. */
export interface EntrySource {
  /** Whether the entry's payload is still being read. */
  isPending(entry: Entry): boolean;
  /** The item of ring entry `g`, built now; undefined once the ring dropped it. */
  itemAt(g: number): CapturedItem | undefined;
  /** Ring entry `g` as JSON text, written from its columns with no item object; undefined once dropped. Fills `facts`. */
  jsonAt(g: number, facts: ItemFacts): string | undefined;
  client(id: string): CapturedClient | undefined;
}

export class Outbox {
  private entries: Entry[] = [];
  /** Where the oldest ring entry not yet built may be (entries are in ring order). */
  private next = 0;
  private scheduled = false;
  /** A wait for idle time timed out: the rest goes one slice per task until nothing is ready. */
  private draining = false;
  /** The scheduled flush's number: a callback of an earlier one (overtaken when too much waited) does nothing. */
  private gen = 0;
  private announced: Set<string> = new SafeSet<string>();
  private readonly facts: ItemFacts = { client: '', seq: 0, size: 0 };
  live: Live | null = null;

  constructor(
    private readonly source: EntrySource,
    private readonly setTimer: (fn: () => void, ms: number) => unknown,
  ) {}

  get waiting(): number {
    return this.entries.length;
  }

  /** Queues an entry for the live subscriber (nothing without one). */
  add(entry: Entry): void {
    append(this.entries, entry);
    if (this.entries.length === MAX_WAITING && requestIdle && !this.draining) {
      // Too much waits for idle time: deliver now, a slice per task.
      this.draining = true;
      this.scheduled = false;
    }
    this.scheduleFlush();
  }

  scheduleFlush(): void {
    if (this.scheduled || !this.live) return;
    this.scheduled = true;
    const gen = ++this.gen;
    if (!requestIdle) this.setTimer(this.flush, FLUSH_DELAY_MS);
    else if (this.draining) this.setTimer(() => gen === this.gen && this.flushSlice(), 0);
    else requestIdle((d) => gen === this.gen && this.flushIdle(d), IDLE_WAIT_MS);
  }

  /** Ring entry `g` is about to be dropped: when it still waits here, its item is built now and still delivered. */
  keep(g: number): void {
    const e = this.entries;
    while (this.next < e.length && typeof e[this.next] !== 'number') this.next++;
    if (e[this.next] === g) {
      const item = this.source.itemAt(g);
      if (item) e[this.next++] = item;
    }
  }

  /** Starts live delivery: `replay` first (with every client), then `waiting` (entries held back behind a pending one). */
  start(live: Live, replay: CapturedItem[], clients: CapturedClient[], waiting: Entry[]): void {
    this.entries = waiting;
    this.next = 0;
    this.live = live;
    const announced = new SafeSet<string>();
    for (let i = 0; i < clients.length; i++) announced.add(clients[i]!.id);
    this.announced = announced;
    if (live.json) this.deliverJson(live, replay, replay.length, clients);
    else this.deliver(live, replay, clients);
    this.scheduleFlush();
  }

  stop(): void {
    this.live = null;
    this.draining = false;
    this.entries = [];
    this.next = 0;
  }

  /** Sends what is ready now; returns how many entries still wait (behind a payload being read). */
  flushNow(): number {
    if (!this.live) return 0;
    this.deliverReady(this.live);
    return this.entries.length;
  }

  /** Idle time: slices while it lasts; a wait that timed out drains, one slice per task. */
  private flushIdle(deadline: Deadline): void {
    try {
      this.scheduled = false;
      if (!this.live) return this.stop();
      if (timedOut(deadline)) this.draining = true;
      do {
        if (!this.deliverReady(this.live, SLICE)) return;
      } while (this.entries.length && !this.draining && remaining(deadline) > SLICE_MS);
      if (this.entries.length) this.scheduleFlush();
      else this.draining = false;
    } catch {
      // Runs in the page's idle callbacks: never into the app.
    }
  }

  private flushSlice(): void {
    try {
      this.scheduled = false;
      if (!this.live) return this.stop();
      if (!this.deliverReady(this.live, SLICE)) return;
      if (this.entries.length) this.scheduleFlush();
      else this.draining = false;
    } catch {
      // Runs in the page's timers: never into the app.
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (!this.live) {
      this.entries = [];
      this.next = 0;
      return;
    }
    // Nothing ready: the pending payload schedules the next flush when it arrives.
    if (!this.deliverReady(this.live)) return;
    if (this.entries.length) this.scheduleFlush();
  };

  /** Delivers up to the first entry still waiting for its payload; false when that is the first. */
  private deliverReady(to: Live, most = Infinity): boolean {
    const e = this.entries;
    let ready = 0;
    while (ready < e.length && ready < most && !this.source.isPending(e[ready]!)) ready++;
    if (ready === 0) return false;
    if (to.json) {
      const rest: Entry[] = [];
      for (let j = ready; j < e.length; j++) append(rest, e[j]!);
      this.entries = rest;
      this.next = 0;
      this.deliverJson(to, e, ready, []);
      return true;
    }
    const batch: CapturedItem[] = [];
    for (let j = 0; j < ready; j++) {
      const x = e[j]!;
      const it = typeof x === 'number' ? this.source.itemAt(x) : x;
      if (it) append(batch, it);
    }
    const rest: Entry[] = [];
    for (let j = ready; j < e.length; j++) append(rest, e[j]!);
    this.entries = rest;
    this.next = 0;
    if (batch.length) this.deliver(to, batch, this.unannounced(batch));
    return true;
  }

  private unannounced(list: CapturedItem[]): CapturedClient[] {
    const out: CapturedClient[] = [];
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!.client;
      if (this.announced.has(id)) continue;
      this.announced.add(id);
      const c = this.source.client(id);
      if (c) append(out, c);
    }
    return out;
  }

  /**
   * The first `n` entries as JSON batches within JSON_CHUNK_UNITS (one entry
   * over it goes alone), in order; `announce` with the first, and each client
   * not announced yet with the batch of its first item.
   */
  private deliverJson(to: Live, list: Entry[], n: number, announce: CapturedClient[]): void {
    const facts = this.facts;
    let text = '';
    let count = 0;
    let through: Record<string, number> = {};
    let size = 0;
    let clients = announce;
    const emit = () => {
      to.json!(`[${text}]`, clients, through, size);
      text = '';
      count = 0;
      through = {};
      size = 0;
      clients = [];
    };
    for (let j = 0; j < n; j++) {
      const x = list[j]!;
      const one = typeof x === 'number' ? this.source.jsonAt(x, facts) : itemJson(x, facts);
      if (one === undefined) continue;
      if (count && (count >= SLICE || text.length + one.length > JSON_CHUNK_UNITS)) emit();
      text = count ? `${text},${one}` : one;
      count++;
      const id = facts.client;
      if ((through[id] ?? 0) < facts.seq) through[id] = facts.seq;
      size += facts.size;
      if (!this.announced.has(id)) {
        this.announced.add(id);
        const c = this.source.client(id);
        if (c) append(clients, c);
      }
    }
    if (count || clients.length) emit();
  }

  /** In chunks the extension can carry, in order; the clients go with the first. */
  private deliver(to: Live, list: CapturedItem[], announce: CapturedClient[]): void {
    const chunks = chunkItems(list);
    for (let i = 0; i < chunks.length; i++) to.items(chunks[i]!, i === 0 ? announce : []);
  }
}
