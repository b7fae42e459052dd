/**
 * HAR 1.2 in, captured items out: the same records the page hook produces
 * (src/capture/captured-items.ts), so a HAR is decoded by the same WireDecoder and
 * judged by the same session model as live traffic.
 *
 * - A WebSocket entry (`_resourceType: "websocket"`, a 101 response, a ws(s)
 *   URL, or `_webSocketMessages`) is one captured WebSocket client: its
 *   `_webSocketMessages` ({type: send|receive, time: epoch seconds, opcode:
 *   1 text | 2 binary, data: text | base64}) are its frames, `send` going out
 *   of the page. Chrome records no open or close: an `open` is placed at the
 *   entry's start (what the hook records first); `_ouiLifecycle` (written by
 *   our own export) restores opens, closes and errors exactly.
 * - An Engine.IO long-polling entry (`?EIO=…&transport=polling`) is a body
 *   out (`request.postData.text`, at the request's start) and a body in
 *   (`response.content.text`, base64 when `encoding` says so, at the end of
 *   the exchange), on one client per endpoint as the hook keeps them; the
 *   decoder splits sessions by `sid` and joins each to its WebSocket upgrade.
 * - An entry of our own export with `_ouiClient` and `_ouiMessages` holds the
 *   wire events of a client HAR has no record for (postMessage, direct hook):
 *   they are read as a session file's events are.
 *
 * Untrusted input: nothing here throws on a malformed entry; it is skipped
 * with a reason. Pure: no DOM, Node or extension API.
 */
import type { CapturedClient, CapturedItem, CapturedPayload } from '../../capture/captured-items.ts';

/**
 * A WebSocket message's `time`: Chrome's DevTools writes epoch seconds,
 * Playwright's recorder epoch milliseconds. Seconds since 1970 stay below
 * 1e11 until the year 5138, milliseconds are above it since 1973.
 */
export function harTimeMs(time: number): number {
  return time > 1e11 ? time : time * 1000;
}
import { parseEngineUrl } from '../../protocol/index.ts';

/** The hook id every HAR-born item carries (one capture, one hook). */
export const HAR_HOOK = 'har';

/** A captured item whose `seq` is assigned when it is fed, in time order. */
export type HarItem = Omit<CapturedItem, 'seq'>;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** What an entry is, read from its members so far. */
export type EntryKind = 'websocket' | 'polling' | 'oui' | 'other';

export function entryKind(e: Obj): EntryKind {
  if (isObj(e._ouiClient)) return 'oui';
  const req = isObj(e.request) ? e.request : undefined;
  const url = str(req?.url) ? req.url : '';
  const res = isObj(e.response) ? e.response : undefined;
  if (e._resourceType === 'websocket' || Array.isArray(e._webSocketMessages) || /^wss?:/i.test(url) || res?.status === 101) return 'websocket';
  const engine = parseEngineUrl(url);
  if (engine && engine.transport === 'polling') return 'polling';
  return 'other';
}

/** Epoch ms of an entry's start, or undefined. */
export function startOf(e: Obj): number | undefined {
  if (!str(e.startedDateTime)) return undefined;
  const t = Date.parse(e.startedDateTime);
  return Number.isFinite(t) ? t : undefined;
}

/** Decodes standard base64 to UTF-8 text without Node or DOM helpers. */
function base64Text(b64: string): string | null {
  const bytes = base64Bytes(b64);
  return bytes ? new TextDecoder('utf-8').decode(bytes) : null;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64Bytes(text: string): Uint8Array | null {
  const clean = text.replace(/[\s=]+/g, '');
  if (/[^A-Za-z0-9+/_-]/.test(clean) || clean.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const ch = clean[i]!;
    const v = ch === '-' ? 62 : ch === '_' ? 63 : B64.indexOf(ch);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

export interface HarCounts {
  entries: number;
  websockets: number;
  polling: number;
  /** Entries of neither kind (page loads, XHR, images…). */
  other: number;
  messages: number;
  /** Messages or bodies that could not be read. */
  skipped: number;
}

/**
 * Turns entries and messages into captured items. Feed `head` when an entry
 * reaches its message list (members before it), `message` for each message,
 * and `end` with all members (but the message lists): a reader that receives
 * the whole entry at once calls `end` only, after the messages.
 */
export class HarCapture {
  readonly clients = new Map<string, CapturedClient>();
  readonly counts: HarCounts = { entries: 0, websockets: 0, polling: 0, other: 0, messages: 0, skipped: 0 };
  /** The first few reasons something was skipped. */
  readonly problems: string[] = [];
  private readonly wsByEntry = new Map<number, CapturedClient>();
  /** Messages met before their entry said what it is (its request came after them). */
  private readonly early = new Map<number, Array<{ m: unknown; j: number }>>();
  private readonly lifecycleDone = new Set<number>();
  private readonly polling = new Map<string, CapturedClient>();

  constructor(private readonly page = '') {}

  private skip(why: string): void {
    this.counts.skipped++;
    if (this.problems.length < 5) this.problems.push(why);
  }

  /** The entry's members before its message list. */
  head(index: number, e: Obj): HarItem[] {
    if (entryKind(e) !== 'websocket' || !isObj(e.request) || !str(e.request.url)) return [];
    return this.openWs(index, e);
  }

  private openWs(index: number, e: Obj): HarItem[] {
    if (this.wsByEntry.has(index)) return this.lifecycle(index, e);
    const req = isObj(e.request) ? e.request : {};
    const url = str(req.url) ? req.url : '';
    const client: CapturedClient = { id: `ws${index}`, kind: 'websocket', url, origin: originOf(url, this.page), frameUrl: this.page };
    this.wsByEntry.set(index, client);
    this.clients.set(client.id, client);
    this.counts.websockets++;
    return this.lifecycle(index, e);
  }

  /** Opens, closes and errors: our own export's `_ouiLifecycle`, else an open at the entry's start. */
  private lifecycle(index: number, e: Obj): HarItem[] {
    const client = this.wsByEntry.get(index);
    if (!client || this.lifecycleDone.has(index)) return [];
    const list = e._ouiLifecycle;
    const start = startOf(e);
    if (!Array.isArray(list) && start === undefined) return [];
    this.lifecycleDone.add(index);
    if (!Array.isArray(list)) return [{ hook: HAR_HOOK, client: client.id, t: start!, kind: 'open' }];
    const out: HarItem[] = [];
    for (const raw of list) {
      if (!isObj(raw) || !num(raw.time) || (raw.type !== 'open' && raw.type !== 'close' && raw.type !== 'error')) continue;
      out.push({ hook: HAR_HOOK, client: client.id, t: harTimeMs(raw.time), kind: raw.type, ...(str(raw.note) ? { note: raw.note } : {}) });
    }
    return out;
  }

  /** One `_webSocketMessages[j]` of entry `index`. */
  message(index: number, j: number, m: unknown): HarItem[] {
    this.counts.messages++;
    const client = this.wsByEntry.get(index);
    if (!client) {
      // Its request comes later in the entry: kept until the entry ends.
      const list = this.early.get(index) ?? [];
      list.push({ m, j });
      this.early.set(index, list);
      return [];
    }
    const item = this.frame(client, index, j, m);
    return item ? [item] : [];
  }

  private frame(client: CapturedClient, index: number, j: number, m: unknown): HarItem | null {
    if (!isObj(m) || (m.type !== 'send' && m.type !== 'receive') || !num(m.time) || !str(m.data)) {
      this.skip(`log.entries[${index}]._webSocketMessages[${j}]: not a {type, time, opcode, data} message`);
      return null;
    }
    const opcode = num(m.opcode) ? m.opcode : 1;
    // Control frames (close 8, ping 9, pong 10) carry no application data.
    if (opcode >= 8) return null;
    const payload: CapturedPayload = opcode === 2 ? { base64: m.data } : { text: m.data };
    const item: HarItem = { hook: HAR_HOOK, client: client.id, t: harTimeMs(m.time), kind: 'frame', dir: m.type === 'send' ? 'out' : 'in', payload };
    if (m._ouiInjected === true) item.injected = true;
    if (m._ouiHeld === true) item.held = true;
    return item;
  }

  /** The whole entry (its message lists excepted), once it ends. */
  end(index: number, e: Obj): HarItem[] {
    this.counts.entries++;
    const kind = entryKind(e);
    if (kind === 'websocket') {
      const out = this.openWs(index, e);
      const early = this.early.get(index);
      this.early.delete(index);
      const client = this.wsByEntry.get(index)!;
      for (const { m, j } of early ?? []) {
        const item = this.frame(client, index, j, m);
        if (item) out.push(item);
      }
      return out;
    }
    this.early.delete(index);
    if (kind === 'polling') return this.pollingEntry(index, e);
    if (kind === 'other') this.counts.other++;
    return [];
  }

  private pollingEntry(index: number, e: Obj): HarItem[] {
    const req = e.request as Obj;
    const url = req.url as string;
    const start = startOf(e);
    if (start === undefined) {
      this.skip(`log.entries[${index}]: no startedDateTime`);
      return [];
    }
    this.counts.polling++;
    const endpoint = url.split('?')[0]!;
    let client = this.polling.get(endpoint);
    if (!client) {
      client = { id: `poll${this.polling.size + 1}`, kind: 'polling', url: endpoint, origin: originOf(url, this.page), frameUrl: this.page };
      this.polling.set(endpoint, client);
      this.clients.set(client.id, client);
    }
    const out: HarItem[] = [];
    const post = isObj(req.postData) ? req.postData : undefined;
    if (str(post?.text) && post.text) {
      const text = post.encoding === 'base64' ? base64Text(post.text) : post.text;
      if (text === null) this.skip(`log.entries[${index}].request.postData: invalid base64`);
      else out.push({ hook: HAR_HOOK, client: client.id, t: start, kind: 'frame', dir: 'out', url, payload: { text } });
    }
    const res = isObj(e.response) ? e.response : undefined;
    const content = isObj(res?.content) ? res.content : undefined;
    if (str(content?.text)) {
      const text = content.encoding === 'base64' ? base64Text(content.text) : content.text;
      const took = num(e.time) && e.time > 0 ? e.time : 0;
      if (text === null) this.skip(`log.entries[${index}].response.content: invalid base64`);
      else out.push({ hook: HAR_HOOK, client: client.id, t: start + took, kind: 'frame', dir: 'in', url, payload: { text } });
    }
    return out;
  }
}

function originOf(url: string, fallback: string): string {
  try {
    const u = new URL(url);
    const scheme = u.protocol === 'wss:' ? 'https:' : u.protocol === 'ws:' ? 'http:' : u.protocol;
    return `${scheme}//${u.host}`;
  } catch {
    return fallback;
  }
}
