/**
 * A stand-in agent runtime for one OUI client: what the panel or a Playwright
 * test runs in the runtime's seat. Pure and transport-agnostic: it reads the
 * client's decoded wire events (src/session/wire) and says what to send
 * (`StandInOutput`); stand-in-wire.ts turns that into hook commands per
 * transport, and the driver (panel, fixture) delivers them and calls `tick`
 * at `nextWake()`.
 *
 * What it does, as a conformant runtime (sections of the OUI spec):
 * - sends `action:request` with a fresh UUID v4 `requestId` (§7.3.1), and
 *   `knownSurfaces` only when it holds surfaces under the client's last
 *   `surfacesHash`; none otherwise (§7.3.4);
 * - keeps the surfaces each result carries, by their hash; a result with no
 *   `surfaces` under a hash it does not hold makes the surfaces unknown (§7.3.4);
 * - acknowledges each result of its own requests that asks for it, `{ ok: true }`
 *   or refused by `refuse` (§7.3.6), and then waits for the trimmed re-send;
 * - sends a request again, the same copy, while neither a receipt nor an
 *   answer came, backing off between sends (§7.3.7);
 * - follows the final result: an interim result (`interim: true`) is not the
 *   end (§7.3.3); past the deadline it makes a `TIMEOUT` result and discards
 *   what comes later (§7.5); deregistration of the surface or loss of the
 *   transport resolve pending requests with `SURFACE_UNAVAILABLE` (§7.2, §7.6.1);
 * - for an action that needs approval, sends `approval: { approvalId, argsHash }`
 *   with argsHash over exactly the params the user confirmed.
 */
import { argsHashSync, isRecord } from '../protocol/index.ts';
import type { OUIActionApproval, OUIActionRequest, OUIActionResult, OUISurface } from '../protocol/index.ts';
import type { Timers } from '../session/model/timers.ts';
import { SPEC_TIMERS } from '../session/model/timers.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';

/** What an acknowledgment of a result says (§7.3.6): accepted, or refused with why. */
export type ResultAck = { ok: true } | { ok: false; error: string };

/** The demo's (and this tool's) way to ask a tab for the user's approval: an `x-` extension event, which the spec leaves to the app. */
export const APPROVAL_ASK = 'x-approval:ask';
export const APPROVAL_GRANTED = 'x-approval:granted';
export const APPROVAL_DENIED = 'x-approval:denied';
export const APPROVAL_CANCEL = 'x-approval:cancel';

export type StandInOutput =
  /** Send this request to the client (again, when `repeat`). Ask for a receipt where the transport can carry one. */
  | { kind: 'request'; callId: string; request: OUIActionRequest; repeat: boolean }
  /** Acknowledge the client's result event `of` (Socket.IO: the ack of its emit). */
  | { kind: 'ack'; of: WireEvent; value: ResultAck }
  /** Send an event of another type (the approval ask and its withdrawal). */
  | { kind: 'event'; callId: string; type: string; payload: unknown }
  /** A call ended. */
  | { kind: 'done'; callId: string; outcome: CallOutcome };

export type CallStatus =
  /** The client's final result came (success or not). */
  | 'answered'
  /** No final result by the deadline: the stand-in made a `TIMEOUT` result (§7.5). */
  | 'timeout'
  /** The surface went away or the transport was lost first: `SURFACE_UNAVAILABLE` (§7.2, §7.6.1). */
  | 'unavailable'
  /** Nothing was sent: the user did not approve, or the call could not be made. */
  | 'not-sent';

export interface CallOutcome {
  status: CallStatus;
  /** The client's final `action:result` payload, or the one the stand-in made in its place. */
  result: OUIActionResult;
  requestId: string;
  /** The exchange's wire events: sends, receipts, results and acknowledgments, in arrival order. */
  eventIds: string[];
  /** Results the stand-in refused before the final one (reason each). */
  refused: string[];
  /** How many times the request was sent (1 + repeats). */
  sends: number;
  /** Why nothing was sent, for `not-sent`. */
  reason?: string;
}

export interface CallSpec {
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  /**
   * `true`: ask the tab for the user's approval first (`x-approval:ask`) and
   * send once it grants; `{ approvalId }`: a grant the tab already holds.
   * Either way `argsHash` is computed here from `params`.
   */
  approve?: true | { approvalId: string };
  /** Deadline for the final result, overriding §7.5's (sync, or the async acknowledgment). */
  timeoutMs?: number;
  /** How long to wait for the user's approval (default 60 s). */
  approvalTimeoutMs?: number;
  /** Use this requestId (a same-id replay); default a fresh UUID v4. */
  requestId?: string;
}

export interface StandInOptions {
  /** §7.5's timers (sync result, async acknowledgment); the spec's defaults otherwise. */
  timers?: Partial<Pick<Timers, 'syncMs' | 'asyncAckMs'>>;
  /**
   * Re-sending while neither a receipt nor an answer came (§7.3.7): the first
   * after `firstMs`, each next one after twice the wait before, at most `max`.
   * `false`: never.
   */
  resend?: false | { firstMs?: number; max?: number };
  /** Decides the acknowledgment of each result of this stand-in's requests: a reason refuses it (§7.3.6), null accepts. */
  refuse?: (result: OUIActionResult, event: WireEvent, call: { surfaceId: string; actionId: string; requestId: string }) => string | null;
  /** A fresh UUID v4 (crypto.randomUUID where there is one). */
  newId?: () => string;
}

export const RESEND_FIRST_MS = 3000;
/** Ended calls kept for `outcome` and for discarding late results; the oldest go first (a long panel session stays bounded). */
export const MAX_ENDED_CALLS = 1000;
/** Event ids remembered so that an event fed twice is taken once. */
const MAX_SEEN = 50_000;
export const RESEND_MAX = 3;
const APPROVAL_TIMEOUT_MS = 60_000;

interface Call {
  id: string;
  spec: CallSpec;
  /** A result of this request came (even one refused): no more re-sends (§7.3.7: "when no answer has come"). */
  answered: boolean;
  state: 'approval' | 'pending' | 'done';
  request?: OUIActionRequest;
  /** The action is async (declared so): the first deadline is for its interim result. */
  async: boolean;
  deadline: number;
  sends: number;
  nextSend?: number;
  resendWait: number;
  receipt: boolean;
  interim: boolean;
  sentEvents: Set<string>;
  eventIds: string[];
  refused: string[];
  approvalId?: string;
  argsHash?: string;
}

function newUuid(): string {
  return globalThis.crypto.randomUUID();
}

/** The ack id of a Socket.IO EVENT, as an Engine.IO frame (`42/oui,7[...]`) or as the packet a wire event's `raw` holds (`2/oui,7[...]`), or undefined. */
export function socketIOAckId(raw: string | undefined): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = /^4?[25](?:\d+-)?(?:\/[^,[]*,)?(\d+)[[]/.exec(raw);
  return m ? Number(m[1]) : undefined;
}

export class StandIn {
  /** Surfaces the stand-in holds, by the hash the client reported with them. */
  readonly held = new Map<string, OUISurface[]>();
  /** The client's last reported `surfacesHash`. */
  lastHash: string | undefined;
  /** Surface ids registered now (§7.2), with their surfaces. */
  readonly registry = new Map<string, OUISurface>();
  /** Whether the transport was seen lost (until a new registration). */
  lost = false;
  private readonly calls = new Map<string, Call>();
  /** Own requestIds → call id: only results to these are this stand-in's to acknowledge. */
  private readonly own = new Map<string, string>();
  private readonly timers: Pick<Timers, 'syncMs' | 'asyncAckMs'>;
  private readonly newId: () => string;
  private readonly seen = new Set<string>();
  /** The time of the latest call, observation or tick: what made results are stamped with. */
  private now = 0;
  /** Results that came after their call ended, by requestId: discarded (§7.5). */
  readonly discarded: string[] = [];

  constructor(
    readonly client: WireClient,
    private readonly opts: StandInOptions = {},
  ) {
    this.timers = { syncMs: opts.timers?.syncMs ?? SPEC_TIMERS.syncMs, asyncAckMs: opts.timers?.asyncAckMs ?? SPEC_TIMERS.asyncAckMs };
    this.newId = opts.newId ?? newUuid;
  }

  /** The `knownSurfaces` a request would carry now (§7.3.4). */
  knownSurfaces(): string | undefined {
    return this.lastHash !== undefined && this.held.has(this.lastHash) ? this.lastHash : undefined;
  }

  /** Starts a call; the outputs say what to send now. */
  call(spec: CallSpec, now: number): { callId: string; outputs: StandInOutput[] } {
    this.now = now;
    const callId = this.newId();
    const action = this.registry.get(spec.surfaceId)?.actions?.find((a) => a.id === spec.actionId);
    const c: Call = {
      id: callId,
      spec,
      state: 'pending',
      async: action?.async === true,
      answered: false,
      deadline: Infinity,
      sends: 0,
      resendWait: this.resendFirst(),
      receipt: false,
      interim: false,
      sentEvents: new Set(),
      eventIds: [],
      refused: [],
    };
    this.calls.set(callId, c);
    const out: StandInOutput[] = [];
    if (spec.approve !== undefined) {
      let hash: string;
      try {
        hash = argsHashSync(spec.params);
      } catch (e) {
        return { callId, outputs: this.end(c, 'not-sent', this.madeResult(spec.requestId ?? '', 'VALIDATION_ERROR', `params cannot be hashed for an approval: ${(e as Error).message}`), `params are not canonical JSON: ${(e as Error).message}`) };
      }
      c.argsHash = hash;
      // What goes is what was hashed and confirmed: a copy, so a caller changing its object later (the panel's form)
      // cannot send other params under this grant. Hashing succeeded, so the params are I-JSON and survive the copy.
      c.spec = { ...spec, params: JSON.parse(JSON.stringify(spec.params)) as Record<string, unknown> };
      if (spec.approve === true) {
        c.state = 'approval';
        c.approvalId = this.newId();
        c.deadline = now + (spec.approvalTimeoutMs ?? APPROVAL_TIMEOUT_MS);
        out.push({ kind: 'event', callId, type: APPROVAL_ASK, payload: { approvalId: c.approvalId, surfaceId: spec.surfaceId, actionId: spec.actionId, params: c.spec.params, argsHash: hash, ...(action?.title ? { title: action.title } : {}) } });
        return { callId, outputs: out };
      }
      c.approvalId = spec.approve.approvalId;
    }
    out.push(...this.send(c, now));
    return { callId, outputs: out };
  }

  private resendFirst(): number {
    return this.opts.resend === false ? Infinity : (this.opts.resend?.firstMs ?? RESEND_FIRST_MS);
  }

  private send(c: Call, now: number): StandInOutput[] {
    const known = this.knownSurfaces();
    const approval: OUIActionApproval | undefined = c.approvalId !== undefined && c.argsHash !== undefined ? { approvalId: c.approvalId, argsHash: c.argsHash } : undefined;
    const request: OUIActionRequest = {
      requestId: c.spec.requestId ?? this.newId(),
      surfaceId: c.spec.surfaceId,
      actionId: c.spec.actionId,
      params: c.spec.params,
      timestamp: now,
      ...(approval ? { approval } : {}),
      ...(known !== undefined ? { knownSurfaces: known } : {}),
    };
    c.request = request;
    c.state = 'pending';
    c.sends = 1;
    c.deadline = now + (c.spec.timeoutMs ?? (c.async ? this.timers.asyncAckMs : this.timers.syncMs));
    c.nextSend = Number.isFinite(c.resendWait) ? now + c.resendWait : undefined;
    this.own.set(request.requestId, c.id);
    return [{ kind: 'request', callId: c.id, request, repeat: false }];
  }

  /** The client's events, as they arrive (each once; events of other clients are ignored). */
  observe(events: readonly WireEvent[], now: number): StandInOutput[] {
    this.now = now;
    const out: StandInOutput[] = [];
    for (const ev of events) {
      if (ev.client !== this.client.key || this.seen.has(ev.id)) continue;
      this.seen.add(ev.id);
      if (this.seen.size > MAX_SEEN) {
        // The oldest half: an event fed again that long after is not expected.
        let n = MAX_SEEN / 2;
        for (const id of this.seen) {
          if (n-- <= 0) break;
          this.seen.delete(id);
        }
      }
      this.observeOne(ev, now, out);
    }
    return out;
  }

  private observeOne(ev: WireEvent, now: number, out: StandInOutput[]): void {
    if (ev.kind === 'lifecycle') {
      if (ev.type === 'close' || ev.type === 'socket.io disconnect') this.transportLost(ev, out);
      return;
    }
    if (ev.kind === 'ack') {
      // A receipt of one of our sends (§7.3.7), or our own acknowledgment of a result coming back as captured.
      for (const c of this.calls.values()) {
        if (ev.ackOf !== undefined && (c.sentEvents.has(ev.ackOf) || c.eventIds.includes(ev.ackOf))) {
          c.eventIds.push(ev.id);
          if (ev.dir === 'out' && c.sentEvents.has(ev.ackOf) && isRecord(ev.payload) && ev.payload.ok === true) c.receipt = true;
        }
      }
      return;
    }
    if (ev.kind !== 'event' || !isRecord(ev.payload)) return;
    const p = ev.payload;
    if (ev.dir === 'in') {
      if (ev.type === 'action:request' && typeof p.requestId === 'string') {
        const c = this.callOf(p.requestId);
        if (c) {
          c.sentEvents.add(ev.id);
          c.eventIds.push(ev.id);
        }
      }
      return;
    }
    switch (ev.type) {
      case 'surface:register': {
        const s = p.surface;
        if (isRecord(s) && typeof s.id === 'string') this.registry.set(s.id, s as unknown as OUISurface);
        this.lost = false;
        return;
      }
      case 'surface:deregister': {
        const id = p.surfaceId;
        if (typeof id !== 'string') return;
        this.registry.delete(id);
        for (const c of this.calls.values()) {
          if (c.state === 'pending' && c.spec.surfaceId === id) out.push(...this.end(c, 'unavailable', this.madeResult(c.request!.requestId, 'SURFACE_UNAVAILABLE', `surface ${id} was deregistered`)));
        }
        return;
      }
      case APPROVAL_GRANTED:
      case APPROVAL_DENIED: {
        const c = [...this.calls.values()].find((x) => x.state === 'approval' && x.approvalId === p.approvalId);
        if (!c) return;
        c.eventIds.push(ev.id);
        if (ev.type === APPROVAL_DENIED) {
          const why = typeof p.reason === 'string' ? p.reason : 'the user denied it';
          out.push(...this.end(c, 'not-sent', this.madeResult('', 'ACTION_DENIED', `approval denied: ${why}`), `approval denied: ${why}`));
          return;
        }
        if (typeof p.argsHash === 'string' && p.argsHash !== c.argsHash) {
          out.push(...this.end(c, 'not-sent', this.madeResult('', 'ACTION_DENIED', 'the grant is for other params'), `the tab granted argsHash ${p.argsHash}, not ${c.argsHash} of these params`));
          return;
        }
        out.push(...this.send(c, now));
        return;
      }
      case 'action:result':
        this.onResult(ev, p as unknown as OUIActionResult, now, out);
        return;
    }
  }

  private onResult(ev: WireEvent, r: OUIActionResult, now: number, out: StandInOutput[]): void {
    if (typeof r.requestId !== 'string') return;
    const c = this.callOf(r.requestId);
    // Another runtime's exchange on a shared client: what the client reported is still what it holds.
    if (!c) return this.learnSurfaces(r);
    c.eventIds.push(ev.id);
    if (c.state === 'done') {
      // Discarded, surfaces and all: a runtime that no longer waits never reads it.
      // After its end (a timeout, or a duplicate): discarded (§7.5); still acknowledged as received.
      this.discarded.push(r.requestId);
      if (ev.wantsAck) out.push({ kind: 'ack', of: ev, value: { ok: true } });
      return;
    }
    const reason = r.interim === true ? null : (this.opts.refuse?.(r, ev, { surfaceId: c.spec.surfaceId, actionId: c.spec.actionId, requestId: r.requestId }) ?? null);
    if (ev.wantsAck) out.push({ kind: 'ack', of: ev, value: reason === null ? { ok: true } : { ok: false, error: reason } });
    // An answer came: the request reached the client, and sending it again would only ask for another copy (§7.3.7).
    c.answered = true;
    c.nextSend = undefined;
    if (reason !== null) {
      // Refused: the client re-sends it trimmed (§7.3.6); the call goes on. What it carried was not received, so its
      // surfaces are not held: the trimmed re-send names their hash without them, and then they are unknown (§7.3.4).
      c.refused.push(reason);
      return;
    }
    this.learnSurfaces(r);
    if (r.interim === true) {
      c.interim = true;
      c.nextSend = undefined;
      // After the async acknowledgment, the final result by the call's deadline, or the sync one.
      c.deadline = now + (c.spec.timeoutMs ?? this.timers.syncMs);
      return;
    }
    out.push(...this.end(c, 'answered', r));
  }

  private learnSurfaces(r: OUIActionResult): void {
    if (typeof r.surfacesHash !== 'string') return;
    this.lastHash = r.surfacesHash;
    if (Array.isArray(r.surfaces)) this.held.set(r.surfacesHash, r.surfaces);
  }

  private transportLost(ev: WireEvent, out: StandInOutput[]): void {
    this.lost = true;
    this.registry.clear();
    for (const c of this.calls.values()) {
      if (c.state === 'pending' || c.state === 'approval') {
        c.eventIds.push(ev.id);
        out.push(...this.end(c, c.state === 'approval' ? 'not-sent' : 'unavailable', this.madeResult(c.request?.requestId ?? '', 'SURFACE_UNAVAILABLE', 'the transport was lost'), c.state === 'approval' ? 'the transport was lost' : undefined));
      }
    }
  }

  /** Deadlines and re-sends due at `now`. */
  tick(now: number): StandInOutput[] {
    this.now = now;
    const out: StandInOutput[] = [];
    for (const c of this.calls.values()) {
      if (c.state === 'done') continue;
      if (now >= c.deadline) {
        if (c.state === 'approval') {
          out.push({ kind: 'event', callId: c.id, type: APPROVAL_CANCEL, payload: { approvalId: c.approvalId, reason: 'timed out' } });
          out.push(...this.end(c, 'not-sent', this.madeResult('', 'TIMEOUT', 'no approval in time'), 'the user gave no approval in time'));
        } else {
          const what = c.async && !c.interim ? 'acknowledgment' : 'result';
          out.push(...this.end(c, 'timeout', this.madeResult(c.request!.requestId, 'TIMEOUT', `no ${what} within ${c.deadline - c.request!.timestamp} ms`)));
        }
        continue;
      }
      if (c.state === 'pending' && c.nextSend !== undefined && now >= c.nextSend) {
        if (c.receipt || c.interim || c.answered || c.sends > this.resendMax()) {
          c.nextSend = undefined;
          continue;
        }
        c.sends++;
        c.resendWait *= 2;
        c.nextSend = c.sends > this.resendMax() ? undefined : now + c.resendWait;
        out.push({ kind: 'request', callId: c.id, request: c.request!, repeat: true });
      }
    }
    return out;
  }

  private resendMax(): number {
    return this.opts.resend === false ? 0 : (this.opts.resend?.max ?? RESEND_MAX);
  }

  /** When `tick` next has something to do, or undefined. */
  nextWake(): number | undefined {
    let at = Infinity;
    for (const c of this.calls.values()) {
      if (c.state === 'done') continue;
      at = Math.min(at, c.deadline);
      if (c.state === 'pending' && c.nextSend !== undefined && !c.receipt && !c.interim && !c.answered) at = Math.min(at, c.nextSend);
    }
    return Number.isFinite(at) ? at : undefined;
  }

  /** The call's state: pending, or its outcome. */
  outcome(callId: string): CallOutcome | 'pending' | undefined {
    const c = this.calls.get(callId);
    if (!c) return undefined;
    return c.state === 'done' ? (c as Call & { outcome: CallOutcome }).outcome : 'pending';
  }

  /** The requestId a call sent, once sent. */
  requestIdOf(callId: string): string | undefined {
    return this.calls.get(callId)?.request?.requestId;
  }

  private callOf(requestId: string): Call | undefined {
    const id = this.own.get(requestId);
    return id === undefined ? undefined : this.calls.get(id);
  }

  private madeResult(requestId: string, code: string, message: string): OUIActionResult {
    return { requestId, success: false, error: { code, message }, timestamp: this.now };
  }

  private end(c: Call, status: CallStatus, result: OUIActionResult, reason?: string): StandInOutput[] {
    c.state = 'done';
    const outcome: CallOutcome = { status, result, requestId: c.request?.requestId ?? '', eventIds: [...c.eventIds], refused: [...c.refused], sends: c.sends, ...(reason ? { reason } : {}) };
    (c as Call & { outcome: CallOutcome }).outcome = outcome;
    this.prune();
    return [{ kind: 'done', callId: c.id, outcome }];
  }

  private prune(): void {
    let ended = 0;
    for (const c of this.calls.values()) if (c.state === 'done') ended++;
    for (const [id, c] of this.calls) {
      if (ended <= MAX_ENDED_CALLS) break;
      if (c.state !== 'done') continue;
      this.calls.delete(id);
      if (c.request) this.own.delete(c.request.requestId);
      ended--;
    }
  }
}
