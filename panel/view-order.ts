/**
 * How the document-style views order, group, filter and shorten what they
 * list: one sort order for every chronological list (newest first unless the
 * user asks for oldest first), the main app client first, findings grouped
 * by rule, and an observation's update rate as its peak. Pure functions of
 * the model's lists, so they are tested without a browser.
 */
import type { ClientState, Finding, Severity } from '../src/session/model/model-types.ts';

/** A chronological list (the model keeps them in arrival order) in the order shown: newest first unless `oldestFirst`. */
export function inOrder<T>(list: readonly T[], oldestFirst: boolean): T[] {
  return oldestFirst ? list.slice() : list.slice().reverse();
}

/** A history collapsed to its newest `n` entries (all when `all`), in the order shown. */
export function collapsed<T>(list: readonly T[], n: number, oldestFirst: boolean, all: boolean): T[] {
  return inOrder(all ? list : list.slice(-n), oldestFirst);
}

/** Clients in the order the views show them: the one with the most mounted surfaces (the main app) first, then by first seen. */
export function orderClients(list: readonly ClientState[]): ClientState[] {
  return list
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.surfaces.size - a.c.surfaces.size || a.i - b.i)
    .map((x) => x.c);
}

/** Whether `text` contains `query`, ignoring case and surrounding spaces: plain text, never a pattern. An empty query matches everything. */
export function matchesQuery(text: string, query: string): boolean {
  const q = query.trim().toLowerCase();
  return !q || text.toLowerCase().includes(q);
}

const RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

export interface FindingGroup {
  rule: string;
  /** The group's findings in the order shown. */
  findings: Finding[];
  /** The worst severity among them. */
  severity: Severity;
  /** When the newest of them was raised. */
  latest: number;
}

/**
 * Findings grouped by rule, as the Console groups repeated messages: the
 * worst groups first (by severity), then the most recent; within a group,
 * the findings in the shared sort order.
 */
export function groupFindings(list: readonly Finding[], oldestFirst = false): FindingGroup[] {
  const groups = new Map<string, Finding[]>();
  for (const f of list) {
    const g = groups.get(f.rule);
    if (g) g.push(f);
    else groups.set(f.rule, [f]);
  }
  return [...groups]
    .map(([rule, fs]) => ({
      rule,
      findings: inOrder(fs, oldestFirst),
      severity: fs.reduce<Severity>((w, f) => (RANK[f.severity] < RANK[w] ? f.severity : w), 'info'),
      latest: fs.reduce((t, f) => Math.max(t, f.t), -Infinity),
    }))
    .sort((a, b) => RANK[a.severity] - RANK[b.severity] || b.latest - a.latest || (a.rule < b.rule ? -1 : 1));
}

/** The most updates seen within any `windowMs` (a sliding window over the times given, in any order): an observation's peak rate. */
export function peakRate(times: readonly number[], windowMs = 1000): number {
  const t = times.slice().sort((a, b) => a - b);
  let peak = 0;
  let from = 0;
  for (let i = 0; i < t.length; i++) {
    while (t[i]! - t[from]! >= windowMs) from++;
    peak = Math.max(peak, i - from + 1);
  }
  return peak;
}
