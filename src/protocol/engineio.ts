/**
 * Engine.IO v4: the transport layer under Socket.IO. Decodes the raw frames
 * the page hook captured (WebSocket text or binary frames, HTTP long-polling
 * bodies) into Engine.IO packets and encodes them; reads handshakes and
 * Engine.IO URLs. Nothing throws while decoding: anything undecodable becomes
 * an `error` packet with a reason.
 *
 * Wire format (https://socket.io/docs/v4/engine-io-protocol/): one type digit
 * `0`..`6` (open close ping pong message upgrade noop) then data; a binary
 * WebSocket frame is a whole `message` packet; in long-polling, binary is
 * `b` + base64 and packets in one body are separated by `\x1e`.
 *
 * Pure: no DOM, no Node builtins, no extension APIs. Only `URL` is used.
 */

import { base64ToBytes, bytesToBase64 } from './base64.ts';
import { isRecord } from './json-object.ts';

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

export interface PollingOptions {
  /** Longest polling body accepted, in UTF-16 units (default 128 MiB). */
  maxBodyLength?: number;
  /** Most packets decoded from one body (default 100 000). */
  maxPackets?: number;
}


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

export function toBytes(data: Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
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
  if (!isRecord(v) || typeof v.sid !== 'string') return null;
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
