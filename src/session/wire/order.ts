/**
 * The canonical order of wire events: the one order the Timeline shows (the
 * recorder's list), the model is fed in (ModelFeed), and the CLI lints in.
 * Every list of events in that order is kept by `insertPlaced` over events
 * placed by one `SourceClocks`, so two lists that took the same events in the
 * same arrival order hold them in the same order.
 *
 * A source is one hook client's stream (`${hook}/${client}`, the wire event
 * id without its sequence number, as `parseEventId` reads it). Each source
 * reaches us in its own order, but sources race each other: a request
 * captured in an iframe and its answer captured in the host travel in
 * separate batches, in either order, stamped by clocks that may disagree.
 *
 * The order is a merge by capture time with a deterministic tie-break
 * (source, then place in the source), where a source's time never goes
 * backwards (its running maximum). It is a function of the set of per-source
 * streams, and it keeps each source's own order.
 */
import { inSource, parseEventId } from '../../capture/contract.ts';
import { sortedIndex } from '../sorted-index.ts';
import type { WireEvent } from './wire.ts';

/**
 * Events a list in canonical order keeps by default: the recorder's (what
 * the Timeline shows) and the feed's (what a rebuild replays) hold the same
 * events, so they share one bound unless told otherwise.
 */
export const MAX_EVENTS = 100_000;

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

const notAfter = (e: Placed, p: Placed): boolean => comparePlaced(e, p) <= 0;

/**
 * Puts `p` in `list` (kept in canonical order) after everything that does not
 * sort after it, and returns where. Input is nearly always in order: then it
 * is one comparison and a push.
 */
export function insertPlaced(list: Placed[], p: Placed): number {
  const n = list.length;
  if (!n || comparePlaced(list[n - 1]!, p) <= 0) {
    list.push(p);
    return n;
  }
  const at = sortedIndex(list, p, notAfter, 0, n - 1);
  insertAt(list, at, p);
  return at;
}

/**
 * `list.splice(at, 0, v)`. A late event nearly always goes a batch from the
 * end at most, and moving those few elements by hand is far cheaper than
 * V8's splice of a long list, which costs about as much wherever it inserts.
 */
export function insertAt<T>(list: T[], at: number, v: T): void {
  const n = list.length;
  if (n - at > 256) {
    list.splice(at, 0, v);
    return;
  }
  list.push(v);
  for (let i = n; i > at; i--) list[i] = list[i - 1]!;
  list[at] = v;
}

/** The source and hook of an event; an id `eventId` did not make (an imported file's) is a stream per client. */
export function sourceOf(ev: WireEvent): { src: string; hook: string } {
  const parts = typeof ev.id === 'string' ? parseEventId(ev.id) : undefined;
  if (parts) return { src: parts.source, hook: parts.hook };
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
    if (last !== undefined && last.fromId && inSource(id, last.src)) {
      clock = last;
    } else {
      const { src, hook } = sourceOf(ev);
      let found = this.sources.get(src);
      if (!found) this.sources.set(src, (found = { src, hook, fromId: src !== hook, t: -Infinity, n: -1 }));
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
  /** src was read from an event id (not the `client:` stream of ids of another shape). */
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
