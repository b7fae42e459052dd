/**
 * Rules about how state evolves over a session, beyond one message's shape:
 * what a transport loss leaves behind (§7.6.1), a surface that stopped
 * answering without deregistering (§7.2), what the runtime holds of the
 * client's surfaces between results (§7.3.4), how the runtime repeats a
 * request (§7.3.7, §7.5), and a malformed request the client answered
 * anyway (§7.6.2). Called from the request, result and observation
 * handlers; what they need to remember is kept beside the track.
 */
import { BoundedMap } from './bounded.ts';
import { deadlineOf, isObj, q, secs, type ClientTrack, type EventContext, type RequestEntry } from './client-track.ts';
import { versionAtLeast } from './rules.ts';

interface Memory {
  /** Requests the client had to ignore as malformed (§7.6.2), by requestId → the event. */
  ignored: BoundedMap<string, string>;
  /**
   * The last result the runtime took in had no surfaces under a hash it holds
   * nothing under: it MUST send no knownSurfaces until it has them again (§7.3.4).
   */
  unheld?: { hash: string; eventId: string };
}

const memories = new WeakMap<ClientTrack, Memory>();

function memory(track: ClientTrack): Memory {
  let m = memories.get(track);
  if (!m) memories.set(track, (m = { ignored: new BoundedMap(1000) }));
  return m;
}

/** A registered surface the transport loss took away (§7.6.1), on this connection or the one it replaces, and not registered since. */
export function lostWithTransport(track: ClientTrack, surfaceId: string): boolean {
  return !track.state.surfaces.has(surfaceId) && track.lost.has(surfaceId);
}

/** Which rule a request to a surface the client does not have breaks: one it deregistered (§7.2), or one lost with the transport (§7.6.1). */
export function unknownSurfaceRule(track: ClientTrack, surfaceId: string): 'request-unknown-surface' | 'request-after-transport-loss' {
  return lostWithTransport(track, surfaceId) ? 'request-after-transport-loss' : 'request-unknown-surface';
}

// -- §7.6.2: a malformed request is ignored ------------------------------------

/** An event the client had to ignore as malformed: remember a request's id, to tell if it was answered anyway. */
export function noteIgnoredRequest(c: EventContext, type: string, copy: Record<string, unknown> | undefined): void {
  if (type !== 'action:request' || c.ev.dir !== 'in' || !copy) return;
  const id = copy.requestId;
  if (typeof id === 'string' && id !== '') memory(c.track).ignored.set(id, c.ev.id);
}

/** A result for a request the client never took in: raises malformed-not-ignored when that request was a malformed one. */
export function answeredIgnored(c: EventContext, requestId: string): boolean {
  const eventId = memory(c.track).ignored.get(requestId);
  if (eventId === undefined) return false;
  c.track.log.raise({
    rule: 'malformed-not-ignored',
    client: c.track.key,
    subject: requestId,
    message: `result for ${q(requestId)}, a malformed request the client had to ignore`,
    events: [c.ev.id, eventId],
    t: c.ev.t,
  });
  return true;
}

// -- §7.3.4: what the runtime holds --------------------------------------------

/**
 * A result the runtime took in (not discarded): with `surfaces` it has them
 * again; without them, it keeps the set it holds under that hash, or, holding
 * none, treats the client's surfaces as unknown.
 */
export function noteHeldSurfaces(c: EventContext, r: Record<string, unknown>, knownSurfaces?: string): void {
  const hash = r.surfacesHash;
  if (typeof hash !== 'string') return;
  const m = memory(c.track);
  // The request said the runtime holds surfaces under this hash (a snapshot outside the capture, §7.3.5): it keeps them (§7.3.4).
  if (Array.isArray(r.surfaces) || c.track.heldBy.has(hash) || hash === knownSurfaces) m.unheld = undefined;
  else m.unheld = { hash, eventId: c.ev.id };
}

/** A registration gave the runtime surfaces again: it may send knownSurfaces once more. */
export function clearUnheld(track: ClientTrack): void {
  const m = memories.get(track);
  if (m) m.unheld = undefined;
}

/** A request's knownSurfaces while the runtime must send none (§7.3.4). */
export function checkKnownSurfaces(c: EventContext, requestId: string, knownSurfaces: unknown): void {
  if (typeof knownSurfaces !== 'string' || c.ev.injected) return;
  const unheld = memory(c.track).unheld;
  if (!unheld) return;
  c.track.log.raise({
    rule: 'known-surfaces-unheld',
    client: c.track.key,
    subject: requestId,
    message: `request ${q(requestId)} carries knownSurfaces ${q(knownSurfaces)}, but the last result had no surfaces under ${unheld.hash}, a hash no surfaces were ever seen under; the runtime must send no knownSurfaces until it has them again`,
    events: [c.ev.id, unheld.eventId],
    t: c.ev.t,
  });
}

// -- §7.3.7, §7.5: how the runtime repeats a request ---------------------------

/** The same requestId sent again: after its deadline, after a receipt, or without backing off. `entry.state.sends` already holds this send. */
export function checkRepeat(c: EventContext, entry: RequestEntry): void {
  const { track, ev } = c;
  const req = entry.state;
  const { meta } = entry;
  if (ev.injected) return;
  const first = req.sends[0];
  if (!first || first.eventId === ev.id) return;
  const raise = (rule: 'retry-after-timeout' | 'resent-despite-receipt' | 'resent-without-backoff', message: string, events: string[]) =>
    track.log.raise({ rule, client: track.key, subject: `${req.requestId}@${ev.id}`, message, events: [ev.id, ...events], t: ev.t });

  // A refusal on receipt frees the sender to try again.
  if (meta.receiptRefused) return;
  const limit = deadlineOf(track, entry);
  const answer = meta.async ? (meta.firstInterim ?? meta.final) : meta.final;
  // An answer the client sent asking for an acknowledgment that never came may never have reached the runtime:
  // then its timer ran out, and this send is a retry.
  const reached = answer !== undefined && (!answer.wantsAck || (answer.ack !== undefined && answer.ack.t <= ev.t));
  const answeredInTime = answer !== undefined && reached && answer.t - first.t <= limit;
  if (!answeredInTime && (meta.timedOut || ev.t - first.t > limit)) {
    raise(
      'retry-after-timeout',
      `request ${q(req.requestId)} was sent again ${secs(ev.t - first.t)} after the first send, past the ${secs(limit)} deadline at which the runtime answers TIMEOUT; it must not retry automatically`,
      [first.eventId],
    );
    return;
  }
  const receipt = req.receipts.find((x) => x.ok && x.t <= ev.t);
  if (receipt && !(meta.final && meta.final.t <= ev.t)) {
    raise('resent-despite-receipt', `request ${q(req.requestId)} was sent again although the client had acknowledged receiving it; the sender should wait for the answer`, [receipt.eventId]);
    return;
  }
  if (receipt) return;
  const n = req.sends.length;
  if (n < 3) return;
  const [a, b, last] = [req.sends[n - 3]!, req.sends[n - 2]!, req.sends[n - 1]!];
  if (last.eventId !== ev.id || a.injected || b.injected) return;
  const before = b.t - a.t;
  const now = last.t - b.t;
  if (now <= before) {
    raise(
      'resent-without-backoff',
      `request ${q(req.requestId)} was sent ${n} times without a receipt, the last ${secs(now)} after the one before, which came ${secs(before)} after its own; a sender without a receipt should back off`,
      [a.eventId, b.eventId],
    );
  }
}

// -- §7.2, §7.6.1: the client's answer and its surfaces -------------------------

/** The final answer of a request, against what the client has registered. */
export function checkAnswerSurfaces(c: EventContext, entry: RequestEntry, r: Record<string, unknown>): void {
  const { track, ev } = c;
  const req = entry.state;
  const code = isObj(r.error) && typeof r.error.code === 'string' ? r.error.code : undefined;
  // A result that reports the client's surfaces without this one says it is gone: a snapshot client need not deregister (§7.3.5).
  const sent = c.raw ?? r;
  const reportedGone = Array.isArray(sent.surfaces) && !sent.surfaces.some((s) => isObj(s) && s.id === req.surfaceId);
  if (r.success === false && code === 'SURFACE_UNAVAILABLE' && track.state.surfaces.has(req.surfaceId) && !reportedGone) {
    const reg = track.state.surfaces.get(req.surfaceId)!;
    track.log.raise({
      rule: 'unavailable-while-registered',
      client: track.key,
      subject: req.surfaceId,
      message: `request ${q(req.requestId)} was answered SURFACE_UNAVAILABLE, but surface ${q(req.surfaceId)} is still registered: a surface that became inactive must send surface:deregister`,
      events: [ev.id, reg.eventId],
      t: ev.t,
    });
  }
  // A request the loss caught pending is the runtime's to resolve; one that came after it and was answered as by an active
  // surface (anything but SURFACE_UNAVAILABLE) used a surface the client never registered again.
  if (!req.resolution && code !== 'SURFACE_UNAVAILABLE' && lostWithTransport(track, req.surfaceId)) notReregistered(c, req.surfaceId, `answered ${q(req.requestId)} for it`);
}

/** The client used a surface the transport loss took away without registering it again (§7.6.1). */
export function notReregistered(c: EventContext, surfaceId: string, how: string): void {
  const { track, ev } = c;
  const lostAt = track.lost.get(surfaceId);
  track.log.raise({
    rule: 'not-reregistered',
    client: track.key,
    subject: surfaceId,
    message: `surface ${q(surfaceId)} was lost with the transport and the client ${how} without registering it again; on reconnection surfaces must re-register`,
    events: [ev.id, ...(lostAt ? [lostAt] : [])],
    t: ev.t,
  });
}

// -- 0.2.0: an async action's acknowledgment is its first result ----------------

/**
 * Before 0.4.0 no field marked an async action's acknowledgment: it is the
 * first result, whatever it says. From 0.4.0 it MUST set interim: true.
 */
export function isLegacyAcknowledgment(c: EventContext, entry: RequestEntry, r: Record<string, unknown>): boolean {
  if (versionAtLeast(c.track.log.versionFor(c.track.key), '0.4.0')) return false;
  return entry.meta.async && !entry.meta.firstInterim && !entry.meta.final && r.interim !== false;
}
