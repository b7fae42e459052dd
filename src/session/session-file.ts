/**
 * The session file: a recording a colleague or a test run can open offline in
 * the panel. Versioned JSON:
 *
 *   { "format": "oui-devtools-session", "version": 1, "exportedAt": ISO-8601,
 *     "clients": WireClient[], "events": WireEvent[] }
 *
 * Wire events are what the panel decoded from the page (see wire.ts); an
 * import replays them through the same session model as live traffic. A file
 * is untrusted input: only known fields of the right types are kept.
 */
import type { WireClient, WireEvent, WireKind } from './wire.ts';

export const SESSION_FORMAT = 'oui-devtools-session';
export const SESSION_VERSION = 1;
export const MAX_IMPORT_EVENTS = 200_000;

export interface SessionFile {
  format: typeof SESSION_FORMAT;
  version: typeof SESSION_VERSION;
  exportedAt: string;
  clients: WireClient[];
  events: WireEvent[];
}

export function exportSession(clients: Iterable<WireClient>, events: Iterable<WireEvent>, now = new Date()): SessionFile {
  return { format: SESSION_FORMAT, version: SESSION_VERSION, exportedAt: now.toISOString(), clients: [...clients], events: [...events] };
}

const KINDS = new Set<WireKind>(['event', 'ack', 'lifecycle', 'other', 'malformed']);
const CLIENT_KINDS = new Set(['websocket', 'polling', 'postmessage', 'direct', 'socket.io']);

const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function readClient(v: unknown): WireClient | null {
  const c = v as Record<string, unknown> | null;
  if (!c || typeof c !== 'object' || !str(c.key) || !str(c.kind) || !CLIENT_KINDS.has(c.kind)) return null;
  const out: WireClient = {
    key: c.key,
    kind: c.kind as WireClient['kind'],
    label: str(c.label) ? c.label : c.key,
    origin: str(c.origin) ? c.origin : '',
    frameUrl: str(c.frameUrl) ? c.frameUrl : '',
    frameId: num(c.frameId) ? c.frameId : 0,
  };
  if (str(c.namespace)) out.namespace = c.namespace;
  return out;
}

function readEvent(v: unknown, clients: Set<string>): WireEvent | null {
  const e = v as Record<string, unknown> | null;
  if (!e || typeof e !== 'object' || !str(e.id) || !str(e.client) || !clients.has(e.client) || !num(e.t)) return null;
  if ((e.dir !== 'in' && e.dir !== 'out') || !str(e.kind) || !KINDS.has(e.kind as WireKind)) return null;
  const out: WireEvent = { id: e.id, client: e.client, t: e.t, dir: e.dir, kind: e.kind as WireKind, size: num(e.size) ? e.size : 0 };
  if (str(e.type)) out.type = e.type;
  if ('payload' in e) out.payload = e.payload;
  if (str(e.ackOf)) out.ackOf = e.ackOf;
  if (e.wantsAck === true) out.wantsAck = true;
  if (str(e.raw)) out.raw = e.raw;
  if (str(e.note)) out.note = e.note;
  if (e.injected === true) out.injected = true;
  if (e.held === true) out.held = true;
  if (e.via === 'polling' || e.via === 'websocket') out.via = e.via;
  return out;
}

export type ImportResult = { ok: true; file: SessionFile; skipped: number } | { ok: false; error: string };

export function parseSessionFile(text: string): ImportResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  const d = data as Record<string, unknown> | null;
  if (!d || typeof d !== 'object' || d.format !== SESSION_FORMAT) return { ok: false, error: `not an OUI DevTools session (format must be "${SESSION_FORMAT}")` };
  if (d.version !== SESSION_VERSION) return { ok: false, error: `unsupported version ${String(d.version)}; this panel reads version ${SESSION_VERSION}` };
  if (!Array.isArray(d.clients) || !Array.isArray(d.events)) return { ok: false, error: 'clients and events must be arrays' };
  if (d.events.length > MAX_IMPORT_EVENTS) return { ok: false, error: `too many events (${d.events.length} > ${MAX_IMPORT_EVENTS})` };
  const clients = d.clients.map(readClient).filter((c): c is WireClient => c !== null);
  const keys = new Set(clients.map((c) => c.key));
  const events: WireEvent[] = [];
  let skipped = d.clients.length - clients.length;
  for (const raw of d.events) {
    const ev = readEvent(raw, keys);
    if (ev) events.push(ev);
    else skipped++;
  }
  return {
    ok: true,
    skipped,
    file: { format: SESSION_FORMAT, version: SESSION_VERSION, exportedAt: str(d.exportedAt) ? d.exportedAt : '', clients, events },
  };
}
