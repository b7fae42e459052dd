/**
 * Redacting a HAR made elsewhere (Chrome DevTools, Playwright) or by the
 * panel: what a HAR can hold a secret in, by place.
 *
 * - Headers and cookies: the values of those named like secrets
 *   (Authorization, Cookie, Set-Cookie, X-Api-Key, …; keys.ts), every cookie's
 *   value, and query members named like secrets in URLs.
 * - Frame texts (`_webSocketMessages[].data`, long-polling bodies in
 *   `request.postData.text` and `response.content.text`): each Engine.IO
 *   packet (split at U+001E) and Socket.IO packet is read as its prefix and
 *   its JSON; an OUI event in it (`["action:request", {…}]` of Socket.IO, or
 *   `{type, payload}` of plain JSON) goes through the same redactor as the
 *   panel's wire events (schemas learnt from the registrations before it,
 *   key names, card numbers, the user's pointers into the payload), any other
 *   JSON through the key and card rules; the JSON is written back after its
 *   prefix. A text that is not JSON is scrubbed of the secrets found and of
 *   card numbers.
 * - `_ouiMessages` (the panel's own postMessage and direct clients): wire
 *   events, redacted as a session file's.
 *
 * Each value replaced is listed with `record`, the record's path as the
 * linter names it (`log.entries[3]._webSocketMessages[17]`), so a linter
 * knows which events' values were redacted.
 */
import { stringifyJson } from '../../protocol/json-text.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';
import { isSecretKey } from './keys.ts';
import { REDACTED, Redactor, scrubQuery, type RedactOptions } from './redactor.ts';
import type { RedactionInfo } from './carried.ts';
import { infoOf } from './session.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface HarRedaction {
  har: unknown;
  info: RedactionInfo;
  scrub: (text: string) => string;
}

const HAR_CLIENT = 'har';

export function redactHar(har: unknown, options: RedactOptions = {}): HarRedaction {
  // A HAR names no page origin to scope the user's pointers by (its URLs are the servers'): each applies to every payload.
  const opts: RedactOptions = options.pointers ? { ...options, pointers: options.pointers.map((p) => ({ pointer: p.pointer })) } : options;
  // First pass learns every secret (an echo before its source); the second writes.
  const first = new Redactor(opts);
  walkHar(structuredCloneJson(har), first, () => {});
  const r = new Redactor(opts, first.secrets);
  const out = structuredCloneJson(har);
  walkHar(out, r, () => {});
  return { har: out, info: infoOf(r, opts), scrub: (t) => r.scrub(t) };
}

function structuredCloneJson(v: unknown): unknown {
  return JSON.parse(String(stringifyJson(v)));
}

function walkHar(har: unknown, r: Redactor, _done: () => void): void {
  const log = isObj(har) && isObj(har.log) ? har.log : undefined;
  if (!log || !Array.isArray(log.entries)) return;
  r.client({ key: HAR_CLIENT, kind: 'websocket', label: 'HAR', origin: '', frameUrl: '', frameId: 0 });
  let n = 0;
  const id = () => `har/${++n}`;
  log.entries.forEach((entry, i) => {
    if (!isObj(entry)) return;
    const at = `log.entries[${i}]`;
    for (const side of ['request', 'response'] as const) {
      const m = entry[side];
      if (!isObj(m)) continue;
      if (typeof m.url === 'string') {
        const u = scrubQuery(m.url, (v) => r.learn(v));
        if (u !== m.url) {
          m.url = u;
          r.note({ record: at, pointer: `/${side}/url`, rule: 'key' });
        }
      }
      for (const list of ['headers', 'queryString', 'cookies'] as const) {
        if (!Array.isArray(m[list])) continue;
        (m[list] as unknown[]).forEach((h, j) => {
          if (!isObj(h) || typeof h.value !== 'string' || h.value === REDACTED) return;
          const name = typeof h.name === 'string' ? h.name : '';
          if (list === 'cookies' || isSecretKey(name)) {
            r.learn(h.value);
            // "Bearer <token>": the token alone is what travels elsewhere too.
            const word = /^\S+\s+(\S{4,})$/.exec(h.value);
            if (word) r.learn(word[1]!);
            h.value = REDACTED;
            r.note({ record: at, pointer: `/${side}/${list}/${j}/value`, rule: 'key' });
          }
        });
      }
    }
    const text = (holder: unknown, key: string, record: string, pointer: string) => {
      if (!isObj(holder) || typeof holder[key] !== 'string') return;
      const before = holder[key] as string;
      const listed = r.redactions.length;
      const after = redactFrameText(before, r, id, record);
      if (after !== before) {
        holder[key] = after;
        // A text that is not JSON, scrubbed of secrets and card numbers: listed as the text.
        if (r.redactions.length === listed) r.note({ record, pointer, rule: 'echo' });
      }
    };
    if (isObj(entry.request)) text(entry.request.postData, 'text', `${at}.request.postData.text`, '/request/postData/text');
    if (isObj(entry.response)) text(entry.response.content, 'text', `${at}.response.content.text`, '/response/content/text');
    if (Array.isArray(entry._webSocketMessages)) entry._webSocketMessages.forEach((msg, j) => text(msg, 'data', `${at}._webSocketMessages[${j}]`, `/_webSocketMessages/${j}/data`));
    if (Array.isArray(entry._ouiMessages))
      entry._ouiMessages.forEach((ev, j) => {
        if (!isObj(ev) || typeof ev.id !== 'string') return;
        const w = r.event({ ...(ev as unknown as WireEvent), client: typeof ev.client === 'string' ? ev.client : HAR_CLIENT });
        if (w !== (ev as unknown)) (entry._ouiMessages as unknown[])[j] = { ...w, client: ev.client };
      });
    if (isObj(entry._ouiClient)) {
      const c = r.client(entry._ouiClient as unknown as WireClient);
      entry._ouiClient = c;
    }
  });
}

/** One frame's text with its OUI events and other JSON redacted (see the module's comment). */
function redactFrameText(text: string, r: Redactor, id: () => string, record: string): string {
  const parts = text.split('\u001e');
  const out = parts.map((part) => {
    const start = part.search(/[[{]/);
    if (start >= 0) {
      let value: unknown;
      try {
        value = JSON.parse(part.slice(start));
      } catch {
        value = undefined;
      }
      if (value !== undefined) {
        const redacted = redactFrameJson(value, r, id, record);
        return redacted === value ? part : part.slice(0, start) + String(stringifyJson(redacted));
      }
    }
    return r.scrub(part);
  });
  return out.join('\u001e');
}

function redactFrameJson(value: unknown, r: Redactor, id: () => string, record: string): unknown {
  const asEvent = (type: string, payload: unknown): unknown => {
    const ev: WireEvent = { id: id(), client: HAR_CLIENT, t: 0, dir: 'out', kind: 'event', type, payload, size: 0 };
    const out = r.event(ev, record);
    return out === ev ? payload : out.payload;
  };
  if (Array.isArray(value) && typeof value[0] === 'string' && value.length >= 2) {
    const p = asEvent(value[0], value[1]);
    return p === value[1] ? value : [value[0], p, ...value.slice(2)];
  }
  if (isObj(value) && typeof value.type === 'string' && 'payload' in value) {
    const p = asEvent(value.type, value.payload);
    return p === value.payload ? value : { ...value, payload: p };
  }
  const ev: WireEvent = { id: id(), client: HAR_CLIENT, t: 0, dir: 'out', kind: 'other', payload: value, size: 0 };
  const out = r.event(ev, record);
  return out === ev ? value : out.payload;
}
