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
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { categoryOf, field, short, surfaceOf, typeLabel, type Category } from './format.ts';

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

/** The matches of a query the filter narrowed from, to take up again when the query widens back. */
interface Snapshot {
  criteria: Normal;
  list: WireEvent[];
  places: number[];
  /** Absolute place (evicted + index) up to which it was tested, and the last event tested. */
  testedTo: number;
  lastTested: WireEvent | undefined;
  events: readonly WireEvent[];
  epoch: unknown;
  /** `changes` when it was taken: any later change of a request a verdict read makes it stale. */
  changes: number;
}

/** Queries kept to widen back to: as many characters as one deletes in a row, about. */
const MAX_SNAPSHOTS = 24;

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

/** Searchable text whose head (type and target) came from a request, which may change or appear later. */
interface BorrowedText {
  text: string;
  requestId: string;
  /** What it was built with: the request's surface and action, and the target they made. */
  surfaceId: string | undefined;
  actionId: string | undefined;
  target: string;
  /** Where the part that does not depend on the request starts. */
  bodyAt: number;
}

type Text = string | BorrowedText;

/** Per event, built once: a string, or one that borrowed its target from a request. */
const texts = new WeakMap<WireEvent, Text>();

/** Whether the free text of `ev` reads its request's surface or action. */
function textBorrows(ev: WireEvent): boolean {
  return surfaceOf(ev) === undefined || (field(ev, 'actionId') === undefined && field(ev, 'observationId') === undefined && ev.type !== 'action:request');
}

/**
 * The lower-cased text the free-text filter searches: type, target, raw frame
 * (or payload, cut at 2,000 characters), note. Cached; rebuilt only when the
 * target it borrowed from the request is no longer the same.
 */
export function searchText(ev: WireEvent, req: RequestFacts | undefined, lookup: Pick<FilterLookup, 'event'>): string {
  return textOf(texts.get(ev) ?? buildText(ev, lookup, () => req), ev, req);
}

function buildText(ev: WireEvent, lookup: Pick<FilterLookup, 'event'>, requestOf: (requestId: string) => RequestFacts | undefined): Text {
  const rid = requestIdOf(ev, lookup);
  let built: Text;
  if (rid !== undefined && textBorrows(ev)) {
    const req = requestOf(rid);
    const target = targetOf(ev, req);
    const head = headOf(ev, target);
    // Lower-casing maps character by character here (the head ends in a space), so the split point carries over.
    built = { text: `${head}${bodyOf(ev)}`.toLowerCase(), requestId: rid, surfaceId: req?.surfaceId, actionId: req?.actionId, target, bodyAt: head.toLowerCase().length };
  } else built = `${headOf(ev, targetOf(ev, undefined))}${bodyOf(ev)}`.toLowerCase();
  texts.set(ev, built);
  return built;
}

/** The text, with a borrowed head brought up to date with `req`. */
function textOf(t: Text, ev: WireEvent, req: RequestFacts | undefined): string {
  if (typeof t === 'string') return t;
  if (req?.surfaceId === t.surfaceId && req?.actionId === t.actionId) return t.text;
  t.surfaceId = req?.surfaceId;
  t.actionId = req?.actionId;
  const target = targetOf(ev, req);
  if (target !== t.target) {
    const head = headOf(ev, target).toLowerCase();
    t.text = head + t.text.slice(t.bodyAt);
    t.target = target;
    t.bodyAt = head.length;
  }
  return t.text;
}

/** Whether `searchText` has been built for `ev`. */
export function hasSearchText(ev: WireEvent): boolean {
  return texts.has(ev);
}

interface Normal extends TimelineCriteria {
  needle: string;
  /** Some criterion reads the event's request. */
  readsRequest: boolean;
}

function normal(c: TimelineCriteria): Normal {
  return { ...c, needle: c.text.toLowerCase(), readsRequest: !!(c.surface || c.action || c.status || c.text) };
}

function same(a: Normal, b: Normal): boolean {
  return a.client === b.client && a.category === b.category && a.surface === b.surface && a.action === b.action && a.status === b.status && a.needle === b.needle && a.text === b.text;
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

/** A request some verdicts read, with what they read. */
interface Dependency {
  client: string;
  requestId: string;
  seen: RequestFacts | undefined;
  status: string | undefined;
  surfaceId: string | undefined;
  actionId: string | undefined;
  /** Absolute places (evicted + index) of the events whose verdict read it, ascending. */
  events: number[];
}

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

export class TimelineFilter {
  private events: readonly WireEvent[] | undefined;
  private epoch: unknown;
  private criteria: Normal | undefined;
  /** How many events of `events` have been tested. */
  private tested = 0;
  private evicted = 0;
  /** The last event tested: if it is no longer where it was, something was inserted before it. */
  private lastTested: WireEvent | undefined;
  private list: WireEvent[] = [];
  /** Absolute place of each match, ascending. */
  private places: number[] = [];
  /** Requests read, by client then request id. */
  private deps = new Map<string, Map<string, Dependency>>();
  /** Searchable text of events[i], kept in step with the tested prefix so the hot loops index instead of hashing. */
  private texts: Array<Text | undefined> = [];
  /** Dependencies may be stale (a full pass): read each request from the model. */
  private fresh = false;
  private prepareAt = 0;
  private prepareEvents: readonly WireEvent[] | undefined;
  /** Queries narrowed from, newest last. */
  private snapshots: Snapshot[] = [];
  /** Counts full passes and request changes found: what makes a snapshot stale. */
  private changes = 0;
  /** How the last update went. */
  mode: UpdateMode = 'none';
  /** Events tested by the last update. */
  testedLast = 0;

  constructor(private readonly lookup: FilterLookup) {}

  /**
   * The matching events of `source` under `criteria`, in order. `epoch`
   * names the model requests are read from: another one re-tests everything.
   * The array is the filter's own and changes with the next update.
   */
  update(source: FilterSource, criteria: TimelineCriteria, epoch: unknown): readonly WireEvent[] {
    const next = normal(criteria);
    const end = Math.min(source.end, source.events.length);
    this.testedLast = 0;
    if (!this.follows(source, end) || !this.criteria) {
      this.texts = [];
      this.deps.clear();
      return this.full(source, end, next, epoch);
    }
    this.dropEvicted(source.evicted);
    const prev = this.criteria;
    const changed = !same(prev, next);
    if (epoch !== this.epoch) this.deps.clear();
    if (epoch !== this.epoch) return this.full(source, end, next, epoch);
    this.mode = 'none';
    // Requests first, under the criteria their verdicts were made with.
    if (prev.readsRequest) this.recheck(prev);
    if (changed && !narrows(prev, next)) {
      if (!this.widen(source, next)) return this.full(source, end, next, epoch);
    } else if (changed) {
      this.snapshot(prev);
      this.criteria = next;
      if (!next.readsRequest) this.deps.clear();
      this.narrow(next);
      this.mode = 'narrow';
    }
    if (end > this.tested) {
      this.append(end, next);
      if (this.mode === 'none') this.mode = 'append';
    }
    return this.list;
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

  /** Keeps the current matches of `c` before narrowing from it. */
  private snapshot(c: Normal): void {
    this.snapshots.push({
      criteria: c,
      list: this.list.slice(),
      places: this.places.slice(),
      testedTo: this.evicted + this.tested,
      lastTested: this.lastTested,
      events: this.events!,
      epoch: this.epoch,
      changes: this.changes,
    });
    if (this.snapshots.length > MAX_SNAPSHOTS) this.snapshots.shift();
  }

  /** Takes up the matches of `c` kept when the filter narrowed from it, if they still hold; false when there are none. */
  private widen(source: FilterSource, c: Normal): boolean {
    let k = this.snapshots.length - 1;
    while (k >= 0 && !same(this.snapshots[k]!.criteria, c)) k--;
    if (k < 0) return false;
    const snap = this.snapshots[k]!;
    this.snapshots.length = k;
    const tested = snap.testedTo - source.evicted;
    if (snap.changes !== this.changes || snap.events !== source.events || snap.epoch !== this.epoch || tested < 0 || tested > this.tested) return false;
    if (tested > 0 ? source.events[tested - 1] !== snap.lastTested : snap.testedTo > source.evicted) return false;
    const cut = lowerBound(snap.places, source.evicted);
    this.list = cut ? snap.list.slice(cut) : snap.list;
    this.places = cut ? snap.places.slice(cut) : snap.places;
    this.tested = tested;
    this.lastTested = tested ? source.events[tested - 1] : undefined;
    this.criteria = c;
    this.mode = 'widen';
    return true;
  }

  private full(source: FilterSource, end: number, c: Normal, epoch: unknown): readonly WireEvent[] {
    this.snapshots = [];
    this.changes++;
    this.events = source.events;
    this.evicted = source.evicted;
    this.epoch = epoch;
    this.criteria = c;
    this.tested = 0;
    this.list = [];
    this.places = [];
    // Kept while the source is the same: registering again is cheaper than anew. They may be stale, so this pass reads requests afresh.
    if (!c.readsRequest) this.deps.clear();
    this.fresh = true;
    this.append(end, c);
    this.fresh = false;
    this.mode = 'full';
    return this.list;
  }

  private dropEvicted(evicted: number): void {
    const gone = evicted - this.evicted;
    if (gone <= 0) return;
    this.tested -= gone;
    this.evicted = evicted;
    this.texts.splice(0, gone);
    const cut = lowerBound(this.places, evicted);
    if (cut) {
      this.list.splice(0, cut);
      this.places.splice(0, cut);
    }
  }

  private append(end: number, c: Normal): void {
    const events = this.events!;
    for (let i = this.tested; i < end; i++) {
      const ev = events[i]!;
      const at = this.evicted + i;
      if (this.test(ev, c, at, i)) {
        this.list.push(ev);
        this.places.push(at);
      }
    }
    this.testedLast += end - this.tested;
    this.tested = end;
    this.lastTested = end ? events[end - 1] : undefined;
  }

  /** Re-tests the current matches only: the new criteria admit nothing the old ones refused. */
  private narrow(c: Normal): void {
    const { list, places } = this;
    let kept = 0;
    for (let k = 0; k < list.length; k++) {
      const ev = list[k]!;
      const at = places[k]!;
      if (this.test(ev, c, at, at - this.evicted)) {
        list[kept] = ev;
        places[kept++] = at;
      }
    }
    this.testedLast += list.length;
    list.length = kept;
    places.length = kept;
  }

  /** Re-reads each request a verdict read; re-tests the events of those that changed. */
  private recheck(c: Normal): void {
    const stale: number[] = [];
    for (const byId of this.deps.values()) {
      for (const [key, dep] of byId) {
        const first = lowerBound(dep.events, this.evicted);
        if (first) dep.events.splice(0, first);
        if (!dep.events.length) {
          byId.delete(key);
          continue;
        }
        const req = this.lookup.request(dep.client, dep.requestId);
        if (req === dep.seen && req?.status === dep.status && req?.surfaceId === dep.surfaceId && req?.actionId === dep.actionId) continue;
        remember(dep, req);
        for (const at of dep.events) stale.push(at);
      }
    }
    if (!stale.length) return;
    this.changes++;
    stale.sort((a, b) => a - b);
    const add: number[] = [];
    const remove = new Set<number>();
    for (let k = 0; k < stale.length; k++) {
      const at = stale[k]!;
      if (k && stale[k - 1] === at) continue;
      const ev = this.events![at - this.evicted]!;
      const now = this.test(ev, c, at, at - this.evicted);
      const p = lowerBound(this.places, at);
      const was = this.places[p] === at;
      if (now && !was) add.push(at);
      else if (!now && was) remove.add(at);
    }
    this.testedLast += stale.length;
    if (!add.length && !remove.size) return;
    // One merge however many changed: a burst of answers settles many requests at once.
    const list: WireEvent[] = [];
    const places: number[] = [];
    let a = 0;
    for (let k = 0; k <= this.places.length; k++) {
      const at = k < this.places.length ? this.places[k]! : Infinity;
      while (a < add.length && add[a]! < at) {
        list.push(this.events![add[a]! - this.evicted]!);
        places.push(add[a]!);
        a++;
      }
      if (k === this.places.length) break;
      if (remove.has(at)) continue;
      list.push(this.list[k]!);
      places.push(at);
    }
    this.list = list;
    this.places = places;
    this.mode = 'append';
  }

  private depend(client: string, requestId: string, at: number): RequestFacts | undefined {
    let byId = this.deps.get(client);
    if (!byId) this.deps.set(client, (byId = new Map()));
    let dep = byId.get(requestId);
    if (!dep) {
      dep = { client, requestId, seen: undefined, status: undefined, surfaceId: undefined, actionId: undefined, events: [] };
      remember(dep, this.lookup.request(client, requestId));
      byId.set(requestId, dep);
    } else if (this.fresh) {
      const req = this.lookup.request(client, requestId);
      if (req !== dep.seen || req?.status !== dep.status || req?.surfaceId !== dep.surfaceId || req?.actionId !== dep.actionId) remember(dep, req);
    }
    const evs = dep.events;
    if (!evs.length || evs[evs.length - 1]! < at) evs.push(at);
    else {
      const p = lowerBound(evs, at);
      if (evs[p] !== at) evs.splice(p, 0, at);
    }
    return dep.seen;
  }

  /** The cached text of events[i] (event `ev`), built when first asked for. */
  private textAt(i: number, ev: WireEvent): Text {
    let t = this.texts[i];
    if (t === undefined) {
      t = texts.get(ev) ?? buildText(ev, this.lookup, (rid) => this.lookup.request(ev.client, rid));
      this.texts[i] = t;
    }
    return t;
  }

  /** `matchesTimeline` for events[i] (event `ev`, absolute place `at`), over cached text, noting the requests the verdict read. */
  private test(ev: WireEvent, c: Normal, at: number, i: number): boolean {
    if (c.client && ev.client !== c.client) return false;
    if (c.category ? categoryOf(ev) !== c.category : ev.kind === 'other' && !ev.note) return false;
    if (!c.readsRequest) return true;
    if (!c.surface && !c.action && !c.status) {
      // Free text alone, the common case: the cached text says whether a request is read at all.
      const t = this.textAt(i, ev);
      if (typeof t === 'string') return t.includes(c.needle);
      return textOf(t, ev, this.depend(ev.client, t.requestId, at)).includes(c.needle);
    }
    const rid = requestIdOf(ev, this.lookup);
    const ownSurface = surfaceOf(ev);
    const ownAction = field(ev, 'actionId');
    // What the event says itself first: a verdict that fails on it reads no request.
    if (c.surface && ownSurface !== undefined && !ownSurface.includes(c.surface)) return false;
    if (c.action && ownAction !== undefined && !ownAction.includes(c.action)) return false;
    const t = c.needle ? this.textAt(i, ev) : undefined;
    if (typeof t === 'string' && !t.includes(c.needle)) return false;
    const reads = rid !== undefined && (!!c.status || (!!c.surface && ownSurface === undefined) || (!!c.action && ownAction === undefined) || typeof t === 'object');
    if (!reads) {
      // No request to read (none named, or none of these criteria need one): undefined is its answer.
      if (c.status) return false;
      if (c.surface && ownSurface === undefined) return false;
      if (c.action && ownAction === undefined) return false;
      return true;
    }
    const req = this.depend(ev.client, rid, at);
    if (c.surface && !(ownSurface ?? req?.surfaceId ?? '').includes(c.surface)) return false;
    if (c.action && !(ownAction ?? req?.actionId ?? '').includes(c.action)) return false;
    if (c.status && req?.status !== c.status) return false;
    if (typeof t === 'object' && !textOf(t, ev, req).includes(c.needle)) return false;
    return true;
  }

  /**
   * Builds the searchable text of events that have none yet, while `deadline`
   * leaves time (an IdleDeadline), so the first keystroke finds it ready.
   * True while some remain.
   */
  prepare(events: readonly WireEvent[], deadline: { timeRemaining(): number }): boolean {
    if (events !== this.prepareEvents || this.prepareAt > events.length) {
      this.prepareEvents = events;
      this.prepareAt = 0;
    }
    while (this.prepareAt < events.length) {
      const stop = Math.min(events.length, this.prepareAt + 256);
      for (let i = this.prepareAt; i < stop; i++) {
        const ev = events[i]!;
        if (!texts.has(ev)) buildText(ev, this.lookup, (rid) => this.lookup.request(ev.client, rid));
      }
      this.prepareAt = stop;
      if (deadline.timeRemaining() <= 1) break;
    }
    return this.prepareAt < events.length;
  }
}

function remember(dep: Dependency, req: RequestFacts | undefined): void {
  dep.seen = req;
  dep.status = req?.status;
  dep.surfaceId = req?.surfaceId;
  dep.actionId = req?.actionId;
}
