/**
 * The direct-call hook. An app (or a same-realm runtime) that calls OUI
 * in-process opts in by handing its transport to the documented global:
 *
 *   window.__OUI_DEVTOOLS_HOOK__?.attach(transport, { label: 'my runtime' })
 *
 * The transport's client-side methods are wrapped in place, so the app keeps
 * its own reference: requests its handlers receive (with their receipts),
 * results it sends (with their acknowledgments) and every other call it makes
 * on the transport (registrations, observation updates) are recorded. Calls
 * are copied as JSON at call time, since the app may mutate the objects later.
 */
import { jsonPayload, type CaptureBuffer, type Sink } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/captured-items.ts';
import { DIRECT_METHOD } from '../../src/capture/contract.ts';
import { SafeMap, SafeSet, SafeWeakMap, append, firstKey, microtask, slice, toArray } from '../primordials.ts';
import { faultsOn, hookFaults, type Carrier } from '../faults.ts';
import { ACK_TYPE } from '../../src/runtime/faults.ts';

/** The client-side calls the fault rules see as OUI events, by method name. */
const DIRECT_EVENT: Record<string, string> = { __proto__: null, register: 'surface:register', deregister: 'surface:deregister', sendObservation: 'observation:update' } as unknown as Record<string, string>;

type Fn = (...args: unknown[]) => unknown;
type Transport = Record<string, unknown>;

/** Runtime-side or lifecycle methods: what the client receives is recorded through its handlers instead. */
const NOT_CLIENT_CALLS: Set<string> = new SafeSet(['dispatch', 'onResult', 'onObservation', 'dispose', 'connect', 'disconnect', 'then']);

export interface DirectClient {
  client: CapturedClient;
  /** The app's action handlers, as wrapped: an injected request goes through them like a real one. */
  handlers: Set<Fn>;
  /**
   * Held results whose requester (a stand-in runtime) acknowledges them itself, by the seq they were captured with:
   * the client's `onAcknowledged`, as recorded, waiting for `acknowledgeHeld`. Oldest first.
   */
  awaitingAck: Map<number, (value: unknown) => void>;
}

/** Held results a client's requester may still acknowledge; past this the oldest is accepted in its place, as before selfAck. */
export const MAX_AWAITING_ACKS = 64;

/**
 * The requester's acknowledgment of a held result (`{ ok: true }`, or a refusal, §7.3.6), handed to the client's
 * `onAcknowledged` as the runtime side of the transport would; false when none awaits under that seq.
 */
export function acknowledgeHeld(clientId: string, seq: number, value: unknown): boolean {
  const waiting = directClients.get(clientId)?.awaitingAck;
  const ack = waiting?.get(seq);
  if (!waiting || !ack) return false;
  waiting.delete(seq);
  ack(value);
  return true;
}

export const directClients: Map<string, DirectClient> = new SafeMap();
/** An app that attaches transport after transport without detaching keeps only the newest injectable. */
export const MAX_DIRECT_CLIENTS = 100;

/**
 * The engine's own reflection, taken at document_start: what attach does to a
 * transport goes through descriptors, never through [[Get]] or [[Set]], so a
 * getter or a Proxy's `get` trap of the app's runs exactly as often as
 * without the hook (never at attach), and no setter of the app's runs.
 */
const { apply, defineProperty, deleteProperty, getOwnPropertyDescriptor, getPrototypeOf, isExtensible, ownKeys } = Reflect;
const ObjectProto = Object.prototype;
const FunctionProto = Function.prototype;

/** A property of the transport that is, or may be (an accessor), one of its methods. */
interface Candidate {
  name: string;
  desc: PropertyDescriptor;
  /** The transport's own property (replaced in place), rather than one it inherits (shadowed by an own one). */
  own: boolean;
}

/** What attach put on the transport, to take back on detach: the property as it was (undefined: there was none). */
interface Installed {
  name: string;
  before: PropertyDescriptor | undefined;
  mine: PropertyDescriptor;
}

/** An exception's own message, read without running anything of the page's (a thrown object's getter, a Proxy's trap). */
function reasonOf(e: unknown): string {
  try {
    if (typeof e === 'object' && e !== null && !isProxyLike(e)) {
      const d = getOwnPropertyDescriptor(e, 'message');
      if (d && 'value' in d && typeof d.value === 'string') return slice(d.value, 0, 200);
    }
  } catch {
    // Said without its message.
  }
  return 'an exception';
}

/** Engine errors are plain objects with own data properties; anything else is not looked into. */
function isProxyLike(e: object): boolean {
  try {
    return !(e instanceof Error);
  } catch {
    return true;
  }
}

/** The transport's methods: own and inherited properties (first found wins), read as descriptors only. Throws what the transport throws (a revoked Proxy). */
function candidatesOf(t: object): Candidate[] {
  const seen: Set<string> = new SafeSet();
  const out: Candidate[] = [];
  let obj: object | null = t;
  for (let depth = 0; obj && obj !== ObjectProto && obj !== FunctionProto && depth < 8; depth++) {
    const keys = ownKeys(obj);
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i];
      if (typeof name !== 'string' || seen.has(name)) continue;
      seen.add(name);
      if (name === 'constructor' || NOT_CLIENT_CALLS.has(name)) continue;
      if (slice(name, 0, 2) === 'on' && name !== 'onAction') continue;
      const desc = getOwnPropertyDescriptor(obj, name);
      if (!desc) continue;
      // A data property that holds a function, or an accessor (whose value is known only when the app reads it).
      if ('value' in desc ? typeof desc.value === 'function' : typeof desc.get === 'function') append(out, { name, desc, own: obj === t });
    }
    obj = getPrototypeOf(obj);
  }
  return out;
}

export function installDirectHook(buffer: CaptureBuffer): void {
  function attach(transport: unknown, options?: { label?: unknown }): () => void {
    try {
      return attachTo(transport, options);
    } catch {
      // Never into the app: attach is called from its own code.
      return () => {};
    }
  }

  function attachTo(transport: unknown, options?: { label?: unknown }): () => void {
    if (!transport || (typeof transport !== 'object' && typeof transport !== 'function')) return () => {};
    const t = transport as Transport;
    let label = 'direct transport';
    try {
      const l = options?.label;
      if (typeof l === 'string') label = slice(l, 0, 200);
    } catch {
      // An options object whose label cannot be read: the default label.
    }
    const client = buffer.addClient('direct', label);
    let candidates: Candidate[];
    try {
      candidates = candidatesOf(t);
    } catch (e) {
      // A revoked Proxy, or one whose traps throw: nothing of it can be wrapped; the panel says so.
      buffer.record(client, 'error', { note: `could not attach the transport: reading its methods threw ${reasonOf(e)}` });
      return () => {};
    }
    const entry: DirectClient = { client, handlers: new SafeSet(), awaitingAck: new SafeMap() };
    /** One sink per direction and method, made once: a call records only its copied value, a timestamp and its seq. */
    const sinks: Map<string, Sink> = new SafeMap();
    const sinkFor = (dir: 'in' | 'out', method: string): Sink => {
      const k = `${dir} ${method}`;
      let sink = sinks.get(k);
      if (!sink) {
        sink = buffer.sink(client, dir, { method });
        sinks.set(k, sink);
      }
      return sink;
    };

    /** A call handed to the fault rules: true when a rule took it. */
    const fault = (direction: 'to-client' | 'from-client', type: string, value: unknown, carrier: Carrier): boolean => {
      try {
        const f = hookFaults;
        if (!f?.active || buffer.isInjecting()) return false;
        return f.handle({ direction, transport: 'direct', client: `${buffer.hook}/${client.id}`, ev: { type, payload: value }, encode: (payload) => payload, carrier, original: value });
      } catch {
        return false;
      }
    };

    const wrapAck = (sink: Sink, cb: unknown, re: number, direction?: 'to-client' | 'from-client') =>
      typeof cb === 'function'
        ? function acknowledged(this: unknown, ack: unknown): unknown {
            if (faultsOn && direction) {
              const self = this;
              const taken = fault(direction, ACK_TYPE, ack, {
                record: (d, mark) => buffer.faulting(mark, () => buffer.value(sink, d, re)),
                deliver: (d, mark) => {
                  if (mark) buffer.faulting(mark, () => (acknowledged as Fn).call(self, d));
                  else apply(cb as Fn, self, [d]);
                },
              });
              if (taken) return undefined;
            }
            buffer.value(sink, ack, re);
            return apply(cb as Fn, this, [ack]);
          }
        : cb;

    /** The recording wrapper of method `name` around `original`. */
    function wrap(name: string, original: Fn): Fn {
      if (name === 'onAction') {
        const requests = sinkFor('in', DIRECT_METHOD.request);
        const receipts = sinkFor('out', DIRECT_METHOD.receipt);
        return function onAction(this: unknown, handler: unknown) {
          // eslint-disable-next-line prefer-rest-params
          const args = toArray(arguments as ArrayLike<unknown>);
          if (typeof handler !== 'function') return apply(original, this, args);
          const h = function (this: unknown, request: unknown, receipt?: unknown): unknown {
            if (faultsOn) {
              const self = this;
              const taken = fault('to-client', 'action:request', request, {
                record: (d, mark) => buffer.faulting(mark, () => buffer.value(requests, d)),
                // Again through this wrapper, as an injection: recorded with the mark, then the app's handler.
                deliver: (d, mark) => buffer.faulting(mark ?? { rule: '', did: 'delivered' }, () => (h as Fn).call(self, d, receipt)),
              });
              if (taken) return undefined;
            }
            const seq = buffer.value(requests, request);
            return apply(handler as Fn, this, [request, wrapAck(receipts, receipt, seq, 'from-client')]);
          };
          entry.handlers.add(h);
          args[0] = h;
          const off = apply(original, this, args);
          if (typeof off !== 'function') return off;
          return function unsubscribe(this: unknown) {
            entry.handlers.delete(h);
            return apply(off as Fn, this, arguments as unknown as unknown[]);
          };
        };
      }
      if (name === 'sendResult') {
        const results = sinkFor('out', DIRECT_METHOD.result);
        const acks = sinkFor('in', DIRECT_METHOD.resultAck);
        return function sendResult(this: unknown, result: unknown, onAcknowledged?: unknown) {
          if (buffer.heldAnswers.active) {
            const copied = jsonPayload(result);
            if (buffer.heldAnswers.matches(copied.text, client.id)) {
              // An answer to an injected request: captured, kept from the runtime, accepted as the runtime would.
              let seq = 0;
              try {
                const item = buffer.record(client, 'frame', { dir: 'out', method: DIRECT_METHOD.result, payload: copied.payload, held: true });
                if (copied.size !== undefined) item.size = copied.size;
                seq = item.seq;
              } catch {
                // Never into the app.
              }
              if (typeof onAcknowledged === 'function') {
                const accept = (value: unknown) => buffer.injecting(() => (wrapAck(acks, onAcknowledged, seq) as Fn)(value));
                if (seq > 0 && buffer.heldAnswers.selfAcked(copied.text, client.id)) {
                  // Its requester may refuse it (§7.3.6): kept until its word comes (acknowledgeHeld), bounded.
                  const waiting = entry.awaitingAck;
                  if (waiting.size >= MAX_AWAITING_ACKS) {
                    const oldest = firstKey(waiting) as number;
                    const ack = waiting.get(oldest)!;
                    waiting.delete(oldest);
                    microtask(() => ack({ ok: true }));
                  }
                  waiting.set(seq, (value) => microtask(() => accept(value)));
                } else microtask(() => accept({ ok: true }));
              }
              return undefined;
            }
          }
          if (faultsOn) {
            const self = this;
            const taken = fault('from-client', 'action:result', result, {
              record: (d, mark) => buffer.faulting(mark, () => buffer.value(results, d)),
              deliver: (d) => apply(original, self, [d, wrapAck(acks, onAcknowledged, 0, 'to-client')]),
              ...(typeof onAcknowledged === 'function'
                ? { ackToApp: (value: unknown, mark: { rule: string; did: string }) => microtask(() => buffer.faulting(mark, () => (wrapAck(acks, onAcknowledged, 0) as Fn)(value))) }
                : {}),
            });
            if (taken) return undefined;
          }
          const seq = buffer.value(results, result);
          const ack = wrapAck(acks, onAcknowledged, seq, 'to-client');
          if (arguments.length <= 2) return apply(original, this, [result, ack]);
          const args = toArray(arguments as ArrayLike<unknown>);
          args[1] = ack;
          return apply(original, this, args);
        };
      }
      const calls = sinkFor('out', name);
      const type = DIRECT_EVENT[name];
      return function (this: unknown) {
        if (faultsOn && type !== undefined) {
          const self = this;
          const args = toArray(arguments as ArrayLike<unknown>);
          const taken = fault('from-client', type, args[0], {
            record: (d, mark) => buffer.faulting(mark, () => buffer.value(calls, d)),
            deliver: (d) => {
              args[0] = d;
              apply(original, self, args);
            },
          });
          if (taken) return undefined;
        }
        buffer.value(calls, arguments[0]);
        return apply(original, this, arguments as unknown as unknown[]);
      };
    }

    /** For a method behind a getter: one wrapper per function the getter returns, so `t.send === t.send` still holds when it did. */
    function wrapping(name: string): (f: Fn) => Fn {
      const made: WeakMap<Fn, Fn> = new SafeWeakMap();
      return (f) => {
        let w = made.get(f);
        if (!w) {
          w = wrap(name, f);
          made.set(f, w);
        }
        return w;
      };
    }

    const installed: Installed[] = [];
    const refused: string[] = [];
    for (let c = 0; c < candidates.length; c++) {
      const { name, desc, own } = candidates[c]!;
      let mine: PropertyDescriptor;
      if ('value' in desc) {
        // Own: the same property with the wrapper as its value. Inherited: an own one that shadows it, as an assignment would make, but hidden from enumeration.
        mine = own ? { ...desc, value: wrap(name, desc.value as Fn) } : { value: wrap(name, desc.value as Fn), writable: true, enumerable: false, configurable: true };
      } else {
        // A getter: still the app's, run once each time the app reads it, and what it returns wrapped when it is a function.
        const get = desc.get as () => unknown;
        const wrapOf = wrapping(name);
        mine = {
          get: function (this: unknown) {
            const v = apply(get, this, []);
            return typeof v === 'function' ? wrapOf(v as Fn) : v;
          },
          set: desc.set,
          enumerable: own ? desc.enumerable : false,
          configurable: own ? desc.configurable : true,
        };
      }
      let ok = false;
      try {
        ok = defineProperty(t, name, mine);
      } catch {
        // A Proxy's defineProperty trap that throws: not wrapped.
      }
      if (ok) append(installed, { name, before: own ? desc : undefined, mine });
      else append(refused, name);
    }

    if (!installed.length) {
      let frozen = false;
      try {
        frozen = !isExtensible(t);
      } catch {
        // Unknown.
      }
      const why = !candidates.length
        ? 'it has no methods'
        : frozen
          ? `it is frozen or sealed, so its methods (${refused.slice(0, 8).join(', ')}) cannot be wrapped in place`
          : `its methods (${refused.slice(0, 8).join(', ')}) cannot be replaced`;
      buffer.record(client, 'error', { note: `could not attach the transport: ${why}` });
      return () => {};
    }
    directClients.set(client.id, entry);
    if (directClients.size > MAX_DIRECT_CLIENTS) directClients.delete(firstKey(directClients)!);
    buffer.record(client, 'open', refused.length ? { note: `not captured: ${refused.slice(0, 8).join(', ')}${refused.length > 8 ? ` and ${refused.length - 8} more` : ''} (cannot be replaced)` } : undefined);

    return function detach() {
      for (let c = 0; c < installed.length; c++) {
        const { name, before, mine } = installed[c]!;
        try {
          // Only what is still ours: a method the app replaced since stays the app's.
          const now = getOwnPropertyDescriptor(t, name);
          if (!now || (mine.get ? now.get !== mine.get : now.value !== mine.value)) continue;
          if (before) defineProperty(t, name, before);
          else deleteProperty(t, name);
        } catch {
          // Frozen since: leave it.
        }
      }
      directClients.delete(client.id);
      buffer.record(client, 'close', { note: 'detached' });
    };
  }

  const api = Object.freeze({ version: 1, attach });
  Object.defineProperty(window, '__OUI_DEVTOOLS_HOOK__', { value: api, configurable: true, enumerable: false, writable: false });
}
