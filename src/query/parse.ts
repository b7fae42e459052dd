/**
 * The filter grammar, shared by the Timeline's filter box, `oui-devtools
 * lint --filter` and the Playwright fixture's `oui.events({ filter })`:
 *
 *   query   = term*                        (whitespace apart; every term must hold: AND)
 *   term    = ["-"] (keyed | regex | text) ("-" negates)
 *   keyed   = key ":" value                 type client surface action status dir dur size has is
 *   value   = word | "quoted"               a word's commas split it into alternatives (OR)
 *   regex   = "/" source "/"                RE2 syntax, never the JS engine: linear time
 *   text    = word | "quoted"               a word with no known key before its colon is text
 *
 * A word spelled as an OUI event type (`action:request`, `surface:register`…)
 * means that type, as it always did in the free-text box; quote the value
 * for a surface or action of that name (`action:"request"`).
 *
 * Parsing never throws: a bad term is left out of the query and reported
 * with its place, so the rest still filters while the user fixes it. A term
 * still being typed (`surface:`, `dur:>`, a lone `-`) is no term and no
 * error: completion has something to offer for it.
 */
import { linearRegExpError } from '../protocol/linear-regexp.ts';

export const TEXT_KEYS = ['type', 'client', 'surface', 'action', 'status'] as const;
export type TextKey = (typeof TEXT_KEYS)[number];
export const FLAGS = ['experiment', 'faulted', 'injected', 'held'] as const;
export type Flag = (typeof FLAGS)[number];
export const KEYS = ['type', 'client', 'surface', 'action', 'status', 'dir', 'dur', 'size', 'has', 'is'] as const;
export type Key = (typeof KEYS)[number];
export type Op = '>' | '>=' | '<' | '<=' | '=';

/** The OUI event types a bare word may name (the spec's message types). */
export const EVENT_TYPES = ['surface:register', 'surface:deregister', 'action:request', 'action:result', 'observation:update', 'observation:request'] as const;

interface Place {
  /** Where the term starts in the query text (its "-" included), and ends. */
  readonly at: number;
  readonly end: number;
  readonly neg: boolean;
}

export type Term =
  /** Lower-cased text the event's searchable text holds. */
  | (Place & { readonly kind: 'text'; readonly value: string })
  | (Place & { readonly kind: 'regex'; readonly source: string })
  /** Some alternative, lower-cased, is a substring of the key's fact (for `type:`, or equals the category). */
  | (Place & { readonly kind: 'key'; readonly key: TextKey; readonly values: readonly string[] })
  | (Place & { readonly kind: 'dir'; readonly value: 'in' | 'out' })
  /** `dur:` in milliseconds, `size:` in bytes. */
  | (Place & { readonly kind: 'compare'; readonly key: 'dur' | 'size'; readonly op: Op; readonly value: number })
  | (Place & { readonly kind: 'has'; readonly value: 'finding' })
  | (Place & { readonly kind: 'is'; readonly value: Flag });

export interface QueryError {
  readonly at: number;
  readonly end: number;
  readonly message: string;
}

export interface ParsedQuery {
  readonly terms: readonly Term[];
  readonly errors: readonly QueryError[];
}

const DUR_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000 };
const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 * 1024 };

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** Reads a quoted string from `i` (at its opening quote): its text (\" and \\ escape) and where it ends, or null when unterminated. */
function readQuoted(s: string, i: number): { text: string; end: number } | null {
  let out = '';
  for (let k = i + 1; k < s.length; k++) {
    const c = s[k]!;
    if (c === '\\' && (s[k + 1] === '"' || s[k + 1] === '\\')) {
      out += s[++k];
    } else if (c === '"') return { text: out, end: k + 1 };
    else out += c;
  }
  return null;
}

/** The end of a word from `i`: the next whitespace. */
function wordEnd(s: string, i: number): number {
  let k = i;
  while (k < s.length && !isSpace(s[k])) k++;
  return k;
}

/** A number with an optional unit, as in `500ms`, `1.5s`, `2kb`; null when it is not one. */
function measure(text: string, units: Record<string, number>): number | null {
  const m = /^(\d+(?:\.\d+)?|\.\d+)([a-z]*)$/i.exec(text);
  if (!m) return null;
  const unit = units[m[2]!.toLowerCase()];
  return unit === undefined ? null : Number(m[1]) * unit;
}

export function parseQuery(input: string): ParsedQuery {
  const terms: Term[] = [];
  const errors: QueryError[] = [];
  const s = input;
  let i = 0;
  while (i < s.length) {
    if (isSpace(s[i])) {
      i++;
      continue;
    }
    const at = i;
    const neg = s[i] === '-' && i + 1 < s.length && !isSpace(s[i + 1]);
    if (s[i] === '-' && !neg) {
      // A lone "-": the start of a negated term being typed.
      i++;
      continue;
    }
    if (neg) i++;
    const c = s[i];
    if (c === '"') {
      const q = readQuoted(s, i);
      if (!q) {
        errors.push({ at, end: s.length, message: 'unterminated quote: close it with "' });
        break;
      }
      if (q.text) terms.push({ kind: 'text', at, end: q.end, neg, value: q.text.toLowerCase() });
      i = q.end;
      continue;
    }
    if (c === '/') {
      // Up to the next unescaped "/" that ends the word.
      let k = i + 1;
      let close = -1;
      for (; k < s.length; k++) {
        if (s[k] === '\\') k++;
        else if (s[k] === '/' && (k + 1 >= s.length || isSpace(s[k + 1]))) {
          close = k;
          break;
        }
      }
      if (close < 0) {
        const end = wordEnd(s, i);
        // "/" alone is being typed; anything more is a pattern left open.
        if (end - i > 1) errors.push({ at, end, message: 'unterminated /regex/: end it with /' });
        i = end;
        continue;
      }
      const source = s.slice(i + 1, close);
      i = close + 1;
      if (!source) continue;
      const why = linearRegExpError(source);
      if (why) errors.push({ at, end: i, message: `bad /regex/: ${why}` });
      else terms.push({ kind: 'regex', at, end: i, neg, source });
      continue;
    }
    const end = wordEnd(s, i);
    const word = s.slice(i, end);
    const colon = word.indexOf(':');
    const key = colon > 0 ? word.slice(0, colon).toLowerCase() : '';
    if (!(KEYS as readonly string[]).includes(key) || (EVENT_TYPES as readonly string[]).includes(word.toLowerCase())) {
      const isType = (EVENT_TYPES as readonly string[]).includes(word.toLowerCase());
      if (isType) terms.push({ kind: 'key', key: 'type', at, end, neg, values: [word.toLowerCase()] });
      else terms.push({ kind: 'text', at, end, neg, value: word.toLowerCase() });
      i = end;
      continue;
    }
    // A keyed term: its value is a word or a quoted string (which may hold spaces).
    let value: string;
    let quoted = false;
    const v = i + colon + 1;
    if (s[v] === '"') {
      const q = readQuoted(s, v);
      if (!q) {
        errors.push({ at, end: s.length, message: 'unterminated quote: close it with "' });
        break;
      }
      value = q.text;
      quoted = true;
      i = q.end;
    } else {
      value = word.slice(colon + 1);
      i = end;
    }
    const term = keyed(key as Key, value, quoted, { at, end: i, neg });
    if (term === null) continue;
    if ('message' in term) errors.push(term);
    else terms.push(term);
  }
  return { terms, errors };
}

/** The term `key:value`; null while its value is still being typed; an error when it cannot be one. */
function keyed(key: Key, value: string, quoted: boolean, p: Place): Term | QueryError | null {
  const fail = (message: string): QueryError => ({ at: p.at, end: p.end, message });
  if (!value && !quoted) return null;
  switch (key) {
    case 'type':
    case 'client':
    case 'surface':
    case 'action':
    case 'status': {
      const values = (quoted ? [value] : value.split(',')).map((x) => x.toLowerCase()).filter(Boolean);
      return values.length ? { kind: 'key', key, values, ...p } : null;
    }
    case 'dir': {
      const d = value.toLowerCase();
      return d === 'in' || d === 'out' ? { kind: 'dir', value: d, ...p } : fail(`dir: is in (to the client) or out (from the client), not "${value}"`);
    }
    case 'dur':
    case 'size': {
      const m = /^(>=|<=|>|<|=)?(.*)$/.exec(value)!;
      const op = (m[1] ?? '=') as Op;
      if (!m[2]) return null;
      const n = measure(m[2], key === 'dur' ? DUR_UNITS : SIZE_UNITS);
      if (n === null) return fail(key === 'dur' ? `dur: wants a duration such as >500ms or <=2s, not "${value}"` : `size: wants a size such as >1mb, >=2kb or <300b, not "${value}"`);
      return { kind: 'compare', key, op, value: n, ...p };
    }
    case 'has':
      return value.toLowerCase() === 'finding' ? { kind: 'has', value: 'finding', ...p } : fail(`has: knows finding, not "${value}"`);
    case 'is': {
      const f = value.toLowerCase();
      return (FLAGS as readonly string[]).includes(f) ? { kind: 'is', value: f as Flag, ...p } : fail(`is: knows ${FLAGS.join(', ')}, not "${value}"`);
    }
  }
}

/** One line for an error, its place counted from 1 as an editor's column is. */
export function errorText(e: QueryError, input: string): string {
  return `${e.message} (at column ${e.at + 1}: ${JSON.stringify(input.slice(e.at, e.end))})`;
}
