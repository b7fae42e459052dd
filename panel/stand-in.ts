/**
 * The panel in the runtime's seat (issue 21, item 2): one stand-in runtime
 * (src/runtime/stand-in.ts) per client the user sends to, run by a
 * StandInDriver (src/runtime/stand-in-driver.ts, as the Playwright fixture
 * runs it) over the panel's line: fed the client's events as the capture
 * decodes them, its outputs delivered as hook commands, its deadlines and
 * re-sends on the driver's timer. What it sends is listed from the driver's
 * outputs. The Runtime view shows and drives it; the Scenarios view runs its
 * steps through `call`.
 *
 * Take over: the faults helper's `takeoverRule` for the client, applied with
 * the user's rules (they are one set in the hook), drops what the app's real
 * runtime sends that client while the stand-in answers. Serve: the virtual
 * server (`hook:serve`) answers the page's connections to a URL pattern
 * inside the page, so the stand-in is the only runtime there is.
 *
 * Acknowledgments: on Socket.IO the stand-in acknowledges the client's
 * results itself, refusing one when a `refuse-result` rule of the Faults
 * view takes it (decided here with the rules' seed, as the fixture does,
 * since these answers never pass the hook's rules: they are held from the
 * app's runtime); the client then re-sends it trimmed (§7.3.6). On a direct
 * transport it does the same through the client's `onAcknowledged` callback,
 * which the hook keeps for it; WebSocket and postMessage carry no
 * acknowledgment of a result.
 */
import { batch, signal } from '@preact/signals';
import { StandIn, APPROVAL_ASK, type CallOutcome, type CallSpec, type StandInOutput } from '../src/runtime/stand-in.ts';
import { WireIds, faultClientOf, takeoverOf } from '../src/runtime/stand-in-wire.ts';
import { StandInDriver } from '../src/runtime/stand-in-driver.ts';
import { createFaultDecider, type FaultDecider, type FaultRule } from '../src/runtime/faults.ts';
import type { FromPanel, AnswerMessage, HoldCommand, InjectCommand } from '../src/messages.ts';
import type { Recorder } from '../src/session/wire/recorder.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';
import type { Timers } from '../src/session/model/timers.ts';
import type { ScenarioDriver, ScenarioStep, StepCall } from '../src/runtime/scenario.ts';
import { freshComposer, type ComposerState } from './composer.ts';
import { HoldWaits } from './injector.ts';

/** One call the stand-in made, as the Runtime view lists it. */
export interface CallRow {
  callId: string;
  client: string;
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  t: number;
  requestId?: string;
  /** How many times the request went (1 + re-sends, §7.3.7). */
  sends: number;
  state: 'approval' | 'pending' | 'done' | 'failed';
  outcome?: CallOutcome;
  /** Why it could not be delivered. */
  error?: string;
  /** The acknowledgments of its results: accepted, or refused and why. */
  acks: string[];
  approvalId?: string;
  /** Sent with an approval it did not ask for now (a grant reused on purpose). */
  reused?: boolean;
}

/** An approval the stand-in issued: asked of the tab for exactly these params, then used once (or reused on purpose). */
export interface IssuedApproval {
  approvalId: string;
  argsHash: string;
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  client: string;
  /** asked: waiting for the tab; granted: sent with the request; refused: the tab denied or never answered. */
  state: 'asked' | 'granted' | 'refused';
  /** Requests sent under it (more than one: reused). */
  uses: number;
  why?: string;
}

/** A URL pattern the virtual server answers in the page. */
export interface ServedPattern {
  pattern: string;
  state: 'starting' | 'on' | 'failed';
  error?: string;
}

export interface StandInDeps {
  send(m: FromPanel): boolean | void;
  recorder(): Recorder;
  model(): SessionModel;
  timers(): Readonly<Timers>;
  /** Takeover rules go with the user's fault rules: the hook holds one set. */
  setSeats(rules: FaultRule[]): void;
  /** The user's fault rules and seed now (the Faults view): `refuse-result` rules refuse the stand-in's results. */
  faults(): { rules: readonly FaultRule[]; seed: number };
}

interface Entry {
  driver: StandInDriver;
  key: string;
}

/** Whether the virtual server answered this client inside the page (the capture marks it). */
export function isServed(client: WireClient): boolean {
  return client.served === true;
}

const MAX_CALLS = 200;

export class StandInSeats {
  /** Clients whose live connection the stand-in took over: key → the rule that holds their runtime back. */
  readonly taken = signal<ReadonlyMap<string, FaultRule>>(new Map());
  readonly calls = signal<CallRow[]>([]);
  readonly approvals = signal<IssuedApproval[]>([]);
  readonly served = signal<ServedPattern[]>([]);
  /** The Runtime view's composer: the Inject view's state and form, its own values. */
  readonly composer = signal<ComposerState>(freshComposer());
  /** Bumped when a stand-in's state changed (surfaces held, knownSurfaces): the view re-reads it. */
  readonly version = signal(0);
  private readonly entries = new Map<string, Entry>();
  private readonly ids = new WireIds('stand-in');
  /** Command ids → who waits for the hook's answer: a delivery of the driver's, or a serve rule. */
  private readonly sent = new Map<string, { delivered?: (failed: string | null) => void; serve?: string }>();
  /** Holds in a postMessage peer's frame, each with the request waiting for it to be in place (as Inject waits). */
  private readonly holds = new HoldWaits();
  /** The call being started: its row is made from it when the driver's first output names the call. */
  private starting: { client: string; spec: CallSpec; callId?: string } | null = null;
  /** The decider over the user's rules, made again when they change (same rules and seed: the same stream). */
  private decider: { rules: readonly FaultRule[]; seed: number; decider: FaultDecider } | null = null;

  constructor(private readonly deps: StandInDeps) {}

  /** The refusal a `refuse-result` rule decides for a result of the stand-in's call, or null to accept it. */
  private refusal(client: WireClient, call: { surfaceId: string; actionId: string }): string | null {
    const { rules, seed } = this.deps.faults();
    if (!rules.some((r) => r.fault.kind === 'refuse-result' && r.enabled !== false)) return null;
    if (!this.decider || this.decider.rules !== rules || this.decider.seed !== seed) this.decider = { rules, seed, decider: createFaultDecider(rules, seed, this.decider?.decider) };
    const now = this.deps.recorder().clients.get(client.key) ?? client;
    const d = this.decider.decider.decide({
      direction: 'from-client',
      type: 'action:result',
      transport: now.kind === 'polling' ? 'socket.io' : now.kind,
      client: faultClientOf(now) ?? now.key,
      clientKey: now.key,
      surfaceId: call.surfaceId,
      actionId: call.actionId,
    });
    return d?.fault.kind === 'refuse-result' ? d.fault.error : null;
  }

  // ── takeover ──────────────────────────────────────────────────────────────

  /** Takes the runtime's seat on the client's live connection; why not, when it cannot be taken. */
  takeOver(client: WireClient): string | null {
    const t = takeoverOf(client);
    if (!t.ok) return t.error;
    const next = new Map(this.taken.peek());
    next.set(client.key, t.rule);
    this.taken.value = next;
    this.applySeats();
    return null;
  }

  giveBack(key: string): void {
    const next = new Map(this.taken.peek());
    if (!next.delete(key)) return;
    this.taken.value = next;
    this.applySeats();
  }

  giveBackAll(): void {
    if (!this.taken.peek().size) return;
    this.taken.value = new Map();
    this.applySeats();
  }

  private applySeats(): void {
    this.deps.setSeats([...this.taken.peek().values()]);
  }

  // ── serve ────────────────────────────────────────────────────────────────

  serve(pattern: string): void {
    const p = pattern.trim();
    if (!p) return;
    const id = this.ids.id();
    this.sent.set(id, { serve: p });
    this.served.value = [...this.served.peek().filter((s) => s.pattern !== p), { pattern: p, state: 'starting' }];
    if (this.deps.send({ type: 'hook:serve', id, pattern: p, on: true }) === false) this.setServe(p, { state: 'failed', error: 'not connected to a tab' });
  }

  stopServing(pattern: string): void {
    this.deps.send({ type: 'hook:serve', id: this.ids.id(), pattern, on: false });
    this.served.value = this.served.peek().filter((s) => s.pattern !== pattern);
  }

  private setServe(pattern: string, patch: Partial<ServedPattern>): void {
    this.served.value = this.served.peek().map((s) => (s.pattern === pattern ? { ...s, ...patch } : s));
  }

  // ── the stand-ins ────────────────────────────────────────────────────────

  /** The stand-in of a client, made (and told the client's history) on first use. */
  standInOf(client: WireClient): StandIn {
    return this.entryOf(client).driver.standIn;
  }

  /** The stand-in of a client if one was made. */
  peek(key: string): StandIn | undefined {
    return this.entries.get(key)?.driver.standIn;
  }

  private entryOf(client: WireClient): Entry {
    let e = this.entries.get(client.key);
    if (e) return e;
    const t = this.deps.timers();
    const standIn = new StandIn(client, {
      timers: { syncMs: t.syncMs, asyncAckMs: t.asyncAckMs },
      refuse: (_r, _ev, call) => this.refusal(client, call),
    });
    // What the client did so far (its registrations, its last surfacesHash), before the driver takes over.
    standIn.observe(
      this.deps.recorder().events.filter((ev) => ev.client === client.key),
      Date.now(),
    );
    const key = client.key;
    const driver = new StandInDriver(
      standIn,
      {
        // The client as it is now: a Socket.IO client's injection target appears once it upgraded.
        client: () => this.deps.recorder().clients.get(key) ?? standIn.client,
        send: (command, frameId) => this.sendCommand(command, frameId),
      },
      this.ids,
    );
    driver.onOutput = (out) => this.noteOutput(key, out);
    e = { driver, key };
    this.entries.set(key, e);
    return e;
  }

  /** One hook command over the panel's line; resolves with why it failed, or null once the hook took it (a hold: once it holds). */
  private sendCommand(command: InjectCommand | HoldCommand, frameId: number): Promise<string | null> {
    return new Promise((resolve) => {
      // The driver sends a plan's commands in order, each after the one before resolved: the request after its hold.
      if (command.type === 'hook:hold') return this.holds.send((m) => this.deps.send(m), command, frameId, resolve);
      this.sent.set(command.id, { delivered: resolve });
      if (this.deps.send({ ...command, frameId }) === false) {
        this.sent.delete(command.id);
        resolve('not connected to a tab');
      }
    });
  }

  /** A taken-over client that reconnected (§7.6.1) is taken over again on its new connection, once that can be taken. */
  private followReconnects(): void {
    const taken = this.taken.peek();
    if (!taken.size) return;
    let next: Map<string, FaultRule> | null = null;
    for (const c of this.deps.recorder().clients.values()) {
      if (c.replaces === undefined || !taken.has(c.replaces) || taken.has(c.key)) continue;
      const t = takeoverOf(c);
      if (!t.ok) continue;
      next ??= new Map(taken);
      next.delete(c.replaces);
      next.set(c.key, t.rule);
    }
    if (!next) return;
    this.taken.value = next;
    this.applySeats();
  }

  /** The client's events as the capture decodes them. */
  observe(events: readonly WireEvent[]): void {
    this.followReconnects();
    if (!this.entries.size) return;
    let changed = false;
    for (const e of this.entries.values()) {
      const mine = events.filter((ev) => ev.client === e.key);
      if (!mine.length) continue;
      changed = true;
      batch(() => e.driver.observe(mine));
    }
    if (changed) this.version.value++;
  }

  /** The hook's word on a command the stand-in sent; true when it was one. */
  onAnswer(m: AnswerMessage): boolean {
    if (this.holds.answer(m.id)) return true;
    const s = this.sent.get(m.id);
    if (!s) return false;
    this.sent.delete(m.id);
    if (s.serve !== undefined) {
      this.setServe(s.serve, m.ok ? { state: 'on' } : { state: 'failed', error: m.error ?? 'refused' });
      return true;
    }
    s.delivered?.(m.ok ? null : (m.error ?? 'not delivered'));
    return true;
  }

  /**
   * Starts a call on `client`. `approve: true` asks the tab for the user's
   * approval of exactly these params first (the approval issued is listed);
   * `{ approvalId }` sends one issued before (a reuse, on purpose).
   */
  async call(client: WireClient, spec: CallSpec): Promise<CallOutcome | { error: string }> {
    const e = this.entryOf(client);
    if (typeof spec.approve === 'object') this.updateApproval(spec.approve.approvalId, (a) => ({ ...a, uses: a.uses + 1 }));
    const starting: { client: string; spec: CallSpec; callId?: string } = { client: client.key, spec };
    this.starting = starting;
    let outcome: Promise<CallOutcome>;
    try {
      outcome = batch(() => e.driver.call(spec));
    } finally {
      this.starting = null;
    }
    try {
      return await outcome;
    } catch (err) {
      const error = (err as Error).message;
      if (starting.callId) this.failed(starting.callId, error);
      return { error };
    }
  }

  /** A call the driver could not deliver: said on its row; an approval asked on it was never granted. */
  private failed(callId: string, error: string): void {
    const row = this.calls.peek().find((r) => r.callId === callId);
    this.updateRow(callId, (r) => (r.state === 'done' ? r : { ...r, state: 'failed', error }));
    if (row?.approvalId && !row.reused && row.state !== 'done') this.updateApproval(row.approvalId, (a) => (a.state === 'asked' ? { ...a, state: 'refused', why: error } : a));
  }

  private updateRow(callId: string, fn: (r: CallRow) => CallRow): void {
    this.calls.value = this.calls.peek().map((r) => (r.callId === callId ? fn(r) : r));
  }

  private updateApproval(approvalId: string, fn: (a: IssuedApproval) => IssuedApproval): void {
    this.approvals.value = this.approvals.peek().map((a) => (a.approvalId === approvalId ? fn(a) : a));
  }

  /** The row of a call, made from the call being started when the driver's first output names it. */
  private rowFor(callId: string): void {
    if (this.calls.peek().some((r) => r.callId === callId) || !this.starting) return;
    const { client, spec } = this.starting;
    this.starting.callId = callId;
    const reused = typeof spec.approve === 'object' ? spec.approve.approvalId : undefined;
    const row: CallRow = {
      callId,
      client,
      surfaceId: spec.surfaceId,
      actionId: spec.actionId,
      params: spec.params,
      t: Date.now(),
      sends: 0,
      state: 'pending',
      acks: [],
      ...(reused ? { approvalId: reused, reused: true } : {}),
    };
    this.calls.value = [row, ...this.calls.peek()].slice(0, MAX_CALLS);
  }

  /** What the driver is about to deliver, listed: sends and re-sends, the approval asked, acknowledgments, the end. */
  private noteOutput(key: string, out: StandInOutput): void {
    if (out.kind === 'ack') return this.noteAck(key, out);
    this.rowFor(out.callId);
    switch (out.kind) {
      case 'done': {
        const row = this.calls.peek().find((r) => r.callId === out.callId);
        // A call whose delivery failed stays failed: its later timeout says less than why.
        this.updateRow(out.callId, (r) => ({ ...r, state: r.state === 'failed' ? 'failed' : 'done', outcome: out.outcome, requestId: r.requestId ?? (out.outcome.requestId || undefined) }));
        if (row?.approvalId && !row.reused && out.outcome.status === 'not-sent') this.updateApproval(row.approvalId, (a) => ({ ...a, state: 'refused', why: out.outcome.reason ?? 'not granted' }));
        return;
      }
      case 'request': {
        this.updateRow(out.callId, (r) => ({ ...r, state: r.state === 'failed' ? 'failed' : 'pending', requestId: out.request.requestId, sends: r.sends + 1, ...(out.request.approval && !r.approvalId ? { approvalId: out.request.approval.approvalId } : {}) }));
        const a = out.request.approval;
        if (a && !out.repeat) this.updateApproval(a.approvalId, (x) => (x.state === 'asked' ? { ...x, state: 'granted', uses: x.uses + 1 } : x));
        return;
      }
      case 'event': {
        if (out.type !== APPROVAL_ASK) return;
        const p = out.payload as { approvalId: string; argsHash: string; surfaceId: string; actionId: string; params: Record<string, unknown> };
        this.approvals.value = [{ approvalId: p.approvalId, argsHash: p.argsHash, surfaceId: p.surfaceId, actionId: p.actionId, params: p.params, client: key, state: 'asked', uses: 0 }, ...this.approvals.peek()];
        this.updateRow(out.callId, (r) => ({ ...r, state: 'approval', approvalId: p.approvalId }));
        return;
      }
    }
  }

  /** What the stand-in said to a result of its call (or, `note`, why it could not). */
  private noteAck(key: string, out: Extract<StandInOutput, { kind: 'ack' }>, note?: string): void {
    const rid = (out.of.payload as { requestId?: unknown } | undefined)?.requestId;
    const client = this.deps.recorder().clients.get(key);
    const word = note
      ? `acknowledgment ${note}`
      : client?.kind === 'socket.io' || client?.kind === 'direct'
        ? out.value.ok
          ? 'accepted { ok: true }'
          : `refused: ${out.value.error}`
        : 'none: the transport carries no acknowledgment of a result';
    this.calls.value = this.calls.peek().map((r) => (r.client === key && r.requestId === rid ? { ...r, acks: [...r.acks, word] } : r));
  }

  /** Stops the stand-ins' timers (the panel closes): what is pending ends there. */
  close(): void {
    for (const e of this.entries.values()) e.driver.close('the panel closed');
  }

  // ── scenarios ────────────────────────────────────────────────────────────

  /** The client a step goes to: named (key, or a part of its key or label), or the one with the surface mounted; or why none. */
  pick(surfaceId: string, wanted: string | undefined): WireClient | string {
    const recorder = this.deps.recorder();
    const model = this.deps.model();
    const all = [...recorder.clients.values()];
    const mounted = (c: WireClient) => model.clients.get(c.key)?.surfaces.has(surfaceId) === true;
    let candidates = all;
    if (wanted !== undefined) {
      const exact = all.filter((c) => c.key === wanted);
      candidates = exact.length ? exact : all.filter((c) => c.key.includes(wanted) || c.label.includes(wanted));
      if (!candidates.length) return `no client matches "${wanted}"`;
    }
    const having = candidates.filter(mounted);
    if (!having.length) return `${surfaceId} is mounted on no ${wanted !== undefined ? `client matching "${wanted}"` : 'client'}`;
    // A reconnected client replaces the one it reconnects for.
    const live = having.filter((c) => !having.some((o) => o.replaces === c.key));
    if (live.length > 1) return `${surfaceId} is mounted on ${live.length} clients: name one in the step's client`;
    return live[0]!;
  }

  /** Runs scenario steps through the stand-ins. */
  driver(): ScenarioDriver {
    return {
      call: async (step: ScenarioStep): Promise<StepCall> => {
        const client = this.pick(step.surfaceId, step.client);
        if (typeof client === 'string') return { eventIds: [], error: client };
        const spec: CallSpec = { surfaceId: step.surfaceId, actionId: step.actionId, params: step.params, ...(step.approve ? { approve: step.approve } : {}), ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}) };
        const o = await this.call(client, spec);
        if ('error' in o) return { eventIds: [], error: o.error, client: client.key };
        return { result: o.result, ...(o.requestId ? { requestId: o.requestId } : {}), eventIds: o.eventIds, client: client.key, ...(o.status === 'not-sent' ? { error: o.reason ?? 'not sent' } : {}) };
      },
      observation: async (client, surfaceId, observationId) => {
        const model = this.deps.model();
        const states = client !== undefined && model.clients.has(client) ? [model.clients.get(client)!] : [...model.clients.values()];
        for (const st of states) {
          const o = st.observations.get(`${surfaceId}/${observationId}`);
          if (o) return o.current;
        }
        return undefined;
      },
    };
  }
}
