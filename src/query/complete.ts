/**
 * Completion for the filter box: given the text and the caret, what the word
 * under the caret may become. Keys while it has no colon, then the values of
 * its key the session knows (types, clients, surfaces, actions, statuses) or
 * the grammar allows (dir, has, is, examples of dur and size). Pure: the
 * panel renders the list, and applying an item is replacing `from..to`.
 */
import { CATEGORIES } from './event-facts.ts';
import { FLAGS, KEYS, type Key } from './parse.ts';

/** What the session knows, for the values of each key. */
export interface KnownValues {
  readonly types: readonly string[];
  readonly clients: readonly string[];
  readonly surfaces: readonly string[];
  readonly actions: readonly string[];
  readonly statuses: readonly string[];
}

export interface Completion {
  /** Shown in the list. */
  readonly label: string;
  /** What replaces text[from..to). */
  readonly insert: string;
  /** A word on what it means. */
  readonly detail?: string;
}

export interface Completions {
  readonly from: number;
  readonly to: number;
  readonly items: readonly Completion[];
}

const KEY_HELP: Record<Key, string> = {
  type: 'event type or category',
  client: 'client key, kind or label',
  surface: 'surface id',
  action: 'action id',
  status: "request's status",
  dir: 'in (to the client) or out (from it)',
  dur: "request's duration: >500ms, <=2s",
  size: 'bytes on the wire: >1mb, <300b',
  has: 'has:finding',
  is: 'experiment, faulted, injected, held',
};

const MAX_ITEMS = 50;

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** A value as the grammar reads it back: quoted when it holds a space, a quote or a comma. */
export function quoteValue(v: string): string {
  return /[\s",]/.test(v) || v === '' ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : v;
}

function valuesOf(key: Key, known: KnownValues): Array<{ value: string; detail?: string }> {
  switch (key) {
    case 'type':
      return [...CATEGORIES.map((c) => ({ value: c, detail: 'category' })), ...known.types.map((t) => ({ value: t }))];
    case 'client':
      return known.clients.map((value) => ({ value }));
    case 'surface':
      return known.surfaces.map((value) => ({ value }));
    case 'action':
      return known.actions.map((value) => ({ value }));
    case 'status':
      return known.statuses.map((value) => ({ value }));
    case 'dir':
      return [
        { value: 'in', detail: 'to the client' },
        { value: 'out', detail: 'from the client' },
      ];
    case 'dur':
      return ['>100ms', '>500ms', '>1s', '<50ms'].map((value) => ({ value }));
    case 'size':
      return ['>1kb', '>100kb', '>1mb', '<100b'].map((value) => ({ value }));
    case 'has':
      return [{ value: 'finding', detail: 'named by a finding' }];
    case 'is':
      return FLAGS.map((value) => ({ value }));
  }
}

/** What the word at `caret` in `text` may become; no items when nothing fits. */
export function complete(text: string, caret: number, known: KnownValues): Completions {
  caret = Math.max(0, Math.min(caret, text.length));
  let from = caret;
  while (from > 0 && !isSpace(text[from - 1])) from--;
  let to = caret;
  while (to < text.length && !isSpace(text[to])) to++;
  const typed = text.slice(from, caret);
  const neg = typed.startsWith('-') ? '-' : '';
  const word = typed.slice(neg.length);
  const none = { from, to, items: [] };
  if (word.startsWith('/') || word.startsWith('"')) return none;
  const colon = word.indexOf(':');
  if (colon < 0) {
    const p = word.toLowerCase();
    const items = KEYS.filter((k) => k.startsWith(p) && k !== p).map((k) => ({ label: `${k}:`, insert: `${neg}${k}:`, detail: KEY_HELP[k] }));
    return { from, to, items };
  }
  const key = word.slice(0, colon).toLowerCase() as Key;
  if (!(KEYS as readonly string[]).includes(key)) return none;
  let partial = word.slice(colon + 1);
  // The last of comma-separated alternatives is the one being typed.
  const comma = partial.startsWith('"') ? -1 : partial.lastIndexOf(',');
  const before = comma >= 0 ? partial.slice(0, comma + 1) : '';
  partial = comma >= 0 ? partial.slice(comma + 1) : partial;
  const p = partial.replace(/^"/, '').toLowerCase();
  const seen = new Set<string>();
  const all = valuesOf(key, known).filter(({ value }) => !seen.has(value) && (seen.add(value), true));
  // Those that start with what was typed first, then those that hold it.
  const starts = all.filter(({ value }) => value.toLowerCase().startsWith(p));
  const holds = p ? all.filter(({ value }) => !value.toLowerCase().startsWith(p) && value.toLowerCase().includes(p)) : [];
  const items = [...starts, ...holds]
    .filter(({ value }) => value.toLowerCase() !== p || partial.startsWith('"'))
    .slice(0, MAX_ITEMS)
    .map(({ value, detail }) => ({ label: value, insert: `${neg}${key}:${before}${quoteValue(value)}`, ...(detail ? { detail } : {}) }));
  return { from, to, items };
}
