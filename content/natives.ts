/**
 * Browser functions taken before any page script runs, so that an app that
 * later wraps timers, ports, window.postMessage, Blob reading or the frame
 * tree's accessors (fake timers, zone.js, analytics, a hostile frame) neither
 * sees nor changes the hook's own work.
 */
const setTimeoutNative = window.setTimeout.bind(window);
const postMessageNative = window.postMessage.bind(window);
const portPostMessage = MessagePort.prototype.postMessage;
const addListener = EventTarget.prototype.addEventListener;
const nowBase = performance.timeOrigin;
const perfNow = performance.now.bind(performance);
const randomValues = crypto.getRandomValues.bind(crypto);
const blobArrayBuffer = Blob.prototype.arrayBuffer;
const promiseThen = Promise.prototype.then;
const apply = Reflect.apply;

/** A getter of this window's own accessor, or of a prototype's; it reads whichever window it is called on. */
function getter(obj: object, name: string): ((this: unknown) => unknown) | undefined {
  for (let o: object | null = obj; o; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return d.get;
  }
  return undefined;
}
// `parent` and `length` are [Replaceable]: a page can redefine them on its own window. These getters
// are the browser's, taken first; called on any window (cross-origin included) they read the real tree.
const parentOf = getter(window, 'parent');
const lengthOf = getter(window, 'length');
const readyStateOf = getter(WebSocket.prototype, 'readyState');
const eventSourceOf = getter(MessageEvent.prototype, 'source');
const eventOriginOf = getter(MessageEvent.prototype, 'origin');
const eventDataOf = getter(MessageEvent.prototype, 'data');

export const natives = {
  setTimeout: setTimeoutNative,
  postMessage: postMessageNative,
  portPost(port: MessagePort, message: unknown): void {
    portPostMessage.call(port, message);
  },
  listen(target: EventTarget, type: string, fn: (e: Event) => void, capture = false): void {
    addListener.call(target, type, fn as EventListener, capture);
  },
  now(): number {
    return nowBase + perfNow();
  },
  randomId(): string {
    const b = new Uint32Array(2);
    randomValues(b);
    return b[0]!.toString(36) + b[1]!.toString(36);
  },
  /** `promise.then(ok, fail)` through the browser's own `then`: an app that wraps Promise (zone.js) sees no extra call. */
  after<T>(promise: Promise<T>, ok: (v: T) => void, fail: (e: unknown) => void): void {
    apply(promiseThen, promise, [ok, fail]);
  },
  /** Reads a Blob without calling anything the page may have replaced on Blob.prototype. */
  readBlob(blob: Blob): Promise<ArrayBuffer> {
    return apply(blobArrayBuffer, blob, []) as Promise<ArrayBuffer>;
  },
  parent(w: Window): Window | null {
    return parentOf ? (apply(parentOf, w, []) as Window | null) : w.parent;
  },
  frameCount(w: Window): number {
    return lengthOf ? (apply(lengthOf, w, []) as number) : w.length;
  },
  readyState(ws: WebSocket): number {
    return readyStateOf ? (apply(readyStateOf, ws, []) as number) : ws.readyState;
  },
  /** A message event's source, origin and data as the browser set them. */
  messageSource(e: MessageEvent): MessageEventSource | null {
    return eventSourceOf ? (apply(eventSourceOf, e, []) as MessageEventSource | null) : e.source;
  },
  messageOrigin(e: MessageEvent): string {
    return eventOriginOf ? (apply(eventOriginOf, e, []) as string) : e.origin;
  },
  messageData(e: MessageEvent): unknown {
    return eventDataOf ? apply(eventDataOf, e, []) : e.data;
  },
};

export type Natives = typeof natives;
