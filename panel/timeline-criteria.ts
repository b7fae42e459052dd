/**
 * What the Timeline's filter bar asks of an event, and the one predicate that
 * answers it. The bar's text is the query grammar (src/query/parse.ts); the
 * Type and Status pickers and the toolbar's client picker combine with it,
 * as the Network panel's type buttons combine with its filter box. All of it
 * compiles to one list of terms, so the incremental filter
 * (panel/incremental-filter.ts, over its prepared rows) and the unit tests'
 * oracle (over readers written from the filter's meaning) decide with the
 * same rule and differ only in the facts.
 */
import type { Category } from './display-text.ts';
import { parseQuery, type QueryError, type Term } from '../src/query/parse.ts';
import { meetsTerms, readsModel, readsRequest, termKey, termsNarrow, type QueryFacts } from '../src/query/match.ts';

export interface TimelineCriteria {
  /** Client key; '' for every client (the toolbar's picker). */
  client: string;
  /** '' shows every category but application traffic ('other' without a note). */
  category: Category | '';
  /** The request's status, exactly; '' for any (the Status picker). */
  status: string;
  /** The filter box: the query grammar. */
  text: string;
}

export const NO_CRITERIA: TimelineCriteria = { client: '', category: '', status: '', text: '' };

/**
 * What the criteria read of event `k` (an event, or a row that stands for
 * one). Surface, action, status and duration are the event's own where it
 * carries them, else its request's as the model has it now.
 */
export interface EventFacts<K> extends QueryFacts<K> {
  client(k: K): string;
  category(k: K): Category;
  /** Application traffic on an OUI socket ('other' without a note): hidden unless asked for by type. */
  isAppTraffic(k: K): boolean;
}

/** Criteria compiled: the box's terms, the pickers', and what the filter derives from them once rather than per event. */
export interface Query {
  readonly client: string;
  readonly category: Category | '';
  /** Application traffic is shown: the 'other' category, or some `type:` term asks for types by name. */
  readonly appTraffic: boolean;
  readonly terms: readonly Term[];
  /** The box's bad terms, left out of `terms`. */
  readonly errors: readonly QueryError[];
  /** Some criterion reads the event's request or text (not only its client and category). */
  readonly readsRequest: boolean;
  /** Some criterion reads what the model concludes (findings, experiments), which may change after a verdict. */
  readonly readsModel: boolean;
  /** Equal for queries that admit the same events, whatever their spelling's places. */
  readonly signature: string;
}

export function queryOf(c: TimelineCriteria): Query {
  const parsed = parseQuery(c.text);
  const terms: Term[] = [...parsed.terms];
  // The picker's statuses are no part of one another: its term matches exactly as the picker did.
  if (c.status) terms.push({ kind: 'key', key: 'status', values: [c.status.toLowerCase()], at: -1, end: -1, neg: false });
  const appTraffic = c.category === 'other' || terms.some((t) => t.kind === 'key' && t.key === 'type' && !t.neg);
  return {
    client: c.client,
    category: c.category,
    appTraffic,
    terms,
    errors: parsed.errors,
    readsRequest: terms.some(readsRequest),
    readsModel: terms.some(readsModel),
    signature: JSON.stringify([c.client, c.category, appTraffic, terms.map(termKey).sort()]),
  };
}

/** The definition: event `k` meets every criterion of `q`. */
export function meetsCriteria<K>(k: K, q: Query, facts: EventFacts<K>): boolean {
  if (q.client && facts.client(k) !== q.client) return false;
  if (q.category && facts.category(k) !== q.category) return false;
  if (!q.appTraffic && facts.isAppTraffic(k)) return false;
  return meetsTerms(k, q.terms, facts);
}

export function sameQuery(a: Query, b: Query): boolean {
  return a.signature === b.signature;
}

/** Every event `next` admits, `prev` admits too, whatever the facts: `next` can be answered by testing `prev`'s matches alone. */
export function narrows(prev: Query, next: Query): boolean {
  return (
    (!prev.client || prev.client === next.client) &&
    (!prev.category || prev.category === next.category) &&
    (prev.appTraffic || !next.appTraffic) &&
    termsNarrow(prev.terms, next.terms)
  );
}
