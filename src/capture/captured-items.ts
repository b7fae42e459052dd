/**
 * What the page hook captures and sends towards the panel: raw, undecoded
 * records, so the app's hot path does only a copy and a timestamp. Decoding
 * (JSON, Socket.IO, OUI) happens on the panel side.
 *
 * Plain data only: these records cross window.postMessage, extension ports
 * and export files. The messages that carry them are in src/messages.ts.
 */

export type TransportKind = 'websocket' | 'polling' | 'postmessage' | 'direct';

/** One connection, frame pairing or hook registration: kept apart all the way to the panel. */
export interface CapturedClient {
  /** Unique within one hook instance. */
  id: string;
  kind: TransportKind;
  /** WebSocket / polling URL, or the peer's origin for postMessage, or the label an app gave the direct hook. */
  url: string;
  /** Origin of the page that holds the hook. */
  origin: string;
  /** URL of the frame that holds the hook. */
  frameUrl: string;
  /**
   * Identity shared by hooks in different frames that see the same logical
   * client (both ends of a postMessage pairing). Absent: the client is its own.
   */
  key?: string;
  /**
   * A conversation over MessagePorts (kind `postmessage`): the frame path of
   * the hook's frame, and of the window a received port came from. Its `key`
   * is the one both ends compute (src/capture/message-port.ts); its items'
   * `method` says where each was recorded (`postMessage`: where the page
   * posted it; `message`: where its message event arrived).
   */
  port?: { at: string; from?: string };
  /** A connection the virtual server answered inside the page (content/virtual/): it never reached the network. */
  served?: boolean;
}

/**
 * A frame as captured: text as is, binary as bytes (inside the page) or base64
 * (once it leaves the page), anything over the size cap as its first characters
 * only, with `size` on the item.
 */
export type CapturedPayload =
  | { text: string }
  | { bytes: Uint8Array }
  | { base64: string }
  | OmittedPayload;

/**
 * What is kept of a frame over the capture cap (or of a value that is not
 * JSON): its head, and the original's size in `size` on the item. `binary`:
 * the frame was bytes, and `head` is its first bytes in hex (`7b 22 74 …`).
 * `ascii`: the text was ASCII only, so `size` (UTF-16 units) is also its size
 * in bytes; without it, text's size in bytes is at least `size`.
 */
export interface OmittedPayload {
  omitted: true;
  head: string;
  binary?: true;
  ascii?: true;
}

export type CapturedKind =
  | 'open'
  | 'close'
  | 'error'
  /** A frame / message / call, in direction `dir`. */
  | 'frame';

export interface CapturedItem {
  /** The hook instance (one per frame document) that captured it. */
  hook: string;
  /** Client id within that hook. */
  client: string;
  /** Per-client sequence number, from 1, with no gaps at the source. */
  seq: number;
  /** Epoch milliseconds, sub-millisecond precision. */
  t: number;
  kind: CapturedKind;
  /** `out`: from the page (client) towards its peer; `in`: towards the page. */
  dir?: 'in' | 'out';
  /** For direct calls: which transport method ran (sendResult, onAction, ack, receipt, ...). */
  method?: string;
  payload?: CapturedPayload;
  /** Size of the original frame in bytes or UTF-16 units, recorded when the payload was capped. */
  size?: number;
  /** Close code / reason, error text. */
  note?: string;
  /** Engine.IO long-polling: the request URL (the panel reads the session id from it). */
  url?: string;
  /** postMessage: frame paths ('top', 'top/0', 'top/0/2') of the sender and of the receiver. */
  from?: string;
  to?: string;
  /** The seq of the item this one answers (a receipt or acknowledgment through the direct hook). */
  re?: number;
  /** An answer to an injected request that was captured but kept from the app's runtime. */
  held?: boolean;
  /** True when this item was produced by the extension (an injected request) and never came from the app's peer. */
  injected?: boolean;
  /** The id of the user's fault rule that changed this event's delivery (src/runtime/faults.ts). */
  faulted?: string;
  /** What the rule did to it (`FaultDone`: dropped, delayed, refused, …). */
  fault?: string;
}

/** What a hook has dropped from its bounded buffer, per client: counted, never silent. */
export interface DropCounts {
  [clientId: string]: number;
}

/**
 * What a subscriber will never get of one client: the items the hook's
 * bounded buffer dropped after its cursor, their size (of their payloads, as
 * `size` measures a frame: UTF-16 units of text, bytes of binary, the
 * original size of a frame over the cap; estimated from the copy for a
 * postMessage or direct-call value), and the first and last of their seqs.
 */
export interface DropReport {
  items: number;
  size: number;
  from: number;
  to: number;
}

/** Last sequence number seen, keyed by `${hook}/${client}`. */
export interface Cursors {
  [hookAndClient: string]: number;
}

/** Where an injected request goes: one socket, one frame of a postMessage pairing, or one direct transport. */
export type InjectTarget =
  | { via: 'websocket'; frameId: number; hook: string; client: string }
  /**
   * The client's frame (by path, and by the frameId the browser gave its hook once known) and its
   * peer's: the command goes to the client's frame only, the hold of its answer to the peer's only.
   */
  | { via: 'postmessage'; clientPath: string; peerPath: string; origin?: string; frameId?: number; peerFrameId?: number }
  | { via: 'direct'; frameId: number; hook: string; client: string };

/** The key both frames of a postMessage pairing give their client: the two frame paths in a fixed order. */
export function pairingKey(a: string, b: string): string {
  return a < b ? `postmessage:${a}<->${b}` : `postmessage:${b}<->${a}`;
}

/**
 * A worker the page started, as the coverage view lists it: captured (its
 * WebSockets are tapped by a hook of its own) or not, and why, in one line.
 */
export interface WorkerCoverage {
  /** The script URL, resolved against the page that created the worker. */
  url: string;
  kind: 'dedicated' | 'shared';
  type: 'classic' | 'module';
  captured: boolean;
  /** Why not (or what is partial), for the coverage view. */
  reason?: string;
  /** The worker hook's id, whose items carry it, when captured. */
  hook?: string;
}

/**
 * A worker hook's id: its parent hook's id (base 36, no dot), `.w` and a
 * number; `k3j9x2.w1`, and `k3j9x2.w1.w1` for a worker that worker started.
 * Its items arrive through its page's frame, beside the page's own: it is
 * another source of that frame, never a new document of it.
 */
export function workerHookId(parent: string, n: number): string {
  return `${parent}.w${n}`;
}

export function isWorkerHook(hook: unknown): boolean {
  return typeof hook === 'string' && hook.includes('.w');
}
