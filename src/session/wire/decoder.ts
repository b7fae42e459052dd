/**
 * Turns captured items (raw frames from the page hook) into wire events:
 * decodes plain-JSON WebSocket frames, Engine.IO / Socket.IO over WebSocket and
 * long-polling, postMessage pairings and direct-hook calls, attributes each to
 * its logical client and pairs acknowledgments with what they acknowledge.
 * A new client that reconnects for an earlier one (same hook and frame, same
 * Socket.IO endpoint and namespace, WebSocket URL or direct-hook label, and
 * the earlier transport seen lost first) names it in `replaces` (§7.6.1).
 *
 * Pure and incremental: feed items in capture order per client; the panel, the
 * tests and an import all use the same path.
 */
import type { CapturedClient, CapturedItem, CapturedPayload, InjectTarget } from '../../capture/captured-items.ts';
import {
  SocketIODecoder,
  base64ToBytes,
  decodeEnginePacket,
  decodePollingPayload,
  parseEngineHandshake,
  parseEngineUrl,
  readOUIFromSocketIO,
  type EnginePacket,
} from '../../protocol/index.ts';
import { isProtocolEventType, sentToClient } from '../../protocol/oui-types.ts';
import { PORT_KEY_PREFIX } from '../../capture/message-port.ts';
import { DIRECT_METHOD, eventId, isOuiType } from '../../capture/contract.ts';
import type { WireClient, WireEvent } from './wire.ts';
import { PortEchoes } from './port-echoes.ts';
import { cappedNote, omittedOf } from './capped.ts';

/** Longest raw text kept on a wire event for the raw view. */
const RAW_CAP = 64 * 1024;
/** Events still waiting for their acknowledgment; the oldest are forgotten past this (their acks then show as unpaired). */
const MAX_AWAITING_ACK = 10_000;
/** Connection identities remembered for linking a reconnection to what it replaces; the least recently used are forgotten past this. */
const MAX_LINEAGES = 256;
/** Clients remembered per identity: the most recent ones. */
const MAX_PER_LINEAGE = 8;


/** Direction of an event type from the client's point of view; undefined for extensions. */
function directionOf(type: string): 'in' | 'out' | undefined {
  if (sentToClient(type)) return 'in';
  if (isProtocolEventType(type)) return 'out';
  return undefined;
}

interface EngineSession {
  sid: string;
  endpoint: string;
  /** The endpoint URL without scheme and without its `sid`, `transport` and `t` parameters: the same for every session a Socket.IO manager opens. */
  app: string;
  decoders: { in: SocketIODecoder; out: SocketIODecoder };
  /** Namespaces seen on this session: transport happenings concern each of them. */
  namespaces: Set<string>;
  /** The WebSocket that carries the session, once the upgrade (or a WebSocket-only handshake) shows it does: where injection goes. */
  ws?: InjectTarget;
}

interface RawState {
  info: CapturedClient;
  /** The hook instance (frame document) that captured it. */
  hook: string;
  frameId: number;
  /** WebSocket: the Engine.IO session, once known. */
  engine?: EngineSession;
  /** postMessage: the frame path of the OUI client side, once a typed message shows it. */
  clientFrame?: string;
  /** WebSocket Engine.IO without a sid in its URL: lifecycle items seen before the handshake named the session. */
  early?: CapturedItem[];
  /** `parseEngineUrl(info.url)`, read once per URL rather than per frame. */
  engineUrl?: { of: string; parsed: ReturnType<typeof parseEngineUrl> };
  /** The key of the client `fallbackClient` made, once it made it (it never changes for one raw client). */
  fallbackKey?: string;
  /** MessagePort: its frames are in its client's label. */
  portPlaced?: boolean;
}

/** Captured items come from a page: a payload is read only when it is an object of a known shape. */
function isPayload(p: unknown): p is CapturedPayload {
  return typeof p === 'object' && p !== null;
}

function payloadText(p: CapturedPayload | undefined): string | null {
  if (!isPayload(p)) return null;
  if ('text' in p && typeof p.text === 'string') return p.text;
  return null;
}

function payloadBytes(p: CapturedPayload | undefined): Uint8Array | null {
  if (!isPayload(p)) return null;
  if ('base64' in p) return base64ToBytes(p.base64);
  if ('bytes' in p) return p.bytes;
  return null;
}

function payloadSize(item: CapturedItem): number {
  if (typeof item.size === 'number') return item.size;
  const p = item.payload;
  if (!isPayload(p)) return 0;
  if ('text' in p) return p.text.length;
  if ('base64' in p) return Math.floor((p.base64.length * 3) / 4);
  if ('bytes' in p) return p.bytes.byteLength;
  return 0;
}

function cap(text: string): string {
  return text.length > RAW_CAP ? `${text.slice(0, RAW_CAP)}… [${text.length - RAW_CAP} more]` : text;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** `//host:port/path/`: the same for the polling (http) and WebSocket (ws) URLs of one endpoint. */
function endpointOf(url: string): string {
  const noQuery = url.split('?')[0]!;
  return noQuery.replace(/^[a-z]+:/i, '');
}

/** Query parameters Engine.IO sets per session, transport or request: not part of which app's connection it is. */
const SESSION_PARAMS = new Set(['sid', 'transport', 't']);

/** `//host:port/path/?EIO=4&…`: the endpoint with the app's own query (auth, EIO), the same for every session of one manager. */
function appEndpointOf(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return endpointOf(url);
  const kept = url
    .slice(q + 1)
    .split('#')[0]!
    .split('&')
    .filter((part) => {
      const name = part.split('=')[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // Kept as written.
      }
      return part !== '' && !SESSION_PARAMS.has(decoded);
    });
  return `${endpointOf(url)}${kept.length ? `?${kept.join('&')}` : ''}`;
}

/** The body an Engine.IO server answers a polling request with once it no longer knows the session (`{"code":1,"message":"Session ID unknown"}`). */
function isEngineErrorAnswer(text: string): boolean {
  return /^\s*\{\s*"code"\s*:\s*\d+\s*,\s*"message"\s*:/.test(text);
}

/**
 * A logical client among the connections of one identity (see `link`): the
 * most recent are kept, each with when its transport was seen lost.
 */
interface Generation {
  key: string;
  /** When a loss of its transport was seen (WebSocket close, Engine.IO close, Socket.IO disconnect, detach); absent while alive. */
  lostAt?: number;
  /** A later client already reconnects for it. */
  replaced?: boolean;
}

/** Which app connection a new client is, and when its first item was captured. */
interface Link {
  identity: string;
  t: number;
}

export class WireDecoder {
  private raw = new Map<string, RawState>();
  private sessions = new Map<string, EngineSession>();
  private clients = new Map<string, WireClient>();
  /** Events that asked for an acknowledgment, by `${client}|${dir}|${ackId}`. */
  private awaitingAck = new Map<string, string>();
  private onClient: (c: WireClient) => void;

  constructor(onClient: (c: WireClient) => void = () => {}) {
    this.onClient = onClient;
  }

  /** Every logical client seen so far. */
  allClients(): WireClient[] {
    return [...this.clients.values()];
  }

  addClient(info: CapturedClient, hook: string, frameId: number): void {
    const rawKey = `${hook}/${info.id}`;
    if (!this.raw.has(rawKey)) this.raw.set(rawKey, { info, hook, frameId });
  }

  push(item: CapturedItem): WireEvent[] {
    const state = this.stateOf(item.hook, item.client);
    if (!state) return [];
    try {
      switch (state.info.kind) {
        case 'websocket':
          return this.websocket(state, item);
        case 'polling':
          return this.polling(state, item);
        case 'postmessage':
          return state.info.port ? this.messagePort(state, item) : this.postMessage(state, item);
        case 'direct':
          return this.direct(state, item);
      }
    } catch (e) {
      return [this.base(item, this.fallbackClient(state), 'malformed', { note: `decoder: ${String(e)}` })];
    }
    return [];
  }

  /** The last raw client looked up: consecutive items nearly always come from the same one. */
  private lastRaw?: { hook: string; client: string; state: RawState };

  private stateOf(hook: string, client: string): RawState | undefined {
    const last = this.lastRaw;
    if (last && last.hook === hook && last.client === client) return last.state;
    const state = this.raw.get(`${hook}/${client}`);
    // Raw clients are added once and never replaced, so a found one can be remembered.
    if (state && typeof hook === 'string' && typeof client === 'string') this.lastRaw = { hook, client, state };
    return state;
  }

  // -- clients --------------------------------------------------------------

  private client(key: string, make: () => Omit<WireClient, 'key'>, link?: Link): string {
    if (!this.clients.has(key)) {
      const c: WireClient = { key, ...make() };
      const replaces = link ? this.link(key, link) : undefined;
      if (replaces !== undefined) c.replaces = replaces;
      this.clients.set(key, c);
      this.onClient(c);
    }
    return key;
  }

  // -- reconnections (§7.6.1) ---------------------------------------------------

  /**
   * Connections by identity: hook instance (frame document), frame, transport
   * family and what the app connected to. Bounded: the least recently used
   * identities, and all but the most recent clients of each, are forgotten.
   */
  private lineages = new Map<string, Generation[]>();
  /** The generation of each client key that is still among `lineages`. */
  private generations = new Map<string, Generation>();

  /**
   * A new client `key` of identity `link.identity`: remembered, and the key of
   * the client it reconnects for returned — the most recent earlier client of
   * the same identity whose transport was seen lost at or before `link.t` and
   * that no other client reconnects for yet. A client still alive is never
   * replaced: a page may hold two connections to one URL at once.
   */
  private link(key: string, link: Link): string | undefined {
    const list = this.lineages.get(link.identity) ?? [];
    let replaced: Generation | undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const g = list[i]!;
      if (!g.replaced && g.lostAt !== undefined && g.lostAt <= link.t && g.key !== key) {
        replaced = g;
        break;
      }
    }
    // Most recently used last: the first identity is the one to forget.
    this.lineages.delete(link.identity);
    this.lineages.set(link.identity, list);
    const gen: Generation = { key };
    list.push(gen);
    this.generations.set(key, gen);
    if (list.length > MAX_PER_LINEAGE) this.generations.delete(list.shift()!.key);
    if (this.lineages.size > MAX_LINEAGES) {
      const [oldest, gens] = this.lineages.entries().next().value as [string, Generation[]];
      this.lineages.delete(oldest);
      for (const g of gens) this.generations.delete(g.key);
    }
    if (!replaced) return undefined;
    replaced.replaced = true;
    return replaced.key;
  }

  /** Client `key`'s transport was seen lost at `t`. */
  private lost(key: string, t: number): void {
    const g = this.generations.get(key);
    if (g && g.lostAt === undefined) g.lostAt = typeof t === 'number' ? t : -Infinity;
  }

  /** Client `key` is connected again on the same transport (a Socket.IO namespace joined again on a live session: same key). */
  private revived(key: string): void {
    const g = this.generations.get(key);
    if (g) delete g.lostAt;
  }

  /** Every namespace of an Engine.IO session lost its transport. */
  private sessionLost(session: EngineSession, t: number): void {
    for (const ns of namespacesOf(session)) this.lost(socketKey(session, ns), t);
  }

  private target(key: string, target: InjectTarget): void {
    const c = this.clients.get(key);
    if (c) c.inject = target;
  }

  /** `target` for a WebSocket or direct client, per frame: nothing is made when the client already points there. */
  private targetHook(key: string, via: 'websocket' | 'direct', frameId: number, hook: string, client: string): void {
    const c = this.clients.get(key);
    if (!c) return;
    const t = c.inject;
    if (t && t.via === via && t.frameId === frameId && t.hook === hook && t.client === client) return;
    c.inject = { via, frameId, hook, client };
  }

  /**
   * The client of a raw client the decoder has no better idea of (a plain
   * WebSocket, or one that failed to decode). `linkAt`: the time of its first
   * item, to link a plain WebSocket to the earlier one to the same URL it
   * reconnects for.
   */
  private fallbackClient(state: RawState, linkAt?: number): string {
    if (state.fallbackKey !== undefined) return state.fallbackKey;
    const { info } = state;
    let key = `${info.kind}:${info.id}@${state.frameId}:${info.url}`;
    // Another hook instance's client (the page before a reload numbered its clients the same way): a client of its own.
    if (this.clients.has(key)) key = `${info.kind}:${state.hook}/${info.id}@${state.frameId}:${info.url}`;
    const link = linkAt === undefined ? undefined : { identity: JSON.stringify([info.kind, state.hook, state.frameId, info.url]), t: linkAt };
    return (state.fallbackKey = this.client(
      key,
      () => ({
        kind: info.kind,
        label: info.url,
        origin: info.origin,
        frameUrl: info.frameUrl,
        frameId: state.frameId,
        ...(info.served ? { served: true as const } : {}),
      }),
      link,
    ));
  }

  /** `linkAt`: the time of the item that names the client, to link it to the namespace of an earlier, lost session of the same app. */
  private socketClient(state: RawState, session: EngineSession, namespace: string, linkAt?: number): string {
    const link = linkAt === undefined ? undefined : { identity: JSON.stringify(['socket.io', state.hook, state.frameId, session.app, namespace]), t: linkAt };
    return this.client(
      socketKey(session, namespace),
      () => ({
        kind: 'socket.io',
        label: `${session.endpoint} ${namespace}`,
        origin: state.info.origin,
        frameUrl: state.info.frameUrl,
        frameId: state.frameId,
        namespace,
        ...(session.ws ? { inject: session.ws } : {}),
        ...(state.info.served ? { served: true as const } : {}),
      }),
      link,
    );
  }

  /**
   * The session now rides this WebSocket: every namespace on it (those
   * connected over long-polling before the upgrade included) can be injected
   * into from here on, whether or not the client ever sends a message again.
   */
  private carry(state: RawState, session: EngineSession, item: CapturedItem): void {
    const ws: InjectTarget = { via: 'websocket', frameId: state.frameId, hook: item.hook, client: item.client };
    session.ws = ws;
    for (const ns of session.namespaces) this.target(socketKey(session, ns), ws);
  }

  /** `part`: the place of this event among those decoded from `item` (0: the first), which its id says. */
  private base(item: CapturedItem, client: string, kind: WireEvent['kind'], extra: Partial<WireEvent> = {}, part = 0): WireEvent {
    const ev: WireEvent = {
      id: eventId(item.hook, item.client, item.seq, part),
      client,
      t: item.t,
      dir: item.dir ?? 'in',
      kind,
      size: payloadSize(item),
      ...extra,
    };
    if (item.injected) ev.injected = true;
    if (item.held) ev.held = true;
    // Page data: kept only as short strings.
    if (typeof item.faulted === 'string') {
      ev.faulted = item.faulted.slice(0, 200);
      if (typeof item.fault === 'string') ev.fault = item.fault.slice(0, 60);
    }
    return ev;
  }

  private lifecycle(item: CapturedItem, client: string): WireEvent[] {
    const { kind, ...fields } = lifecycleFields(item);
    return [this.base(item, client, kind, fields)];
  }

  /** An item the hook did not keep whole (over the cap, not JSON), as an event that says so with its size and head; undefined when it was kept. */
  private capped(item: CapturedItem, client: string, what: string): WireEvent | undefined {
    const note = cappedNote(what, item);
    if (note === undefined) return undefined;
    const head = omittedOf(item)?.head;
    return this.base(item, client, 'other', { note, ...(head ? { raw: head } : {}) });
  }

  /** An Engine.IO frame or body over the cap: shown on each namespace of its session when it has any, else on the raw connection. */
  private cappedInSession(state: RawState, session: EngineSession | undefined, item: CapturedItem, what: string): WireEvent[] {
    const note = cappedNote(what, item) ?? `${what} not captured`;
    const head = omittedOf(item)?.head;
    const fields = { kind: 'other' as const, note, ...(head ? { raw: head } : {}) };
    if (session?.namespaces.size) {
      const out = this.sessionEvent(state, session, item, fields);
      for (const ev of out) ev.via = state.info.kind === 'polling' ? 'polling' : 'websocket';
      return out;
    }
    const { kind, ...rest } = fields;
    return [this.base(item, this.fallbackClient(state), kind, rest)];
  }

  /** An OUI event or ack from a JSON value `{ type, payload }`. */
  private jsonEvent(item: CapturedItem, client: string, value: unknown, raw: string): WireEvent {
    const v = value as { type?: unknown; payload?: unknown } | null;
    if (v && typeof v === 'object' && isOuiType(v.type)) {
      return this.base(item, client, 'event', { type: v.type, payload: v.payload, raw: cap(raw) });
    }
    return this.base(item, client, 'other', { raw: cap(raw) });
  }

  // -- WebSocket --------------------------------------------------------------

  private websocket(state: RawState, item: CapturedItem): WireEvent[] {
    const of = state.info.url;
    if (state.engineUrl?.of !== of) state.engineUrl = { of, parsed: parseEngineUrl(of) };
    const url = state.engineUrl.parsed;
    if (url) return this.engineFrame(state, item, url.sid);
    const client = this.fallbackClient(state, item.t);
    this.targetHook(client, 'websocket', state.frameId, item.hook, item.client);
    if (item.kind === 'close') this.lost(client, item.t);
    if (item.kind !== 'frame') return this.lifecycle(item, client);
    const text = payloadText(item.payload);
    if (text === null) {
      const capped = this.capped(item, client, 'frame');
      return capped ? [capped] : [this.base(item, client, 'other', { note: 'binary frame' })];
    }
    const parsed = tryJson(text);
    if (!parsed.ok) {
      const looksOUI = /^\s*\{/.test(text) && /"type"\s*:/.test(text);
      return [this.base(item, client, looksOUI ? 'malformed' : 'other', { raw: cap(text), ...(looksOUI ? { note: 'invalid JSON' } : {}) })];
    }
    return [this.jsonEvent(item, client, parsed.value, text)];
  }

  /** A WebSocket frame of an Engine.IO session (`sid` from the URL, or from the handshake in the first frame). */
  private engineFrame(state: RawState, item: CapturedItem, urlSid: string | undefined): WireEvent[] {
    if (!state.engine && urlSid) state.engine = this.session(state.info.url, urlSid);
    if (item.kind !== 'frame') {
      const session = state.engine;
      // The WebSocket that carries the session closed: the session is gone (a probe that never carried it is not).
      if (item.kind === 'close' && session?.ws?.via === 'websocket' && session.ws.hook === item.hook && session.ws.client === item.client) this.sessionLost(session, item.t);
      // A WebSocket-only client opens before its handshake names the session and its first packet the namespace: hold the open until then.
      if (item.kind === 'open' && !session?.namespaces.size) {
        (state.early ??= []).push(item);
        return [];
      }
      if (session) return this.sessionEvent(state, session, item, lifecycleFields(item, 'websocket'));
      return [...(state.early?.splice(0) ?? []), item].flatMap((it) => this.lifecycle(it, this.fallbackClient(state)));
    }
    const text = payloadText(item.payload);
    const bytes = text === null ? payloadBytes(item.payload) : null;
    if (text === null && !bytes) return this.cappedInSession(state, state.engine, item, 'frame');
    const packet = decodeEnginePacket(text ?? bytes!);
    if (!state.engine) {
      const sid = parseEngineHandshake(packet)?.sid;
      if (sid) state.engine = this.session(state.info.url, sid);
    }
    const session = state.engine;
    if (!session) return [];
    const out = this.enginePackets(state, session, item, [packet], text ?? '');
    if (state.early?.length && session.namespaces.size) {
      const early = state.early.splice(0).flatMap((it) => this.sessionEvent(state, session, it, lifecycleFields(it, 'websocket')));
      return [...early, ...out];
    }
    return out;
  }

  private session(url: string, sid: string): EngineSession {
    const endpoint = endpointOf(url);
    const key = `${endpoint}#${sid}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = { sid, endpoint, app: appEndpointOf(url), decoders: { in: new SocketIODecoder(), out: new SocketIODecoder() }, namespaces: new Set() };
      this.sessions.set(key, s);
    }
    return s;
  }

  private enginePackets(state: RawState, session: EngineSession, item: CapturedItem, packets: EnginePacket[], raw: string): WireEvent[] {
    const out = this.enginePacketsOf(state, session, item, packets, raw);
    const via = state.info.kind === 'polling' ? 'polling' : 'websocket';
    for (const ev of out) ev.via = via;
    return out;
  }

  private enginePacketsOf(state: RawState, session: EngineSession, item: CapturedItem, packets: EnginePacket[], raw: string): WireEvent[] {
    const dir = item.dir ?? 'in';
    const out: WireEvent[] = [];
    for (const packet of packets) {
      if (state.info.kind === 'websocket' && carriesSession(packet)) this.carry(state, session, item);
      if (packet.type === 'error') {
        out.push(...this.sessionEvent(state, session, item, { kind: 'malformed', note: packet.reason ?? 'bad Engine.IO packet', raw: cap(raw) }, out.length));
        continue;
      }
      if (packet.type === 'close') {
        out.push(...this.sessionEvent(state, session, item, { kind: 'lifecycle', type: 'close', note: 'Engine.IO close packet' }, out.length));
        this.sessionLost(session, item.t);
        continue;
      }
      if (packet.type !== 'message') continue;
      for (const sp of session.decoders[dir].push(packet)) {
        session.namespaces.add(sp.namespace || '/');
        const client = this.socketClient(state, session, sp.namespace || '/', item.t);
        if (sp.type === 'error') {
          out.push(this.base(item, client, 'malformed', { note: sp.reason ?? 'bad Socket.IO packet', raw: cap(sp.raw ?? raw) }, out.length));
          continue;
        }
        if (sp.type === 'connect' || sp.type === 'disconnect' || sp.type === 'connect_error') {
          if (sp.type === 'disconnect') this.lost(client, item.t);
          else if (sp.type === 'connect') this.revived(client);
          out.push(this.base(item, client, 'lifecycle', { type: `socket.io ${sp.type}`, payload: sp.data }, out.length));
          continue;
        }
        const m = readOUIFromSocketIO(sp);
        if (!m) continue;
        const rawText = typeof packet.data === 'string' ? packet.data : raw;
        if (m.kind === 'event') {
          const kind = isOuiType(m.type) ? 'event' : 'other';
          const ev = this.base(item, client, kind, { type: m.type, payload: m.payload, raw: cap(rawText) }, out.length);
          // The id first: the second packet of one polling body is `<item>.1`, and that is what its acknowledgment names.
          if (m.ackId !== undefined) {
            ev.wantsAck = true;
            this.awaitingAck.set(`${client}|${dir}|${m.ackId}`, ev.id);
            if (this.awaitingAck.size > MAX_AWAITING_ACK) this.awaitingAck.delete(this.awaitingAck.keys().next().value as string);
          }
          out.push(ev);
        } else {
          const other = dir === 'in' ? 'out' : 'in';
          const key = `${client}|${other}|${m.ackId}`;
          const ackOf = this.awaitingAck.get(key);
          this.awaitingAck.delete(key);
          out.push(this.base(item, client, 'ack', { payload: m.args[0], raw: cap(rawText), ...(ackOf ? { ackOf } : { note: `ack ${m.ackId} for nothing seen` }) }, out.length));
        }
      }
    }
    return out;
  }

  /** A transport-level happening of an Engine.IO session: one event per namespace on it (each is its own OUI client). */
  private sessionEvent(state: RawState, session: EngineSession, item: CapturedItem, fields: Partial<WireEvent> & { kind: WireEvent['kind'] }, offset = 0): WireEvent[] {
    const namespaces = namespacesOf(session);
    return namespaces.map((ns, i) => {
      const { kind, ...rest } = fields;
      return this.base(item, this.socketClient(state, session, ns), kind, rest, i + offset);
    });
  }

  // -- long-polling -----------------------------------------------------------

  private polling(state: RawState, item: CapturedItem): WireEvent[] {
    if (item.kind !== 'frame' || !item.url) return [];
    if (omittedOf(item)) {
      // A body over the cap: its packets cannot be read, but it is shown, on the session its URL names.
      const sid = parseEngineUrl(item.url)?.sid;
      return this.cappedInSession(state, sid ? this.session(item.url, sid) : undefined, item, item.dir === 'out' ? 'request body' : 'response body');
    }
    const text = payloadText(item.payload) ?? '';
    // The server's answer to a POST of packets is a bare "ok", not a payload.
    if (item.dir === 'in' && text === 'ok') return [];
    const packets = decodePollingPayload(text);
    let sid = parseEngineUrl(item.url)?.sid;
    if (!sid) {
      for (const p of packets) {
        const hs = parseEngineHandshake(p);
        if (hs) sid = hs.sid;
      }
    }
    if (!sid) return [];
    const session = this.session(item.url, sid);
    const out = this.enginePackets(state, session, item, packets, text);
    // The server no longer knows the session (it timed out or was closed): its polling ended.
    if (item.dir === 'in' && packets.length === 1 && packets[0]!.type === 'error' && isEngineErrorAnswer(text)) this.sessionLost(session, item.t);
    return out;
  }

  // -- postMessage ------------------------------------------------------------

  private postMessage(state: RawState, item: CapturedItem): WireEvent[] {
    const key = `${state.info.key ?? state.info.id}`;
    const client = this.client(key, () => ({
      kind: 'postmessage',
      label: `postMessage ${key.replace(/^postmessage:/, '')}`,
      origin: state.info.origin,
      frameUrl: state.info.frameUrl,
      frameId: state.frameId,
    }));
    const text = payloadText(item.payload);
    if (text === null) {
      if (item.to !== undefined) this.frameAt(item.to, state.frameId);
      return [this.capped(item, client, 'message') ?? this.base(item, client, 'other', { note: 'message not captured' })];
    }
    const parsed = tryJson(text);
    if (!parsed.ok) return [this.base(item, client, 'malformed', { note: 'invalid JSON' })];
    const type = (parsed.value as { type?: unknown } | null)?.type;
    const typed = typeof type === 'string' ? directionOf(type) : undefined;
    // Which end is the OUI client is learned from the first message whose type says it.
    const shared = this.pairing.get(key);
    if (typed && !shared) this.pairing.set(key, typed === 'out' ? (item.from ?? '') : (item.to ?? ''));
    // A hook records what its own window receives: `to` is the path of the frame that captured it.
    if (item.to !== undefined) this.frameAt(item.to, state.frameId);
    const clientFrame = this.pairing.get(key);
    if (clientFrame !== undefined && item.from !== undefined && item.to !== undefined) {
      const peerPath = item.from === clientFrame ? item.to : item.from;
      this.pairings.set(client, { clientPath: clientFrame, peerPath });
      this.postMessageTarget(client);
    }
    const ev = this.jsonEvent(item, client, parsed.value, text);
    ev.dir = clientFrame === undefined ? (typed ?? 'in') : item.from === clientFrame ? 'out' : 'in';
    return [ev];
  }

  private pairing = new Map<string, string>();
  /** postMessage clients by key, with the paths of their two frames. */
  private pairings = new Map<string, { clientPath: string; peerPath: string }>();
  /** The frameId the browser gave the hook of each frame path of this tab. */
  private framesByPath = new Map<string, number>();

  /**
   * A frame's hook says where it is (its `state` message), or captured
   * something there: the frameIds an injection into a postMessage pairing is
   * sent to, so that no other frame receives it.
   */
  frameAt(path: string, frameId: number): void {
    if (typeof path !== 'string' || !Number.isInteger(frameId) || this.framesByPath.get(path) === frameId) return;
    this.framesByPath.set(path, frameId);
    for (const [client, p] of this.pairings) if (p.clientPath === path || p.peerPath === path) this.postMessageTarget(client);
  }

  private postMessageTarget(client: string): void {
    const p = this.pairings.get(client);
    if (!p) return;
    const frameId = this.framesByPath.get(p.clientPath);
    const peerFrameId = this.framesByPath.get(p.peerPath);
    this.target(client, {
      via: 'postmessage',
      clientPath: p.clientPath,
      peerPath: p.peerPath,
      ...(frameId !== undefined ? { frameId } : {}),
      ...(peerFrameId !== undefined ? { peerFrameId } : {}),
    });
  }

  // -- MessagePort ------------------------------------------------------------

  private portEchoes = new PortEchoes();
  /** The frames each MessagePort conversation was seen in, for its label. */
  private portFrames = new Map<string, string[]>();

  /**
   * A conversation over MessagePorts: one client per key, which both ends'
   * hooks compute alike; each message shown once, though both ends may have
   * recorded it. Its direction is the hook's, read from the conversation's
   * first message from the client. No injection: a request cannot be put on
   * a port as its runtime's (whyNotInjectable says so).
   */
  private messagePort(state: RawState, item: CapturedItem): WireEvent[] {
    const own = state.info.key;
    const key = typeof own === 'string' && own.startsWith(PORT_KEY_PREFIX) ? own : `${PORT_KEY_PREFIX}${item.hook}/${item.client}`;
    const client = this.client(key, () => ({
      kind: 'postmessage',
      label: 'MessagePort',
      origin: state.info.origin,
      frameUrl: state.info.frameUrl,
      frameId: state.frameId,
      port: true,
    }));
    if (!state.portPlaced) {
      state.portPlaced = true;
      this.portPlace(key, state.info.port);
    }
    if (item.kind !== 'frame') return this.lifecycle(item, client);
    const text = payloadText(item.payload);
    if (text === null) return [this.base(item, client, 'other', { note: 'message not captured (not JSON or over the cap)' })];
    const dir = item.dir === 'out' ? 'out' : 'in';
    if (this.portEchoes.isEcho(key, dir, item.method === 'postMessage' ? 'postMessage' : 'message', text)) return [];
    const parsed = tryJson(text);
    if (!parsed.ok) return [this.base(item, client, 'malformed', { note: 'invalid JSON' })];
    return [this.jsonEvent(item, client, parsed.value, text)];
  }

  /** `MessagePort top ↔ top/0`: the frames where its ends were seen (a received port's sender's too). */
  private portPlace(key: string, place: unknown): void {
    const p = place as { at?: unknown; from?: unknown } | null;
    if (!p || typeof p !== 'object') return;
    const frames = this.portFrames.get(key) ?? [];
    let changed = false;
    for (const f of [p.at, p.from]) {
      if (typeof f !== 'string' || !/^top(\/-?\d+){0,64}$/.test(f) || frames.includes(f)) continue;
      frames.push(f);
      changed = true;
    }
    if (!changed) return;
    frames.sort();
    this.portFrames.set(key, frames);
    const c = this.clients.get(key);
    if (c) c.label = `MessagePort ${frames.join(' ↔ ')}`;
  }

  // -- direct hook ------------------------------------------------------------

  private direct(state: RawState, item: CapturedItem): WireEvent[] {
    const client = this.client(
      `direct:${item.hook}/${item.client}`,
      () => ({
        kind: 'direct',
        label: state.info.url,
        origin: state.info.origin,
        frameUrl: state.info.frameUrl,
        frameId: state.frameId,
      }),
      // A re-attach under the same label replaces the transport the app detached (the hook records a detach as `close`), never one still attached.
      { identity: JSON.stringify(['direct', state.hook, state.frameId, state.info.url]), t: item.t },
    );
    this.targetHook(client, 'direct', state.frameId, item.hook, item.client);
    if (item.kind === 'close') this.lost(client, item.t);
    if (item.kind !== 'frame') return this.lifecycle(item, client);
    const text = payloadText(item.payload);
    // A call whose value was over the cap, or not JSON: said as such, never as an event with no payload.
    const capped = text === null ? this.capped(item, client, `${directCallName(item.method)}()`) : undefined;
    if (capped) return [capped];
    const parsed = text === null ? null : tryJson(text);
    const value = parsed?.ok ? parsed.value : undefined;
    const raw = text === null ? undefined : cap(text);
    const method = item.method ?? '';
    switch (method) {
      case DIRECT_METHOD.request:
        return [this.base(item, client, 'event', { type: 'action:request', payload: value, raw, wantsAck: true })];
      case DIRECT_METHOD.result:
        return [this.base(item, client, 'event', { type: 'action:result', payload: value, raw, wantsAck: true })];
      case DIRECT_METHOD.receipt:
      case DIRECT_METHOD.resultAck:
        return [this.base(item, client, 'ack', { payload: value, raw, ...(item.re ? { ackOf: eventId(item.hook, item.client, item.re) } : {}) })];
    }
    const typed = directType(method, value, item.t);
    if (typed) return [this.base(item, client, 'event', { type: typed.type, payload: typed.payload, raw })];
    return [this.base(item, client, 'other', { type: method, payload: value, raw, note: `call ${method}()` })];
  }
}

/** The key of a Socket.IO client: one per namespace of one Engine.IO session. */
function socketKey(session: EngineSession, namespace: string): string {
  return `socket.io:${session.endpoint}#${session.sid}${namespace}`;
}

/**
 * Whether an Engine.IO packet seen on a WebSocket shows that this socket now
 * carries the session: its handshake (a WebSocket-only connection), the
 * client's upgrade packet, a heartbeat or a message. The probe (`2probe` /
 * `3probe`) does not: until the upgrade, the client still polls and treats
 * anything but the probe's answer on the new socket as a failed upgrade.
 */
function carriesSession(packet: EnginePacket): boolean {
  switch (packet.type) {
    case 'open':
    case 'upgrade':
    case 'message':
    case 'noop':
      return true;
    case 'ping':
    case 'pong':
      return packet.data !== 'probe';
    default:
      return false;
  }
}

/** A connection happening (open, close, error) as wire-event fields; `via` for a Socket.IO session's WebSocket. */
function lifecycleFields(item: CapturedItem, via?: 'websocket'): Partial<WireEvent> & { kind: WireEvent['kind'] } {
  return { kind: 'lifecycle', type: item.kind, ...(via ? { via } : {}), ...(item.note ? { note: item.note } : {}) };
}

/** The app-facing name of what the direct hook recorded under `method`: its own entries by the transport call they come from. */
function directCallName(method: string | undefined): string {
  switch (method) {
    case DIRECT_METHOD.request:
      return 'onAction';
    case DIRECT_METHOD.result:
      return 'sendResult';
    case DIRECT_METHOD.receipt:
      return 'receipt';
    case DIRECT_METHOD.resultAck:
      return 'ack';
  }
  return method || 'call';
}

/** What a transport call other than the direct hook's own entries carries, read from its method name and argument. */
function directType(method: string, value: unknown, t: number): { type: string; payload: unknown } | null {
  const v = value as Record<string, unknown> | null;
  if (v && typeof v === 'object' && isOuiType(v.type) && 'payload' in v) return { type: v.type as string, payload: v.payload };
  const m = method.toLowerCase();
  if (m.includes('deregister') || m.includes('unregister')) {
    return { type: 'surface:deregister', payload: typeof value === 'string' ? { surfaceId: value, timestamp: Math.round(t) } : value };
  }
  if (m.includes('register')) {
    const isRegistration = v && typeof v === 'object' && 'surface' in v;
    return { type: 'surface:register', payload: isRegistration ? value : { surface: value, timestamp: Math.round(t) } };
  }
  if (v && typeof v === 'object' && 'observationId' in v) return { type: 'observation:update', payload: value };
  return null;
}

/** The namespaces a session-wide happening concerns: those seen on it, or the default one of a session seen only from its end (a late capture). */
function namespacesOf(session: EngineSession): string[] {
  return session.namespaces.size ? [...session.namespaces] : ['/'];
}
