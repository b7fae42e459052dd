/**
 * The panel's injector: sends requests into the live page through the
 * background and the page hook, keeps a history of what it injected, and the
 * requests a user saved per origin (extension storage, through `SavedStore`).
 */
import { signal } from '@preact/signals';
import type { OUIActionApproval, OUIActionRequest } from '../src/protocol/index.ts';
import { INJECT_ACK_BASE, newRequestId, planInjection } from '../src/session/wire/injection.ts';
import type { WireClient } from '../src/session/wire/wire.ts';
import type { AnswerMessage } from '../src/messages.ts';
import type { Connection } from './connection.ts';

export interface InjectionRecord {
  id: string;
  t: number;
  client: string;
  request: OUIActionRequest;
  letThrough: boolean;
  /** The captured request this one replays. */
  replayOf?: string;
  status: 'sending' | 'delivered' | 'failed';
  error?: string;
}

export interface InjectInput {
  surfaceId: string;
  actionId: string;
  params: unknown;
  requestId?: string;
  approval?: OUIActionApproval;
  knownSurfaces?: string;
}

export interface SavedRequest {
  name: string;
  surfaceId: string;
  actionId: string;
  params: unknown;
  savedAt: number;
}

/** Key-value storage that outlives the panel (chrome.storage.local in the extension). */
export interface SavedStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

const MAX_HISTORY = 200;
const MAX_SAVED = 100;
const storageKey = (origin: string) => `saved:${origin}`;

export class Injector {
  readonly injections = signal<InjectionRecord[]>([]);
  private nextAck = INJECT_ACK_BASE;

  constructor(private readonly saved: SavedStore) {}

  /** Sends through `connection` (null while the panel has no tab): the injector holds no line of its own. */
  inject(connection: Connection | null, client: WireClient, input: InjectInput, opts: { wantReceipt: boolean; letThrough: boolean; replayOf?: string }): InjectionRecord {
    const request: OUIActionRequest = {
      requestId: input.requestId ?? newRequestId(),
      surfaceId: input.surfaceId,
      actionId: input.actionId,
      params: input.params as Record<string, unknown>,
      timestamp: Date.now(),
      ...(input.approval ? { approval: input.approval } : {}),
      ...(input.knownSurfaces ? { knownSurfaces: input.knownSurfaces } : {}),
    };
    const record: InjectionRecord = {
      id: `inj-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`,
      t: Date.now(),
      client: client.key,
      request,
      letThrough: opts.letThrough,
      status: 'sending',
      ...(opts.replayOf ? { replayOf: opts.replayOf } : {}),
    };
    const plan = planInjection(client, request, { id: record.id, wantReceipt: opts.wantReceipt, letThrough: opts.letThrough, ackId: this.nextAck++ });
    if (!plan.ok) {
      record.status = 'failed';
      record.error = plan.error;
    } else if (!connection) {
      record.status = 'failed';
      record.error = 'not connected to a tab';
    } else {
      // The hold first: the peer's frame must know before the client can answer.
      if (plan.hold) connection.send({ ...plan.hold.command, frameId: plan.hold.frameId });
      connection.send({ ...plan.command, ...(plan.frameId !== undefined ? { frameId: plan.frameId } : {}) });
    }
    this.injections.value = [record, ...this.injections.value].slice(0, MAX_HISTORY);
    return record;
  }

  /** The hook's word on an injection: delivered, or why not. */
  onAnswer(m: AnswerMessage): void {
    this.injections.value = this.injections.value.map((r) =>
      r.id === m.id && r.status === 'sending' ? { ...r, status: m.ok ? 'delivered' : 'failed', ...(m.ok ? {} : { error: m.error ?? 'not delivered' }) } : r,
    );
  }

  async loadSaved(origin: string): Promise<SavedRequest[]> {
    const list = await this.saved.get(storageKey(origin));
    return Array.isArray(list) ? (list as SavedRequest[]) : [];
  }

  async saveRequest(origin: string, saved: SavedRequest): Promise<SavedRequest[]> {
    const list = (await this.loadSaved(origin)).filter((s) => s.name !== saved.name);
    list.unshift(saved);
    const kept = list.slice(0, MAX_SAVED);
    await this.saved.set(storageKey(origin), kept);
    return kept;
  }

  async deleteSaved(origin: string, name: string): Promise<SavedRequest[]> {
    const list = (await this.loadSaved(origin)).filter((s) => s.name !== name);
    await this.saved.set(storageKey(origin), list);
    return list;
  }
}
