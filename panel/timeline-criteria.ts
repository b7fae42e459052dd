/**
 * What the Timeline's filter bar asks of an event, and the one predicate that
 * answers it. The predicate reads an event only through an `EventFacts`
 * accessor, so the incremental filter (panel/incremental-filter.ts, over its
 * prepared rows) and the unit tests' oracle (over readers written from the
 * filter's meaning) decide with the same rule and differ only in the facts.
 */
import type { Category } from './display-text.ts';

export interface TimelineCriteria {
  /** Client key; '' for every client. */
  client: string;
  /** '' shows every category but application traffic ('other' without a note). */
  category: Category | '';
  /** Substrings, case-sensitive, of the event's (or its request's) surface and action. */
  surface: string;
  action: string;
  /** The request's status, exactly; '' for any. */
  status: string;
  /** Free text, case-insensitive. */
  text: string;
}

export const NO_CRITERIA: TimelineCriteria = { client: '', category: '', surface: '', action: '', status: '', text: '' };

/**
 * What the criteria read of event `k` (an event, or a row that stands for
 * one). Surface, action and status are the event's own where it carries
 * them, else its request's as the model has it now.
 */
export interface EventFacts<K> {
  client(k: K): string;
  category(k: K): Category;
  /** Application traffic on an OUI socket ('other' without a note): hidden unless the 'other' category is picked. */
  isAppTraffic(k: K): boolean;
  /** '' for none. */
  surface(k: K): string;
  /** '' for none. */
  action(k: K): string;
  status(k: K): string | undefined;
  /** Whether the event's searchable text (type, "surface › action", raw frame or payload, note), lower-cased, holds `needle`. */
  holds(k: K, needle: string): boolean;
}

/** Criteria with what the predicate derives from them once rather than per event. */
export interface Query extends TimelineCriteria {
  /** The free text, lower-cased. */
  readonly needle: string;
  /** Some criterion reads the event's request or text (not only its client and category). */
  readonly readsRequest: boolean;
}

export function queryOf(c: TimelineCriteria): Query {
  return { ...c, needle: c.text.toLowerCase(), readsRequest: !!(c.surface || c.action || c.status || c.text) };
}

/** The definition: event `k` meets every criterion of `q`. */
export function meetsCriteria<K>(k: K, q: Query, facts: EventFacts<K>): boolean {
  if (q.client && facts.client(k) !== q.client) return false;
  if (q.category ? facts.category(k) !== q.category : facts.isAppTraffic(k)) return false;
  if (q.surface && !facts.surface(k).includes(q.surface)) return false;
  if (q.action && !facts.action(k).includes(q.action)) return false;
  if (q.status && facts.status(k) !== q.status) return false;
  if (q.needle && !facts.holds(k, q.needle)) return false;
  return true;
}

export function sameQuery(a: Query, b: Query): boolean {
  return a.client === b.client && a.category === b.category && a.surface === b.surface && a.action === b.action && a.status === b.status && a.needle === b.needle;
}

/** Every event `next` admits, `prev` admits too, whatever the facts: `next` can be answered by testing `prev`'s matches alone. */
export function narrows(prev: Query, next: Query): boolean {
  return (
    (!prev.client || prev.client === next.client) &&
    // The default hides application traffic; the 'other' category shows it.
    (prev.category === next.category || (!prev.category && next.category !== 'other')) &&
    next.surface.includes(prev.surface) &&
    next.action.includes(prev.action) &&
    (!prev.status || prev.status === next.status) &&
    next.needle.includes(prev.needle)
  );
}
