/**
 * The Timeline's filter, kept apart from the view: pure (no DOM), so Node
 * tests can hold it to the plain definition in `matchesTimeline`, and
 * incremental, so a keystroke or a live batch at 100,000 events costs what
 * changed rather than a pass that serialises every payload again.
 *
 * - The text the free-text filter looks in is built and lower-cased once per
 *   event and cached by event (`searchText`); building it (JSON of the
 *   payload) is what made each keystroke cost hundreds of ms.
 * - A query that can only narrow the previous one (its text contains the old
 *   text, a filter was added) re-tests the previous matches only.
 * - Events appended to the list since the last update are tested and their
 *   matches appended; evicted events are dropped from the front.
 * - Verdicts that read a request (its status; its surface and action for
 *   results and acks, which do not carry them) go stale when the request
 *   changes after the fact, or when the model first learns of it (it lags
 *   the recorder by its reorder window). Each such request is remembered
 *   with what was read from it; an update re-reads those requests and
 *   re-tests only the events of the ones that changed.
 * - A query that widens back to one it narrowed from (a deleted character)
 *   takes up that query's matches again, kept when it narrowed, and tests
 *   only the events that came since: valid while no request a verdict read
 *   has changed, no event was inserted and the model is the same.
 * - Anything else (events inserted before ones already tested, a replaced
 *   model, another broadened query) tests everything again, over the cached
 *   text.
 * - Each pass skips, by a signature of each text (text-mask.ts), the texts
 *   that cannot hold the needle: most of them, for the needle most events
 *   lack, which is the costly keystroke.
 * - Requests are read again only when the model's revision moved, and in idle
 *   time while no criterion reads them, so a keystroke after a live stream
 *   does not find thousands of them changed at once.
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { categoryOf, field, short, surfaceOf, typeLabel, type Category } from './format.ts';
import { MASK_WORDS, addText, mayHold, needleBits, signatureDecides } from './text-mask.ts';

/** What the filter reads of a request; the model's RequestState has it. */
export interface RequestFacts {
  readonly status: string;
  readonly surfaceId: string;
  readonly actionId: string;
}

export interface TimelineCriteria {
  /** Client key; '' for every client. */
  client: string;
  /** '' shows every category but application traffic ('other' without a note). */
  category: Category | '';
  /** Substrings, case-sensitive, of the event's (or its request's) surface and action. */
  surface: string;
  action: string;
  /** The request's status, exactly; '' for any. */
  status: string;
  /** Free text, case-insensitive. */
  text: string;
}

export const NO_CRITERIA: TimelineCriteria = { client: '', category: '', surface: '', action: '', status: '', text: '' };

export interface FilterLookup {
  /** The request `requestId` of `client`, as the model currently has it. */
  request(client: string, requestId: string): RequestFacts | undefined;
  /** A recorded event by id (an ack's target). */
  event(id: string): WireEvent | undefined;
  /** Equal between two calls (for the same epoch) when no request can have changed; absent, requests are always read again. */
  revision?(): number;
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
export type UpdateMode = 'full' | 'narrow' | 'widen' | 'append' | 'none';

/** An ack's request, once found: it stays the same when the acknowledged event is evicted. */
const ackRequests = new WeakMap<WireEvent, string>();

/** The request an event belongs to: its own id, or for an ack the id of the event it acknowledges. */
export function requestIdOf(ev: WireEvent, lookup: Pick<FilterLookup, 'event'>): string | undefined {
  const id = field(ev, 'requestId');
  if (id || ev.kind !== 'ack' || !ev.ackOf) return id || undefined;
  const known = ackRequests.get(ev);
  if (known !== undefined) return known || undefined;
  const target = lookup.event(ev.ackOf);
  if (!target) return undefined;
  const found = field(target, 'requestId') ?? '';
  ackRequests.set(ev, found);
  return found || undefined;
}

/** "surface › action" as the Timeline shows it; results and acks borrow both from their request. */
export function targetOf(ev: WireEvent, req: RequestFacts | undefined): string {
  const isRequest = ev.type === 'action:request';
  return [surfaceOf(ev) ?? req?.surfaceId, field(ev, 'actionId') ?? field(ev, 'observationId') ?? (isRequest ? '' : req?.actionId)].filter(Boolean).join(' › ');
}

function headOf(ev: WireEvent, target: string): string {
  return `${typeLabel(ev)} ${target} `;
}

function bodyOf(ev: WireEvent): string {
  return `${ev.raw ?? short(ev.payload, 2000)} ${ev.note ?? ''}`;
}

/**
 * The definition the incremental filter must agree with: one event, every
 * criterion, nothing cached. Tests compare against it.
 */
export function matchesTimeline(ev: WireEvent, c: TimelineCriteria, lookup: FilterLookup): boolean {
  if (c.client && ev.client !== c.client) return false;
  // Application traffic on the same socket is hidden unless asked for; frames the capture had to cut are not.
  if (c.category ? categoryOf(ev) !== c.category : ev.kind === 'other' && !ev.note) return false;
  const rid = c.surface || c.action || c.status || c.text ? requestIdOf(ev, lookup) : undefined;
  const req = rid ? lookup.request(ev.client, rid) : undefined;
  if (c.surface && !(surfaceOf(ev) ?? req?.surfaceId ?? '').includes(c.surface)) return false;
  if (c.action && !(field(ev, 'actionId') ?? req?.actionId ?? '').includes(c.action)) return false;
  if (c.status && req?.status !== c.status) return false;
  if (c.text && !`${headOf(ev, targetOf(ev, req))}${bodyOf(ev)}`.toLowerCase().includes(c.text.toLowerCase())) return false;
  return true;
}

/**
 * What the free text is searched in, per event, built once: the lower-cased
 * head (type and target, which ends in a space) and body (raw frame or
 * payload, note). Kept apart so that a head borrowed from a request is
 * rebuilt alone, and the body, mostly ASCII, is searched as a one-byte
 * string (twice as fast as one joined to a head with "›" in it). Lower-casing
 * the two apart is lower-casing them joined: the space between them is no
 * context any mapping reads across (final sigma stops at it).
 */
interface Prepared {
  head: string;
  body: string;
  /** The request the event belongs to when it was built. */
  rid: string | undefined;
  /** The head names the request's surface or action (results, acks). */
  borrows: boolean;
  /** What a borrowed head was built with. */
  surfaceId: string | undefined;
  actionId: string | undefined;
}

const prepared = new WeakMap<WireEvent, Prepared>();

/** Whether the free text of `ev` reads its request's surface or action. */
function textBorrows(ev: WireEvent): boolean {
  return surfaceOf(ev) === undefined || (field(ev, 'actionId') === undefined && field(ev, 'observationId') === undefined && ev.type !== 'action:request');
}

function prepare(ev: WireEvent, rid: string | undefined, req: RequestFacts | undefined): Prepared {
  const borrows = rid !== undefined && textBorrows(ev);
  const p: Prepared = {
    head: headOf(ev, targetOf(ev, borrows ? req : undefined)).toLowerCase(),
    body: bodyOf(ev).toLowerCase(),
    rid,
    borrows,
    surfaceId: borrows ? req?.surfaceId : undefined,
    actionId: borrows ? req?.actionId : undefined,
  };
  prepared.set(ev, p);
  return p;
}

/** The head of `ev` for request `req`: the one built, or built again if it borrowed other facts. */
function headFor(ev: WireEvent, p: Prepared, req: RequestFacts | undefined): string {
  if (!p.borrows || (req?.surfaceId === p.surfaceId && req?.actionId === p.actionId)) return p.head;
  p.surfaceId = req?.surfaceId;
  p.actionId = req?.actionId;
  p.head = headOf(ev, targetOf(ev, req)).toLowerCase();
  return p.head;
}

/** The prepared text of `ev`, built when missing or made for another request (an ack whose target came later). */
function preparedOf(ev: WireEvent, rid: string | undefined, requestOf: (rid: string) => RequestFacts | undefined): Prepared {
  const p = prepared.get(ev);
  if (p && p.rid === rid) return p;
  return prepare(ev, rid, rid === undefined ? undefined : requestOf(rid));
}

/**
 * The lower-cased text the free-text filter searches: type, target, raw frame
 * (or payload, cut at 2,000 characters), note. Cached; a target borrowed from
 * the request is rebuilt when it is no longer the same.
 */
export function searchText(ev: WireEvent, req: RequestFacts | undefined, lookup: Pick<FilterLookup, 'event'>): string {
  const rid = requestIdOf(ev, lookup);
  const p = preparedOf(ev, rid, () => req);
  return headFor(ev, p, req) + p.body;
}

/** Whether `searchText` has been built for `ev`. */
export function hasSearchText(ev: WireEvent): boolean {
  return prepared.has(ev);
}

interface Normal extends TimelineCriteria {
  needle: string;
  /** Ways the needle can run from the end of a head (which ends in a space) into the body: [head's end, body's start]. */
  splits: Array<[string, string]>;
  /** The bits an event's signature must have for its text to hold the needle (text-mask.ts); undefined for none. */
  bits: Int32Array | undefined;
  /** Those bits alone say whether a text holds the needle: no text is searched. */
  decided: boolean;
  /** Some criterion reads the event's request. */
  readsRequest: boolean;
}

function normal(c: TimelineCriteria): Normal {
  const needle = c.text.toLowerCase();
  const splits: Array<[string, string]> = [];
  for (let k = 1; k < needle.length; k++) if (needle[k - 1] === ' ') splits.push([needle.slice(0, k), needle.slice(k)]);
  return { ...c, needle, splits, bits: needleBits(needle), decided: signatureDecides(needle), readsRequest: !!(c.surface || c.action || c.status || c.text) };
}

function same(a: Normal, b: Normal): boolean {
  return a.client === b.client && a.category === b.category && a.surface === b.surface && a.action === b.action && a.status === b.status && a.needle === b.needle && a.text === b.text;
}

/** The same but for the free text. */
function sameButText(a: Normal, b: Normal): boolean {
  return a.client === b.client && a.category === b.category && a.surface === b.surface && a.action === b.action && a.status === b.status;
}

/** Every event `next` admits, `prev` admits too, whatever the requests say. */
function narrows(prev: Normal, next: Normal): boolean {
  return (
    (!prev.client || prev.client === next.client) &&
    // The default hides 'other' without a note; the 'other' category shows it.
    (prev.category === next.category || (!prev.category && next.category !== 'other')) &&
    next.surface.includes(prev.surface) &&
    next.action.includes(prev.action) &&
    (!prev.status || prev.status === next.status) &&
    next.needle.includes(prev.needle)
  );
}

/**
 * A request some events belong to, with what was last read of it; found
 * once per event (when its text is lined up), not per pass.
 */
interface Entry {
  client: string;
  requestId: string;
  seen: RequestFacts | undefined;
  status: string | undefined;
  surfaceId: string | undefined;
  actionId: string | undefined;
  /** Absolute places (evicted + index) of its events, ascending. */
  places: number[];
  /** `clock` when what was read of it last changed. */
  stamp: number;
}

/** The matches of a query the filter narrowed from, to take up again when the query widens back. */
interface Snapshot {
  criteria: Normal;
  /** Its matches: buf[start..end), never written after it is taken. */
  buf: Float64Array;
  start: number;
  end: number;
  /** Absolute place (evicted + index) up to which it was tested, and the last event tested. */
  testedTo: number;
  lastTested: WireEvent | undefined;
  events: readonly WireEvent[];
  epoch: unknown;
  /** `passes` when it was taken: a full pass since makes it stale. */
  passes: number;
  /** `clock` when it was taken: requests that changed since are tested again. */
  clock: number;
}

/** Queries kept to widen back to: as many characters as one deletes in a row, about. */
const MAX_SNAPSHOTS = 24;

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The matching events: their absolute places (evicted + index) in a typed
 * array, read through the source's events. No array of 100,000 events is
 * built per keystroke (building one, and collecting it, cost more than the
 * search). Valid until the filter's next update.
 */
export class Matches {
  constructor(
    private readonly events: readonly WireEvent[],
    private readonly evicted: number,
    private readonly buf: Float64Array,
    private readonly start: number,
    readonly length: number,
  ) {}

  at(i: number): WireEvent | undefined {
    if (i < 0) i += this.length;
    return i >= 0 && i < this.length ? this.events[this.buf[this.start + i]! - this.evicted] : undefined;
  }

  /** Where `ev` is among the matches, or -1. */
  indexOf(ev: WireEvent): number {
    const { events, evicted, buf, start } = this;
    for (let k = 0; k < this.length; k++) if (events[buf[start + k]! - evicted] === ev) return k;
    return -1;
  }

  toArray(): WireEvent[] {
    const out: WireEvent[] = new Array(this.length);
    for (let k = 0; k < this.length; k++) out[k] = this.events[this.buf[this.start + k]! - this.evicted]!;
    return out;
  }
}

const EMPTY = new Float64Array(0);

/** The first k in [lo, hi) with xs[k] >= x. */
function lowerBoundIn(xs: Float64Array, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class TimelineFilter {
  private events: readonly WireEvent[] | undefined;
  private epoch: unknown;
  private criteria: Normal | undefined;
  /** How many events of `events` have been tested. */
  private tested = 0;
  private evicted = 0;
  /** The last event tested: if it is no longer where it was, something was inserted before it. */
  private lastTested: WireEvent | undefined;
  /** Absolute place of each match, ascending: buf[start..end). Appended to in place; a narrowing writes a new one. */
  private buf: Float64Array = EMPTY;
  private start = 0;
  private end = 0;
  /**
   * Lined up with `events` (index i), for its first `aligned` events: the
   * head and body searched, and the request each belongs to. The hot loops
   * index these instead of hashing events.
   */
  private heads: string[] = [];
  private bodies: string[] = [];
  private entries: Array<Entry | undefined> = [];
  /**
   * The signature of each lined-up event's text (text-mask.ts), head and body
   * as the needle may run across them: index i's is at row maskBase + i,
   * MASK_WORDS words a row.
   */
  private masks = new Uint32Array(0);
  private maskBase = 0;
  private aligned = 0;
  private lastAligned: WireEvent | undefined;
  /** Requests by client and id, and in one array to read them all. */
  private index = new Map<string, Map<string, Entry>>();
  private entryList: Entry[] = [];
  /** Counts changes found in requests. */
  private clock = 0;
  /** Counts full passes: what makes a snapshot stale. */
  private passes = 0;
  /** What the last poll read requests at. */
  private polled: { revision: number | undefined; epoch: unknown } = { revision: undefined, epoch: undefined };
  /** Absolute place (evicted + index) up to which `prepare` has built text. */
  private prepareAt = 0;
  private prepareEvents: readonly WireEvent[] | undefined;
  /** Queries narrowed from, newest last. */
  private snapshots: Snapshot[] = [];
  /** How the last update went. */
  mode: UpdateMode = 'none';
  /** Events tested by the last update. */
  testedLast = 0;
  /** Events tested by every update so far (the bench reads what a live batch cost from it). */
  testedTotal = 0;

  constructor(private readonly lookup: FilterLookup) {}

  /**
   * The matching events of `source` under `criteria`, in order. `epoch`
   * names the model requests are read from: another one re-tests everything.
   * The array is the filter's own and changes with the next update.
   */
  update(source: FilterSource, criteria: TimelineCriteria, epoch: unknown): Matches {
    const matches = this.run(source, criteria, epoch);
    this.testedTotal += this.testedLast;
    return matches;
  }

  private run(source: FilterSource, criteria: TimelineCriteria, epoch: unknown): Matches {
    const next = normal(criteria);
    const end = Math.min(source.end, source.events.length);
    this.testedLast = 0;
    this.keepAligned(source);
    if (!this.follows(source, end) || !this.criteria || epoch !== this.epoch) return this.full(source, end, next, epoch);
    this.dropEvicted(source.evicted);
    const prev = this.criteria;
    const changed = !same(prev, next);
    this.mode = 'none';
    // Requests first: what changed is tested again under the criteria its verdicts were made with.
    if (prev.readsRequest || next.readsRequest) {
      const stale = this.poll();
      if (stale.length && prev.readsRequest) this.retest(stale, prev, Infinity);
    }
    if (changed && !narrows(prev, next)) {
      if (!this.widen(source, next)) return this.full(source, end, next, epoch);
    } else if (changed) {
      this.snapshot(prev);
      this.criteria = next;
      this.narrow(prev, next);
      this.mode = 'narrow';
    }
    if (end > this.tested) {
      this.append(end, next);
      if (this.mode === 'none') this.mode = 'append';
    }
    return this.matches();
  }

  private matches(): Matches {
    return new Matches(this.events!, this.evicted, this.buf, this.start, this.end - this.start);
  }

  /** The lined-up prefix still starts `source.events`, less evictions; otherwise it is dropped. */
  private keepAligned(source: FilterSource): void {
    const gone = source.evicted - this.evicted;
    const kept = this.aligned - Math.max(0, gone);
    const ok = source.events === this.events && gone >= 0 && kept >= 0 && kept <= source.events.length && (kept === 0 || source.events[kept - 1] === this.lastAligned);
    if (!ok) {
      this.heads = [];
      this.bodies = [];
      this.entries = [];
      this.masks = new Uint32Array(0);
      this.maskBase = 0;
      this.aligned = 0;
      this.lastAligned = undefined;
      this.index.clear();
      this.entryList = [];
      return;
    }
    if (gone > 0 && this.aligned) {
      const cut = Math.min(gone, this.aligned);
      this.heads.splice(0, cut);
      this.bodies.splice(0, cut);
      this.entries.splice(0, cut);
      this.maskBase += cut;
      this.aligned -= cut;
    }
  }

  /** The source still starts with what was tested, less evictions from the front. */
  private follows(source: FilterSource, end: number): boolean {
    if (source.events !== this.events) return false;
    const gone = source.evicted - this.evicted;
    if (gone < 0) return false;
    const kept = this.tested - gone;
    if (kept < 0 || end < kept) return false;
    return kept === 0 || source.events[kept - 1] === this.lastTested;
  }

  /** Lines up the text and request of events up to `to` (not past what the source holds). */
  private align(to: number): void {
    const events = this.events!;
    const lookup = this.lookup;
    const masks = this.roomForMasks(to);
    const base = this.maskBase;
    for (let i = this.aligned; i < to; i++) {
      const ev = events[i]!;
      const rid = requestIdOf(ev, lookup);
      let entry: Entry | undefined;
      if (rid !== undefined) {
        let byId = this.index.get(ev.client);
        if (!byId) this.index.set(ev.client, (byId = new Map()));
        entry = byId.get(rid);
        if (!entry) {
          const req = lookup.request(ev.client, rid);
          entry = { client: ev.client, requestId: rid, seen: req, status: req?.status, surfaceId: req?.surfaceId, actionId: req?.actionId, places: [], stamp: 0 };
          byId.set(rid, entry);
          this.entryList.push(entry);
        }
        entry.places.push(this.evicted + i);
      }
      const p = preparedOf(ev, rid, () => entry?.seen);
      this.heads.push(headFor(ev, p, entry?.seen));
      this.bodies.push(p.body);
      this.entries.push(entry);
      sign(masks, (base + i) * MASK_WORDS, this.heads[i]!, p.body);
    }
    if (to > this.aligned) {
      this.aligned = to;
      this.lastAligned = events[to - 1];
    }
  }

  /** The signatures, with room for `to` lined-up rows: evicted rows are reclaimed before the array grows. */
  private roomForMasks(to: number): Uint32Array {
    if ((this.maskBase + to) * MASK_WORDS <= this.masks.length) return this.masks;
    if (this.maskBase > 0) {
      this.masks.copyWithin(0, this.maskBase * MASK_WORDS, (this.maskBase + this.aligned) * MASK_WORDS);
      this.maskBase = 0;
    }
    if (to * MASK_WORDS > this.masks.length) {
      // A quarter to spare: a full live list evicts as it appends, and each time the spare runs out the rows move down once.
      const grown = new Uint32Array(Math.max(1024, to + (to >> 2)) * MASK_WORDS);
      grown.set(this.masks.subarray(0, this.aligned * MASK_WORDS));
      this.masks = grown;
    }
    return this.masks;
  }

  private lined(): Lined {
    return { heads: this.heads, bodies: this.bodies, masks: this.masks, maskBase: this.maskBase };
  }

  /** Whether the text of lined-up event i may hold the needle of `c`: false means it cannot. */
  private mayHold(i: number, c: Normal): boolean {
    return c.bits === undefined || mayHold(this.masks, (this.maskBase + i) * MASK_WORDS, c.bits);
  }

  /**
   * Reads every request some event belongs to again; brings borrowed heads up
   * to date. Returns the places of the events whose request changed.
   */
  private poll(): number[] {
    const stale: number[] = [];
    const { lookup, evicted } = this;
    // Nothing changed since the last poll of this model: a keystroke on a quiet or imported session reads no request.
    if (!this.pollDue()) return stale;
    this.polled = { revision: lookup.revision?.(), epoch: this.epoch };
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
      if (places[0]! < evicted) places.splice(0, lowerBound(places, evicted));
      const req = lookup.request(e.client, e.requestId);
      if (req === e.seen && req?.status === e.status && req?.surfaceId === e.surfaceId && req?.actionId === e.actionId) continue;
      const heads = req?.surfaceId !== e.surfaceId || req?.actionId !== e.actionId;
      e.seen = req;
      e.status = req?.status;
      e.surfaceId = req?.surfaceId;
      e.actionId = req?.actionId;
      e.stamp = ++this.clock;
      for (const at of places) {
        const i = at - evicted;
        if (heads) {
          const ev = this.events![i]!;
          const p = prepared.get(ev);
          if (p?.borrows) {
            this.heads[i] = headFor(ev, p, req);
            sign(this.masks, (this.maskBase + i) * MASK_WORDS, this.heads[i]!, this.bodies[i]!);
          }
        }
        stale.push(at);
      }
    }
    list.length = kept;
    return stale;
  }

  /** Keeps the current matches of `c` before narrowing from it (the next matches are new arrays: no copy). */
  private snapshot(c: Normal): void {
    this.snapshots.push({
      criteria: c,
      buf: this.buf,
      start: this.start,
      end: this.end,
      testedTo: this.evicted + this.tested,
      lastTested: this.lastTested,
      events: this.events!,
      epoch: this.epoch,
      passes: this.passes,
      clock: this.clock,
    });
    if (this.snapshots.length > MAX_SNAPSHOTS) this.snapshots.shift();
  }

  /**
   * Takes up the matches of `c` kept when the filter narrowed from it, if
   * they still hold: events of requests that changed since are tested again.
   * False when there are none.
   */
  private widen(source: FilterSource, c: Normal): boolean {
    let k = this.snapshots.length - 1;
    while (k >= 0 && !same(this.snapshots[k]!.criteria, c)) k--;
    if (k < 0) return false;
    const snap = this.snapshots[k]!;
    this.snapshots.length = k;
    const tested = snap.testedTo - source.evicted;
    if (snap.passes !== this.passes || snap.events !== source.events || snap.epoch !== this.epoch || tested < 0 || tested > this.tested) return false;
    if (tested > 0 ? source.events[tested - 1] !== snap.lastTested : snap.testedTo > source.evicted) return false;
    // Taken up as it is (appends write past its end, where nothing is kept); evicted places are skipped.
    this.buf = snap.buf;
    this.start = lowerBoundIn(snap.buf, snap.start, snap.end, source.evicted);
    this.end = snap.end;
    this.tested = tested;
    this.lastTested = tested ? source.events[tested - 1] : undefined;
    this.criteria = c;
    this.mode = 'widen';
    if (c.readsRequest && snap.clock !== this.clock) {
      const stale: number[] = [];
      for (const e of this.entryList) if (e.stamp > snap.clock) for (const at of e.places) if (at >= this.evicted) stale.push(at);
      if (stale.length) this.retest(stale, c, snap.testedTo);
      this.mode = 'widen';
    }
    return true;
  }

  private full(source: FilterSource, end: number, c: Normal, epoch: unknown): Matches {
    this.snapshots = [];
    this.passes++;
    this.events = source.events;
    this.evicted = source.evicted;
    this.epoch = epoch;
    this.criteria = c;
    this.tested = 0;
    this.buf = new Float64Array(Math.max(1024, end));
    this.start = 0;
    this.end = 0;
    // What is lined up stays; what was read of requests may be stale.
    if (c.readsRequest) this.poll();
    this.append(end, c);
    this.mode = 'full';
    return this.matches();
  }

  private dropEvicted(evicted: number): void {
    const gone = evicted - this.evicted;
    if (gone <= 0) return;
    this.tested -= gone;
    this.evicted = evicted;
    this.start = lowerBoundIn(this.buf, this.start, this.end, evicted);
  }

  private append(end: number, c: Normal): void {
    const events = this.events!;
    if (c.readsRequest && end > this.aligned) this.align(end);
    const evicted = this.evicted;
    // Room for every new event; when short, the matches move to a buffer twice as large.
    if (this.end + (end - this.tested) > this.buf.length) {
      const grown = new Float64Array(Math.max(1024, 2 * (this.end - this.start + end - this.tested)));
      grown.set(this.buf.subarray(this.start, this.end));
      this.end -= this.start;
      this.start = 0;
      this.buf = grown;
    }
    const buf = this.buf;
    let n = this.end;
    for (let i = this.tested; i < end; i++) if (this.test(events[i]!, c, i)) buf[n++] = evicted + i;
    this.end = n;
    this.testedLast += end - this.tested;
    this.tested = end;
    this.lastTested = end ? events[end - 1] : undefined;
  }

  /** Tests the current matches only, into a new buffer (the old one is the snapshot): the new criteria admit nothing the old ones refused. */
  private narrow(prev: Normal, c: Normal): void {
    const { buf, start, end, evicted } = this;
    if (c.readsRequest && this.tested > this.aligned) this.align(this.tested);
    const out = new Float64Array(Math.max(64, end - start));
    let n = 0;
    if (sameButText(prev, c)) {
      // Only the text grew: every match already passes the rest; search the text alone.
      n = holding(this.lined(), buf, start, end, evicted, c, out);
    } else {
      const events = this.events!;
      for (let k = start; k < end; k++) {
        const at = buf[k]!;
        if (this.test(events[at - evicted]!, c, at - evicted)) out[n++] = at;
      }
    }
    this.testedLast += end - start;
    // A much smaller result gets a buffer of its size: snapshots keep theirs.
    this.buf = n < out.length >> 2 ? out.slice(0, Math.max(64, n * 2)) : out;
    this.start = 0;
    this.end = n;
  }

  /** Tests the events at `stale` (absolute places, any order, repeats allowed) again under `c`, below `limit`, and merges the verdicts into the matches. */
  private retest(stale: number[], c: Normal, limit: number): void {
    stale.sort((a, b) => a - b);
    const add: number[] = [];
    const remove = new Set<number>();
    let tested = 0;
    for (let k = 0; k < stale.length; k++) {
      const at = stale[k]!;
      if ((k && stale[k - 1] === at) || at < this.evicted || at >= limit || at - this.evicted >= this.tested) continue;
      tested++;
      const i = at - this.evicted;
      const now = this.test(this.events![i]!, c, i);
      const p = lowerBoundIn(this.buf, this.start, this.end, at);
      const was = p < this.end && this.buf[p] === at;
      if (now && !was) add.push(at);
      else if (!now && was) remove.add(at);
    }
    this.testedLast += tested;
    if (!add.length && !remove.size) return;
    // One merge however many changed: a burst of answers settles many requests at once.
    const { buf, start, end } = this;
    const out = new Float64Array(Math.max(1024, 2 * (end - start + add.length)));
    let n = 0;
    let a = 0;
    for (let k = start; k <= end; k++) {
      const at = k < end ? buf[k]! : Infinity;
      while (a < add.length && add[a]! < at) out[n++] = add[a++]!;
      if (k === end) break;
      if (!remove.has(at)) out[n++] = at;
    }
    this.buf = out;
    this.start = 0;
    this.end = n;
    this.mode = 'append';
  }

  /** `matchesTimeline` for events[i] (event `ev`), over what is lined up: requests as last polled, text prepared. */
  private test(ev: WireEvent, c: Normal, i: number): boolean {
    if (c.client && ev.client !== c.client) return false;
    if (c.category ? categoryOf(ev) !== c.category : ev.kind === 'other' && !ev.note) return false;
    if (!c.readsRequest) return true;
    const req = this.entries[i]?.seen;
    if (c.surface && !(surfaceOf(ev) ?? req?.surfaceId ?? '').includes(c.surface)) return false;
    if (c.action && !(field(ev, 'actionId') ?? req?.actionId ?? '').includes(c.action)) return false;
    if (c.status && req?.status !== c.status) return false;
    if (c.needle) {
      if (!this.mayHold(i, c)) return false;
      if (c.decided) return true;
      const body = this.bodies[i]!;
      const head = this.heads[i]!;
      if (!body.includes(c.needle) && !head.includes(c.needle) && !(c.splits.length > 0 && crosses(head, body, c.splits))) return false;
    }
    return true;
  }

  /**
   * Builds the searchable text of events that have none yet, and lines up
   * what the filter has tested, while `deadline` leaves time (an
   * IdleDeadline), so the first keystroke finds it ready. True while some
   * remain.
   */
  prepare(source: Pick<FilterSource, 'events' | 'evicted'>, deadline: { timeRemaining(): number }): boolean {
    const { events, evicted } = source;
    // Where it stopped, as an absolute place: a live list evicted from the front keeps its length, and its new events are past it.
    if (events !== this.prepareEvents || this.prepareAt - evicted > events.length) {
      this.prepareEvents = events;
      this.prepareAt = evicted;
    }
    while (this.prepareAt - evicted < events.length) {
      const from = Math.max(0, this.prepareAt - evicted);
      const stop = Math.min(events.length, from + 256);
      for (let i = from; i < stop; i++) {
        const ev = events[i]!;
        if (!prepared.has(ev)) {
          const rid = requestIdOf(ev, this.lookup);
          prepare(ev, rid, rid === undefined ? undefined : this.lookup.request(ev.client, rid));
        }
      }
      this.prepareAt = evicted + stop;
      if (deadline.timeRemaining() <= 1) return true;
    }
    // Then line up what was tested (the source as of the last update, so nothing in it is unchecked).
    // Only while the source is as the last update left it: evictions and insertions since are the next update's to see.
    if (events !== this.events || evicted !== this.evicted || (this.tested > 0 && events[this.tested - 1] !== this.lastTested)) return false;
    while (this.aligned < this.tested) {
      this.align(Math.min(this.tested, this.aligned + 1024));
      if (deadline.timeRemaining() <= 1) return this.aligned < this.tested;
    }
    // And read the requests again while no criterion reads them (no verdict to test again), so that the first
    // keystroke after a live stream does not find thousands of them changed (the model learns of requests after
    // the recorder) and rebuild their text then.
    if (!this.criteria?.readsRequest && this.pollDue()) {
      if (deadline.timeRemaining() <= 1) return true;
      this.poll();
    }
    return false;
  }

  /** Some request may have changed since the last poll. */
  private pollDue(): boolean {
    const revision = this.lookup.revision?.();
    return revision === undefined || revision !== this.polled.revision || this.epoch !== this.polled.epoch;
  }
}

/** What `holding` reads of the filter: its lined-up text and signatures. */
interface Lined {
  readonly heads: readonly string[];
  readonly bodies: readonly string[];
  readonly masks: Uint32Array;
  readonly maskBase: number;
}

/**
 * The places in buf[start..end) whose text holds the needle of `c`, written
 * to `out`; returns how many. The hot loop of a keystroke.
 */
function holding(lined: Lined, buf: Float64Array, start: number, end: number, evicted: number, c: Normal, out: Float64Array): number {
  const { heads, bodies, masks, maskBase } = lined;
  const { needle, splits, bits, decided } = c;
  let n = 0;
  // Loops kept free of calls: the first keystroke after a long session may run them before they are compiled.
  if (decided) {
    // One character, one bit: the signature is the answer.
    const at0 = (maskBase - evicted) * MASK_WORDS + bits![0]!;
    const bit = bits![1]!;
    for (let k = start; k < end; k++) {
      const at = buf[k]!;
      if (masks[at0 + at * MASK_WORDS]! & bit) out[n++] = at;
    }
    return n;
  }
  const crossing = splits.length > 0;
  const nbits = bits === undefined ? 0 : bits.length;
  next: for (let k = start; k < end; k++) {
    const at = buf[k]!;
    const i = at - evicted;
    const row = (maskBase + i) * MASK_WORDS;
    for (let b = 0; b < nbits; b += 2) if (bits![b + 1]! & ~masks[row + bits![b]!]!) continue next;
    const head = heads[i]!;
    const body = bodies[i]!;
    if (body.includes(needle) || head.includes(needle) || (crossing && crosses(head, body, splits))) out[n++] = at;
  }
  return n;
}

/** Writes the signature of `head` followed by `body` at masks[at..]. */
function sign(masks: Uint32Array, at: number, head: string, body: string): void {
  masks.fill(0, at, at + MASK_WORDS);
  addText(head, masks, at);
  addText(body, masks, at);
  // The pair across the seam, for a needle that runs from one into the other.
  if (head && body) addText(head[head.length - 1]! + body[0]!, masks, at);
}

/** Whether the needle runs from the end of `head` into `body`. */
function crosses(head: string, body: string, splits: ReadonlyArray<readonly [string, string]>): boolean {
  for (const [end, start] of splits) if (head.endsWith(end) && body.startsWith(start)) return true;
  return false;
}
