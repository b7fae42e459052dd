/**
 * The Timeline's incremental filter (panel/incremental-filter.ts) against the
 * definition: `meetsCriteria` (panel/timeline-criteria.ts) over facts read
 * here, from what the filter syntax means, with none of panel/display-text.ts's
 * readers, so a bug in those shows as a difference. Every path an update
 * takes (a full pass, narrowing a query, appending a live batch, re-reading
 * requests whose status changed, evictions, insertions, pauses, idle
 * preparation cut short) must give what the definition gives; and the
 * definition is checked against the filter the Timeline had before it was
 * made incremental. The exchange rows (panel/exchanges.ts) fold the matches
 * by request, checked the same way against a fold written here from what
 * the rows mean.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import type { Category } from '../../panel/display-text.ts';
import { Matches, TimelineFilter, type FilterLookup } from '../../panel/incremental-filter.ts';
import { Exchanges, type Rows } from '../../panel/exchanges.ts';
import { SearchBodies, headOf, type RequestFacts } from '../../panel/search-text.ts';
import { NO_CRITERIA, meetsCriteria, queryOf, type EventFacts, type TimelineCriteria } from '../../panel/timeline-criteria.ts';

const CATEGORIES: Array<Category | ''> = ['', 'requests', 'results', 'registrations', 'observations', 'acks', 'extensions', 'lifecycle', 'malformed', 'other'];
const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed-out'];
const CLIENTS = ['a', 'b'];
const REQUEST_IDS = ['r1', 'r2', 'r3', 'R4'];
const SURFACES = ['s1', 's2', 'Σurf'];
const ACTIONS = ['go', 'get'];

/** What an event says, read from the filter's meaning alone. */
function payloadOf(ev: WireEvent): Record<string, unknown> | undefined {
  return ev.payload !== null && typeof ev.payload === 'object' && !Array.isArray(ev.payload) ? (ev.payload as Record<string, unknown>) : undefined;
}

function stringAt(ev: WireEvent, key: string): string | undefined {
  const v = payloadOf(ev)?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** The type picker's categories: by kind, and for OUI events by message type. */
function categoryFor(ev: WireEvent): Category {
  if (ev.kind !== 'event') return ({ ack: 'acks', lifecycle: 'lifecycle', malformed: 'malformed', other: 'other' } as const)[ev.kind];
  const t = ev.type ?? '';
  if (t === 'action:request') return 'requests';
  if (t === 'action:result') return 'results';
  if (t.startsWith('surface:')) return 'registrations';
  if (t.startsWith('observation:')) return 'observations';
  return 'extensions';
}

/** The event's own surface: its surfaceId, or the id of the surface it registers. */
function ownSurface(ev: WireEvent): string | undefined {
  const id = stringAt(ev, 'surfaceId');
  if (id) return id;
  const surface = payloadOf(ev)?.surface as { id?: unknown } | undefined;
  return typeof surface?.id === 'string' ? surface.id : undefined;
}

/** The type column: an OUI event's or lifecycle's type, else the kind. */
function typeFor(ev: WireEvent): string {
  if (ev.kind === 'ack' || ev.kind === 'malformed') return ev.kind;
  return ev.type ?? (ev.kind === 'event' ? 'event' : ev.kind);
}

/** The payload as the Timeline shows it: its JSON (a string as it is), cut at 2,000 characters; no payload reads "undefined". */
function payloadText(ev: WireEvent): string {
  const s = typeof ev.payload === 'string' ? ev.payload : (JSON.stringify(ev.payload) ?? String(ev.payload));
  return s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}

/** Requests as the model holds them. */
class Requests extends Map<string, RequestFacts> {}

/** A session under test: the events as the recorder holds them, and the requests as the model has them. */
class World implements FilterLookup {
  events: WireEvent[] = [];
  evicted = 0;
  end: number | null = null;
  /** The recorder's lookup by id: a test may drop evicted events from it, as the recorder does. */
  byId = new Map<string, WireEvent>();
  /** Every event ever recorded: an ack belongs to the request of the event it acknowledges, evicted or not. */
  ever = new Map<string, WireEvent>();
  requests = new Requests();
  /** Event ids some finding names, and the model's mark, moved whenever they change. */
  findings = new Set<string>();
  mark = 0;
  epoch = {};
  private seq = 0;

  request(client: string, id: string): RequestFacts | undefined {
    return this.requests.get(`${client}\u0000${id}`);
  }
  event(id: string): WireEvent | undefined {
    return this.byId.get(id);
  }
  clientNames(client: string): readonly string[] {
    return [client, `kind-${client}`];
  }
  findingEvents(): ReadonlySet<string> {
    return new Set(this.findings);
  }
  modelMark(): unknown {
    return this.mark;
  }
  nextId(): string {
    return `e${this.seq++}`;
  }
  source() {
    return { events: this.events, end: this.end ?? this.events.length, evicted: this.evicted };
  }
  /** The request an event belongs to: its own requestId, or an ack's target's. */
  requestOf(ev: WireEvent): RequestFacts | undefined {
    let id = stringAt(ev, 'requestId');
    if (!id && ev.kind === 'ack' && ev.ackOf) {
      const target = this.ever.get(ev.ackOf);
      if (target) id = stringAt(target, 'requestId');
    }
    return id ? this.request(ev.client, id) : undefined;
  }
  /** The searchable text: type, "surface › action" (borrowed from the request where the event lacks them), raw frame or payload, note. */
  text(ev: WireEvent): string {
    const req = this.requestOf(ev);
    const action = stringAt(ev, 'actionId') ?? stringAt(ev, 'observationId') ?? (ev.type === 'action:request' ? '' : req?.actionId);
    const target = [ownSurface(ev) ?? req?.surfaceId, action].filter(Boolean).join(' › ');
    return `${typeFor(ev)} ${target} ${ev.raw ?? payloadText(ev)} ${ev.note ?? ''}`.toLowerCase();
  }
  /** The oracle's facts: read from each event as it is now. */
  readonly facts: EventFacts<WireEvent> = {
    client: (ev) => ev.client,
    category: categoryFor,
    isAppTraffic: (ev) => ev.kind === 'other' && !ev.note,
    surface: (ev) => ownSurface(ev) ?? this.requestOf(ev)?.surfaceId ?? '',
    action: (ev) => stringAt(ev, 'actionId') ?? this.requestOf(ev)?.actionId ?? '',
    status: (ev) => this.requestOf(ev)?.status,
    holds: (ev, needle) => this.text(ev).includes(needle),
    type: typeFor,
    clientNames: (ev) => this.clientNames(ev.client),
    dir: (ev) => ev.dir,
    durationMs: (ev) => this.requestOf(ev)?.durationMs,
    size: (ev) => ev.size,
    hasFinding: (ev) => this.findings.has(ev.id),
    is: (ev, flag) => (flag === 'injected' || flag === 'experiment' ? ev.injected === true : flag === 'faulted' ? ev.faulted !== undefined : ev.held === true),
    text: (ev) => this.text(ev),
  };
  /** The exchange an event is part of: a request, a result, or an ack (of an event with a requestId), by client and requestId. */
  exchangeOf(ev: WireEvent): string | undefined {
    if (ev.kind !== 'ack' && !(ev.kind === 'event' && (ev.type === 'action:request' || ev.type === 'action:result'))) return undefined;
    let id = stringAt(ev, 'requestId');
    if (!id && ev.kind === 'ack' && ev.ackOf) {
      const target = this.ever.get(ev.ackOf);
      if (target) id = stringAt(target, 'requestId');
    }
    return id ? `${ev.client}\u0000${id}` : undefined;
  }
  /**
   * The exchange rows: the matches in order, an exchange once, where its
   * first match is, shown as its first request event shown (else that
   * match) with how many of its events are shown; under an expanded one,
   * its other events shown.
   */
  expectedRows(c: TimelineCriteria, expanded: ReadonlySet<string>): string[] {
    const shown = this.events.slice(0, this.end ?? this.events.length);
    const seen = new Set<string>();
    const rows: string[] = [];
    for (const ev of this.expected(c)) {
      const key = this.exchangeOf(ev);
      if (key === undefined) {
        rows.push(`event ${ev.id}`);
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      const members = shown.filter((e) => this.exchangeOf(e) === key);
      const head = members.find((e) => e.kind === 'event' && e.type === 'action:request') ?? ev;
      rows.push(`exchange ${head.id} ${members.length}`);
      if (expanded.has(key)) for (const m of members) if (m !== head) rows.push(`member ${m.id}`);
    }
    return rows;
  }
  expected(c: TimelineCriteria): WireEvent[] {
    const q = queryOf(c);
    return this.events.slice(0, this.end ?? this.events.length).filter((ev) => meetsCriteria(ev, q, this.facts));
  }
  add(evs: WireEvent[]): void {
    for (const ev of evs) {
      this.events.push(ev);
      this.byId.set(ev.id, ev);
      this.ever.set(ev.id, ev);
    }
  }
}

type Draft = Omit<WireEvent, 'id'>;

const arbClient = fc.constantFrom(...CLIENTS);
const arbText = fc.constantFrom('', 'x', 'Req', 'go', 'Σ', 'ς', 'İ', 'hello World', ' › ');
const arbDraft: fc.Arbitrary<Draft | { ack: number; client: string; dir: 'in' | 'out' }> = fc.oneof(
  fc.record({ client: arbClient, rid: fc.constantFrom(...REQUEST_IDS), surface: fc.constantFrom(...SURFACES), action: fc.constantFrom(...ACTIONS), p: arbText, raw: fc.boolean() }).map(
    ({ client, rid, surface, action, p, raw }): Draft => {
      const payload = { requestId: rid, surfaceId: surface, actionId: action, params: { p }, timestamp: 1 };
      return { client, t: 0, dir: 'in', kind: 'event', type: 'action:request', payload, size: 10, ...(raw ? { raw: JSON.stringify({ type: 'action:request', payload }) } : {}) };
    },
  ),
  fc.record({ client: arbClient, rid: fc.constantFrom(...REQUEST_IDS, ''), ok: fc.boolean(), p: arbText }).map(
    ({ client, rid, ok, p }): Draft => ({ client, t: 0, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: rid, success: ok, data: { p }, timestamp: 1 }, size: 10 }),
  ),
  fc.record({ client: arbClient, surface: fc.constantFrom(...SURFACES), v: arbText }).map(
    ({ client, surface, v }): Draft => ({ client, t: 0, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: surface, observationId: 'n', value: v, timestamp: 1 }, size: 10 }),
  ),
  fc.record({ client: arbClient, surface: fc.constantFrom(...SURFACES) }).map(
    ({ client, surface }): Draft => ({ client, t: 0, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: { id: surface, actions: [] }, timestamp: 1 }, size: 10 }),
  ),
  fc.record({ client: arbClient, x: fc.constantFrom('x-Custom', 'x-go') }).map(({ client, x }): Draft => ({ client, t: 0, dir: 'out', kind: 'event', type: x, payload: { requestId: 'r1', v: 1 }, size: 10 })),
  fc.record({ client: arbClient, note: fc.option(arbText, { nil: undefined }), raw: arbText }).map(
    ({ client, note, raw }): Draft => ({ client, t: 0, dir: 'in', kind: 'other', raw, size: 10, ...(note ? { note } : {}) }),
  ),
  fc.record({ client: arbClient, note: arbText }).map(({ client, note }): Draft => ({ client, t: 0, dir: 'in', kind: 'malformed', raw: '{"type":"action:', note: note || 'invalid JSON', size: 10 })),
  fc.record({ client: arbClient }).map(({ client }): Draft => ({ client, t: 0, dir: 'in', kind: 'lifecycle', type: 'open', size: 0 })),
  fc.record({ ack: fc.nat(), client: arbClient, dir: fc.constantFrom<'in' | 'out'>('in', 'out') }),
);

function materialise(w: World, drafts: Array<Draft | { ack: number; client: string; dir: 'in' | 'out' }>): WireEvent[] {
  const out: WireEvent[] = [];
  for (const d of drafts) {
    const id = w.nextId();
    if ('ack' in d) {
      const pool = [...w.events, ...out];
      const target = pool.length ? pool[d.ack % pool.length] : undefined;
      out.push({ id, client: target?.client ?? d.client, t: 0, dir: d.dir, kind: 'ack', payload: [{ ok: true }], size: 5, ...(target ? { ackOf: target.id } : { note: 'ack 3 for nothing seen' }) });
    } else out.push({ id, ...d });
  }
  return out;
}

/** Mostly unset: a conjunction of six random criteria would almost never match anything. */
function maybe<T extends string>(...values: T[]): fc.Arbitrary<T | ''> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant('' as const) }, { weight: 1, arbitrary: fc.constantFrom(...values) });
}

/** Terms of the filter box's grammar (src/query/parse.ts), a few at a time. */
const arbTerm = fc.constantFrom(
  'r', 'RE', 'req', 'go', '"p"', 'ς', 'σ', 'i̇', '"request s1"', 'go {', 'result ', '› go', ' x', 'world',
  'surface:s', 'surface:s1', 'surface:Σ', '-surface:s1', 'action:g', 'action:go', 'action:g,ge', '-action:go', 'status:fail', 'status:succeeded,running', '-status:pending',
  'type:request', 'type:acks', 'type:x-', '-type:observation', 'action:request', 'client:a', 'client:kind-b', 'dir:in', '-dir:out',
  'dur:>5', 'dur:<=20ms', '-dur:>1s', 'size:>5', 'size:<=10b', 'has:finding', '-has:finding', 'is:injected', '/go|get/', '-/r[0-9]/', 'surface:', 'dur:>', '-',
);
const arbCriteria: fc.Arbitrary<TimelineCriteria> = fc.record({
  client: maybe(...CLIENTS),
  category: maybe(...(CATEGORIES.filter(Boolean) as Category[])),
  status: maybe(...STATUSES),
  text: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 3, arbitrary: fc.array(arbTerm, { minLength: 1, maxLength: 3 }).map((ts) => ts.join(' ')) }),
});

type Op =
  | { op: 'append'; drafts: Array<Draft | { ack: number; client: string; dir: 'in' | 'out' }> }
  | { op: 'criteria'; c: TimelineCriteria }
  | { op: 'one'; key: keyof TimelineCriteria; c: TimelineCriteria }
  | { op: 'type'; ch: string }
  | { op: 'backspace' }
  | { op: 'status'; client: string; rid: string; status: string }
  | { op: 'request'; client: string; rid: string; surface: string; action: string }
  | { op: 'forget'; client: string; rid: string }
  | { op: 'finding'; id: number }
  | { op: 'duration'; client: string; rid: string; ms: number }
  | { op: 'evict'; n: number }
  | { op: 'insert'; at: number; drafts: Array<Draft | { ack: number; client: string; dir: 'in' | 'out' }> }
  | { op: 'pause'; at: number | null }
  | { op: 'rebuild' }
  | { op: 'clear' };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('append' as const), drafts: fc.array(arbDraft, { maxLength: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('criteria' as const), c: arbCriteria }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('one' as const), key: fc.constantFrom<keyof TimelineCriteria>('client', 'category', 'status', 'text'), c: arbCriteria }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('type' as const), ch: fc.constantFrom('r', 'e', 'q', 'g', 'o', ' ', '"', 'Σ', '1', 's', ':', '-', '>', '/') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('finding' as const), id: fc.nat({ max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('duration' as const), client: arbClient, rid: fc.constantFrom(...REQUEST_IDS), ms: fc.nat({ max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('backspace' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('status' as const), client: arbClient, rid: fc.constantFrom(...REQUEST_IDS), status: fc.constantFrom(...STATUSES) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('request' as const), client: arbClient, rid: fc.constantFrom(...REQUEST_IDS), surface: fc.constantFrom(...SURFACES), action: fc.constantFrom(...ACTIONS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forget' as const), client: arbClient, rid: fc.constantFrom(...REQUEST_IDS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('evict' as const), n: fc.nat({ max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('insert' as const), at: fc.nat(), drafts: fc.array(arbDraft, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pause' as const), at: fc.option(fc.nat({ max: 40 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rebuild' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
);

function apply(w: World, c: TimelineCriteria, o: Op): TimelineCriteria {
  switch (o.op) {
    case 'append':
      w.add(materialise(w, o.drafts));
      return c;
    case 'criteria':
      return o.c;
    case 'one':
      return { ...c, [o.key]: o.c[o.key] };
    case 'type':
      return { ...c, text: c.text + o.ch };
    case 'backspace':
      return { ...c, text: c.text.slice(0, -1) };
    case 'status': {
      const key = `${o.client}\u0000${o.rid}`;
      const req = w.requests.get(key) as { status: string } | undefined;
      // The model mutates its request states in place.
      if (req) req.status = o.status;
      return c;
    }
    case 'request':
      w.requests.set(`${o.client}\u0000${o.rid}`, { status: 'pending', surfaceId: o.surface, actionId: o.action });
      return c;
    case 'forget':
      w.requests.delete(`${o.client}\u0000${o.rid}`);
      return c;
    case 'finding':
      // The model names one more event in a finding (or one again), and its revision moves.
      w.findings.add(`e${o.id}`);
      w.mark++;
      return c;
    case 'duration': {
      const req = w.requests.get(`${o.client}\u0000${o.rid}`) as { durationMs?: number } | undefined;
      if (req) req.durationMs = o.ms;
      return c;
    }
    case 'evict': {
      const n = Math.min(o.n, w.events.length);
      w.events.splice(0, n);
      w.evicted += n;
      return c;
    }
    case 'insert': {
      const at = w.events.length ? o.at % (w.events.length + 1) : 0;
      const evs = materialise(w, o.drafts);
      w.events.splice(at, 0, ...evs);
      for (const ev of evs) {
        w.byId.set(ev.id, ev);
        w.ever.set(ev.id, ev);
      }
      return c;
    }
    case 'pause':
      w.end = o.at === null ? null : Math.min(o.at, w.events.length);
      return c;
    case 'rebuild':
      w.epoch = {};
      return c;
    case 'clear':
      w.events = [];
      w.evicted = 0;
      w.end = null;
      return c;
  }
}

function rowIds(rows: Rows): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows.at(i)!;
    out.push(r.kind === 'exchange' ? `exchange ${r.ev.id} ${r.size}` : `${r.kind} ${r.ev.id}`);
  }
  return out;
}

function ids(evs: readonly WireEvent[] | Matches): string[] {
  return ('toArray' in evs ? evs.toArray() : evs).map((e) => e.id);
}

/** The Timeline's filter before it was made incremental, but for its inputs and the readers, which are this file's. */
function legacyMatches(ev: WireEvent, c: TimelineCriteria, w: World): boolean {
  const field = stringAt;
  const surfaceOf = ownSurface;
  const categoryOf = categoryFor;
  const requestOf = (e: WireEvent) => w.requestOf(e);
  if (c.client && ev.client !== c.client) return false;
  if (c.category ? categoryOf(ev) !== c.category : ev.kind === 'other' && !ev.note) return false;
  const req = c.status || c.text ? requestOf(ev) : undefined;
  if (c.status && req?.status !== c.status) return false;
  // Free text is words now, each of which must be found (the legacy filter took the box as one needle).
  for (const word of c.text.split(/\s+/).filter(Boolean)) if (!w.text(ev).includes(word.toLowerCase())) return false;
  void surfaceOf;
  void field;
  return true;
}

const arbRequests = fc.array(
  fc.record({ client: arbClient, rid: fc.constantFrom(...REQUEST_IDS), surface: fc.constantFrom(...SURFACES), action: fc.constantFrom(...ACTIONS), status: fc.constantFrom(...STATUSES) }),
  { maxLength: 8 },
);

describe('Timeline filter', () => {
  test('the definition is the filter the Timeline had before, for free-text words', () => {
    const arbWords = fc.record({ client: maybe(...CLIENTS), category: maybe(...(CATEGORIES.filter(Boolean) as Category[])), status: maybe(...STATUSES), text: maybe('r', 'RE', 'req', 'go', 'ς', 'σ', 'i̇', 'request s1', 'go {', 'result ', '› go', ' x', 'world') });
    fc.assert(
      fc.property(fc.array(arbDraft, { maxLength: 30 }), arbRequests, arbWords, (drafts, reqs, c) => {
        const w = new World();
        w.add(materialise(w, drafts));
        for (const r of reqs) w.requests.set(`${r.client}\u0000${r.rid}`, { status: r.status, surfaceId: r.surface, actionId: r.action });
        for (const ev of w.events) assert.equal(meetsCriteria(ev, queryOf(c), w.facts), legacyMatches(ev, c, w), `${ev.id} ${JSON.stringify(ev)}`);
      }),
      { numRuns: 300 },
    );
  });

  test('every sequence of live batches, keystrokes, status changes, evictions and insertions gives what the definition gives', () => {
      fc.assert(
        fc.property(fc.array(arbDraft, { maxLength: 30 }), arbRequests, fc.array(arbOp, { minLength: 1, maxLength: 40 }), arbCriteria, (drafts, reqs, ops, start) => {
          const w = new World();
          w.add(materialise(w, drafts));
          for (const r of reqs) w.requests.set(`${r.client}\u0000${r.rid}`, { status: r.status, surfaceId: r.surface, actionId: r.action });
          const f = new TimelineFilter(w);
          let c = start;
          assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
          for (const o of ops) {
            c = apply(w, c, o);
            // The filter learns of changes only through the source, the criteria and the epoch, as in the panel.
            assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)), `after ${JSON.stringify(o)} with ${JSON.stringify(c)}`);
          }
        }),
        { numRuns: 400 },
      );
    });

  test('exchange rows: every sequence of live batches, keystrokes, status changes, evictions, insertions and expansions folds as the definition folds', () => {
    const keys = CLIENTS.flatMap((c) => REQUEST_IDS.map((r) => `${c}\u0000${r}`));
    // Expansions now and then: with none, a live batch's fold goes on from the last one, a path of its own.
    const arbStep = fc.oneof({ weight: 8, arbitrary: arbOp.map((o) => ({ o })) }, { weight: 1, arbitrary: fc.record({ toggle: fc.constantFrom(...keys) }) });
    fc.assert(
      fc.property(fc.array(arbDraft, { maxLength: 30 }), arbRequests, fc.array(arbStep, { minLength: 1, maxLength: 40 }), arbCriteria, fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...keys)) }), (drafts, reqs, steps, start, open) => {
        const w = new World();
        w.add(materialise(w, drafts));
        for (const r of reqs) w.requests.set(`${r.client}\u0000${r.rid}`, { status: r.status, surfaceId: r.surface, actionId: r.action });
        const f = new TimelineFilter(w);
        const x = new Exchanges((id) => w.event(id));
        let c = start;
        let expanded: ReadonlySet<string> = new Set(open);
        const check = (what: string) => {
          const source = w.source();
          const rows = x.fold(source, f.update(source, c, w.epoch), expanded);
          assert.deepEqual(rowIds(rows), w.expectedRows(c, expanded), what);
          // Every row is found where it is.
          for (let i = 0; i < rows.length; i++) assert.equal(rows.indexOf(rows.at(i)!.ev), i);
        };
        check('start');
        for (const s of steps) {
          if ('toggle' in s) {
            const next = new Set(expanded);
            if (!next.delete(s.toggle)) next.add(s.toggle);
            expanded = next;
          } else c = apply(w, c, s.o);
          check(`after ${JSON.stringify(s)} with ${JSON.stringify(c)}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  test('the same text is searched whether it was prepared ahead or built on demand', () => {
    fc.assert(
      fc.property(fc.array(arbDraft, { maxLength: 20 }), arbRequests, fc.array(arbCriteria, { minLength: 1, maxLength: 4 }), (drafts, reqs, cs) => {
        const w = new World();
        w.add(materialise(w, drafts));
        const f = new TimelineFilter(w);
        // Prepared before the model knows the requests: text borrowed from them must follow when it does.
        f.prepare(w.source(), { timeRemaining: () => 50 });
        for (const r of reqs) w.requests.set(`${r.client}\u0000${r.rid}`, { status: r.status, surfaceId: r.surface, actionId: r.action });
        for (const c of cs) assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
      }),
      { numRuns: 200 },
    );
  });

  test('a keystroke that extends the query re-tests only the previous matches', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    w.add(Array.from({ length: 1000 }, (_, i): WireEvent => ({ id: w.nextId(), client: 'a', t: i, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: i }, size: 1 })));
    let c: TimelineCriteria = { ...NO_CRITERIA, text: '9' };
    const first = f.update(w.source(), c, w.epoch).length;
    assert.equal(f.mode, 'full');
    c = { ...c, text: '99' };
    const list = f.update(w.source(), c, w.epoch);
    assert.equal(f.mode, 'narrow');
    assert.equal(f.testedLast, first);
    assert.deepEqual(ids(list), ids(w.expected(c)));
    // Deleting a character admits more: a full pass, over the text already lined up.
    c = { ...c, text: '9' };
    assert.equal(f.update(w.source(), c, w.epoch).length, first);
    assert.equal(f.mode, 'full');
    assert.equal(f.testedLast, 1000);
  });

  test('picking the "other" type shows application traffic the default hides', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    w.add([
      { id: 'app', client: 'a', t: 0, dir: 'in', kind: 'other', raw: 'hello', size: 5 },
      { id: 'cut', client: 'a', t: 0, dir: 'in', kind: 'other', note: 'frame too large', size: 5 },
      { id: 'reg', client: 'a', t: 0, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: { id: 's' } }, size: 5 },
    ]);
    assert.deepEqual(ids(f.update(w.source(), NO_CRITERIA, w.epoch)), ['cut', 'reg']);
    assert.deepEqual(ids(f.update(w.source(), { ...NO_CRITERIA, category: 'other' }, w.epoch)), ['app', 'cut']);
    assert.deepEqual(ids(f.update(w.source(), { ...NO_CRITERIA, category: 'other', text: 'hel' }, w.epoch)), ['app']);
    assert.equal(f.mode, 'narrow');
  });

  test('a live batch tests only the new events, and evictions only drop from the front', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    const make = (n: number) => Array.from({ length: n }, (): WireEvent => ({ id: w.nextId(), client: 'a', t: 0, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: w.events.length }, size: 1 }));
    w.add(make(1000));
    const c: TimelineCriteria = { ...NO_CRITERIA, text: '7' };
    f.update(w.source(), c, w.epoch);
    w.add(make(10));
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
    assert.equal(f.mode, 'append');
    assert.equal(f.testedLast, 10);
    w.events.splice(0, 100);
    w.evicted += 100;
    w.add(make(10));
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
    assert.equal(f.mode, 'append');
    assert.equal(f.testedLast, 10);
    // An event recorded before ones already tested (another frame's late batch): everything again.
    w.events.splice(500, 0, ...make(1));
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
    assert.equal(f.mode, 'full');
  });

  test('a request that succeeds after the fact enters a status filter, and leaves the one it was in', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    const req = (rid: string): WireEvent => ({ id: w.nextId(), client: 'a', t: 0, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: rid, surfaceId: 's1', actionId: 'go', params: {} }, size: 1 });
    const result = (rid: string): WireEvent => ({ id: w.nextId(), client: 'a', t: 0, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: rid, success: true }, size: 1 });
    const noise = Array.from({ length: 200 }, (_, i): WireEvent => ({ id: w.nextId(), client: 'a', t: 0, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: i }, size: 1 }));
    w.add([req('r1'), ...noise, req('r2')]);
    // The model lags the recorder: r2 is recorded but not yet known.
    const r1 = { status: 'running', surfaceId: 's1', actionId: 'go' };
    w.requests.set('a\u0000r1', r1);
    const succeeded: TimelineCriteria = { ...NO_CRITERIA, status: 'succeeded' };
    const running: TimelineCriteria = { ...NO_CRITERIA, status: 'running' };
    const fs = new TimelineFilter(w);
    assert.deepEqual(ids(f.update(w.source(), succeeded, w.epoch)), []);
    assert.deepEqual(ids(fs.update(w.source(), running, w.epoch)), [w.events[0]!.id]);
    w.add([result('r1')]);
    r1.status = 'succeeded';
    w.requests.set('a\u0000r2', { status: 'running', surfaceId: 's1', actionId: 'go' });
    const got = f.update(w.source(), succeeded, w.epoch);
    assert.deepEqual(ids(got), ids(w.expected(succeeded)));
    assert.equal(got.length, 2, 'the request and its result');
    assert.notEqual(f.mode, 'full');
    assert.equal(f.testedLast, 1 + 2, 'the new result, and the events of the request that changed');
    assert.deepEqual(ids(fs.update(w.source(), running, w.epoch)), [w.events[201]!.id]);
    assert.notEqual(fs.mode, 'full');
  });

  test('results and acks borrow their request’s surface and action, for the surface, action and free-text filters', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    const request: WireEvent = { id: 'q', client: 'a', t: 0, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: 'r1', surfaceId: 'cart', actionId: 'checkout', params: {} }, size: 1 };
    const result: WireEvent = { id: 'res', client: 'a', t: 0, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: 'r1', success: true }, size: 1 };
    const ack: WireEvent = { id: 'ack', client: 'a', t: 0, dir: 'in', kind: 'ack', ackOf: 'res', payload: [{ ok: true }], size: 1 };
    w.add([request, result, ack]);
    const c: TimelineCriteria = { ...NO_CRITERIA, text: 'result cart › checkout' };
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), []);
    w.requests.set('a\u0000r1', { status: 'succeeded', surfaceId: 'cart', actionId: 'checkout' });
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ['res']);
    assert.deepEqual(ids(f.update(w.source(), { ...NO_CRITERIA, text: 'action:check' }, w.epoch)), ['q', 'res', 'ack']);
    assert.equal(headOf(ack, w.request('a', 'r1')) + new SearchBodies().of(ack), 'ack cart › checkout [{"ok":true}] ');
    assert.equal(w.text(ack), 'ack cart › checkout [{"ok":true}] ');
  });

  test('an ack keeps its request after the acknowledged event is evicted', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    const request: WireEvent = { id: 'q', client: 'a', t: 0, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: 'r1', surfaceId: 's', actionId: 'go', params: {} }, size: 1 };
    const receipt: WireEvent = { id: 'rc', client: 'a', t: 0, dir: 'out', kind: 'ack', ackOf: 'q', payload: [{ ok: true }], size: 1 };
    w.add([request, receipt]);
    w.requests.set('a\u0000r1', { status: 'running', surfaceId: 's', actionId: 'go' });
    const c: TimelineCriteria = { ...NO_CRITERIA, status: 'running' };
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ['q', 'rc']);
    w.events.splice(0, 1);
    w.evicted++;
    w.byId.delete('q');
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ['rc']);
    assert.deepEqual(ids(w.expected(c)), ['rc']);
  });

  test('a query that runs from the type and target into the payload is found, as in the joined text', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    const ev: WireEvent = { id: 'u', client: 'a', t: 0, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'ΣURF', observationId: 'n', value: 'Σ' }, size: 1 };
    w.add([ev]);
    for (const text of ['› n {"surf', 'σurf › n {', 'n {"surfaceid":"σurf"', 'update σurf › n {"s', 'observation:update σurf › n {"surfaceid":"σurf","observationid":"n","value":"σ"} ', ' n ', 'n  {']) {
      const c: TimelineCriteria = { ...NO_CRITERIA, text };
      assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)), text);
    }
    assert.equal(headOf(ev, undefined) + new SearchBodies().of(ev), `observation:update σurf › n {"surfaceid":"σurf","observationid":"n","value":"σ"} `);
  });

  test('the matches read by index, as the list shows them', () => {
    const w = new World();
    const f = new TimelineFilter(w);
    w.add(Array.from({ length: 50 }, (_, i): WireEvent => ({ id: w.nextId(), client: 'a', t: i, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: i }, size: 1 })));
    const c: TimelineCriteria = { ...NO_CRITERIA, text: '4' };
    const m = f.update(w.source(), c, w.epoch);
    const expected = w.expected(c);
    assert.equal(m.length, expected.length);
    assert.equal(m.at(0), expected[0]);
    assert.equal(m.at(-1), expected[expected.length - 1]);
    assert.equal(m.at(m.length), undefined);
    assert.equal(m.indexOf(expected[3]!), 3);
    assert.equal(m.indexOf(w.events[0]!), -1);
    // Evictions from the front: the matches that remain keep their order.
    w.events.splice(0, 10);
    w.evicted += 10;
    const after = f.update(w.source(), c, w.epoch);
    assert.deepEqual(ids(after), ids(w.expected(c)));
    assert.equal(f.testedLast, 0);
    const total = f.testedTotal;
    f.update(w.source(), { ...c, text: '45' }, w.epoch);
    assert.equal(f.testedTotal, total + f.testedLast);
  });

  test('text prepared and lined up in idle time, whole or cut short, gives the same matches', () => {
      fc.assert(
        fc.property(fc.array(arbDraft, { maxLength: 30 }), arbRequests, fc.array(fc.tuple(arbOp, fc.nat({ max: 4 })), { maxLength: 20 }), arbCriteria, (drafts, reqs, steps, start) => {
          const w = new World();
          w.add(materialise(w, drafts));
          for (const r of reqs) w.requests.set(`${r.client}\u0000${r.rid}`, { status: r.status, surfaceId: r.surface, actionId: r.action });
          // Four events between looks at the deadline: most idle slices below end part-way.
          const f = new TimelineFilter(w, 4);
          let c = start;
          f.update(w.source(), c, w.epoch);
          for (const [o, looks] of steps) {
            c = apply(w, c, o);
            // Idle time between updates, whatever the source did since (it may have evicted or inserted), cut short after a few looks.
            let left = looks;
            f.prepare(w.source(), { timeRemaining: () => (left-- > 0 ? 50 : 0) });
            assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)), `after ${JSON.stringify(o)} with ${JSON.stringify(c)}`);
          }
        }),
        { numRuns: 300 },
      );
    });

  test('idle preparation cut short by the deadline goes on where it stopped, and a keystroke between slices finds what is ready', () => {
    const w = new World();
    const draft = (i: number): Draft => ({ client: 'a', t: i, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: i, timestamp: 1 }, size: 10 });
    w.add(materialise(w, Array.from({ length: 40 }, (_, i) => draft(i))));
    const f = new TimelineFilter(w, 8);
    f.update(w.source(), NO_CRITERIA, w.epoch);
    /** A deadline that gives `looks` looks with time left, then none. */
    const slice = (looks: number) => ({ timeRemaining: () => (looks-- > 0 ? 50 : 0) });
    assert.equal(f.prepare(w.source(), slice(1)), true, 'more remains');
    assert.deepEqual(w.events.map((ev) => f.prepared(ev)), [...Array(16).fill(true), ...Array(24).fill(false)], 'two chunks of 8: the one before the look with time, the one before the look without');
    // A keystroke between slices: text not yet built is built on demand.
    const c: TimelineCriteria = { ...NO_CRITERIA, text: '3' };
    assert.deepEqual(ids(f.update(w.source(), c, w.epoch)), ids(w.expected(c)));
    assert.ok(w.events.every((ev) => f.prepared(ev)));
    // One chunk a slice from where it stopped: 40 events in 8s are done within 6 slices (bodies, then rows).
    let slices = 1;
    while (slices < 20 && f.prepare(w.source(), slice(0))) slices++;
    assert.ok(slices <= 6, `${slices} slices`);
    const c2: TimelineCriteria = { ...c, text: '33' };
    assert.deepEqual(ids(f.update(w.source(), c2, w.epoch)), ids(w.expected(c2)));
    assert.equal(f.mode, 'narrow');
  });

  test('idle preparation keeps up with a live list that is full: events that come after evictions from the front are prepared too', () => {
    const w = new World();
    const draft = (i: number): Draft => ({ client: 'a', t: i, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 's1', observationId: 'n', value: i, timestamp: 1 }, size: 10 });
    w.add(materialise(w, Array.from({ length: 50 }, (_, i) => draft(i))));
    const f = new TimelineFilter(w);
    const idle = { timeRemaining: () => 50 };
    while (f.prepare(w.source(), idle));
    assert.ok(w.events.every((ev) => f.prepared(ev)));
    // A full recorder: as many evicted from the front as come in at the end, so the list keeps its length.
    for (let round = 0; round < 3; round++) {
      w.events.splice(0, 10);
      w.evicted += 10;
      const fresh = materialise(w, Array.from({ length: 10 }, (_, i) => draft(100 + round * 10 + i)));
      w.add(fresh);
      assert.ok(!fresh.some((ev) => f.prepared(ev)));
      while (f.prepare(w.source(), idle));
      assert.ok(fresh.every((ev) => f.prepared(ev)), `round ${round}`);
    }
  });
});
