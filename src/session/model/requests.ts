/**
 * Requests of one client, paired by requestId: first sends and repeats
 * (§7.3.7), receipts, what the client is expected to answer (an unknown
 * surface or action, invalid params), approvals, and the runtime's
 * deadlines (§7.5) and SURFACE_UNAVAILABLE resolutions (§7.2, §7.6.1).
 */
import { BoundedMap } from './bounded.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { isIncomplete } from '../../protocol/index.ts';
import { checkApproval, checkCarriedApproval, needsApproval, recomputeArgsHash } from './approvals.ts';
import { deadlineOf, isObj, q, type ClientTrack, type EventContext, type Expectation, type RequestEntry } from './client-track.ts';
import { errorsLine, validate } from './payload.ts';
import { checkKnownSurfaces, checkRepeat, unknownSurfaceRule } from './session-checks.ts';
import type { AckRecord, RequestState } from './model-types.ts';

/**
 * How long a change of the client's surfaces may take to reach the runtime
 * while a request it sent before learning of it travels the other way. A
 * request for a surface that left the set, or an action a re-registration
 * dropped, this soon after is a crossing, not the runtime's mistake; the
 * client still owes the answer the case calls for.
 */
const CROSSING_MS = 2_000;

/** UUID v4, as §7.3.1 recommends: version nibble 4, variant 10xx. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function onRequest(c: EventContext, p: Record<string, unknown>): void {
  const requestId = p.requestId;
  if (typeof requestId !== 'string') return;
  const { track, ev } = c;
  const existing = track.entries.get(requestId);
  if (existing) return onRepeat(c, existing, p);

  const surfaceId = typeof p.surfaceId === 'string' ? p.surfaceId : '';
  const actionId = typeof p.actionId === 'string' ? p.actionId : '';
  const state: RequestState = {
    requestId,
    surfaceId,
    actionId,
    params: p.params,
    ...(isObj(p.approval) ? { approval: p.approval as unknown as RequestState['approval'] } : {}),
    ...(typeof p.knownSurfaces === 'string' ? { knownSurfaces: p.knownSurfaces } : {}),
    sends: [{ eventId: ev.id, t: ev.t, ...(ev.injected ? { injected: true } : {}) }],
    receipts: [],
    results: [],
    status: 'pending',
  };
  const { surface, action } = track.findAction(surfaceId, actionId);
  if (action) state.action = action;
  const entry: RequestEntry = { state, meta: { async: action?.async === true, repeats: new BoundedMap(track.limits.maxPerRequest) } };
  // The copy was cut at its depth cap: the approval is checked against what was sent.
  if (isIncomplete(p.params)) entry.meta.sentArgsHash = recomputeArgsHash(sentParams(c, p));
  track.addRequest(entry);
  track.sends.set(ev.id, requestId);

  const raise = (rule: 'request-id-format' | 'request-unknown-surface' | 'request-after-transport-loss' | 'request-unknown-action' | 'params-invalid', subject: string, message: string) =>
    track.log.raise({ rule, client: track.key, subject, message, events: [ev.id], t: ev.t });
  if (!UUID.test(requestId)) raise('request-id-format', 'format', `requestId ${q(requestId)} is not a UUID v4 (recommended for global uniqueness)`);
  checkKnownSurfaces(c, requestId, p.knownSurfaces);

  const what = `${surfaceId}/${actionId}`;
  /** The surface changed (`at`) so shortly before that this request crossed the change on the wire. */
  const crossed = (at: number | undefined) => at !== undefined && ev.t - at < CROSSING_MS;
  let expect: Expectation | undefined;
  if (track.setComplete && !track.closed && !surface) {
    expect = { code: 'SURFACE_UNAVAILABLE', why: `surface ${surfaceId} is not registered` };
    const rule = unknownSurfaceRule(track, surfaceId);
    const why = rule === 'request-unknown-surface' ? 'which this client has not registered' : 'which the transport loss deregistered and the client has not registered again';
    if (rule !== 'request-unknown-surface' || !crossed(track.removedAt.get(surfaceId))) raise(rule, requestId, `request ${q(requestId)} targets surface ${q(surfaceId)}, ${why}; it should answer SURFACE_UNAVAILABLE`);
  } else if (surface && !action) {
    expect = { code: 'ACTION_NOT_FOUND', why: `surface ${surfaceId} declares no action ${actionId}` };
    if (!crossed(track.replacedAt.get(surfaceId))) raise('request-unknown-action', requestId, `request ${q(requestId)} asks for action ${q(actionId)}, which surface ${q(surfaceId)} does not declare; it should answer ACTION_NOT_FOUND`);
  } else if (action) {
    const verdict = validate(p.params, action.input);
    if (!verdict.valid) {
      expect = { code: 'VALIDATION_ERROR', why: 'params do not conform to the input schema' };
      raise('params-invalid', requestId, `params of request ${q(requestId)} for ${what} do not conform to its input (${errorsLine(verdict)}); the client must answer VALIDATION_ERROR`);
    }
  }
  if (expect) entry.meta.expect = expect;
  if (action && needsApproval(action)) {
    entry.meta.approval = checkApproval(c, { requestId, surfaceId, actionId, params: p.params, approval: p.approval }, action, c.ev, entry.meta.sentArgsHash);
  } else checkCarriedApproval(c, { requestId, params: p.params, approval: p.approval }, entry.meta.sentArgsHash);
}

/** A request's params as sent (before the parser's copy cut anything), where the model has them. */
function sentParams(c: EventContext, p: Record<string, unknown>): unknown {
  return c.raw && Object.hasOwn(c.raw, 'params') ? c.raw.params : p.params;
}

/**
 * Whether a repeat carries the first request's params. Copies cut at the
 * parser's depth cap are compared by the argsHash of what was sent: equal
 * copies say nothing of what lies deeper.
 */
function sameParams(c: EventContext, entry: RequestEntry, p: Record<string, unknown>): boolean {
  if (!jsonEqual(p.params, entry.state.params)) return false;
  const first = entry.meta.sentArgsHash;
  if (!isIncomplete(p.params) || !first?.ok) return true;
  const again = recomputeArgsHash(sentParams(c, p));
  return !again.ok || again.hash === first.hash;
}

/** The same requestId sent again (§7.3.7). */
function onRepeat(c: EventContext, entry: RequestEntry, p: Record<string, unknown>): void {
  const { track, ev } = c;
  const req = entry.state;
  track.pushEntry(req.sends, { eventId: ev.id, t: ev.t, ...(ev.injected ? { injected: true } : {}) });
  track.sends.set(ev.id, req.requestId);
  const ack: AckRecord = { kind: 'repeat', eventId: ev.id, t: ev.t, requestId: req.requestId, handling: 'not answered' };
  track.push('acks', ack);
  entry.meta.repeats.set(ev.id, { t: ev.t, ack, answered: false });
  if (p.surfaceId !== req.surfaceId || p.actionId !== req.actionId || !sameParams(c, entry, p)) {
    track.log.raise({
      rule: 'request-id-reused',
      client: track.key,
      subject: req.requestId,
      message: `requestId ${q(req.requestId)} was sent for ${req.surfaceId}/${req.actionId} and again for ${q(p.surfaceId)}/${q(p.actionId)} or other params; a requestId names one request`,
      events: [ev.id, req.sends[0]!.eventId],
      t: ev.t,
    });
  } else checkRepeat(c, entry);
}

/** A receipt: the client's acknowledgment of a request (§7.3.7). */
export function onReceipt(c: EventContext, sendEventId: string, requestId: string, ack: { ok: boolean; reason?: string }): void {
  const { track, ev } = c;
  const entry = track.entries.get(requestId);
  if (!entry) return;
  const repeat = entry.meta.repeats.get(sendEventId);
  if (repeat && !repeat.answered) repeat.ack.handling = ack.ok ? 'receipt only' : `refused on receipt: ${ack.reason ?? ''}`;
  track.pushEntry(entry.state.receipts, { eventId: ev.id, t: ev.t, ok: ack.ok, ...(ack.reason !== undefined ? { reason: ack.reason } : {}) });
  track.push('acks', { kind: 'receipt', eventId: ev.id, t: ev.t, requestId, ok: ack.ok, ...(ack.reason !== undefined ? { reason: ack.reason } : {}) });
  const req = entry.state;
  if (ack.ok) {
    if (req.status === 'pending') req.status = 'running';
  } else if (!repeat && !entry.meta.final && req.results.length === 0) {
    // Refused on receipt: the client will not run it, so there is no deadline to wait out.
    entry.meta.receiptRefused = { eventId: ev.id, reason: ack.reason ?? '' };
    req.status = 'failed';
    track.open.delete(entry);
  }
}

/**
 * Pending requests the runtime resolves SURFACE_UNAVAILABLE: their surface
 * went away (§7.2) or the transport did (§7.6.1). What the runtime does with
 * them stays inside it, so this marks the requests and raises nothing: the
 * client answering afterwards is the §7.3.4 navigation case, not a fault.
 */
export function resolveUnavailable(c: EventContext, which: (req: RequestState) => boolean, why: string): void {
  const { track, ev } = c;
  for (const entry of [...track.open]) {
    const req = entry.state;
    if (entry.meta.final || !which(req)) continue;
    req.resolution = { code: 'SURFACE_UNAVAILABLE', t: ev.t, eventId: ev.id, why };
    req.status = 'failed';
    track.open.delete(entry);
  }
}

/**
 * The runtime's deadlines (§7.5) as of `now`: a request past it is one the
 * runtime answered TIMEOUT itself and stopped waiting for. Shown on the
 * request, never as a finding: the timer is the runtime's, and "the surface
 * MAY still complete the operation".
 */
export function tickRequests(track: ClientTrack, now: number): void {
  for (const entry of [...track.open]) {
    const first = entry.state.sends[0];
    if (!first || entry.meta.timedOut) continue;
    const answered = entry.meta.async ? entry.meta.firstInterim || entry.meta.final : entry.meta.final;
    if (answered || now - first.t <= deadlineOf(track, entry)) continue;
    entry.meta.timedOut = true;
    entry.state.status = 'timed-out';
    track.open.delete(entry);
  }
}
