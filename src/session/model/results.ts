/**
 * Results of one client, paired with their requests: interim and final
 * answers (§7.3.3), what the client was expected to answer, output schemas,
 * late answers (§7.5), refused results and their trimmed re-sends (§7.3.6),
 * answers to repeated requests (§7.3.7), and the receiver's acknowledgments.
 */
import { ASYNC_ACK_TIMEOUT_MS, REANSWER_INTERVAL_MS, SYNC_TIMEOUT_MS } from '../../protocol/index.ts';
import type { OUIActionResult } from '../../protocol/index.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { approvalOutcome } from './approvals.ts';
import { isObj, q, secs, type ClientTrack, type EventContext, type RequestEntry, type ResultRef, type ResultRole } from './client-track.ts';
import { checkResultHash, checkSurfacesPresent } from './hashes.ts';
import { answeredIgnored, checkAnswerSurfaces, isLegacyAcknowledgment, noteHeldSurfaces } from './session-checks.ts';
import { onObservationSnapshot } from './observations.ts';
import { errorsLine, validate } from './payload.ts';
import { internSurfaces, onReported } from './surfaces.ts';
import type { ResultRecord } from './types.ts';
import type { RuleId } from './rules.ts';

/** How long a refused result may wait for its re-send before the refusal counts as ignored. */
export const RESEND_GRACE_MS = 5_000;

type Result = Record<string, unknown>;

function raiser(c: EventContext, subjectDefault: string) {
  return (rule: RuleId, message: string, opts: { subject?: string; events?: string[] } = {}) =>
    c.track.log.raise({
      rule,
      client: c.track.key,
      subject: opts.subject ?? subjectDefault,
      message,
      events: [c.ev.id, ...(opts.events ?? [])],
      t: c.ev.t,
    });
}

function omittedOf(r: Result): string[] {
  const d = r.delivery;
  return isObj(d) && Array.isArray(d.omitted) ? d.omitted.filter((x): x is string => typeof x === 'string') : [];
}

function codeOf(r: Result): string | undefined {
  return isObj(r.error) && typeof r.error.code === 'string' ? r.error.code : undefined;
}

function sameOutcome(a: Result, b: Result): boolean {
  if (a.success !== b.success || !jsonEqual(a.error, b.error)) return false;
  if (omittedOf(a).includes('data') || omittedOf(b).includes('data')) return true;
  return jsonEqual(a.data, b.data);
}

/** How long, on the capture clock, a result may wait for its request before it counts as never received. */
export const PARK_SETTLE_MS = 2_000;
/** Results waiting for their request, per client; past this the oldest is judged at once. */
const MAX_PARKED = 1_000;

interface Parked {
  c: EventContext;
  r: Result;
}

/**
 * Results whose request has not been seen (yet), per client, by requestId.
 * A request captured in one frame and its answer captured in another carry
 * timestamps of two clocks, which can disagree by more than the answer took:
 * merged by capture time, the answer then comes first. So an unknown result
 * waits here and is paired when its request arrives; "never received" is said
 * only once absence is certain (tick past PARK_SETTLE_MS, or the end of a
 * finished recording). Kept beside the track, not in it, to leave the
 * track's shape to the rules.
 */
const parkedResults = new WeakMap<ClientTrack, { byRequest: Map<string, Parked[]>; count: number }>();

export function onResult(c: EventContext, r: Result, parked = false): void {
  const requestId = r.requestId;
  if (typeof requestId !== 'string') return;
  const { track, ev } = c;
  const entry = track.entries.get(requestId);
  if (!entry) {
    if (!track.forgotten.has(requestId)) return park(c, r, requestId);
    checkResultHash(c, r, requestId, undefined);
    if (!track.closed) applyClientState(c, r);
    return;
  }

  const rec: ResultRecord = { eventId: ev.id, t: ev.t, result: r as unknown as OUIActionResult };
  const interim = r.interim === true || isLegacyAcknowledgment(c, entry, r);
  const trimmed = isObj(r.delivery) && r.delivery.trimmed === true;
  const refused = entry.meta.refused;
  const repeatSinceRefusal = refused !== undefined && [...entry.meta.repeats.values()].some((x) => x.t > refused.t && !x.answered);
  const refusedWasInterim = refused !== undefined && refused.ref.rec.result.interim === true;

  let role: ResultRole;
  if (refused && (trimmed || (refusedWasInterim === interim && !repeatSinceRefusal))) {
    role = onResend(c, entry, r, trimmed);
  } else {
    if (trimmed) raiser(c, requestId)('trimmed-without-refusal', `result for ${q(requestId)} says delivery.trimmed, but no receiver refused an answer to it`);
    role = interim ? onInterim(c, entry, rec, r) : onFinal(c, entry, rec, r);
  }
  if (role === 'repeat') rec.forRepeat = true;
  track.pushEntry(entry.state.results, rec);
  const ref: ResultRef = { entry, rec, role };
  track.results.set(ev.id, ref);

  checkResultHash(c, r, requestId, entry.state.knownSurfaces);
  const base = baselineOf(entry, role, interim);
  checkSurfacesPresent(c, r, requestId, base.hashes, base.name);
  if (interim && typeof r.surfacesHash === 'string') entry.meta.lastInterimHash = r.surfacesHash;
  // A result the runtime discards (§7.5, §7.6.1) changes nothing it holds.
  const discarded = track.closed !== undefined || entry.state.resolution !== undefined || entry.meta.timedOut === true;
  // A parked result changed the client's state where it stood in the stream.
  if (!discarded && !parked) applyClientState(c, r);
  if (!discarded) noteHeldSurfaces(c, r);
  if (Array.isArray(r.surfaces)) r.surfaces = internSurfaces(track, r.surfaces);
}

/** What the runtime holds when this result arrives (§7.3.4): knownSurfaces, or for an async answer its interim's hash. */
function baselineOf(entry: RequestEntry, role: ResultRole, interim: boolean): { hashes: string[]; name: string } {
  const { meta, state } = entry;
  const known = state.knownSurfaces !== undefined ? [state.knownSurfaces] : [];
  if (interim) {
    return meta.lastInterimHash !== undefined ? { hashes: [meta.lastInterimHash], name: "the previous interim's surfacesHash" } : { hashes: known, name: "the request's knownSurfaces" };
  }
  const first = meta.firstInterim?.result.surfacesHash;
  if (role !== 'duplicate' && typeof first === 'string') {
    const hashes = [first, ...(meta.lastInterimHash !== undefined ? [meta.lastInterimHash] : [])];
    return { hashes, name: "its interim acknowledgment's surfacesHash" };
  }
  return { hashes: known, name: "the request's knownSurfaces" };
}

function applyClientState(c: EventContext, r: Result): void {
  if (Array.isArray(r.surfaces)) onReported(c, r.surfaces);
  if (r.observations !== undefined) {
    const ts = typeof r.timestamp === 'number' && Number.isFinite(r.timestamp) ? r.timestamp : c.ev.t;
    onObservationSnapshot(c, r.observations, ts);
  }
}

/** Results that arrive after the runtime gave up on the request. */
function checkLate(c: EventContext, entry: RequestEntry): void {
  const req = entry.state;
  const raise = raiser(c, req.requestId);
  if (req.resolution) {
    raise(
      'result-after-unavailable',
      `result for ${q(req.requestId)} arrived ${secs(c.ev.t - req.resolution.t)} after ${req.resolution.why}; the runtime had resolved it SURFACE_UNAVAILABLE and discards it`,
      { events: [req.resolution.eventId] },
    );
  }
  if (entry.meta.receiptRefused) {
    raise('result-after-refused-receipt', `result for ${q(req.requestId)}, a request the client refused on receipt (${q(entry.meta.receiptRefused.reason)})`, {
      events: [entry.meta.receiptRefused.eventId],
    });
  }
}

function onInterim(c: EventContext, entry: RequestEntry, rec: ResultRecord, r: Result): ResultRole {
  const { meta, state: req } = entry;
  const raise = raiser(c, req.requestId);
  const what = `${req.surfaceId}/${req.actionId}`;
  checkLate(c, entry);
  if (req.action && req.action.async !== true) {
    raise('interim-on-sync', `result for ${q(req.requestId)} has interim: true, but ${what} is a sync action`, { subject: what });
  }
  if (meta.final) {
    raise('interim-after-final', `interim result for ${q(req.requestId)} after its final result`, { events: [meta.final.eventId] });
    return 'interim';
  }
  if (!meta.firstInterim) {
    meta.firstInterim = rec;
    const first = req.sends[0]!;
    const age = c.ev.t - first.t;
    if (meta.async && age > ASYNC_ACK_TIMEOUT_MS) {
      if (meta.timedOut) raise('late-result', `${q(req.requestId)} acknowledged after ${secs(age)}; the runtime had already answered TIMEOUT and discards it`, { events: [first.eventId] });
      else {
        meta.timedOut = true;
        req.status = 'timed-out';
        raise('async-ack-timeout', `async request ${q(req.requestId)} for ${what} acknowledged after ${secs(age)}, past the ${secs(ASYNC_ACK_TIMEOUT_MS)} deadline; the runtime has discarded it`, {
          events: [first.eventId],
        });
      }
    }
  }
  if (req.status === 'pending') req.status = 'running';
  return 'interim';
}

function onFinal(c: EventContext, entry: RequestEntry, rec: ResultRecord, r: Result): ResultRole {
  const { meta, state: req } = entry;
  if (meta.final) return onAnotherFinal(c, entry, rec, r);
  const raise = raiser(c, req.requestId);
  const what = `${req.surfaceId}/${req.actionId}`;
  checkLate(c, entry);
  if (meta.async) {
    if (!meta.firstInterim) raise('async-no-interim', `the first result for async request ${q(req.requestId)} (${what}) is final; it must first acknowledge with interim: true`);
    if (r.interim === undefined) raise('async-final-interim-unset', `final result for async request ${q(req.requestId)} (${what}) does not set interim: false`, { subject: what });
  }
  meta.final = rec;
  c.track.open.delete(entry);
  const first = req.sends[0]!;
  // Two frames' clocks can put the answer before its request: never a negative duration.
  req.durationMs = Math.max(0, c.ev.t - first.t);
  if (!req.resolution && !meta.timedOut) req.status = r.success === true ? 'succeeded' : 'failed';
  if (!meta.async && req.durationMs > SYNC_TIMEOUT_MS) {
    if (meta.timedOut) raise('late-result', `${q(req.requestId)} answered after ${secs(req.durationMs)}; the runtime had already answered TIMEOUT and discards it`, { events: [first.eventId] });
    else {
      meta.timedOut = true;
      raise('sync-timeout', `request ${q(req.requestId)} for ${what} answered after ${secs(req.durationMs)}; the runtime has discarded it`, { events: [first.eventId] });
    }
    req.status = 'timed-out';
  }
  checkExpectation(c, entry, r);
  checkAnswerSurfaces(c, entry, r);
  checkOutput(c, entry, r);
  if (meta.approval) approvalOutcome(c, meta.approval, r as unknown as OUIActionResult);
  return 'final';
}

/** An unknown surface or action, or invalid params: the client must refuse with the matching code. */
function checkExpectation(c: EventContext, entry: RequestEntry, r: Result): void {
  const expect = entry.meta.expect;
  if (!expect) return;
  const req = entry.state;
  const raise = raiser(c, req.requestId);
  const events = [req.sends[0]!.eventId];
  if (r.success === true) {
    const rule = expect.code === 'VALIDATION_ERROR' ? 'params-invalid-accepted' : 'unknown-target-accepted';
    raise(rule, `request ${q(req.requestId)} succeeded although ${expect.why}; the client must answer ${expect.code}`, { events });
    return;
  }
  const code = codeOf(r);
  if (code !== undefined && code !== expect.code) {
    raise('expected-error-code', `request ${q(req.requestId)} was refused with ${q(code)}; ${expect.why}, which calls for ${expect.code}`, { events });
  }
}

function checkOutput(c: EventContext, entry: RequestEntry, r: Result): void {
  const action = entry.state.action;
  if (r.success !== true || !action || action.output === undefined || r.data === undefined) return;
  const verdict = validate(r.data, action.output);
  if (verdict.valid) return;
  const what = `${entry.state.surfaceId}/${entry.state.actionId}`;
  raiser(c, what)('result-output-invalid', `data of the result for ${q(entry.state.requestId)} does not conform to the output of ${what}: ${errorsLine(verdict)}`);
}

/** A second final answer: the answer to a repeat (§7.3.7), or one result too many (§7.3.3). */
function onAnotherFinal(c: EventContext, entry: RequestEntry, rec: ResultRecord, r: Result): ResultRole {
  const { meta, state: req } = entry;
  const first = meta.final!;
  const raise = raiser(c, req.requestId);
  const same = sameOutcome(first.result as unknown as Result, r);
  let repeat: { t: number; id: string; handled: { answered: boolean; ack: { handling?: string } } } | undefined;
  // The answer goes to the latest repeat before it: that is the copy the client was deciding on.
  for (const [id, x] of meta.repeats.entries()) {
    if (!x.answered && x.t <= c.ev.t) repeat = { t: x.t, id, handled: x };
  }
  if (!repeat) {
    raise('duplicate-result', `a second final result for ${q(req.requestId)}${same ? '' : ', with a different outcome'}; a request gets exactly one`, { events: [first.eventId] });
    return 'duplicate';
  }
  repeat.handled.answered = true;
  repeat.handled.ack.handling = same ? 'answered again with the same result' : 'answered again with a different result';
  const events = [repeat.id, first.eventId];
  if (repeat.t < first.t) {
    repeat.handled.ack.handling += ' while the first was being worked out';
    raise('repeat-answered-in-flight', `a repeat of ${q(req.requestId)} came ${secs(first.t - repeat.t)} before its first answer and was answered as well`, { events });
  } else if (meta.finalAckedAt !== undefined && meta.finalAckedAt <= repeat.t) {
    raise('repeat-answered-after-ack', `a repeat of ${q(req.requestId)} was answered although the receiver had acknowledged the first answer`, { events });
  } else if (repeat.t - first.t < REANSWER_INTERVAL_MS) {
    raise(
      'repeat-answered-too-soon',
      `a repeat of ${q(req.requestId)} was answered ${secs(repeat.t - first.t)} after the first, unacknowledged answer (the re-answer interval is ${secs(REANSWER_INTERVAL_MS)})`,
      { events },
    );
  }
  if (!same) raise('repeat-ran-twice', `two different results for ${q(req.requestId)}: the client must run a request id once`, { events });
  return 'repeat';
}

/** A result sent again after the receiver refused it: it must be trimmed and say so (§7.3.6). */
function onResend(c: EventContext, entry: RequestEntry, r: Result, trimmed: boolean): ResultRole {
  const { meta, state: req } = entry;
  const refused = meta.refused!;
  const original = refused.ref.rec.result as unknown as Result;
  const raise = raiser(c, req.requestId);
  const events = [refused.ackEventId, refused.ref.rec.eventId];
  meta.refused = undefined;
  c.track.refusals.delete(entry);
  if (!trimmed) {
    raise('resend-unmarked', `result for ${q(req.requestId)} was sent again after the receiver refused it (${q(refused.reason)}) without delivery: { trimmed: true, reason, omitted }`, { events });
  }
  const changed = original.success !== r.success || !jsonEqual(original.error, r.error);
  if (changed) {
    raise('trim-changed-outcome', `the re-send of ${q(req.requestId)} changed the outcome (success/error) of the refused result; they are never trimmed`, { events });
  }
  // A changed outcome is another answer, not a trimmed one: what it leaves out says nothing more.
  if (trimmed && !changed) checkDelivery(c, r, original, req.requestId, events);
  const omitted = omittedOf(r);
  c.track.push('acks', {
    kind: 'trimmed-resend',
    eventId: c.ev.id,
    t: c.ev.t,
    requestId: req.requestId,
    omitted,
    ...(isObj(r.delivery) && typeof r.delivery.reason === 'string' ? { reason: r.delivery.reason } : {}),
    handling: trimmed ? `re-sent without ${omitted.join(', ') || 'nothing'}` : 're-sent unmarked',
  });
  // A re-send stands for the answer it repeats.
  return refused.ref.role;
}

/**
 * Trimming goes surfaces and observations first, then data (§7.3.6). The
 * parser checks the delivery record itself; this compares the re-send with
 * the result that was refused.
 */
function checkDelivery(c: EventContext, r: Result, original: Result, requestId: string, events: string[]): void {
  const raise = raiser(c, requestId);
  const omitted = omittedOf(r);
  const unlisted = (['surfaces', 'observations', 'data'] as const).filter((f) => original[f] !== undefined && r[f] === undefined && !omitted.includes(f));
  if (unlisted.length) {
    raise('trim-shape', `the re-send of ${q(requestId)} leaves out ${unlisted.join(', ')} without listing it in delivery.omitted`, { events, subject: 'client' });
  }
  const dataGone = omitted.includes('data') || (original.data !== undefined && r.data === undefined);
  const stateKept = r.surfaces !== undefined || r.observations !== undefined;
  if (dataGone && stateKept) {
    raise('trim-order', `the re-send of ${q(requestId)} left out data while it still carries ${r.surfaces !== undefined ? 'surfaces' : 'observations'}; surfaces and observations go first`, { events });
  }
}

function park(c: EventContext, r: Result, requestId: string): void {
  const { track } = c;
  let parked = parkedResults.get(track);
  if (!parked) parkedResults.set(track, (parked = { byRequest: new Map(), count: 0 }));
  // What the result reports of the client's state is true where it stands in the stream, whoever it answers.
  if (!track.closed) applyClientState(c, r);
  const list = parked.byRequest.get(requestId);
  if (list) list.push({ c, r });
  else parked.byRequest.set(requestId, [{ c, r }]);
  if (++parked.count <= MAX_PARKED) return;
  const [oldestId, oldest] = parked.byRequest.entries().next().value as [string, Parked[]];
  const first = oldest.shift()!;
  if (!oldest.length) parked.byRequest.delete(oldestId);
  parked.count--;
  track.drop('parkedResults');
  neverReceived(first, oldestId);
}

function neverReceived(p: Parked, requestId: string): void {
  if (!answeredIgnored(p.c, requestId)) raiser(p.c, requestId)('result-unknown-request', `result for ${q(requestId)}, a request this client never received`);
  checkResultHash(p.c, p.r, requestId, undefined);
}

/** The request `requestId` arrived: its parked results are paired, in their own order. Returns their event ids. */
export function pairParked(track: ClientTrack, requestId: string): string[] {
  const parked = parkedResults.get(track);
  const list = parked?.byRequest.get(requestId);
  if (!parked || !list || !track.entries.has(requestId)) return [];
  parked.byRequest.delete(requestId);
  parked.count -= list.length;
  for (const p of list) onResult(p.c, p.r, true);
  return list.map((p) => p.c.ev.id);
}

/** Parked results captured at or before `now - PARK_SETTLE_MS` (all of them, for `now` = Infinity): their request never came. */
export function settleParked(track: ClientTrack, now: number): void {
  const parked = parkedResults.get(track);
  if (!parked || !parked.count) return;
  const cutoff = now - PARK_SETTLE_MS;
  for (const [requestId, list] of [...parked.byRequest]) {
    let n = 0;
    while (n < list.length && list[n]!.c.ev.t <= cutoff) neverReceived(list[n++]!, requestId);
    if (!n) continue;
    parked.count -= n;
    if (n === list.length) parked.byRequest.delete(requestId);
    else list.splice(0, n);
  }
}

/** The receiver's acknowledgment of a result (§7.3.6). */
export function onResultAck(c: EventContext, ref: ResultRef, ack: { ok: boolean; reason?: string }): void {
  const { track, ev } = c;
  const { entry, rec } = ref;
  rec.ack = { eventId: ev.id, t: ev.t, ok: ack.ok, ...(ack.reason !== undefined ? { reason: ack.reason } : {}) };
  track.push('acks', { kind: 'result-ack', eventId: ev.id, t: ev.t, requestId: entry.state.requestId, ok: ack.ok, ...(ack.reason !== undefined ? { reason: ack.reason } : {}) });
  if (ack.ok) {
    if (ref.role !== 'interim' && entry.meta.finalAckedAt === undefined) entry.meta.finalAckedAt = ev.t;
    return;
  }
  // Once data is gone there is nothing left to trim.
  if (omittedOf(rec.result as unknown as Result).includes('data')) return;
  entry.meta.refused = { ref, t: ev.t, ackEventId: ev.id, reason: ack.reason ?? '' };
  track.refusals.add(entry);
}

/** Refused results still not sent again after the grace period. */
export function tickRefusals(track: ClientTrack, now: number): void {
  for (const entry of [...track.refusals]) {
    const refused = entry.meta.refused;
    if (!refused) {
      track.refusals.delete(entry);
      continue;
    }
    if (now - refused.t <= RESEND_GRACE_MS) continue;
    track.refusals.delete(entry);
    track.log.raise({
      rule: 'refused-not-resent',
      client: track.key,
      subject: entry.state.requestId,
      message: `the receiver refused the result for ${q(entry.state.requestId)} (${q(refused.reason)}) and the client never sent it again trimmed`,
      events: [refused.ackEventId, refused.ref.rec.eventId],
      t: now,
    });
  }
}
