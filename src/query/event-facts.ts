/**
 * An event's facts as a query reads them, from a session's events and its
 * model: what `oui-devtools lint --filter` and the fixture's
 * `oui.events({ filter })` filter with. The Timeline reads the same facts
 * from its prepared rows (panel/incremental-filter.ts); this is the plain
 * reading of each, one event at a time.
 */
import { jsonPrefix } from '../protocol/json-text.ts';
import type { Finding, RequestState } from '../session/model/model-types.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import { meetsTerms, type QueryFacts } from './match.ts';
import { errorText, parseQuery, type Flag, type Term } from './parse.ts';
import { categoryOf, eventSurface, eventType, stringField } from '../session/wire/event-fields.ts';

export { eventSurface, eventType, stringField };



export const CATEGORIES = ['requests', 'results', 'registrations', 'observations', 'acks', 'extensions', 'lifecycle', 'malformed', 'other'] as const;

/** What the facts read of a session. */
export interface SessionView {
  readonly clients: ReadonlyMap<string, WireClient>;
  /** The recorded event by id (an ack's target). */
  event(id: string): WireEvent | undefined;
  request(client: string, requestId: string): RequestState | undefined;
  readonly findings: readonly Finding[];
  isExperiment(eventId: string): boolean;
}

/** The request an event belongs to: its own `requestId`, or for an ack the acknowledged event's. */
export function requestIdOf(ev: WireEvent, event: (id: string) => WireEvent | undefined): string | undefined {
  const id = stringField(ev, 'requestId');
  if (id || ev.kind !== 'ack' || !ev.ackOf) return id || undefined;
  const target = event(ev.ackOf);
  return (target && stringField(target, 'requestId')) || undefined;
}

/** The lower-cased searchable text: type, "surface › action", the raw frame (or the payload's JSON, cut at 2,000 characters) and the note. */
export function searchText(ev: WireEvent, req: Pick<RequestState, 'surfaceId' | 'actionId'> | undefined): string {
  const target = [eventSurface(ev) ?? req?.surfaceId, stringField(ev, 'actionId') ?? stringField(ev, 'observationId') ?? (ev.type === 'action:request' ? '' : req?.actionId)].filter(Boolean).join(' › ');
  let body: string;
  if (ev.raw !== undefined) body = ev.raw;
  else if (typeof ev.payload === 'string') body = ev.payload;
  else {
    let s: string;
    try {
      s = jsonPrefix(ev.payload, 2001) ?? String(ev.payload);
    } catch {
      s = '';
    }
    body = s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
  }
  return `${eventType(ev)} ${target} ${body} ${ev.note ?? ''}`.toLowerCase();
}

/** Facts of events read one at a time from `view`. */
export function sessionFacts(view: SessionView): QueryFacts<WireEvent> {
  const reqOf = (ev: WireEvent) => {
    const id = requestIdOf(ev, (x) => view.event(x));
    return id === undefined ? undefined : view.request(ev.client, id);
  };
  let named: Set<string> | undefined;
  const texts = new WeakMap<WireEvent, string>();
  const text = (ev: WireEvent) => {
    let t = texts.get(ev);
    if (t === undefined) texts.set(ev, (t = searchText(ev, reqOf(ev))));
    return t;
  };
  return {
    type: eventType,
    category: categoryOf,
    clientNames: (ev) => {
      const c = view.clients.get(ev.client);
      return c ? [c.key, c.kind, c.label] : [ev.client];
    },
    surface: (ev) => eventSurface(ev) ?? reqOf(ev)?.surfaceId ?? '',
    action: (ev) => stringField(ev, 'actionId') ?? reqOf(ev)?.actionId ?? '',
    status: (ev) => reqOf(ev)?.status,
    dir: (ev) => ev.dir,
    durationMs: (ev) => reqOf(ev)?.durationMs,
    size: (ev) => ev.size,
    hasFinding: (ev) => (named ??= new Set(view.findings.flatMap((f) => f.events))).has(ev.id),
    is: (ev, flag: Flag) => {
      switch (flag) {
        case 'experiment':
          return ev.injected === true || view.isExperiment(ev.id);
        case 'faulted':
          return ev.faulted !== undefined;
        case 'injected':
          return ev.injected === true;
        case 'held':
          return ev.held === true;
      }
    },
    holds: (ev, needle) => text(ev).includes(needle),
    text,
  };
}

/** A query's terms, or an Error naming every bad term and its place (for callers that stop on one: the CLI, a test). */
export function compileQuery(query: string): readonly Term[] {
  const { terms, errors } = parseQuery(query);
  if (errors.length) throw new Error(`bad filter ${JSON.stringify(query)}: ${errors.map((e) => errorText(e, query)).join('; ')}`);
  return terms;
}

/** The events of `events` that meet every term. */
export function filterEvents(events: readonly WireEvent[], terms: readonly Term[], view: SessionView): WireEvent[] {
  const facts = sessionFacts(view);
  return events.filter((ev) => meetsTerms(ev, terms, facts));
}
