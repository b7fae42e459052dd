/**
 * Compare two sessions (src/session/compare): hand-built recordings of a
 * shop, before and after a change, and the sentences, findings and latency
 * a developer should read. The expected values are written here from what
 * the change is (the surfaces each build declares, the requests' times),
 * not from the code under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { surfacesHash, type OUISurface } from '../../src/protocol/index.ts';
import { compareSessions, percentile } from '../../src/session/compare/compare.ts';
import { schemaSentences } from '../../src/session/compare/surfaces.ts';
import { sideOfRecording } from '../../src/session/compare/side.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

const T0 = 1_767_225_600_000;
const client: WireClient = { key: 'h/c1', kind: 'websocket', label: 'ws://shop.test/oui', origin: 'http://shop.test', frameUrl: 'http://shop.test/', frameId: 0 };

/** A recording: registrations, requests answered after given durations, observation updates. */
class Rec {
  events: WireEvent[] = [];
  mounted: OUISurface[] = [];
  private n = 0;
  private req = 0;
  t = T0;
  constructor(private readonly tag: string) {
    this.push('lifecycle', 'open', undefined, 'out');
  }
  private push(kind: WireEvent['kind'], type: string | undefined, payload: unknown, dir: 'in' | 'out'): WireEvent {
    const ev: WireEvent = { id: `${this.tag}/c1/${this.n++}`, client: client.key, t: this.t, dir, kind, ...(type ? { type } : {}), ...(payload !== undefined ? { payload } : {}), size: 10 };
    this.events.push(ev);
    this.t += 1;
    return ev;
  }
  register(s: OUISurface): this {
    this.mounted = [...this.mounted.filter((m) => m.id !== s.id), s];
    this.push('event', 'surface:register', { surface: s, timestamp: this.t }, 'out');
    return this;
  }
  /** A request answered after `ms`; `hash: false` leaves the result's surfacesHash out (a finding). */
  call(surfaceId: string, actionId: string, params: unknown, ms: number, opts: { hash?: boolean } = {}): this {
    const requestId = `00000000-0000-4000-8000-${this.tag === 'a' ? 'a' : 'b'}${String(++this.req).padStart(11, '0')}`;
    const known = surfacesHash(this.mounted);
    this.push('event', 'action:request', { requestId, surfaceId, actionId, params, timestamp: this.t, knownSurfaces: known }, 'in');
    this.t += ms - 1;
    this.push('event', 'action:result', { requestId, success: true, data: {}, timestamp: this.t, ...(opts.hash === false ? {} : { surfacesHash: known }) }, 'out');
    return this;
  }
  update(surfaceId: string, observationId: string, value: unknown): this {
    this.push('event', 'observation:update', { surfaceId, observationId, value, timestamp: this.t }, 'out');
    return this;
  }
}

const obj = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required ? { required } : {}) }) as OUISurface['actions'][number]['input'];

function cartA(): OUISurface {
  return {
    id: 'cart',
    name: 'Cart',
    description: 'The cart',
    actions: [
      { id: 'add_item', description: 'Add', effect: 'edit', input: obj({ sku: { type: 'string' } }, ['sku']) },
      { id: 'place_order', description: 'Order', effect: 'transaction', input: obj({}) },
    ],
    observations: [{ id: 'total', description: 'Total', schema: { type: 'number' } }],
  };
}
function catalogA(): OUISurface {
  return { id: 'catalog', name: 'Catalog', description: 'Products', actions: [{ id: 'search', description: 'Search', effect: 'view', input: obj({ q: { type: 'string' }, limit: { type: 'integer' } }) }] };
}

function before(): Rec {
  return new Rec('a')
    .register(cartA())
    .register(catalogA())
    .call('catalog', 'search', { q: 'tea' }, 100)
    .call('catalog', 'search', { q: 'pot' }, 300)
    .call('cart', 'add_item', { sku: 'x' }, 40)
    // A total that is not a number: observation-invalid at cart.total, which the new build no longer has.
    .update('cart', 'total', 'twelve');
}

function after(): Rec {
  const cart = cartA();
  cart.actions.push({ id: 'clear_cart', description: 'Empty', effect: 'edit', confirm: true, input: obj({}) });
  cart.actions[1] = { ...cart.actions[1]!, effect: 'mutate' };
  cart.observations = [{ id: 'items', description: 'Items', schema: { type: 'array' } }];
  const catalog = catalogA();
  catalog.actions[0] = { ...catalog.actions[0]!, input: obj({ q: { type: 'string' }, limit: { type: 'integer' } }, ['limit']) };
  const checkout: OUISurface = { id: 'checkout', name: 'Checkout', description: 'Pay', actions: [{ id: 'pay', description: 'Pay', effect: 'transaction', input: obj({}) }] };
  return new Rec('b')
    .register(cart)
    .register(catalog)
    .register(checkout)
    .call('catalog', 'search', { q: 'tea', limit: 5 }, 50)
    // The new build forgets the hash on add_item's result: hash-missing at cart.add_item (§7.3.4: a client MUST send it).
    .call('cart', 'add_item', { sku: 'x' }, 60, { hash: false });
}

test('surfaces and capabilities as sentences: gained, lost, effect, required, observations, a new surface', () => {
  const a = before();
  const b = after();
  const c = compareSessions(sideOfRecording([client], a.events), sideOfRecording([client], b.events));
  assert.deepEqual(
    c.sentences.map((s) => s.text).sort(),
    [
      '`cart` gained action `clear_cart` (edit, confirm)',
      '`cart.place_order` effect: transaction → mutate',
      '`cart` gained observation `items` (on-change)',
      '`cart` lost observation `total`',
      '`catalog.search` input: `limit` became required',
      'surface `checkout` appeared (actions `pay`; observations none)',
    ].sort(),
  );
  const kinds = Object.fromEntries(c.sentences.map((s) => [s.text, s.kind]));
  assert.equal(kinds['`cart` lost observation `total`'], 'removed');
  assert.equal(kinds['surface `checkout` appeared (actions `pay`; observations none)'], 'added');
});

test('findings added and gone by rule and place, whatever their event and request ids', () => {
  const c = compareSessions(sideOfRecording([client], before().events), sideOfRecording([client], after().events));
  assert.deepEqual(c.findings.added.map((f) => `${f.rule} @ ${f.place}`), ['hash-missing @ cart.add_item']);
  assert.deepEqual(c.findings.gone.map((f) => `${f.rule} @ ${f.place}`), ['observation-invalid @ cart.total']);
  // The same recording against itself (ids differ: a fresh tag): nothing added, nothing gone.
  const again = before();
  const same = compareSessions(sideOfRecording([client], before().events), sideOfRecording([client], again.events.map((e) => ({ ...e, id: `z${e.id}` }))));
  assert.equal(same.findings.added.length + same.findings.gone.length, 0);
  assert.equal(same.findings.kept, 1);
  assert.deepEqual(same.sentences, []);
});

test('latency per action: count, p50, p95, max, before and after', () => {
  const c = compareSessions(sideOfRecording([client], before().events), sideOfRecording([client], after().events));
  const row = (action: string) => c.latency.find((r) => r.action === action);
  // Before: searches took 100 and 300 ms (nearest rank: p50 is the 1st of 2, p95 the 2nd).
  assert.deepEqual(row('catalog.search'), { action: 'catalog.search', before: { count: 2, p50: 100, p95: 300, max: 300 }, after: { count: 1, p50: 50, p95: 50, max: 50 } });
  assert.deepEqual(row('cart.add_item'), { action: 'cart.add_item', before: { count: 1, p50: 40, p95: 40, max: 40 }, after: { count: 1, p50: 60, p95: 60, max: 60 } });
  assert.deepEqual(c.latency.map((r) => r.action), ['cart.add_item', 'catalog.search']);
});

test('nearest-rank percentiles of 1..20', () => {
  const s = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.equal(percentile(s, 50), 10);
  assert.equal(percentile(s, 95), 19);
  assert.equal(percentile(s, 100), 20);
});

test('schema sentences: added and removed properties, types, other keywords', () => {
  const a = { type: 'object', properties: { q: { type: 'string' }, page: { type: 'integer' }, n: { type: 'integer', maximum: 10 } }, required: ['q'] };
  const b = { type: 'object', properties: { q: { type: 'number' }, sort: { type: 'string' }, n: { type: 'integer', maximum: 20 } }, required: ['sort'], additionalProperties: false };
  assert.deepEqual(schemaSentences('`s.a` input', a, b), [
    '`s.a` input: `page` removed',
    '`s.a` input: `q` type string → number',
    '`s.a` input: `q` is no longer required',
    '`s.a` input: `sort` added (string, required)',
    '`s.a` input: `n` changed (maximum)',
    '`s.a` input changed (additionalProperties)',
  ]);
});
