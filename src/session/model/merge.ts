/**
 * One canonical order for capture from several frames and hooks, so that
 * arrival order never changes the session model.
 *
 * A source is one hook client's stream (`${hook}/${client}`, the wire event
 * id without its sequence number). Each source reaches the panel in its own
 * order, but sources race each other: a request captured in an iframe and its
 * answer captured in the host travel in separate batches, in either order.
 *
 * Why this mechanism:
 * - The canonical order is a merge by capture time with a deterministic
 *   tie-break (source, then place in the source), where a source's time never
 *   goes backwards (its running maximum). It is a function of the set of
 *   per-source streams, and it keeps each source's own order.
 * - Live, the model is fed only a prefix of that order. New events wait in a
 *   short reorder window until every frame's hook has been heard from past
 *   them (each hook sends its clients' items in capture order), or until
 *   REORDER_WINDOW_MS of the panel's own clock went by. Ticks of the model's
 *   clock go in the same order, on the capture clock.
 * - An event that still sorts before what was applied (a frame's replay after
 *   a reconnect, a hook slower than the window) re-evaluates: the model is
 *   rebuilt from the merged list. That costs a replay (about a second at
 *   100,000 events, bench/merge.ts), so the window keeps it rare.
 * - Once the retained list has lost its oldest events, a rebuild would lose
 *   their effects (registrations, above all), so a late event is then applied
 *   where it arrives and counted; the model itself tolerates an answer before
 *   its request (it parks it).
 *
 * Pure: no DOM, no extension APIs. The panel passes its wall clock in.
 */
import { SessionModel, type SessionModelOptions } from './session-model.ts';
import { MAX_EVENTS } from '../wire/recorder.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';

/** How long (panel wall clock) an event may wait for earlier events of other frames. */
export const REORDER_WINDOW_MS = 300;
/** Ticks remembered for a rebuild: a day at one a second. */
const MAX_TICKS = 100_000;
/** Evicting in chunks keeps the front splice off the per-batch path. */
const EVICT_SLACK = 1_024;

/** An event with its place in the canonical order. */
export interface Placed {
  ev: WireEvent;
  /** Capture time, never before the previous one of the same source. */
  t: number;
  src: string;
  /** Place within the source. */
  n: number;
  /** The hook (frame document) that captured it. */
  hook: string;
  /** Panel wall clock when it arrived. */
  arrived: number;
}

export function comparePlaced(a: Placed, b: Placed): number {
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  if (a.src !== b.src) return a.src < b.src ? -1 : 1;
  return a.n - b.n;
}

/** `${hook}/${client}` from `${hook}/${client}/${seq}[.n]`; an id of another shape (an imported file's) is a stream per client. */
export function sourceOf(ev: WireEvent): { src: string; hook: string } {
  const id = typeof ev.id === 'string' ? ev.id : '';
  const last = id.lastIndexOf('/');
  if (last > 0) return { src: id.slice(0, last), hook: id.slice(0, id.indexOf('/')) };
  const src = `client:${String(ev.client)}`;
  return { src, hook: src };
}

/** Places events source by source: each source's time is its running maximum, its order its arrival order. */
export class SourceClocks {
  private readonly sources = new Map<string, SourceClock>();
  /** The source of the last event placed: consecutive events nearly always share it, and then no id is cut or looked up. */
  private last: SourceClock | undefined;

  place(ev: WireEvent, arrived: number): Placed {
    const id = typeof ev.id === 'string' ? ev.id : '';
    const last = this.last;
    let clock: SourceClock;
    // `${src}/${seq}` of the last source: the same src, as sourceOf would cut it (its last '/' is right after src).
    if (last !== undefined && last.fromId && id.length > last.src.length && id.charCodeAt(last.src.length) === 0x2f && id.startsWith(last.src) && id.indexOf('/', last.src.length + 1) < 0) {
      clock = last;
    } else {
      const { src, hook } = sourceOf(ev);
      let found = this.sources.get(src);
      if (!found) this.sources.set(src, (found = { src, hook, fromId: id.lastIndexOf('/') > 0, t: -Infinity, n: -1 }));
      clock = found;
      this.last = clock;
    }
    const own = typeof ev.t === 'number' && Number.isFinite(ev.t) ? ev.t : -Infinity;
    const t = clock.n >= 0 && clock.t > own ? clock.t : own;
    const n = clock.n + 1;
    clock.t = t;
    clock.n = n;
    return { ev, t, src: clock.src, n, hook: clock.hook, arrived };
  }
}

/** A source's running time and count (n: place of its last event, -1 before its first). */
interface SourceClock {
  src: string;
  hook: string;
  /** src was cut from an event id (not the `client:` stream of ids without a '/'). */
  fromId: boolean;
  t: number;
  n: number;
}

/** The canonical order of a recording: `events` holds each source's events in that source's order, interleaved any way. */
export function canonicalOrder(events: readonly WireEvent[]): WireEvent[] {
  return placeAll(events).map((p) => p.ev);
}

/** `canonicalOrder`, with each event's place. */
export function placeAll(events: readonly WireEvent[]): Placed[] {
  const clocks = new SourceClocks();
  return events
    .filter((ev) => ev !== null && typeof ev === 'object')
    .map((ev) => clocks.place(ev, 0))
    .sort(comparePlaced);
}

export interface FeedOptions {
  model?: SessionModelOptions;
  windowMs?: number;
  /** Events kept for a rebuild (the recorder's bound). */
  maxEvents?: number;
}

export interface FeedStats {
  rebuilds: number;
  /** Total and last time spent rebuilding, ms. */
  rebuildMs: number;
  lastRebuildMs: number;
  /** Events applied out of order because what they would be replayed with was already evicted. */
  lateApplied: number;
}

/**
 * Feeds a SessionModel from any interleaving of per-source streams: the
 * model's output and findings are those of the canonical order, whatever
 * the order of arrival, for the same ticks.
 */
export class ModelFeed {
  model: SessionModel;
  readonly stats: FeedStats = { rebuilds: 0, rebuildMs: 0, lastRebuildMs: 0, lateApplied: 0 };
  /** Canonical order; `applied` first entries are in the model, the rest wait in the window. */
  private list: Placed[] = [];
  private applied = 0;
  /** Capture times the model was ticked at, ascending. */
  private ticks: number[] = [];
  private readonly clocks = new SourceClocks();
  /** Per hook: the latest capture time heard and when (panel clock). */
  private readonly hooks = new Map<string, { t: number; arrived: number }>();
  private evicted = 0;
  private finished = false;
  /** When (panel clock) the first event or hook came: see `release`. */
  private since?: number;
  private readonly windowMs: number;
  private readonly maxEvents: number;

  constructor(
    private readonly clientOf: (key: string) => WireClient | undefined,
    private readonly opts: FeedOptions = {},
  ) {
    this.windowMs = opts.windowMs ?? REORDER_WINDOW_MS;
    this.maxEvents = opts.maxEvents ?? MAX_EVENTS;
    this.model = new SessionModel(opts.model);
  }

  /**
   * A frame's hook said it is there (it subscribed) before sending anything:
   * until it does, nothing is certainly in order past it, so events wait the
   * window for it. Without this, a quiet iframe's first request would come
   * after its answer had been applied, and cost a rebuild.
   */
  noteHook(hook: string, now: number): void {
    this.since ??= now;
    if (typeof hook === 'string' && !this.hooks.has(hook)) this.hooks.set(hook, { t: -Infinity, arrived: now });
  }

  /** Events waiting in the reorder window. */
  get held(): number {
    return this.list.length - this.applied;
  }

  /** Fresh events (any sources, each in its own order) arrived at `now` (panel clock). True when the model changed. */
  add(fresh: readonly WireEvent[], now: number): boolean {
    let rebuild = false;
    let changed = false;
    if (fresh.length) this.since ??= now;
    for (const ev of fresh) {
      if (ev === null || typeof ev !== 'object') continue;
      const p = this.clocks.place(ev, now);
      const hook = this.hooks.get(p.hook);
      if (!hook) this.hooks.set(p.hook, { t: p.t, arrived: now });
      else {
        if (p.t > hook.t) hook.t = p.t;
        hook.arrived = now;
      }
      const pos = this.insert(p);
      const lastTick = this.ticks.at(-1);
      if (pos >= this.applied && !this.finished && (lastTick === undefined || p.t > lastTick)) continue;
      // It belongs before what the model has seen (held events all come after the last tick), so it joins the applied prefix.
      this.applied++;
      if (this.evicted > 0) {
        this.apply(this.model, p);
        this.stats.lateApplied++;
        changed = true;
      } else rebuild = true;
    }
    if (rebuild) {
      this.rebuild();
      changed = true;
    }
    return this.release(now) || changed;
  }

  /**
   * Applies what waited long enough: everything up to the last held event
   * that every hook has been heard from past, or that arrived a window ago.
   * In the feed's first window no hook's word counts: a panel opened late
   * gets each frame's buffered capture in a batch of its own, and the
   * others' may not have been announced yet.
   */
  release(now: number): boolean {
    if (this.applied >= this.list.length) return false;
    let mark = this.since !== undefined && now - this.since < this.windowMs ? -Infinity : Infinity;
    for (const h of this.hooks.values()) if (h.t < mark) mark = h.t;
    const due = now - this.windowMs;
    let upto = this.applied;
    for (let i = this.applied; i < this.list.length; i++) {
      const p = this.list[i]!;
      if (p.t <= mark || p.arrived <= due) upto = i + 1;
    }
    return this.applyUpTo(upto);
  }

  /** When (panel clock) the oldest held event is due, if any is held. */
  nextRelease(): number | undefined {
    let first: number | undefined;
    for (let i = this.applied; i < this.list.length; i++) {
      const a = this.list[i]!.arrived;
      if (first === undefined || a < first) first = a;
    }
    return first === undefined ? undefined : first + this.windowMs;
  }

  /**
   * The live clock: ticks the model at the capture time every hook has
   * certainly reached (its latest event plus the time since, less the
   * window), never before what was applied, so a tick never forces a rebuild.
   */
  tick(now: number): boolean {
    let changed = this.release(now);
    let at = Infinity;
    // A hook that never sent anything has no clock reading to go by.
    for (const h of this.hooks.values()) if (Number.isFinite(h.t)) at = Math.min(at, h.t + (now - h.arrived) - this.windowMs);
    if (!Number.isFinite(at)) return changed;
    const lastApplied = this.list[this.applied - 1];
    if (lastApplied && lastApplied.t > at) at = lastApplied.t;
    const lastTick = this.ticks.at(-1);
    if (lastTick !== undefined && lastTick > at) at = lastTick;
    return this.tickAt(at) || changed;
  }

  /**
   * Ticks the model at capture time `at`, in the canonical order: after
   * every event captured at or before it (held ones are applied first),
   * before every later one. A tick before what was applied re-evaluates.
   */
  tickAt(at: number): boolean {
    if (typeof at !== 'number' || Number.isNaN(at)) return false;
    const before = this.model.findings.length;
    let end = this.applied;
    while (end < this.list.length && this.list[end]!.t <= at) end++;
    let changed = this.applyUpTo(end);
    const lastTick = this.ticks.at(-1);
    const lastApplied = this.list[this.applied - 1];
    if (this.evicted === 0 && ((lastTick !== undefined && at < lastTick) || (lastApplied && at < lastApplied.t))) {
      this.ticks.splice(upperBound(this.ticks, at), 0, at);
      this.rebuild();
      return true;
    }
    this.model.tick(at);
    if (this.evicted === 0) {
      this.ticks.push(at);
      if (this.ticks.length > MAX_TICKS) this.ticks.splice(0, this.ticks.length - MAX_TICKS);
    }
    changed ||= this.model.findings.length !== before;
    return changed;
  }

  /** The recording is complete (an imported file): apply everything, tick at its end, and judge what is still missing. */
  finish(): void {
    const last = this.list.at(-1);
    if (last) this.tickAt(last.t);
    this.applyUpTo(this.list.length);
    this.finished = true;
    this.model.finish();
  }

  private applyUpTo(end: number): boolean {
    if (end <= this.applied) return false;
    for (let i = this.applied; i < end; i++) this.apply(this.model, this.list[i]!);
    this.applied = end;
    this.evict();
    return true;
  }

  private apply(model: SessionModel, p: Placed): void {
    const client = this.clientOf(p.ev.client);
    if (client) model.apply(p.ev, client);
  }

  /** Upper bound by canonical order: equal keys (a re-added event) go after. */
  private insert(p: Placed): number {
    const list = this.list;
    const n = list.length;
    if (!n || comparePlaced(list[n - 1]!, p) <= 0) {
      list.push(p);
      return n;
    }
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePlaced(list[mid]!, p) <= 0) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, p);
    return lo;
  }

  private evict(): void {
    if (this.list.length <= this.maxEvents + EVICT_SLACK) return;
    const n = Math.min(this.list.length - this.maxEvents, this.applied);
    if (n <= 0) return;
    this.list.splice(0, n);
    this.applied -= n;
    this.evicted += n;
    // Ticks serve rebuilds only, and there are none past eviction.
    this.ticks = [];
  }

  /** Re-evaluation: a fresh model fed the applied prefix, with the ticks where they fell. */
  private rebuild(): void {
    const started = now();
    const model = new SessionModel(this.opts.model);
    const ticks = this.ticks;
    let k = 0;
    for (let i = 0; i < this.applied; i++) {
      const p = this.list[i]!;
      while (k < ticks.length && ticks[k]! < p.t) model.tick(ticks[k++]!);
      this.apply(model, p);
    }
    while (k < ticks.length) model.tick(ticks[k++]!);
    if (this.finished) model.finish();
    this.model = model;
    const ms = now() - started;
    this.stats.rebuilds++;
    this.stats.lastRebuildMs = ms;
    this.stats.rebuildMs += ms;
  }
}

function upperBound(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
