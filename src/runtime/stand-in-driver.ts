/**
 * Runs a StandIn (stand-in.ts) on a live connection: what the Playwright
 * fixture does, and what the panel does over its own connection. The driver
 * feeds it the client's events, delivers its outputs as hook commands
 * (stand-in-wire.ts) through a `StandInLink` the host provides, runs its
 * deadlines and re-sends on one timer, and turns each call into a promise.
 * No DOM, no Node: timers are the host's (`setTimeout` by default).
 */
import type { HoldCommand, InjectCommand } from '../messages.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import type { CallOutcome, CallSpec, ResultAck, StandIn, StandInOutput } from './stand-in.ts';
import { WireIds, planOutput } from './stand-in-wire.ts';

export interface StandInLink {
  /** The client as it is now (a Socket.IO client's injection target appears once it upgraded). */
  client(): WireClient;
  /** Hands one command to the hook of frame `frameId`; resolves with null once delivered, or why it was not. */
  send(command: InjectCommand | HoldCommand, frameId: number): Promise<string | null>;
}

export interface DriverTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const HOST_TIMERS: DriverTimers = {
  now: () => Date.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class StandInDriver {
  private readonly calls = new Map<string, { resolve: (o: CallOutcome) => void; reject: (e: Error) => void }>();
  private timer: unknown;
  /** What could not be sent (a refusal the transport cannot carry), in words. */
  readonly notes: string[] = [];
  /** Told each output before it is delivered (the panel lists sends, re-sends, approvals and acknowledgments from them). */
  onOutput: ((out: StandInOutput) => void) | null = null;

  constructor(
    readonly standIn: StandIn,
    private readonly link: StandInLink,
    private readonly ids: WireIds = new WireIds('stand-in'),
    private readonly timers: DriverTimers = HOST_TIMERS,
  ) {}

  /** The client's new events (others are ignored). */
  observe(events: readonly WireEvent[]): void {
    this.deliver(this.standIn.observe(events, this.timers.now()));
    this.schedule();
  }

  /** Sends a request; resolves with how it ended, rejects when it could not be delivered. */
  call(spec: CallSpec): Promise<CallOutcome> {
    const p = new Promise<CallOutcome>((resolve, reject) => {
      const { callId, outputs } = this.standIn.call(spec, this.timers.now());
      this.calls.set(callId, { resolve, reject });
      this.deliver(outputs);
    });
    this.schedule();
    return p;
  }

  /** Stops the timer; pending calls reject with `why`. */
  close(why = 'the stand-in was stopped'): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    for (const c of this.calls.values()) c.reject(new Error(why));
    this.calls.clear();
  }

  private deliver(outputs: StandInOutput[]): void {
    for (const out of outputs) {
      try {
        this.onOutput?.(out);
      } catch {
        // A watcher's trouble is not the call's.
      }
      if (out.kind === 'done') {
        const c = this.calls.get(out.callId);
        this.calls.delete(out.callId);
        c?.resolve(out.outcome);
        continue;
      }
      const client = this.link.client();
      const plan = planOutput(client, out, this.ids);
      if (!plan.ok) {
        if (out.kind === 'ack') this.notes.push(`acknowledgment ${describeAck(out.value)} not sent: ${plan.error}`);
        else this.fail(out.callId, `cannot reach ${client.key}: ${plan.error}`);
        continue;
      }
      if (plan.note && out.kind === 'ack' && !out.value.ok) this.notes.push(plan.note);
      void (async () => {
        // In order: a postMessage hold goes to the peer's frame before the request to the client's.
        for (const { command, frameId } of plan.commands) {
          const failed = await this.link.send(command, frameId);
          if (failed !== null) {
            if (out.kind === 'ack') this.notes.push(`acknowledgment ${describeAck(out.value)} not delivered: ${failed}`);
            else this.fail(out.callId, `${out.kind === 'request' ? 'the request' : out.type} could not be delivered to ${client.key}: ${failed}`);
            return;
          }
        }
      })();
    }
  }

  private fail(callId: string, message: string): void {
    const c = this.calls.get(callId);
    if (!c) return;
    this.calls.delete(callId);
    c.reject(new Error(message));
  }

  private schedule(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    const at = this.standIn.nextWake();
    if (at === undefined) return;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.deliver(this.standIn.tick(this.timers.now()));
      this.schedule();
    }, Math.max(0, at - this.timers.now()));
  }
}

function describeAck(v: ResultAck): string {
  return v.ok ? '{ ok: true }' : `{ ok: false, error: ${JSON.stringify(v.error)} }`;
}
