/**
 * Results of one client, paired with their requests: interim and final
 * answers (§7.3.3), what the client was expected to answer, output schemas,
 * late answers (§7.5), refused results and their trimmed re-sends (§7.3.6),
 * answers to repeated requests (§7.3.7), and the receiver's acknowledgments.
 */
import type { OUIActionResult } from '../../protocol/index.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { REFUSAL_CODES, approvalOutcome, learnAction, noteGrantSpent, noteRunStart } from './approvals.ts';
import { deadlineOf, isObj, q, secs, type ClientTrack, type EventContext, type RequestEntry, type ResultRef, type ResultRole } from './client-track.ts';
import { checkResultHash, checkSettledHash, checkSurfacesPresent, sentResult } from './hashes.ts';
import { answeredIgnored, checkAnswerSurfaces, isLegacyAcknowledgment, lostWithTransport, noteHeldSurfaces } from './session-checks.ts';
import { onObservationSnapshot } from './observations.ts';
import { errorsLine, validate } from './payload.ts';
import { internSurfaces, onReported } from './surfaces.ts';
import type { ResultRecord } from './model-types.ts';
import type { RuleId } from './rules.ts';

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
    // Known all the same: a request dropped to stay bounded, or one the lost connection this one replaces carried (the runtime
    // resolved it, §7.6.1, and discards the answer sent on the new connection).
    if (!track.forgotten.has(requestId) && !track.previous?.entries.has(requestId)) return park(c, r, requestId);
    checkResultHash(c, r, requestId, undefined);
    if (!track.closed) applyClientState(c, r);
    return;
  }

  learnAction(c, entry);
  const rec: ResultRecord = { eventId: ev.id, t: ev.t, result: r as unknown as OUIActionResult, ...(ev.wantsAck ? { wantsAck: true } : {}) };
  const interim = r.interim === true || isLegacyAcknowledgment(c, entry, r);
  // An action the inspector has not seen declared is async when its client acknowledges it as one.
  if (r.interim === true && !entry.state.action) entry.meta.async = true;
  const trimmed = isObj(r.delivery) && r.delivery.trimmed === true;
  // A refusal the capture cannot show: the answer before asked for no acknowledgment (plain WebSocket, postMessage), so a
  // trimmed re-send says what happened to it. A refusal over an acknowledging transport is seen, or there was none.
  const previous = entry.state.results.at(-1);
  if (trimmed && !entry.meta.refused && previous && !entry.state.results.some((x) => x.wantsAck)) {
    const ref = track.results.get(previous.eventId);
    if (ref) entry.meta.refused = { ref, t: ev.t, ackEventId: previous.eventId, reason: '(not captured)' };
  }
  const refused = entry.meta.refused;
  const repeatSinceRefusal = refused !== undefined && [...entry.meta.repeats.values()].some((x) => x.t > refused.t && !x.answered);
  const refusedWasInterim = refused !== undefined && refused.ref.rec.result.interim === true;

  let role: ResultRole;
  const resent = refused !== undefined && (trimmed || (refusedWasInterim === interim && !repeatSinceRefusal));
  if (resent) {
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
  if (!resent && (role === 'final' || role === 'interim')) checkSettledHash(c, r, requestId);
  const base = baselineOf(entry, role, interim);
  checkSurfacesPresent(c, r, requestId, base.hashes, base.name);
  if (interim && typeof r.surfacesHash === 'string') entry.meta.lastInterimHash = r.surfacesHash;
  // What a result reports of the client is true of the client whoever still listens; a parked result changed it where it stood in the stream.
  // A repeat's answer is "the same result" (§7.3.7): the state it carries is the first answer's, not the client's now.
  if (!track.closed && !parked && role !== 'repeat' && role !== 'duplicate') applyClientState(c, r);
  // What the runtime holds changes only with what it takes in: not an answer it discards (§7.5), nor one after the transport is gone (§7.6.1).
  if (!track.closed && entry.meta.timedOut !== true) noteHeldSurfaces(c, r, entry.state.knownSurfaces);
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
  const sent = sentResult(c, r).surfaces;
  if (Array.isArray(r.surfaces)) onReported(c, r.surfaces, Array.isArray(sent) && sent.length === r.surfaces.length ? sent : r.surfaces);
  if (r.observations !== undefined) {
    const ts = typeof r.timestamp === 'number' && Number.isFinite(r.timestamp) ? r.timestamp : c.ev.t;
    onObservationSnapshot(c, r.observations, ts);
  }
}

function onInterim(c: EventContext, entry: RequestEntry, rec: ResultRecord, r: Result): ResultRole {
  const { meta, state: req } = entry;
  const raise = raiser(c, req.requestId);
  const what = `${req.surfaceId}/${req.actionId}`;
  if (req.action && req.action.async !== true) {
    raise('interim-on-sync', `result for ${q(req.requestId)} has interim: true, but ${what} is a sync action`, { subject: what });
  }
  if (meta.final) {
    raise('interim-after-final', `interim result for ${q(req.requestId)} after its final result`, { events: [meta.final.eventId] });
    return 'interim';
  }
  if (!meta.firstInterim) {
    meta.firstInterim = rec;
    // Past the runtime's acknowledgment deadline (§7.5): it answered TIMEOUT itself; the surface may still go on.
    if (meta.async && c.ev.t - req.sends[0]!.t > deadlineOf(c.track, entry)) {
      meta.timedOut = true;
      req.status = 'timed-out';
    }
    if (r.success === true && meta.approval) noteRunStart(c, meta.approval);
    else if (r.success === true) noteGrantSpent(c, entry, 'started');
  } else {
    const role = answerToRepeat(c, entry, meta.firstInterim, r, false);
    if (role) return role;
  }
  if (req.status === 'pending') req.status = 'running';
  return 'interim';
}

function onFinal(c: EventContext, entry: RequestEntry, rec: ResultRecord, r: Result): ResultRole {
  const { meta, state: req } = entry;
  if (meta.final) return onAnotherFinal(c, entry, rec, r);
  const raise = raiser(c, req.requestId);
  const what = `${req.surfaceId}/${req.actionId}`;
  if (meta.async) {
    // A refusal before any job started (VALIDATION_ERROR, ACTION_DENIED, …) acknowledges nothing: it is the answer.
    const refusal = r.success === false && REFUSAL_CODES.has(codeOf(r) ?? '');
    if (!meta.firstInterim && !refusal) raise('async-no-interim', `the first result for async request ${q(req.requestId)} (${what}) is final; it must first acknowledge with interim: true`);
    if (r.interim === undefined) raise('async-final-interim-unset', `final result for async request ${q(req.requestId)} (${what}) does not set interim: false`, { subject: what });
  }
  meta.final = rec;
  c.track.open.delete(entry);
  const first = req.sends[0]!;
  // Two frames' clocks can put the answer before its request: never a negative duration.
  req.durationMs = Math.max(0, c.ev.t - first.t);
  // Past the runtime's deadline (§7.5) the runtime answered TIMEOUT itself: shown on the request, never the client's fault.
  if (!meta.async && req.durationMs > deadlineOf(c.track, entry)) meta.timedOut = true;
  req.status = meta.timedOut ? 'timed-out' : req.resolution ? 'failed' : r.success === true ? 'succeeded' : 'failed';
  checkExpectation(c, entry, r);
  checkAnswerSurfaces(c, entry, r);
  checkOutput(c, entry, r);
  if (meta.approval) approvalOutcome(c, meta.approval, r as unknown as OUIActionResult);
  else noteGrantSpent(c, entry, r as unknown as OUIActionResult);
  return 'final';
}

/** An unknown surface or action, or invalid params: the client must refuse with the matching code. */
function checkExpectation(c: EventContext, entry: RequestEntry, r: Result): void {
  const expect = entry.meta.expect;
  if (!expect) return;
  const req = entry.state;
  // A surface lost with the transport and used again without registering is one defect: not-reregistered (§7.6.1).
  if (expect.code === 'SURFACE_UNAVAILABLE' && lostWithTransport(c.track, req.surfaceId)) return;
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
  const first = entry.meta.final!;
  const role = answerToRepeat(c, entry, first, r, true);
  if (role) return role;
  const same = sameOutcome(first.result as unknown as Result, r);
  raiser(c, entry.state.requestId)('duplicate-result', `a second final result for ${q(entry.state.requestId)}${same ? '' : ', with a different outcome'}; a request gets exactly one`, { events: [first.eventId] });
  return 'duplicate';
}

/** A job's identity in an async acknowledgment's data, where the client names one. */
function jobOf(r: Result): string | undefined {
  const d = r.data;
  if (!isObj(d)) return undefined;
  for (const k of ['jobId', 'taskId', 'operationId', 'runId']) if (typeof d[k] === 'string' || typeof d[k] === 'number') return `${k}=${String(d[k])}`;
  return undefined;
}

/**
 * Whether `r` answers a repeat of its request (§7.3.7), judged at the moment
 * it was sent: not before the first answer was, not once the receiver
 * acknowledged that answer, and not while that unacknowledged answer is
 * younger than the client's re-answer interval; and with the same result.
 *
 * `first` is the first answer: the final result, or for an async request's
 * interim, its acknowledgment. An interim that is neither that
 * acknowledgment again nor a second job is progress, not an answer.
 * Returns undefined when `r` answers no repeat.
 */
function answerToRepeat(c: EventContext, entry: RequestEntry, first: ResultRecord, r: Result, final: boolean): ResultRole | undefined {
  const { meta, state: req } = entry;
  let repeat: { t: number; id: string; handled: { answered: boolean; ack: { handling?: string } } } | undefined;
  // The answer goes to the latest repeat before it: that is the copy the client was deciding on.
  for (const [id, x] of meta.repeats.entries()) {
    if (!x.answered && x.t <= c.ev.t) repeat = { t: x.t, id, handled: x };
  }
  if (!repeat) return undefined;
  const firstResult = first.result as unknown as Result;
  const same = sameOutcome(firstResult, r);
  const firstJob = jobOf(firstResult);
  const secondJob = !final && firstJob !== undefined && jobOf(r) !== undefined && jobOf(r) !== firstJob;
  if (!final && !secondJob && !(same && jsonEqual(firstResult.progress, r.progress))) return undefined;
  repeat.handled.answered = true;
  repeat.handled.ack.handling = same && !secondJob ? 'answered again with the same result' : 'answered again with a different result';
  const raise = raiser(c, req.requestId);
  const events = [repeat.id, first.eventId];
  const ackedAt = final ? meta.finalAckedAt : first.ack?.ok ? first.ack.t : undefined;
  const age = c.ev.t - sentAt(first);
  const interval = c.track.timers.reanswerMs;
  if (ackedAt !== undefined && ackedAt <= c.ev.t) {
    raise('repeat-answered-after-ack', `a repeat of ${q(req.requestId)} was answered ${secs(c.ev.t - ackedAt)} after the receiver acknowledged the first answer`, { events });
  } else if (age < interval) {
    const inFlight = repeat.t < first.t;
    if (inFlight) repeat.handled.ack.handling += ' while the first was being worked out';
    raise(
      inFlight ? 'repeat-answered-in-flight' : 'repeat-answered-too-soon',
      `a repeat of ${q(req.requestId)}${inFlight ? `, which came ${secs(first.t - repeat.t)} before its first answer,` : ''} was answered ${secs(age)} after that unacknowledged answer (the re-answer interval is ${secs(interval)})`,
      { events },
    );
  }
  if (!same || secondJob) {
    raise('repeat-ran-twice', secondJob ? `a repeat of ${q(req.requestId)} started a second job (${jobOf(r)} after ${firstJob}): the client must run a request id once` : `two different results for ${q(req.requestId)}: the client must run a request id once`, { events });
  }
  return 'repeat';
}

/**
 * When an answer left the client, as early as the capture can tell: its
 * capture time, or its own timestamp where that is earlier (a long-polling
 * client queues what it sends while a POST is in flight). The earlier, the
 * longer the interval measured, so a queued first answer never makes a
 * conformant re-answer look early.
 */
function sentAt(rec: ResultRecord): number {
  const ts = (rec.result as unknown as Result).timestamp;
  return typeof ts === 'number' && Number.isFinite(ts) && ts < rec.t && rec.t - ts < 60_000 ? ts : rec.t;
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
  // The outcome that happened: success, error, and data unless the re-send left it out (OUIResultDelivery).
  const dataChanged = !omittedOf(r).includes('data') && r.data !== undefined && !jsonEqual(original.data, r.data);
  const changed = original.success !== r.success || !jsonEqual(original.error, r.error) || dataChanged;
  if (changed) {
    raise('trim-changed-outcome', `the re-send of ${q(req.requestId)} changed the outcome (${dataChanged ? 'data' : 'success/error'}) of the refused result; success, error and data it keeps are never changed`, { events });
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
  // A refused result gave the runtime nothing: not the surfaces it carried (§7.3.4's "holds").
  for (const [hash, sources] of [...track.heldBy.entries()]) {
    const i = sources.indexOf(rec.eventId);
    if (i < 0) continue;
    sources.splice(i, 1);
    if (!sources.length) track.heldBy.delete(hash);
  }
  entry.meta.refused = { ref, t: ev.t, ackEventId: ev.id, reason: ack.reason ?? '' };
  track.refusals.add(entry);
}

/**
 * The recording is over: refused results never sent again (§7.3.6). The
 * spec sets no deadline for the re-send, so only the end of a recording
 * makes its absence certain.
 */
export function finishRefusals(track: ClientTrack, now: number): void {
  for (const entry of [...track.refusals]) {
    track.refusals.delete(entry);
    const refused = entry.meta.refused;
    // Once data is gone there is nothing left to trim: a refusal of that can go unanswered.
    if (!refused || omittedOf(refused.ref.rec.result as unknown as Result).includes('data')) continue;
    track.log.raise({
      rule: 'refused-not-resent',
      client: track.key,
      subject: entry.state.requestId,
      message: `the receiver refused the result for ${q(entry.state.requestId)} (${q(refused.reason)}) and the client never sent it again trimmed`,
      events: [refused.ackEventId, refused.ref.rec.eventId],
      t: Number.isFinite(now) ? now : refused.t,
    });
  }
}
