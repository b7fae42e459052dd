/**
 * Every WebSocket the page creates becomes a client. The constructor is
 * wrapped in a Proxy, so `WebSocket.prototype`, its name, statics and
 * `instanceof` stay the browser's own, and subclasses keep working.
 */
import { bytesPayload, textPayload, type CaptureBuffer } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/types.ts';

type Sink = (data: unknown) => void;

export function tapWebSocket(buffer: CaptureBuffer): void {
  const Native = window.WebSocket;
  if (typeof Native !== 'function') return;
  const { listen } = buffer.natives;

  function frame(client: CapturedClient, dir: 'in' | 'out'): Sink {
    return (data) => {
      try {
        if (typeof data === 'string') {
          buffer.record(client, 'frame', { dir, ...textPayload(data) });
        } else if (data instanceof ArrayBuffer) {
          buffer.record(client, 'frame', { dir, ...bytesPayload(new Uint8Array(data)) });
        } else if (ArrayBuffer.isView(data)) {
          buffer.record(client, 'frame', { dir, ...bytesPayload(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) });
        } else if (data instanceof Blob) {
          const done = buffer.recordPending(client, { dir });
          data.arrayBuffer().then(
            (ab) => { const p = bytesPayload(new Uint8Array(ab)); done(p.payload, p.size); },
            () => done({ omitted: true, head: '[unreadable Blob]' }, data.size),
          );
        }
      } catch {
        // Capture is best effort; the app's frame is already on its way.
      }
    };
  }

  function tap(ws: WebSocket): void {
    const client = buffer.addClient('websocket', String(ws.url));
    const inbound = frame(client, 'in');
    listen(ws, 'message', (e) => inbound((e as MessageEvent).data));
    listen(ws, 'open', () => buffer.record(client, 'open'));
    listen(ws, 'error', () => buffer.record(client, 'error'));
    listen(ws, 'close', (e) => {
      const c = e as CloseEvent;
      buffer.record(client, 'close', { note: `${c.code}${c.reason ? ` ${c.reason}` : ''}` });
    });
    outbound.set(ws, frame(client, 'out'));
  }
  const outbound = new WeakMap<WebSocket, Sink>();

  const proxy = new Proxy(Native, {
    construct(target, args, newTarget) {
      const ws = Reflect.construct(target, args, newTarget) as WebSocket;
      try {
        tap(ws);
      } catch {
        // The socket works without us.
      }
      return ws;
    },
  });

  const nativeSend = Native.prototype.send;
  const send = function send(this: WebSocket, data: unknown) {
    const result = nativeSend.call(this, data as string);
    outbound.get(this)?.(data);
    return result;
  };
  Object.defineProperty(Native.prototype, 'send', { value: send, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(window, 'WebSocket', { value: proxy, writable: true, configurable: true, enumerable: false });
}
