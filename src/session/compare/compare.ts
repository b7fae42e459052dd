/**
 * Two sessions compared (A before, B after): their surfaces in sentences
 * (surfaces.ts), findings added and gone, matched by rule and place (the
 * surface, action or observation their main event concerns; a finding whose
 * events name none is placed by its client's kind), and per-action latency.
 * Pure: what the panel, `oui-devtools diff` and the tests all call.
 */
import type { OUISurface } from '../../protocol/index.ts';
import type { ClientState, Finding, RequestState, Severity } from '../model/model-types.ts';
import type { SessionDigest } from './digest.ts';
import { compareSurfaces, type Sentence } from './surfaces.ts';

/** One side: the model's clients and findings, and the digest fed the same events. */
export interface CompareSide {
  clients: ReadonlyMap<string, ClientState>;
  findings: readonly Finding[];
  digest: SessionDigest;
}

export interface FindingDelta {
  rule: string;
  severity: Severity;
  /** "cart.checkout", "cart", or "(client websocket)" for a finding no surface is named in. */
  place: string;
  /** How many findings of this rule at this place the side that has them shows. */
  count: number;
  /** One of them, as an example. */
  message: string;
}

export interface LatencyStats {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface LatencyRow {
  /** "surface.action". */
  action: string;
  before?: LatencyStats;
  after?: LatencyStats;
}

export interface Comparison {
  sentences: Sentence[];
  findings: { added: FindingDelta[]; gone: FindingDelta[]; /** Rule-and-place keys both sides show. */ kept: number };
  latency: LatencyRow[];
  /** Requests the model dropped to stay bounded, per side: the latency figures leave them out. */
  droppedRequests: { before: number; after: number };
}

/** Every surface the side ever declared, completed by the ones mounted at its end (a capture that began late saw no registration of them). */
export function surfacesOf(side: CompareSide): Map<string, OUISurface> {
  const out = new Map(side.digest.surfaces);
  for (const c of side.clients.values()) for (const [id, s] of c.surfaces) if (!out.has(id)) out.set(id, s.surface);
  return out;
}

function placeOf(side: CompareSide, f: Finding): string {
  for (const id of f.events) {
    const p = side.digest.placeOf(id);
    if (p !== undefined) return p;
  }
  const kind = side.clients.get(f.client)?.client.kind;
  return `(client ${kind ?? 'unknown'})`;
}

interface Group {
  rule: string;
  place: string;
  severity: Severity;
  count: number;
  message: string;
}

const RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

function groups(side: CompareSide): Map<string, Group> {
  const out = new Map<string, Group>();
  for (const f of side.findings) {
    if (f.experiment) continue;
    const place = placeOf(side, f);
    const key = `${f.rule}\u0000${place}`;
    const g = out.get(key);
    if (g) {
      g.count++;
      if (RANK[f.severity] < RANK[g.severity]) g.severity = f.severity;
    } else out.set(key, { rule: f.rule, place, severity: f.severity, count: 1, message: f.message });
  }
  return out;
}

function byWeight(a: FindingDelta, b: FindingDelta): number {
  return RANK[a.severity] - RANK[b.severity] || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) || (a.place < b.place ? -1 : a.place > b.place ? 1 : 0);
}

export function compareFindings(before: CompareSide, after: CompareSide): Comparison['findings'] {
  const a = groups(before);
  const b = groups(after);
  const added: FindingDelta[] = [];
  const gone: FindingDelta[] = [];
  let kept = 0;
  for (const [k, g] of b) if (!a.has(k)) added.push({ ...g });
  for (const [k, g] of a) {
    if (b.has(k)) kept++;
    else gone.push({ ...g });
  }
  return { added: added.sort(byWeight), gone: gone.sort(byWeight), kept };
}

/** Nearest-rank percentile of sorted values: the smallest value with at least p % of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function stats(durations: readonly number[]): LatencyStats | undefined {
  if (!durations.length) return undefined;
  const s = [...durations].sort((x, y) => x - y);
  return { count: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1]! };
}

/** The requests with a duration (first send to final result), by "surface.action"; the user's experiments left out. */
function durations(side: CompareSide): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const c of side.clients.values()) {
    for (const r of c.requests.values()) {
      if (typeof r.durationMs !== 'number' || !Number.isFinite(r.durationMs) || injected(r)) continue;
      const key = `${r.surfaceId}.${r.actionId}`;
      const list = out.get(key);
      if (list) list.push(r.durationMs);
      else out.set(key, [r.durationMs]);
    }
  }
  return out;
}

function injected(r: RequestState): boolean {
  return r.sends[0]?.injected === true;
}

export function compareLatency(before: CompareSide, after: CompareSide): LatencyRow[] {
  const a = durations(before);
  const b = durations(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.map((action) => {
    const sa = stats(a.get(action) ?? []);
    const sb = stats(b.get(action) ?? []);
    return { action, ...(sa ? { before: sa } : {}), ...(sb ? { after: sb } : {}) };
  });
}

function dropped(side: CompareSide): number {
  let n = 0;
  for (const c of side.clients.values()) n += c.dropped.requests ?? 0;
  return n;
}

export function compareSessions(before: CompareSide, after: CompareSide): Comparison {
  return {
    sentences: compareSurfaces(surfacesOf(before), surfacesOf(after)),
    findings: compareFindings(before, after),
    latency: compareLatency(before, after),
    droppedRequests: { before: dropped(before), after: dropped(after) },
  };
}

export type { Sentence } from './surfaces.ts';
