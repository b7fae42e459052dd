/**
 * The sequences of the independent conformance review
 * (`../shared/docs/reviews/conformance-review.md`), each as the review wrote
 * it: conformant traffic it showed flagged raises nothing, and a violation it
 * showed missed raises its rule at its section, on the party the sentence
 * binds, and nothing else at error level.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argsHashSync, surfacesHash } from '../../src/protocol/index.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import { T0, Traffic, cartSurface, catalogSurface, uuid, withCart } from './session-helpers.ts';

const ADD = { sku: 'a', qty: 1 };
const OK = { success: true, data: { count: 1 } };

function rulesOf(m: SessionModel): string[] {
  return m.findings.map((f) => f.rule);
}

/** The findings at error or critical level. */
function errorsOf(m: SessionModel): string[] {
  return m.findings.filter((f) => f.severity === 'error' || f.severity === 'critical').map((f) => f.rule);
}

/** Exactly one error-level finding, this rule's, on this party. */
function oneError(m: SessionModel, rule: string, party: 'client' | 'runtime'): void {
  assert.deepEqual(errorsOf(m), [rule], JSON.stringify(m.findings.map((f) => [f.rule, f.message])));
  assert.equal(m.findings.find((f) => f.rule === rule)!.party, party);
}

describe('§7.3.7 repeats, judged when the repeat is answered (review 4.7-4.10)', () => {
  it('4.7: a repeat that came 2 s after an unacknowledged answer and is answered once that answer is 9 s old is conformant', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(10);
    const first = tr.result(requestId, OK);
    tr.wait(2_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(7_000);
    tr.event('action:result', first.payload, 'out');
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('the same repeat answered 3 s after the first answer is answered too soon (error, client)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(10);
    const first = tr.result(requestId, OK);
    tr.wait(2_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(1_000);
    tr.event('action:result', first.payload, 'out');
    oneError(tr.model(), 'repeat-answered-too-soon', 'client');
  });

  it("the client's own re-answer interval is a setting: 3 s is conformant for a client that runs with 2 s", () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(10);
    const first = tr.result(requestId, OK);
    tr.wait(2_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(1_000);
    tr.event('action:result', first.payload, 'out');
    assert.deepEqual(rulesOf(tr.model({ timers: { reanswerMs: 2_000 } })), []);
  });

  it('4.8: a repeat that came at 9 s, answered at 11 s after the receiver acknowledged at 10 s, is answered after the ack', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const first = tr.result(requestId, OK);
    tr.wait(9_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(1_000);
    tr.resultAck(first);
    tr.wait(1_000);
    tr.event('action:result', first.payload, 'out');
    oneError(tr.model(), 'repeat-answered-after-ack', 'client');
  });

  it('4.9: a repeat that came while the first answer was worked out, answered 10 s after that unacknowledged answer, is conformant', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(1_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(1_000);
    const first = tr.result(requestId, OK);
    tr.wait(10_000);
    tr.event('action:result', first.payload, 'out');
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('the same in-flight repeat answered right after the first answer is answered in flight (error, client)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    tr.wait(1_000);
    tr.request('cart', 'add_item', ADD, { requestId });
    tr.wait(1_000);
    const first = tr.result(requestId, OK);
    tr.wait(5);
    tr.event('action:result', first.payload, 'out');
    oneError(tr.model(), 'repeat-answered-in-flight', 'client');
  });

  it('4.10: an async repeat answered with a second job runs the request id twice (error, client)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'export_cart');
    tr.wait(10);
    const interim = tr.result(requestId, { success: true, interim: true, data: { jobId: 'a' } });
    tr.resultAck(interim);
    tr.wait(1_000);
    tr.request('cart', 'export_cart', {}, { requestId });
    tr.wait(10);
    tr.result(requestId, { success: true, interim: true, data: { jobId: 'b' } });
    const m = tr.model();
    assert.ok(rulesOf(m).includes('repeat-ran-twice'), JSON.stringify(rulesOf(m)));
    assert.ok(m.findings.every((f) => f.party === 'client'));
  });

  it('progress interims of an async job after a repeat are progress, not answers', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'export_cart');
    tr.wait(10);
    tr.result(requestId, { success: true, interim: true, progress: 0, data: { jobId: 'a' } });
    tr.wait(1_000);
    tr.request('cart', 'export_cart', {}, { requestId });
    tr.wait(500);
    tr.result(requestId, { success: true, interim: true, progress: 50, data: { jobId: 'a' } });
    tr.wait(500);
    tr.result(requestId, { success: true, interim: false, data: { jobId: 'a', url: 'x' } });
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('4.13: a repeat answered with the same result, old timestamp and all, raises nothing', () => {
    const tr = withCart();
    const r1 = tr.request('cart', 'add_item', ADD);
    tr.wait(100);
    const first = tr.result(r1.requestId, OK);
    tr.wait(1_100);
    const r2 = tr.request('cart', 'view_cart');
    tr.result(r2.requestId);
    tr.wait(8_000);
    tr.request('cart', 'add_item', ADD, { requestId: r1.requestId });
    tr.wait(100);
    tr.event('action:result', first.payload, 'out');
    assert.deepEqual(rulesOf(tr.model()), []);
  });
});

describe('§7.3.7 receipts (review 4.1, 4.2)', () => {
  it('4.1: a receipt refusing with `error` instead of `reason` is the wrong shape (client)', () => {
    const tr = withCart();
    const { ev } = tr.request('cart', 'add_item', ADD);
    tr.receipt(ev, { ok: false, error: 'busy' });
    const m = tr.model();
    assert.deepEqual(rulesOf(m), ['ack-shape']);
    assert.equal(m.findings[0]!.party, 'client');
  });

  it('4.2: a request refused on receipt and then answered ACTION_NOT_FOUND is conformant (exactly one result per request)', () => {
    const tr = withCart();
    const { ev, requestId } = tr.request('cart', 'nope');
    tr.receipt(ev, { ok: false, reason: 'unknown action' });
    tr.result(requestId, { success: false, error: { code: 'ACTION_NOT_FOUND', message: 'no such action' } });
    const m = tr.model();
    assert.deepEqual(errorsOf(m), []);
    assert.ok(!rulesOf(m).some((r) => r.startsWith('result-after')), JSON.stringify(rulesOf(m)));
  });
});

describe('§7.3.6 refused results and trimmed re-sends (review 4.4-4.6)', () => {
  it('4.4: a re-send 6 s after the refusal is a re-send: the spec sets no deadline', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const r = tr.result(requestId, OK);
    tr.wait(50);
    tr.resultAck(r, { ok: false, error: 'too large' });
    const m = tr.model();
    m.tick(T0 + 5_100);
    tr.wait(6_000);
    tr.result(requestId, { ...OK, delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces'] } }, ['surfaces']);
    const live = tr.model();
    live.tick(T0 + 5_100);
    assert.deepEqual(rulesOf(live), []);
  });

  it('a refusal never answered by the end of the recording is refused-not-resent', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const r = tr.result(requestId, OK);
    tr.resultAck(r, { ok: false, error: 'too large' });
    assert.deepEqual(rulesOf(tr.model()), ['refused-not-resent']);
  });

  it('4.5: a trimmed re-send that changes data changes the outcome (error, client)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const r = tr.result(requestId, { success: true, data: { count: 1 } });
    tr.resultAck(r, { ok: false, error: 'too large' });
    tr.result(requestId, { success: true, data: { count: 2 }, delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces'] } }, ['surfaces']);
    oneError(tr.model(), 'trim-changed-outcome', 'client');
  });

  it('4.6: a result that carried only data trims data alone', () => {
    const tr = withCart();
    const h = surfacesHash(tr.mounted);
    const { requestId } = tr.request('cart', 'view_cart', {}, { knownSurfaces: h });
    const r = tr.result(requestId, { success: true, data: { big: 'x'.repeat(100) } }, ['surfaces']);
    tr.resultAck(r, { ok: false, error: 'too large' });
    tr.result(requestId, { success: true, delivery: { trimmed: true, reason: 'too large', omitted: ['data'] } }, ['surfaces']);
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('data left out while surfaces are still sent is out of order (error, client)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const r = tr.result(requestId, OK);
    tr.resultAck(r, { ok: false, error: 'too large' });
    tr.result(requestId, { success: true, delivery: { trimmed: true, reason: 'too large', omitted: ['data'] } }, ['data']);
    oneError(tr.model(), 'trim-order', 'client');
  });
});

describe('approvals (review 4.14, 4.15)', () => {
  function approved(tr: Traffic, params: Record<string, unknown>, approvalId = 'g1'): { requestId: string } {
    return tr.request('cart', 'place_order', params, { approval: { approvalId, argsHash: argsHashSync(params) } });
  }

  it('4.14.1: one single-use grant that runs two transactions is an unapproved run (critical, client)', () => {
    const tr = withCart();
    const a = approved(tr, { note: 'x' });
    tr.result(a.requestId);
    tr.wait(100);
    const b = approved(tr, { note: 'x' });
    tr.result(b.requestId);
    const m = tr.model();
    assert.deepEqual(errorsOf(m), ['unapproved-run']);
    assert.equal(m.findings[0]!.severity, 'critical');
    assert.equal(m.findings[0]!.party, 'client');
    assert.match(m.findings[0]!.message, /single-use/);
  });

  it('the same grant on a repeat of the same request is one run', () => {
    const tr = withCart();
    const a = approved(tr, { note: 'x' });
    const first = tr.result(a.requestId);
    tr.wait(9_000);
    approved(tr, { note: 'x' });
    tr.event('action:result', { ...first.payload as object }, 'out');
    // The helper made a new id for the second request: send the repeat with the same id instead.
    const tr2 = withCart();
    const params = { note: 'x' };
    const r = tr2.request('cart', 'place_order', params, { approval: { approvalId: 'g1', argsHash: argsHashSync(params) } });
    const res = tr2.result(r.requestId);
    tr2.wait(9_000);
    tr2.request('cart', 'place_order', params, { requestId: r.requestId, approval: { approvalId: 'g1', argsHash: argsHashSync(params) } });
    tr2.event('action:result', res.payload, 'out');
    assert.deepEqual(rulesOf(tr2.model()), []);
  });

  it('4.14.2: a transaction whose handler threw ran (critical when unapproved)', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'place_order', { note: 'x' });
    tr.result(requestId, { success: false, error: { code: 'EXECUTION_ERROR', message: 'payment failed' } });
    const m = tr.model();
    assert.deepEqual(errorsOf(m).sort(), ['approval-missing', 'unapproved-run']);
  });

  it('an unapproved transaction refused with ACTION_DENIED did not run: only the runtime is at fault', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'place_order', { note: 'x' });
    tr.result(requestId, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } });
    const m = tr.model();
    oneError(m, 'approval-missing', 'runtime');
  });

  it('4.14.3: in snapshot mode the manifest learned later still judges the earlier request', () => {
    const tr = new Traffic();
    tr.mounted = [cartSurface()];
    const h = surfacesHash(tr.mounted);
    // Learned from an earlier result that carried the surfaces (the runtime lacked them).
    const r0 = tr.request('cart', 'view_cart');
    const { requestId } = tr.request('cart', 'place_order', { note: 'x' }, { knownSurfaces: h });
    tr.result(r0.requestId);
    tr.result(requestId, { success: true }, ['surfaces']);
    const m = tr.model();
    assert.deepEqual(errorsOf(m).sort(), ['approval-missing', 'unapproved-run']);
  });

  it('4.15: a grant valid when the request came admits a run that finishes after it expired', () => {
    const tr = withCart();
    const params = { note: 'x' };
    tr.event('x-approval:grant', { approvalId: 'g1', argsHash: argsHashSync(params), expiresAt: T0 + 1_000 }, 'in');
    tr.wait(500);
    const { requestId } = approved(tr, params);
    tr.wait(3_000);
    tr.result(requestId);
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('a request that came after its grant expired and ran is approval-expired-run (error, client)', () => {
    const tr = withCart();
    const params = { note: 'x' };
    tr.event('x-approval:grant', { approvalId: 'g1', argsHash: argsHashSync(params), expiresAt: T0 + 1_000 }, 'in');
    tr.wait(2_000);
    const { requestId } = approved(tr, params);
    tr.result(requestId);
    oneError(tr.model(), 'approval-expired-run', 'client');
  });
});

describe('§7.3.4 hashes over what the client sent (review 4.18-4.20)', () => {
  it('4.18: an unknown effect is a type-shape error and nothing more: the hash the client took over what it sent matches', () => {
    const tr = new Traffic();
    const odd = cartSurface();
    (odd.actions[0] as unknown as Record<string, unknown>).effect = 'payment';
    tr.register(catalogSurface());
    const { requestId } = tr.request('catalog', 'search', {});
    tr.mounted = [odd];
    tr.result(requestId, { success: true, surfaces: [odd], surfacesHash: surfacesHash([odd]) });
    const m = tr.model();
    assert.deepEqual(errorsOf(m), ['type-shape'], JSON.stringify(m.findings.map((f) => f.message)));
  });

  it('4.19: a reported set with one unusable surface is surface-shape, not also surfaces-missing', () => {
    const tr = withCart();
    const broken = { id: 'cart', description: 'no name', actions: [{ id: 'view_cart', description: 'd', input: { type: 'object' } }] };
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfaces: [broken], surfacesHash: surfacesHash([broken]) });
    const m = tr.model();
    assert.deepEqual(errorsOf(m), ['surface-shape'], JSON.stringify(m.findings.map((f) => f.message)));
  });

  it('4.20: registrations after an unheld hash give the runtime surfaces again: knownSurfaces is then right', () => {
    const tr = new Traffic();
    tr.mounted = [cartSurface()];
    const r1 = tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash([catalogSurface()]) });
    tr.result(r1.requestId, { success: true, surfacesHash: 'fnv1a64:0123456789abcdef' }, ['surfaces']);
    tr.mounted = [];
    tr.register(cartSurface());
    tr.register(catalogSurface());
    tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash(tr.mounted) });
    assert.ok(!rulesOf(tr.model()).includes('known-surfaces-unheld'));
  });
});

describe('§7.2 navigation during an action (review 4.23, 4.24)', () => {
  it('4.23: SURFACE_UNAVAILABLE whose own result reports the surface gone raises nothing', () => {
    const tr = new Traffic();
    tr.mounted = [catalogSurface(), cartSurface()];
    const r0 = tr.request('catalog', 'search', {});
    tr.result(r0.requestId);
    const { requestId } = tr.request('catalog', 'search', {});
    tr.mounted = [cartSurface()];
    tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'gone' } });
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('4.24: deregister, register, then answer success with the new set is the §7.3.4 navigation case: nothing raised', () => {
    const tr = new Traffic();
    tr.register(catalogSurface());
    const { requestId } = tr.request('catalog', 'search', {});
    tr.deregister('catalog');
    tr.register(cartSurface());
    tr.result(requestId);
    const m = tr.model();
    assert.deepEqual(rulesOf(m), []);
    assert.deepEqual([...m.clients.get('c1')!.surfaces.keys()], ['cart']);
  });
});

describe('§7.5 timeouts are the runtime’s (review 4.11, 4.31)', () => {
  it('4.31: an async action the inspector never saw declared, acknowledged at once and finished at 45 s, raises nothing', () => {
    const tr = new Traffic();
    const h = 'fnv1a64:0123456789abcdef';
    const { requestId } = tr.request('cart', 'export_cart', {}, { knownSurfaces: h });
    tr.wait(100);
    tr.result(requestId, { success: true, interim: true, surfacesHash: h }, ['surfaces']);
    tr.wait(45_000);
    tr.result(requestId, { success: true, interim: false, surfacesHash: h }, ['surfaces']);
    const m = tr.model();
    assert.deepEqual(rulesOf(m), []);
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'succeeded');
  });

  it('a sync action answered after 40 s is no finding at all: the request shows it timed out', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.wait(40_000);
    tr.result(requestId);
    const m = tr.model();
    assert.deepEqual(rulesOf(m), []);
    assert.equal(m.clients.get('c1')!.requests.get(requestId)!.status, 'timed-out');
  });

  it('an async action refused at once with VALIDATION_ERROR needs no acknowledgment first', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'export_cart', { unexpected: true });
    tr.result(requestId, { success: false, error: { code: 'VALIDATION_ERROR', message: 'bad params' } });
    assert.deepEqual(errorsOf(tr.model()), []);
  });

  it('4.11: a runtime with a 120 s timer that backs off 2, 4, 8, 16, 32 s is conformant when the user says so', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    for (const gap of [2_000, 4_000, 8_000, 16_000, 32_000]) {
      tr.wait(gap);
      tr.request('cart', 'view_cart', {}, { requestId });
    }
    assert.ok(rulesOf(tr.model()).includes('retry-after-timeout'));
    assert.deepEqual(rulesOf(tr.model({ timers: { syncMs: 120_000 } })), []);
  });
});

describe('§7.4 observation rates over long-polling (review 4.27)', () => {
  it('12 updates over 2 s delivered in one POST (one capture time) are 6 a second', () => {
    const tr = withCart();
    const sentAt = tr.t;
    tr.wait(2_000);
    for (let i = 0; i < 12; i++) tr.update('cart', 'total', i, sentAt + i * 170);
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('12 updates within one second are a burst', () => {
    const tr = withCart();
    for (let i = 0; i < 12; i++) tr.update('cart', 'total', i, tr.t + i * 50);
    assert.deepEqual(rulesOf(tr.model()), ['observation-rate']);
  });
});

describe('one defect, one error', () => {
  it('a mistyped surfacesHash is hash-format only', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfacesHash: 42 });
    oneError(tr.model(), 'hash-format', 'client');
  });

  it('a malformed error object is one problem, not also error-missing', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: false, error: { code: 1 } });
    const m = tr.model();
    assert.deepEqual(errorsOf(m), ['payload-problem'], JSON.stringify(m.findings.map((f) => f.message)));
  });

  it('a repeat id for another request is request-id-reused, once', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId);
    tr.request('catalog', 'search', {}, { requestId: uuid() });
    assert.deepEqual(errorsOf(tr.model()), []);
  });
});

describe('what real traffic does that a tidy capture does not', () => {
  it('a capture that starts late knows registrations, not the set: a request for a surface registered before it is no one\'s fault', () => {
    const tr = new Traffic();
    tr.register(catalogSurface());
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfacesHash: surfacesHash([catalogSurface(), cartSurface()]), surfaces: [catalogSurface(), cartSurface()] });
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('…and once a result reported the whole set, a request for a surface outside it is the runtime\'s (and success the client\'s error)', () => {
    const tr = new Traffic();
    tr.mounted = [catalogSurface()];
    const r0 = tr.request('catalog', 'search', {});
    tr.result(r0.requestId);
    tr.wait(5_000);
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId);
    const m = tr.model();
    assert.deepEqual(rulesOf(m).sort(), ['request-unknown-surface', 'unknown-target-accepted']);
  });

  it('snapshot mode: knownSurfaces from a snapshot outside the capture, answered without surfaces, is held', () => {
    const tr = new Traffic();
    const h = surfacesHash([cartSurface()]);
    const r1 = tr.request('cart', 'view_cart', {}, { knownSurfaces: h });
    tr.result(r1.requestId, { success: true, surfacesHash: h }, ['surfaces']);
    tr.request('cart', 'view_cart', {}, { knownSurfaces: h });
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('a request that crosses the deregistration of its surface on the wire is no fault of the runtime', () => {
    const tr = withCart();
    tr.register(catalogSurface());
    tr.deregister('catalog');
    tr.wait(40);
    const { requestId } = tr.request('catalog', 'search', {});
    tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'gone' } });
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('…but one long after it is request-unknown-surface (warning, runtime)', () => {
    const tr = withCart();
    tr.register(catalogSurface());
    tr.deregister('catalog');
    tr.wait(10_000);
    const { requestId } = tr.request('catalog', 'search', {});
    tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'gone' } });
    const m = tr.model();
    assert.deepEqual(rulesOf(m), ['request-unknown-surface']);
    assert.equal(m.findings[0]!.party, 'runtime');
  });

  it('a trimmed re-send over a transport whose refusals the capture cannot show is a re-send, not a second result', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', ADD);
    const first = tr.event('action:result', { requestId, timestamp: tr.t, success: true, data: { count: 1 }, surfacesHash: surfacesHash(tr.mounted), surfaces: tr.mounted }, 'out');
    void first;
    tr.wait(50);
    tr.event('action:result', { requestId, timestamp: tr.t, success: true, data: { count: 1 }, surfacesHash: surfacesHash(tr.mounted), delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces'] } }, 'out');
    assert.deepEqual(rulesOf(tr.model()), []);
  });

  it('4.22: a reported set that drops a registered surface is authoritative; an update for the dropped one is observation-unknown', () => {
    const tr = withCart();
    tr.register(catalogSurface());
    const { requestId } = tr.request('catalog', 'search', {});
    tr.mounted = [catalogSurface()];
    tr.result(requestId);
    tr.wait(10);
    tr.update('cart', 'total', 3);
    const m = tr.model();
    assert.deepEqual(rulesOf(m), ['observation-unknown']);
    assert.equal(m.findings[0]!.party, 'client');
  });

  it('a deregistration of a surface a late capture never saw registered raises nothing', () => {
    const tr = new Traffic();
    tr.register(cartSurface());
    tr.deregister('registered-before-the-capture');
    assert.deepEqual(rulesOf(tr.model()), []);
  });
});

describe('§4.3 schemas (review 4.28)', () => {
  function withInput(input: Record<string, unknown>): SessionModel {
    const tr = new Traffic();
    tr.open();
    tr.register(cartSurface({ actions: [{ id: 'apply_code', description: 'Apply a code', effect: 'edit', input }] } as never));
    return tr.model();
  }

  it('a pattern that is no ECMA-262 regular expression makes the input no valid JSON Schema (error, client)', () => {
    oneError(withInput({ type: 'object', properties: { code: { type: 'string', pattern: '(unclosed' } } }), 'input-schema', 'client');
  });

  it('a lookaround the inspector cannot run is valid JSON Schema: nothing', () => {
    assert.deepEqual(rulesOf(withInput({ type: 'object', properties: { code: { type: 'string', pattern: '^(?=.*\\d)[A-Z0-9]+$' } } })), []);
  });

  it('a "pattern" inside a default or an enum is data, not a schema keyword', () => {
    assert.deepEqual(rulesOf(withInput({ type: 'object', default: { pattern: '(' }, properties: { mode: { enum: [{ pattern: '[' }] } } })), []);
  });
});
