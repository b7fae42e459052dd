/**
 * The Timeline's exchange rows: one row per request, as the Network panel
 * shows one row per request. An exchange is what one request (client and
 * `requestId`) gathers: its sends, its receipt ack, its results and their
 * acks. Every other event (observation updates, registrations, lifecycle)
 * stays a row of its own.
 *
 * The filter (panel/incremental-filter.ts) decides event by event, as in
 * "All events"; this module then folds its matching events by exchange: an
 * exchange is shown once, where its first matching event is, as its first
 * request event (or, with none recorded, that first matching event). So a
 * status filter ("failed") gives one row per failed exchange, and a free
 * text found in a result's error shows the exchange it belongs to. An
 * expanded exchange shows its other events, all of them, under its row.
 *
 * Cost: which exchange each event belongs to is kept per event, added to as
 * events arrive (an insertion among them, rare, builds it again); folding is
 * one pass over the matches with no lookup but an array read, so a keystroke
 * over 100,000 events pays ~1 ms more for it.
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { RequestIds } from './event-request.ts';
import type { Items } from './components/virtual-list.tsx';
import type { Matches } from './incremental-filter.ts';

/** One request's events. */
export interface Exchange {
  /** `client + "\u0000" + requestId`. */
  readonly key: string;
  readonly client: string;
  readonly requestId: string;
  /** Absolute places (evicted + index) of its events, ascending; some may be evicted. */
  readonly places: number[];
  /** Absolute place of its first `action:request` not evicted, or -1. */
  head: number;
  /** The fold that last showed it (so an exchange is shown once per fold). */
  stamp: number;
}

export function exchangeKey(client: string, requestId: string): string {
  return `${client}\u0000${requestId}`;
}

/** Whether `ev` is part of an exchange at all: a request, a result, or an ack (of one of them). */
export function foldable(ev: WireEvent): boolean {
  return ev.kind === 'ack' || (ev.kind === 'event' && (ev.type === 'action:request' || ev.type === 'action:result'));
}

export type RowKind = 'event' | 'exchange' | 'member';

/** A row of the Timeline. */
export interface TimelineRow {
  readonly ev: WireEvent;
  readonly kind: RowKind;
  /** For an exchange row and its members. */
  readonly exchange?: Exchange;
  /** For an exchange row: its other events are shown under it. */
  readonly expanded?: boolean;
  /** For an exchange row: how many of its events are shown (itself included). */
  readonly size?: number;
}

/** What the Timeline lists: read by index, as the virtual list reads it. */
export interface Rows extends Items<TimelineRow> {
  /** Where the row of event `ev` is, or -1. */
  indexOf(ev: WireEvent): number;
}

/** "All events": every matching event is a row. */
export class EventRows implements Rows {
  constructor(private readonly matches: Matches) {}
  get length(): number {
    return this.matches.length;
  }
  at(i: number): TimelineRow | undefined {
    const ev = this.matches.at(i);
    return ev && { ev, kind: 'event' };
  }
  indexOf(ev: WireEvent): number {
    return this.matches.indexOf(ev);
  }
}

const KIND_EVENT = 0;
const KIND_EXCHANGE = 1;
const KIND_MEMBER = 2;
const KINDS: RowKind[] = ['event', 'exchange', 'member'];

/** Exchange rows: absolute places of the events shown, with what each row is; valid until the next fold. */
export class ExchangeRows implements Rows {
  constructor(
    private readonly events: readonly WireEvent[],
    /** Events shown: absolute places [lo, hi). */
    private readonly lo: number,
    private readonly hi: number,
    private readonly places: Float64Array,
    private readonly kinds: Uint8Array,
    /** The exchange of absolute place p at byPlace[p - origin]. */
    private readonly byPlace: ReadonlyArray<Exchange | undefined>,
    private readonly origin: number,
    private readonly expanded: ReadonlySet<string>,
    readonly length: number,
  ) {}

  at(i: number): TimelineRow | undefined {
    if (i < 0) i += this.length;
    if (i < 0 || i >= this.length) return undefined;
    const at = this.places[i]!;
    const ev = this.events[at - this.lo]!;
    const kind = KINDS[this.kinds[i]!]!;
    if (kind === 'event') return { ev, kind };
    const exchange = this.byPlace[at - this.origin]!;
    if (kind === 'member') return { ev, kind, exchange };
    // Counted for the rows on screen only.
    let size = 0;
    for (const p of exchange.places) if (p >= this.lo && p < this.hi) size++;
    return { ev, kind, exchange, expanded: this.expanded.has(exchange.key), size };
  }

  indexOf(ev: WireEvent): number {
    for (let k = 0; k < this.length; k++) if (this.events[this.places[k]! - this.lo] === ev) return k;
    return -1;
  }
}

/** What the last fold was made of: the next one goes on from it when only new matches came (a live batch). */
interface LastFold {
  events: readonly WireEvent[];
  evicted: number;
  /** Every indexed event was shown (not paused before some). */
  allShown: boolean;
  expanded: ReadonlySet<string>;
  generation: number;
  matches: number;
  rows: number;
}

export interface ExchangeSource {
  readonly events: readonly WireEvent[];
  readonly end: number;
  readonly evicted: number;
}

/** Which exchange each recorded event belongs to, kept as events arrive, and the fold of a filter's matches into rows. */
export class Exchanges {
  private events: readonly WireEvent[] = [];
  private evicted = 0;
  /** Events indexed, from the front of `events`, and the last of them (if it moved, something was inserted before it). */
  private indexed = 0;
  private lastIndexed: WireEvent | undefined;
  /** The exchange of absolute place p at byPlace[p - origin]. */
  private byPlace: Array<Exchange | undefined> = [];
  private origin = 0;
  private readonly byKey = new Map<string, Exchange>();
  private requestIds: RequestIds;
  private stamp = 0;
  /** Evicted events not yet pruned from the exchanges. */
  private unpruned = 0;
  /** An exchange already indexed got its first request since the last fold: it is shown as another event now. */
  private headMoved = false;
  private last: LastFold | undefined;
  private rowPlaces = new Float64Array(0);
  private rowKinds = new Uint8Array(0);

  constructor(private readonly eventById: (id: string) => WireEvent | undefined) {
    this.requestIds = new RequestIds(eventById);
  }

  /** The exchange `ev` belongs to, once indexed (after `fold` saw it). */
  of(ev: WireEvent): Exchange | undefined {
    const rid = this.requestIds.of(ev);
    return rid !== undefined && foldable(ev) ? this.byKey.get(exchangeKey(ev.client, rid)) : undefined;
  }

  /** Brings the index up to `source`'s events; true when it was built again from nothing. */
  private index(source: ExchangeSource): boolean {
    let rebuilt = false;
    const { events, evicted } = source;
    const gone = evicted - this.evicted;
    const kept = this.indexed - gone;
    if (events !== this.events || gone < 0 || kept < 0 || kept > events.length || (kept > 0 && events[kept - 1] !== this.lastIndexed)) {
      this.events = events;
      this.evicted = evicted;
      this.indexed = 0;
      this.lastIndexed = undefined;
      this.byPlace = [];
      this.origin = evicted;
      this.byKey.clear();
      this.requestIds = new RequestIds(this.eventById);
      this.unpruned = 0;
      rebuilt = true;
    } else if (gone > 0) {
      this.evicted = evicted;
      this.indexed = kept;
      const dead = evicted - this.origin;
      if (dead > 4096 && dead > this.byPlace.length >> 1) {
        this.byPlace = this.byPlace.slice(dead);
        this.origin = evicted;
      }
      if ((this.unpruned += gone) > 4096) this.prune();
    }
    for (let i = this.indexed; i < events.length; i++) {
      const ev = events[i]!;
      let x: Exchange | undefined;
      if (foldable(ev)) {
        const rid = this.requestIds.of(ev);
        if (rid) {
          const key = exchangeKey(ev.client, rid);
          x = this.byKey.get(key);
          if (!x) this.byKey.set(key, (x = { key, client: ev.client, requestId: rid, places: [], head: -1, stamp: 0 }));
          const at = evicted + i;
          x.places.push(at);
          if (x.head < 0 && ev.kind === 'event' && ev.type === 'action:request') {
            x.head = at;
            if (x.places.length > 1) this.headMoved = true;
          }
        }
      }
      this.byPlace[evicted + i - this.origin] = x;
    }
    this.indexed = events.length;
    this.lastIndexed = events.length ? events[events.length - 1] : undefined;
    return rebuilt;
  }

  /** Forgets exchanges all of whose events are evicted, and the evicted places of the others. */
  private prune(): void {
    const evicted = this.evicted;
    for (const [key, x] of this.byKey) {
      if (x.places[x.places.length - 1]! < evicted) this.byKey.delete(key);
      else if (x.places[0]! < evicted) {
        let k = 0;
        while (x.places[k]! < evicted) k++;
        x.places.splice(0, k);
        if (x.head < evicted) x.head = x.places.find((p) => this.events[p - evicted]!.type === 'action:request') ?? -1;
      }
    }
    this.unpruned = 0;
  }

  /**
   * The rows of `matches` (the filter's, over `source`): each exchange once,
   * at its first matching event, shown as its first request event shown;
   * the other events shown of an exchange in `expanded` under its row. When
   * only new matches came since the last fold (a live batch, nothing
   * expanded), it goes on from where that one stopped.
   */
  fold(source: ExchangeSource, matches: Matches, expanded: ReadonlySet<string>): ExchangeRows {
    const rebuilt = this.index(source);
    const { evicted, byPlace } = this;
    const lo = evicted;
    const hi = evicted + Math.min(source.end, source.events.length);
    const n = matches.length;
    const last = this.last;
    const goOn =
      !rebuilt &&
      !this.headMoved &&
      last !== undefined &&
      last.events === source.events &&
      last.evicted === evicted &&
      last.allShown &&
      last.expanded === expanded &&
      expanded.size === 0 &&
      last.generation === matches.generation &&
      last.matches <= n;
    this.headMoved = false;
    let from = 0;
    let m = 0;
    if (goOn) {
      from = last.matches;
      m = last.rows;
      this.room(m + n - from);
    } else {
      this.stamp++;
      let cap = n + 16;
      for (const key of expanded) cap += this.byKey.get(key)?.places.length ?? 0;
      this.rowPlaces = new Float64Array(cap);
      this.rowKinds = new Uint8Array(cap);
    }
    const stamp = this.stamp;
    const origin = this.origin;
    const places = this.rowPlaces;
    const kinds = this.rowKinds;
    const events = source.events;
    const open = expanded.size > 0;
    const { places: matched, start } = matches.placesFrom();
    for (let i = from; i < n; i++) {
      const at = matched[start + i]!;
      const x = byPlace[at - origin];
      if (!x) {
        places[m] = at;
        kinds[m++] = KIND_EVENT;
        continue;
      }
      if (x.stamp === stamp) continue;
      x.stamp = stamp;
      // Shown as its first request event shown: the first recorded, unless evicted or past a pause; else as this first matching event.
      let shownAs = x.head >= lo && x.head < hi ? x.head : -1;
      if (shownAs < 0) {
        for (const p of x.places) {
          if (p < lo || p >= hi) continue;
          const e = events[p - lo]!;
          if (e.kind === 'event' && e.type === 'action:request') {
            shownAs = p;
            break;
          }
        }
        if (shownAs < 0) shownAs = at;
      }
      places[m] = shownAs;
      kinds[m++] = KIND_EXCHANGE;
      if (open && expanded.has(x.key)) {
        for (const p of x.places) {
          if (p < lo || p >= hi || p === shownAs) continue;
          places[m] = p;
          kinds[m++] = KIND_MEMBER;
        }
      }
    }
    this.last = { events, evicted, allShown: hi === evicted + this.indexed, expanded, generation: matches.generation, matches: n, rows: m };
    return new ExchangeRows(events, lo, hi, places, kinds, byPlace, origin, expanded, m);
  }

  /** Room for `n` rows, the rows so far kept (rows handed out keep the arrays they were given). */
  private room(n: number): void {
    if (n <= this.rowPlaces.length) return;
    const places = new Float64Array(2 * n);
    places.set(this.rowPlaces);
    const kinds = new Uint8Array(2 * n);
    kinds.set(this.rowKinds);
    this.rowPlaces = places;
    this.rowKinds = kinds;
  }
}
