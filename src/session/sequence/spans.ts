/**
 * The sequence view's layout: the model's requests as spans on lanes, a lane
 * per client and one for the runtime. Pure (no DOM): the panel draws it, the
 * bench and the tests read it.
 *
 * A request's span runs from its first send (the runtime's `action:request`)
 * through what the client answers — its receipt (§7.3.7), an async action's
 * interim acknowledgment, the final result (§7.3.3) — to the runtime's
 * acknowledgment of that result (§7.3.6), whichever of those came last. A
 * request with no final result and no resolution by the runtime is still in
 * flight: its span is open and runs to `now`. The runtime lane holds the
 * runtime's own turn of each exchange: from the final result to its
 * acknowledgment of it.
 */
import type { Finding, RequestState, RequestStatus, ResultRecord } from '../model/model-types.ts';
import type { WireEvent } from '../wire/wire.ts';

export type MarkKind = 'fault' | 'refusal' | 'resend' | 'finding' | 'failed' | 'injected' | 'held';

export interface SpanMark {
  kind: MarkKind;
  t: number;
  eventId: string;
  /** One line for the user: what the mark says. */
  text: string;
}

/** Flags of a span, for drawing without reading its marks. */
export const FLAG = { fault: 1, refusal: 2, resend: 4, finding: 8, failed: 16, open: 32, experiment: 64 } as const;

export interface Span {
  lane: number;
  /** Row within the lane: concurrent spans stack (see `MAX_ROWS`). */
  row: number;
  client: string;
  requestId: string;
  surfaceId: string;
  actionId: string;
  status: RequestStatus;
  start: number;
  /** `now` for an open span. */
  end: number;
  /** The moments it went through, where seen (first of each). */
  receiptAt?: number;
  interimAt?: number;
  resultAt?: number;
  ackAt?: number;
  /** From the first send to each moment, ms. */
  durations: { receipt?: number; interim?: number; result?: number; ack?: number };
  /** The event that opens it: the first send (or, on the runtime lane, the final result). */
  eventId: string;
  flags: number;
  marks: SpanMark[];
  /** Error code of a failed final result, or the runtime's resolution. */
  code?: string;
}

export interface Lane {
  key: string;
  label: string;
  kind: 'client' | 'runtime';
  /** Rows the lane's spans use (1..MAX_ROWS). */
  rows: number;
}

export interface SequenceLayout {
  lanes: Lane[];
  /** In `compareSpans` order: by start, then lane. */
  spans: Span[];
  t0: number;
  t1: number;
}

/** Concurrent spans of a lane stack in up to this many rows; more share the least busy row. */
export const MAX_ROWS = 4;

export interface SequenceSource {
  /** Per client, its requests (the session model's `clients`). */
  clients: ReadonlyMap<string, { client: { key: string; label: string }; requests: ReadonlyMap<string, RequestState>; dropped?: Readonly<Record<string, number>> }>;
  findings: readonly Finding[];
  /** Findings the model dropped to stay bounded: a change tells the live layout to look for marks that went with them. */
  readonly findingsDropped?: number;
}

/** The runtime's lane key (no client key is empty). */
export const RUNTIME_LANE = '';

/**
 * Lays out the spans. `eventOf` finds a recorded event by id (for the fault,
 * held and injected marks the model does not keep); `now` ends open spans.
 */
export function buildSequence(src: SequenceSource, eventOf: (id: string) => WireEvent | undefined, now: number): SequenceLayout {
  const findingsByEvent = new Map<string, Finding[]>();
  for (const f of src.findings) for (const id of f.events) addTo(findingsByEvent, id, f);
  const lanes: Lane[] = [{ key: RUNTIME_LANE, label: 'Runtime', kind: 'runtime', rows: 1 }];
  const spans: Span[] = [];
  for (const [key, c] of src.clients) {
    const lane = lanes.length;
    lanes.push({ key, label: c.client.label || key, kind: 'client', rows: 1 });
    for (const req of c.requests.values()) {
      const span = requestSpan(req, key, lane, eventOf, findingsByEvent, now);
      if (!span) continue;
      spans.push(span);
      const turn = runtimeTurn(span, req, key);
      if (turn) spans.push(turn);
    }
  }
  spans.sort(compareSpans);
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const s of spans) {
    if (s.start < t0) t0 = s.start;
    if (s.end > t1) t1 = s.end;
  }
  assignRows(spans, lanes);
  if (!spans.length) t0 = t1 = now;
  return { lanes, spans, t0, t1 };
}

export function addTo<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  const list = map.get(k);
  if (list) list.push(v);
  else map.set(k, [v]);
}

/**
 * The one order of spans: by start, then lane, then (on the runtime's lane,
 * where several clients meet) client, then request id. Total, and free of
 * `end`, which an open span's moves with the clock: the live layout
 * (live.ts) inserts where this says and lands where a whole rebuild does.
 */
export function compareSpans(a: Span, b: Span): number {
  return a.start - b.start || a.lane - b.lane || cmpStr(a.client, b.client) || cmpStr(a.requestId, b.requestId);
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The end a span holds its row to: an open span holds it for good (it runs to now, and now only grows). */
export function rowEnd(s: Span): number {
  return s.flags & FLAG.open ? Infinity : s.end;
}

function finalOf(req: RequestState): ResultRecord | undefined {
  return req.results.find((r) => r.result.interim !== true && !r.forRepeat);
}

export function requestSpan(
  req: RequestState,
  client: string,
  lane: number,
  eventOf: (id: string) => WireEvent | undefined,
  findingsByEvent: ReadonlyMap<string, Finding[]>,
  now: number,
): Span | undefined {
  const first = req.sends[0];
  if (!first) return undefined;
  const start = first.t;
  const receipt = req.receipts[0];
  const interim = req.results.find((r) => r.result.interim === true);
  const final = finalOf(req);
  const marks: SpanMark[] = [];
  let flags = 0;
  const mark = (kind: MarkKind, t: number, eventId: string, text: string) => {
    marks.push({ kind, t, eventId, text });
    flags |= FLAG[kind === 'injected' || kind === 'held' ? 'experiment' : kind];
  };
  // Every event of the exchange: the sends, receipts, results and the runtime's acks of them (two flat lists: this runs per request at 100,000 events).
  const ids: string[] = [];
  const ts: number[] = [];
  for (const x of req.sends) ids.push(x.eventId), ts.push(x.t);
  for (const x of req.receipts) ids.push(x.eventId), ts.push(x.t);
  for (const r of req.results) {
    ids.push(r.eventId), ts.push(r.t);
    if (r.ack) ids.push(r.ack.eventId), ts.push(r.ack.t);
  }
  let last = start;
  for (const t of ts) if (t > last) last = t;

  for (let i = 1; i < req.sends.length; i++) mark('resend', req.sends[i]!.t, req.sends[i]!.eventId, `sent again (${i + 1}${ordinal(i + 1)} send)`);
  // A result sent again after its receiver refused it: a second final that answers no repeat.
  for (const r of req.results) if (r !== final && r.result.interim !== true && !r.forRepeat) mark('resend', r.t, r.eventId, 'result sent again');
  for (const r of req.receipts) if (!r.ok) mark('refusal', r.t, r.eventId, `refused on receipt${r.reason ? `: ${r.reason}` : ''}`);
  for (const r of req.results) if (r.ack && !r.ack.ok) mark('refusal', r.ack.t, r.ack.eventId, `result refused by the runtime${r.ack.reason ? `: ${r.ack.reason}` : ''}`);
  let code: string | undefined;
  if (final && !final.result.success) {
    code = final.result.error?.code ?? 'error';
    mark('failed', final.t, final.eventId, `failed: ${code}`);
  }
  if (req.resolution) {
    code = req.resolution.code;
    mark('failed', req.resolution.t, req.resolution.eventId, `resolved ${req.resolution.code} by the runtime: ${req.resolution.why}`);
  }
  let seen: Set<string> | undefined;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const t = ts[k]!;
    const ev = eventOf(id);
    if (ev?.faulted) mark('fault', t, id, `faulted by you: ${ev.fault ?? 'changed'} (rule ${ev.faulted})`);
    if (ev?.injected) mark('injected', t, id, 'injected by you');
    if (ev?.held) mark('held', t, id, "held back from the app's runtime");
    const found = findingsByEvent.get(id);
    if (!found) continue;
    seen ??= new Set();
    for (const f of found) {
      if (seen.has(f.id)) continue;
      seen.add(f.id);
      mark('finding', t, id, `${f.severity}: ${f.message}`);
    }
  }
  const settled = final !== undefined || req.resolution !== undefined || req.status === 'failed' || req.status === 'succeeded';
  if (req.status === 'failed' && !code) flags |= FLAG.failed;
  if (!settled) flags |= FLAG.open;
  if (marks.length > 1) marks.sort((a, b) => a.t - b.t);
  const durations: Span['durations'] = {};
  if (receipt) durations.receipt = receipt.t - start;
  if (interim) durations.interim = interim.t - start;
  if (final) durations.result = final.t - start;
  if (final?.ack) durations.ack = final.ack.t - start;
  const span: Span = {
    lane,
    row: 0,
    client,
    requestId: req.requestId,
    surfaceId: req.surfaceId,
    actionId: req.actionId,
    status: req.status,
    start,
    end: settled ? last : Math.max(now, last),
    durations,
    eventId: first.eventId,
    flags,
    marks,
  };
  if (receipt) span.receiptAt = receipt.t;
  if (interim) span.interimAt = interim.t;
  if (final) span.resultAt = final.t;
  if (final?.ack) span.ackAt = final.ack.t;
  if (code) span.code = code;
  return span;
}

/** The latest moment of a request's exchange: where its span ends once nothing more comes. */
export function lastMoment(req: RequestState): number {
  let last = req.sends[0]?.t ?? -Infinity;
  for (const x of req.sends) if (x.t > last) last = x.t;
  for (const x of req.receipts) if (x.t > last) last = x.t;
  for (const r of req.results) {
    if (r.t > last) last = r.t;
    if (r.ack && r.ack.t > last) last = r.ack.t;
  }
  return last;
}

/** The runtime's turn: from the final result to its acknowledgment of it (§7.3.6). */
export function runtimeTurn(span: Span, req: RequestState, client: string): Span | undefined {
  const final = finalOf(req);
  if (!final?.ack) return undefined;
  const refused = !final.ack.ok;
  return {
    lane: 0,
    row: 0,
    client,
    requestId: req.requestId,
    surfaceId: req.surfaceId,
    actionId: req.actionId,
    status: req.status,
    start: final.t,
    end: final.ack.t,
    resultAt: final.t,
    ackAt: final.ack.t,
    durations: { ack: final.ack.t - final.t },
    eventId: final.ack.eventId,
    flags: (refused ? FLAG.refusal : 0) | (span.flags & FLAG.fault),
    marks: refused ? [{ kind: 'refusal', t: final.ack.t, eventId: final.ack.eventId, text: `result refused${final.ack.reason ? `: ${final.ack.reason}` : ''}` }] : [],
  };
}

function ordinal(n: number): string {
  return n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th';
}

/**
 * Greedy rows per lane, in span order: a span takes the first row free by
 * its start, else the row that frees first. `rows` is the row ends so far
 * (at most MAX_ROWS); returns the span's row and updates `rows`.
 */
export function placeRow(rows: number[], s: Span): number {
  let row = -1;
  for (let r = 0; r < rows.length; r++) if (rows[r]! <= s.start) {
    row = r;
    break;
  }
  if (row < 0) {
    if (rows.length < MAX_ROWS) row = rows.length;
    else {
      row = 0;
      for (let r = 1; r < rows.length; r++) if (rows[r]! < rows[row]!) row = r;
    }
  }
  const end = rowEnd(s);
  rows[row] = Math.max(rows[row] ?? -Infinity, end);
  return row;
}

function assignRows(spans: Span[], lanes: Lane[]): void {
  const ends = lanes.map(() => [] as number[]);
  for (const s of spans) s.row = placeRow(ends[s.lane]!, s);
  lanes.forEach((l, i) => (l.rows = Math.max(1, ends[i]!.length)));
}
