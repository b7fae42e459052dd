/**
 * The panel's injector: sends requests into the live page through the
 * background and the page hook, keeps a history of what it injected, and the
 * requests a user saved per origin (extension storage, through `SavedStore`).
 */
import { signal } from '@preact/signals';
import type { OUIActionApproval, OUIActionRequest } from '../src/protocol/index.ts';
import { INJECT_ACK_BASE, newRequestId, planInjection } from '../src/session/wire/injection.ts';
import type { WireClient } from '../src/session/wire/wire.ts';
import type { AnswerMessage, HoldCommand } from '../src/messages.ts';
import type { Connection } from './connection.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import type { Recorder } from '../src/session/wire/recorder.ts';

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
/** How long a request waits for its hold's answer before it goes anyway (a hook of another build never answers a hold). */
export const HOLD_WAIT_MS = 2000;

/**
 * Holds sent ahead of a request (postMessage: the answer arrives in the peer's
 * frame, whose hook is told to keep it from the app's runtime), and what waits
 * for each: the request goes only once the peer's hook answered that it holds,
 * or after HOLD_WAIT_MS. The two frames are told on separate channels (and
 * processes), so a request sent at once may be answered before the peer's
 * frame knows to hold. Inject and the stand-in runtime both send through one.
 */
export class HoldWaits {
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly waitMs = HOLD_WAIT_MS) {}

  /**
   * Sends `hold` to frame `frameId` asking for the hook's answer, then runs `then` once (on the answer, or after the
   * wait). `send` returning false (no line to the tab) runs `then` at once with why.
   */
  send(send: (m: HoldCommand & { frameId: number }) => boolean | void, hold: HoldCommand, frameId: number, then: (failed: string | null) => void): void {
    const timer = setTimeout(() => this.release(hold.id), this.waitMs);
    this.waiting.set(hold.id, () => {
      clearTimeout(timer);
      then(null);
    });
    if (send({ ...hold, ack: true, frameId }) === false) {
      clearTimeout(timer);
      this.waiting.delete(hold.id);
      then('not connected to a tab');
    }
  }

  /** The hook's answer to a hold this sent: true when it was one (what waited for it goes now). */
  answer(id: string): boolean {
    return this.release(id);
  }

  private release(id: string): boolean {
    const go = this.waiting.get(id);
    if (!go) return false;
    this.waiting.delete(id);
    go();
    return true;
  }
}
const storageKey = (origin: string) => `saved:${origin}`;

export class Injector {
  /** What this panel instance sent, newest first: the history itself is derived from the capture (`injectionHistory`). */
  readonly injections = signal<InjectionRecord[]>([]);
  /** The last Replay: its record, the event it replays, and whether its new request row was selected yet. */
  readonly replayed = signal<{ id: string; from: string; selected: boolean } | null>(null);
  private nextAck = INJECT_ACK_BASE;
  /** Requests waiting for their peer frame's hold to be in. */
  private readonly holds = new HoldWaits();

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
      const send = () => connection.send({ ...plan.command, ...(plan.frameId !== undefined ? { frameId: plan.frameId } : {}) });
      if (plan.hold) {
        // The hold first, and the request only once the peer's hook has it (HoldWaits).
        this.holds.send((m) => connection.send(m), { ...plan.hold.command, id: `${record.id}:hold` }, plan.hold.frameId, () => send());
      } else send();
    }
    this.injections.value = [record, ...this.injections.value].slice(0, MAX_HISTORY);
    return record;
  }

  /** The hook's word on an injection: delivered, or why not. */
  onAnswer(m: AnswerMessage): void {
    if (this.holds.answer(m.id)) return;
    this.injections.value = this.injections.value.map((r) =>
      r.id === m.id && r.status === 'sending' ? { ...r, status: m.ok ? 'delivered' : 'failed', ...(m.ok ? {} : { error: m.error ?? 'not delivered' }) } : r,
    );
  }

  /** Notes that `recordId` replays the captured event `from`: Replay shows its answer beside it and selects its row. */
  noteReplay(recordId: string, from: string): void {
    this.replayed.value = { id: recordId, from, selected: false };
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

/** One experiment in the Inject history: an injected request as the capture shows it, with this panel's word on its delivery when it has one. */
export interface HistoryRow {
  key: string;
  t: number;
  client: string;
  requestId: string;
  surfaceId: string;
  actionId: string;
  /** The injected request's event, once captured. */
  eventId?: string;
  status: InjectionRecord['status'];
  error?: string;
  /** The answer is kept from the app's runtime (not let through). */
  kept: boolean;
  replay: boolean;
}

const MAX_ROWS = 200;

/**
 * The experiments, newest first: every injected request the capture holds
 * (so the list survives a panel reload, and shows what another panel of the
 * tab sent), and what this panel sent that the capture does not show (not
 * delivered, or not captured yet). A capture's injected send is matched to
 * this panel's records of the same request id in order.
 */
export function injectionHistory(model: SessionModel, recorder: Recorder, records: readonly InjectionRecord[]): HistoryRow[] {
  const byRequest = new Map<string, InjectionRecord[]>();
  for (const r of [...records].sort((a, b) => a.t - b.t)) {
    const k = `${r.client}\u0000${r.request.requestId}`;
    byRequest.set(k, [...(byRequest.get(k) ?? []), r]);
  }
  const rows: HistoryRow[] = [];
  const matched = new Set<string>();
  for (const [clientKey, state] of model.clients) {
    for (const req of state.requests.values()) {
      let n = 0;
      for (const send of req.sends) {
        if (!send.injected) continue;
        const k = `${clientKey}\u0000${req.requestId}`;
        const record = byRequest.get(k)?.[n++];
        const final = req.results.filter((x) => !x.result.interim).at(-1);
        const held = final ? recorder.byId.get(final.eventId)?.held === true : undefined;
        rows.push({
          key: send.eventId,
          t: record?.t ?? send.t,
          client: clientKey,
          requestId: req.requestId,
          surfaceId: req.surfaceId,
          actionId: req.actionId,
          eventId: send.eventId,
          status: record?.status === 'failed' ? 'failed' : 'delivered',
          ...(record?.error ? { error: record.error } : {}),
          kept: record ? !record.letThrough : (held ?? true),
          replay: record?.replayOf !== undefined,
        });
        if (record) matched.add(record.id);
      }
    }
  }
  for (const r of records) {
    if (matched.has(r.id)) continue;
    rows.push({
      key: r.id,
      t: r.t,
      client: r.client,
      requestId: r.request.requestId,
      surfaceId: r.request.surfaceId,
      actionId: r.request.actionId,
      status: r.status,
      ...(r.error ? { error: r.error } : {}),
      kept: !r.letThrough,
      replay: r.replayOf !== undefined,
    });
  }
  return rows.sort((a, b) => b.t - a.t).slice(0, MAX_ROWS);
}
