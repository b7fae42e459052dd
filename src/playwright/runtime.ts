/**
 * The fixture's stand-in runtime (`oui.call`): one StandIn per client
 * (src/runtime/stand-in.ts), fed the client's events as the capture decodes
 * them, its outputs delivered as hook commands to the frame that holds the
 * client (the bridge's command channel), and its deadlines and re-sends run
 * on one timer.
 */
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import type { Timers } from '../session/model/timers.ts';
import { StandIn, type CallOutcome, type CallSpec, type ResultAck, type StandInOutput } from '../runtime/stand-in.ts';
import { WireIds, planOutput } from '../runtime/stand-in-wire.ts';
import { whyNotInjectable } from '../session/wire/injection.ts';
import type { Frame } from '@playwright/test';
import type { SessionModel } from '../session/model/session-model.ts';
import type { FaultTransport } from '../runtime/faults.ts';

/** What a frame's bridge says to a command: the hook's answer to an injection, 'sent' for one it does not answer, or why it could not go. */
export type CommandAnswer = { ok: true } | { ok: false; error: string } | 'sent' | 'no-hook' | 'refused' | 'no-frame';

/** A client of one page, under its key in the snapshot (made unique across pages) and in its page's recorder. */
export interface ClientRef {
  key: string;
  page: number;
  client: WireClient;
}

/** What the runtime needs of the capture (capture.ts implements it). */
export interface CaptureLink {
  settle(): Promise<unknown>;
  snapshot(): { clients: WireClient[]; events: WireEvent[]; refs?: ClientRef[] };
  modelOf(snap: { clients: WireClient[]; events: WireEvent[] }): SessionModel;
  listen(fn: (page: number, events: WireEvent[]) => void): () => void;
  pageEvents(page: number): readonly WireEvent[];
  pageClient(page: number, key: string): WireClient | undefined;
  isLive(page: number, client: WireClient): boolean;
  command(page: number, frameId: number, command: unknown): Promise<CommandAnswer>;
  broadcast(command: unknown): Promise<CommandAnswer[]>;
  commandFrame(frame: Frame, command: unknown): Promise<CommandAnswer>;
}

export interface CallOptions {
  /** The client: its key, or a part of its label or key (default: the one client that has the surface mounted). */
  client?: string;
  /** `true`: ask the tab for the user's approval (x-approval:ask) and send once it grants; `{ approvalId }`: a grant the tab holds. */
  approve?: true | { approvalId: string };
  /** Deadline for the final result (default §7.5's: 30 s sync, 5 s for an async action's acknowledgment). */
  timeoutMs?: number;
  /** Use this requestId rather than a fresh UUID v4. */
  requestId?: string;
  /** How long to wait for the surface to be mounted on a client a request can reach (default 5000 ms). */
  waitMs?: number;
}

const WAIT_MS = 5000;

/** What a call ended with, with the exchange's event ids (for a scenario's step). */
export interface CallReport extends CallOutcome {
  client: string;
}

interface Entry {
  standIn: StandIn;
  page: number;
  /** The client's key in the snapshot. */
  key: string;
  rawKey: string;
  calls: Map<string, { resolve: (o: CallOutcome) => void; reject: (e: Error) => void }>;
}

export class FixtureRuntime {
  private readonly entries = new Map<string, Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly ids = new WireIds('oui-call');
  private readonly stop: () => void;
  /** Acknowledgments the transport could not carry, said in a failed call's message. */
  readonly notes: string[] = [];
  /** Decides each result's acknowledgment of a call (a fault rule's refusal); null accepts. */
  refuse: ((call: { surfaceId: string; actionId: string; transport: FaultTransport; client: string; clientKey: string }) => string | null) | null = null;

  constructor(
    private readonly capture: CaptureLink,
    private readonly timers?: Partial<Timers>,
  ) {
    this.stop = capture.listen((page, events) => {
      for (const e of this.entries.values()) if (e.page === page) this.deliver(e, e.standIn.observe(events, Date.now()));
      this.schedule();
    });
  }

  close(): void {
    this.stop();
    if (this.timer) clearTimeout(this.timer);
    for (const e of this.entries.values()) for (const c of e.calls.values()) c.reject(new Error('oui.call: the test ended before the client answered'));
    this.entries.clear();
  }

  /** Picks the client, starts the call, resolves with its outcome. */
  async call(surfaceId: string, actionId: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<CallReport> {
    const ref = await this.waitForClient(surfaceId, options);
    const entry = this.entryOf(ref);
    const spec: CallSpec = { surfaceId, actionId, params, ...(options.approve ? { approve: options.approve } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.requestId ? { requestId: options.requestId } : {}) };
    const outcome = new Promise<CallOutcome>((resolve, reject) => {
      const { callId, outputs } = entry.standIn.call(spec, Date.now());
      entry.calls.set(callId, { resolve, reject });
      this.deliver(entry, outputs);
    });
    this.schedule();
    return { ...(await outcome), client: ref.key };
  }

  /**
   * The client a call goes to, once the surface is mounted on it and a request
   * can reach it (a Socket.IO client is reached once it upgraded to WebSocket):
   * a page that just opened has a moment to connect, `waitMs` (default 5 s).
   */
  private async waitForClient(surfaceId: string, options: CallOptions): Promise<ClientRef> {
    const until = Date.now() + (options.waitMs ?? WAIT_MS);
    for (;;) {
      await this.capture.settle();
      let ref: ClientRef | undefined;
      let error: Error | undefined;
      try {
        ref = this.pick(surfaceId, options.client);
      } catch (e) {
        error = e as Error;
      }
      const client = ref ? (this.capture.pageClient(ref.page, ref.client.key) ?? ref.client) : undefined;
      const why = client ? whyNotInjectable(client) : null;
      if (ref && !why) return ref;
      if (Date.now() >= until) throw error ?? new Error(`oui.call: cannot reach ${ref!.key}: ${why}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The live client a call to `surfaceId` would go to (for a takeover). */
  async clientFor(surfaceId: string, options: CallOptions = {}): Promise<{ ref: ClientRef; client: WireClient }> {
    const ref = await this.waitForClient(surfaceId, options);
    return { ref, client: this.capture.pageClient(ref.page, ref.client.key) ?? ref.client };
  }

  /** The client a call goes to: named, or the one with the surface mounted; an error that says why not. */
  private pick(surfaceId: string, wanted: string | undefined): ClientRef {
    const snap = this.capture.snapshot();
    // Clients of documents the page navigated away from are gone.
    const refs = (snap.refs ?? []).filter((r) => this.capture.isLive(r.page, this.capture.pageClient(r.page, r.client.key) ?? r.client));
    const model = this.capture.modelOf(snap);
    const mounted = (key: string) => model.clients.get(key)?.surfaces.has(surfaceId) === true;
    const describe = (r: ClientRef) => `${r.key} (${r.client.kind}, ${r.client.label})`;
    let candidates: ClientRef[];
    if (wanted !== undefined) {
      const exact = refs.filter((r) => r.key === wanted);
      candidates = exact.length ? exact : refs.filter((r) => r.key.includes(wanted) || r.client.label.includes(wanted));
      if (!candidates.length) throw new Error(`oui.call: no client matches ${JSON.stringify(wanted)}; the clients are: ${refs.map(describe).join(', ') || 'none yet'}`);
      const withSurface = candidates.filter((r) => mounted(r.key));
      if (withSurface.length) candidates = withSurface;
      else throw new Error(`oui.call: unknown surface ${JSON.stringify(surfaceId)} on ${candidates.map(describe).join(', ')}; mounted there: ${candidates.map((r) => [...(model.clients.get(r.key)?.surfaces.keys() ?? [])].join(', ') || 'none').join('; ')}`);
    } else {
      candidates = refs.filter((r) => mounted(r.key));
      if (!candidates.length) {
        const all = [...model.clients.values()].flatMap((c) => [...c.surfaces.keys()]);
        throw new Error(`oui.call: unknown surface ${JSON.stringify(surfaceId)}: no client has it mounted; mounted now: ${[...new Set(all)].join(', ') || 'none'}`);
      }
    }
    // A reconnected client replaces the one it reconnects for.
    const live = candidates.filter((r) => !candidates.some((o) => o.client.replaces === r.client.key && o.page === r.page));
    if (live.length > 1) throw new Error(`oui.call: ${surfaceId} is mounted on ${live.length} clients, pass { client } to pick one: ${live.map(describe).join(', ')}`);
    return live[0]!;
  }

  private entryOf(ref: ClientRef): Entry {
    const id = `${ref.page}\u0000${ref.client.key}`;
    let e = this.entries.get(id);
    if (!e) {
      const standIn = new StandIn(ref.client, {
        ...(this.timers ? { timers: this.timers } : {}),
        refuse: (_r, _ev, call) => {
          const c = this.capture.pageClient(ref.page, ref.client.key) ?? ref.client;
          const t = c.inject;
          const tap = t && t.via !== 'postmessage' ? `${t.hook}/${t.client}` : c.key;
          return this.refuse?.({ surfaceId: call.surfaceId, actionId: call.actionId, transport: c.kind === 'polling' ? 'socket.io' : c.kind, client: tap, clientKey: c.key }) ?? null;
        },
      });
      e = { standIn, page: ref.page, key: ref.key, rawKey: ref.client.key, calls: new Map() };
      this.entries.set(id, e);
      // What the client did so far: its registrations, its last surfacesHash.
      standIn.observe(this.capture.pageEvents(ref.page), Date.now());
    }
    return e;
  }

  private deliver(e: Entry, outputs: StandInOutput[]): void {
    for (const out of outputs) {
      if (out.kind === 'done') {
        const c = e.calls.get(out.callId);
        e.calls.delete(out.callId);
        c?.resolve(out.outcome);
        continue;
      }
      // The client as it is now: a Socket.IO client's injection target appears once it upgraded.
      const client: WireClient = this.capture.pageClient(e.page, e.rawKey) ?? e.standIn.client;
      const plan = planOutput(client, out, this.ids);
      if (!plan.ok) {
        if (out.kind === 'ack') this.notes.push(`acknowledgment not sent: ${plan.error}`);
        else this.failCall(e, out.callId, `cannot reach ${e.key}: ${plan.error}`);
        continue;
      }
      if (plan.note && out.kind === 'ack' && !out.value.ok) this.notes.push(plan.note);
      void (async () => {
        for (const { command, frameId } of plan.commands) {
          const answer = await this.capture.command(e.page, frameId, command);
          const failed = typeof answer === 'string' ? (answer === 'sent' ? null : answer) : answer.ok ? null : answer.error;
          if (failed !== null) {
            if (out.kind === 'ack') this.notes.push(`acknowledgment ${describeAck(out.value)} not delivered: ${failed}`);
            else this.failCall(e, out.callId, `${out.kind === 'request' ? 'the request' : out.type} could not be delivered to ${e.key}: ${failed}`);
            return;
          }
        }
      })();
    }
  }

  private failCall(e: Entry, callId: string, message: string): void {
    const c = e.calls.get(callId);
    if (!c) return;
    e.calls.delete(callId);
    c.reject(new Error(`oui.call: ${message}`));
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    let at = Infinity;
    for (const e of this.entries.values()) at = Math.min(at, e.standIn.nextWake() ?? Infinity);
    if (!Number.isFinite(at)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const now = Date.now();
      for (const e of this.entries.values()) this.deliver(e, e.standIn.tick(now));
      this.schedule();
    }, Math.max(0, at - Date.now()));
  }
}

function describeAck(v: ResultAck): string {
  return v.ok ? '{ ok: true }' : `{ ok: false, error: ${JSON.stringify(v.error)} }`;
}
