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
import { jsonPayload, type CaptureBuffer } from '../capture-buffer.ts';
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
    const record = (dir: 'in' | 'out', method: string, value: unknown, re?: number): number => recordCopy(dir, method, jsonPayload(value), re);
    const recordCopy = (dir: 'in' | 'out', method: string, copied: ReturnType<typeof jsonPayload>, re?: number, held?: boolean): number => {
      try {
        const { text: _text, ...payload } = copied;
        return buffer.record(client, 'frame', { dir, method, ...payload, ...(re ? { re } : {}), ...(held ? { held } : {}) }).seq;
      } catch {
        return 0; // Never into the app.
      }
    };
    const originals = new Map<string, unknown>();

    const wrapAck = (dir: 'in' | 'out', method: string, cb: unknown, re: number) =>
      typeof cb === 'function'
        ? function acknowledged(this: unknown, ack: unknown) {
            record(dir, method, ack, re);
            return (cb as Fn).call(this, ack);
          }
        : cb;

    for (const name of methodNames(t)) {
      const original = t[name] as Fn;
      let wrapped: Fn;
      if (name === 'onAction') {
        wrapped = function onAction(this: unknown, handler: unknown, ...rest: unknown[]) {
          if (typeof handler !== 'function') return original.call(this, handler, ...rest);
          const h = function (this: unknown, request: unknown, receipt?: unknown) {
            const seq = record('in', 'onAction', request);
            return (handler as Fn).call(this, request, wrapAck('out', 'receipt', receipt, seq));
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
        wrapped = function sendResult(this: unknown, result: unknown, onAcknowledged?: unknown, ...rest: unknown[]) {
          const copied = jsonPayload(result);
          if (buffer.held.active && buffer.held.matches(copied.text, client.id)) {
            // An answer to an injected request: captured, kept from the runtime, accepted as the runtime would.
            const seq = recordCopy('out', 'sendResult', copied, undefined, true);
            if (typeof onAcknowledged === 'function') {
              queueMicrotask(() => buffer.injecting(() => (wrapAck('in', 'ack', onAcknowledged, seq) as Fn)({ ok: true })));
            }
            return undefined;
          }
          const seq = recordCopy('out', 'sendResult', copied);
          return original.call(this, result, wrapAck('in', 'ack', onAcknowledged, seq), ...rest);
        };
      } else {
        wrapped = function (this: unknown, ...args: unknown[]) {
          record('out', name, args[0]);
          return original.apply(this, args);
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
