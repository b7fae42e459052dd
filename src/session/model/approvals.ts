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
import { isObj, q, type EventContext } from './client-track.ts';
import type { ApprovalCheck, ApprovalOutcome } from './types.ts';

/** Codes with which a client declines to run an action: the approval check held. */
const REFUSAL_CODES = new Set(['ACTION_DENIED', 'VALIDATION_ERROR', 'PRECONDITION_FAILED', 'SURFACE_UNAVAILABLE', 'ACTION_NOT_FOUND']);

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

/** The approval check of a request for an action that needs one; raises what the request alone shows. */
export function checkApproval(
  c: EventContext,
  req: { requestId: string; surfaceId: string; actionId: string; params: unknown; approval: unknown },
  action: OUIAction,
): ApprovalCheck {
  const { track, ev } = c;
  const carried = isObj(req.approval) ? (req.approval as unknown as OUIActionApproval) : undefined;
  const recomputed = recomputeArgsHash(req.params);
  const hashMatches = carried !== undefined && recomputed.ok && carried.argsHash === recomputed.hash;
  const check: ApprovalCheck = {
    requestId: req.requestId,
    eventId: ev.id,
    t: ev.t,
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
  const raise = (rule: 'approval-missing' | 'approval-hash-mismatch' | 'approval-params-unhashable', message: string) =>
    track.log.raise({ rule, client: track.key, subject: req.requestId, message, events: [ev.id], t: ev.t });
  // A malformed argsHash is the parser's finding (approval-hash-format); it cannot match either.
  if (!carried) raise('approval-missing', `request ${q(req.requestId)} for ${what}, ${why}, carries no approval`);
  if (!recomputed.ok) raise('approval-params-unhashable', `params of request ${q(req.requestId)} for ${what} have no canonical JSON, so no approval can match them: ${recomputed.error}`);
  else if (carried && typeof carried.argsHash === 'string' && ARGS_HASH_PATTERN.test(carried.argsHash) && !hashMatches) {
    raise('approval-hash-mismatch', `approval.argsHash of request ${q(req.requestId)} is ${carried.argsHash}, but argsHash(params) is ${recomputed.hash}`);
  }
  return check;
}

/** The final result of a request that needed approval. */
export function approvalOutcome(c: EventContext, check: ApprovalCheck, result: OUIActionResult): void {
  const { track, ev } = c;
  let outcome: ApprovalOutcome;
  if (result.success === true) outcome = 'ran';
  else {
    const code = isObj(result.error) && typeof result.error.code === 'string' ? result.error.code : undefined;
    if (code !== undefined) check.code = code;
    outcome = code !== undefined && REFUSAL_CODES.has(code) ? 'refused' : 'failed';
  }
  check.outcome = outcome;
  if (outcome !== 'ran') return;
  const what = `${check.surfaceId}/${check.actionId}`;
  if (!check.hashMatches) {
    const missing = !check.carried
      ? 'no approval'
      : !check.recomputed.ok
        ? 'params with no canonical JSON'
        : 'an approval for other params (argsHash mismatch)';
    track.log.raise({
      rule: 'unapproved-run',
      client: track.key,
      subject: check.requestId,
      message: `request ${q(check.requestId)} ran ${what}, an irreversible action, without the user's approval of these params: it carried ${missing}`,
      events: [ev.id, check.eventId],
      t: ev.t,
    });
  } else if (check.expiresAt !== undefined && ev.t > check.expiresAt) {
    track.log.raise({
      rule: 'approval-expired-run',
      client: track.key,
      subject: check.requestId,
      message: `request ${q(check.requestId)} ran ${what} on approval ${q(check.carried?.approvalId)}, whose grant expired ${Math.round(ev.t - check.expiresAt)} ms earlier`,
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
