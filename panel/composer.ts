/**
 * What the composer holds and how it becomes a request: the params as JSON,
 * the approval (matching, wrong or none), the options of the send. Pure: the
 * views edit a `ComposerState`, the store sends what `composed` makes of it.
 */
import { argsHashSync, requiresApproval, type OUISurface } from '../src/protocol/index.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import type { ClientState } from '../src/session/model/model-types.ts';
import type { Recorder } from '../src/session/wire/recorder.ts';
import type { WireClient } from '../src/session/wire/wire.ts';
import type { InjectInput } from './injector.ts';
import { clock, short } from './display-text.ts';

export type ApprovalMode = 'matching' | 'wrong' | 'none';

export interface ComposerState {
  client: string;
  /** The client was chosen by the composer, as the only one with the surface: named as text, not offered as a choice. */
  clientAuto?: boolean;
  surfaceId: string;
  actionId: string;
  paramsText: string;
  /** Set for a replay with the same id. */
  requestId?: string;
  approvalId: string;
  approvalMode: ApprovalMode;
  wantReceipt: boolean;
  letThrough: boolean;
  replayOf?: string;
}

export const freshComposer = (): ComposerState => ({
  client: '',
  surfaceId: '',
  actionId: '',
  paramsText: '{}',
  approvalId: crypto.randomUUID(),
  approvalMode: 'matching',
  wantReceipt: true,
  letThrough: false,
});

export function parseParams(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

export function hashOf(params: unknown): { ok: true; hash: string } | { ok: false; error: string } {
  try {
    return { ok: true, hash: argsHashSync(params) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** A hash that is well-formed but not the params' own: the last hex digit flipped. */
export function wrongHash(hash: string): string {
  const last = hash.at(-1) === '0' ? '1' : '0';
  return hash.slice(0, -1) + last;
}

export interface Composed {
  client: WireClient;
  input: InjectInput;
  opts: { wantReceipt: boolean; letThrough: boolean; replayOf?: string };
}

/**
 * The surface's definition: as mounted now, or as last seen mounted on this
 * client (from the event that mounted it, while the recorder still holds
 * it). A surface that unmounted keeps its form, its actions and its approval
 * rules in the composer this way.
 */
export function lastKnownSurface(model: SessionModel, recorder: Recorder, clientKey: string, surfaceId: string): OUISurface | undefined {
  const state = model.clients.get(clientKey);
  if (!state || !surfaceId) return undefined;
  const now = state.surfaces.get(surfaceId);
  if (now) return now.surface;
  for (let i = state.lifecycle.length - 1; i >= 0; i--) {
    const entry = state.lifecycle[i]!;
    if (entry.surfaceId !== surfaceId || (entry.kind !== 'registered' && entry.kind !== 'replaced' && entry.kind !== 'reported')) continue;
    const payload = recorder.byId.get(entry.eventId)?.payload as { surface?: unknown; surfaces?: unknown } | undefined;
    const found = isSurface(payload?.surface, surfaceId) ? payload.surface : Array.isArray(payload?.surfaces) ? payload.surfaces.find((s) => isSurface(s, surfaceId)) : undefined;
    if (found) return found as OUISurface;
  }
  return undefined;
}

function isSurface(s: unknown, id: string): s is OUISurface {
  return typeof s === 'object' && s !== null && (s as { id?: unknown }).id === id;
}

/** Whether the client has the surface mounted now. */
export function isMounted(model: SessionModel, clientKey: string, surfaceId: string): boolean {
  return model.clients.get(clientKey)?.surfaces.has(surfaceId) === true;
}

/** A surface the composer offers: mounted on some client now, or known from earlier and not mounted anywhere now. */
export interface SurfaceChoice {
  id: string;
  mounted: boolean;
  /** The clients that have it mounted now, or (none has) that had it: the ones to send it to. */
  clients: string[];
}

/** The surfaces of `clientKeys`' clients, mounted first (in the clients' order), then the ones known but not mounted now. */
export function surfaceChoices(model: SessionModel, clientKeys: Iterable<string>): SurfaceChoice[] {
  const mounted = new Map<string, string[]>();
  const known = new Map<string, string[]>();
  const keys = [...clientKeys];
  for (const key of keys) {
    const state = model.clients.get(key);
    if (!state) continue;
    for (const id of state.surfaces.keys()) mounted.set(id, [...(mounted.get(id) ?? []), key]);
  }
  for (const key of keys) {
    const state = model.clients.get(key);
    if (!state) continue;
    for (const entry of state.lifecycle) {
      const id = entry.surfaceId;
      if (mounted.has(id) || state.surfaces.has(id)) continue;
      const list = known.get(id) ?? [];
      if (!list.includes(key)) list.push(key);
      known.set(id, list);
    }
  }
  return [
    ...[...mounted].map(([id, clients]) => ({ id, mounted: true, clients })),
    ...[...known].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, clients]) => ({ id, mounted: false, clients })),
  ];
}

/** A clock time to the second: "20:07:43". */
const toSecond = (t: number) => clock(t).replace(/\.\d{3}$/, '');

/** What the client was asked last before `t` (within 10 s): "navigate /cart". */
function causeBefore(state: ClientState, t: number): string | undefined {
  let best: { t: number; actionId: string; params: unknown } | undefined;
  for (const req of state.requests.values()) {
    const sent = req.sends[0]?.t;
    if (sent === undefined || sent > t || t - sent > 10_000 || (best && best.t > sent)) continue;
    best = { t: sent, actionId: req.actionId, params: req.params };
  }
  if (!best) return undefined;
  const words =
    best.params && typeof best.params === 'object' && !Array.isArray(best.params)
      ? Object.values(best.params)
          .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
          .map(String)
          .join(' ')
      : '';
  return short(words ? `${best.actionId} ${words}` : best.actionId, 60);
}

/**
 * Why a surface is not mounted on a client now, in one line, from the
 * model's surface history: "catalog is not mounted now (activates on /;
 * unmounted 20:07:43 after navigate /checkout)". Null while it is mounted.
 */
export function notMountedReason(model: SessionModel, recorder: Recorder, clientKey: string, surfaceId: string): string | null {
  const state = model.clients.get(clientKey);
  if (state?.surfaces.has(surfaceId)) return null;
  const parts: string[] = [];
  const routes = lastKnownSurface(model, recorder, clientKey, surfaceId)?.activation?.routes;
  if (routes !== undefined) parts.push(`activates on ${(Array.isArray(routes) ? routes : [routes]).join(', ')}`);
  let last: ClientState['lifecycle'][number] | undefined;
  for (let i = (state?.lifecycle.length ?? 0) - 1; i >= 0 && !last; i--) if (state!.lifecycle[i]!.surfaceId === surfaceId) last = state!.lifecycle[i];
  if (!state || !last) parts.push('not seen mounted on this client since the capture began');
  else if (last.kind === 'cleared') parts.push(`cleared ${toSecond(last.t)} when the connection closed`);
  else {
    const cause = causeBefore(state, last.t);
    parts.push(`unmounted ${toSecond(last.t)}${cause ? ` after ${cause}` : ''}`);
  }
  return `${surfaceId} is not mounted now (${parts.join('; ')})`;
}

/**
 * The client a composer state sends to: the one it names while the recorder
 * knows it, or else (a reload made new clients) the only client that has its
 * surface mounted.
 */
export function composerClient(state: ComposerState, recorder: Recorder, model: SessionModel): WireClient | undefined {
  const named = recorder.clients.get(state.client);
  if (named || !state.surfaceId) return named;
  const having = [...recorder.clients.values()].filter((c) => model.clients.get(c.key)?.surfaces.has(state.surfaceId));
  return having.length === 1 ? having[0] : undefined;
}

/** The request the composer holds, or null while it names no known client or its params are not JSON. */
export function composed(state: ComposerState, recorder: Recorder, model: SessionModel): Composed | null {
  const client = composerClient(state, recorder, model);
  if (!client) return null;
  const parsed = parseParams(state.paramsText);
  if (!parsed.ok) return null;
  // The surface as mounted, or as last seen: a request to a surface that unmounted is sent on purpose, with its approval.
  const surface = lastKnownSurface(model, recorder, client.key, state.surfaceId);
  const action = surface?.actions?.find((a) => a.id === state.actionId);
  const needsApproval = action ? requiresApproval(action.effect, action.confirm === true) : false;
  const hash = hashOf(parsed.value);
  let approval: { approvalId: string; argsHash: string } | undefined;
  if (needsApproval && state.approvalMode !== 'none' && hash.ok) {
    approval = { approvalId: state.approvalId, argsHash: state.approvalMode === 'wrong' ? wrongHash(hash.hash) : hash.hash };
  }
  return {
    client,
    input: { surfaceId: state.surfaceId, actionId: state.actionId, params: parsed.value, ...(state.requestId ? { requestId: state.requestId } : {}), ...(approval ? { approval } : {}) },
    opts: { wantReceipt: state.wantReceipt, letThrough: state.letThrough, ...(state.replayOf ? { replayOf: state.replayOf } : {}) },
  };
}
