/**
 * What the composer holds and how it becomes a request: the params as JSON,
 * the approval (matching, wrong or none), the options of the send. Pure: the
 * views edit a `ComposerState`, the store sends what `composed` makes of it.
 */
import { argsHashSync, requiresApproval } from '../src/protocol/index.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import type { Recorder } from '../src/session/wire/recorder.ts';
import type { WireClient } from '../src/session/wire/wire.ts';
import type { InjectInput } from './injector.ts';

export type ApprovalMode = 'matching' | 'wrong' | 'none';

export interface ComposerState {
  client: string;
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

/** The request the composer holds, or null while it names no known client or its params are not JSON. */
export function composed(state: ComposerState, recorder: Recorder, model: SessionModel): Composed | null {
  const client = recorder.clients.get(state.client);
  if (!client) return null;
  const parsed = parseParams(state.paramsText);
  if (!parsed.ok) return null;
  const surface = model.clients.get(client.key)?.surfaces.get(state.surfaceId)?.surface;
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
