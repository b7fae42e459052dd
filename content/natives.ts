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
const blobSlice = Blob.prototype.slice;
const promiseThen = Promise.prototype.then;
const apply = Reflect.apply;
/** `uncurry(getter)(obj)` calls the getter on obj: bound now, so a page patching Function.prototype.call later changes nothing. */
const uncurry = <T>(f: ((this: never) => T) | undefined): ((self: unknown) => T) | undefined => (f ? (Function.prototype.call.bind(f) as (self: unknown) => T) : undefined);

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
const parentOf = uncurry(getter(window, 'parent') as (this: never) => Window | null);
const lengthOf = uncurry(getter(window, 'length') as (this: never) => number);
const readyStateOf = uncurry(getter(WebSocket.prototype, 'readyState') as (this: never) => number);
const eventSourceOf = uncurry(getter(MessageEvent.prototype, 'source') as (this: never) => MessageEventSource | null);
const eventOriginOf = uncurry(getter(MessageEvent.prototype, 'origin') as (this: never) => string);
const eventDataOf = uncurry(getter(MessageEvent.prototype, 'data') as (this: never) => unknown);
const blobSizeOf = uncurry(getter(Blob.prototype, 'size') as (this: never) => number);

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
  blobSize(blob: Blob): number {
    return blobSizeOf ? blobSizeOf(blob) : blob.size;
  },
  /** The first `n` bytes of a Blob, as a Blob (nothing is read). */
  blobHead(blob: Blob, n: number): Blob {
    return apply(blobSlice, blob, [0, n]) as Blob;
  },
  parent(w: Window): Window | null {
    return parentOf ? parentOf(w) : w.parent;
  },
  frameCount(w: Window): number {
    return lengthOf ? lengthOf(w) : w.length;
  },
  readyState(ws: WebSocket): number {
    return readyStateOf ? readyStateOf(ws) : ws.readyState;
  },
  /** A message event's source, origin and data as the browser set them. */
  messageSource(e: MessageEvent): MessageEventSource | null {
    return eventSourceOf ? eventSourceOf(e) : e.source;
  },
  messageOrigin(e: MessageEvent): string {
    return eventOriginOf ? eventOriginOf(e) : e.origin;
  },
  messageData(e: MessageEvent): unknown {
    return eventDataOf ? eventDataOf(e) : e.data;
  },
};

export type Natives = typeof natives;
