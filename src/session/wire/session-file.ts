/**
 * The session file: a recording a colleague or a test run can open offline in
 * the panel. Versioned JSON:
 *
 *   { "format": "oui-devtools-session", "version": 1, "exportedAt": ISO-8601,
 *     "clients": WireClient[], "events": WireEvent[] }
 *
 * A client may name, in `replaces`, the key of the client it reconnects for
 * (§7.6.1); readers keep it only when that client is in the file.
 *
 * A redacted recording (src/session/redact) also carries, additively,
 * `redaction` (which values were replaced: event id, JSON pointer, rule) and
 * `verdicts` (the findings judged before redaction); readers that do not
 * know them ignore them, and a file without them is read as before.
 *
 * Wire events are what the panel decoded from the page (see wire.ts); an
 * import replays them through the same session model as live traffic. A file
 * is untrusted input: only known fields of the right types are kept.
 */
import { jsonPrefix, stringifyJson } from '../../protocol/json-text.ts';
import type { WireClient, WireEvent, WireKind } from './wire.ts';
import { readRedactionInfo, readVerdicts, type CarriedVerdicts, type RedactionInfo } from '../redact/carried.ts';

export const SESSION_FORMAT = 'oui-devtools-session';
export const SESSION_VERSION = 1;
export const MAX_IMPORT_EVENTS = 200_000;

export interface SessionFile {
  format: typeof SESSION_FORMAT;
  version: typeof SESSION_VERSION;
  exportedAt: string;
  /** Which values were replaced by redaction, or that the file was exported unredacted on purpose. */
  redaction?: RedactionInfo;
  /** The findings judged on the capture before redaction. */
  verdicts?: CarriedVerdicts;
  clients: WireClient[];
  events: WireEvent[];
}

export function exportSession(clients: Iterable<WireClient>, events: Iterable<WireEvent>, now = new Date(), extra: { redaction?: RedactionInfo; verdicts?: CarriedVerdicts } = {}): SessionFile {
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    exportedAt: now.toISOString(),
    ...(extra.redaction ? { redaction: extra.redaction } : {}),
    ...(extra.verdicts ? { verdicts: extra.verdicts } : {}),
    clients: [...clients],
    events: [...events],
  };
}

/**
 * A session file's text: what `JSON.stringify` writes, at any depth (a page
 * can send a payload nested 100,000 levels deep, which JSON.parse reads and
 * JSON.stringify cannot write; see json-text.ts). The HAR export writes
 * with the same writer (`harText`).
 */
export function sessionFileText(file: SessionFile): string {
  return stringifyJson(file)!;
}

const KINDS = new Set<WireKind>(['event', 'ack', 'lifecycle', 'other', 'malformed']);
const CLIENT_KINDS = new Set(['websocket', 'polling', 'postmessage', 'direct', 'socket.io']);

const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Why a record was skipped, or null when it was read. */
export type Read<T> = { ok: true; value: T } | { ok: false; why: string };

/** One client record of a file (exported for the command-line linter, which reads records as they stream in). */
export function readClient(v: unknown): Read<WireClient> {
  const c = v as Record<string, unknown> | null;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return { ok: false, why: 'not an object' };
  if (!str(c.key)) return { ok: false, why: 'no key' };
  if (!str(c.kind) || !CLIENT_KINDS.has(c.kind)) return { ok: false, why: `unknown kind ${short(c.kind)}` };
  const out: WireClient = {
    key: c.key,
    kind: c.kind as WireClient['kind'],
    label: str(c.label) ? c.label : c.key,
    origin: str(c.origin) ? c.origin : '',
    frameUrl: str(c.frameUrl) ? c.frameUrl : '',
    frameId: num(c.frameId) ? c.frameId : 0,
  };
  if (str(c.namespace)) out.namespace = c.namespace;
  if (c.port === true) out.port = true;
  // The key of the client this one reconnects for: another client's (checked against the file's clients once all are read).
  if (str(c.replaces) && c.replaces !== c.key) out.replaces = c.replaces;
  return { ok: true, value: out };
}

/** Drops each `replaces` that names no client among `clients` (a file cut short, or edited): a client of its own then. */
export function dropDanglingReplaces(clients: WireClient[]): void {
  const keys = new Set(clients.map((c) => c.key));
  for (const c of clients) if (c.replaces !== undefined && !keys.has(c.replaces)) delete c.replaces;
}

/** One event record of a file, against the keys of the file's clients. */
export function readEvent(v: unknown, clients: Set<string>): Read<WireEvent> {
  const e = v as Record<string, unknown> | null;
  if (!e || typeof e !== 'object' || Array.isArray(e)) return { ok: false, why: 'not an object' };
  if (!str(e.id)) return { ok: false, why: 'no id' };
  if (!str(e.client)) return { ok: false, why: 'no client' };
  if (!clients.has(e.client)) return { ok: false, why: `client ${short(e.client)} is not among the file's clients` };
  if (!num(e.t)) return { ok: false, why: 'no time (t)' };
  if (e.dir !== 'in' && e.dir !== 'out') return { ok: false, why: `direction ${short(e.dir)} is neither "in" nor "out"` };
  if (!str(e.kind) || !KINDS.has(e.kind as WireKind)) return { ok: false, why: `unknown kind ${short(e.kind)}` };
  const out: WireEvent = { id: e.id, client: e.client, t: e.t, dir: e.dir, kind: e.kind as WireKind, size: num(e.size) ? e.size : 0 };
  if (str(e.type)) out.type = e.type;
  if ('payload' in e) out.payload = e.payload;
  if (str(e.ackOf)) out.ackOf = e.ackOf;
  if (e.wantsAck === true) out.wantsAck = true;
  if (str(e.raw)) out.raw = e.raw;
  if (str(e.note)) out.note = e.note;
  if (e.injected === true) out.injected = true;
  if (e.held === true) out.held = true;
  if (str(e.faulted)) out.faulted = e.faulted.slice(0, 200);
  if (str(e.fault)) out.fault = e.fault.slice(0, 60);
  if (e.via === 'polling' || e.via === 'websocket') out.via = e.via;
  return { ok: true, value: out };
}

/** A value from the file, for a message: short, on one line. */
export function short(v: unknown, max = 40): string {
  let text: string;
  try {
    text = v === undefined ? 'undefined' : (jsonPrefix(v, max) ?? String(v));
  } catch {
    text = typeof v;
  }
  return oneLine(text, max);
}

/** Text from a file or a parser error, safe to show as one line. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Reasons kept per import: the first few say what is wrong; the count says how much. */
const MAX_PROBLEMS = 5;

export type ImportResult =
  | {
      ok: true;
      file: SessionFile;
      /** Clients and events left out. */
      skipped: number;
      /** Why the first few were left out: "event 3: no time (t)". */
      problems: string[];
    }
  | { ok: false; error: string };

export function parseSessionFile(text: string): ImportResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${oneLine((e as Error).message, 120)}` };
  }
  const d = data as Record<string, unknown> | null;
  if (!d || typeof d !== 'object' || Array.isArray(d) || !Object.hasOwn(d, 'format')) {
    const what = Array.isArray(d) ? 'a JSON array' : d && typeof d === 'object' ? 'JSON without a "format"' : `JSON ${short(d, 20)}`;
    return { ok: false, error: `not an OUI DevTools session: the file is ${what} (format must be "${SESSION_FORMAT}")` };
  }
  if (d.format !== SESSION_FORMAT) return { ok: false, error: `not an OUI DevTools session: its format is ${short(d.format)} (format must be "${SESSION_FORMAT}")` };
  if (d.version !== SESSION_VERSION) {
    const newer = typeof d.version === 'number' && d.version > SESSION_VERSION;
    return {
      ok: false,
      error: `unsupported version ${oneLine(String(d.version), 20)}; this panel reads version ${SESSION_VERSION}${newer ? ' (the file was written by a newer OUI DevTools: update the extension)' : ''}`,
    };
  }
  if (!Array.isArray(d.clients) || !Array.isArray(d.events)) return { ok: false, error: 'clients and events must be arrays' };
  if (d.events.length > MAX_IMPORT_EVENTS) return { ok: false, error: `too many events (${d.events.length} > ${MAX_IMPORT_EVENTS})` };
  const problems: string[] = [];
  let skipped = 0;
  const skip = (what: string) => {
    skipped++;
    if (problems.length < MAX_PROBLEMS) problems.push(what);
  };
  const clients: WireClient[] = [];
  d.clients.forEach((raw, i) => {
    const c = readClient(raw);
    if (c.ok) clients.push(c.value);
    else skip(`client ${i + 1}: ${c.why}`);
  });
  dropDanglingReplaces(clients);
  const keys = new Set(clients.map((c) => c.key));
  const events: WireEvent[] = [];
  d.events.forEach((raw, i) => {
    const ev = readEvent(raw, keys);
    if (ev.ok) events.push(ev.value);
    else skip(`event ${i + 1}: ${ev.why}`);
  });
  return {
    ok: true,
    skipped,
    problems,
    file: {
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      exportedAt: str(d.exportedAt) ? d.exportedAt : '',
      ...carried(d),
      clients,
      events,
    },
  };
}

/** The redaction list and the verdicts before redaction, when the file carries them (kept as read; malformed ones left out). */
function carried(d: Record<string, unknown>): { redaction?: RedactionInfo; verdicts?: CarriedVerdicts } {
  const redaction = readRedactionInfo(d.redaction);
  const verdicts = readVerdicts(d.verdicts);
  return { ...(redaction ? { redaction } : {}), ...(verdicts ? { verdicts } : {}) };
}

/**
 * What the panel does with a file, and the one line it says about it: a
 * file that is not a session, of another version, or with nothing readable
 * in it is refused (the session on screen stays as it was); one with
 * skipped records is imported, saying how many and why the first was.
 */
export type ImportOutcome = { ok: true; file: SessionFile; line: string } | { ok: false; line: string };

export function importOutcome(text: string, name?: string): ImportOutcome {
  const of = name ? ` ${oneLine(name, 60)}` : '';
  const kept = 'the current session is kept';
  const r = parseSessionFile(text);
  if (!r.ok) return { ok: false, line: `Import of${of || ' the file'} failed: ${r.error}; ${kept}.` };
  const total = r.file.events.length + r.skipped;
  if (!r.file.events.length) {
    const why = total ? `none of its records could be read (${r.problems[0] ?? ''})` : 'the session holds no events';
    return { ok: false, line: `Import of${of || ' the file'} failed: ${why}; ${kept}.` };
  }
  const exported = r.file.exportedAt ? `exported ${oneLine(r.file.exportedAt, 40)}` : 'of unknown date';
  const skipped = r.skipped ? `; ${r.skipped} ${r.skipped === 1 ? 'record' : 'records'} skipped (${r.problems[0]}${r.skipped > 1 ? ', …' : ''})` : '';
  const clients = r.file.clients.length;
  return {
    ok: true,
    file: r.file,
    line: `Imported ${r.file.events.length} events of ${clients} ${clients === 1 ? 'client' : 'clients'} from${of || ' a session'} ${exported}${skipped}. Live capture is off until you go back to live.`,
  };
}
