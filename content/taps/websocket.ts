/**
 * Every WebSocket the page creates becomes a client. The constructor is
 * wrapped in a Proxy and `send` replaced by a method of the native's name and
 * length (see disguise.ts), so `WebSocket.prototype`, names, lengths,
 * statics, `instanceof` and `ws.constructor` stay the browser's own, and
 * subclasses keep working. Inbound traffic is what the browser delivers: a
 * MessageEvent the page dispatches on its own socket is not a frame.
 */
import { bytesPayload, textPayload, type CaptureBuffer } from '../capture-buffer.ts';
import { BINARY_HEAD, FRAME_CAP, bytesHeadPayload } from '../payloads.ts';
import { disguiseConstructor, disguiseMethod, replaceProperty } from '../disguise.ts';
import { foreignRealmOp, provideRealmOp } from '../realm-link.ts';
import { getter, uncurry } from '../scope-natives.ts';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { SafeMap, SafeWeakMap } from '../primordials.ts';
import { socketIoResultAck } from '../socketio-ack.ts';
import { ackFrame, decodeFrame, encodeFrame, faultsOn, hookFaults, type Carrier } from '../faults.ts';
import { exec } from '../primordials.ts';
import type { VirtualServer } from '../virtual/server.ts';

/** An Engine.IO endpoint: its frames are Socket.IO packets, not plain JSON. */
const ENGINE_URL = /[?&]EIO=\d/;
const stopImmediate = Event.prototype.stopImmediatePropagation;

/** Records one frame (text, bytes or a Blob) of a socket in one direction. */
type FrameRecorder = (data: unknown, extra?: Partial<CapturedItem>) => void;

/** Open sockets by captured client id, so the injector can deliver a frame to the right one. */
export const sockets: Map<string, WeakRef<WebSocket>> = new SafeMap();

const NativeURL = URL;
const NativeWeakRef = WeakRef;
const NativeMessageEvent = MessageEvent;
const dispatch = EventTarget.prototype.dispatchEvent;
const isTrustedOf = uncurry(getter(Event.prototype, 'isTrusted') as (this: never) => boolean);
const nativeUrlOf = uncurry(getter(typeof WebSocket === 'function' ? WebSocket.prototype : undefined, 'url') as (this: never) => string);
/** A socket's URL by the browser's getter; a virtual server's socket (content/virtual/), which that getter refuses, says its own. */
const urlOf: ((ws: unknown) => string) | undefined = nativeUrlOf
  ? (ws) => {
      try {
        return nativeUrlOf(ws);
      } catch {
        return (ws as WebSocket).url;
      }
    }
  : undefined;

/** An inbound frame delivered to the app's listeners as if its peer had sent it. */
export function deliverToSocket(buffer: CaptureBuffer, ws: WebSocket, data: string): void {
  const url = urlOf ? urlOf(ws) : ws.url;
  // The engine's apply, taken at load (below): a page that replaced Reflect.apply must not stop an injection.
  buffer.injecting(() => apply(dispatch, ws, [new NativeMessageEvent('message', { data, origin: new NativeURL(url).origin })]));
}

const OPEN = 1;
const NativeArrayBuffer = ArrayBuffer;
const NativeBlob = typeof Blob === 'function' ? Blob : undefined;
const isView = ArrayBuffer.isView;
const { apply, construct } = Reflect;

export function tapWebSocket(buffer: CaptureBuffer, virtual?: VirtualServer): void {
  const Native = window.WebSocket;
  if (typeof Native !== 'function') return;
  const { natives } = buffer;
  const { listen, messageData, readyState } = natives;

  function frame(client: CapturedClient, dir: 'in' | 'out'): FrameRecorder {
    const sink = buffer.sink(client, dir);
    return (data, extra) => {
      try {
        if (typeof data === 'string') {
          // The hot path: the text as is, a timestamp and a sequence number; the item is built when the panel reads it.
          if (!extra) buffer.frame(sink, data);
          else buffer.record(client, 'frame', { dir, ...extra, ...textPayload(data) });
        } else if (data instanceof NativeArrayBuffer) {
          buffer.record(client, 'frame', { dir, ...bytesPayload(new Uint8Array(data)) });
        } else if (isView(data)) {
          buffer.record(client, 'frame', { dir, ...bytesPayload(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) });
        } else if (NativeBlob && data instanceof NativeBlob) {
          const done = buffer.recordPending(client, { dir });
          const size = natives.blobSize(data);
          // Over the cap: only the head is read, never the whole frame. The browser's own reader: the app sees no extra call of anything it may have wrapped on Blob.
          const over = size > FRAME_CAP;
          natives.after(
            natives.readBlob(over ? natives.blobHead(data, BINARY_HEAD) : data),
            (ab) => {
              const p = over ? bytesHeadPayload(new Uint8Array(ab), size) : bytesPayload(new Uint8Array(ab));
              done(p.payload, p.size);
            },
            () => done({ omitted: true, head: '[unreadable Blob]' }, size),
          );
        }
      } catch {
        // Capture is best effort; the app's frame is already on its way.
      }
    };
  }

  function tap(ws: WebSocket): CapturedClient {
    const client = buffer.addClient('websocket', String(urlOf ? urlOf(ws) : ws.url));
    const inbound = frame(client, 'in');
    listen(ws, 'message', (e) => {
      // A page can dispatch any MessageEvent on its socket; only the browser's (and the injector's own) are traffic.
      if (!(isTrustedOf ? isTrustedOf(e) : e.isTrusted) && !buffer.isInjecting()) return;
      const data = messageData(e as MessageEvent);
      // Ours is the socket's first listener: a faulted event stops here, before any of the app's.
      if (faultsOn && !buffer.isInjecting() && typeof data === 'string' && faultFrame(ws, client.id, 'to-client', data)) {
        apply(stopImmediate, e, []);
        return;
      }
      inbound(data);
    });
    listen(ws, 'open', () => buffer.record(client, 'open'));
    listen(ws, 'error', () => buffer.record(client, 'error'));
    listen(ws, 'close', (e) => {
      const c = e as CloseEvent;
      buffer.record(client, 'close', { note: `${c.code}${c.reason ? ` ${c.reason}` : ''}` });
    });
    outbound.set(ws, frame(client, 'out'));
    inboundOf.set(ws, inbound);
    clientOf.set(ws, client.id);
    sockets.set(client.id, new NativeWeakRef(ws));
    listen(ws, 'close', () => sockets.delete(client.id));
    return client;
  }
  const outbound: WeakMap<WebSocket, FrameRecorder> = new SafeWeakMap();
  /** Each socket's inbound recorder, for what a fault rule records without delivering. */
  const inboundOf: WeakMap<WebSocket, FrameRecorder> = new SafeWeakMap();
  /** The captured client id of each socket: the scope an injection's hold applies to. */
  const clientOf: WeakMap<WebSocket, string> = new SafeWeakMap();

  const proxy = disguiseConstructor(Native, (target, args, newTarget) => {
    // A URL the virtual server answers: its socket, captured as any, and the browser's constructor never runs.
    if (virtual) {
      let served: WebSocket | undefined;
      try {
        served = virtual.socket(args[0], args[1], newTarget, tap);
      } catch {
        // Not served: the network has it.
      }
      if (served) return served;
    }
    const ws = construct(target, args, newTarget) as WebSocket;
    try {
      tap(ws);
    } catch {
      // The socket works without us.
    }
    return ws;
  });

  const nativeSend = Native.prototype.send;
  const send = disguiseMethod(nativeSend, {
    // A method definition of the native's name and length: see disguiseMethod.
    send(this: WebSocket, data: unknown): void {
      const out = outbound.get(this);
      const served = out && virtual?.serving ? virtual.of(this) : undefined;
      if (served && out) {
        const held = buffer.heldAnswers.active && typeof data === 'string' && buffer.heldAnswers.matches(data, clientOf.get(this) ?? '');
        // Throws while connecting, as the browser's does; recorded only when it went (the socket was open).
        if (served.send(data)) out(data, held ? { held: true } : undefined);
        return;
      }
      if (!out && typeof this === 'object' && this !== null) {
        // A socket of another realm (this frame's send, borrowed by a same-origin frame): its own hook sends and records it.
        // eslint-disable-next-line prefer-rest-params
        const done = foreignRealmOp('ws.send', this, arguments);
        if (done) return done.value as void;
      }
      if (buffer.heldAnswers.active && typeof data === 'string' && buffer.heldAnswers.matches(data, clientOf.get(this) ?? '')) return hold(this, data);
      if (faultsOn && out && typeof data === 'string' && readyState(this) === OPEN && !buffer.isInjecting() && faultFrame(this, clientOf.get(this) ?? '', 'from-client', data)) return;
      // eslint-disable-next-line prefer-rest-params
      const result = apply(nativeSend, this, arguments) as void;
      // The browser drops what is sent on a closing or closed socket without a word: so is it not shown as sent.
      if (out && readyState(this) === OPEN) out(data);
      return result;
    },
  }.send);
  provideRealmOp('ws.send', (target, args) => (outbound.has(target as WebSocket) ? { value: apply(send, target, args) } : undefined));

  /** An answer to an injected request: captured, not sent; a Socket.IO result that wants an ack gets the runtime's usual acceptance. */
  function hold(ws: WebSocket, data: string): void {
    outbound.get(ws)?.(data, { held: true });
    const ack = socketIoResultAck(data);
    // A stand-in runtime that asked to acknowledge its answers itself (it may refuse one, §7.3.6) gets none from the hook.
    if (ack !== undefined && !buffer.heldAnswers.selfAcked(data, clientOf.get(ws) ?? '')) buffer.natives.setTimeout(() => deliverToSocket(buffer, ws, ack), 0);
  }
  const nativeClose = Native.prototype.close;

  /** A text frame handed to the fault rules: true when a rule took it. */
  function faultFrame(ws: WebSocket, clientId: string, direction: 'to-client' | 'from-client', data: string): boolean {
    try {
      const f = hookFaults;
      if (!f?.active) return false;
      const url = String(urlOf ? urlOf(ws) : ws.url);
      const socketIo = exec(ENGINE_URL, url) !== null;
      const ev = decodeFrame(data, socketIo);
      if (!ev) return false;
      const inbound = direction === 'to-client';
      const recorder = inbound ? inboundOf.get(ws) : outbound.get(ws);
      const open = () => readyState(ws) === OPEN;
      const dispatchToApp = (data: unknown) => apply(dispatch, ws, [new NativeMessageEvent('message', { data, origin: new NativeURL(url).origin })]);
      const toApp = (text: string, mark: { rule: string; did: string }) => {
        if (open()) buffer.faulting(mark, () => dispatchToApp(text));
      };
      const carrier: Carrier = {
        record: (d, mark) => buffer.faulting(mark, () => recorder?.(d)),
        deliver: (d, mark) => {
          if (inbound) {
            if (mark) toApp(d as string, mark);
            else if (open()) dispatchToApp(d);
          } else if (open()) {
            if (mark) buffer.faulting(mark, () => recorder?.(d));
            apply(nativeSend, ws, [d]);
          }
        },
        close: (code, reason) => {
          if (open()) apply(nativeClose, ws, [code, reason]);
        },
        ...(!inbound && ev.packet === '2' && ev.ackId !== undefined ? { ackToApp: (value: unknown, mark: { rule: string; did: string }) => buffer.natives.setTimeout(() => toApp(ackFrame(ev.nsp, ev.ackId!, value), mark), 0) } : {}),
      };
      return f.handle({ direction, transport: socketIo ? 'socket.io' : 'websocket', client: `${buffer.hook}/${clientId}`, ev, encode: (payload, ackId) => encodeFrame(ev, payload, ackId), carrier, original: data });
    } catch {
      return false;
    }
  }
  replaceProperty(Native.prototype, 'send', send);
  replaceProperty(window, 'WebSocket', proxy);
}
