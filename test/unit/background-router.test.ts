/**
 * The background's routing rules, with fake ports: capture goes to the
 * panels of its own tab only, panels must be extension pages, and a panel's
 * commands reach its own tab only.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRouter } from '../../src/background/router.ts';
import { FakePort } from '../support/fake-port.ts';
import { PROTOCOL } from '../../src/messages.ts';

const ORIGIN = 'chrome-extension://abcdefghijklmnop';

function setup() {
  const calls: Array<{ tabId: number; message: unknown; frameId: number | undefined }> = [];
  const router = createRouter({
    extensionOrigin: ORIGIN,
    sendToTab: async (tabId, message, frameId) => {
      calls.push({ tabId, message, frameId });
      return true;
    },
  });
  const panel = (tabId: number | null, url = `${ORIGIN}/panel/panel.html`) => {
    const p = new FakePort('panel', { url, id: 'abcdefghijklmnop' });
    router.connect(p);
    if (tabId !== null) p.send({ type: 'panel:hello', v: PROTOCOL, tabId });
    return p;
  };
  const capture = (tabId: number | undefined, frameId?: number) => {
    const p = new FakePort('capture', { ...(tabId !== undefined ? { tab: { id: tabId } } : {}), ...(frameId !== undefined ? { frameId } : {}), url: 'https://app.test/' });
    router.connect(p);
    return p;
  };
  return { router, calls, panel, capture };
}

const ITEMS = { type: 'items', hook: 'h', items: [], clients: [] };

describe('background router: capture', () => {
  it('delivers a tab capture to that tab panels only, with the sender frame', () => {
    const { panel, capture } = setup();
    const a1 = panel(1);
    const a2 = panel(1);
    const b = panel(2);
    capture(1, 4).send(ITEMS);
    capture(1).send({ type: 'state', hook: 'h', drops: {}, clients: [] });
    capture(1).send({ type: 'answer', id: 'inj-1', ok: true });
    const expected = [
      { type: 'capture', frameId: 4, message: ITEMS },
      { type: 'capture', frameId: 0, message: { type: 'state', hook: 'h', drops: {}, clients: [] } },
      { type: 'capture', frameId: 0, message: { type: 'answer', id: 'inj-1', ok: true } },
    ];
    assert.deepEqual(a1.received, expected);
    assert.deepEqual(a2.received, expected);
    assert.deepEqual(b.received, []);
    capture(2).send(ITEMS);
    assert.equal(a1.received.length, 3);
    assert.equal(b.received.length, 1);
  });

  it('disconnects a capture port that belongs to no tab', () => {
    const { panel, capture } = setup();
    const p = panel(1);
    for (const tab of [undefined, -1]) {
      const c = capture(tab);
      assert.equal(c.disconnected, true);
      assert.equal(c.listening, false);
      c.send(ITEMS);
    }
    const noSender = new FakePort('capture');
    setup().router.connect(noSender);
    assert.equal(noSender.disconnected, true);
    assert.deepEqual(p.received, []);
  });

  it('does not forward messages of other types', () => {
    const { panel, capture, calls } = setup();
    const p = panel(1);
    const c = capture(1);
    for (const m of [{ type: 'hook:inject', target: {} }, { type: 'subscribe', cursors: {} }, { type: 'capture' }, { type: 5 }, {}, null, 'items', 42]) c.send(m);
    assert.deepEqual(p.received, []);
    assert.equal(calls.length, 0, 'a page never reaches sendToTab');
  });

  it('keeps delivering to the other panels when one throws', () => {
    const { panel, capture } = setup();
    const broken = panel(1);
    broken.postMessage = () => {
      throw new Error('closed');
    };
    const ok = panel(1);
    assert.doesNotThrow(() => capture(1).send(ITEMS));
    assert.equal(ok.received.length, 1);
  });

  it('disconnects ports with any other name', () => {
    const { router } = setup();
    const p = new FakePort('devtools', { url: `${ORIGIN}/panel/panel.html` });
    router.connect(p);
    assert.equal(p.disconnected, true);
  });
});

describe('background router: panels', () => {
  it('refuses a panel port from outside the extension, and never registers it', () => {
    const { panel, capture, router, calls } = setup();
    for (const url of ['https://evil.test/panel.html', `${ORIGIN}evil.test/panel.html`, `${ORIGIN}.evil.test/`, 'chrome-extension://other/panel.html', undefined]) {
      const p = new FakePort('panel', url === undefined ? {} : { url });
      router.connect(p);
      assert.equal(p.disconnected, true, String(url));
      assert.equal(p.listening, false);
      p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 1 });
      p.send({ type: 'hook:inject', frameId: 0 });
      assert.equal(router.watched(1), false);
      capture(1).send(ITEMS);
      assert.deepEqual(p.received, []);
    }
    assert.equal(calls.length, 0);
    // The extension origin itself, and pages under it, are accepted.
    assert.equal(panel(1, ORIGIN).disconnected, false);
    assert.equal(panel(2).disconnected, false);
    assert.equal(router.watched(1) && router.watched(2), true);
  });

  it('sends subscribe and hook: commands to the panel tab only', () => {
    const { panel, calls } = setup();
    const p = panel(1);
    panel(2);
    const target = { via: 'websocket', frameId: 4, hook: 'h', client: 'c1' } as const;
    p.send({ type: 'subscribe', cursors: { 'h/c1': 3 } });
    p.send({ type: 'hook:inject', id: 'i', target, hold: [], frame: '{}', frameId: 4, tabId: 2 });
    p.send({ type: 'hook:hold', id: 'k', scope: 's', hold: ['r1', 7], frameId: 1.5 });
    p.send({ type: 'hook:other', frameId: 1 });
    p.send({ type: 'hook:inject', id: 'no target', hold: [] });
    p.send({ type: 'subscribe', cursors: 'all' });
    p.send({ type: 'eval', code: '1' });
    p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 2 }); // a panel names its tab once
    p.send({ type: 'hook:inject', id: 'j', target, hold: ['r2'] });
    assert.deepEqual(calls, [
      { tabId: 1, message: { type: 'subscribe', cursors: { 'h/c1': 3 } }, frameId: undefined },
      // Read through the catalogue: only the command's own fields go on, and the frame it is for.
      { tabId: 1, message: { type: 'hook:inject', id: 'i', target, hold: [], frame: '{}' }, frameId: 4 },
      // A hold or an injection that names no frame (1.5 is none) goes nowhere: never to every frame of the tab.
      { tabId: 1, message: { type: 'subscribe', cursors: {} }, frameId: undefined },
    ]);
  });

  it('ignores commands before the panel names its tab', () => {
    const { panel, calls } = setup();
    const p = panel(null);
    p.send({ type: 'subscribe', cursors: {} });
    p.send({ type: 'hook:inject', frameId: 0 });
    p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 'one' });
    p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 1.5 });
    p.send(null);
    assert.deepEqual(calls, []);
    p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 7 });
    p.send({ type: 'subscribe' });
    assert.deepEqual(calls, [{ tabId: 7, message: { type: 'subscribe', cursors: {} }, frameId: undefined }]);
  });

  it('unsubscribes the tab when its last panel goes away', () => {
    const { panel, capture, calls, router } = setup();
    const a = panel(1);
    const b = panel(1);
    const other = panel(2);
    a.close();
    assert.deepEqual(calls, []);
    assert.equal(router.watched(1), true);
    capture(1).send(ITEMS);
    assert.equal(a.received.length, 0, 'a closed panel receives nothing more');
    assert.equal(b.received.length, 1);
    b.close();
    assert.deepEqual(calls, [{ tabId: 1, message: { type: 'unsubscribe' }, frameId: undefined }]);
    assert.equal(router.watched(1), false);
    assert.equal(router.watched(2), true);
    // A panel that never named a tab unsubscribes nothing.
    panel(null).close();
    assert.equal(calls.length, 1);
    other.close();
    assert.deepEqual(calls.at(-1), { tabId: 2, message: { type: 'unsubscribe' }, frameId: undefined });
  });

  it('hello() answers subscribe only for watched tabs', () => {
    const { panel, router } = setup();
    const p = panel(1);
    assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 1 }, frameId: 0 }), { type: 'bridge:welcome', subscribe: { type: 'subscribe', cursors: {} } });
    assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 2 } }), { type: 'bridge:welcome' });
    assert.equal(router.hello({ type: 'other' }, { tab: { id: 1 } }), null);
    assert.equal(router.hello(null, { tab: { id: 1 } }), null);
    assert.equal(router.hello({ type: 'bridge:hello', v: PROTOCOL }, {}), null);
    assert.equal(router.hello({ type: 'bridge:hello', v: PROTOCOL }, undefined), null);
    p.close();
    assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 1 } }), { type: 'bridge:welcome' });
  });
});
