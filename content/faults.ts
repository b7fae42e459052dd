/**
 * The page hook's side of fault rules (src/runtime/faults.ts): the taps hand
 * it each OUI event while a rule is on (`faults.active`, the one check on the
 * hot path when none is), it decodes just enough (plain JSON `{type,payload}`,
 * Socket.IO `42`/`43` packets, postMessage data, direct calls), asks the
 * seeded decider, and does the fault: the event is dropped, delivered later,
 * twice, after the next one, refused, altered, or its transport is closed.
 *
 * What it delivers late goes through the same path as an injection
 * (`buffer.faulting`), so the tap records it as delivered, marked with the
 * rule and what it did (`faulted`, `fault`) rather than as injected; what the
 * app sent and the rule kept back is recorded as sent, with the mark. What
 * the panel or the fixture injects is never faulted, nor is anything that is
 * not an OUI event (Engine.IO pings, binary frames, other traffic).
 *
 * Runs in the page's world after the page's code: JSON and the collections
 * are the ones taken at document_start (primordials.ts).
 */
import type { CaptureBuffer } from './capture-buffer.ts';
import { ACK_TYPE, EXPIRE_MS, anyActive, createFaultDecider, faultDone, type Fault, type FaultDecider, type FaultDirection, type FaultEvent, type FaultRule, type FaultTransport } from '../src/runtime/faults.ts';
import { isOuiType } from '../src/capture/contract.ts';
import { SafeMap, exec, slice } from './primordials.ts';

const parse = JSON.parse;
const stringify = JSON.stringify;
const isArray = Array.isArray;
const randomUUID = typeof crypto === 'object' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID.bind(crypto) : undefined;

/** One decoded OUI event of a text frame, and how to write it back. */
export interface WireOui {
  type: string;
  payload: unknown;
  /** Socket.IO: `2` event, `3` ack; undefined for plain JSON. */
  packet?: '2' | '3';
  nsp?: string;
  ackId?: string;
  /** Socket.IO: the event's other arguments, kept as they were. */
  rest?: unknown[];
}

/** Engine.IO message (4), Socket.IO event (2) or ack (3), optional namespace, optional ack id, then a JSON array. */
const SOCKET_IO = /^4([23])(\/[^,[\d]*,)?(\d*)(\[[\s\S]*)$/;

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !isArray(x);

/** The OUI event a text frame carries, or undefined (an Engine.IO ping, a binary event, anything else). */
export function decodeFrame(text: string, socketIo: boolean): WireOui | undefined {
  try {
    if (socketIo) {
      const m = exec(SOCKET_IO, text);
      if (!m) return undefined;
      const args = parse(m[4]!) as unknown;
      if (!isArray(args)) return undefined;
      const nsp = m[2] ? slice(m[2], 0, m[2].length - 1) : undefined;
      if (m[1] === '3') return m[3] ? { type: ACK_TYPE, payload: args[0], packet: '3', ...(nsp ? { nsp } : {}), ackId: m[3] } : undefined;
      if (!isOuiType(args[0])) return undefined;
      const rest: unknown[] = [];
      for (let i = 2; i < args.length; i++) rest[rest.length] = args[i];
      return { type: args[0] as string, payload: args[1], packet: '2', ...(nsp ? { nsp } : {}), ...(m[3] ? { ackId: m[3] } : {}), rest };
    }
    if (text[0] !== '{') return undefined;
    const msg = parse(text) as unknown;
    return isRecord(msg) && isOuiType(msg.type) ? { type: msg.type as string, payload: msg.payload } : undefined;
  } catch {
    return undefined;
  }
}

/** The frame text of an event, as its transport writes it. `ackId: null` leaves the ack id out. */
export function encodeFrame(ev: WireOui, payload: unknown, ackId?: string | null): string {
  if (!ev.packet) return stringify({ type: ev.type, payload });
  const id = ackId === null ? '' : (ackId ?? ev.ackId ?? '');
  const ns = ev.nsp ? `${ev.nsp},` : '';
  if (ev.packet === '3') return `43${ns}${id}${stringify([payload])}`;
  const args: unknown[] = [ev.type, payload];
  const rest = ev.rest ?? [];
  for (let i = 0; i < rest.length; i++) args[args.length] = rest[i];
  return `42${ns}${id}${stringify(args)}`;
}

/** A Socket.IO acknowledgment frame the app receives for its event `ackId`. */
export function ackFrame(nsp: string | undefined, ackId: string, value: unknown): string {
  return `43${nsp ? `${nsp},` : ''}${ackId}${stringify([value])}`;
}

/** What a tap offers for one event it handed over: its three ways of delivering. */
export interface Carrier {
  /** Record what the app sent or received, with the mark, and nothing else (it does not go on). */
  record(data: unknown, mark: Mark): void;
  /** Deliver now as the transport would (inbound: to the app's listeners; outbound: to the peer), recorded with the mark when `mark` is given. */
  deliver(data: unknown, mark?: Mark): void;
  /** Close the transport (WebSocket only). */
  close?(code: number, reason: string): void;
  /** Inbound: a Socket.IO ack to the app (for a refused result). Outbound results only. */
  ackToApp?(value: unknown, mark: Mark): void;
  /**
   * Runs `fn` in `ms` instead of the hook's own timer: a long-polling tap
   * holds the poll response or POST that carried the event until then.
   */
  defer?(ms: number, fn: () => void): void;
}

export interface Mark {
  rule: string;
  did: string;
}

/** The surface and action an event concerns, found from its request when it carries only a requestId or an ack id. */
interface Subject {
  surfaceId?: string;
  actionId?: string;
}

/** Requests (and ack ids) remembered per connection: a result or an ack matches by its request's surface and action. */
const MAX_SUBJECTS = 2000;

export interface HookFaults {
  /** False while no rule is on: the taps' hot paths check only this. */
  active: boolean;
  set(rules: FaultRule[], seed: number): void;
  /**
   * An event of a connection: true when the fault took it (the caller stops
   * it: no native send, no app listener), false to let it pass as usual.
   */
  handle(input: {
    direction: FaultDirection;
    transport: FaultTransport;
    client: string;
    clientKey?: string;
    /** The event as decoded. */
    ev: WireOui;
    /** The event re-encoded with a new payload (and ack id; null: none). */
    encode: (payload: unknown, ackId?: string | null) => unknown;
    carrier: Carrier;
    original: unknown;
    /** The event arrived in this window whatever its direction (postMessage): it is held and delivered here, never sent on. */
    receivedHere?: boolean;
  }): boolean;
}

/**
 * Whether any rule is on in this document: the taps' hot paths read only
 * this (a module binding, one load), and call `hookFaults` when it is true.
 */
export let faultsOn = false;
/** This document's engine, made by the hook at install (hook.ts). */
export let hookFaults: HookFaults | null = null;

export function installHookFaults(buffer: CaptureBuffer): HookFaults {
  hookFaults = createHookFaults(buffer);
  return hookFaults;
}

export function createHookFaults(buffer: CaptureBuffer): HookFaults {
  const { natives } = buffer;
  let decider: FaultDecider | null = null;
  /** Per rule id: the event a `reorder` holds until the next matching one. */
  let held: Map<string, () => void> = new SafeMap();
  /** `${client}\0r${requestId}` / `${client}\0a${dir}${ackId}` → its request's surface and action. */
  const subjects: Map<string, Subject> = new SafeMap();

  const remember = (key: string, s: Subject) => {
    subjects.set(key, s);
    if (subjects.size > MAX_SUBJECTS) subjects.forEach((_v, k) => subjects.size > MAX_SUBJECTS / 2 && subjects.delete(k));
  };

  function subjectOf(client: string, direction: FaultDirection, ev: WireOui): Subject {
    const p = isRecord(ev.payload) ? ev.payload : undefined;
    if (ev.type === ACK_TYPE) return (ev.ackId && subjects.get(`${client}\u0000a${direction}${ev.ackId}`)) || {};
    let s: Subject = {};
    if (p && typeof p.surfaceId === 'string') s = { surfaceId: p.surfaceId, ...(typeof p.actionId === 'string' ? { actionId: p.actionId } : {}) };
    else if (p && typeof p.requestId === 'string') s = subjects.get(`${client}\u0000r${p.requestId}`) ?? {};
    if (ev.type === 'action:request' && p && typeof p.requestId === 'string') remember(`${client}\u0000r${p.requestId}`, s);
    // An ack coming back the other way for this event's ack id concerns the same request.
    if (ev.ackId) remember(`${client}\u0000a${direction === 'to-client' ? 'from-client' : 'to-client'}${ev.ackId}`, s);
    return s;
  }

  const later = (ms: number, fn: () => void) => {
    // Rules replaced meanwhile: what is in flight is still delivered, as the fault only delayed it.
    natives.setTimeout(() => {
      try {
        fn();
      } catch {
        // Never into the app.
      }
    }, ms);
  };

  const faults: HookFaults = {
    active: false,
    set(rules, seed) {
      // Whatever a reorder still holds goes now, in order: turning a rule off must not lose an event.
      const release = held;
      held = new SafeMap();
      release.forEach((deliver) => {
        try {
          deliver();
        } catch {
          // Never into the app.
        }
      });
      decider = anyActive(rules) ? createFaultDecider(rules, seed, decider) : null;
      faults.active = decider !== null;
      if (hookFaults === faults) faultsOn = faults.active;
    },
    handle({ direction, transport, client, clientKey, ev, encode, carrier, original, receivedHere }) {
      if (!decider) return false;
      const subject = subjectOf(client, direction, ev);
      const event: FaultEvent = { direction, type: ev.type, transport, client, ...(clientKey ? { clientKey } : {}), ...subject };
      const decision = decider.decide(event);
      if (!decision) return false;
      const mark: Mark = { rule: decision.rule.id, did: faultDone(decision.fault) };
      return apply(decision.rule, decision.fault, mark, { inbound: receivedHere === true || direction === 'to-client', ev, encode, carrier, original });
    },
  };

  /** `inbound`: the app (or this window) is the receiver, so a late delivery is recorded when it happens. */
  function apply(rule: FaultRule, fault: Fault, mark: Mark, x: { inbound: boolean; ev: WireOui; encode: (payload: unknown, ackId?: string | null) => unknown; carrier: Carrier; original: unknown }): boolean {
    const { inbound, ev, encode, carrier, original } = x;
    const wait = (ms: number, fn: () => void) => {
      if (!carrier.defer) return later(ms, fn);
      carrier.defer(ms, () => {
        try {
          fn();
        } catch {
          // Never into the app.
        }
      });
    };
    /** Delivered later: an inbound event is recorded when the app gets it; an outbound one when the app sent it (now), and goes out unrecorded. */
    const deferred = (ms: number) => {
      if (inbound) wait(ms, () => carrier.deliver(original, mark));
      else {
        carrier.record(original, mark);
        wait(ms, () => carrier.deliver(original));
      }
      return true;
    };
    switch (fault.kind) {
      case 'drop':
      case 'drop-answer':
      case 'withhold-ack':
        carrier.record(original, mark);
        return true;
      case 'delay':
      case 'delay-ack':
        return deferred(fault.ms);
      case 'duplicate':
        if (inbound) {
          carrier.deliver(original, mark);
          carrier.deliver(original, mark);
        } else {
          carrier.record(original, mark);
          carrier.deliver(original);
          carrier.deliver(original);
        }
        return true;
      case 'reorder': {
        const waiting = held.get(rule.id);
        if (!waiting) {
          if (inbound) held.set(rule.id, () => carrier.deliver(original, mark));
          else {
            carrier.record(original, mark);
            held.set(rule.id, () => carrier.deliver(original));
          }
          return true;
        }
        held.delete(rule.id);
        // This one first, then the one held before it.
        if (inbound) carrier.deliver(original, mark);
        else {
          carrier.record(original, mark);
          carrier.deliver(original);
        }
        waiting();
        return true;
      }
      case 'refuse-result': {
        // Only where the app asked for an acknowledgment: the refusal is that acknowledgment (§7.3.6).
        if (!carrier.ackToApp) return false;
        carrier.record(original, mark);
        carrier.ackToApp({ ok: false, error: fault.error }, mark);
        return true;
      }
      case 'disconnect':
        if (!carrier.close) return false;
        carrier.record(original, mark);
        carrier.close(fault.code, fault.reason);
        return true;
      case 'stale-known-surfaces': {
        if (!isRecord(ev.payload)) return false;
        const payload = { ...ev.payload, knownSurfaces: fault.knownSurfaces };
        carrier.deliver(encode(payload), mark);
        return true;
      }
      case 'approval': {
        const p = ev.payload;
        if (!isRecord(p) || !isRecord(p.approval)) return false;
        if (fault.change === 'expire') return deferred(fault.ms ?? EXPIRE_MS);
        if (fault.change === 'args-hash') {
          const hash = typeof p.approval.argsHash === 'string' ? p.approval.argsHash : '';
          // The same length and alphabet, one digit changed: well-formed, and not the grant's.
          const last = hash.length ? hash[hash.length - 1] : '';
          const altered = `${slice(hash, 0, Math.max(0, hash.length - 1))}${last === '0' ? '1' : '0'}`;
          carrier.deliver(encode({ ...p, approval: { ...p.approval, argsHash: altered } }), mark);
          return true;
        }
        // reuse: the request as it came, then the same approval under a new request id (without an ack id of its own).
        carrier.deliver(original, mark);
        const requestId = randomUUID ? randomUUID() : `${String(p.requestId)}-reused`;
        carrier.deliver(encode({ ...p, requestId }, null), mark);
        return true;
      }
    }
    return false;
  }

  return faults;
}
