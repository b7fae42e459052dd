/**
 * Changes between two surface sets of one client: an RFC 6902 patch over the
 * sets as objects keyed by surface id (so a surface moving in the array is
 * not a change), and lines that say what changed for an agent: "added
 * surface checkout", "removed action clear_cart from surface cart",
 * "changed input of add_item on surface catalog".
 *
 * Surfaces arrive unvalidated: every field is read defensively.
 */
import type { Operation } from 'fast-json-patch';
import type { OUISurface } from '../../protocol/index.ts';
import { isRecord as isObj, setMember } from '../../protocol/json-object.ts';
import { jsonEqual } from './json-equal.ts';
import { diffValues } from './observation-diff.ts';

/** Summary lines per change; the rest is counted in a last line. */
const MAX_LINES = 40;

type Obj = Record<string, unknown>;

function idOf(v: unknown): string | undefined {
  return isObj(v) && typeof v.id === 'string' ? v.id : undefined;
}

/** A set as an object keyed by surface id; a later duplicate wins (duplicates are a finding of their own). */
export function surfaceSetObject(surfaces: Iterable<unknown>): Record<string, OUISurface> {
  const out: Record<string, OUISurface> = {};
  for (const s of surfaces) {
    const id = idOf(s);
    if (id !== undefined) setMember(out, id, s);
  }
  return out;
}

/** Members of a surface's `actions` or `observations`, by id, in order. */
function members(list: unknown): Map<string, Obj> {
  const out = new Map<string, Obj>();
  if (!Array.isArray(list)) return out;
  for (const m of list) {
    const id = idOf(m);
    if (id !== undefined && !out.has(id)) out.set(id, m as Obj);
  }
  return out;
}

function changedFields(a: Obj, b: Obj, skip: string[]): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: string[] = [];
  for (const k of keys) if (!skip.includes(k) && !jsonEqual(a[k], b[k])) out.push(k);
  return out;
}

function memberLines(kind: 'action' | 'observation', surfaceId: string, before: unknown, after: unknown, lines: string[]): void {
  const a = members(before);
  const b = members(after);
  const label = kind === 'action' ? '' : 'observation ';
  for (const id of a.keys()) if (!b.has(id)) lines.push(`removed ${kind} ${id} from surface ${surfaceId}`);
  for (const [id, m] of b) {
    const old = a.get(id);
    if (!old) {
      lines.push(`added ${kind} ${id} to surface ${surfaceId}`);
      continue;
    }
    for (const f of changedFields(old, m, ['id'])) lines.push(`changed ${f} of ${label}${id} on surface ${surfaceId}`);
  }
  const common = (m: Map<string, Obj>, other: Map<string, Obj>) => [...m.keys()].filter((id) => other.has(id));
  const orderA = common(a, b);
  const orderB = common(b, a);
  if (orderA.some((id, i) => orderB[i] !== id)) lines.push(`reordered ${kind}s of surface ${surfaceId}`);
}

/** Readable lines for the change from one set to the other. */
export function summarizeSurfaceSets(before: Record<string, OUISurface>, after: Record<string, OUISurface>): string[] {
  const lines: string[] = [];
  for (const id of Object.keys(before)) if (!(id in after)) lines.push(`removed surface ${id}`);
  for (const [id, s] of Object.entries(after)) {
    const old = before[id];
    if (!old) {
      lines.push(`added surface ${id}`);
      continue;
    }
    if (jsonEqual(old, s)) continue;
    const a = old as unknown as Obj;
    const b = s as unknown as Obj;
    for (const f of changedFields(a, b, ['id', 'actions', 'observations'])) lines.push(`changed ${f} of surface ${id}`);
    memberLines('action', id, a.actions, b.actions, lines);
    memberLines('observation', id, a.observations, b.observations, lines);
  }
  if (lines.length > MAX_LINES) {
    const more = lines.length - MAX_LINES;
    lines.length = MAX_LINES;
    lines.push(`… and ${more} more changes`);
  }
  return lines;
}

/** Patch and summary from one surface set to the next; an empty patch when nothing changed. */
export function diffSurfaceSets(before: Iterable<unknown>, after: Iterable<unknown>): { patch: Operation[]; summary: string[] } {
  const a = surfaceSetObject(before);
  const b = surfaceSetObject(after);
  const patch = diffValues(a, b);
  return { patch, summary: patch.length ? summarizeSurfaceSets(a, b) : [] };
}
