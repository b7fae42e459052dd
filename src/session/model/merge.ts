/**
 * Feeds the session model in the canonical order (wire/order.ts), so that
 * arrival order never changes the model, and the findings are computed in
 * the order the Timeline shows.
 *
 * Why this mechanism:
 * - Live, the model is fed only a prefix of the canonical order. New events
 *   wait in a short reorder window until every frame's hook has been heard
 *   from past them (each hook sends its clients' items in capture order), or
 *   until REORDER_WINDOW_MS of the panel's own clock went by. Ticks of the
 *   model's clock go in the same order, on the capture clock.
 * - An event that still sorts before what was applied (a frame's replay after
 *   a reconnect, a hook slower than the window) re-evaluates: the model is
 *   rebuilt from the merged list. That costs a replay (about a second at
 *   100,000 events, bench/merge.ts), so the window keeps it rare.
 * - Once the retained list has lost its oldest events, a rebuild would lose
 *   their effects (registrations, above all), so a late event is then applied
 *   where it arrives and counted; the model itself tolerates an answer before
 *   its request (it parks it). A feed told to retain nothing (`maxEvents: 0`,
 *   the CLI's bounded pass over a file) is in that state from the start.
 * - Input without a panel clock (a file read in one pass) holds a number of
 *   events instead (`hold`): the least is applied when more are waiting.
 *
 * Pure: no DOM, no extension APIs. The panel passes its wall clock in.
 */
import { SessionModel, type SessionModelOptions } from './session-model.ts';
import { MAX_EVENTS, insertPlaced, SourceClocks, type Placed } from '../wire/order.ts';
import { sortedIndex } from '../sorted-index.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';

export { canonicalOrder, comparePlaced, placeAll, sourceOf, SourceClocks, type Placed } from '../wire/order.ts';

/** How long (panel wall clock) an event may wait for earlier events of other frames. */
export const REORDER_WINDOW_MS = 300;
/** Ticks remembered for a rebuild: a day at one a second. */
const MAX_TICKS = 100_000;
/** Evicting in chunks keeps the front splice off the per-batch path. */
const EVICT_SLACK = 1_024;

export interface FeedOptions {
  model?: SessionModelOptions;
  windowMs?: number;
  /** Events kept for a rebuild (the recorder's bound; MAX_EVENTS when not given). 0: none, and a late event is applied where it arrives. */
  maxEvents?: number;
  /**
   * Hold at most this many events, by count instead of the panel clock: the
   * least waiting is applied once more are waiting (input read in one pass,
   * in nearly the order it sorts). `windowMs` and the hooks' word are then
   * not used to release events.
   */
  hold?: number;
  /** Called with each event as the live model takes it (not during a rebuild), and its client if the feed knows it. */
  onApply?: (p: Placed, client: WireClient | undefined) => void;
}

export interface FeedStats {
  rebuilds: number;
  /** Total and last time spent rebuilding, ms. */
  rebuildMs: number;
  lastRebuildMs: number;
  /** Events applied out of order because what they would be replayed with was evicted, or is not retained (`maxEvents: 0`). */
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
  private readonly hold: number | undefined;
  /** The latest capture time placed: where a finished recording is ticked. */
  private lastT: number | undefined;

  constructor(
    private readonly clientOf: (key: string) => WireClient | undefined,
    private readonly opts: FeedOptions = {},
  ) {
    this.windowMs = opts.windowMs ?? REORDER_WINDOW_MS;
    this.maxEvents = Math.max(0, opts.maxEvents ?? MAX_EVENTS);
    this.hold = opts.hold === undefined ? undefined : Math.max(0, opts.hold);
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

  /** A rebuild replays every event from the first: none was evicted, and the feed retains any. */
  private get rebuildable(): boolean {
    return this.evicted === 0 && this.maxEvents > 0;
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
      if (this.lastT === undefined || p.t > this.lastT) this.lastT = p.t;
      const pos = insertPlaced(this.list, p);
      const lastTick = this.ticks.at(-1);
      if (pos >= this.applied && !this.finished && (lastTick === undefined || p.t > lastTick)) continue;
      // It belongs before what the model has seen (held events all come after the last tick), so it joins the applied prefix.
      this.applied++;
      if (!this.rebuildable) {
        this.apply(this.model, p, true);
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
    if (this.hold !== undefined) return this.applyUpTo(this.list.length - this.hold);
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
    if (this.rebuildable && ((lastTick !== undefined && at < lastTick) || (lastApplied && at < lastApplied.t))) {
      this.ticks.splice(sortedIndex(this.ticks, at, tickNotAfter), 0, at);
      this.rebuild();
      return true;
    }
    this.model.tick(at);
    if (this.rebuildable) {
      this.ticks.push(at);
      if (this.ticks.length > MAX_TICKS) this.ticks.splice(0, this.ticks.length - MAX_TICKS);
    }
    changed ||= this.model.findings.length !== before;
    return changed;
  }

  /** The recording is complete (an imported file): apply everything, tick at its end, and judge what is still missing. */
  finish(): void {
    if (this.lastT !== undefined) this.tickAt(this.lastT);
    this.applyUpTo(this.list.length);
    this.finished = true;
    this.model.finish();
  }

  private applyUpTo(end: number): boolean {
    if (end <= this.applied) return false;
    for (let i = this.applied; i < end; i++) this.apply(this.model, this.list[i]!, true);
    this.applied = end;
    this.evict();
    return true;
  }

  /** `live`: into the feed's own model (not a rebuild's), which `onApply` hears of. */
  private apply(model: SessionModel, p: Placed, live = false): void {
    const client = this.clientOf(p.ev.client);
    if (client) model.apply(p.ev, client);
    if (live) this.opts.onApply?.(p, client);
  }

  private evict(): void {
    if (this.list.length <= this.maxEvents + EVICT_SLACK) return;
    const n = Math.min(this.list.length - this.maxEvents, this.applied);
    // In chunks: a feed that holds many events (`hold`) would otherwise cut one off the front per event.
    if (n < EVICT_SLACK) return;
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

const tickNotAfter = (tick: number, at: number): boolean => tick <= at;

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
