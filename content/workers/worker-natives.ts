/**
 * The browser functions a worker hook uses, taken before the worker's own
 * script runs (as natives.ts does for the page): a worker script that later
 * wraps timers, ports or message events neither sees nor changes the hook's
 * work. The same shape as the page's, so the capture buffer and the taps run
 * unchanged; what only a window has (frames, window.postMessage) is inert.
 */
import type { Natives } from '../natives.ts';

const G = globalThis;
const setTimeoutNative = G.setTimeout.bind(G) as Natives['setTimeout'];
const portPostMessage = MessagePort.prototype.postMessage;
const addListener = EventTarget.prototype.addEventListener;
const nowBase = performance.timeOrigin;
const perfNow = performance.now.bind(performance);
const randomValues = crypto.getRandomValues.bind(crypto);
const blobArrayBuffer = Blob.prototype.arrayBuffer;
const blobSlice = Blob.prototype.slice;
const promiseThen = Promise.prototype.then;
const { apply } = Reflect;

function getter(proto: object | undefined, name: string): ((self: unknown) => unknown) | undefined {
  const g = proto ? Object.getOwnPropertyDescriptor(proto, name)?.get : undefined;
  return g ? (self: unknown) => apply(g, self, []) : undefined;
}
const readyStateOf = getter(typeof WebSocket === 'function' ? WebSocket.prototype : undefined, 'readyState');
const eventSourceOf = getter(MessageEvent.prototype, 'source');
const eventOriginOf = getter(MessageEvent.prototype, 'origin');
const eventDataOf = getter(MessageEvent.prototype, 'data');
const blobSizeOf = getter(Blob.prototype, 'size');

// Not annotated here: a field the page's natives gain is missed below (the assignment fails to compile), one they lose is not an error here.
const all = {
  setTimeout: setTimeoutNative,
  // A worker hook speaks only on its line: nothing is posted to the worker's own channel.
  postMessage: (() => {}) as Natives['postMessage'],
  portPost(port: MessagePort, message: unknown): void {
    apply(portPostMessage, port, [message]);
  },
  listen(target: EventTarget, type: string, fn: (e: Event) => void, capture = false): void {
    apply(addListener, target, [type, fn, capture]);
  },
  now(): number {
    return nowBase + perfNow();
  },
  randomId(): string {
    const b = new Uint32Array(2);
    randomValues(b);
    return b[0]!.toString(36) + b[1]!.toString(36);
  },
  after<T>(promise: Promise<T>, ok: (v: T) => void, fail: (e: unknown) => void): void {
    apply(promiseThen, promise, [ok, fail]);
  },
  readBlob(blob: Blob): Promise<ArrayBuffer> {
    return apply(blobArrayBuffer, blob, []) as Promise<ArrayBuffer>;
  },
  blobSize(blob: Blob): number {
    return blobSizeOf ? (blobSizeOf(blob) as number) : blob.size;
  },
  blobHead(blob: Blob, n: number): Blob {
    return apply(blobSlice, blob, [0, n]) as Blob;
  },
  parent: () => null,
  frameCount: () => 0,
  readyState(ws: WebSocket): number {
    return readyStateOf ? (readyStateOf(ws) as number) : ws.readyState;
  },
  messageSource(e: MessageEvent): MessageEventSource | null {
    return eventSourceOf ? (eventSourceOf(e) as MessageEventSource | null) : e.source;
  },
  messageOrigin(e: MessageEvent): string {
    return eventOriginOf ? (eventOriginOf(e) as string) : e.origin;
  },
  messageData(e: MessageEvent): unknown {
    return eventDataOf ? eventDataOf(e) : e.data;
  },
};

export const workerNatives: Natives = all;
