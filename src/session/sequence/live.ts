/**
 * The sequence layout kept up to date as a session grows, at a cost in
 * proportion to what changed, not to the session: the result of
 * `buildSequence` over the same model and `now`, span for span (the unit
 * test holds the two equal over random traffic), without laying the whole
 * session out again on each tick.
 *
 * What may change a span, and how each is found without reading the rest:
 * - an event of its exchange (`touch`, from the recorder): its request, its
 *   receipt, its result or the runtime's acknowledgment name it. The model
 *   takes events a little after the recorder (the merge's reorder window),
 *   so a touched request is looked at again for a few updates;
 * - the clock: a request in flight runs to now, and the model's deadlines
 *   or a transport loss settle it without an event of its own: every open
 *   span is looked at on each update (they are few: what is in flight);
 * - a finding raised on one of its events, or dropped by the model's bound;
 * - the model forgetting its oldest requests (the `requests` count of a
 *   client's `dropped` grows): those spans go.
 * A span is laid out again only when its request's shape (how many sends,
 * receipts, results, acknowledgments, its status) or its findings changed.
 * Rows (greedy, in span order) are placed again from the first span that
 * changed in a lane, until the rows' state meets a checkpoint it had before
 * (from there on nothing differs). If the model holds a request this layout
 * never heard of (an event it was not told about), it lays the whole
 * session out again and counts it (`stats.rebuilds`).
 */
import type { Finding, RequestState } from '../model/model-types.ts';
import type { WireEvent } from '../wire/wire.ts';
import { sortedIndex } from '../sorted-index.ts';
import { LatencyBook } from './latency.ts';
import { SpanIndex } from './span-index.ts';
import { addTo, compareSpans, FLAG, lastMoment, placeRow, requestSpan, rowEnd, RUNTIME_LANE, runtimeTurn, type Lane, type SequenceSource, type Span } from './spans.ts';

/** A touched request is looked at again for this many updates (the reorder window is 300 ms; the panel updates every 250 ms). */
const RETAIN_UPDATES = 4;
/** A checkpoint of a lane's rows at least every this many spans. */
const CHECKPOINT = 32;

interface Entry {
  client: string;
  requestId: string;
  span?: Span;
  turn?: Span;
  /** The request's shape when it was laid out. */
  shape: string;
}

interface LaneState {
  spans: Span[];
  /** The rows' ends before some of its spans. */
  checkpoints: Map<Span, number[]>;
  /** Spans added or removed since the rows were placed (a removed one still says where it was). */
  changed: Span[];
}

export interface LiveStats {
  updates: number;
  /** Whole layouts (the first, and any after the model held what this was not told of). */
  rebuilds: number;
  /** Spans laid out again by the last update. */
  lastRelaid: number;
  /** Spans whose rows were placed again by the last update. */
  lastRowsPlaced: number;
}

const before = (a: Span, b: Span) => compareSpans(a, b) < 0;

export class LiveSequence {
  lanes: Lane[] = [];
  index = new SpanIndex();
  latency = new LatencyBook();
  t0 = 0;
  t1 = 0;
  readonly stats: LiveStats = { updates: 0, rebuilds: 0, lastRelaid: 0, lastRowsPlaced: 0 };
  private laneOf = new Map<string, number>();
  private laneState: LaneState[] = [];
  private entries = new Map<string, Entry>();
  /** Per client: the request ids laid out, oldest first (the model forgets from the front). */
  private known = new Map<string, Map<string, true>>();
  private droppedSeen = new Map<string, number>();
  private findingsByEvent = new Map<string, Finding[]>();
  private findingKeys = new Map<Finding, string[]>();
  private findingsSeen = 0;
  private findingsDroppedSeen = 0;
  /** Request keys touched, with the update they were touched in. */
  private touched = new Map<string, number>();
  private forced = new Set<string>();
  private serial = 0;
  private built = false;

  constructor(
    private readonly src: SequenceSource,
    private readonly eventOf: (id: string) => WireEvent | undefined,
    /** Updates a touched request is looked at again after the one that follows its touch (the model may take its event later). */
    private readonly retainUpdates = RETAIN_UPDATES,
  ) {}

  /** Every span, in order (reads them all: for tests and a one-off look). */
  get spans(): Span[] {
    return this.index.all();
  }

  /** A lane's spans, in order. */
  laneSpans(lane: number): readonly Span[] {
    return this.laneState[lane]?.spans ?? [];
  }

  /** The span of a client's request on `lane` (0: the runtime's turn of it), if laid out. */
  spanOf(client: string, requestId: string, lane: number): Span | undefined {
    const e = this.entries.get(`${client}\u0000${requestId}`);
    return lane === 0 ? e?.turn : e?.span;
  }

  /** Tells the layout of a recorded event: the request it belongs to is looked at on the next updates. */
  touch(ev: WireEvent | undefined): void {
    const key = this.keyOf(ev);
    if (key) this.touched.set(key, this.serial);
  }

  /** Brings the layout up to date with the model at `now`. */
  update(now: number): void {
    this.stats.updates++;
    this.stats.lastRelaid = 0;
    this.stats.lastRowsPlaced = 0;
    if (!this.built) return this.rebuild(now);
    this.serial++;
    this.addLanes();
    this.takeFindings();
    this.forgetEvicted();
    for (const [key, at] of this.touched) {
      if (this.serial - at > this.retainUpdates) this.touched.delete(key);
      this.lay(key, now, this.forced.delete(key));
    }
    for (const key of this.forced) this.lay(key, now, true);
    this.forced.clear();
    for (const s of [...this.index.inFlight]) this.lay(`${s.client}\u0000${s.requestId}`, now, false);
    // The model holds a request not laid out here: this was not told of an event. Start again rather than differ.
    for (const [key, c] of this.src.clients) if ((this.known.get(key)?.size ?? 0) !== c.requests.size) return this.rebuild(now);
    this.placeRows();
    this.bounds(now);
  }

  /** Lays the whole session out from the model (as `buildSequence` does, through the same steps as an update). */
  private rebuild(now: number): void {
    this.stats.rebuilds++;
    this.built = true;
    this.lanes = [];
    this.laneOf.clear();
    this.laneState = [];
    this.index = new SpanIndex();
    this.latency = new LatencyBook();
    this.entries.clear();
    this.known.clear();
    this.droppedSeen.clear();
    this.findingsByEvent.clear();
    this.findingKeys.clear();
    this.findingsSeen = 0;
    this.findingsDroppedSeen = this.src.findingsDropped ?? 0;
    this.touched.clear();
    this.forced.clear();
    this.addLane(RUNTIME_LANE, 'Runtime', 'runtime');
    this.addLanes();
    for (const f of this.src.findings) this.addFinding(f, false);
    this.findingsSeen = this.src.findings.length;
    for (const [key, c] of this.src.clients) {
      this.droppedSeen.set(key, c.dropped?.requests ?? 0);
      for (const id of c.requests.keys()) this.lay(`${key}\u0000${id}`, now, true);
    }
    this.placeRows();
    this.bounds(now);
  }

  private addLane(key: string, label: string, kind: Lane['kind']): void {
    this.laneOf.set(key, this.lanes.length);
    this.lanes.push({ key, label, kind, rows: 1 });
    this.laneState.push({ spans: [], checkpoints: new Map(), changed: [] });
    if (kind === 'client') this.known.set(key, new Map());
  }

  private addLanes(): void {
    if (this.laneOf.size - 1 === this.src.clients.size) return;
    for (const [key, c] of this.src.clients) if (!this.laneOf.has(key)) this.addLane(key, c.client.label || key, 'client');
  }

  /** The request an event belongs to: its own requestId, or that of the event it acknowledges. */
  private keyOf(ev: WireEvent | undefined): string | undefined {
    if (!ev || typeof ev.client !== 'string') return undefined;
    let id = requestIdOf(ev);
    if (id === undefined && typeof ev.ackOf === 'string') id = requestIdOf(this.eventOf(ev.ackOf));
    return id === undefined ? undefined : `${ev.client}\u0000${id}`;
  }

  private addFinding(f: Finding, force: boolean): void {
    const keys: string[] = [];
    for (const id of f.events) {
      addTo(this.findingsByEvent, id, f);
      const key = this.keyOf(this.eventOf(id));
      if (key) keys.push(key);
    }
    this.findingKeys.set(f, keys);
    if (force) for (const k of keys) this.forced.add(k);
  }

  /** New findings mark their spans; findings the model dropped take their marks with them. */
  private takeFindings(): void {
    const list = this.src.findings;
    const dropped = this.src.findingsDropped ?? 0;
    if (dropped === this.findingsDroppedSeen && list.length >= this.findingsSeen && (this.findingsSeen === 0 || this.findingKeys.has(list[this.findingsSeen - 1]!))) {
      for (let i = this.findingsSeen; i < list.length; i++) this.addFinding(list[i]!, true);
    } else {
      // Some went (the bound, or a list put in place): one pass over the findings, which the model bounds.
      const present = new Set(list);
      for (const [f, keys] of this.findingKeys) {
        if (present.has(f)) continue;
        this.findingKeys.delete(f);
        for (const id of f.events) {
          const at = this.findingsByEvent.get(id);
          const i = at ? at.indexOf(f) : -1;
          if (i >= 0) at!.splice(i, 1);
          if (at && !at.length) this.findingsByEvent.delete(id);
        }
        for (const k of keys) this.forced.add(k);
      }
      for (const f of list) if (!this.findingKeys.has(f)) this.addFinding(f, true);
    }
    this.findingsSeen = list.length;
    this.findingsDroppedSeen = dropped;
  }

  /** The model keeps the newest requests of each client: those it forgot (the oldest) leave the layout. */
  private forgetEvicted(): void {
    for (const [key, c] of this.src.clients) {
      const dropped = c.dropped?.requests ?? 0;
      const seen = this.droppedSeen.get(key) ?? 0;
      if (dropped === seen) continue;
      this.droppedSeen.set(key, dropped);
      const known = this.known.get(key);
      if (!known) continue;
      let gone = dropped - seen;
      let looked = 0;
      for (const id of known.keys()) {
        if (gone <= 0 || looked++ > dropped - seen + 256) break;
        if (c.requests.has(id)) continue;
        this.forced.add(`${key}\u0000${id}`);
        gone--;
      }
    }
  }

  /** Lays out one request again if its shape changed (or `force`); an open span that did not change just runs on to now. */
  private lay(key: string, now: number, force: boolean): void {
    const cut = key.indexOf('\u0000');
    const client = key.slice(0, cut);
    const requestId = key.slice(cut + 1);
    const c = this.src.clients.get(client);
    const req = c?.requests.get(requestId);
    let entry = this.entries.get(key);
    const lane = this.laneOf.get(client);
    if (!req || lane === undefined) {
      if (entry) {
        this.replace(entry.span, undefined);
        this.replace(entry.turn, undefined);
        this.entries.delete(key);
      }
      this.known.get(client)?.delete(requestId);
      return;
    }
    const known = this.known.get(client)!;
    if (!known.has(requestId)) known.set(requestId, true);
    const shape = shapeOf(req);
    if (entry && !force && entry.shape === shape) {
      if (entry.span && entry.span.flags & FLAG.open) entry.span.end = Math.max(now, lastMoment(req));
      return;
    }
    if (!entry) this.entries.set(key, (entry = { client, requestId, shape }));
    entry.shape = shape;
    const span = requestSpan(req, client, lane, this.eventOf, this.findingsByEvent, now);
    const turn = span && runtimeTurn(span, req, client);
    this.replace(entry.span, span);
    this.replace(entry.turn, turn);
    entry.span = span;
    entry.turn = turn;
    this.stats.lastRelaid += (span ? 1 : 0) + (turn ? 1 : 0);
  }

  /** Puts `next` where `prev` was (either may be missing) in the index, the latency table and its lane. */
  private replace(prev: Span | undefined, next: Span | undefined): void {
    if (prev) {
      this.index.remove(prev);
      this.latency.remove(prev);
    }
    if (next) {
      this.index.insert(next);
      this.latency.add(next);
    }
    const ls = this.laneState[(prev ?? next)?.lane ?? -1];
    if (!ls) return;
    // The same place and the same hold on its row: the rows stay as they are.
    if (prev && next && prev.lane === next.lane && compareSpans(prev, next) === 0 && rowEnd(prev) === rowEnd(next)) {
      const i = sortedIndex(ls.spans, prev, before);
      if (ls.spans[i] === prev) {
        ls.spans[i] = next;
        next.row = prev.row;
        const cp = ls.checkpoints.get(prev);
        if (cp) ls.checkpoints.delete(prev), ls.checkpoints.set(next, cp);
        return;
      }
    }
    if (prev) {
      const i = sortedIndex(ls.spans, prev, before);
      if (ls.spans[i] === prev) ls.spans.splice(i, 1);
      ls.checkpoints.delete(prev);
      this.changed(ls, prev);
    }
    if (next) {
      ls.spans.splice(sortedIndex(ls.spans, next, before), 0, next);
      this.changed(ls, next);
    }
  }

  private changed(ls: LaneState, s: Span): void {
    ls.changed.push(s);
  }

  /**
   * Places rows again in each lane from each change on, until the rows'
   * state meets a checkpoint it had before (from there to the next change
   * nothing differs), then on from the next change.
   */
  private placeRows(): void {
    this.laneState.forEach((ls, l) => {
      if (!ls.changed.length) return;
      const spans = ls.spans;
      const at = ls.changed.map((s) => sortedIndex(spans, s, before)).sort((a, b) => a - b);
      ls.changed = [];
      let c = 0;
      let i = 0;
      let state: number[] = [];
      let sinceCheckpoint = 0;
      /** The change being placed from: no checkpoint at or before it says the rest is as it was. */
      let guard = 0;
      // Start (or go on) from the nearest checkpoint at or before the change at `at[c]`.
      const resume = (from: number) => {
        guard = from;
        i = from;
        let cp: number[] | undefined;
        while (i > 0 && !(cp = ls.checkpoints.get(spans[i]!))) i--;
        state = i === 0 || !cp ? [] : cp.slice();
        sinceCheckpoint = 0;
      };
      resume(at[0]!);
      for (; i < spans.length; i++) {
        while (c < at.length && at[c]! <= i) c++;
        const s = spans[i]!;
        const cp = ls.checkpoints.get(s);
        if (cp && i > guard && sameRows(cp, state, s.start)) {
          // As it was: the spans up to the next change keep their rows.
          if (c >= at.length) return;
          resume(at[c]!);
          i--;
          continue;
        }
        if (cp) {
          // Written over in place: a long pass allocates nothing for the checkpoints it meets.
          cp.length = state.length;
          for (let r = 0; r < state.length; r++) cp[r] = state[r]!;
          sinceCheckpoint = 0;
        } else if (sinceCheckpoint >= CHECKPOINT || i === 0) {
          ls.checkpoints.set(s, state.slice());
          sinceCheckpoint = 0;
        }
        sinceCheckpoint++;
        const row = placeRow(state, s);
        if (row !== s.row) (s.row = row), this.index.moved(s);
        this.stats.lastRowsPlaced++;
      }
      this.lanes[l]!.rows = Math.max(1, state.length);
    });
  }

  private bounds(now: number): void {
    const first = this.index.firstStart();
    if (first === undefined) {
      this.t0 = this.t1 = now;
      return;
    }
    let t1 = this.index.latestSettledEnd();
    for (const s of this.index.inFlight) if (s.end > t1) t1 = s.end;
    this.t0 = first;
    this.t1 = t1;
  }
}

function requestIdOf(ev: WireEvent | undefined): string | undefined {
  const p = ev?.payload as { requestId?: unknown } | undefined;
  return p && typeof p === 'object' && typeof p.requestId === 'string' ? p.requestId : undefined;
}

/** What of a request a span is made of, in one string: equal shapes give equal spans (but for an open span's end). */
function shapeOf(req: RequestState): string {
  // An acknowledgment sent again takes the place of the first (the model keeps the latest): its event says it changed.
  let acks = '';
  for (const r of req.results) acks += `${r.ack?.eventId ?? ''}${r.forRepeat ? '+' : ''},`;
  return `${req.sends.length}/${req.receipts.length}/${req.results.length}/${acks}/${req.status}/${req.resolution?.eventId ?? ''}`;
}

/**
 * Whether two states of a lane's rows place the spans from one starting at
 * `t` on alike: the same rows in use, each ending at the same time or both
 * free by `t` (spans come in start order, so a row free at `t` is free for
 * every later one, and takes the same end once a span takes it).
 */
function sameRows(a: readonly number[], b: readonly number[], t: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(a[i]! <= t && b[i]! <= t)) return false;
  return true;
}
