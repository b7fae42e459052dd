/**
 * Which rule a parse problem belongs to. `parsePayload` already checks what
 * one payload alone shows (id patterns, at least one action, unique ids,
 * success/error exclusivity, hash and args-hash formats, delivery shape);
 * the model does not check those again, it files each problem under its
 * rule so one cause has one rule id and one severity, whoever found it.
 * Problems of no particular rule are `payload-problem`, with the parser's
 * own severity and section.
 *
 * Matched on section and pointer first, message wording last.
 */
import { isObj, q } from './model-client.ts';
import type { PayloadProblem } from './model-payload.ts';
import type { RuleId } from './rules.ts';

export interface FiledProblem {
  rule: RuleId;
  /** With rule and client, the dedupe key. */
  subject: string;
  message: string;
  /** Only for `payload-problem`: the parser's own severity and section. */
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

function classify(p: PayloadProblem, payload: unknown): { rule: RuleId; subject: string } | null {
  const { path, message: m } = p;
  const section = p.section ?? '';
  const dup = m.startsWith('duplicate ');
  if (section === '§3.2') return { rule: dup ? 'duplicate-surface-id' : 'surface-id', subject: m };
  if (section === '§4.2') return { rule: dup ? 'duplicate-action-id' : 'action-id', subject: m };
  if (section === '§5.2') return { rule: dup ? 'duplicate-observation-id' : 'observation-id', subject: m };
  if (section === '§3.1' && path.endsWith('/actions') && /at least one action/.test(m)) {
    return { rule: 'surface-no-actions', subject: surfaceAt(payload, path) ?? path };
  }
  if (section === '§4.3' && path.endsWith('/input') && /top level/.test(m)) {
    return { rule: 'input-not-object', subject: `${surfaceAt(payload, path) ?? ''}${path}` };
  }
  if (section.startsWith('§4 ') && path.endsWith('/error/code')) return { rule: 'error-code-namespace', subject: m };
  if (section === '§7.3.3' && path === '/error' && /MUST NOT be present/.test(m)) return { rule: 'error-with-success', subject: 'client' };
  if (section === '§7.3.3' && path === '/error' && /MUST be present/.test(m)) return { rule: 'error-missing', subject: 'client' };
  if (section === '§7.3.4' && path === '/surfacesHash') return { rule: /MUST also carry/.test(m) ? 'hash-missing' : 'hash-format', subject: 'client' };
  if (path === '/approval/argsHash') return { rule: 'approval-hash-format', subject: isObj(payload) ? String(payload.requestId) : m };
  if (path.startsWith('/delivery')) {
    return /only after surfaces and observations/.test(m)
      ? { rule: 'trim-order', subject: isObj(payload) ? String(payload.requestId) : m }
      : { rule: 'trim-shape', subject: 'client' };
  }
  return null;
}

export function fileProblem(p: PayloadProblem, type: string, label: string, payload: unknown): FiledProblem {
  const where = p.path || '(payload)';
  const hit = classify(p, payload);
  if (!hit) return { rule: 'payload-problem', subject: `${type}|${p.path}|${p.message}`, message: `${label}: ${where} ${p.message}`, own: true };
  const surface = surfaceAt(payload, p.path);
  const about = surface !== undefined && !p.message.includes(JSON.stringify(surface)) ? ` (surface ${q(surface)})` : '';
  return { ...hit, message: `${label}: ${p.message}${about} at ${where}`, own: false };
}
