/**
 * What the Timeline's free text is searched in: "type surface › action raw
 * note", lower-cased, as two parts. The head (type and target, ending in a
 * space) is cheap and follows the request a result or ack borrows its target
 * from; the body (the raw frame, or the payload's JSON cut at 2,000
 * characters, and the note) is what costs, so it is built once per event and
 * kept by this instance.
 *
 * Invariants:
 * - `head + body` is the searchable text; a needle may run across the seam,
 *   which `holds` checks without joining them (a joined string is two-byte
 *   whenever the head has "›", and searching it is about twice as slow as
 *   searching the mostly one-byte body alone).
 * - Lower-casing the parts apart is lower-casing them joined: the space
 *   between them is no context any case mapping reads across.
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { field, short, surfaceOf, typeLabel } from './format.ts';

/** What the head reads of a request; the model's RequestState has it. */
export interface RequestFacts {
  readonly status: string;
  readonly surfaceId: string;
  readonly actionId: string;
}

/** "surface › action" as the Timeline shows it; results and acks borrow both from their request. */
export function targetOf(ev: WireEvent, req: RequestFacts | undefined): string {
  const isRequest = ev.type === 'action:request';
  return [surfaceOf(ev) ?? req?.surfaceId, field(ev, 'actionId') ?? field(ev, 'observationId') ?? (isRequest ? '' : req?.actionId)].filter(Boolean).join(' › ');
}

/** Whether the head of `ev` reads its request's surface or action. */
export function headBorrows(ev: WireEvent): boolean {
  return surfaceOf(ev) === undefined || (field(ev, 'actionId') === undefined && field(ev, 'observationId') === undefined && ev.type !== 'action:request');
}

/** The lower-cased head: type and target, then a space. */
export function headOf(ev: WireEvent, req: RequestFacts | undefined): string {
  return `${typeLabel(ev)} ${targetOf(ev, req)} `.toLowerCase();
}

/** A lower-cased needle, with the ways it can run from a head's end into a body. */
export interface Needle {
  readonly text: string;
  /** [head's end, body's start] pairs; a head ends in a space, so only splits after a space. */
  readonly splits: ReadonlyArray<readonly [string, string]>;
}

export function needleOf(text: string): Needle {
  const splits: Array<[string, string]> = [];
  for (let k = 1; k < text.length; k++) if (text[k - 1] === ' ') splits.push([text.slice(0, k), text.slice(k)]);
  return { text, splits };
}

/** Whether `head + body` holds the needle. */
export function holds(head: string, body: string, n: Needle): boolean {
  if (body.includes(n.text) || head.includes(n.text)) return true;
  for (const [end, start] of n.splits) if (head.endsWith(end) && body.startsWith(start)) return true;
  return false;
}

/** The lower-cased bodies of events, each built once. */
export class SearchBodies {
  private readonly built = new WeakMap<WireEvent, string>();

  of(ev: WireEvent): string {
    let body = this.built.get(ev);
    if (body === undefined) {
      body = `${ev.raw ?? short(ev.payload, 2000)} ${ev.note ?? ''}`.toLowerCase();
      this.built.set(ev, body);
    }
    return body;
  }

  has(ev: WireEvent): boolean {
    return this.built.has(ev);
  }
}
