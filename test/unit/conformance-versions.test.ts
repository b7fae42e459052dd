/**
 * A client is judged by one spec release (the one its surfaces declare in
 * their metadata, else the user's pick): rules written after it raise nothing, rules it had still
 * do. One client of each release, conformant to its own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { surfacesHash } from '../../src/protocol/index.ts';
import { SessionModel, replay } from '../../src/session/model/session-model.ts';
import { LATEST_SPEC_VERSION, RULES, SPEC_VERSIONS, declaredVersion, judgedVersion, ruleApplies, type SpecVersion } from '../../src/session/model/rules.ts';
import { Traffic, cartSurface, withCart } from './session-helpers.ts';

const ADD = { sku: 'a', qty: 1 };

/** A 0.2.0 client: results carry no state; an async action answers first with its acknowledgment, unmarked. */
function client020(): Traffic {
  const tr = withCart();
  const a = tr.request('cart', 'add_item', ADD);
  tr.wait(20);
  tr.result(a.requestId, { success: true, data: { count: 1 } }, ['surfaces', 'surfacesHash']);
  const x = tr.request('cart', 'export_cart');
  tr.wait(20);
  tr.result(x.requestId, { success: true, data: { jobId: 'j1' } }, ['surfaces', 'surfacesHash']);
  tr.wait(200);
  tr.result(x.requestId, { success: true, data: { url: '/export.csv' } }, ['surfaces', 'surfacesHash']);
  return tr;
}

/** A 0.4.1 client: interim flags, the client's state after the action (§7.3.4 of 0.4.0), no surfacesHash. */
function client041(): Traffic {
  const tr = withCart();
  const a = tr.request('cart', 'add_item', ADD);
  tr.wait(20);
  tr.result(a.requestId, { success: true, data: { count: 1 }, settled: true }, ['surfacesHash']);
  const x = tr.request('cart', 'export_cart');
  tr.wait(20);
  tr.result(x.requestId, { success: true, interim: true, progress: 0 }, ['surfacesHash']);
  tr.wait(200);
  tr.result(x.requestId, { success: true, interim: false, data: { url: '/export.csv' } }, ['surfacesHash']);
  return tr;
}

/** A 0.6.0 client: surfacesHash on every result, surfaces only when the runtime lacks them, receipts. */
function client060(): Traffic {
  const tr = withCart();
  const a = tr.request('cart', 'add_item', ADD);
  tr.receipt(a.ev);
  tr.wait(20);
  tr.result(a.requestId, { success: true, data: { count: 1 } });
  const b = tr.request('cart', 'add_item', ADD, { knownSurfaces: surfacesHash(tr.mounted) });
  tr.wait(20);
  tr.result(b.requestId, { success: true, data: { count: 2 } }, ['surfaces']);
  return tr;
}

function judged(tr: Traffic, version: SpecVersion): SessionModel {
  const m = replay(tr.events, { specVersion: version });
  assert.equal(m.internalErrors, 0, m.lastInternalError);
  return m;
}

function rulesOf(m: SessionModel): string[] {
  return [...new Set(m.findings.map((f) => f.rule))].sort();
}

describe('the judged spec release', () => {
  it('defaults to the newest, and an unknown pick is the newest', () => {
    assert.equal(LATEST_SPEC_VERSION, '0.6.0');
    assert.equal(new SessionModel().specVersion, '0.6.0');
    assert.equal(judgedVersion('9.9.9'), '0.6.0');
    assert.equal(judgedVersion(undefined), '0.6.0');
    assert.equal(new SessionModel({ specVersion: '0.4.1' }).specVersion, '0.4.1');
  });

  it('every rule names a release the spec texts span', () => {
    for (const r of RULES) assert.ok((SPEC_VERSIONS as readonly string[]).includes(r.since), `${r.id}: ${r.since}`);
    // The newest release is held to every rule; the oldest only to its own.
    assert.ok(RULES.every((r) => ruleApplies(r, '0.6.0')));
    assert.ok(RULES.some((r) => !ruleApplies(r, '0.2.0')));
  });

  it('a 0.2.0 client judged as 0.2.0 raises nothing, and as 0.6.0 what it could not know', () => {
    assert.deepEqual(rulesOf(judged(client020(), '0.2.0')), []);
    const newest = rulesOf(judged(client020(), '0.6.0'));
    assert.ok(newest.includes('hash-missing'), newest.join());
    assert.ok(newest.includes('async-no-interim'), newest.join());
  });

  it('a 0.2.0 async acknowledgment is the first result: the final one is not a duplicate, the request succeeded', () => {
    const m = judged(client020(), '0.2.0');
    const c = m.clients.get('c1')!;
    const exported = [...c.requests.values()].find((r) => r.actionId === 'export_cart')!;
    assert.equal(exported.status, 'succeeded');
    assert.equal(exported.results.length, 2);
  });

  it('a 0.4.1 client sends no surfacesHash and is right to; as 0.6.0 it is not', () => {
    assert.deepEqual(rulesOf(judged(client041(), '0.4.1')), []);
    assert.deepEqual(rulesOf(judged(client041(), '0.4.0')), []);
    assert.deepEqual(rulesOf(judged(client041(), '0.6.0')), ['hash-missing']);
  });

  it('a 0.4.1 client is still held to the rules 0.4.0 introduced (interim flags)', () => {
    const tr = withCart();
    const x = tr.request('cart', 'export_cart');
    tr.wait(20);
    tr.result(x.requestId, { success: true, interim: true }, ['surfacesHash']);
    tr.wait(20);
    tr.result(x.requestId, { success: true }, ['surfacesHash']);
    assert.deepEqual(rulesOf(judged(tr, '0.4.1')), ['async-final-interim-unset']);
    assert.deepEqual(rulesOf(judged(tr, '0.2.0')), []);
  });

  it('a 0.6.0 client raises nothing under any release', () => {
    for (const v of SPEC_VERSIONS) assert.deepEqual(rulesOf(judged(client060(), v)), [], v);
  });

  it('a 0.6.0 violation shows only when the client is judged by 0.6.0', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfacesHash: 'fnv1a64:0000000000000000' });
    assert.deepEqual(rulesOf(judged(tr, '0.6.0')), ['hash-mismatch']);
    assert.deepEqual(rulesOf(judged(tr, '0.4.1')), []);
  });

  it('a rule every release has is raised under every release', () => {
    const tr = new Traffic();
    tr.register(cartSurface());
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: false }, ['surfaces', 'surfacesHash']);
    for (const v of SPEC_VERSIONS) assert.ok(rulesOf(judged(tr, v)).includes('error-missing'), v);
  });

  it('judging again from the same events under another release gives that release findings, and back again the same', () => {
    const tr = client041();
    const first = judged(tr, '0.6.0').findings.map((f) => [f.rule, f.message]);
    assert.deepEqual(judged(tr, '0.4.1').findings, []);
    assert.deepEqual(judged(tr, '0.6.0').findings.map((f) => [f.rule, f.message]), first);
  });

  it('reads a release a surface declares in its metadata', () => {
    assert.equal(declaredVersion({ ouiSpecVersion: '0.4.1' }), '0.4.1');
    assert.equal(declaredVersion({ oui: 'oui-spec@0.6.0' }), '0.6.0');
    assert.equal(declaredVersion({ specVersion: 'v0.4' }), '0.4.0');
    assert.equal(declaredVersion({ ouiVersion: '0.5.2' }), '0.4.1', 'an unpublished release is held to the newest before it');
    assert.equal(declaredVersion({ ouiVersion: '0.1.0' }), '0.2.0', 'older than every text: the oldest');
    assert.equal(declaredVersion({ ouiVersion: '1.0.0' }), '0.6.0');
    for (const none of [undefined, null, [], 'x', {}, { version: '0.4.1' }, { ouiVersion: 4 }, { ouiVersion: 'latest' }, JSON.parse('{"__proto__":{"ouiVersion":"0.4.1"}}')]) {
      assert.equal(declaredVersion(none), undefined, JSON.stringify(none));
    }
  });

  it('a client that declares its release is judged by it, whatever the pick; one that declares none by the pick', () => {
    const declaring = () => {
      const tr = new Traffic();
      tr.register({ ...cartSurface(), metadata: { ouiSpecVersion: '0.4.1' } });
      const a = tr.request('cart', 'add_item', ADD);
      tr.wait(20);
      tr.result(a.requestId, { success: true, data: { count: 1 } }, ['surfacesHash']);
      return tr;
    };
    for (const v of SPEC_VERSIONS) assert.deepEqual(rulesOf(judged(declaring(), v)), [], v);
    const m = judged(declaring(), '0.6.0');
    assert.equal(m.clients.get('c1')!.declaredVersion, '0.4.1');
    // The same traffic without the declaration is judged by the pick.
    assert.deepEqual(rulesOf(judged(client041(), '0.6.0')), ['hash-missing']);
    // A client declaring 0.6.0 is held to 0.6.0 even when the pick is older.
    const newer = new Traffic();
    newer.register({ ...cartSurface(), metadata: { ouiSpecVersion: '0.6.0' } });
    const b = newer.request('cart', 'add_item', ADD);
    newer.result(b.requestId, { success: true, data: { count: 1 } }, ['surfacesHash']);
    assert.deepEqual(rulesOf(judged(newer, '0.2.0')), ['hash-missing']);
  });
});
