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
import type { CapturedClient } from '../../src/capture/types.ts';

type Fn = (...args: unknown[]) => unknown;
type Transport = Record<string, unknown>;

/** Runtime-side or lifecycle methods: what the client receives is recorded through its handlers instead. */
const NOT_CLIENT_CALLS = new Set(['dispatch', 'onResult', 'onObservation', 'dispose', 'connect', 'disconnect', 'then']);

export interface DirectClient {
  client: CapturedClient;
  /** The app's action handlers, as wrapped: an injected request goes through them like a real one. */
  handlers: Set<Fn>;
}

export const directClients = new Map<string, DirectClient>();
/** An app that attaches transport after transport without detaching keeps only the newest injectable. */
const MAX_DIRECT_CLIENTS = 100;

export function installDirectHook(buffer: CaptureBuffer): void {
  function attach(transport: unknown, options?: { label?: unknown }): () => void {
    if (!transport || (typeof transport !== 'object' && typeof transport !== 'function')) return () => {};
    const t = transport as Transport;
    const label = typeof options?.label === 'string' ? options.label.slice(0, 200) : 'direct transport';
    const client = buffer.addClient('direct', label);
    const entry: DirectClient = { client, handlers: new Set() };
    directClients.set(client.id, entry);
    if (directClients.size > MAX_DIRECT_CLIENTS) directClients.delete(directClients.keys().next().value as string);
    /** One sink per direction and method, made once: a call records only its copied value, a timestamp and its seq. */
    const sinks = new Map<string, Sink>();
    const sinkFor = (dir: 'in' | 'out', method: string): Sink => {
      const k = `${dir} ${method}`;
      let sink = sinks.get(k);
      if (!sink) {
        sink = buffer.sink(client, dir, { method });
        sinks.set(k, sink);
      }
      return sink;
    };
    const originals = new Map<string, unknown>();

    const wrapAck = (sink: Sink, cb: unknown, re: number) =>
      typeof cb === 'function'
        ? function acknowledged(this: unknown, ack: unknown) {
            buffer.value(sink, ack, re);
            return (cb as Fn).call(this, ack);
          }
        : cb;

    for (const name of methodNames(t)) {
      const original = t[name] as Fn;
      let wrapped: Fn;
      if (name === 'onAction') {
        const requests = sinkFor('in', 'onAction');
        const receipts = sinkFor('out', 'receipt');
        wrapped = function onAction(this: unknown, handler: unknown, ...rest: unknown[]) {
          if (typeof handler !== 'function') return original.call(this, handler, ...rest);
          const h = function (this: unknown, request: unknown, receipt?: unknown) {
            const seq = buffer.value(requests, request);
            return (handler as Fn).call(this, request, wrapAck(receipts, receipt, seq));
          };
          entry.handlers.add(h);
          const off = original.call(this, h, ...rest);
          if (typeof off !== 'function') return off;
          return function unsubscribe(this: unknown) {
            entry.handlers.delete(h);
            return (off as Fn).apply(this, arguments as unknown as unknown[]);
          };
        };
      } else if (name === 'sendResult') {
        const results = sinkFor('out', 'sendResult');
        const acks = sinkFor('in', 'ack');
        wrapped = function sendResult(this: unknown, result: unknown, onAcknowledged?: unknown) {
          if (buffer.held.active) {
            const copied = jsonPayload(result);
            if (buffer.held.matches(copied.text, client.id)) {
              // An answer to an injected request: captured, kept from the runtime, accepted as the runtime would.
              let seq = 0;
              try {
                const item = buffer.record(client, 'frame', { dir: 'out', method: 'sendResult', payload: copied.payload, held: true });
                if (copied.size !== undefined) item.size = copied.size;
                seq = item.seq;
              } catch {
                // Never into the app.
              }
              if (typeof onAcknowledged === 'function') {
                queueMicrotask(() => buffer.injecting(() => (wrapAck(acks, onAcknowledged, seq) as Fn)({ ok: true })));
              }
              return undefined;
            }
          }
          const seq = buffer.value(results, result);
          const ack = wrapAck(acks, onAcknowledged, seq);
          if (arguments.length <= 2) return original.call(this, result, ack);
          const args = Array.prototype.slice.call(arguments) as unknown[];
          args[1] = ack;
          return original.apply(this, args);
        };
      } else {
        const calls = sinkFor('out', name);
        wrapped = function (this: unknown) {
          buffer.value(calls, arguments[0]);
          return original.apply(this, arguments as unknown as unknown[]);
        };
      }
      try {
        originals.set(name, original);
        t[name] = wrapped;
      } catch {
        originals.delete(name);
      }
    }
    buffer.record(client, 'open');

    return function detach() {
      for (const [name, fn] of originals) {
        try {
          t[name] = fn;
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

function methodNames(t: Transport): string[] {
  const names = new Set<string>();
  let obj: object | null = t;
  for (let depth = 0; obj && obj !== Object.prototype && depth < 8; depth++) {
    for (const name of Object.getOwnPropertyNames(obj)) {
      if (name === 'constructor' || NOT_CLIENT_CALLS.has(name)) continue;
      if (name.startsWith('on') && name !== 'onAction') continue;
      try {
        if (typeof (t as Record<string, unknown>)[name] === 'function') names.add(name);
      } catch {
        // A getter that throws is not a method.
      }
    }
    obj = Object.getPrototypeOf(obj) as object | null;
  }
  return [...names];
}
