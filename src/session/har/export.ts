/**
 * A session as HAR 1.2, so a recording opens in the tools people already
 * have (Chrome DevTools' Network panel, HAR viewers) and `oui-devtools lint`
 * reads it back to the same findings. Same inputs as `exportSession`.
 *
 * - A plain WebSocket client is one entry (`_resourceType: "websocket"`, a
 *   101 response) whose frames are `_webSocketMessages`, as Chrome writes
 *   them: {type: send|receive, time: epoch seconds, opcode: 1, data}.
 * - A Socket.IO client is rebuilt as its Engine.IO session: one long-polling
 *   entry per captured body (POST for what the page sent, GET for what it
 *   received, the `sid` in the URL) and one WebSocket entry for the upgraded
 *   connection, each Socket.IO packet re-encoded from the decoded event
 *   (namespaces of one session share its entries). Engine.IO handshakes,
 *   pings and probes were never part of the session, so they are not either.
 * - Opens, closes and errors of a WebSocket have no place in HAR: they go in
 *   the entry's `_ouiLifecycle` (custom fields start with `_`, which HAR 1.2
 *   allows and other tools ignore), so the transport losses the model judges
 *   (§7.6.1) survive the round trip.
 * - postMessage pairings and direct-hook calls are not HTTP or WebSocket
 *   traffic: HAR has no record for them. Dropping them would drop their
 *   findings, so each such client becomes an entry with a placeholder
 *   request (`oui-devtools:` URL, `_resourceType: "other"`) carrying the
 *   client in `_ouiClient` and its decoded wire events in `_ouiMessages`,
 *   which the linter reads as a session file's events; `log.comment` says how
 *   many there are.
 * - Injected requests and held answers keep their marks as `_ouiInjected` /
 *   `_ouiHeld` on the message.
 * - Which client reconnects for which (`WireClient.replaces`, §7.6.1) is kept
 *   in `_ouiClient` for the clients that carries; WebSocket and Socket.IO
 *   clients are decoded again from their frames on reading, and the decoder
 *   links them again from what the frames show of each loss (the close in
 *   `_ouiLifecycle`, an Engine.IO close packet, a Socket.IO disconnect, a
 *   polling answer for an unknown session), as it does for Chrome's own HAR.
 *
 * Pure: no DOM, Node or extension API.
 */
import { stringifyJson } from '../../protocol/json-text.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';

/** JSON.stringify's text at any depth (json-text.ts): a payload nested 100,000 levels deep is written whole. */
const json = (v: unknown): string => String(stringifyJson(v));

export interface HarLog {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: never[];
    entries: HarEntry[];
    comment?: string;
  };
}

export type HarEntry = Record<string, unknown> & { startedDateTime: string; time: number };

export interface HarMessage {
  type: 'send' | 'receive';
  time: number;
  opcode: 1 | 2;
  data: string;
  _ouiInjected?: true;
  _ouiHeld?: true;
}

/** Longest raw text the decoder keeps (decoder.ts RAW_CAP): a longer frame's `raw` was cut and is rebuilt from its payload. */
const RAW_CAP = 64 * 1024;

const iso = (t: number) => new Date(Number.isFinite(t) ? t : 0).toISOString();

function request(method: 'GET' | 'POST', url: string, postText?: string): Record<string, unknown> {
  return {
    method,
    url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: [],
    queryString: [],
    ...(postText !== undefined ? { postData: { mimeType: 'text/plain;charset=UTF-8', text: postText } } : {}),
    headersSize: -1,
    bodySize: postText !== undefined ? postText.length : 0,
  };
}

function response(status: number, statusText: string, text?: string): Record<string, unknown> {
  return {
    status,
    statusText,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: [],
    content: { size: text?.length ?? 0, mimeType: text !== undefined ? 'text/plain; charset=UTF-8' : 'x-unknown', ...(text !== undefined ? { text } : {}) },
    redirectURL: '',
    headersSize: -1,
    bodySize: text?.length ?? 0,
  };
}

function entry(start: number, end: number, req: Record<string, unknown>, res: Record<string, unknown>, extra: Record<string, unknown>): HarEntry {
  const time = Math.max(0, end - start);
  return { startedDateTime: iso(start), time, request: req, response: res, cache: {}, timings: { send: 0, wait: time, receive: 0 }, ...extra };
}

/** The id of the captured item an event came from: several events of one frame share it (`id.1`, `id.2`). */
function frameOf(id: string): string {
  const m = /^(.*\/\d+)\.\d+$/.exec(id);
  return m ? m[1]! : id;
}

/** The text of a frame: as captured when whole, else rebuilt from the decoded event. */
function fullRaw(ev: WireEvent): string | undefined {
  if (typeof ev.raw !== 'string') return undefined;
  const cut = ev.raw.length > RAW_CAP && /… \[\d+ more\]$/.test(ev.raw);
  return cut ? undefined : ev.raw;
}

function wsMessage(ev: WireEvent, data: string): HarMessage {
  const m: HarMessage = { type: ev.dir === 'out' ? 'send' : 'receive', time: ev.t / 1000, opcode: 1, data };
  if (ev.injected) m._ouiInjected = true;
  if (ev.held) m._ouiHeld = true;
  return m;
}

interface Lifecycle {
  type: 'open' | 'close' | 'error';
  time: number;
  note?: string;
}

function lifecycleOf(ev: WireEvent): Lifecycle | null {
  if (ev.kind !== 'lifecycle' || (ev.type !== 'open' && ev.type !== 'close' && ev.type !== 'error')) return null;
  if (ev.note === 'Engine.IO close packet') return null;
  return { type: ev.type, time: ev.t / 1000, ...(ev.note ? { note: ev.note } : {}) };
}

/** A plain WebSocket client: frames as captured. */
function plainWebSocket(client: WireClient, events: WireEvent[]): HarEntry {
  const messages: HarMessage[] = [];
  const lifecycle: Lifecycle[] = [];
  for (const ev of events) {
    const l = lifecycleOf(ev);
    if (l) {
      lifecycle.push(l);
      continue;
    }
    let data = fullRaw(ev);
    if (data === undefined && ev.kind === 'event' && typeof ev.type === 'string') data = json({ type: ev.type, payload: ev.payload });
    // A binary frame or one over the capture cap: nothing of it was kept.
    if (data === undefined) continue;
    messages.push(wsMessage(ev, data));
  }
  const start = events[0]?.t ?? 0;
  const end = events.at(-1)?.t ?? start;
  return entry(start, end, request('GET', client.label), response(101, 'Switching Protocols'), {
    _resourceType: 'websocket',
    ...(lifecycle.length ? { _ouiLifecycle: lifecycle } : {}),
    _webSocketMessages: messages,
  });
}

function nsPrefix(ns: string | undefined): string {
  return !ns || ns === '/' ? '' : `${ns},`;
}

/** One Engine.IO packet of a Socket.IO session's event, or null for what no packet carried. */
function enginePacket(ev: WireEvent, client: WireClient): string | null {
  if (ev.kind === 'lifecycle') {
    const ns = nsPrefix(client.namespace);
    switch (ev.type) {
      case 'socket.io connect':
        return `40${ns}${ev.payload === undefined ? '' : json(ev.payload)}`;
      case 'socket.io disconnect':
        return `41${ns}`;
      case 'socket.io connect_error':
        return `44${ns}${ev.payload === undefined ? '' : json(ev.payload)}`;
      case 'close':
        return ev.note === 'Engine.IO close packet' ? '1' : null;
      default:
        return null;
    }
  }
  const raw = fullRaw(ev);
  if (raw !== undefined) {
    // An Engine.IO packet that did not decode keeps its whole text; a Socket.IO packet its text after the "4".
    return ev.kind === 'malformed' && !/^[0-6]/.test(raw) ? raw : `4${raw}`;
  }
  if (ev.kind === 'event' && typeof ev.type === 'string') return `42${nsPrefix(client.namespace)}${json([ev.type, ev.payload])}`;
  return null;
}

/** The Engine.IO session of a Socket.IO client, from its key `socket.io:${endpoint}#${sid}${namespace}` (decoder.ts). */
function sessionOf(client: WireClient): { endpoint: string; sid: string } | null {
  if (!client.key.startsWith('socket.io:')) return null;
  const key = client.key.slice('socket.io:'.length);
  const at = key.indexOf('#');
  const ns = client.namespace ?? '/';
  if (at < 0 || !key.endsWith(ns)) return null;
  return { endpoint: key.slice(0, at), sid: key.slice(at + 1, key.length - ns.length) };
}

function secure(client: WireClient): boolean {
  return /^https:/i.test(client.origin) || /^https:/i.test(client.frameUrl);
}

/** The Socket.IO clients of one Engine.IO session: polling entries and the upgraded WebSocket. */
function engineSession(endpoint: string, sid: string, members: Array<{ client: WireClient; events: WireEvent[] }>): HarEntry[] {
  const first = members[0]!.client;
  const tls = secure(first);
  const query = `?EIO=4&transport=`;
  const pollUrl = `${tls ? 'https' : 'http'}:${endpoint}${query}polling&sid=${encodeURIComponent(sid)}`;
  const wsUrl = `${tls ? 'wss' : 'ws'}:${endpoint}${query}websocket&sid=${encodeURIComponent(sid)}`;
  // Events of all namespaces, in time order, grouped by the frame (captured item) that carried them.
  const all = members.flatMap(({ client, events }) => events.map((ev) => ({ ev, client }))).sort((a, b) => a.ev.t - b.ev.t);
  const frames = new Map<string, { t: number; dir: 'in' | 'out'; via: 'polling' | 'websocket'; packets: string[]; ev: WireEvent }>();
  const lifecycle: Lifecycle[] = [];
  for (const { ev, client } of all) {
    const l = lifecycleOf(ev);
    if (l) {
      if (ev.via === 'websocket' && !lifecycle.some((x) => x.type === l.type && x.time === l.time)) lifecycle.push(l);
      continue;
    }
    const packet = enginePacket(ev, client);
    if (packet === null) continue;
    const key = frameOf(ev.id);
    const f = frames.get(key);
    if (f) {
      // A transport happening is one event per namespace: one packet on the wire.
      if (!(packet === '1' && f.packets.includes('1'))) f.packets.push(packet);
    } else frames.set(key, { t: ev.t, dir: ev.dir, via: ev.via === 'polling' ? 'polling' : 'websocket', packets: [packet], ev });
  }
  const out: HarEntry[] = [];
  const messages: HarMessage[] = [];
  let wsStart: number | undefined;
  let wsEnd = 0;
  for (const f of frames.values()) {
    if (f.via === 'polling') {
      const body = f.packets.join('\x1e');
      out.push(
        f.dir === 'out'
          ? entry(f.t, f.t, request('POST', pollUrl, body), response(200, 'OK', 'ok'), { _resourceType: 'xhr' })
          : entry(f.t, f.t, request('GET', pollUrl), response(200, 'OK', body), { _resourceType: 'xhr' }),
      );
    } else {
      wsStart ??= f.t;
      wsEnd = f.t;
      for (const p of f.packets) messages.push(wsMessage(f.ev, p));
    }
  }
  for (const l of lifecycle) {
    wsStart = Math.min(wsStart ?? l.time * 1000, l.time * 1000);
    wsEnd = Math.max(wsEnd, l.time * 1000);
  }
  if (wsStart !== undefined) {
    out.push(
      entry(wsStart, wsEnd, request('GET', wsUrl), response(101, 'Switching Protocols'), {
        _resourceType: 'websocket',
        ...(lifecycle.length ? { _ouiLifecycle: lifecycle } : {}),
        _webSocketMessages: messages,
      }),
    );
  }
  return out;
}

/** A client HAR has no record for: its wire events as they are. */
function ouiEntry(client: WireClient, events: WireEvent[]): HarEntry {
  const start = events[0]?.t ?? 0;
  const end = events.at(-1)?.t ?? start;
  const url = `oui-devtools:${client.kind}/${encodeURIComponent(client.key)}`;
  const { inject: _inject, ...plain } = client;
  return entry(start, end, request('GET', url), response(0, ''), {
    _resourceType: 'other',
    comment: `OUI ${client.kind} client ${client.label}: not HTTP traffic, kept for oui-devtools`,
    _ouiClient: plain,
    _ouiMessages: events,
  });
}

export function exportHar(clients: Iterable<WireClient>, events: Iterable<WireEvent>, opts: { version?: string } = {}): HarLog {
  const byClient = new Map<string, { client: WireClient; events: WireEvent[] }>();
  for (const c of clients) byClient.set(c.key, { client: c, events: [] });
  for (const ev of events) byClient.get(ev.client)?.events.push(ev);
  const entries: HarEntry[] = [];
  const sessions = new Map<string, Array<{ client: WireClient; events: WireEvent[] }>>();
  let custom = 0;
  for (const c of byClient.values()) {
    if (!c.events.length) continue;
    c.events.sort((a, b) => a.t - b.t);
    const s = c.client.kind === 'socket.io' ? sessionOf(c.client) : null;
    if (s) {
      const k = `${s.endpoint}#${s.sid}`;
      sessions.set(k, [...(sessions.get(k) ?? []), c]);
    } else if (c.client.kind === 'websocket') entries.push(plainWebSocket(c.client, c.events));
    else {
      // postMessage, direct hook, or a client whose transport cannot be rebuilt.
      entries.push(ouiEntry(c.client, c.events));
      custom++;
    }
  }
  for (const [k, members] of sessions) {
    const at = k.lastIndexOf('#');
    entries.push(...engineSession(k.slice(0, at), k.slice(at + 1), members));
  }
  entries.sort((a, b) => (a.startedDateTime < b.startedDateTime ? -1 : a.startedDateTime > b.startedDateTime ? 1 : 0));
  return {
    log: {
      version: '1.2',
      creator: { name: 'OUI DevTools', version: opts.version ?? '0' },
      pages: [],
      entries,
      ...(custom
        ? { comment: `${custom} OUI ${custom === 1 ? 'client' : 'clients'} (postMessage or direct hook) that HAR cannot represent are kept in entries with _ouiClient and _ouiMessages.` }
        : {}),
    },
  };
}

/** A HAR's text: what `JSON.stringify` writes, at any depth (the `_ouiMessages` of a postMessage or direct client hold decoded payloads); the session file's writer. */
export function harText(har: HarLog): string {
  return stringifyJson(har)!;
}
