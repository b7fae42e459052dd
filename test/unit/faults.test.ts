import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFaultDecider, matchesEvent, mulberry32, readFaultRule, readFaultRules, takeoverRule, type FaultEvent, type FaultRule } from '../../src/runtime/faults.ts';
import { readHookCommand, readFromPanel } from '../../src/messages.ts';
import { decodeFrame, encodeFrame } from '../../content/faults.ts';

const request = (i: number, over: Partial<FaultEvent> = {}): FaultEvent => ({
  direction: 'to-client',
  type: 'action:request',
  transport: 'socket.io',
  client: 'h1/c1',
  surfaceId: i % 2 ? 'catalog' : 'cart',
  actionId: 'search',
  ...over,
});

test('mulberry32 is the published generator: seed 1 starts 0.6270739405881613', () => {
  // The first output of mulberry32(1) as the reference JavaScript implementation (Tommy Ettinger's, as widely quoted) gives it.
  const r = mulberry32(1);
  assert.equal(r(), 0.6270739405881613);
});

test('same seed and same events: the same events are faulted; another seed differs', () => {
  const rules: FaultRule[] = [{ id: 'r1', match: { type: 'action:request' }, fault: { kind: 'drop' }, probability: 0.5 }];
  const run = (seed: number) => {
    const d = createFaultDecider(rules, seed);
    const hit: number[] = [];
    for (let i = 0; i < 64; i++) if (d.decide(request(i))) hit.push(i);
    return hit;
  };
  assert.deepEqual(run(42), run(42));
  assert.notDeepEqual(run(42), run(43));
  const n = run(42).length;
  assert.ok(n > 16 && n < 48, `about half of 64 faulted, got ${n}`);
});

test("a rule's stream does not depend on another rule: adding a rule before it leaves its choices as they were", () => {
  const r2: FaultRule = { id: 'r2', match: {}, fault: { kind: 'delay', ms: 10 }, probability: 0.5 };
  const alone = createFaultDecider([r2], 7);
  const withOther = createFaultDecider([{ id: 'r0', match: { surfaceId: 'cart' }, fault: { kind: 'duplicate' }, probability: 0.5 }, r2], 7);
  const a: boolean[] = [];
  const b: boolean[] = [];
  for (let i = 1; i < 64; i += 2) {
    // Only catalog events: r0 never matches them, so r2 decides both times.
    a.push(alone.decide(request(i)) !== null);
    b.push(withOther.decide(request(i))?.rule.id === 'r2');
  }
  assert.deepEqual(a, b);
});

test('maxCount, enabled and the match fields', () => {
  const d = createFaultDecider([{ id: 'once', match: { surfaceId: 'catalog', direction: 'to-client' }, fault: { kind: 'drop' }, maxCount: 1 }], 1);
  assert.equal(d.decide(request(0)), null, 'cart is not matched');
  assert.equal(d.decide(request(1, { direction: 'from-client', type: 'action:result' })), null, 'the other direction is not matched');
  assert.equal(d.decide(request(1))?.rule.id, 'once');
  assert.equal(d.decide(request(3)), null, 'at most once');
  assert.deepEqual(d.counts(), { once: 1 });
  const off = createFaultDecider([{ id: 'off', match: {}, fault: { kind: 'drop' }, enabled: false }], 1);
  assert.equal(off.decide(request(1)), null);
});

test('a set sent again (a takeover seat added) keeps an unchanged rule\'s count: at most once stays once in all; a changed rule or another seed starts over', () => {
  const once: FaultRule = { id: 'once', match: { surfaceId: 'catalog', direction: 'to-client' }, fault: { kind: 'drop' }, maxCount: 1 };
  const d = createFaultDecider([once], 1);
  assert.equal(d.decide(request(1))?.rule.id, 'once');
  const again = createFaultDecider([takeoverRule('c9'), { ...once, match: { ...once.match } }], 1, d);
  assert.equal(again.decide(request(3)), null, 'already used up before the re-send');
  assert.deepEqual(again.counts(), { 'takeover:c9': 0, once: 1 });
  assert.equal(createFaultDecider([{ ...once, maxCount: 2 }], 1, d).decide(request(3))?.rule.id, 'once', 'a changed rule is a new one');
  assert.equal(createFaultDecider([once], 2, d).decide(request(3))?.rule.id, 'once', 'another seed starts over');
});

test('faults scoped by what they can do: a refusal only on results over Socket.IO or direct; a stale knownSurfaces only on requests to the client', () => {
  const refuse: FaultRule = { id: 'x', match: {}, fault: { kind: 'refuse-result', error: 'too large' } };
  assert.ok(matchesEvent(refuse, request(1, { direction: 'from-client', type: 'action:result' })));
  assert.ok(!matchesEvent(refuse, request(1, { direction: 'from-client', type: 'action:result', transport: 'postmessage' })), 'postMessage carries no acknowledgment');
  assert.ok(!matchesEvent(refuse, request(1)));
  const stale: FaultRule = { id: 's', match: {}, fault: { kind: 'stale-known-surfaces', knownSurfaces: 'fnv1a64:0000000000000000' } };
  assert.ok(matchesEvent(stale, request(1)));
  assert.ok(!matchesEvent(stale, request(1, { type: 'observation:request' })));
});

test('takeover drops everything the runtime sends to that one client, acknowledgments included, and nothing of another client', () => {
  const rule = takeoverRule('h1/c1');
  assert.ok(matchesEvent(rule, request(1)));
  assert.ok(matchesEvent(rule, request(1, { type: 'ack', surfaceId: undefined })));
  assert.ok(!matchesEvent(rule, request(1, { client: 'h1/c2' })));
  assert.ok(!matchesEvent(rule, request(1, { direction: 'from-client', type: 'action:result' })));
});

test('readFaultRule refuses what is malformed and keeps what is well formed', () => {
  assert.equal(readFaultRule(null), null);
  assert.equal(readFaultRule({ id: 'a', fault: { kind: 'explode' } }), null);
  assert.equal(readFaultRule({ id: 'a', fault: { kind: 'delay' } }), null, 'a delay needs its ms');
  assert.equal(readFaultRule({ id: 'a', fault: { kind: 'delay', ms: -1 } }), null);
  assert.equal(readFaultRule({ id: 'a', fault: { kind: 'drop' }, probability: 2 }), null);
  assert.equal(readFaultRule({ id: 'a', fault: { kind: 'disconnect', code: 1006 } }), null, 'a page cannot close with 1006');
  assert.equal(readFaultRule({ id: 'a', match: { direction: 'sideways' }, fault: { kind: 'drop' } }), null);
  assert.deepEqual(readFaultRule({ id: 'a', match: { type: 'action:request', surfaceId: '' }, fault: { kind: 'disconnect', code: 4001, reason: 'fault' }, maxCount: 1, extra: 1 }), {
    id: 'a',
    match: { type: 'action:request' },
    fault: { kind: 'disconnect', code: 4001, reason: 'fault' },
    maxCount: 1,
  });
  assert.equal(readFaultRules([{ id: 'a', fault: { kind: 'drop' } }, { id: 'a', fault: { kind: 'drop' } }]), null, 'ids are unique');
});

test('hook:faults is read by the hook and passed on from the panel; a malformed one is not', () => {
  const c = { type: 'hook:faults', rules: [{ id: 'a', match: {}, fault: { kind: 'drop' } }], seed: 5 };
  assert.deepEqual(readHookCommand(c), c);
  assert.deepEqual(readFromPanel(c), c);
  assert.equal(readHookCommand({ ...c, seed: -1 }), null);
  assert.equal(readHookCommand({ ...c, rules: [{ id: 'a' }] }), null);
});

test('the hook decodes OUI events of Socket.IO and plain JSON frames, and passes everything else', () => {
  // Socket.IO v5 over Engine.IO v4: 4 message, 2 event / 3 ack, namespace, ack id (socket.io-parser's documented encoding).
  const ev = decodeFrame('42/oui,17["action:request",{"requestId":"r","surfaceId":"s"}]', true);
  assert.deepEqual(ev, { type: 'action:request', payload: { requestId: 'r', surfaceId: 's' }, packet: '2', nsp: '/oui', ackId: '17', rest: [] });
  assert.equal(encodeFrame(ev!, { requestId: 'r2' }), '42/oui,17["action:request",{"requestId":"r2"}]');
  assert.equal(encodeFrame(ev!, { requestId: 'r2' }, null), '42/oui,["action:request",{"requestId":"r2"}]');
  assert.deepEqual(decodeFrame('43/oui,3[{"ok":true}]', true), { type: 'ack', payload: { ok: true }, packet: '3', nsp: '/oui', ackId: '3' });
  assert.deepEqual(decodeFrame('42["surface:register",{}]', true), { type: 'surface:register', payload: {}, packet: '2', rest: [] });
  for (const other of ['2', '3', '40/oui,{"sid":"x"}', '42/oui,["chat",1]', '451-["action:result",{"_placeholder":true,"num":0}]', 'not json']) assert.equal(decodeFrame(other, true), undefined, other);
  assert.deepEqual(decodeFrame('{"type":"action:request","payload":{"a":1}}', false), { type: 'action:request', payload: { a: 1 } });
  assert.equal(decodeFrame('{"type":"hello"}', false), undefined);
  assert.equal(decodeFrame('42["action:request",{}]', false), undefined);
});

test('the background sends hook:faults to every frame of its tab, hands it to documents that load later, and clears it in the page with the last panel', async () => {
  const { createRouter } = await import('../../src/background/router.ts');
  const { FakePort } = await import('../support/fake-port.ts');
  const { PROTOCOL } = await import('../../src/messages.ts');
  const ORIGIN = 'chrome-extension://abcdefghijklmnop';
  const calls: Array<{ tabId: number; message: unknown; frameId: number | undefined }> = [];
  const router = createRouter({ extensionOrigin: ORIGIN, sendToTab: async (tabId, message, frameId) => (calls.push({ tabId, message, frameId }), true) });
  const panel = new FakePort('panel', { url: `${ORIGIN}/panel.html`, id: 'abcdefghijklmnop' });
  router.connect(panel);
  panel.send({ type: 'panel:hello', v: PROTOCOL, tabId: 3 });
  const faults = { type: 'hook:faults', rules: [{ id: 'r1', match: { type: 'action:request' }, fault: { kind: 'drop' } }], seed: 9, id: 'faults:1' };
  panel.send(faults);
  assert.deepEqual(calls, [{ tabId: 3, message: faults, frameId: undefined }], 'to every frame (no frame id)');
  // A document loading in that tab later is welcomed with the rules, another tab's is not.
  assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 3 }, frameId: 2 })?.faults, faults);
  assert.equal(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 4 }, frameId: 0 })?.faults, undefined);
  calls.length = 0;
  panel.close();
  assert.ok(calls.some((c) => c.tabId === 3 && (c.message as { type: string; rules?: unknown[] }).type === 'hook:faults' && (c.message as { rules: unknown[] }).rules.length === 0), 'rules off in the page once no panel shows them');
  assert.equal(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 3 }, frameId: 0 })?.faults, undefined);
});
