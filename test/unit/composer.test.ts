/**
 * The composer's pure part (panel/composer.ts): what a composer state becomes
 * as a request (the approval matching, wrong or none, with argsHash checked
 * against the demo's INDEPENDENT implementation, not the product's), params
 * parsing, the wrong hash, and a surface that comes and goes: kept with its
 * last-known definition, said to be not mounted and why, and the experiments
 * history derived from the capture.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Recorder } from '../../src/session/wire/recorder.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import { argsHashSync as independentArgsHash } from '../demo/independent/args-hash-node.ts';
import { composed, composerClient, freshComposer, isMounted, lastKnownSurface, notMountedReason, parseParams, surfaceChoices, wrongHash, type ComposerState } from '../../panel/composer.ts';
import { injectionHistory, type InjectionRecord } from '../../panel/injector.ts';
import { catalogSurface, makeClient, Traffic, withCart } from './session-helpers.ts';

/** The recorder and model of some traffic, as the panel holds them. */
function session(tr: Traffic): { recorder: Recorder; model: SessionModel } {
  const recorder = new Recorder();
  recorder.clients.set(tr.client.key, tr.client);
  recorder.add(tr.events.map((e) => e.ev));
  return { recorder, model: tr.model() };
}

const state = (patch: Partial<ComposerState>): ComposerState => ({ ...freshComposer(), client: 'c1', surfaceId: 'cart', ...patch });

describe('composed(): the request a composer state makes', () => {
  const tr = withCart();
  const { recorder, model } = session(tr);
  const params = { note: 'leave at the door', lines: [{ sku: 'mug', qty: 2 }] };
  const paramsText = JSON.stringify(params);

  it('a transaction with the matching approval carries argsHash(params), as an independent implementation computes it', () => {
    const c = composed(state({ actionId: 'place_order', paramsText, approvalId: 'appr-1', approvalMode: 'matching' }), recorder, model);
    assert.ok(c);
    assert.equal(c.client.key, 'c1');
    assert.deepEqual(c.input.params, params);
    assert.deepEqual(c.input.approval, { approvalId: 'appr-1', argsHash: independentArgsHash(params) });
    // Key order is not part of the hash (RFC 8785): the same params written otherwise hash the same.
    const reordered = composed(state({ actionId: 'place_order', paramsText: '{"lines":[{"qty":2,"sku":"mug"}],"note":"leave at the door"}', approvalId: 'appr-1' }), recorder, model);
    assert.equal(reordered?.input.approval?.argsHash, independentArgsHash(params));
  });

  it('a wrong approval carries a well-formed hash that is not the params\' own', () => {
    const c = composed(state({ actionId: 'place_order', paramsText, approvalId: 'appr-2', approvalMode: 'wrong' }), recorder, model);
    const hash = c?.input.approval?.argsHash;
    assert.ok(hash);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.notEqual(hash, independentArgsHash(params));
    assert.equal(hash, wrongHash(independentArgsHash(params)));
  });

  it('no approval: none is carried; an action that needs none never carries one', () => {
    assert.equal(composed(state({ actionId: 'place_order', paramsText, approvalMode: 'none' }), recorder, model)?.input.approval, undefined);
    // clear_cart: an edit with confirm, so approved; add_item: an edit without, so not.
    assert.ok(composed(state({ actionId: 'clear_cart', paramsText: '{}' }), recorder, model)?.input.approval);
    assert.equal(composed(state({ actionId: 'add_item', paramsText: '{"sku":"mug","qty":1}', approvalMode: 'matching' }), recorder, model)?.input.approval, undefined);
  });

  it('the send options and a same-id replay are carried; no client or params that are not JSON compose nothing', () => {
    const c = composed(state({ actionId: 'add_item', paramsText: '{"sku":"mug","qty":1}', requestId: 'req-1', wantReceipt: false, letThrough: true, replayOf: 'h/c1/9' }), recorder, model);
    assert.equal(c?.input.requestId, 'req-1');
    assert.deepEqual(c?.opts, { wantReceipt: false, letThrough: true, replayOf: 'h/c1/9' });
    assert.equal(composed(state({ actionId: 'add_item', paramsText: '{"sku":' }), recorder, model), null);
    assert.equal(composed(state({ client: 'nobody', surfaceId: 'nowhere', actionId: 'add_item' }), recorder, model), null);
  });
});

describe('parseParams and wrongHash', () => {
  it('parses JSON or says why not', () => {
    assert.deepEqual(parseParams('{"a":[1,true,null]}'), { ok: true, value: { a: [1, true, null] } });
    assert.deepEqual(parseParams('"text"'), { ok: true, value: 'text' });
    const bad = parseParams('{"a":');
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && bad.error.length > 0);
    assert.equal(parseParams('').ok, false);
  });

  it('flips the last hex digit only: same length, one character apart, never the input', () => {
    const h = independentArgsHash({ x: 1 });
    for (const hash of [h, h.slice(0, -1) + '0', h.slice(0, -1) + 'f']) {
      const w = wrongHash(hash);
      assert.equal(w.length, hash.length);
      assert.notEqual(w, hash);
      assert.equal(w.slice(0, -1), hash.slice(0, -1));
    }
  });
});

describe('a surface that comes and goes', () => {
  /** The cart and the catalog (activates on /), the catalog unmounted after a navigate request. */
  function navigatedAway() {
    const tr = withCart();
    tr.wait(1000).register({ ...catalogSurface(), activation: { routes: ['/'] } });
    tr.wait(1000);
    const nav = tr.request('cart', 'view_cart', { route: '/checkout' });
    tr.wait(5).deregister('catalog');
    tr.wait(5).result(nav.requestId);
    return { tr, unmountedAt: tr.t - 5, ...session(tr) };
  }

  it('keeps the last-known definition of an unmounted surface, and says why it is not mounted', () => {
    const { recorder, model, unmountedAt } = navigatedAway();
    assert.equal(isMounted(model, 'c1', 'catalog'), false);
    assert.equal(lastKnownSurface(model, recorder, 'c1', 'catalog')?.actions[0]?.id, 'search');
    const reason = notMountedReason(model, recorder, 'c1', 'catalog');
    assert.ok(reason);
    assert.match(reason, /^catalog is not mounted now \(activates on \/; unmounted \d\d:\d\d:\d\d after view_cart \/checkout\)$/);
    const hhmmss = new Date(unmountedAt).toTimeString().slice(0, 8);
    assert.ok(reason.includes(hhmmss), `${reason} names ${hhmmss}`);
    assert.equal(notMountedReason(model, recorder, 'c1', 'cart'), null, 'a mounted surface has no reason');
    assert.match(notMountedReason(model, recorder, 'c1', 'never-seen') ?? '', /not seen mounted on this client since the capture began/);
  });

  it('lists known but unmounted surfaces after the mounted ones, with the client that had them', () => {
    const { model } = navigatedAway();
    assert.deepEqual(surfaceChoices(model, ['c1']), [
      { id: 'cart', mounted: true, clients: ['c1'] },
      { id: 'catalog', mounted: false, clients: ['c1'] },
    ]);
  });

  it('composes a request to an unmounted surface on purpose, with the approval its last-known action needs', () => {
    const tr = withCart();
    tr.wait(10).deregister('cart');
    const { recorder, model } = session(tr);
    const c = composed(state({ actionId: 'clear_cart', paramsText: '{}', approvalId: 'a1', approvalMode: 'matching' }), recorder, model);
    assert.equal(c?.input.surfaceId, 'cart');
    assert.deepEqual(c?.input.approval, { approvalId: 'a1', argsHash: independentArgsHash({}) });
  });

  it('a client the recorder no longer knows is replaced by the only client with the surface', () => {
    const { recorder, model } = session(withCart());
    assert.equal(composerClient(state({ client: 'gone-after-reload' }), recorder, model)?.key, 'c1');
    assert.equal(composerClient(state({ client: 'gone-after-reload', surfaceId: 'nowhere' }), recorder, model), undefined);
  });
});

describe('the experiments history, from the capture', () => {
  const record = (patch: Partial<InjectionRecord> & { requestId: string }): InjectionRecord => ({
    id: `inj-${patch.requestId}`,
    t: patch.t ?? 0,
    client: 'c1',
    request: { requestId: patch.requestId, surfaceId: 'cart', actionId: 'add_item', params: {}, timestamp: 0 },
    letThrough: patch.letThrough ?? false,
    status: patch.status ?? 'sending',
    ...(patch.error ? { error: patch.error } : {}),
    ...(patch.replayOf ? { replayOf: patch.replayOf } : {}),
  });

  it("survives a panel reload: the capture's injected requests are listed with no record of this panel", () => {
    const tr = withCart(makeClient('c1'));
    const own = tr.wait(10).request('cart', 'add_item', { sku: 'a', qty: 1 });
    tr.wait(5).result(own.requestId);
    const mine = tr.wait(10).request('cart', 'add_item', { sku: 'b', qty: 1 }, {}, { injected: true });
    const answer = tr.wait(5).result(mine.requestId);
    answer.held = true;
    const { recorder, model } = session(tr);
    const rows = injectionHistory(model, recorder, []);
    assert.equal(rows.length, 1, "the app's own request is not an experiment");
    assert.equal(rows[0]?.requestId, mine.requestId);
    assert.equal(rows[0]?.eventId, mine.ev.id);
    assert.equal(rows[0]?.status, 'delivered');
    assert.equal(rows[0]?.kept, true, 'the held answer says it was kept from the runtime');
  });

  it("this panel's records: matched to the capture by request id, or listed on their own when not captured, newest first", () => {
    const tr = withCart();
    const mine = tr.wait(10).request('cart', 'add_item', { sku: 'b', qty: 1 }, {}, { injected: true });
    const { recorder, model } = session(tr);
    const rows = injectionHistory(model, recorder, [
      record({ requestId: mine.requestId, t: 5, letThrough: true, status: 'delivered', replayOf: 'h/c1/1' }),
      record({ requestId: 'never-sent', t: 9, status: 'failed', error: 'not connected to a tab' }),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.requestId, r.status, r.kept, r.replay, r.eventId ?? null]),
      [
        ['never-sent', 'failed', true, false, null],
        [mine.requestId, 'delivered', false, true, mine.ev.id],
      ],
    );
  });

  it('a same-id replay is one more row for the same request, the original send is not', () => {
    const tr = withCart();
    const own = tr.wait(10).request('cart', 'add_item', { sku: 'a', qty: 1 });
    tr.wait(5).result(own.requestId);
    tr.wait(10).request('cart', 'add_item', { sku: 'a', qty: 1 }, { requestId: own.requestId }, { injected: true });
    const { recorder, model } = session(tr);
    assert.equal(injectionHistory(model, recorder, []).length, 1);
  });
});
