/**
 * Socket.IO v5 codec for the panel, over Engine.IO (engineio.ts): decodes
 * Engine.IO messages into Socket.IO packets (reassembling binary
 * attachments), and encodes packets for injection.
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
import { bytesToBase64 } from './base64.ts';
import { type EnginePacket, type PollingOptions, decodeEnginePacket, decodePollingPayload, toBytes } from './engineio.ts';
import { setMember } from './json-object.ts';
import { stringifyJson } from './json-text.ts';

// ---------------------------------------------------------------------------
// Types

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
  // Any depth: a replayed request may carry params nested 100,000 levels deep.
  const s = stringifyJson(list);
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
