/**
 * The Timeline's filter: which events meet the criteria
 * (panel/timeline-criteria.ts), kept up to date at the cost of what changed
 * rather than a pass over 100,000 events per keystroke or live batch. Pure
 * (no DOM): unit tests hold every path to the definition.
 *
 * Paths of an update, each the same as a full pass would give:
 * - full: another event list or model (`epoch`), an event inserted before
 *   ones already tested, a pause before them, or criteria that admit more
 *   (a deleted character);
 * - narrow: criteria that admit nothing the previous ones refused re-test
 *   the previous matches only;
 * - append: events added at the end are tested and their matches appended;
 *   events evicted from the front drop out of the matches;
 * - re-read: criteria that read requests re-read every request some event
 *   belongs to (the model mutates them in place, and learns of them after
 *   the recorder), and re-test only the events of those that changed.
 *
 * Invariants:
 * - Rows (lower-cased head and body, request entry, text signature) are
 *   lined up with the first `aligned` events; an insertion among them drops
 *   them and takes the full path, so no verdict outlives the entry that can
 *   see it go stale.
 * - Matches are absolute places (evicted + index), ascending, in a
 *   Float64Array written only past its last match; narrowing and re-reading
 *   write a new one, so a `Matches` handed out stays valid until the next
 *   update.
 *
 * What each mechanism is worth, typing "req-5000" and deleting it over the
 * bench's 100,000 events (10,000 requests), prepared; Node, the fastest of
 * 10 passes per keystroke, on a 2-core machine at load 12-15:
 * - the text signatures (search-text.ts): all 16 keystrokes 152-318 ms, the
 *   slowest 21-57 ms; without them 441-636 ms, the slowest 70-102 ms;
 * - matches in a Float64Array: writing 100,000 places (the one-character
 *   needle, which every event holds) costs ~1 ms typed, 12-18 ms pushed
 *   onto an array;
 * - idle preparation (`prepare`): the first query on 100,000 unprepared
 *   events takes 1.8-3.3 s (building the bodies), which idle time pays
 *   instead in slices.
 * Left out, as not worth their code: snapshots to widen back to on a deleted
 * character (each deletion is a full pass over prepared rows, 6-36 ms at
 * that load; with snapshots ~0), and skipping the re-read of requests while
 * the model's revision stands still (~1 ms a keystroke at 10,000 requests).
 * In the panel (bench/panel.ts, load ~2): keystrokes typed median 20.5 ms,
 * max 53; deleted median 25 ms, max 45 (with snapshots 17 and 23). At load
 * 12-19 the panel's figures vary more from run to run than any of these
 * differences but the signatures'.
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { sortedIndexOfNumber } from '../src/session/sorted-index.ts';
import { categoryOf, field, surfaceOf } from './display-text.ts';
import { RequestIds } from './event-request.ts';
import { SearchBodies, Signatures, bitsDecide, headBorrows, headOf, holds, needleBits, needleOf, type Needle, type RequestFacts } from './search-text.ts';
import { meetsCriteria, narrows, queryOf, sameQuery, type EventFacts, type Query, type TimelineCriteria } from './timeline-criteria.ts';
import { eventType } from '../src/query/event-facts.ts';

export interface FilterLookup {
  /** The request `requestId` of `client`, as the model currently has it. */
  request(client: string, requestId: string): RequestFacts | undefined;
  /** A recorded event by id (an ack's target). */
  event(id: string): WireEvent | undefined;
  /** The names a `client:` term may match (key, kind, label); the key alone when not given. */
  clientNames?(client: string): readonly string[];
  /** Ids of the events some finding names. */
  findingEvents?(): ReadonlySet<string>;
  /** The user's own experiment (an injected or replayed request, or what answers it). */
  isExperiment?(eventId: string): boolean;
  /** Changes whenever what the model concludes of events may have (its revision): verdicts of `has:` and `is:experiment` are re-made then. */
  modelMark?(): unknown;
}

export interface FilterSource {
  /** Newest last. Appended to, evicted from the front, and rarely inserted into. */
  readonly events: readonly WireEvent[];
  /** How many of `events` are shown (fewer while paused). */
  readonly end: number;
  /** Events dropped from the front of `events` since it was created. */
  readonly evicted: number;
}

/** How the last update was done, for tests and the bench. */
export type UpdateMode = 'full' | 'narrow' | 'append' | 'none';

/**
 * A request some events belong to, with copies of what was last read of it:
 * the model mutates its request states in place, so only copies show that
 * one changed.
 */
interface Entry {
  readonly client: string;
  readonly requestId: string;
  seen: RequestFacts | undefined;
  status: string | undefined;
  surfaceId: string | undefined;
  actionId: string | undefined;
  durationMs: number | undefined;
  /** Absolute places of its lined-up events, ascending. */
  readonly places: number[];
}

/** The matching events, read by index through the source's events; valid until the filter's next update. */
export class Matches {
  constructor(
    private readonly events: readonly WireEvent[],
    private readonly evicted: number,
    private readonly places: Float64Array,
    private readonly start: number,
    readonly length: number,
    /** Changes whenever the matches are not the previous ones with more at the end (panel/exchanges.ts goes on from them when it stands). */
    readonly generation = 0,
  ) {}

  at(i: number): WireEvent | undefined {
    if (i < 0) i += this.length;
    return i >= 0 && i < this.length ? this.events[this.places[this.start + i]! - this.evicted] : undefined;
  }

  /** The absolute place (evicted + index in the events) of match `i`, 0 <= i < length. */
  placeAt(i: number): number {
    return this.places[this.start + i]!;
  }

  /** The absolute places of the matches, as one array read from `start` (for a pass over all of them). */
  placesFrom(): { places: Float64Array; start: number } {
    return { places: this.places, start: this.start };
  }

  /** Where `ev` is among the matches, or -1. */
  indexOf(ev: WireEvent): number {
    for (let k = 0; k < this.length; k++) if (this.events[this.places[this.start + k]! - this.evicted] === ev) return k;
    return -1;
  }

  toArray(): WireEvent[] {
    const out: WireEvent[] = new Array(this.length);
    for (let k = 0; k < this.length; k++) out[k] = this.events[this.places[this.start + k]! - this.evicted]!;
    return out;
  }
}

export class TimelineFilter {
  private events: readonly WireEvent[] = [];
  private epoch: unknown;
  private query: Query | undefined;
  private evicted = 0;
  /** How many of `events` have been tested, and the last of them: if it moved, something was inserted before it. */
  private tested = 0;
  private lastTested: WireEvent | undefined;
  /** Absolute places of the matches: places[from..to). */
  private places = new Float64Array(0);
  private from = 0;
  private to = 0;
  /** Rows lined up with events[0..aligned). */
  private heads: string[] = [];
  private bodies: string[] = [];
  private entries: Array<Entry | undefined> = [];
  private aligned = 0;
  private lastAligned: WireEvent | undefined;
  /** Requests by client and id, and in one array to read them all. */
  private readonly index = new Map<string, Map<string, Entry>>();
  private entryList: Entry[] = [];
  /** Rows evicted since entries were last pruned of them. */
  private unpruned = 0;

  private readonly requestIds: RequestIds;
  private readonly searchBodies = new SearchBodies();
  private readonly signatures = new Signatures();
  /** The needle last searched for, with the signature bits a row must have to hold it. */
  private lastNeedle = this.needleFor('');
  private needles = new Map<string, { text: string; needle: Needle; bits: Int32Array; decided: boolean }>();
  /** The model's mark when the verdicts were made, for terms that read what it concludes. */
  private mark: unknown;
  private findingIds: ReadonlySet<string> | undefined;
  private readonly noNames = new Map<string, readonly string[]>();
  /** Absolute place up to which `prepare` has built bodies, in `prepareEvents`. */
  private prepareAt = 0;
  private prepareEvents: readonly WireEvent[] | undefined;
  /** Row i of the lined-up events, as the criteria read it: requests as last read, text as lined up. */
  private readonly facts: EventFacts<number> = {
    client: (i) => this.events[i]!.client,
    category: (i) => categoryOf(this.events[i]!),
    isAppTraffic: (i) => this.events[i]!.kind === 'other' && !this.events[i]!.note,
    surface: (i) => surfaceOf(this.events[i]!) ?? this.entries[i]?.surfaceId ?? '',
    action: (i) => field(this.events[i]!, 'actionId') ?? this.entries[i]?.actionId ?? '',
    status: (i) => this.entries[i]?.status,
    type: (i) => eventType(this.events[i]!),
    clientNames: (i) => {
      const key = this.events[i]!.client;
      if (this.lookup.clientNames) return this.lookup.clientNames(key);
      let names = this.noNames.get(key);
      if (!names) this.noNames.set(key, (names = [key]));
      return names;
    },
    dir: (i) => this.events[i]!.dir,
    durationMs: (i) => this.entries[i]?.durationMs,
    size: (i) => this.events[i]!.size,
    hasFinding: (i) => (this.findingIds ??= this.lookup.findingEvents?.() ?? new Set()).has(this.events[i]!.id),
    is: (i, flag) => {
      const ev = this.events[i]!;
      switch (flag) {
        case 'experiment':
          return ev.injected === true || this.lookup.isExperiment?.(ev.id) === true;
        case 'faulted':
          return ev.faulted !== undefined;
        case 'injected':
          return ev.injected === true;
        case 'held':
          return ev.held === true;
      }
    },
    holds: (i, needle) => {
      let n = this.lastNeedle.text === needle ? this.lastNeedle : this.needles.get(needle);
      if (n) this.lastNeedle = n;
      else {
        // A query has a few needles; a long session of typing leaves many behind.
        if (this.needles.size > 32) this.needles.clear();
        this.needles.set(needle, (n = this.lastNeedle = this.needleFor(needle)));
      }
      if (!this.signatures.mayHold(i, n.bits)) return false;
      return n.decided || holds(this.heads[i]!, this.bodies[i]!, n.needle);
    },
    text: (i) => this.heads[i]! + this.bodies[i]!,
  };
  /** How the last update went. */
  mode: UpdateMode = 'none';
  /** Bumped by every update that does more than add matches at the end (a full pass, narrowing, a re-test, an eviction). */
  generation = 0;
  /** Events tested by the last update. */
  testedLast = 0;
  /** Events tested by every update so far (the bench reads what a live batch cost from it). */
  testedTotal = 0;

  /** `chunk`: events prepared between two looks at the idle deadline. */
  constructor(
    private readonly lookup: FilterLookup,
    private readonly chunk = 256,
  ) {
    this.requestIds = new RequestIds((id) => lookup.event(id));
  }

  /**
   * The matching events of `source` under `criteria`, in order. `epoch`
   * names the model requests are read from: another one re-tests everything.
   */
  update(source: FilterSource, criteria: TimelineCriteria, epoch: unknown): Matches {
    const next = queryOf(criteria);
    const end = Math.min(source.end, source.events.length);
    this.testedLast = 0;
    const rowsKept = this.keepAligned(source);
    const prev = this.query;
    // What the model concludes of events already tested may have changed: verdicts that read it are made again.
    const mark = this.lookup.modelMark?.();
    const marked = mark !== this.mark;
    this.mark = mark;
    if (marked) this.findingIds = undefined;
    if (!rowsKept || !prev || epoch !== this.epoch || !this.follows(source, end) || (marked && (prev.readsModel || next.readsModel))) this.full(source, end, next, epoch);
    else {
      this.dropEvicted(source.evicted);
      this.mode = 'none';
      // Requests first: what changed is tested again under the criteria its verdicts were made with.
      if (prev.readsRequest || next.readsRequest) {
        const stale = this.reread();
        if (stale.length && prev.readsRequest) this.retest(stale, prev);
      }
      if (!sameQuery(prev, next)) {
        if (narrows(prev, next)) this.narrow(next);
        else this.full(source, end, next, epoch);
      } else this.query = next;
      if (end > this.tested) {
        this.append(end, next);
        if (this.mode === 'none') this.mode = 'append';
      }
    }
    this.testedTotal += this.testedLast;
    return new Matches(this.events, this.evicted, this.places, this.from, this.to - this.from, this.generation);
  }

  private needleFor(text: string) {
    return { text, needle: needleOf(text), bits: needleBits(text), decided: bitsDecide(text) };
  }

  /** The request an event belongs to, as this filter found it. */
  requestIdOf(ev: WireEvent): string | undefined {
    return this.requestIds.of(ev);
  }

  /** Whether the searchable body of `ev` has been built. */
  prepared(ev: WireEvent): boolean {
    return this.searchBodies.has(ev);
  }

  /**
   * Builds the searchable bodies of events that have none yet, lines up the
   * rows of what the last update tested, and while no criterion reads
   * requests reads them again (the model learns of requests after the
   * recorder, so after a live stream thousands have changed since their rows
   * were lined up), all while `deadline` leaves time (an IdleDeadline), so
   * the first keystroke finds them ready. True while some remain.
   */
  prepare(source: Pick<FilterSource, 'events' | 'evicted'>, deadline: { timeRemaining(): number }): boolean {
    const { events, evicted } = source;
    // Where it stopped, as an absolute place: a full live list evicts as it appends and keeps its length.
    if (events !== this.prepareEvents || this.prepareAt - evicted > events.length) {
      this.prepareEvents = events;
      this.prepareAt = evicted;
    }
    while (this.prepareAt - evicted < events.length) {
      const from = Math.max(0, this.prepareAt - evicted);
      const stop = Math.min(events.length, from + this.chunk);
      for (let i = from; i < stop; i++) this.searchBodies.of(events[i]!);
      this.prepareAt = evicted + stop;
      if (deadline.timeRemaining() <= 1) return true;
    }
    // Rows only for the source as the last update left it: evictions and insertions since are the next update's to see.
    if (events !== this.events || evicted !== this.evicted || !this.rowsFollow(events, 0)) return false;
    while (this.aligned < this.tested) {
      this.align(Math.min(this.tested, this.aligned + this.chunk));
      if (deadline.timeRemaining() <= 1) return this.aligned < this.tested;
    }
    // No verdict reads requests, so none goes stale: only the rows are brought up to date.
    if (this.query && !this.query.readsRequest && this.entryList.length) this.reread();
    return false;
  }

  /** The tested prefix is still `events`' prefix (less `gone` evicted since). */
  private rowsFollow(events: readonly WireEvent[], gone: number): boolean {
    const kept = this.tested - gone;
    return kept >= 0 && kept <= events.length && (kept === 0 || events[kept - 1] === this.lastTested);
  }

  /** Drops the rows of evicted events; false (and no rows kept) when the rows no longer start `source.events`. */
  private keepAligned(source: FilterSource): boolean {
    const gone = source.evicted - this.evicted;
    const kept = this.aligned - Math.max(0, gone);
    if (source.events === this.events && gone >= 0 && kept >= 0 && kept <= source.events.length && (kept === 0 || source.events[kept - 1] === this.lastAligned)) {
      if (gone > 0 && this.aligned) {
        const cut = Math.min(gone, this.aligned);
        this.heads.splice(0, cut);
        this.bodies.splice(0, cut);
        this.entries.splice(0, cut);
        this.signatures.dropFront(cut);
        this.aligned -= cut;
        // Bounded however long a live session runs with no criterion that re-reads (and prunes) requests.
        if ((this.unpruned += cut) > 4096) this.prune(source.evicted);
      }
      return true;
    }
    const had = this.aligned > 0;
    this.heads = [];
    this.bodies = [];
    this.entries = [];
    this.signatures.clear();
    this.aligned = 0;
    this.lastAligned = undefined;
    this.index.clear();
    this.entryList = [];
    return !had;
  }

  /** The source still starts with what was tested, less evictions from the front, and shows all of it. */
  private follows(source: FilterSource, end: number): boolean {
    const gone = source.evicted - this.evicted;
    return source.events === this.events && gone >= 0 && end >= this.tested - gone && this.rowsFollow(source.events, gone);
  }

  private full(source: FilterSource, end: number, q: Query, epoch: unknown): void {
    this.events = source.events;
    this.evicted = source.evicted;
    this.epoch = epoch;
    this.query = q;
    this.tested = 0;
    this.lastTested = undefined;
    this.places = new Float64Array(Math.max(1024, end));
    this.from = 0;
    this.to = 0;
    this.generation++;
    // The rows stay; what was read of requests may be stale.
    if (q.readsRequest) this.reread();
    this.append(end, q);
    this.mode = 'full';
  }

  private dropEvicted(evicted: number): void {
    const gone = evicted - this.evicted;
    if (gone <= 0) return;
    this.generation++;
    this.tested -= gone;
    this.evicted = evicted;
    this.from = sortedIndexOfNumber(this.places, evicted, this.from, this.to);
  }

  private append(end: number, q: Query): void {
    if (q.readsRequest && end > this.aligned) this.align(end);
    // Room for every new event; when short, the matches move to an array twice their size (dropped places are left behind).
    if (this.to + (end - this.tested) > this.places.length) {
      const grown = new Float64Array(Math.max(1024, 2 * (this.to - this.from + end - this.tested)));
      grown.set(this.places.subarray(this.from, this.to));
      this.to -= this.from;
      this.from = 0;
      this.places = grown;
    }
    const { places, evicted, facts } = this;
    let n = this.to;
    for (let i = this.tested; i < end; i++) if (meetsCriteria(i, q, facts)) places[n++] = evicted + i;
    this.to = n;
    this.testedLast += end - this.tested;
    this.tested = end;
    this.lastTested = end ? this.events[end - 1] : undefined;
  }

  /** Tests the current matches only, under criteria that admit nothing the previous ones refused. */
  private narrow(q: Query): void {
    if (q.readsRequest && this.tested > this.aligned) this.align(this.tested);
    const { places, from, to, evicted, facts } = this;
    const out = new Float64Array(Math.max(64, to - from));
    let n = 0;
    for (let k = from; k < to; k++) {
      const at = places[k]!;
      if (meetsCriteria(at - evicted, q, facts)) out[n++] = at;
    }
    this.testedLast += to - from;
    // A much smaller result gets an array of its size.
    this.places = n < out.length >> 2 ? out.slice(0, Math.max(64, 2 * n)) : out;
    this.from = 0;
    this.to = n;
    this.query = q;
    this.mode = 'narrow';
    this.generation++;
  }

  /** Lines up the rows of events up to `to`, reading the request of each once. */
  private align(to: number): void {
    const { events, lookup, evicted } = this;
    for (let i = this.aligned; i < to; i++) {
      const ev = events[i]!;
      const rid = this.requestIds.of(ev);
      let entry: Entry | undefined;
      if (rid !== undefined) {
        let byId = this.index.get(ev.client);
        if (!byId) this.index.set(ev.client, (byId = new Map()));
        entry = byId.get(rid);
        if (!entry) {
          const req = lookup.request(ev.client, rid);
          entry = { client: ev.client, requestId: rid, seen: req, status: req?.status, surfaceId: req?.surfaceId, actionId: req?.actionId, durationMs: req?.durationMs, places: [] };
          byId.set(rid, entry);
          this.entryList.push(entry);
        }
        entry.places.push(evicted + i);
      }
      const head = headOf(ev, entry?.seen);
      const body = this.searchBodies.of(ev);
      this.heads.push(head);
      this.bodies.push(body);
      this.entries.push(entry);
      this.signatures.sign(i, head, body);
    }
    if (to > this.aligned) {
      this.aligned = to;
      this.lastAligned = events[to - 1];
    }
  }

  /**
   * Reads every request some lined-up event belongs to again, and rebuilds
   * the heads that borrow from one that changed. Returns the places of the
   * events whose request changed.
   */
  private reread(): number[] {
    const stale: number[] = [];
    const { lookup, evicted } = this;
    this.prune(evicted);
    for (const e of this.entryList) {
      const places = e.places;
      const req = lookup.request(e.client, e.requestId);
      if (req === e.seen && req?.status === e.status && req?.surfaceId === e.surfaceId && req?.actionId === e.actionId && req?.durationMs === e.durationMs) continue;
      const headsMove = req?.surfaceId !== e.surfaceId || req?.actionId !== e.actionId;
      e.seen = req;
      e.status = req?.status;
      e.surfaceId = req?.surfaceId;
      e.actionId = req?.actionId;
      e.durationMs = req?.durationMs;
      for (const at of places) {
        const i = at - evicted;
        if (headsMove && headBorrows(this.events[i]!)) {
          this.heads[i] = headOf(this.events[i]!, req);
          this.signatures.sign(i, this.heads[i]!, this.bodies[i]!);
        }
        stale.push(at);
      }
    }
    return stale;
  }

  /** Forgets the places of evicted events, and the requests left with none. */
  private prune(evicted: number): void {
    const list = this.entryList;
    let kept = 0;
    for (let k = 0; k < list.length; k++) {
      const e = list[k]!;
      const places = e.places;
      if (places[places.length - 1]! < evicted) {
        this.index.get(e.client)?.delete(e.requestId);
        continue;
      }
      list[kept++] = e;
      if (places[0]! < evicted) places.splice(0, sortedIndexOfNumber(places, evicted));
    }
    list.length = kept;
    this.unpruned = 0;
  }

  /** Tests the tested events at `stale` (absolute places, any order, repeats allowed) again under `q`, and merges the verdicts into the matches. */
  private retest(stale: number[], q: Query): void {
    stale.sort((a, b) => a - b);
    const { places, from, to, evicted, facts } = this;
    const add: number[] = [];
    const remove = new Set<number>();
    for (let k = 0; k < stale.length; k++) {
      const at = stale[k]!;
      if ((k && stale[k - 1] === at) || at < evicted || at - evicted >= this.tested) continue;
      this.testedLast++;
      const now = meetsCriteria(at - evicted, q, facts);
      const p = sortedIndexOfNumber(places, at, from, to);
      const was = p < to && places[p] === at;
      if (now && !was) add.push(at);
      else if (!now && was) remove.add(at);
    }
    if (!add.length && !remove.size) return;
    // One merge however many changed: a burst of answers settles many requests at once.
    const out = new Float64Array(Math.max(1024, 2 * (to - from + add.length)));
    let n = 0;
    let a = 0;
    for (let k = from; k < to; k++) {
      const at = places[k]!;
      while (a < add.length && add[a]! < at) out[n++] = add[a++]!;
      if (!remove.has(at)) out[n++] = at;
    }
    while (a < add.length) out[n++] = add[a++]!;
    this.places = out;
    this.from = 0;
    this.to = n;
    this.generation++;
    this.mode = 'append';
  }
}
