/**
 * Findings blame the party that did it: what the runtime sent is the
 * runtime's fault, whatever the wording of the problem; and a finding cites
 * the section of its rule, the one the matrix gives.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RULES } from '../../src/session/model/rules.ts';
import { T0, Traffic, cartSurface, uuid, withCart } from './session-helpers.ts';

describe('the party at fault', () => {
  it('every rule binds the client or the runtime', () => {
    for (const r of RULES) assert.match(r.party, /^(client|runtime)$/, r.id);
    assert.ok(RULES.some((r) => r.party === 'runtime') && RULES.some((r) => r.party === 'client'));
  });

  it("a request naming a surface id of the wrong pattern is a request for a surface nobody registered (the runtime's), never a surface-id error", () => {
    const tr = withCart();
    const { requestId } = tr.request('Cart', 'view_cart');
    tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'no such surface' } });
    const m = tr.model();
    assert.deepEqual(m.findings.map((f) => `${f.rule}:${f.party}`), ['request-unknown-surface:runtime']);
  });

  it('a request that echoes an id the client declared wrongly blames only the client, once', () => {
    const tr = new Traffic();
    const bad = { ...cartSurface(), id: 'Bad_Cart' };
    tr.register(bad);
    const { requestId } = tr.request('Bad_Cart', 'view_cart');
    tr.result(requestId);
    const m = tr.model();
    assert.deepEqual(m.findings.map((f) => `${f.rule}:${f.party}`), ['surface-id:client']);
  });

  it("a request's requestId format, reuse and invalid params are the runtime's; accepting the invalid params is the client's", () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 }, { requestId: 'r-1' });
    tr.result(requestId, { success: true, data: { count: 1 } });
    const m = tr.model();
    const party = Object.fromEntries(m.findings.map((f) => [f.rule, f.party]));
    assert.deepEqual(party, { 'request-id-format': 'runtime', 'params-invalid': 'runtime', 'params-invalid-accepted': 'client' });
  });

  it('a malformed frame is charged to the side it came from', () => {
    const tr = withCart();
    tr.raw({ kind: 'malformed', dir: 'in', note: 'bad JSON' });
    tr.raw({ kind: 'malformed', dir: 'out', note: 'bad JSON' });
    const m = tr.model();
    assert.deepEqual(
      m.findings.map((f) => [f.rule, f.party]),
      [
        ['malformed-frame-from-runtime', 'runtime'],
        ['malformed-frame', 'client'],
      ],
    );
  });

  it("a refused result's acknowledgment without a reason is the runtime's (§7.3.6); a receipt without one the client's (§7.3.7)", () => {
    const tr = withCart();
    const a = tr.request('cart', 'view_cart');
    tr.receipt(a.ev, { ok: false });
    const b = tr.request('cart', 'view_cart');
    const r = tr.result(b.requestId, { success: true });
    tr.resultAck(r, { ok: false });
    const m = tr.model();
    const got = m.findings.filter((f) => f.rule.endsWith('ack-shape')).map((f) => [f.rule, f.party, f.section]);
    assert.deepEqual(got, [
      ['ack-shape', 'client', '§7.3.7'],
      ['result-ack-shape', 'runtime', '§7.3.6'],
    ]);
  });

  it('a deregistration (§7.2) or a transport loss (§7.6.1) resolves pending requests without blaming anyone: the resolution is inside the runtime', () => {
    const tr = withCart();
    const first = tr.request('cart', 'view_cart');
    tr.deregister('cart');
    tr.register(withCart().mounted[0]!);
    const second = tr.request('cart', 'view_cart');
    tr.close();
    const m = tr.model();
    assert.deepEqual(m.findings, []);
    const requests = m.clients.get('c1')!.requests;
    assert.equal(requests.get(first.requestId)!.resolution?.why, 'surface cart deregistered');
    assert.match(requests.get(second.requestId)!.resolution!.why, /^transport lost/);
  });

  it('every finding carries its rule section and party, whatever raised it', () => {
    const tr = withCart();
    tr.event('action:result', { requestId: uuid() }, 'out');
    tr.update('cart', 'total', 'x', T0 + 0.5);
    const m = tr.model();
    assert.ok(m.findings.length >= 3);
    for (const f of m.findings) {
      const rule = RULES.find((r) => r.id === f.rule)!;
      assert.equal(f.section, rule.section, f.rule);
      assert.equal(f.party, rule.party, f.rule);
    }
  });
});
