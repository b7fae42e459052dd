/**
 * The generator's abstract session: what each client and its runtime said, in
 * transport-neutral terms, with semantic tags so that mutations can find their
 * spot. Encoded to hook messages by encode.ts.
 */
export type Transport = 'ws-json' | 'sio-ws' | 'sio-polling' | 'sio-upgrade' | 'postmessage' | 'direct';
export const TRANSPORTS: readonly Transport[] = ['ws-json', 'sio-ws', 'sio-polling', 'sio-upgrade', 'postmessage', 'direct'];

/** Transports whose sender can ask for an acknowledgment (Socket.IO ack ids, direct callbacks). */
export function hasAcks(t: Transport): boolean {
  return t === 'sio-ws' || t === 'sio-polling' || t === 'sio-upgrade' || t === 'direct';
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, any>;

export type Tag =
  | { kind: 'request'; rid: string; copy: number; async: boolean; approval: boolean; surfaceId: string; actionId: string; deadline: number; nav?: boolean }
  | { kind: 'receipt'; rid: string; ok: boolean }
  | {
      kind: 'result';
      rid: string;
      phase: 'sync' | 'interim' | 'final';
      copy: 'first' | 'reanswer' | 'trim1' | 'trim2';
      /** The client's surfaces when it answered (whether or not it sent them). */
      surfaces: Obj[];
      /** Observations it would report. */
      observations?: Obj;
      /** What it compared its hash with (request's knownSurfaces, or the interim's hash). */
      compareWith?: string;
      /** The runtime never received this copy (lost on the way). */
      lost?: boolean;
      /** The runtime had timed the request out when this arrived. */
      late?: boolean;
    }
  | { kind: 'result-ack'; rid: string; ok: boolean }
  | { kind: 'register'; surfaceId: string; reason: 'initial' | 'mount' | 'hot-reload' | 'reconnect' }
  | { kind: 'deregister'; surfaceId: string }
  | { kind: 'obs'; surfaceId: string; observationId: string; freq: string; pulled?: boolean }
  | { kind: 'obs-request'; surfaceId: string; observationId: string }
  | { kind: 'ping' };

export interface Ev {
  id: number;
  /** Capture time, epoch ms. */
  t: number;
  /** Connection number within the client (reconnects increment it). */
  conn: number;
  /** out: from the client (page); in: towards it. */
  dir: 'out' | 'in';
  kind: 'event' | 'ack' | 'open' | 'close';
  type?: string;
  payload?: any;
  /** The sender asked for an acknowledgment. */
  wantsAck?: boolean;
  /** For acks: the event acknowledged. */
  ackOf?: number;
  tag?: Tag;
  /** Set by a mutation: later fix-ups leave this event as it is. */
  frozen?: boolean;
  note?: string;
}

export interface RequestInfo {
  rid: string;
  surfaceId: string;
  actionId: string;
  async: boolean;
  /** When the runtime's timer for it fires (first send + its timeout). */
  deadline: number;
  /** Capture time of the first copy. */
  firstAt: number;
  approval: boolean;
  /** The navigation during the action changed the client's surfaces. */
  nav: boolean;
}

export interface AbsClient {
  name: string;
  transport: Transport;
  /** Frame (as the browser numbers it) and frame path of the client's page. */
  frameId: number;
  framePath: string;
  /** postMessage: the runtime's frame. */
  peerFrameId: number;
  peerPath: string;
  /** The capture began mid-session: what came before is not in it. */
  lateStart: boolean;
  /** Socket.IO namespace. */
  namespace: string;
  /** Re-answer interval of this client (§7.3.7, default 8 s). */
  reanswerMs: number;
  /** Runtime one-way latency (ms) used by the generator. */
  latencyMs: number;
  events: Ev[];
  requests: Record<string, RequestInfo>;
}

export interface Timers {
  syncMs: number;
  asyncAckMs: number;
  observationPullMs: number;
}

export interface AbsSession {
  seed: number;
  t0: number;
  timers: Timers;
  clients: AbsClient[];
  notes: string[];
  /** Ambiguous readings this session exercises (see README). */
  readings: string[];
  nextId: number;
}
