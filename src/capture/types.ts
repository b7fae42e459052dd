/**
 * What the page hook captures and sends towards the panel: raw, undecoded
 * records, so the app's hot path does only a copy and a timestamp. Decoding
 * (JSON, Socket.IO, OUI) happens on the panel side.
 *
 * Plain data only: these records cross window.postMessage, extension ports
 * and export files.
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
}

/** A frame as captured: text as is, binary as base64, anything over the cap as its size only. */
export type CapturedPayload =
  | { text: string }
  | { base64: string }
  | { value: unknown }
  | { omitted: true };

export type CapturedKind =
  /** A client appeared: carries `client`. */
  | 'client'
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
  client_info?: CapturedClient;
  /** Close code / reason, error text. */
  note?: string;
  /** True when this item was produced by the extension (an injected request) and never came from the app's peer. */
  injected?: boolean;
}

/** What a hook has dropped from its bounded buffer, per client: counted, never silent. */
export interface DropCounts {
  [clientId: string]: number;
}
