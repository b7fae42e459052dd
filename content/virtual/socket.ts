/**
 * A WebSocket that never touches the network: what `new WebSocket(url)`
 * returns for a URL the virtual server answers. To the app it is a socket:
 * `instanceof WebSocket`, its constructor, prototype methods and
 * `Symbol.toStringTag` are the browser's own (it is a real EventTarget whose
 * prototype chain is the one `new` asked for, so `addEventListener`,
 * `dispatchEvent` and a subclass's methods work unchanged); `readyState`
 * goes CONNECTING → OPEN → CLOSING → CLOSED on the same tasks a socket's
 * would; `open`, `message`, `error` and `close` events and their `on…`
 * handlers fire in the order the browser fires them; `send` throws while
 * connecting and drops silently once closing, as the browser does; `close`
 * checks its code and reason as the browser does. The attributes the
 * browser keeps in internal slots (`readyState`, `url`, `protocol`,
 * `extensions`, `bufferedAmount`, `binaryType`, the `on…` handlers) and
 * `close` are own properties of the instance, since the browser's getters
 * refuse an object that is not a socket of theirs. `send` is the hook's own
 * `WebSocket.prototype.send` (content/taps/websocket.ts), which hands a
 * virtual socket's frames here.
 *
 * Everything it dispatches is dispatched by the browser's own functions,
 * taken before any page script ran.
 */
const NativeEventTarget = EventTarget;
const NativeEvent = Event;
const NativeMessageEvent = MessageEvent;
const NativeCloseEvent = typeof CloseEvent === 'function' ? CloseEvent : undefined;
const NativeDOMException = DOMException;
const NativeURL = URL;
const isArray = Array.isArray;
const dispatch = EventTarget.prototype.dispatchEvent;
const addListener = EventTarget.prototype.addEventListener;
const { apply, construct, defineProperty } = Reflect;
const trunc = Math.trunc;
const NativeString = String;
const NativeNumber = Number;
const HANDLED = ['open', 'message', 'error', 'close'];

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSING = 2;
export const CLOSED = 3;

/** The server's side of one virtual socket. */
export interface SocketEnd {
  /** The socket is open (after its `open` event). */
  opened(): void;
  /** The app sent a frame on an open socket. */
  message(data: unknown): void;
  /** The socket closed, by either side. */
  closed(code: number, reason: string): void;
}

export interface VirtualSocket {
  readonly ws: WebSocket;
  readonly url: string;
  readyState(): number;
  /** The app's `send` (through the hook's WebSocket.prototype.send): false when the frame went nowhere (closing or closed). */
  send(data: unknown): boolean;
  /** A frame from the server: a `message` event, when the socket is open. */
  deliver(data: string): boolean;
  /** The server closes: CLOSING, then CLOSED and the `close` event. */
  serverClose(code: number, reason: string): void;
}

export interface SocketEnv {
  setTimeout(fn: () => void, ms: number): unknown;
  /** Runs a dispatch of a message: the hook records what it dispatches as traffic only inside it. */
  dispatching<T>(fn: () => T): T;
}

type Handler = ((this: WebSocket, e: Event) => unknown) | null;

const NativeArrayBuffer = ArrayBuffer;
const charCodeAt = String.prototype.charCodeAt;
const isView = ArrayBuffer.isView;
const NativeBlob = typeof Blob === 'function' ? Blob : undefined;
const byteLengthOf = typeof ArrayBuffer === 'function' ? Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get : undefined;
const blobSizeOf = NativeBlob ? Object.getOwnPropertyDescriptor(NativeBlob.prototype, 'size')?.get : undefined;

/** What `send(data)` adds to `bufferedAmount`: UTF-8 bytes of text, bytes of binary. */
function bytesOf(data: unknown): number {
  if (typeof data === 'string') {
    let n = 0;
    for (let i = 0; i < data.length; i++) {
      const c = apply(charCodeAt, data, [i]) as number;
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < data.length) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }
  try {
    if (data instanceof NativeArrayBuffer && byteLengthOf) return apply(byteLengthOf, data, []) as number;
    if (isView(data)) return data.byteLength;
    if (NativeBlob && data instanceof NativeBlob && blobSizeOf) return apply(blobSizeOf, data, []) as number;
  } catch {
    // Counted as nothing.
  }
  return 0;
}

/** The absolute `ws:`/`wss:` URL a socket for `url` reports, or undefined when the browser would refuse it (it then throws for us). */
export function socketUrl(url: unknown, base: string): string | undefined {
  try {
    const u = new NativeURL(NativeString(url), base);
    if (u.protocol === 'http:') u.protocol = 'ws:';
    else if (u.protocol === 'https:') u.protocol = 'wss:';
    if ((u.protocol !== 'ws:' && u.protocol !== 'wss:') || u.hash) return undefined;
    return u.href;
  } catch {
    return undefined;
  }
}

/** The first subprotocol the app offered: the one a server that accepts it picks. */
function firstProtocol(protocols: unknown): string {
  if (typeof protocols === 'string') return protocols;
  if (isArray(protocols) && typeof protocols[0] === 'string') return protocols[0];
  return '';
}

/**
 * A virtual socket for `url` (already absolute), built as `new` would build a
 * socket of `newTarget`. `end` is asked for once the socket exists, so the
 * hook can tap it before anything happens on it.
 */
export function createVirtualSocket(env: SocketEnv, url: string, protocols: unknown, newTarget: Function, makeEnd: (v: VirtualSocket) => SocketEnd): VirtualSocket {
  const ws = construct(NativeEventTarget, [], newTarget) as WebSocket;
  const origin = new NativeURL(url).origin;
  const offered = firstProtocol(protocols);
  let state = CONNECTING;
  let protocol = '';
  let binaryType: BinaryType = 'blob';
  let bufferedAmount = 0;
  const handlers: Record<string, Handler> = { open: null, message: null, error: null, close: null };
  const fire = (e: Event) => apply(dispatch, ws, [e]);

  const own = (name: string, get: () => unknown, set?: (v: unknown) => void) => defineProperty(ws, name, { get, ...(set ? { set } : {}), enumerable: true, configurable: true });
  own('url', () => url);
  own('readyState', () => state);
  own('protocol', () => protocol);
  own('extensions', () => '');
  own('bufferedAmount', () => bufferedAmount);
  own(
    'binaryType',
    () => binaryType,
    (v) => {
      if (v === 'blob' || v === 'arraybuffer') binaryType = v;
    },
  );
  for (let i = 0; i < HANDLED.length; i++) {
    const type = HANDLED[i]!;
    let listening = false;
    own(
      `on${type}`,
      () => handlers[type],
      (v) => {
        handlers[type] = typeof v === 'function' || (typeof v === 'object' && v !== null) ? (v as Handler) : null;
        // An event handler attribute is one listener, added where it was first set: the browser's order.
        if (!listening && handlers[type]) {
          listening = true;
          apply(addListener, ws, [
            type,
            function (this: WebSocket, e: Event) {
              const h = handlers[type];
              if (typeof h === 'function') return apply(h, ws, [e]);
            },
          ]);
        }
      },
    );
  }

  let closeCode = 1005;
  let closeReason = '';
  let clean = true;
  const finish = () => {
    if (state === CLOSED) return;
    state = CLOSED;
    try {
      if (!clean) fire(new NativeEvent('error'));
      fire(NativeCloseEvent ? new NativeCloseEvent('close', { code: closeCode, reason: closeReason, wasClean: clean }) : new NativeEvent('close'));
    } finally {
      end.closed(closeCode, closeReason);
    }
  };

  defineProperty(ws, 'close', {
    value: {
      close(code?: number, reason?: string): void {
        if (code !== undefined) {
          const c = trunc(NativeNumber(code));
          if (c !== 1000 && !(c >= 3000 && c <= 4999)) throw new NativeDOMException(`Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${c} is neither.`, 'InvalidAccessError');
        }
        const r = reason === undefined ? '' : NativeString(reason);
        if (r.length > 123) throw new NativeDOMException(`Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes.`, 'SyntaxError');
        if (state === CLOSING || state === CLOSED) return;
        if (state === CONNECTING) {
          // Closed before it opened: the browser fails the connection (error, then close 1006).
          clean = false;
          closeCode = 1006;
        } else {
          closeCode = code === undefined ? 1005 : trunc(NativeNumber(code));
          closeReason = r;
        }
        state = CLOSING;
        env.setTimeout(finish, 0);
      },
    }.close,
    writable: true,
    enumerable: true,
    configurable: true,
  });

  const v: VirtualSocket = {
    ws,
    url,
    readyState: () => state,
    send(data) {
      if (state === CONNECTING) throw new NativeDOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
      const bytes = bytesOf(data);
      // The browser counts what is sent in bufferedAmount until it went out (a later task here); on a closing socket, for good.
      bufferedAmount += bytes;
      if (state !== OPEN) return false;
      env.setTimeout(() => {
        bufferedAmount -= bytes;
      }, 0);
      try {
        end.message(data);
      } catch {
        // The server's trouble is not the app's: the frame went, as far as the app can tell.
      }
      return true;
    },
    deliver(data) {
      if (state !== OPEN) return false;
      env.dispatching(() => fire(new NativeMessageEvent('message', { data, origin })));
      return true;
    },
    serverClose(code, reason) {
      if (state === CLOSING || state === CLOSED) return;
      state = CLOSING;
      closeCode = code;
      closeReason = reason;
      env.setTimeout(finish, 0);
    },
  };
  const end = makeEnd(v);

  env.setTimeout(() => {
    if (state !== CONNECTING) return;
    state = OPEN;
    protocol = offered;
    // The server has the connection before the app's open handler can send on it.
    end.opened();
    fire(new NativeEvent('open'));
  }, 0);
  return v;
}
