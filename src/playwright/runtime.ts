/**
 * The fixture's stand-in runtime (`oui.call`): which client a call goes to,
 * and one StandInDriver per client (src/runtime/stand-in-driver.ts), fed the
 * client's events as the capture decodes them, its commands delivered to the
 * frame that holds the client through the bridge's command channel.
 */
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import type { Timers } from '../session/model/timers.ts';
import { StandIn, type CallOutcome, type CallSpec } from '../runtime/stand-in.ts';
import { WireIds } from '../runtime/stand-in-wire.ts';
import { StandInDriver } from '../runtime/stand-in-driver.ts';
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
  driver: StandInDriver;
  page: number;
  /** The client's key in the snapshot. */
  key: string;
}

export class FixtureRuntime {
  private readonly entries = new Map<string, Entry>();
  private readonly ids = new WireIds('oui-call');
  private readonly stop: () => void;
  /** Decides each result's acknowledgment of a call (a fault rule's refusal); null accepts. */
  refuse: ((call: { surfaceId: string; actionId: string; transport: FaultTransport; client: string; clientKey: string }) => string | null) | null = null;

  constructor(
    private readonly capture: CaptureLink,
    private readonly timers?: Partial<Timers>,
  ) {
    this.stop = capture.listen((page, events) => {
      for (const e of this.entries.values()) if (e.page === page) e.driver.observe(events);
    });
  }

  /** What the stand-ins could not send (a refusal the transport cannot carry), in words. */
  get notes(): string[] {
    return [...this.entries.values()].flatMap((e) => e.driver.notes);
  }

  close(): void {
    this.stop();
    for (const e of this.entries.values()) e.driver.close('oui.call: the test ended before the client answered');
    this.entries.clear();
  }

  /** Picks the client, starts the call, resolves with its outcome. */
  async call(surfaceId: string, actionId: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<CallReport> {
    const ref = await this.waitForClient(surfaceId, options);
    const entry = this.entryOf(ref);
    const spec: CallSpec = { surfaceId, actionId, params, ...(options.approve ? { approve: options.approve } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.requestId ? { requestId: options.requestId } : {}) };
    try {
      return { ...(await entry.driver.call(spec)), client: ref.key };
    } catch (e) {
      throw new Error(`oui.call: ${(e as Error).message}`);
    }
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
      const page = ref.page;
      const rawKey = ref.client.key;
      const driver = new StandInDriver(standIn, {
        client: () => this.capture.pageClient(page, rawKey) ?? ref.client,
        send: async (command, frameId) => {
          const answer = await this.capture.command(page, frameId, command);
          return typeof answer === 'string' ? (answer === 'sent' ? null : answer) : answer.ok ? null : answer.error;
        },
      }, this.ids);
      e = { driver, page, key: ref.key };
      this.entries.set(id, e);
      // What the client did so far: its registrations, its last surfacesHash.
      driver.observe(this.capture.pageEvents(ref.page));
    }
    return e;
  }
}
