/**
 * Decoded traffic, as the session model and the panel consume it: one record
 * per OUI event, acknowledgment or transport happening, attributed to one
 * logical client. Plain data: it is exported and imported as is.
 */
import type { InjectTarget, TransportKind } from '../../capture/captured-items.ts';

export interface WireClient {
  /** Logical client key: the same for both ends of a postMessage pairing and for a Socket.IO session across polling and WebSocket. */
  key: string;
  kind: TransportKind | 'socket.io';
  /** What to call it: URL, namespace, peer, label. */
  label: string;
  origin: string;
  frameUrl: string;
  frameId: number;
  /** Socket.IO namespace, for Socket.IO clients. */
  namespace?: string;
  /** Where an injected request for this client goes; absent while none can be delivered (e.g. Socket.IO still on long-polling). */
  inject?: InjectTarget;
  /** A postMessage client whose messages go over MessagePorts (a MessageChannel), not between windows. */
  port?: true;
  /**
   * The key of the client this one reconnects for (§7.6.1: on reconnection,
   * surfaces re-register): the same app's connection, in the same hook and
   * frame, of the same transport family (Socket.IO endpoint and namespace,
   * WebSocket URL, direct-hook label), whose transport was seen lost before
   * this client's first item. Absent: a client of its own.
   */
  replaces?: string;
  /** The virtual server answered this connection inside the page (content/virtual/): it never reached the network. */
  served?: true;
}

export type WireKind =
  /** An OUI protocol event (or an `x-` extension event). */
  | 'event'
  /** An acknowledgment: a receipt of a request, or a receiver's acceptance or refusal of a result. */
  | 'ack'
  /** Connection lifecycle: open, close, error, Socket.IO connect/disconnect. */
  | 'lifecycle'
  /** A frame that is not OUI (application traffic on the same socket). */
  | 'other'
  /** A frame that claims to be OUI or Socket.IO but cannot be decoded. */
  | 'malformed';

export interface WireEvent {
  /** `${hook}/${client}/${seq}`: unique, stable across replays. */
  id: string;
  client: string;
  t: number;
  /** `out`: from the OUI client (the page's surfaces) to its runtime; `in`: towards the client. */
  dir: 'out' | 'in';
  kind: WireKind;
  /** OUI type for events; lifecycle name for lifecycle. */
  type?: string;
  /** The event's payload, or the acknowledgment's value, as decoded JSON. */
  payload?: unknown;
  /** For `ack`: the id of the event it acknowledges, when known. */
  ackOf?: string;
  /** The sender asked for an acknowledgment of this event. */
  wantsAck?: boolean;
  /** Frame text as captured (capped), for the raw view. */
  raw?: string;
  /** Size of the captured frame in UTF-16 units or bytes. */
  size: number;
  /** Why a frame is malformed, or what the transport layer noticed. */
  note?: string;
  /** For Socket.IO: which Engine.IO transport carried it. */
  via?: 'polling' | 'websocket';
  /** An answer to an injected request, kept from the app's runtime. */
  held?: boolean;
  /** Produced by the extension's injector rather than by the app's peer. */
  injected?: boolean;
  /** Faulted by the user's fault rule of this id (src/runtime/faults.ts): its delivery was changed by the hook. */
  faulted?: string;
  /** What the rule did: dropped, delayed, duplicated, refused, … */
  fault?: string;
}
