/**
 * The browser functions every hook (a page's, a worker's) uses, taken when it
 * is evaluated, before any script of the app: an app that later wraps timers,
 * ports, promises, Blob reading or message events (fake timers, zone.js,
 * analytics, a hostile frame) neither sees nor changes the hook's own work.
 * Free of `window`, so a worker hook builds the same set; what only a window
 * has is in natives.ts.
 */
const apply = Reflect.apply;
/** `uncurry(getter)(obj)` calls the getter on obj: bound now, so a script patching Function.prototype.call later changes nothing. */
export const uncurry = <T>(f: ((this: never) => T) | undefined): ((self: unknown) => T) | undefined => (f ? (Function.prototype.call.bind(f) as (self: unknown) => T) : undefined);

/** The getter of an object's own accessor, or of its prototypes'; it reads whichever object it is called on. */
export function getter(obj: object | undefined, name: string): ((this: never) => unknown) | undefined {
  for (let o: object | null = obj ?? null; o; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return d.get as ((this: never) => unknown) | undefined;
  }
  return undefined;
}

/** The natives of the global scope this runs in. */
export function scopeNatives() {
  const G = globalThis;
  const setTimeoutNative = G.setTimeout.bind(G) as typeof setTimeout;
  const portPostMessage = MessagePort.prototype.postMessage;
  const addListener = EventTarget.prototype.addEventListener;
  const nowBase = performance.timeOrigin;
  const perfNow = performance.now.bind(performance);
  const randomValues = crypto.getRandomValues.bind(crypto);
  const blobArrayBuffer = Blob.prototype.arrayBuffer;
  const blobSlice = Blob.prototype.slice;
  const promiseThen = Promise.prototype.then;
  const readyStateOf = uncurry(getter(typeof WebSocket === 'function' ? WebSocket.prototype : undefined, 'readyState') as (this: never) => number);
  const eventSourceOf = uncurry(getter(MessageEvent.prototype, 'source') as (this: never) => MessageEventSource | null);
  const eventOriginOf = uncurry(getter(MessageEvent.prototype, 'origin') as (this: never) => string);
  const eventDataOf = uncurry(getter(MessageEvent.prototype, 'data') as (this: never) => unknown);
  const blobSizeOf = uncurry(getter(Blob.prototype, 'size') as (this: never) => number);
  return {
    setTimeout: setTimeoutNative,
    portPost(port: MessagePort, message: unknown): void {
      apply(portPostMessage, port, [message]);
    },
    listen(target: EventTarget, type: string, fn: (e: Event) => void, capture = false): void {
      apply(addListener, target, [type, fn as EventListener, capture]);
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
    /** Reads a Blob without calling anything the app may have replaced on Blob.prototype. */
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
}
