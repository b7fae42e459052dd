/**
 * Which rule a parse problem belongs to. `parsePayload` already checks what
 * one payload alone shows (id patterns, at least one action, unique ids,
 * success/error exclusivity, hash and args-hash formats, delivery shape);
 * the model does not check those again, it files each problem under the
 * rule the parser named where it raised it, so one cause has one rule id,
 * one section and one party, whoever found it.
 *
 * A problem of no rule of its own is a missing or mistyped field, charged
 * to whoever sent the event: `payload-problem` for the client,
 * `payload-problem-from-runtime` for the runtime, with the parser's own
 * severity.
 */
import { isObj, q } from './client-track.ts';
import type { PayloadProblem } from './payload.ts';
import { isRuleId, type RuleId } from './rules.ts';

export interface FiledProblem {
  rule: RuleId;
  /** With rule and client, the dedupe key. */
  subject: string;
  message: string;
  /** Only for the generic payload rules: the parser's own severity applies. */
  own: boolean;
}

/** The surface a pointer into a payload points into: `/surface/...` or `/surfaces/3/...`. */
function surfaceAt(payload: unknown, path: string): string | undefined {
  if (!isObj(payload)) return undefined;
  if (path.startsWith('/surface/') || path === '/surface') return isObj(payload.surface) && typeof payload.surface.id === 'string' ? payload.surface.id : undefined;
  const m = /^\/surfaces\/(\d+)(\/|$)/.exec(path);
  if (m && Array.isArray(payload.surfaces)) {
    const s = payload.surfaces[Number(m[1])];
    return isObj(s) && typeof s.id === 'string' ? s.id : undefined;
  }
  return undefined;
}

function requestIdOf(payload: unknown, fallback: string): string {
  return isObj(payload) && typeof payload.requestId === 'string' ? payload.requestId : fallback;
}

/** What one cause is, per rule: so a surface re-registered a hundred times with one mistake is one finding. */
function subjectOf(rule: RuleId, p: PayloadProblem, payload: unknown): string {
  const { path, message: m } = p;
  switch (rule) {
    case 'surface-no-actions':
      return surfaceAt(payload, path) ?? path;
    case 'input-not-object':
    case 'input-schema':
    case 'surface-shape':
    case 'action-shape':
    case 'observation-shape':
    case 'activation-shape':
    case 'type-shape':
      return `${surfaceAt(payload, path) ?? ''}${path}|${m}`;
    case 'error-with-success':
    case 'error-missing':
    case 'hash-missing':
    case 'hash-format':
    case 'trim-shape':
      return 'client';
    case 'approval-hash-format':
    case 'approval-shape':
    case 'trim-order':
      return requestIdOf(payload, m);
    default:
      return m;
  }
}

/**
 * Files one problem of an event of `type` that travelled `dir` (`out`: from
 * the client). Rules named by the parser stand; the rest go to the sender.
 */
export function fileProblem(p: PayloadProblem, type: string, label: string, payload: unknown, dir: 'in' | 'out' = 'out'): FiledProblem {
  const where = p.path || '(payload)';
  if (!isRuleId(p.rule)) {
    const rule: RuleId = dir === 'in' ? 'payload-problem-from-runtime' : 'payload-problem';
    const ref = p.section ? ` (${p.section})` : '';
    return { rule, subject: `${type}|${p.path}|${p.message}`, message: `${label}: ${where} ${p.message}${ref}`, own: true };
  }
  const rule = p.rule;
  const surface = surfaceAt(payload, p.path);
  const about = surface !== undefined && !p.message.includes(JSON.stringify(surface)) ? ` (surface ${q(surface)})` : '';
  return { rule, subject: subjectOf(rule, p, payload), message: `${label}: ${p.message}${about} at ${where}`, own: false };
}
