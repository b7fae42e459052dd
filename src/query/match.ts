/**
 * What a query's terms mean, over an event's facts read through an accessor
 * (`QueryFacts`): the Timeline reads them from its prepared rows, the CLI
 * and the fixture from the session model (src/query/event-facts.ts), the
 * unit tests from plain records. The same rule decides in each.
 */
import { linearTest } from '../protocol/linear-regexp.ts';
import type { Flag, Op, Term, TextKey } from './parse.ts';

export interface QueryFacts<K> {
  /** The type label (`action:request`, `ack`, `lifecycle`…). */
  type(k: K): string;
  /** Its category: requests, results, registrations, observations, acks, extensions, lifecycle, malformed, other. */
  category(k: K): string;
  /** The names a `client:` value may be part of: the client's key, kind and label. */
  clientNames(k: K): readonly string[];
  /** The event's own surface and action where it carries them, else its request's; '' for none. */
  surface(k: K): string;
  action(k: K): string;
  /** Its request's status; undefined when it belongs to none. */
  status(k: K): string | undefined;
  dir(k: K): 'in' | 'out';
  /** Its request's duration; undefined when it belongs to none or has no answer yet. */
  durationMs(k: K): number | undefined;
  /** Bytes on the wire. */
  size(k: K): number;
  /** Some finding names the event. */
  hasFinding(k: K): boolean;
  is(k: K, flag: Flag): boolean;
  /** Whether the lower-cased searchable text holds `needle` (lower-cased). */
  holds(k: K, needle: string): boolean;
  /** The lower-cased searchable text, for a /regex/. */
  text(k: K): string;
}

function textFact<K>(k: K, key: TextKey, facts: QueryFacts<K>): readonly string[] {
  switch (key) {
    case 'type':
      return [facts.type(k)];
    case 'client':
      return facts.clientNames(k);
    case 'surface':
      return [facts.surface(k)];
    case 'action':
      return [facts.action(k)];
    case 'status':
      return [facts.status(k) ?? ''];
  }
}

export function compare(a: number, op: Op, b: number): boolean {
  switch (op) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '=':
      return a === b;
  }
}

/** Whether event `k` meets `term`, its "-" not applied. */
function holdsTerm<K>(k: K, t: Term, facts: QueryFacts<K>): boolean {
  switch (t.kind) {
    case 'text':
      return facts.holds(k, t.value);
    case 'regex':
      // Case-insensitive, as the free text is: the searchable text is lower-cased.
      return linearTest(`(?i)${t.source}`, facts.text(k));
    case 'key': {
      const have = textFact(k, t.key, facts);
      if (t.key === 'type' && t.values.includes(facts.category(k))) return true;
      for (const v of t.values) for (const h of have) if (h && h.toLowerCase().includes(v)) return true;
      return false;
    }
    case 'dir':
      return facts.dir(k) === t.value;
    case 'compare': {
      const n = t.key === 'dur' ? facts.durationMs(k) : facts.size(k);
      return n !== undefined && compare(n, t.op, t.value);
    }
    case 'has':
      return facts.hasFinding(k);
    case 'is':
      return facts.is(k, t.value);
  }
}

/** Event `k` meets every term (each negated by its "-"). */
export function meetsTerms<K>(k: K, terms: readonly Term[], facts: QueryFacts<K>): boolean {
  for (let j = 0; j < terms.length; j++) {
    const t = terms[j]!;
    if (holdsTerm(k, t, facts) === t.neg) return false;
  }
  return true;
}

/** Terms that read the event's request (its surface, action, status, duration, or the text its head borrows from it). */
export function readsRequest(t: Term): boolean {
  return t.kind === 'text' || t.kind === 'regex' || (t.kind === 'compare' && t.key === 'dur') || (t.kind === 'key' && (t.key === 'surface' || t.key === 'action' || t.key === 'status'));
}

/** Terms that read what the model concludes of an event (findings, experiments), which can change after it was tested. */
export function readsModel(t: Term): boolean {
  return t.kind === 'has' || (t.kind === 'is' && t.value === 'experiment');
}

/** A term's meaning without its place: equal keys, equal terms. */
export function termKey(t: Term): string {
  const { at: _at, end: _end, ...rest } = t;
  return JSON.stringify(rest);
}

/** Every alternative of `narrow` has one of `wide` in it: what `narrow` admits, `wide` admits. */
function within(narrow: readonly string[], wide: readonly string[]): boolean {
  return narrow.every((n) => wide.some((w) => n.includes(w)));
}

/** The numbers `op value` admits, as an interval [lo, hi] with open ends marked. */
function interval(op: Op, v: number): { lo: number; loOpen: boolean; hi: number; hiOpen: boolean } {
  switch (op) {
    case '>':
      return { lo: v, loOpen: true, hi: Infinity, hiOpen: true };
    case '>=':
      return { lo: v, loOpen: false, hi: Infinity, hiOpen: true };
    case '<':
      return { lo: -Infinity, loOpen: true, hi: v, hiOpen: true };
    case '<=':
      return { lo: -Infinity, loOpen: true, hi: v, hiOpen: false };
    case '=':
      return { lo: v, loOpen: false, hi: v, hiOpen: false };
  }
}

/**
 * Whatever the facts, every event term `u` admits, `t` admits too (both
 * with their "-"). Sound, not complete: false when unsure.
 */
export function implies(u: Term, t: Term): boolean {
  if (u.neg !== t.neg || u.kind !== t.kind) return false;
  switch (u.kind) {
    case 'text': {
      const tv = (t as typeof u).value;
      // A longer needle is held by fewer texts; excluding a shorter one excludes more.
      return u.neg ? tv.includes(u.value) : u.value.includes(tv);
    }
    case 'key': {
      const tt = t as typeof u;
      if (u.key !== tt.key) return false;
      // type: also admits by category, which a longer value does not keep: only the same alternatives then.
      if (u.key === 'type') return termKey(u) === termKey(t);
      return u.neg ? within(tt.values, u.values) : within(u.values, tt.values);
    }
    case 'compare': {
      const tt = t as typeof u;
      if (u.key !== tt.key) return false;
      if (u.neg) return u.op === tt.op && u.value === tt.value;
      const a = interval(u.op, u.value);
      const b = interval(tt.op, tt.value);
      const loOk = a.lo > b.lo || (a.lo === b.lo && (a.loOpen || !b.loOpen));
      const hiOk = a.hi < b.hi || (a.hi === b.hi && (a.hiOpen || !b.hiOpen));
      return loOk && hiOk;
    }
    default:
      return termKey(u) === termKey(t);
  }
}

/** Every event `next` admits, `prev` admits: each of prev's terms is implied by one of next's. */
export function termsNarrow(prev: readonly Term[], next: readonly Term[]): boolean {
  return prev.every((t) => next.some((u) => implies(u, t)));
}
