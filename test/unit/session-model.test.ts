/**
 * The session model's state: per-client separation, surfaces and their
 * lifecycle, request pairing, acknowledgments, approvals, deduplication.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argsHashSync, surfacesHash } from '../../src/protocol/index.ts';
import { SessionModel, replay } from '../../src/session/model/session-model.ts';
import { T0, Traffic, cartSurface, catalogSurface, findingsOf, makeClient, rules, uuid, withCart } from './session-helpers.ts';

const ADD = { sku: 'a', qty: 1 };
const OK = { success: true, data: { count: 1 } };

describe('per-client separation (§7.3.5)', () => {
  it('never mixes surfaces, observations, requests or findings of two clients with the same surface id', () => {
    const a = new Traffic(makeClient('tab/a'));
    const b = new Traffic(makeClient('tab/b'));
    a.open();
    b.open();
    a.register(cartSurface());
    b.register({ ...catalogSurface(), id: 'cart' });
    a.update('cart', 'total', 10);
    b.update('cart', 'total', 99);
    // add_item exists on a's cart only.
    const ra = a.request('cart', 'add_item', ADD);
    const rb = b.request('cart', 'add_item', ADD);
    const events = [...a.events, ...b.events].sort((x, y) => x.ev.t - y.ev.t);
    const m = replay(events);
    assert.equal(m.clients.size, 2);
    const ca = m.clients.get('tab/a')!;
    const cb = m.clients.get('tab/b')!;
    assert.equal(ca.surfaces.get('cart')!.surface.name, 'Cart');
    assert.equal(cb.surfaces.get('cart')!.surface.name, 'Catalog');
    assert.equal(ca.observations.get('cart/total')!.current, 10);
    // b's cart declares no total: its update is unknown there, and its value stays in b.
    assert.equal(cb.observations.get('cart/total')!.current, 99);
    assert.ok(ca.requests.has(ra.requestId) && !ca.requests.has(rb.requestId));
    assert.ok(ca.requests.get(ra.requestId)!.action, 'a knows add_item');
    assert.equal(cb.requests.get(rb.requestId)!.action, undefined);
    const unknown = findingsOf(m, 'request-unknown-action');
    assert.deepEqual(unknown.map((f) => f.client), ['tab/b']);
    assert.deepEqual(findingsOf(m, 'observation-unknown').map((f) => f.client), ['tab/b']);
  });

  it('dedupes per client: the same mistake in two clients is two findings', () => {
    const a = new Traffic(makeClient('a'));
    const b = new Traffic(makeClient('b'));
    for (const tr of [a, b]) {
      tr.register(cartSurface());
      const { requestId } = tr.request('cart', 'view_cart');
      tr.result(requestId, { success: true }, ['surfacesHash']);
    }
    const m = replay([...a.events, ...b.events]);
    assert.deepEqual(findingsOf(m, 'hash-missing').map((f) => f.client).sort(), ['a', 'b']);
  });
});

describe('surfaces and their lifecycle (§7.2, §7.6.1)', () => {
  it('registers, replaces on the same id, deregisters and discards observation state', () => {
    const tr = new Traffic();
    tr.register(cartSurface());
    tr.update('cart', 'total', 5);
    tr.wait(10);
    tr.register(cartSurface({ name: 'Basket' }));
    tr.wait(10);
    tr.deregister('cart');
    const c = tr.model().clients.get('c1')!;
    assert.deepEqual(
      c.lifecycle.map((l) => `${l.surfaceId}:${l.kind}`),
      ['cart:registered', 'cart:replaced', 'cart:deregistered'],
    );
    assert.equal(c.surfaces.size, 0);
    assert.equal(c.observations.size, 0);
    assert.deepEqual(
      c.surfaceSets.map((s) => s.summary),
      [['added surface cart'], ['changed name of surface cart'], ['removed surface cart']],
    );
  });

  it('keeps the observation state a re-registration still declares', () => {
    const tr = withCart();
    tr.update('cart', 'total', 5);
    tr.update('cart', 'items', []);
    const s = cartSurface();
    tr.register({ ...s, observations: s.observations!.filter((o) => o.id === 'total') });
    const c = tr.model().clients.get('c1')!;
    assert.deepEqual([...c.observations.keys()], ['cart/total']);
  });

  it('resolves pending requests SURFACE_UNAVAILABLE on deregistration, only those to that surface', () => {
    const tr = withCart();
    tr.register(catalogSurface());
    const toCart = tr.request('cart', 'view_cart');
    const toCatalog = tr.request('catalog', 'search', { q: 'x' });
    tr.wait(5);
    const dereg = tr.deregister('cart');
    const c = tr.model().clients.get('c1')!;
    const r = c.requests.get(toCart.requestId)!;
    assert.equal(r.status, 'failed');
    assert.deepEqual(r.resolution, { code: 'SURFACE_UNAVAILABLE', t: T0 + 5, eventId: dereg.id, why: 'surface cart deregistered' });
    assert.equal(c.requests.get(toCatalog.requestId)!.status, 'pending');
  });

  it('a lost transport deregisters everything and resolves every pending request', () => {
    const tr = withCart();
    tr.register(catalogSurface());
    tr.update('cart', 'total', 1);
    const r1 = tr.request('cart', 'view_cart');
    const r2 = tr.request('catalog', 'search', {});
    tr.close('close');
    tr.wait(100);
    tr.result(r1.requestId, { success: true });
    const m = tr.model();
    const c = m.clients.get('c1')!;
    assert.equal(c.surfaces.size, 0);
    assert.equal(c.observations.size, 0);
    assert.deepEqual(c.lifecycle.filter((l) => l.kind === 'cleared').map((l) => l.surfaceId), ['cart', 'catalog']);
    assert.equal(c.requests.get(r1.requestId)!.resolution?.why, 'transport lost (close)');
    assert.equal(c.requests.get(r2.requestId)!.status, 'failed');
    // The late answer is the runtime's to discard (§7.6.1), never the client's fault.
    assert.deepEqual(m.findings.map((f) => f.rule), []);
    assert.deepEqual(c.surfaceSets.at(-1)!.summary, ['removed surface cart', 'removed surface catalog']);
  });

  it("a result's surfaces replace the mounted set (reported), with a surface-set change", () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.mounted = [catalogSurface()];
    tr.wait(10);
    const res = tr.result(requestId, { success: true });
    const c = tr.model().clients.get('c1')!;
    assert.deepEqual([...c.surfaces.keys()], ['catalog']);
    assert.deepEqual(
      c.lifecycle.filter((l) => l.eventId === res.id).map((l) => `${l.surfaceId}:${l.kind}`),
      ['catalog:reported', 'cart:deregistered'],
    );
    const change = c.surfaceSets.at(-1)!;
    assert.equal(change.eventId, res.id);
    assert.deepEqual(change.summary, ['removed surface cart', 'added surface catalog']);
    assert.equal(change.after, surfacesHash([catalogSurface()]));
  });

  it('a report of the same set changes nothing', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true });
    const c = tr.model().clients.get('c1')!;
    assert.equal(c.surfaceSets.length, 1);
    assert.equal(c.lifecycle.length, 1);
  });
});

describe('requests and results', () => {
  it('pairs sends, receipts, results and acknowledgments; status and duration', () => {
    const tr = withCart();
    const { ev, requestId } = tr.request('cart', 'add_item', ADD);
    let m = tr.model();
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'pending');
    tr.wait(5);
    tr.receipt(ev);
    m = tr.model();
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'running');
    tr.wait(120);
    const res = tr.result(requestId, OK);
    tr.resultAck(res);
    m = tr.model();
    const r = m.clients.get('c1')!.requests.get(requestId)!;
    assert.equal(r.status, 'succeeded');
    assert.equal(r.durationMs, 125);
    assert.equal(r.sends.length, 1);
    assert.deepEqual(r.receipts.map((x) => x.ok), [true]);
    assert.equal(r.results.length, 1);
    assert.equal(r.results[0]!.ack?.ok, true);
    assert.equal(r.action?.id, 'add_item');
    assert.deepEqual(m.clients.get('c1')!.acks.map((a) => a.kind), ['receipt', 'result-ack']);
    assert.deepEqual(m.findings, []);
  });

  it('a failed result is failed; a refused receipt ends the request without a timeout', () => {
    const tr = withCart();
    const a = tr.request('cart', 'view_cart');
    tr.result(a.requestId, { success: false, error: { code: 'PRECONDITION_FAILED', message: 'empty' } });
    const b = tr.request('cart', 'view_cart');
    tr.receipt(b.ev, { ok: false, reason: 'shutting down' });
    const m = tr.model();
    m.tick(T0 + 60_000);
    const c = m.clients.get('c1')!;
    assert.equal(c.requests.get(a.requestId)!.status, 'failed');
    assert.equal(c.requests.get(b.requestId)!.status, 'failed');
    assert.equal(c.requests.get(b.requestId)!.receipts[0]!.reason, 'shutting down');
    assert.deepEqual(rules(m), []);
  });

  it('async: interim then final, status running then succeeded', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'export_cart');
    tr.wait(100);
    tr.result(requestId, { success: true, interim: true, progress: 0 });
    let m = tr.model();
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'running');
    tr.wait(40_000);
    tr.result(requestId, { success: true, interim: false, data: { url: 'x' } });
    m = tr.model();
    const r = m.clients.get('c1')!.requests.get(requestId)!;
    assert.equal(r.status, 'succeeded');
    assert.equal(r.results.length, 2);
    // An async action's execution is not held to the 30 s sync deadline.
    assert.deepEqual(rules(m), []);
  });

  it("a sync result past the runtime's deadline times the request out and blames nobody (§7.5: the timer is the runtime's)", () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.wait(31_200);
    tr.result(requestId, { success: true });
    const m = tr.model();
    assert.deepEqual(rules(m), []);
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'timed-out');
  });

  it('the deadline is the timer the user says the runtime runs with', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.wait(31_200);
    tr.result(requestId, { success: true });
    const m = tr.model({ timers: { syncMs: 60_000 } });
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'succeeded');
  });

  it('tick times a request out once, however often it runs, and raises nothing', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    const m = tr.model();
    for (let i = 0; i < 100; i++) m.tick(T0 + 30_000 + i * 1000);
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'timed-out');
    assert.deepEqual(rules(m), []);
  });

  it('records trimmed re-sends with what they left out, and the re-send stands for the answer', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const r1 = tr.result(requestId, OK);
    tr.resultAck(r1, { ok: false, error: 'payload too large' });
    const r2 = tr.result(requestId, { ...OK, delivery: { trimmed: true, reason: 'payload too large', omitted: ['surfaces', 'observations'] } }, ['surfaces']);
    tr.resultAck(r2, { ok: false, error: 'still too large' });
    const r3 = tr.result(requestId, { success: true, delivery: { trimmed: true, reason: 'still too large', omitted: ['surfaces', 'observations', 'data'] } }, ['surfaces']);
    tr.resultAck(r3);
    const m = tr.model();
    m.tick(T0 + 60_000);
    const c = m.clients.get('c1')!;
    assert.deepEqual(rules(m), []);
    const trims = c.acks.filter((a) => a.kind === 'trimmed-resend');
    assert.deepEqual(trims.map((a) => a.omitted), [['surfaces', 'observations'], ['surfaces', 'observations', 'data']]);
    assert.deepEqual(c.acks.filter((a) => a.kind === 'result-ack').map((a) => [a.ok, a.reason]), [
      [false, 'payload too large'],
      [false, 'still too large'],
      [true, undefined],
    ]);
    assert.equal(c.requests.get(requestId)!.status, 'succeeded');
  });

  it('says how a repeat was handled', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(50);
    tr.result(requestId, OK);
    tr.wait(1_000);
    const rep1 = tr.request('cart', 'add_item', ADD, { requestId });
    tr.receipt(rep1.ev);
    tr.wait(9_000);
    const rep2 = tr.request('cart', 'add_item', ADD, { requestId });
    tr.receipt(rep2.ev);
    tr.result(requestId, OK);
    const m = tr.model();
    const repeats = m.clients.get('c1')!.acks.filter((a) => a.kind === 'repeat');
    // rep1 came within the interval and was left unanswered; the answer after rep2 answers rep2.
    assert.deepEqual(repeats.map((a) => a.handling), ['receipt only', 'answered again with the same result']);
    assert.deepEqual(rules(m), []);
  });

  it('a repeat answered after the re-answer interval with the same result is conformant', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.result(requestId, OK);
    tr.wait(8_500);
    const rep = tr.request('cart', 'add_item', ADD, { requestId });
    tr.receipt(rep.ev);
    tr.result(requestId, OK);
    const m = tr.model();
    assert.deepEqual(rules(m), []);
    const r = m.clients.get('c1')!.requests.get(requestId)!;
    assert.deepEqual(r.results.map((x) => x.forRepeat === true), [false, true]);
    assert.equal(r.sends.length, 2);
  });
});

describe('approvals', () => {
  it('records the check: carried, recomputed, match, outcome', () => {
    const tr = withCart();
    const params = { note: 'gift' };
    const hash = argsHashSync(params);
    tr.event('x-approval:granted', { approvalId: 'ap1', argsHash: hash, expiresAt: T0 + 60_000 }, 'out');
    const { requestId } = tr.request('cart', 'place_order', params, { approval: { approvalId: 'ap1', argsHash: hash } });
    tr.result(requestId, { success: true });
    const clear = tr.request('cart', 'clear_cart', {});
    tr.result(clear.requestId, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } });
    const view = tr.request('cart', 'view_cart', {});
    tr.result(view.requestId, { success: true });
    const m = tr.model();
    const checks = m.clients.get('c1')!.approvals;
    assert.equal(checks.length, 2, 'view_cart needs no approval');
    const [order, cl] = checks;
    assert.equal(order!.requestId, requestId);
    assert.equal(order!.effect, 'transaction');
    assert.equal(order!.confirm, false);
    assert.deepEqual(order!.carried, { approvalId: 'ap1', argsHash: hash });
    assert.deepEqual(order!.recomputed, { ok: true, hash });
    assert.equal(order!.hashMatches, true);
    assert.equal(order!.expiresAt, T0 + 60_000);
    assert.equal(order!.outcome, 'ran');
    assert.equal(cl!.actionId, 'clear_cart');
    assert.equal(cl!.confirm, true);
    assert.equal(cl!.outcome, 'refused');
    assert.equal(cl!.code, 'ACTION_DENIED');
    assert.deepEqual(rules(m), ['approval-missing']);
  });

  it('shows why canonical JSON refused params, and an execution error as a run (the handler threw)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'place_order', { note: '\uDC00' }, { approval: { approvalId: 'ap', argsHash: '0'.repeat(64) } });
    tr.result(requestId, { success: false, error: { code: 'EXECUTION_ERROR', message: 'payment failed' } });
    const [check] = tr.model().clients.get('c1')!.approvals;
    assert.equal(check!.recomputed.ok, false);
    assert.match((check!.recomputed as { error: string }).error, /lone surrogate/);
    assert.equal(check!.outcome, 'ran');
    assert.equal(check!.code, 'EXECUTION_ERROR');
  });

  it('a destructive write that succeeded with a mismatched approval is critical', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'clear_cart', {}, { approval: { approvalId: 'ap', argsHash: argsHashSync({ all: true }) } });
    tr.result(requestId, { success: true });
    const m = tr.model();
    const [f] = findingsOf(m, 'unapproved-run');
    assert.equal(f!.severity, 'critical');
    assert.match(f!.message, /without a grant for these params/);
    assert.ok(rules(m).includes('approval-hash-mismatch'));
  });
});

describe('findings', () => {
  it('do not repeat for the same cause', () => {
    const tr = withCart();
    for (let i = 0; i < 200; i++) {
      const { requestId } = tr.request('cart', 'view_cart');
      tr.result(requestId, { success: false, error: { code: 'OOPS', message: 'x' } }, ['surfacesHash']);
      tr.update('cart', 'total', 'not a number');
    }
    const m = tr.model();
    assert.equal(findingsOf(m, 'hash-missing').length, 1);
    assert.equal(findingsOf(m, 'error-code-namespace').length, 1);
    assert.equal(findingsOf(m, 'observation-invalid').length, 1);
  });

  it('on-change bursts: one finding per burst, not per update; realtime observations are exempt', () => {
    const tr = withCart();
    for (let i = 0; i < 50; i++) {
      tr.update('cart', 'total', i);
      tr.update('cart', 'cursor', i);
      tr.wait(20);
    }
    tr.wait(3_000);
    for (let i = 0; i < 30; i++) {
      tr.update('cart', 'total', i);
      tr.wait(20);
    }
    const m = tr.model();
    assert.equal(findingsOf(m, 'observation-rate').length, 2);
    const st = m.clients.get('c1')!.observations.get('cart/cursor')!;
    assert.equal(st.rate, 50);
  });

  it('keep their ids unique and name the events', () => {
    const tr = withCart();
    tr.update('cart', 'total', 'x');
    tr.update('cart', 'nope', 1);
    const m = tr.model();
    assert.deepEqual(m.findings.map((f) => f.id), ['f1', 'f2']);
    assert.deepEqual(m.findings.map((f) => f.client), ['c1', 'c1']);
  });
});

describe('SessionModel basics', () => {
  it('revision moves with every call that may change the model, and only with them', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.wait(31_000);
    const m = new SessionModel();
    const requestState = () => JSON.stringify(m.clients.get(tr.client.key)?.requests.get(requestId) ?? null);
    let seen = m.revision;
    let state = requestState();
    const changed = () => {
      const moved = m.revision !== seen;
      // The filter's promise: a request it read cannot have changed while the revision is the same.
      if (!moved) assert.equal(requestState(), state);
      seen = m.revision;
      state = requestState();
      return moved;
    };
    for (const { ev, client } of tr.events) {
      m.apply(ev, client);
      assert.ok(changed(), 'apply');
      m.isExperiment(ev.id);
      void m.findingsDropped;
      assert.ok(!changed(), 'reads');
    }
    m.tick(tr.t);
    assert.ok(changed(), 'tick');
    assert.equal(m.clients.get(tr.client.key)?.requests.get(requestId)?.status, 'timed-out');
    m.tick(Number.NaN);
    assert.ok(!changed(), 'a tick at no time changes nothing');
    m.finish();
    assert.ok(changed(), 'finish');
  });

  it('replay() is apply() in order then tick(last event time)', () => {
    const tr = withCart();
    tr.request('cart', 'view_cart');
    tr.wait(31_000);
    tr.update('cart', 'total', 1);
    tr.update('cart', 'total', 'not a number');
    const replayed = replay(tr.events);
    const applied = new SessionModel();
    for (const { ev, client } of tr.events) applied.apply(ev, client);
    applied.tick(tr.t);
    assert.deepEqual(replayed.findings, applied.findings);
    assert.deepEqual(rules(replayed), ['observation-invalid']);
  });

  it('counts events per type and kind per client', () => {
    const tr = withCart();
    tr.update('cart', 'total', 1);
    tr.update('cart', 'total', 2);
    tr.raw({ kind: 'other' });
    tr.event('x-telemetry', { a: 1 }, 'out');
    const c = tr.model().clients.get('c1')!;
    assert.deepEqual(c.counts, { lifecycle: 1, 'surface:register': 1, 'observation:update': 2, other: 1, 'x-telemetry': 1 });
  });

  it('ignores extension events silently', () => {
    const tr = withCart();
    tr.event('x-whatever', 'not even an object', 'in');
    assert.deepEqual(tr.model().findings, []);
  });

  it('a request before any registration cannot be judged for its target', () => {
    const tr = new Traffic();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfaces: [], surfacesHash: surfacesHash([]) });
    assert.deepEqual(rules(tr.model()), []);
  });

  it('uses a fresh id for every uuid()', () => {
    assert.notEqual(uuid(), uuid());
  });
});
