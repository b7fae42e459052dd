/**
 * Approvals (oui-spec 0.6.0): a `transaction`, or a write declared
 * `confirm: true`, runs only on the user's approval of exactly these params.
 * The inspector recomputes argsHash(params), compares it with the approval
 * the request carried, and reads the outcome from the result: an action that
 * needs approval and succeeded without a matching one is the worst thing a
 * session can show.
 */
import { ARGS_HASH_PATTERN, argsHashSync, errorMessage, requiresApproval } from '../../protocol/index.ts';
import type { OUIAction, OUIActionApproval, OUIActionResult } from '../../protocol/index.ts';
import { isObj, q, type EventContext, type RequestEntry } from './client-track.ts';
import type { ApprovalCheck, ApprovalOutcome } from './model-types.ts';

/** Codes with which a client declines to run an action: the approval check held. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(['ACTION_DENIED', 'VALIDATION_ERROR', 'PRECONDITION_FAILED', 'SURFACE_UNAVAILABLE', 'ACTION_NOT_FOUND']);
/** Codes that say the handler ran (§4: "Handler threw an unhandled exception", "Action exceeded its execution timeout"). */
const RAN_CODES = new Set(['EXECUTION_ERROR', 'TIMEOUT']);

export function needsApproval(action: OUIAction): boolean {
  try {
    return requiresApproval(action.effect, action.confirm === true);
  } catch {
    return true;
  }
}

export function recomputeArgsHash(params: unknown): ApprovalCheck['recomputed'] {
  try {
    return { ok: true, hash: argsHashSync(params) };
  } catch (e) {
    return { ok: false, error: errorMessage(e) };
  }
}

/**
 * The approval check of a request for an action that needs one; raises what
 * the request alone shows. `at` is the request's event: a check made once the
 * action became known (a manifest seen after the request) still dates from it.
 * `sent`: argsHash of the params as sent, when the model's copy of them was
 * cut (`RequestMeta.sentArgsHash`).
 */
export function checkApproval(
  c: EventContext,
  req: { requestId: string; surfaceId: string; actionId: string; params: unknown; approval: unknown },
  action: OUIAction,
  at: { id: string; t: number } = c.ev,
  sent?: ApprovalCheck['recomputed'],
): ApprovalCheck {
  const { track } = c;
  const carried = isObj(req.approval) ? (req.approval as unknown as OUIActionApproval) : undefined;
  const recomputed = sent ?? recomputeArgsHash(req.params);
  const hashMatches = carried !== undefined && recomputed.ok && carried.argsHash === recomputed.hash;
  const check: ApprovalCheck = {
    requestId: req.requestId,
    eventId: at.id,
    t: at.t,
    surfaceId: req.surfaceId,
    actionId: req.actionId,
    ...(typeof action.effect === 'string' ? { effect: action.effect } : {}),
    confirm: action.confirm === true,
    ...(carried ? { carried } : {}),
    recomputed,
    hashMatches,
    outcome: 'pending',
  };
  if (carried && typeof carried.approvalId === 'string') {
    const expiresAt = track.grants.get(carried.approvalId);
    if (expiresAt !== undefined) check.expiresAt = expiresAt;
  }
  track.push('approvals', check);

  const what = `${req.surfaceId}/${req.actionId}`;
  const why = action.effect === 'transaction' ? 'a transaction' : 'a destructive write (confirm: true)';
  const raise = (rule: 'approval-missing' | 'approval-params-unhashable', message: string) =>
    track.log.raise({ rule, client: track.key, subject: req.requestId, message, events: [at.id], t: at.t });
  if (!carried) raise('approval-missing', `request ${q(req.requestId)} for ${what}, ${why}, carries no approval`);
  if (!recomputed.ok) raise('approval-params-unhashable', `params of request ${q(req.requestId)} for ${what} have no canonical JSON, so no approval can match them: ${recomputed.error}`);
  else checkCarriedApproval(c, req, recomputed, at);
  return check;
}

/**
 * An approval carried by a request for an action that needs none, or none
 * the inspector knows of (a runtime's policy "may require it of more"): it
 * still names the request the user approved, so its argsHash must be that
 * request's. Whether the action may run without it is not this check's.
 */
export function checkCarriedApproval(
  c: EventContext,
  req: { requestId: string; params: unknown; approval: unknown },
  recomputed?: ApprovalCheck['recomputed'],
  at: { id: string; t: number } = c.ev,
): void {
  const carried = isObj(req.approval) ? (req.approval as unknown as OUIActionApproval) : undefined;
  // A malformed argsHash is the parser's finding (approval-hash-format); it cannot match either.
  if (!carried || typeof carried.argsHash !== 'string' || !ARGS_HASH_PATTERN.test(carried.argsHash)) return;
  const r = recomputed ?? recomputeArgsHash(req.params);
  if (!r.ok || carried.argsHash === r.hash) return;
  c.track.log.raise({
    rule: 'approval-hash-mismatch',
    client: c.track.key,
    subject: req.requestId,
    message: `approval.argsHash of request ${q(req.requestId)} is ${carried.argsHash}, but argsHash(params) is ${r.hash}`,
    events: [at.id],
    t: at.t,
  });
}

/**
 * A request whose action the inspector learned only after it arrived (the
 * manifest came with a later registration or result, as in snapshot mode):
 * what the action declares still applies to it, from the request's own moment.
 */
export function learnAction(c: EventContext, entry: RequestEntry): void {
  const req = entry.state;
  if (req.action) return;
  const { action } = c.track.findAction(req.surfaceId, req.actionId);
  if (!action) return;
  req.action = action;
  if (action.async === true) entry.meta.async = true;
  if (!entry.meta.approval && needsApproval(action)) {
    const first = req.sends[0]!;
    entry.meta.approval = checkApproval(c, { ...req, approval: req.approval }, action, { id: first.eventId, t: first.t }, entry.meta.sentArgsHash);
  }
}

/**
 * Whether an answer shows the handler ran: success, or a failure the handler
 * itself produced (EXECUTION_ERROR: "Handler threw"; TIMEOUT: "Action
 * exceeded its execution timeout"). Any other code is a refusal to run, or
 * says nothing about it, and is never read as a run.
 */
function ran(result: OUIActionResult): { ran: boolean; code?: string } {
  if (result.success === true) return { ran: true };
  const code = isObj(result.error) && typeof result.error.code === 'string' ? result.error.code : undefined;
  return { ran: code !== undefined && RAN_CODES.has(code), ...(code !== undefined ? { code } : {}) };
}

/** The final result of a request that needed approval. */
export function approvalOutcome(c: EventContext, check: ApprovalCheck, result: OUIActionResult): void {
  const verdict = ran(result);
  if (verdict.code !== undefined) check.code = verdict.code;
  const started = check.outcome === 'ran';
  check.outcome = verdict.ran || started ? 'ran' : verdict.code !== undefined && REFUSAL_CODES.has(verdict.code) ? 'refused' : 'failed';
  if (verdict.ran && !started) judgeRun(c, check);
}

/**
 * A run of an action that needs no approval, on an approval all the same (a
 * runtime's policy "may require it of more"): the single-use grant is spent
 * all the same, so a later request carrying it runs on nothing.
 */
export function noteGrantSpent(c: EventContext, entry: RequestEntry, result: OUIActionResult | 'started'): void {
  const approvalId = entry.state.approval?.approvalId;
  if (entry.meta.approval || typeof approvalId !== 'string') return;
  if (result !== 'started' && !ran(result).ran) return;
  if (!c.track.usedGrants.has(approvalId)) c.track.usedGrants.set(approvalId, entry.state.requestId);
}

/** An async action acknowledged as started: its job is a run, whatever its final answer says. */
export function noteRunStart(c: EventContext, check: ApprovalCheck): void {
  if (check.outcome === 'ran') return;
  check.outcome = 'ran';
  judgeRun(c, check);
}

/**
 * The action ran: on a grant for exactly these params, that no earlier run
 * used (a grant is single-use), and that still admitted runs when this one
 * started (its request's moment, not its answer's).
 */
function judgeRun(c: EventContext, check: ApprovalCheck): void {
  const { track, ev } = c;
  const what = `${check.surfaceId}/${check.actionId}`;
  const approvalId = typeof check.carried?.approvalId === 'string' ? check.carried.approvalId : undefined;
  const usedBy = approvalId !== undefined ? track.usedGrants.get(approvalId) : undefined;
  const reused = usedBy !== undefined && usedBy !== check.requestId;
  if (!check.hashMatches || reused) {
    const missing = !check.carried
      ? 'no approval'
      : !check.recomputed.ok
        ? 'params with no canonical JSON'
        : !check.hashMatches
          ? 'an approval for other params (argsHash mismatch)'
          : `approval ${q(approvalId)}, a single-use grant request ${q(usedBy)} had already used`;
    track.log.raise({
      rule: 'unapproved-run',
      client: track.key,
      subject: check.requestId,
      message: `request ${q(check.requestId)} ran ${what}, an irreversible action, without a grant for these params: it carried ${missing}`,
      events: [ev.id, check.eventId],
      t: ev.t,
    });
    return;
  }
  if (approvalId !== undefined) track.usedGrants.set(approvalId, check.requestId);
  if (check.expiresAt !== undefined && check.t > check.expiresAt) {
    track.log.raise({
      rule: 'approval-expired-run',
      client: track.key,
      subject: check.requestId,
      message: `request ${q(check.requestId)} ran ${what} on approval ${q(approvalId)}, whose grant had expired ${Math.round(check.t - check.expiresAt)} ms before the request came`,
      events: [ev.id, check.eventId],
      t: ev.t,
    });
  }
}

/** An `x-approval:*` event that shows a grant's expiry: attach it to the checks that use that approval. */
export function onApprovalExtension(c: EventContext, payload: unknown): void {
  if (!isObj(payload) || typeof payload.approvalId !== 'string') return;
  const expiresAt = payload.expiresAt;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return;
  c.track.grants.set(payload.approvalId, expiresAt);
  for (const check of c.track.state.approvals) {
    if (check.carried?.approvalId === payload.approvalId) check.expiresAt = expiresAt;
  }
}
