/**
 * The redactor: one recording's events in, the same events with their
 * secrets replaced by a marker out, and a list of what was replaced (event
 * id, JSON pointer into the event's payload, rule: never the value).
 *
 * Rules, in the order they claim a value:
 *   pointer  the user's own JSON pointers (RFC 6901) into a payload, per origin
 *   schema   what the surfaces' own schemas declare `writeOnly` or `format: "password"`
 *            (an action's `input` for its request's params, its `output` for the
 *            result's data, an observation's `schema` for its values)
 *   key      members named like secrets (keys.ts), in the values a payload carries
 *   card     payment card numbers by the Luhn check (luhn.ts), in any string or number
 *   echo     a value redacted elsewhere, seen again (an error message, a raw frame, a copy)
 *
 * Values, not declarations: the key and card rules look into what a payload
 * carries (params, result data and errors, observation values, extension and
 * non-OUI payloads), never into a surface's declaration, whose schemas name
 * their members `password` or `token` on purpose.
 *
 * The marker keeps the value's JSON type, so a schema's `type` still holds and
 * a reader that walks the file finds the shape it expects: a string becomes
 * "[REDACTED]" (inside a longer string, only the card number or echoed secret
 * is replaced), a number 0. Booleans and null are left: they hold no secret.
 * An object or array in a secret place keeps its shape, each string or number
 * in it redacted.
 *
 * Stateful and streaming: surfaces are learnt from the events as they come
 * (per client), so a file is redacted in one pass; `seed` takes the secret
 * values of a first pass so that an echo before its source is found too.
 */
import type { WireClient, WireEvent } from '../wire/wire.ts';
import { stringifyJson } from '../../protocol/json-text.ts';
import { isSecretKey } from './keys.ts';
import { findCardNumbers, isCardNumber } from './luhn.ts';
import { formatPointer, parsePointer, valueAt, withValueAt } from './pointer.ts';
import { expandPath, secretPaths, type SecretPath } from './schema-secrets.ts';

export const REDACTED = '[REDACTED]';
export const REDACTED_NUMBER = 0;

export const REDACTION_RULES = ['pointer', 'schema', 'key', 'card', 'echo'] as const;
export type RedactionRule = (typeof REDACTION_RULES)[number];

/** One value replaced: where, and by which rule. Never the value. */
export interface Redaction {
  /** The wire event's id; absent for a client record. */
  event?: string;
  /** The client record's key, for a value of the client record itself (a URL's query). */
  client?: string;
  /** In a HAR: the record's path as the linter names it (`log.entries[3]._webSocketMessages[17]`); pointer is then into the frame's payload, or into the entry for headers and URLs. */
  record?: string;
  /** RFC 6901 pointer into the event's payload; `#raw` for the raw frame text, `#note` for the note; into the client record for a client. */
  pointer: string;
  rule: RedactionRule;
}

/** A user's pointer: into every payload of clients of `origin` (every origin when absent or "*"). */
export interface UserPointer {
  origin?: string;
  pointer: string;
}

export interface RedactOptions {
  pointers?: UserPointer[];
  /** Rules turned off (the user's choice, e.g. no card check on a shop whose ids are long digits). */
  off?: RedactionRule[];
  /** Keep no list of what was redacted (counts only): a linter that only scrubs its messages. */
  noList?: boolean;
}

/** A secret shorter than this is not looked for elsewhere (it would match too much). */
const MIN_ECHO = 4;
const MAX_SECRETS = 10_000;
/** Deeper than this a carried value is not looked through: its subtree is replaced whole (a 100,000-deep payload must not overflow the stack). */
const MAX_DEPTH = 256;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface SurfaceRules {
  input: Map<string, SecretPath[]>;
  output: Map<string, SecretPath[]>;
  observations: Map<string, SecretPath[]>;
}

interface ClientRules {
  surfaces: Map<string, SurfaceRules>;
  /** requestId → [surfaceId, actionId], for the result's output schema. */
  requests: Map<string, [string, string]>;
}

/** A pending replacement in one event. */
interface Hit {
  segs: string[];
  rule: RedactionRule;
  /** The new value; for a string with a card or echo inside, the string with those parts replaced. */
  value: unknown;
}

export class Redactor {
  private readonly clients = new Map<string, WireClient>();
  private readonly rules = new Map<string, ClientRules>();
  private readonly pointers: Array<{ origin?: string; segs: string[]; pointer: string }> = [];
  private readonly off: Set<RedactionRule>;
  /** Secret values seen, longest first when scrubbing. */
  readonly secrets = new Set<string>();
  private sorted: string[] | null = null;
  readonly redactions: Redaction[] = [];
  readonly counts: Record<RedactionRule, number> = { pointer: 0, schema: 0, key: 0, card: 0, echo: 0 };
  /** Events with at least one value redacted. */
  readonly events = new Set<string>();

  private readonly noList: boolean;

  constructor(opts: RedactOptions = {}, seed: Iterable<string> = []) {
    this.noList = opts.noList === true;
    this.off = new Set(opts.off ?? []);
    for (const p of opts.pointers ?? []) {
      const segs = parsePointer(p.pointer);
      if (segs === null) throw new Error(`not a JSON pointer (RFC 6901): ${JSON.stringify(p.pointer)} (it starts with "/", or is "" for the whole payload)`);
      this.pointers.push({ ...(p.origin && p.origin !== '*' ? { origin: p.origin } : {}), segs, pointer: p.pointer });
    }
    for (const s of seed) this.remember(s);
  }

  /** A secret found outside an event (a HAR's header, a URL's query): looked for everywhere else too. */
  learn(s: string): void {
    this.remember(s);
  }

  private remember(s: string): void {
    if (s.length < MIN_ECHO || s === REDACTED || this.secrets.size >= MAX_SECRETS || this.secrets.has(s)) return;
    this.secrets.add(s);
    this.sorted = null;
  }

  /** A value replaced outside any event (a HAR's header or URL). */
  note(r: Redaction): void {
    this.record(r);
  }

  private record(r: Redaction): void {
    this.counts[r.rule]++;
    if (this.noList) return;
    if (r.event) this.events.add(r.event);
    this.redactions.push(r);
  }

  /** A client record: its URL-like fields lose the values of query members named like secrets (`?token=…`). */
  client(c: WireClient): WireClient {
    this.clients.set(c.key, c);
    if (this.off.has('key')) return c;
    let out = c;
    for (const field of ['label', 'frameUrl'] as const) {
      const v = c[field];
      const scrubbed = scrubQuery(v, (s) => this.remember(s));
      if (scrubbed !== v) {
        out = { ...out, [field]: scrubbed };
        this.record({ client: c.key, pointer: `/${field}`, rule: 'key' });
      }
    }
    return out;
  }

  private clientRules(key: string): ClientRules {
    let r = this.rules.get(key);
    if (!r) this.rules.set(key, (r = { surfaces: new Map(), requests: new Map() }));
    return r;
  }

  private learnSurface(key: string, surface: unknown): void {
    if (!isObj(surface) || typeof surface.id !== 'string') return;
    const rules: SurfaceRules = { input: new Map(), output: new Map(), observations: new Map() };
    if (Array.isArray(surface.actions))
      for (const a of surface.actions) {
        if (!isObj(a) || typeof a.id !== 'string') continue;
        rules.input.set(a.id, secretPaths(a.input));
        rules.output.set(a.id, secretPaths(a.output));
      }
    if (Array.isArray(surface.observations)) for (const o of surface.observations) if (isObj(o) && typeof o.id === 'string') rules.observations.set(o.id, secretPaths(o.schema));
    this.clientRules(key).surfaces.set(surface.id, rules);
  }

  /** One event: a copy with its secrets replaced (the event itself when it holds none). */
  event(ev: WireEvent, record?: string): WireEvent {
    const hits: Hit[] = [];
    const claimed = new Set<string>();
    const add = (segs: string[], rule: RedactionRule, value: unknown) => {
      const key = segs.join('\u0000');
      // A place inside one already claimed is claimed (its container's leaves are listed one by one).
      if (claimed.has(key)) return;
      claimed.add(key);
      hits.push({ segs, rule, value });
    };
    const payload = ev.payload;
    const type = ev.kind === 'event' ? ev.type : undefined;
    const client = this.clients.get(ev.client);

    // What the payload teaches about surfaces, before its own values are judged.
    if (isObj(payload)) {
      if (type === 'surface:register') this.learnSurface(ev.client, payload.surface);
      if (Array.isArray(payload.surfaces)) for (const s of payload.surfaces) this.learnSurface(ev.client, s);
      if (type === 'action:request' && typeof payload.requestId === 'string' && typeof payload.surfaceId === 'string' && typeof payload.actionId === 'string') {
        const reqs = this.clientRules(ev.client).requests;
        reqs.set(payload.requestId, [payload.surfaceId, payload.actionId]);
        if (reqs.size > 50_000) reqs.delete(reqs.keys().next().value!);
      }
    }

    if (payload !== undefined) {
      if (!this.off.has('pointer'))
        for (const p of this.pointers) {
          if (p.origin !== undefined && client?.origin !== p.origin) continue;
          const v = valueAt(payload, p.segs);
          if (v !== undefined) this.leaves(v, p.segs.slice(), 'pointer', add);
        }
      const places = this.valuePlaces(ev, payload);
      if (!this.off.has('schema'))
        for (const { segs, value, schema } of places)
          for (const path of schema) for (const at of expandPath(value, path)) this.leaves(valueAt(value, at), [...segs, ...at], 'schema', add);
      for (const { segs, value } of places) this.scan(value, segs.slice(), add, 0);
    }

    // Secrets of this event are known now: its other strings and its raw text are looked through for them.
    for (const h of hits) this.noteSecret(h, payload);
    const echoes = this.echoes(payload, claimed);
    for (const e of echoes) hits.push(e);
    if (!hits.length && ev.raw === undefined && ev.note === undefined) return ev;

    let out: WireEvent = ev;
    if (hits.length) {
      let p = payload;
      for (const h of hits) {
        p = withValueAt(p, h.segs, h.value);
        this.record({ ...(record ? { record } : { event: ev.id }), pointer: formatPointer(h.segs), rule: h.rule });
      }
      out = { ...ev, payload: p };
    }
    for (const field of ['raw', 'note'] as const) {
      const text = ev[field];
      if (text === undefined) continue;
      const scrubbed = this.scrub(text);
      if (scrubbed !== text) {
        out = out === ev ? { ...ev } : out;
        out[field] = scrubbed;
        this.record({ ...(record ? { record } : { event: ev.id }), pointer: `#${field}`, rule: this.off.has('card') || !findCardNumbers(text).length ? 'echo' : 'card' });
      } else if (field === 'raw' && hits.length && out.raw !== undefined) {
        // The payload had secrets and the raw text shows none of them as written (an encoding the scrub cannot read): withheld.
        if (this.rawHidesNothing(hits)) continue;
        out = out === ev ? { ...ev } : out;
        out.raw = `${REDACTED} (raw frame withheld: its payload had redacted values)`;
        this.record({ ...(record ? { record } : { event: ev.id }), pointer: '#raw', rule: 'echo' });
      }
    }
    return out;
  }

  /** Whether every replaced value was a marker already or has no text to hide (nothing for the raw text to give away). */
  private rawHidesNothing(hits: Hit[]): boolean {
    return hits.every((h) => h.rule === 'echo');
  }

  private noteSecret(h: Hit, payload: unknown): void {
    const old = valueAt(payload, h.segs);
    if (typeof old === 'string') {
      if (h.rule === 'card' || h.rule === 'echo') for (const m of findCardNumbers(old)) this.remember(old.slice(m.start, m.end));
      else this.remember(old);
    } else if (typeof old === 'number') this.remember(String(old));
  }

  /** The positions of a payload that carry values (not declarations), each with the schema paths that apply to it. */
  private valuePlaces(ev: WireEvent, payload: unknown): Array<{ segs: string[]; value: unknown; schema: SecretPath[] }> {
    if (ev.kind === 'lifecycle') return [];
    if (ev.kind !== 'event' || !isObj(payload) || !ev.type || ev.type.startsWith('x-')) return [{ segs: [], value: payload, schema: [] }];
    const rules = this.rules.get(ev.client);
    const surface = (id: unknown) => (typeof id === 'string' ? rules?.surfaces.get(id) : undefined);
    const out: Array<{ segs: string[]; value: unknown; schema: SecretPath[] }> = [];
    const put = (key: string, schema: SecretPath[] = []) => {
      if (Object.prototype.hasOwnProperty.call(payload, key)) out.push({ segs: [key], value: payload[key], schema });
    };
    switch (ev.type) {
      case 'action:request':
        put('params', (typeof payload.actionId === 'string' && surface(payload.surfaceId)?.input.get(payload.actionId)) || []);
        break;
      case 'action:result': {
        const req = typeof payload.requestId === 'string' ? rules?.requests.get(payload.requestId) : undefined;
        put('data', (req && surface(req[0])?.output.get(req[1])) || []);
        put('error');
        if (isObj(payload.observations))
          for (const [sid, obs] of Object.entries(payload.observations)) {
            if (!isObj(obs)) continue;
            for (const [oid, v] of Object.entries(obs)) out.push({ segs: ['observations', sid, oid], value: v, schema: surface(sid)?.observations.get(oid) ?? [] });
          }
        break;
      }
      case 'observation:update':
        put('value', (typeof payload.observationId === 'string' && surface(payload.surfaceId)?.observations.get(payload.observationId)) || []);
        break;
      case 'surface:register':
      case 'surface:deregister':
      case 'observation:request':
        break;
      default:
        out.push({ segs: [], value: payload, schema: [] });
    }
    return out;
  }

  /**
   * Every string and number at or under `v` (or `v` itself), replaced whole.
   * `path` is the place of `v`, a stack the walks push to and pop from (a
   * copy is made only for a hit: most values hold none).
   */
  private leaves(v: unknown, path: string[], rule: RedactionRule, add: (segs: string[], rule: RedactionRule, value: unknown) => void, depth = 0): void {
    if (typeof v === 'string') {
      if (v !== REDACTED) add(path.slice(), rule, REDACTED);
    } else if (typeof v === 'number') add(path.slice(), rule, REDACTED_NUMBER);
    else if (depth > MAX_DEPTH) add(path.slice(), rule, REDACTED);
    else if (Array.isArray(v))
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        this.leaves(v[i], path, rule, add, depth + 1);
        path.pop();
      }
    else if (isObj(v))
      for (const k of Object.keys(v)) {
        path.push(k);
        this.leaves(v[k], path, rule, add, depth + 1);
        path.pop();
      }
  }

  /** The key and card rules through a carried value (`path` as for `leaves`). */
  private scan(v: unknown, path: string[], add: (segs: string[], rule: RedactionRule, value: unknown) => void, depth: number): void {
    if (typeof v === 'string') {
      if (v.length >= 13 && !this.off.has('card')) {
        const cards = findCardNumbers(v);
        if (cards.length) add(path.slice(), 'card', replaceRanges(v, cards));
      }
    } else if (typeof v === 'number') {
      if (v >= 1e12 && !this.off.has('card') && isCardNumber(v)) add(path.slice(), 'card', REDACTED_NUMBER);
    } else if (v === null || typeof v !== 'object') return;
    else if (depth > MAX_DEPTH) this.scanDeep(v, path.slice(), add);
    else if (Array.isArray(v))
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        this.scan(v[i], path, add, depth + 1);
        path.pop();
      }
    else {
      const keyRule = !this.off.has('key');
      for (const k of Object.keys(v)) {
        path.push(k);
        if (keyRule && secretKeyCached(k)) this.leaves((v as Obj)[k], path, 'key', add, depth + 1);
        else this.scan((v as Obj)[k], path, add, depth + 1);
        path.pop();
      }
    }
  }

  /**
   * A value nested deeper than the walk goes (a page can send 100,000 levels):
   * read as its JSON text, and replaced whole only when that text shows a card
   * number or a member named like a secret; otherwise left as sent.
   */
  private scanDeep(v: unknown, segs: string[], add: (segs: string[], rule: RedactionRule, value: unknown) => void): void {
    let text: string | undefined;
    try {
      text = stringifyJson(v);
    } catch {
      text = undefined;
    }
    if (text === undefined) return;
    if (!this.off.has('card') && findCardNumbers(text).length) return add(segs, 'card', REDACTED);
    if (this.off.has('key')) return;
    for (const m of text.matchAll(/"((?:[^"\\]|\\.){1,64})":/g)) if (isSecretKey(m[1]!)) return add(segs, 'key', REDACTED);
  }

  /** Strings anywhere in the payload holding a secret seen before (not at places already claimed). */
  private echoes(payload: unknown, claimed: Set<string>): Hit[] {
    if (this.off.has('echo') || !this.secrets.size) return [];
    const hits: Hit[] = [];
    const path: string[] = [];
    const walk = (v: unknown, depth: number) => {
      if (typeof v === 'string') {
        if (v.length < MIN_ECHO || claimed.has(path.join('\u0000'))) return;
        const s = this.scrubSecrets(v);
        if (s !== v) hits.push({ segs: path.slice(), rule: 'echo', value: s });
      } else if (depth <= MAX_DEPTH && Array.isArray(v))
        for (let i = 0; i < v.length; i++) {
          path.push(String(i));
          walk(v[i], depth + 1);
          path.pop();
        }
      else if (depth <= MAX_DEPTH && isObj(v))
        for (const k of Object.keys(v)) {
          path.push(k);
          walk(v[k], depth + 1);
          path.pop();
        }
    };
    walk(payload, 0);
    return hits;
  }

  private scrubSecrets(text: string): string {
    if (!this.secrets.size) return text;
    this.sorted ??= [...this.secrets].sort((a, b) => b.length - a.length);
    let out = text;
    for (const s of this.sorted) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
      // As JSON writes it inside a string (a raw frame, a copied payload).
      const escaped = JSON.stringify(s).slice(1, -1);
      if (escaped !== s && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
    }
    return out;
  }

  /** A text with every secret seen and every card number replaced by the marker: for raw frames, finding messages, copies. */
  scrub(text: string): string {
    let out = this.scrubSecrets(text);
    if (!this.off.has('card')) {
      const cards = findCardNumbers(out);
      if (cards.length) out = replaceRanges(out, cards);
    }
    return out;
  }
}

/** isSecretKey, remembered: a recording repeats the same member names. */
const keyVerdicts = new Map<string, boolean>();
function secretKeyCached(k: string): boolean {
  let v = keyVerdicts.get(k);
  if (v === undefined) {
    v = isSecretKey(k);
    if (keyVerdicts.size > 10_000) keyVerdicts.clear();
    keyVerdicts.set(k, v);
  }
  return v;
}

function replaceRanges(text: string, ranges: Array<{ start: number; end: number }>): string {
  let out = '';
  let at = 0;
  for (const r of ranges) {
    out += text.slice(at, r.start) + REDACTED;
    at = r.end;
  }
  return out + text.slice(at);
}

/** A URL's query members named like secrets, with their values replaced (the text as it was when it is not a URL with one). */
export function scrubQuery(text: string, seen?: (value: string) => void): string {
  if (!text.includes('?') && !text.includes('#')) return text;
  return text.replace(/([?&#;])([^=&#;?\s]+)=([^&#;\s]*)/g, (all, sep: string, name: string, value: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // As written.
    }
    if (!value || !isSecretKey(decoded) || value === encodeURIComponent(REDACTED)) return all;
    seen?.(value);
    try {
      seen?.(decodeURIComponent(value));
    } catch {
      // As written only.
    }
    return `${sep}${name}=${encodeURIComponent(REDACTED)}`;
  });
}
