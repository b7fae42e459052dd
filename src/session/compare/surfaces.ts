/**
 * Two builds' surfaces in sentences an app's developer reads as a changelog
 * of what the agent can do: "`cart` gained action `clear_cart` (edit,
 * confirm)", "`catalog.search` input: `limit` became required",
 * "`cart.checkout` effect: edit → transaction". Surfaces arrive unvalidated:
 * every field is read defensively. Pure.
 */
import type { OUISurface } from '../../protocol/index.ts';
import { isRecord } from '../../protocol/json-object.ts';
import { jsonEqual } from '../diff/json-equal.ts';

type Obj = Record<string, unknown>;

export type SentenceKind = 'added' | 'removed' | 'changed';

export interface Sentence {
  /** The surface it is about. */
  surface: string;
  kind: SentenceKind;
  /** Markdown-ish: ids in backticks. */
  text: string;
}

const tick = (s: string) => `\`${s}\``;

function members(list: unknown): Map<string, Obj> {
  const out = new Map<string, Obj>();
  if (!Array.isArray(list)) return out;
  for (const m of list) if (isRecord(m) && typeof m.id === 'string' && !out.has(m.id)) out.set(m.id, m);
  return out;
}

/** "edit, confirm, async": what an action is, as its badges say it. */
export function actionTraits(a: Obj): string {
  const traits = [typeof a.effect === 'string' ? a.effect : 'no effect'];
  if (a.confirm === true) traits.push('confirm');
  if (a.async === true) traits.push('async');
  return traits.join(', ');
}

function typeText(schema: unknown): string {
  if (!isRecord(schema)) return 'any';
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.map(String).join(' | ');
  if (Array.isArray(schema.enum)) return 'enum';
  return 'any';
}

function requiredOf(schema: Obj): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
}

/** A schema's change, property by property at its top level; anything else in one line. `what` is "`catalog.search` input". */
export function schemaSentences(what: string, before: unknown, after: unknown): string[] {
  if (jsonEqual(before, after)) return [];
  if (!isRecord(before) || !isRecord(after)) return [`${what} changed`];
  const out: string[] = [];
  const pa = isRecord(before.properties) ? before.properties : {};
  const pb = isRecord(after.properties) ? after.properties : {};
  const ra = requiredOf(before);
  const rb = requiredOf(after);
  for (const k of Object.keys(pa)) if (!Object.hasOwn(pb, k)) out.push(`${what}: ${tick(k)} removed`);
  for (const k of Object.keys(pb)) {
    if (!Object.hasOwn(pa, k)) {
      out.push(`${what}: ${tick(k)} added (${typeText(pb[k])}${rb.has(k) ? ', required' : ''})`);
      continue;
    }
    const ta = typeText(pa[k]);
    const tb = typeText(pb[k]);
    if (ta !== tb) out.push(`${what}: ${tick(k)} type ${ta} → ${tb}`);
    else if (!jsonEqual(pa[k], pb[k])) {
      const a = isRecord(pa[k]) ? pa[k] : {};
      const b = isRecord(pb[k]) ? pb[k] : {};
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((x) => !jsonEqual(a[x], b[x]));
      out.push(`${what}: ${tick(k)} changed (${keys.join(', ')})`);
    }
    if (!ra.has(k) && rb.has(k)) out.push(`${what}: ${tick(k)} became required`);
    if (ra.has(k) && !rb.has(k)) out.push(`${what}: ${tick(k)} is no longer required`);
  }
  // Required names of properties neither side declares are still part of the contract.
  for (const k of rb) if (!ra.has(k) && !Object.hasOwn(pb, k)) out.push(`${what}: ${tick(k)} became required`);
  for (const k of ra) if (!rb.has(k) && !Object.hasOwn(pa, k)) out.push(`${what}: ${tick(k)} is no longer required`);
  const rest = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => k !== 'properties' && k !== 'required' && !jsonEqual(before[k], after[k]));
  if (rest.length) out.push(`${what} changed (${rest.join(', ')})`);
  return out;
}

function actionSentences(sid: string, id: string, a: Obj, b: Obj): string[] {
  const name = tick(`${sid}.${id}`);
  const out: string[] = [];
  if (a.effect !== b.effect) out.push(`${name} effect: ${typeof a.effect === 'string' ? a.effect : 'none'} → ${typeof b.effect === 'string' ? b.effect : 'none'}`);
  if ((a.confirm === true) !== (b.confirm === true)) out.push(b.confirm === true ? `${name} now needs confirmation` : `${name} no longer needs confirmation`);
  if ((a.async === true) !== (b.async === true)) out.push(b.async === true ? `${name} became async` : `${name} is no longer async`);
  out.push(...schemaSentences(`${name} input`, a.input, b.input));
  out.push(...schemaSentences(`${name} output`, a.output, b.output));
  const other = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !['id', 'effect', 'confirm', 'async', 'input', 'output'].includes(k) && !jsonEqual(a[k], b[k]));
  if (other.length) out.push(`${name} ${other.join(', ')} changed`);
  return out;
}

function observationSentences(sid: string, id: string, a: Obj, b: Obj): string[] {
  const name = tick(`${sid}.${id}`);
  const out: string[] = [];
  const fa = typeof a.updateFrequency === 'string' ? a.updateFrequency : 'on-change';
  const fb = typeof b.updateFrequency === 'string' ? b.updateFrequency : 'on-change';
  if (fa !== fb) out.push(`observation ${name} update frequency: ${fa} → ${fb}`);
  out.push(...schemaSentences(`observation ${name} schema`, a.schema, b.schema));
  const other = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !['id', 'updateFrequency', 'schema'].includes(k) && !jsonEqual(a[k], b[k]));
  if (other.length) out.push(`observation ${name} ${other.join(', ')} changed`);
  return out;
}

/** The sentences for one surface present on both sides. */
function surfaceChanges(id: string, a: Obj, b: Obj): Sentence[] {
  const out: Sentence[] = [];
  const say = (kind: SentenceKind, text: string) => out.push({ surface: id, kind, text });
  if (a.version !== b.version && (typeof a.version === 'string' || typeof b.version === 'string')) say('changed', `${tick(id)} version ${String(a.version ?? 'none')} → ${String(b.version ?? 'none')}`);
  for (const k of ['name', 'description', 'activation', 'metadata']) if (!jsonEqual(a[k], b[k])) say('changed', `${tick(id)} ${k} changed`);
  const aa = members(a.actions);
  const ab = members(b.actions);
  for (const [aid, act] of ab) if (!aa.has(aid)) say('added', `${tick(id)} gained action ${tick(aid)} (${actionTraits(act)})`);
  for (const aid of aa.keys()) if (!ab.has(aid)) say('removed', `${tick(id)} lost action ${tick(aid)}`);
  for (const [aid, act] of ab) {
    const old = aa.get(aid);
    if (old) for (const t of actionSentences(id, aid, old, act)) say('changed', t);
  }
  const oa = members(a.observations);
  const ob = members(b.observations);
  for (const [oid, o] of ob) if (!oa.has(oid)) say('added', `${tick(id)} gained observation ${tick(oid)} (${typeof o.updateFrequency === 'string' ? o.updateFrequency : 'on-change'})`);
  for (const oid of oa.keys()) if (!ob.has(oid)) say('removed', `${tick(id)} lost observation ${tick(oid)}`);
  for (const [oid, o] of ob) {
    const old = oa.get(oid);
    if (old) for (const t of observationSentences(id, oid, old, o)) say('changed', t);
  }
  return out;
}

function listOf(m: Map<string, Obj>): string {
  return [...m.keys()].map(tick).join(', ') || 'none';
}

/** Every difference between the surfaces of A (before) and B (after), surfaces in id order. */
export function compareSurfaces(before: ReadonlyMap<string, OUISurface>, after: ReadonlyMap<string, OUISurface>): Sentence[] {
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: Sentence[] = [];
  for (const id of ids) {
    const a = before.get(id) as unknown;
    const b = after.get(id) as unknown;
    if (!isRecord(a) && isRecord(b)) {
      out.push({ surface: id, kind: 'added', text: `surface ${tick(id)} appeared (actions ${listOf(members(b.actions))}; observations ${listOf(members(b.observations))})` });
    } else if (isRecord(a) && !isRecord(b)) {
      out.push({ surface: id, kind: 'removed', text: `surface ${tick(id)} is gone` });
    } else if (isRecord(a) && isRecord(b) && !jsonEqual(a, b)) {
      out.push(...surfaceChanges(id, a, b));
    }
  }
  return out;
}
