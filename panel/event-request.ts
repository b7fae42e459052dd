/**
 * The request an event belongs to, and what its answer says. An event's
 * request is its own `requestId`, or for an ack the one of the event it
 * acknowledges. The ack's answer is kept per instance
 * once found, so it stays the same after the acknowledged event is evicted
 * from the recorder (and out of its by-id lookup).
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import type { RequestState } from '../src/session/model/model-types.ts';
import { field, ms } from './display-text.ts';

export class RequestIds {
  /** '' when the acknowledged event has no request. */
  private readonly ofAck = new WeakMap<WireEvent, string>();

  constructor(private readonly eventById: (id: string) => WireEvent | undefined) {}

  of(ev: WireEvent): string | undefined {
    const id = field(ev, 'requestId');
    if (id || ev.kind !== 'ack' || !ev.ackOf) return id || undefined;
    const known = this.ofAck.get(ev);
    if (known !== undefined) return known || undefined;
    const target = this.eventById(ev.ackOf);
    if (!target) return undefined;
    const found = field(target, 'requestId') ?? '';
    this.ofAck.set(ev, found);
    return found || undefined;
  }
}

/** What answered a request: its final result (the last that is not interim), else the runtime's own resolution. */
export interface Answer {
  readonly success: boolean;
  /** For a failed answer. */
  readonly code?: string;
  readonly message?: string;
  /** The event that carries it. */
  readonly eventId: string;
}

export function answerOf(req: RequestState): Answer | undefined {
  for (let k = req.results.length - 1; k >= 0; k--) {
    const r = req.results[k]!;
    if (r.result.interim === true) continue;
    const e = r.result.error;
    return r.result.success
      ? { success: true, eventId: r.eventId }
      : { success: false, eventId: r.eventId, ...(typeof e?.code === 'string' ? { code: e.code } : {}), ...(typeof e?.message === 'string' ? { message: e.message } : {}) };
  }
  if (req.resolution) return { success: false, code: req.resolution.code, message: req.resolution.why, eventId: req.resolution.eventId };
  return undefined;
}

/** "ACTION_DENIED: approval required: …", for a failed answer; undefined for any other. */
export function failureText(req: RequestState): string | undefined {
  const a = answerOf(req);
  if (!a || a.success) return undefined;
  return [a.code, a.message].filter(Boolean).join(': ') || 'error with no code';
}

/** Failed, or never answered in time: the rows the Timeline tints. */
export function isFailure(req: RequestState | undefined): boolean {
  return req?.status === 'failed' || req?.status === 'timed-out';
}

/**
 * The line the detail opens on for an event of a request: its status,
 * duration, and for a failed answer its code and message ("failed ·
 * ACTION_DENIED: approval required: …").
 */
export function requestSummary(req: RequestState): string {
  const failure = failureText(req);
  return [req.status, failure, failure ? '' : ms(req.durationMs)].filter(Boolean).join(' · ');
}
