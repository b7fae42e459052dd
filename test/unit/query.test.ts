/**
 * The filter grammar (src/query): parse and evaluate against a reference
 * written here from the grammar's text. Queries are generated as a list of
 * terms, rendered to text, parsed by the product and judged by its
 * evaluator; the reference judges the generated terms themselves, with the
 * JS engine for /regex/ (on patterns that cannot backtrack badly) where the
 * product runs RE2.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseQuery, errorText, type Flag } from '../../src/query/parse.ts';
import { meetsTerms, termsNarrow, type QueryFacts } from '../../src/query/match.ts';
import { complete, type KnownValues } from '../../src/query/complete.ts';

interface Ev {
  type: string;
  category: string;
  clients: string[];
  surface: string;
  action: string;
  status?: string;
  dir: 'in' | 'out';
  dur?: number;
  size: number;
  finding: boolean;
  flags: Flag[];
  text: string;
}

const facts: QueryFacts<Ev> = {
  type: (e) => e.type,
  category: (e) => e.category,
  clientNames: (e) => e.clients,
  surface: (e) => e.surface,
  action: (e) => e.action,
  status: (e) => e.status,
  dir: (e) => e.dir,
  durationMs: (e) => e.dur,
  size: (e) => e.size,
  hasFinding: (e) => e.finding,
  is: (e, f) => e.flags.includes(f),
  holds: (e, needle) => e.text.includes(needle),
  text: (e) => e.text,
};

const TYPES: Array<[string, string]> = [
  ['action:request', 'requests'],
  ['action:result', 'results'],
  ['surface:register', 'registrations'],
  ['observation:update', 'observations'],
  ['ack', 'acks'],
  ['x-custom', 'extensions'],
];
const SURFACES = ['cart', 'Catalog', 'my surface', 'shop-nav', ''];
const ACTIONS = ['add_item', 'search', 'Go', ''];
const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed-out'];
const WORDS = ['cart', 'go', 'mug', 'x-1', '"q"', 'σ'];

const arbEv: fc.Arbitrary<Ev> = fc
  .record({
    t: fc.constantFrom(...TYPES),
    client: fc.constantFrom('ws:a', 'sio:b'),
    kind: fc.constantFrom('websocket', 'socket.io', 'postmessage'),
    surface: fc.constantFrom(...SURFACES),
    action: fc.constantFrom(...ACTIONS),
    status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
    dir: fc.constantFrom<'in' | 'out'>('in', 'out'),
    dur: fc.option(fc.constantFrom(0, 20, 499, 500, 501, 1000, 1500, 2000), { nil: undefined }),
    size: fc.constantFrom(0, 100, 1023, 1024, 1025, 1048576, 2000000),
    finding: fc.boolean(),
    flags: fc.subarray<Flag>(['experiment', 'faulted', 'injected', 'held']),
    words: fc.subarray(WORDS),
  })
  .map((r) => ({
    type: r.t[0],
    category: r.t[1],
    clients: [r.client, r.kind],
    surface: r.surface,
    action: r.action,
    ...(r.status ? { status: r.status } : {}),
    dir: r.dir,
    ...(r.dur !== undefined ? { dur: r.dur } : {}),
    size: r.size,
    finding: r.finding,
    flags: r.flags,
    text: `${r.t[0]} ${r.surface} ${r.words.join(' ')} 12`.toLowerCase(),
  }));

/** A term as generated: how it is written, and what it means, from the grammar's text. */
interface Gen {
  text: string;
  meets: (e: Ev) => boolean;
}

const OPS = ['>', '>=', '<', '<=', '='] as const;
function cmp(a: number, op: (typeof OPS)[number], b: number): boolean {
  return op === '>' ? a > b : op === '>=' ? a >= b : op === '<' ? a < b : op === '<=' ? a <= b : a === b;
}
const has = (fact: string, v: string) => fact.toLowerCase().includes(v.toLowerCase());

const arbBody: fc.Arbitrary<Gen> = fc.oneof(
  fc.constantFrom('cart', 'go', 'mug', 'x-1', 'σ', 'Σ', '12').map((w) => ({ text: w, meets: (e: Ev) => e.text.includes(w.toLowerCase()) })),
  fc.constantFrom('my surface', 'request cart', '"q"').map((w) => ({ text: `"${w.replace(/"/g, '\\"')}"`, meets: (e: Ev) => e.text.includes(w.toLowerCase()) })),
  fc.record({ key: fc.constantFrom('surface', 'action', 'client'), values: fc.array(fc.constantFrom('cart', 'cat', 'CATALOG', 'shop', 'add', 'go', 'ws', 'socket.io', 'b'), { minLength: 1, maxLength: 2 }) }).map(({ key, values }) => ({
    text: `${key}:${values.join(',')}`,
    meets: (e: Ev) => values.some((v) => (key === 'surface' ? has(e.surface, v) : key === 'action' ? has(e.action, v) : e.clients.some((c) => has(c, v)))),
  })),
  fc.constantFrom('my surface', 'Catalog').map((v) => ({ text: `surface:"${v}"`, meets: (e: Ev) => has(e.surface, v) })),
  fc.array(fc.constantFrom('fail', 'succeeded', 'run', 'timed-out'), { minLength: 1, maxLength: 2 }).map((values) => ({ text: `status:${values.join(',')}`, meets: (e: Ev) => values.some((v) => has(e.status ?? '', v)) })),
  fc.array(fc.constantFrom('request', 'requests', 'acks', 'action', 'surface:register', 'x-', 'results'), { minLength: 1, maxLength: 2 }).map((values) => ({
    text: `type:${values.join(',')}`,
    meets: (e: Ev) => values.some((v) => e.category === v || has(e.type, v)),
  })),
  fc.constantFrom('action:request', 'action:result', 'surface:register').map((t) => ({ text: t, meets: (e: Ev) => e.category === t || has(e.type, t) })),
  fc.constantFrom<'in' | 'out'>('in', 'out').map((d) => ({ text: `dir:${d}`, meets: (e: Ev) => e.dir === d })),
  fc.record({ op: fc.constantFrom(...OPS, ''), n: fc.constantFrom(0, 0.5, 1, 20, 500, 1.5), unit: fc.constantFrom('ms', 's', '') }).map(({ op, n, unit }) => ({
    text: `dur:${op}${n}${unit}`,
    meets: (e: Ev) => e.dur !== undefined && cmp(e.dur, op || '=', n * (unit === 's' ? 1000 : 1)),
  })),
  fc.record({ op: fc.constantFrom(...OPS), n: fc.constantFrom(0, 1, 100, 1.5), unit: fc.constantFrom('b', 'kb', 'mb', '', 'KB') }).map(({ op, n, unit }) => ({
    text: `size:${op}${n}${unit}`,
    meets: (e: Ev) => cmp(e.size, op, n * ({ b: 1, kb: 1024, mb: 1048576, '': 1 } as Record<string, number>)[unit.toLowerCase()]!),
  })),
  fc.constant({ text: 'has:finding', meets: (e: Ev) => e.finding }),
  fc.constantFrom<Flag>('experiment', 'faulted', 'injected', 'held').map((f) => ({ text: `is:${f}`, meets: (e: Ev) => e.flags.includes(f) })),
  fc.constantFrom('ca+rt', '^action', 'go|mug', '\\d{2}$', 'S[a-z]+ CART').map((src) => ({ text: `/${src}/`, meets: (e: Ev) => new RegExp(src, 'i').test(e.text) })),
);

const arbTerm: fc.Arbitrary<Gen> = fc.record({ neg: fc.boolean(), body: arbBody }).map(({ neg, body }) => (neg ? { text: `-${body.text}`, meets: (e: Ev) => !body.meets(e) } : body));
const arbQuery = fc.array(arbTerm, { maxLength: 4 });
const space = fc.constantFrom(' ', '  ', '\t');

describe('query grammar', () => {
  it('parses and evaluates every generated query as the grammar says: each term must hold, - negates', () => {
    fc.assert(
      fc.property(arbQuery, fc.array(space, { minLength: 4, maxLength: 4 }), fc.array(arbEv, { minLength: 1, maxLength: 12 }), (terms, gaps, events) => {
        const text = terms.map((t, i) => t.text + gaps[i % gaps.length]).join('');
        const parsed = parseQuery(text);
        assert.deepEqual(parsed.errors, [], text);
        assert.equal(parsed.terms.length, terms.length, text);
        for (const e of events) assert.equal(meetsTerms(e, parsed.terms, facts), terms.every((t) => t.meets(e)), `${text} on ${JSON.stringify(e)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('a query that narrows another admits only events the other admits', () => {
    fc.assert(
      fc.property(arbQuery, arbQuery, fc.array(arbEv, { minLength: 1, maxLength: 20 }), (a, b, events) => {
        const pa = parseQuery(a.map((t) => t.text).join(' ')).terms;
        const pb = parseQuery([...a, ...b].map((t) => t.text).join(' ')).terms;
        assert.ok(termsNarrow(pa, pb), 'adding terms narrows');
        // Typed further: each word's next query; where the product says it narrows, the reference must agree.
        for (const e of events) if (termsNarrow(pa, pb) && b.every((t) => t.meets(e)) && a.every((t) => t.meets(e))) assert.ok(meetsTerms(e, pa, facts));
      }),
      { numRuns: 500 },
    );
    // Typing one more character of a value or a number narrows; the reference says so too.
    const pairs: Array<[string, string, boolean]> = [
      ['surface:ca', 'surface:cart', true],
      ['-surface:cart', '-surface:ca', true],
      ['-surface:ca', '-surface:cart', false],
      ['dur:>5', 'dur:>50', true],
      ['dur:>50', 'dur:>5', false],
      ['size:<=10kb', 'size:<1kb', true],
      ['status:fail,run', 'status:failed', true],
      ['status:failed', 'status:fail,run', false],
      ['go', 'go mug', true],
      ['type:request', 'type:requests', false],
    ];
    for (const [a, b, narrows] of pairs) assert.equal(termsNarrow(parseQuery(a).terms, parseQuery(b).terms), narrows, `${a} → ${b}`);
  });

  it('never throws, and every error is placed within the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ':', '-', '"', '/', ' ', '>', '=', '\\', '(', '?', '1', 's', 'dur', 'size', 'is', 'has', 'type', 'dir') }), (text) => {
        const { errors } = parseQuery(text);
        for (const e of errors) assert.ok(e.at >= 0 && e.at <= e.end && e.end <= text.length, JSON.stringify({ text, e }));
      }),
      { numRuns: 3000 },
    );
  });

  it('says what is wrong and where, leaving the rest of the query to filter', () => {
    const q = 'surface:cart dur:>fast is:broken /(a)\\1/ "open';
    const { terms, errors } = parseQuery(q);
    assert.deepEqual(
      terms.map((t) => t.kind),
      ['key'],
    );
    assert.deepEqual(
      errors.map((e) => [q.slice(e.at, e.end), e.message.split(':')[0]]),
      [
        ['dur:>fast', 'dur'],
        ['is:broken', 'is'],
        ['/(a)\\1/', 'bad /regex/'],
        ['"open', 'unterminated quote'],
      ],
    );
    assert.equal(errorText(errors[0]!, q), 'dur: wants a duration such as >500ms or <=2s, not ">fast" (at column 14: "dur:>fast")');
    // Still being typed: no term, no error.
    for (const partial of ['surface:', 'dur:>', '-', '/', 'size:<=']) assert.deepEqual(parseQuery(partial), { terms: [], errors: [] }, partial);
    // A key the grammar does not have is text: a URL, a time of day.
    assert.deepEqual(
      parseQuery('http://x 12:30').terms.map((t) => t.kind === 'text' && t.value),
      ['http://x', '12:30'],
    );
  });
});

describe('query completion', () => {
  const known: KnownValues = { types: ['action:request', 'action:result', 'x-ping'], clients: ['websocket', 'ws:a'], surfaces: ['cart', 'catalog', 'my surface'], actions: ['add_item'], statuses: STATUSES };
  const labels = (text: string, caret = text.length) => complete(text, caret, known).items.map((i) => i.label);

  it('offers keys while the word has no colon, then its values', () => {
    assert.deepEqual(labels('s'), ['surface:', 'status:', 'size:']);
    assert.deepEqual(labels('-ty'), ['type:']);
    assert.deepEqual(labels('surface:ca'), ['cart', 'catalog']);
    assert.deepEqual(labels('surface:'), ['cart', 'catalog', 'my surface']);
    assert.deepEqual(labels('status:ed'), ['succeeded', 'failed', 'timed-out']);
    assert.deepEqual(labels('is:'), ['experiment', 'faulted', 'injected', 'held']);
    assert.deepEqual(labels('type:act').slice(0, 2), ['action:request', 'action:result']);
    assert.deepEqual(labels('/re'), []);
  });

  it('replaces the word at the caret, keeping "-", earlier alternatives, and quoting a value with a space', () => {
    const at = (text: string, caret: number, n = 0) => {
      const c = complete(text, caret, known);
      const item = c.items[n]!;
      return text.slice(0, c.from) + item.insert + text.slice(c.to);
    };
    assert.equal(at('go -surface:my dir:in', 14, 0), 'go -surface:"my surface" dir:in');
    assert.equal(at('status:failed,ti', 16), 'status:failed,timed-out');
    assert.equal(at('go su', 5), 'go surface:');
    // Every completed value parses back to the value it shows.
    for (const s of known.surfaces) {
      const text = `surface:${complete('surface:', 8, known).items.find((i) => i.label === s)!.insert.slice('surface:'.length)}`;
      const t = parseQuery(text).terms[0]!;
      assert.ok(t.kind === 'key' && t.values[0] === s, text);
    }
  });
});
