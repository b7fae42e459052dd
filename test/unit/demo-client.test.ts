/**
 * The demo's OUI client runtime (test/demo/app/oui-client.ts) in Node, over a
 * fake link: activation, validation, approvals, §7.3.4 hashes, §7.3.6 trimmed
 * re-sends, §7.3.7 receipts and repeats, observation batching.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionError, OUIClient, routeMatches, type ClientLink } from '../demo/app/oui-client.ts';
// Expected values from the product's helpers: the demo client computes them with its own (test/demo/independent).
import { argsHashSync, surfacesHash } from '../../src/protocol/index.ts';
import type { OUIActionResult, OUISurface } from '../../src/protocol/index.ts';
import type { ActivityEntry } from '../demo/app/oui-client.ts';
import { until } from '../support/wait.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Sent {
  type: string;
  payload: any;
  onAck?: (ack: unknown) => void;
}

class FakeLink implements ClientLink {
  connected = true;
  sent: Sent[] = [];
  private handlers = new Set<(type: string, payload: unknown, ack?: (v: unknown) => void) => void>();
  private status = new Set<(up: boolean) => void>();
  send(type: string, payload: unknown, onAck?: (ack: unknown) => void) {
    this.sent.push({ type, payload, ...(onAck ? { onAck } : {}) });
  }
  onMessage(h: (type: string, payload: unknown, ack?: (v: unknown) => void) => void) {
    this.handlers.add(h);
    return () => void this.handlers.delete(h);
  }
  onStatus(h: (up: boolean) => void) {
    this.status.add(h);
    return () => void this.status.delete(h);
  }
  deliver(type: string, payload: unknown, ack?: (v: unknown) => void) {
    for (const h of this.handlers) h(type, payload, ack);
  }
  setConnected(up: boolean) {
    this.connected = up;
    for (const h of this.status) h(up);
  }
  of(type: string) {
    return this.sent.filter((s) => s.type === type);
  }
  results(requestId?: string): OUIActionResult[] {
    return this.of('action:result')
      .map((s) => s.payload as OUIActionResult)
      .filter((r) => !requestId || r.requestId === requestId);
  }
  async waitResult(requestId: string, n = 1) {
    const finals = () => this.results(requestId).filter((r) => !r.interim);
    await until(() => finals().length >= n, `result ${n} of ${requestId}`, 10_000);
    return finals().at(-1)!;
  }
}

const noteSurface: OUISurface = {
  id: 'notes',
  name: 'Notes',
  description: 'test',
  activation: { routes: ['/'] },
  actions: [
    { id: 'add', description: 'add', effect: 'edit', input: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'], additionalProperties: false } },
    { id: 'wipe', description: 'wipe', effect: 'edit', confirm: true, input: { type: 'object', properties: {} } },
    { id: 'peek', description: 'peek', effect: 'view', confirm: true, input: { type: 'object', properties: {} } },
    { id: 'pay', description: 'pay', effect: 'transaction', input: { type: 'object', properties: { amount: { type: 'number', minimum: 1 } }, required: ['amount'] } },
    { id: 'slow', description: 'slow', effect: 'job', async: true, input: { type: 'object', properties: {} } },
    { id: 'boom', description: 'boom', effect: 'edit', input: { type: 'object' } },
  ],
  observations: [
    { id: 'count', description: 'count', schema: { type: 'integer' }, updateFrequency: 'on-change' },
    { id: 'tick', description: 'tick', schema: { type: 'integer' }, updateFrequency: 'realtime' },
    { id: 'heavy', description: 'heavy', schema: { type: 'integer' }, updateFrequency: 'polling' },
  ],
};
const otherSurface: OUISurface = {
  id: 'other-page',
  name: 'Other',
  description: 'test',
  activation: { routes: '/other/**' },
  actions: [{ id: 'noop', description: 'noop', effect: 'view', input: { type: 'object' } }],
};

function setup(extra: Partial<ConstructorParameters<typeof OUIClient>[0]> = {}) {
  const link = new FakeLink();
  let route = '/';
  const notes: string[] = [];
  let tick = 0;
  let release: (() => void) | null = null;
  const warnings: unknown[][] = [];
  const activity: ActivityEntry[] = [];
  // The client's clock runs with real time plus a skew a test can add to (expiry and
  // re-answer intervals without sleeping them out; settling still sees time pass).
  let skew = 0;
  const client = new OUIClient({
    name: 'test',
    link,
    route: () => route,
    reanswerMs: 400,
    settleQuietMs: 5,
    warn: (...a) => warnings.push(a),
    now: () => Date.now() + skew,
    onActivity: (e) => activity.push(e),
    ...extra,
  });
  client.define({
    surface: noteSurface,
    handlers: {
      add: (p: { text: string }) => {
        notes.push(p.text);
        client.notify();
        return { count: notes.length };
      },
      wipe: () => ({ wiped: notes.splice(0).length }),
      peek: () => ({ notes: [...notes] }),
      pay: (p: { amount: number }) => ({ paid: p.amount }),
      slow: async (_p, ctx) => {
        await new Promise<void>((r) => (release = r));
        ctx.progress(50, { half: true });
        await sleep(5);
        return { done: true };
      },
      boom: () => {
        throw new ActionError('app:boom', 'it went boom', { why: 'test' });
      },
    },
    observe: { count: () => notes.length, tick: () => tick, heavy: () => 42 },
  });
  client.define({ surface: otherSurface, handlers: { noop: () => ({}) } });
  let seq = 0;
  const request = (actionId: string, params: unknown, more: Record<string, unknown> = {}, receipt?: (v: unknown) => void) => {
    const requestId = `r${++seq}`;
    link.deliver('action:request', { requestId, surfaceId: 'notes', actionId, params, timestamp: Date.now(), ...more }, receipt);
    return requestId;
  };
  return {
    link,
    client,
    notes,
    warnings,
    activity,
    advance: (ms: number) => void (skew += ms),
    request,
    setRoute: (r: string) => {
      route = r;
      client.setRoute();
    },
    setTick: (n: number) => {
      tick = n;
      client.notify();
    },
    release: () => release?.(),
  };
}

describe('demo OUI client', () => {
  test('route globs (§6.2)', () => {
    assert.ok(routeMatches('/documents', '/documents'));
    assert.ok(!routeMatches('/documents', '/documents/a'));
    assert.ok(routeMatches('/documents/*', '/documents/abc'));
    assert.ok(!routeMatches('/documents/*', '/documents/abc/edit'));
    assert.ok(routeMatches('/documents/**', '/documents/abc/edit/v2'));
    assert.ok(routeMatches('/users/*/settings', '/users/123/settings'));
    assert.ok(routeMatches('/**', '/'));
    assert.ok(routeMatches('/**', '/cart'));
    assert.ok(!routeMatches('/', '/cart'));
  });

  test('surfaces mount, unmount and hot-replace with the route', () => {
    const { link, client, setRoute } = setup();
    assert.deepEqual(link.of('surface:register').map((s) => s.payload.surface.id), ['notes']);
    setRoute('/other/x/y');
    assert.deepEqual(link.of('surface:deregister').map((s) => s.payload.surfaceId), ['notes']);
    assert.deepEqual(link.of('surface:register').map((s) => s.payload.surface.id), ['notes', 'other-page']);
    assert.deepEqual(client.mounted().map((s) => s.id), ['other-page']);
    client.define({ surface: { ...otherSurface, version: '2.0.0' }, handlers: { noop: () => ({}) } });
    const last = link.of('surface:register').at(-1)!.payload.surface;
    assert.equal(last.version, '2.0.0');
    assert.equal(link.of('surface:deregister').length, 1, 'a hot change replaces, it does not deregister');
  });

  test('results carry surfacesHash, surfaces only when the runtime lacks them, observations', async () => {
    const { link, client, request } = setup();
    const hash = surfacesHash(client.mounted());
    const receipts: unknown[] = [];
    const a = request('add', { text: 'one' }, {}, (v) => receipts.push(v));
    const ra = await link.waitResult(a);
    assert.deepEqual(receipts, [{ ok: true }]);
    assert.equal(ra.success, true);
    assert.deepEqual(ra.data, { count: 1 });
    assert.equal(ra.surfacesHash, hash);
    assert.deepEqual(ra.surfaces, client.mounted(), 'no knownSurfaces: surfaces sent');
    assert.deepEqual(ra.observations, { notes: { count: 1, tick: 0, heavy: 42 } });
    assert.equal(ra.interim, undefined);
    const b = request('add', { text: 'two' }, { knownSurfaces: hash });
    const rb = await link.waitResult(b);
    assert.equal(rb.surfaces, undefined);
    assert.equal(rb.surfacesHash, hash);
    const c = request('add', { text: 'three' }, { knownSurfaces: 'fnv1a64:0000000000000000' });
    assert.ok((await link.waitResult(c)).surfaces);
  });

  test('validation, unknown surface/action, handler errors, malformed requests', async () => {
    const { link, request, warnings } = setup();
    const v = request('add', { text: '' });
    const rv = await link.waitResult(v);
    assert.equal(rv.error?.code, 'VALIDATION_ERROR');
    assert.ok(rv.surfacesHash);
    assert.equal((await link.waitResult(request('fly', {}))).error?.code, 'ACTION_NOT_FOUND');
    assert.deepEqual((await link.waitResult(request('boom', {}))).error, { code: 'app:boom', message: 'it went boom', details: { why: 'test' } });
    link.deliver('action:request', { requestId: 'x1', surfaceId: 'ghost', actionId: 'a', params: {}, timestamp: 1 });
    assert.equal((await link.waitResult('x1')).error?.code, 'SURFACE_UNAVAILABLE');
    const receipts: unknown[] = [];
    link.deliver('action:request', { surfaceId: 'notes' }, (r) => receipts.push(r));
    link.deliver('action:request', 'garbage');
    assert.equal((receipts[0] as { ok: boolean }).ok, false);
    assert.ok(warnings.length >= 2);
    const before = warnings.length;
    link.deliver('x-whatever:thing', { a: 1 });
    assert.equal(warnings.length, before, 'x- events are ignored silently');
  });

  test('approvals: single-use grants for exact params, expiry, denial; read effects need none', async () => {
    let approve = true;
    const { link, request, advance } = setup({ onApprovalAsk: async () => approve, grantTtlMs: 800 });
    const params = { amount: 5 };
    const none = await link.waitResult(request('pay', params));
    assert.equal(none.error?.code, 'ACTION_DENIED');
    link.deliver('x-approval:ask', { approvalId: 'g1', surfaceId: 'notes', actionId: 'pay', params, title: 'Pay' });
    await until(() => link.of('x-approval:granted').length === 1, 'the grant for g1');
    const granted = link.of('x-approval:granted').at(-1)!.payload;
    assert.equal(granted.approvalId, 'g1');
    assert.equal(granted.argsHash, argsHashSync(params));
    const other = await link.waitResult(request('pay', { amount: 6 }, { approval: { approvalId: 'g1', argsHash: granted.argsHash } }));
    assert.match(other.error!.message, /params differ/);
    const ok = await link.waitResult(request('pay', params, { approval: { approvalId: 'g1', argsHash: granted.argsHash } }));
    assert.equal(ok.success, true);
    const reuse = await link.waitResult(request('pay', params, { approval: { approvalId: 'g1', argsHash: granted.argsHash } }));
    assert.match(reuse.error!.message, /already used/);

    // Two copies back to back (a runtime's reused grant, a duplicate under a new requestId): one runs, the other finds it used.
    link.deliver('x-approval:ask', { approvalId: 'g4', surfaceId: 'notes', actionId: 'pay', params, title: 'Pay' });
    await until(() => link.of('x-approval:granted').some((g) => g.payload.approvalId === 'g4'), 'the grant for g4');
    const g4 = { approvalId: 'g4', argsHash: argsHashSync(params) };
    const [one, two] = [request('pay', params, { approval: g4 }), request('pay', params, { approval: g4 })];
    const both = [await link.waitResult(one), await link.waitResult(two)];
    assert.deepEqual(both.map((r) => r.success), [true, false], 'only the first copy ran');
    assert.match(both[1]!.error!.message, /already used/);

    link.deliver('x-approval:ask', { approvalId: 'g2', surfaceId: 'notes', actionId: 'wipe', params: {}, title: 'Wipe' });
    await until(() => link.of('x-approval:granted').some((g) => g.payload.approvalId === 'g2'), 'the grant for g2');
    advance(850); // past the 800 ms lifetime
    const expired = await link.waitResult(request('wipe', {}, { approval: { approvalId: 'g2', argsHash: argsHashSync({}) } }));
    assert.match(expired.error!.message, /expired/);

    approve = false;
    link.deliver('x-approval:ask', { approvalId: 'g3', surfaceId: 'notes', actionId: 'wipe', params: {}, title: 'Wipe' });
    await until(() => link.of('x-approval:denied').length > 0, 'the denial of g3');
    assert.equal(link.of('x-approval:denied').at(-1)!.payload.approvalId, 'g3');
    assert.ok(!link.of('x-approval:granted').some((g) => g.payload.approvalId === 'g3'));

    const peek = await link.waitResult(request('peek', {}));
    assert.equal(peek.success, true, 'confirm on a read effect needs no approval');
  });

  test('refused results are re-sent trimmed, twice at most; success and error stay', async () => {
    const { link, request } = setup();
    const id = request('add', { text: 'big' });
    await link.waitResult(id);
    const first = link.of('action:result').at(-1)!;
    first.onAck!({ ok: false, error: 'result too large: 9000 bytes > 100' });
    const second = link.of('action:result').at(-1)!;
    assert.deepEqual(second.payload.delivery, { trimmed: true, reason: 'result too large: 9000 bytes > 100', omitted: ['surfaces', 'observations'] });
    assert.equal(second.payload.surfaces, undefined);
    assert.equal(second.payload.observations, undefined);
    assert.deepEqual(second.payload.data, { count: 1 });
    assert.equal(second.payload.success, true);
    second.onAck!({ ok: false, reason: 'still too large' });
    const third = link.of('action:result').at(-1)!;
    assert.deepEqual(third.payload.delivery.omitted, ['surfaces', 'observations', 'data']);
    assert.equal(third.payload.delivery.reason, 'still too large');
    assert.equal(third.payload.data, undefined);
    assert.equal(third.payload.success, true);
    third.onAck!({ ok: false, error: 'no' });
    assert.equal(link.results(id).length, 3);
  });

  test('repeats: run once; no answer while working, once acknowledged, or while young; the same answer later', async () => {
    const { link, request, release, notes, activity, advance } = setup();
    const receipts: unknown[] = [];
    const ignored = (id: string, why: RegExp) => activity.filter((e) => e.requestId === id && e.kind === 'repeat-ignored' && why.test(e.note ?? ''));
    // while working (async job waits for release; its handler runs once the acknowledgment is out)
    const slow = request('slow', {});
    await until(() => link.results(slow).length === 1, 'the acknowledgment of the slow job');
    link.deliver('action:request', { requestId: slow, surfaceId: 'notes', actionId: 'slow', params: {}, timestamp: 1 }, (r) => receipts.push(r));
    assert.equal(ignored(slow, /still being worked out/).length, 1, 'the repeat while working was ignored');
    release();
    const final = await link.waitResult(slow);
    assert.deepEqual(link.results(slow).map((r) => [r.interim, r.progress]), [[true, 0], [true, 50], [false, undefined]]);
    assert.equal(final.surfaces, undefined, 'final compared with the acknowledgment hash');
    assert.ok(link.results(slow)[0]!.surfaces, 'the acknowledgment had no knownSurfaces to compare with');

    // acknowledged
    const a = request('add', { text: 'x' });
    await link.waitResult(a);
    link.of('action:result').at(-1)!.onAck!({ ok: true });
    advance(420); // older than reanswerMs (400), but acknowledged
    link.deliver('action:request', { requestId: a, surfaceId: 'notes', actionId: 'add', params: { text: 'x' }, timestamp: 1 }, (r) => receipts.push(r));
    await until(() => ignored(a, /acknowledged/).length === 1, 'the acknowledged repeat ignored');
    assert.equal(link.results(a).length, 1);

    // unacknowledged: young, then old
    const b = request('add', { text: 'y' });
    await link.waitResult(b);
    link.deliver('action:request', { requestId: b, surfaceId: 'notes', actionId: 'add', params: { text: 'y' }, timestamp: 1 }, (r) => receipts.push(r));
    await until(() => ignored(b, /first answer sent/).length === 1, 'the young repeat ignored');
    assert.equal(link.results(b).length, 1);
    advance(420);
    link.deliver('action:request', { requestId: b, surfaceId: 'notes', actionId: 'add', params: { text: 'y' }, timestamp: 1 }, (r) => receipts.push(r));
    await until(() => link.results(b).length === 2, 'the old repeat answered again');
    assert.deepEqual(link.results(b)[1], link.results(b)[0]);
    assert.deepEqual(notes, ['x', 'y'], 'each ran once');
    assert.deepEqual(receipts, [{ ok: true }, { ok: true }, { ok: true }, { ok: true }]);
  });

  test('observations: on-change batched to 10/s, realtime at once, polling only on request', async () => {
    const { link, request, setTick } = setup({ now: () => Date.now() });
    const countUpdates = () => link.of('observation:update').filter((u) => u.payload.observationId === 'count');
    await until(() => countUpdates().length === 1, 'the first batch (count 0)');
    const start = link.of('observation:update').length;
    const t0 = Date.now();
    for (let i = 1; i <= 30; i++) await link.waitResult(request('add', { text: `n${i}` }));
    await until(() => countUpdates().at(-1)?.payload.value === 30, 'the batch with count 30');
    const updates = link.of('observation:update').slice(start).map((s) => s.payload);
    const counts = updates.filter((u) => u.observationId === 'count');
    const seconds = (Date.now() - t0) / 1000;
    assert.ok(counts.length <= Math.ceil(seconds * 10) + 1, `${counts.length} updates in ${seconds}s`);
    assert.equal(counts.at(-1).value, 30, 'the latest value is delivered');
    assert.ok(!updates.some((u) => u.observationId === 'heavy'), 'polling observations are not pushed');

    const before = link.of('observation:update').length;
    for (let i = 1; i <= 5; i++) setTick(i);
    assert.equal(link.of('observation:update').length - before, 5, 'realtime: each change at once');

    const acks: unknown[] = [];
    link.deliver('observation:request', { surfaceId: 'notes', observationId: 'heavy' }, (a) => acks.push(a));
    assert.equal(acks.length, 1);
    assert.deepEqual(acks[0], { ok: true });
    assert.equal(link.of('observation:update').at(-1)!.payload.value, 42);
    link.deliver('observation:request', { surfaceId: 'notes', observationId: 'nope' }, (a) => acks.push(a));
    assert.equal((acks[1] as { ok: boolean }).ok, false);
  });

  test('re-registers everything on reconnect', () => {
    const { link } = setup();
    const n = link.of('surface:register').length;
    link.setConnected(false);
    link.setConnected(true);
    assert.equal(link.of('surface:register').length, n + 1);
  });
});
