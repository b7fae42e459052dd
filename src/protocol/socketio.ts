/**
 * Engine.IO v4 / Socket.IO v5 codec for the panel: decodes the raw frames the
 * page hook captured (WebSocket text / binary frames, HTTP long-polling
 * bodies) into Socket.IO packets, and encodes packets for injection.
 *
 * A small strict codec of our own rather than engine.io-parser /
 * socket.io-parser: those return ArrayBuffer/Blob, throw on malformed input,
 * deliver packets through an event emitter and keep binary reconstruction
 * state that throws when a frame is out of place. Here nothing throws while
 * decoding: anything undecodable becomes an `error` packet with a reason.
 *
 * Pure: no DOM, no Node builtins, no extension APIs (runs in Node, in a page
 * and in the MV3 panel). Only `URL` is used, which all three provide.
 *
 * Wire formats (see https://socket.io/docs/v4/engine-io-protocol/ and
 * https://socket.io/docs/v4/socket-io-protocol/):
 *  - Engine.IO packet: one type digit `0`..`6` (open close ping pong message
 *    upgrade noop) then data; a binary WebSocket frame is a whole `message`
 *    packet; in long-polling, binary is `b` + base64 and packets in one body
 *    are separated by `\x1e`.
 *  - Socket.IO packet (inside an Engine.IO message):
 *    `<type>[<#attachments>-][<namespace>,][<ackId>][<json>]`, then for
 *    BINARY_EVENT / BINARY_ACK the attachments, one binary message each.
 */

import { setMember } from './json-object.ts';

// ---------------------------------------------------------------------------
// Types

export type EnginePacketType = 'open' | 'close' | 'ping' | 'pong' | 'message' | 'upgrade' | 'noop' | 'error';

export interface EnginePacket {
  type: EnginePacketType;
  /** Text after the type digit, or the bytes of a binary message. */
  data?: string | Uint8Array;
  /** Why an `error` packet could not be decoded. */
  reason?: string;
}

/** The JSON body of an Engine.IO `open` packet. */
export interface EngineHandshake {
  sid: string;
  upgrades: string[];
  pingInterval?: number;
  pingTimeout?: number;
  maxPayload?: number;
}

export interface EngineUrlInfo {
  /** Engine.IO protocol revision (`EIO=` query); this codec speaks 4. */
  eio: number;
  /** `polling`, `websocket` or `webtransport` (whatever the URL says). */
  transport: string;
  sid?: string;
  /** URL path, e.g. `/socket.io/`. */
  path: string;
}

/** A binary attachment as decoded: structured-clone and JSON safe. */
export interface SocketIOBinary {
  /** The bytes, base64 (standard alphabet, padded). */
  binary: string;
  /** Byte length. */
  size: number;
}

export type SocketIOPacketType = 'connect' | 'disconnect' | 'event' | 'ack' | 'connect_error' | 'error';

export interface SocketIOPacket {
  type: SocketIOPacketType;
  /** `/` for the main namespace. */
  namespace: string;
  ackId?: number;
  /** Event name (`event` packets). */
  name?: string;
  /** Event arguments after the name (`event`) or acknowledgement arguments (`ack`). */
  args?: unknown[];
  /** CONNECT payload (auth from the client, `{sid}` from the server) or CONNECT_ERROR payload. */
  data?: unknown;
  /** True for BINARY_EVENT / BINARY_ACK (attachments were reassembled). */
  binary?: boolean;
  /** `error` packets: what was wrong. */
  reason?: string;
  /** `error` packets: the offending text (truncated to `maxRawLength`). */
  raw?: string;
}

export interface SocketIODecoderOptions {
  /** Attachments allowed in one binary packet (default 256; socket.io's own default is 10). */
  maxAttachments?: number;
  /** Longest Socket.IO text packet accepted, in UTF-16 units (default 64 MiB). */
  maxMessageLength?: number;
  /** Total attachment bytes accepted for one binary packet (default 64 MiB). */
  maxAttachmentBytes?: number;
  /** Longest `raw` kept on error packets (default 2048). */
  maxRawLength?: number;
}

export interface PollingOptions {
  /** Longest polling body accepted, in UTF-16 units (default 128 MiB). */
  maxBodyLength?: number;
  /** Most packets decoded from one body (default 100 000). */
  maxPackets?: number;
}

/** What the OUI layer needs from a Socket.IO packet. */
export type OUISocketIOMessage =
  | {
      kind: 'event';
      /** OUI event type (the Socket.IO event name). */
      type: string;
      /** First argument: the OUI payload. */
      payload: unknown;
      /** Present when the sender asked for an acknowledgement. */
      ackId?: number;
      namespace: string;
      /** Arguments after the payload (OUI expects 0). */
      extraArgs: number;
    }
  | { kind: 'ack'; ackId: number; args: unknown[]; namespace: string };

// ---------------------------------------------------------------------------
// Base64 (own implementation: atob/btoa are byte-string based and slow on big data)

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) t[B64.charCodeAt(i)] = i;
  // Accept the URL-safe alphabet too.
  t['-'.charCodeAt(0)] = 62;
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

/** Bytes to standard padded base64. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(start + CHUNK, bytes.length);
    let s = '';
    let i = start;
    for (; i + 2 < end; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
    }
    const rest = end - i;
    if (rest === 1) {
      const n = bytes[i]! << 16;
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + '==';
    } else if (rest === 2) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + '=';
    }
    parts.push(s);
  }
  return parts.join('');
}

/** Base64 (standard or URL-safe, padding optional) to bytes; null when malformed. */
export function base64ToBytes(text: string): Uint8Array | null {
  let len = text.length;
  while (len > 0 && text.charCodeAt(len - 1) === 61 /* = */) len--;
  if (text.length - len > 2) return null;
  if (len % 4 === 1) return null;
  if (text.length % 4 !== 0 && text.length !== len) return null; // padded but wrong length
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? B64_INDEX[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return o === out.length ? out : out.subarray(0, o);
}

// ---------------------------------------------------------------------------
// Engine.IO

const ENGINE_TYPES: readonly EnginePacketType[] = ['open', 'close', 'ping', 'pong', 'message', 'upgrade', 'noop'];
const ENGINE_CODES: Record<string, string> = {
  open: '0',
  close: '1',
  ping: '2',
  pong: '3',
  message: '4',
  upgrade: '5',
  noop: '6',
};
/** Record separator between packets of one long-polling body. */
export const POLLING_SEPARATOR = '\x1e';

function toBytes(data: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * One Engine.IO v4 packet: a WebSocket frame (text, or binary bytes) or one
 * packet of a polling body (where binary is `b` + base64). Never throws.
 */
export function decodeEnginePacket(data: string | Uint8Array | ArrayBuffer): EnginePacket {
  try {
    if (typeof data !== 'string') {
      if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) return { type: 'error', reason: 'not a string or bytes' };
      return { type: 'message', data: toBytes(data) };
    }
    if (data.length === 0) return { type: 'error', reason: 'empty packet' };
    const c = data.charCodeAt(0);
    if (c === 98 /* b */) {
      const bytes = base64ToBytes(data.slice(1));
      if (!bytes) return { type: 'error', reason: 'invalid base64 in binary packet', data };
      return { type: 'message', data: bytes };
    }
    const t = c - 48;
    if (t < 0 || t > 6) return { type: 'error', reason: `unknown Engine.IO packet type ${JSON.stringify(data[0])}`, data };
    const type = ENGINE_TYPES[t]!;
    return data.length > 1 ? { type, data: data.slice(1) } : { type };
  } catch (e) {
    return { type: 'error', reason: `undecodable: ${String(e)}` };
  }
}

/**
 * Decodes a captured frame as the page hook records it (`{text}` or
 * `{base64}` of a binary frame). Anything else (value, omitted) is an error.
 */
export function decodeEngineFrame(payload: { text: string } | { base64: string } | object): EnginePacket {
  const p = payload as { text?: unknown; base64?: unknown };
  if (typeof p.text === 'string') return decodeEnginePacket(p.text);
  if (typeof p.base64 === 'string') {
    const bytes = base64ToBytes(p.base64);
    return bytes ? { type: 'message', data: bytes } : { type: 'error', reason: 'invalid base64 frame' };
  }
  return { type: 'error', reason: 'frame has no text or bytes (omitted?)' };
}

/**
 * The packets of an Engine.IO v4 long-polling body (GET response or POST
 * request body). An empty body gives []. Never throws.
 */
export function decodePollingPayload(body: string, opts: PollingOptions = {}): EnginePacket[] {
  if (typeof body !== 'string') return [{ type: 'error', reason: 'polling body is not text' }];
  if (body.length === 0) return [];
  const maxBody = opts.maxBodyLength ?? 128 * 1024 * 1024;
  const maxPackets = opts.maxPackets ?? 100_000;
  if (body.length > maxBody) return [{ type: 'error', reason: `polling body too long (${body.length} > ${maxBody})` }];
  const out: EnginePacket[] = [];
  let start = 0;
  while (start <= body.length) {
    if (out.length >= maxPackets) {
      out.push({ type: 'error', reason: `too many packets in one polling body (> ${maxPackets})` });
      break;
    }
    let end = body.indexOf(POLLING_SEPARATOR, start);
    if (end < 0) end = body.length;
    out.push(decodeEnginePacket(body.slice(start, end)));
    start = end + 1;
  }
  return out;
}

/** Encodes one Engine.IO packet as a WebSocket frame (text, or the bytes of a binary message). */
export function encodeEnginePacket(packet: EnginePacket): string | Uint8Array {
  const code = ENGINE_CODES[packet.type];
  if (code === undefined) throw new TypeError(`cannot encode Engine.IO packet type ${packet.type}`);
  if (packet.data instanceof Uint8Array) {
    if (packet.type !== 'message') throw new TypeError('only message packets carry binary data');
    return packet.data;
  }
  return code + (packet.data ?? '');
}

/** Encodes packets as one long-polling body (binary as `b` + base64). */
export function encodePollingPayload(packets: EnginePacket[]): string {
  return packets
    .map((p) => {
      const e = encodeEnginePacket(p);
      return typeof e === 'string' ? e : 'b' + bytesToBase64(e);
    })
    .join(POLLING_SEPARATOR);
}

/** Reads the handshake of an `open` packet; null when it is not one. */
export function parseEngineHandshake(packet: EnginePacket): EngineHandshake | null {
  if (packet.type !== 'open' || typeof packet.data !== 'string') return null;
  let v: unknown;
  try {
    v = JSON.parse(packet.data);
  } catch {
    return null;
  }
  if (!isPlainObject(v) || typeof v.sid !== 'string') return null;
  const h: EngineHandshake = {
    sid: v.sid,
    upgrades: Array.isArray(v.upgrades) ? v.upgrades.filter((u): u is string => typeof u === 'string') : [],
  };
  if (typeof v.pingInterval === 'number') h.pingInterval = v.pingInterval;
  if (typeof v.pingTimeout === 'number') h.pingTimeout = v.pingTimeout;
  if (typeof v.maxPayload === 'number') h.maxPayload = v.maxPayload;
  return h;
}

/**
 * Cheap guess whether a text frame or polling body is Engine.IO v4, for
 * connections whose URL does not say so. Checks at most the first packets.
 */
export function looksLikeEngineIO(text: string): boolean {
  if (typeof text !== 'string' || text.length === 0) return false;
  let start = 0;
  for (let n = 0; n < 3 && start < text.length; n++) {
    let end = text.indexOf(POLLING_SEPARATOR, start);
    if (end < 0) end = text.length;
    if (!looksLikeEnginePacket(text, start, end)) return false;
    if (end === text.length - 1) return false; // trailing separator
    start = end + 1;
  }
  return true;
}

function looksLikeEnginePacket(text: string, start: number, end: number): boolean {
  const len = end - start;
  if (len <= 0) return false;
  switch (text[start]) {
    case '0':
      return text.startsWith('0{"sid":', start);
    case '1':
    case '5':
    case '6':
      return len === 1;
    case '2':
    case '3':
      return len === 1 || (len === 6 && text.startsWith('probe', start + 1));
    case '4':
      return true;
    case 'b':
      return len < 64 ? /^[A-Za-z0-9+/]*={0,2}$/.test(text.slice(start + 1, end)) : /^[A-Za-z0-9+/]{60}/.test(text.slice(start + 1, start + 61));
    default:
      return false;
  }
}

/** Cheap guess whether a text frame is a Socket.IO packet inside an Engine.IO message (`4` + type digit). */
export function looksLikeSocketIO(text: string): boolean {
  if (typeof text !== 'string' || text.length < 2 || text[0] !== '4') return false;
  const t = text.charCodeAt(1) - 48;
  if (t < 0 || t > 6) return false;
  const c = text[2];
  return c === undefined || c === '/' || c === '[' || c === '{' || c === '"' || (c >= '0' && c <= '9') || c === '-';
}

/**
 * Recognises an Engine.IO endpoint URL (`.../socket.io/?EIO=4&transport=polling&sid=...`),
 * absolute (http, https, ws, wss) or relative. Null when the query has no
 * `EIO` and `transport`. The path is not required to be `/socket.io/`:
 * servers may configure another.
 */
export function parseEngineUrl(url: string): EngineUrlInfo | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > 65536) return null;
  let u: URL;
  try {
    u = new URL(url, 'http://localhost/');
  } catch {
    return null;
  }
  const eioText = u.searchParams.get('EIO');
  const transport = u.searchParams.get('transport');
  if (eioText === null || transport === null || !/^[0-9]{1,3}$/.test(eioText) || !/^[a-z]{1,32}$/i.test(transport)) return null;
  const info: EngineUrlInfo = { eio: Number(eioText), transport, path: u.pathname };
  const sid = u.searchParams.get('sid');
  if (sid) info.sid = sid;
  return info;
}

// ---------------------------------------------------------------------------
// Socket.IO decoding

/** Socket.IO v5 packet type digits. */
const SioType = {
  CONNECT: 0,
  DISCONNECT: 1,
  EVENT: 2,
  ACK: 3,
  CONNECT_ERROR: 4,
  BINARY_EVENT: 5,
  BINARY_ACK: 6,
} as const;
type SioType = (typeof SioType)[keyof typeof SioType];

/** Event names socket.io refuses (its parser treats them as invalid payloads). */
export const RESERVED_EVENT_NAMES: readonly string[] = [
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'newListener',
  'removeListener',
];

interface Header {
  type: SioType;
  attachments: number;
  namespace: string;
  ackId?: number;
  /** Parsed JSON, undefined when absent. */
  json: unknown;
  hasJson: boolean;
}

interface Pending {
  header: Header;
  buffers: Uint8Array[];
  bytes: number;
  raw: string;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.prototype.toString.call(v) === '[object Object]';
}

/**
 * Decodes Socket.IO v5 packets from the Engine.IO packets of ONE direction of
 * ONE Engine.IO session (keep one decoder per (sid, direction): binary
 * attachments follow their header in the same direction; polling and
 * WebSocket frames of the same session and direction go to the same decoder,
 * in capture order). Non-message Engine.IO packets are ignored; an Engine.IO
 * `error` packet is reported as a Socket.IO `error`. Never throws.
 */
export class SocketIODecoder {
  private pending: Pending | null = null;
  private readonly maxAttachments: number;
  private readonly maxMessageLength: number;
  private readonly maxAttachmentBytes: number;
  private readonly maxRawLength: number;

  constructor(opts: SocketIODecoderOptions = {}) {
    this.maxAttachments = opts.maxAttachments ?? 256;
    this.maxMessageLength = opts.maxMessageLength ?? 64 * 1024 * 1024;
    this.maxAttachmentBytes = opts.maxAttachmentBytes ?? 64 * 1024 * 1024;
    this.maxRawLength = opts.maxRawLength ?? 2048;
  }

  /** True while a binary packet waits for attachments. */
  get awaitingAttachments(): number {
    return this.pending ? this.pending.header.attachments - this.pending.buffers.length : 0;
  }

  push(packet: EnginePacket): SocketIOPacket[] {
    try {
      return this.pushUnsafe(packet);
    } catch (e) {
      // Defensive: nothing below should throw.
      this.pending = null;
      return [this.error('/', `decoder failure: ${String(e)}`, '')];
    }
  }

  /** Decodes a raw WebSocket frame (text, or binary bytes). */
  pushFrame(data: string | Uint8Array | ArrayBuffer): SocketIOPacket[] {
    return this.push(decodeEnginePacket(data));
  }

  /** Decodes a whole long-polling body. */
  pushPollingBody(body: string, opts?: PollingOptions): SocketIOPacket[] {
    const out: SocketIOPacket[] = [];
    for (const p of decodePollingPayload(body, opts)) out.push(...this.push(p));
    return out;
  }

  /**
   * Ends the stream: a binary packet still waiting for attachments becomes an
   * error. Call when the connection closes.
   */
  end(): SocketIOPacket[] {
    return this.abandonPending('connection ended');
  }

  private abandonPending(why: string): SocketIOPacket[] {
    const p = this.pending;
    if (!p) return [];
    this.pending = null;
    return [
      this.error(
        p.header.namespace,
        `incomplete binary packet: expected ${p.header.attachments} attachment(s), got ${p.buffers.length} (${why})`,
        p.raw,
        p.header.ackId,
      ),
    ];
  }

  private pushUnsafe(packet: EnginePacket): SocketIOPacket[] {
    if (!packet || typeof packet !== 'object') return [this.error('/', 'not an Engine.IO packet', '')];
    switch (packet.type) {
      case 'message':
        break;
      case 'close':
        return this.abandonPending('Engine.IO close');
      case 'error': {
        const raw = typeof packet.data === 'string' ? packet.data : '';
        return [this.error('/', `Engine.IO: ${packet.reason ?? 'undecodable packet'}`, raw)];
      }
      default:
        return [];
    }
    const data = packet.data;
    if (data instanceof Uint8Array) return this.takeAttachment(data);
    if (typeof data !== 'string') return [...this.abandonPending('empty message'), this.error('/', 'empty Engine.IO message', '')];
    const out = this.abandonPending('text packet arrived first');
    out.push(...this.decodeText(data));
    return out;
  }

  private takeAttachment(bytes: Uint8Array): SocketIOPacket[] {
    const p = this.pending;
    if (!p) return [this.error('/', 'unexpected binary message (no binary packet awaiting attachments)', `<${bytes.length} bytes>`)];
    p.bytes += bytes.length;
    if (p.bytes > this.maxAttachmentBytes) {
      this.pending = null;
      return [this.error(p.header.namespace, `attachments too large (> ${this.maxAttachmentBytes} bytes)`, p.raw, p.header.ackId)];
    }
    p.buffers.push(bytes.slice());
    if (p.buffers.length < p.header.attachments) return [];
    this.pending = null;
    const blobs: SocketIOBinary[] = p.buffers.map((b) => ({ binary: bytesToBase64(b), size: b.length }));
    const rebuilt = replacePlaceholders(p.header.json, blobs);
    if (typeof rebuilt === 'string') return [this.error(p.header.namespace, rebuilt, p.raw, p.header.ackId)];
    return [this.finish(p.header, rebuilt.value, p.raw)];
  }

  private decodeText(str: string): SocketIOPacket[] {
    if (str.length > this.maxMessageLength) {
      return [this.error('/', `packet too long (${str.length} > ${this.maxMessageLength})`, str)];
    }
    const h = this.parseHeader(str);
    if (typeof h === 'string') return [this.error('/', h, str)];
    if (typeof h.error === 'string') return [this.error(h.header.namespace, h.error, str, h.header.ackId)];
    const header = h.header;
    if (header.type === SioType.BINARY_EVENT || header.type === SioType.BINARY_ACK) {
      const invalid = validatePayload(header);
      if (invalid) return [this.error(header.namespace, invalid, str, header.ackId)];
      this.pending = { header, buffers: [], bytes: 0, raw: str };
      return [];
    }
    return [this.finish(header, header.json, str)];
  }

  private parseHeader(str: string): string | { header: Header; error?: string } {
    if (str.length === 0) return 'empty Socket.IO packet';
    const t = str.charCodeAt(0) - 48;
    if (t < 0 || t > 6) return `unknown Socket.IO packet type ${JSON.stringify(str[0])}`;
    const type = t as SioType;
    let i = 1;
    let attachments = 0;
    if (type === SioType.BINARY_EVENT || type === SioType.BINARY_ACK) {
      const dash = str.indexOf('-', 1);
      if (dash < 0 || dash > 12) return 'binary packet without attachment count';
      const count = str.slice(1, dash);
      if (!/^[0-9]+$/.test(count)) return `illegal attachment count ${JSON.stringify(count)}`;
      attachments = Number(count);
      if (attachments < 1) return 'binary packet with zero attachments';
      if (attachments > this.maxAttachments) return `too many attachments (${attachments} > ${this.maxAttachments})`;
      i = dash + 1;
    }
    let namespace = '/';
    if (str[i] === '/') {
      let comma = str.indexOf(',', i);
      if (comma < 0) comma = str.length;
      namespace = str.slice(i, comma);
      if (namespace.length > 1024) return 'namespace too long';
      i = comma + 1;
    }
    const header: Header = { type, attachments, namespace, json: undefined, hasJson: false };
    let j = i;
    while (j < str.length && str.charCodeAt(j) >= 48 && str.charCodeAt(j) <= 57) j++;
    if (j > i) {
      const digits = str.slice(i, j);
      const id = Number(digits);
      if (digits.length > 16 || !Number.isSafeInteger(id)) return { header, error: `ack id out of range (${digits.slice(0, 24)})` };
      if (type === SioType.CONNECT || type === SioType.DISCONNECT || type === SioType.CONNECT_ERROR) {
        return { header, error: 'ack id on a packet that takes none' };
      }
      header.ackId = id;
      i = j;
    }
    if (i < str.length) {
      try {
        header.json = JSON.parse(str.slice(i));
        header.hasJson = true;
      } catch (e) {
        return { header, error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    return { header };
  }

  private finish(header: Header, json: unknown, raw: string): SocketIOPacket {
    const h: Header = { ...header, json };
    const invalid = validatePayload(h);
    if (invalid) return this.error(h.namespace, invalid, raw, h.ackId);
    const binary = header.type === SioType.BINARY_EVENT || header.type === SioType.BINARY_ACK;
    switch (header.type) {
      case SioType.CONNECT: {
        const p: SocketIOPacket = { type: 'connect', namespace: h.namespace };
        if (h.hasJson) p.data = json;
        return p;
      }
      case SioType.DISCONNECT:
        return { type: 'disconnect', namespace: h.namespace };
      case SioType.CONNECT_ERROR:
        return { type: 'connect_error', namespace: h.namespace, data: json };
      case SioType.EVENT:
      case SioType.BINARY_EVENT: {
        const arr = json as unknown[];
        const p: SocketIOPacket = { type: 'event', namespace: h.namespace, name: String(arr[0]), args: arr.slice(1) };
        if (h.ackId !== undefined) p.ackId = h.ackId;
        if (binary) p.binary = true;
        return p;
      }
      case SioType.ACK:
      case SioType.BINARY_ACK: {
        const p: SocketIOPacket = { type: 'ack', namespace: h.namespace, ackId: h.ackId!, args: json as unknown[] };
        if (binary) p.binary = true;
        return p;
      }
      default:
        return this.error(h.namespace, 'unknown packet type', raw, h.ackId);
    }
  }

  private error(namespace: string, reason: string, raw: string, ackId?: number): SocketIOPacket {
    const p: SocketIOPacket = {
      type: 'error',
      namespace,
      reason,
      raw: raw.length > this.maxRawLength ? raw.slice(0, this.maxRawLength) + `… (${raw.length} chars)` : raw,
    };
    if (ackId !== undefined) p.ackId = ackId;
    return p;
  }
}

/** Null when the payload fits the packet type (same rules as socket.io-parser), else the reason. */
function validatePayload(h: Header): string | null {
  const v = h.json;
  switch (h.type) {
    case SioType.CONNECT:
      return !h.hasJson || isPlainObject(v) ? null : 'CONNECT payload must be an object';
    case SioType.DISCONNECT:
      return h.hasJson ? 'DISCONNECT takes no payload' : null;
    case SioType.CONNECT_ERROR:
      return typeof v === 'string' || isPlainObject(v) ? null : 'CONNECT_ERROR payload must be a string or an object';
    case SioType.EVENT:
    case SioType.BINARY_EVENT: {
      if (!Array.isArray(v)) return 'EVENT payload must be an array';
      const name = v[0];
      if (typeof name === 'number') return null;
      if (typeof name !== 'string') return 'EVENT without a name';
      if (RESERVED_EVENT_NAMES.includes(name)) return `reserved event name ${JSON.stringify(name)}`;
      return null;
    }
    case SioType.ACK:
    case SioType.BINARY_ACK:
      if (h.ackId === undefined) return 'ACK without an ack id';
      return Array.isArray(v) ? null : 'ACK payload must be an array';
    default:
      return 'unknown packet type';
  }
}

/**
 * Replaces `{_placeholder: true, num}` by the attachment, in place, without
 * recursion (payloads may nest deeply). Returns the reason on failure.
 */
function replacePlaceholders(json: unknown, blobs: SocketIOBinary[]): { value: unknown } | string {
  const isPlaceholder = (v: unknown): v is { _placeholder: true; num: unknown } =>
    typeof v === 'object' && v !== null && (v as { _placeholder?: unknown })._placeholder === true;
  const resolve = (v: { num: unknown }): SocketIOBinary | string => {
    const n = v.num;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n >= blobs.length) return `illegal attachment placeholder ${JSON.stringify(n)}`;
    return { ...blobs[n]! };
  };
  if (isPlaceholder(json)) {
    const r = resolve(json);
    return typeof r === 'string' ? r : { value: r };
  }
  const stack: unknown[] = [json];
  let visited = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (++visited > 10_000_000) return 'payload too large to reassemble';
    const rec = node as Record<string, unknown>;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(rec)) {
      const child = rec[key as string];
      if (typeof child !== 'object' || child === null) continue;
      if (isPlaceholder(child)) {
        const r = resolve(child);
        if (typeof r === 'string') return r;
        setMember(rec, key as string, r);
      } else {
        stack.push(child);
      }
    }
  }
  return { value: json };
}

// ---------------------------------------------------------------------------
// Socket.IO encoding (for injection)

export interface SocketIOEventSpec {
  /** Default `/`. */
  namespace?: string;
  name: string;
  args?: unknown[];
  ackId?: number;
}

export interface SocketIOAckSpec {
  namespace?: string;
  ackId: number;
  args?: unknown[];
}

function checkNamespace(ns: string | undefined): string {
  const n = ns ?? '/';
  if (typeof n !== 'string' || n[0] !== '/' || n.includes(',')) throw new TypeError(`invalid namespace ${JSON.stringify(n)}`);
  return n;
}

function checkAckId(id: number | undefined): void {
  if (id !== undefined && !(Number.isSafeInteger(id) && id >= 0)) throw new TypeError(`invalid ack id ${String(id)}`);
}

function nsPrefix(ns: string): string {
  return ns === '/' ? '' : ns + ',';
}

function isBinaryValue(v: unknown): v is Uint8Array | ArrayBuffer | ArrayBufferView {
  return v instanceof ArrayBuffer || ArrayBuffer.isView(v);
}

function hasBinary(v: unknown, depth = 0): boolean {
  if (depth > 1000 || typeof v !== 'object' || v === null) return false;
  if (isBinaryValue(v)) return true;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const child of Array.isArray(v) ? v : Object.values(v)) if (hasBinary(child, depth + 1)) return true;
  return false;
}

function stringifyArgs(list: unknown[]): string {
  const s = JSON.stringify(list);
  if (typeof s !== 'string') throw new TypeError('arguments are not JSON serialisable');
  return s;
}

/**
 * The Engine.IO WebSocket text frame of a Socket.IO EVENT, e.g.
 * `42/oui,17["action:request",{...}]`. Args must be JSON (undefined becomes
 * null); use encodeSocketIOFrames for binary args. Throws TypeError on
 * invalid input.
 */
export function encodeSocketIOEvent(spec: SocketIOEventSpec): string {
  const ns = checkNamespace(spec.namespace);
  checkAckId(spec.ackId);
  if (typeof spec.name !== 'string' || spec.name.length === 0) throw new TypeError('event name must be a non-empty string');
  const args = spec.args ?? [];
  if (hasBinary(args)) throw new TypeError('binary arguments: use encodeSocketIOFrames');
  return '42' + nsPrefix(ns) + (spec.ackId ?? '') + stringifyArgs([spec.name, ...args]);
}

/** The Engine.IO WebSocket text frame of a Socket.IO ACK, e.g. `43/oui,17[{...}]`. */
export function encodeSocketIOAck(spec: SocketIOAckSpec): string {
  const ns = checkNamespace(spec.namespace);
  if (spec.ackId === undefined) throw new TypeError('ack id required');
  checkAckId(spec.ackId);
  const args = spec.args ?? [];
  if (hasBinary(args)) throw new TypeError('binary arguments: use encodeSocketIOFrames');
  return '43' + nsPrefix(ns) + spec.ackId + stringifyArgs(args);
}

/**
 * The WebSocket frames of an EVENT or ACK whose args may hold binary
 * (Uint8Array, ArrayBuffer, other views): a text frame (`45<n>-...` /
 * `46<n>-...` when binary, else as encodeSocketIOEvent / encodeSocketIOAck)
 * followed by one binary frame per attachment. For polling, wrap them with
 * encodePollingPayload.
 */
export function encodeSocketIOFrames(
  spec: ({ kind: 'event' } & SocketIOEventSpec) | ({ kind: 'ack' } & SocketIOAckSpec),
): Array<string | Uint8Array> {
  const args = spec.args ?? [];
  if (!hasBinary(args)) return [spec.kind === 'event' ? encodeSocketIOEvent(spec) : encodeSocketIOAck(spec)];
  const ns = checkNamespace(spec.namespace);
  checkAckId(spec.ackId);
  const buffers: Uint8Array[] = [];
  const deconstruct = (v: unknown, depth: number): unknown => {
    if (depth > 1000) throw new TypeError('arguments nest too deeply');
    if (isBinaryValue(v)) {
      buffers.push(toBytes(v));
      return { _placeholder: true, num: buffers.length - 1 };
    }
    if (typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON === 'function') return v;
    if (Array.isArray(v)) return v.map((x) => deconstruct(x, depth + 1));
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setMember(o, k, deconstruct(x, depth + 1));
    return o;
  };
  const list = deconstruct(args, 0) as unknown[];
  let head: string;
  if (spec.kind === 'event') {
    if (typeof spec.name !== 'string' || spec.name.length === 0) throw new TypeError('event name must be a non-empty string');
    head = '45' + buffers.length + '-' + nsPrefix(ns) + (spec.ackId ?? '') + stringifyArgs([spec.name, ...list]);
  } else {
    if (spec.ackId === undefined) throw new TypeError('ack id required');
    head = '46' + buffers.length + '-' + nsPrefix(ns) + spec.ackId + stringifyArgs(list);
  }
  return [head, ...buffers];
}

// ---------------------------------------------------------------------------
// OUI view

/** The OUI reading of a Socket.IO packet: an event (type + payload) or an ack; null for anything else. */
export function readOUIFromSocketIO(packet: SocketIOPacket): OUISocketIOMessage | null {
  if (!packet || typeof packet !== 'object') return null;
  if (packet.type === 'event' && typeof packet.name === 'string') {
    const args = Array.isArray(packet.args) ? packet.args : [];
    const m: OUISocketIOMessage = {
      kind: 'event',
      type: packet.name,
      payload: args[0],
      namespace: packet.namespace,
      extraArgs: Math.max(0, args.length - 1),
    };
    if (packet.ackId !== undefined) m.ackId = packet.ackId;
    return m;
  }
  if (packet.type === 'ack' && typeof packet.ackId === 'number') {
    return { kind: 'ack', ackId: packet.ackId, args: Array.isArray(packet.args) ? packet.args : [], namespace: packet.namespace };
  }
  return null;
}
