/**
 * The message catalogue: what each hop accepts. Page-originated data goes
 * through these readers, so they must take anything without throwing, and give
 * back only the fields of the message they name.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  PROTOCOL,
  readBridgeRequest,
  readBridgeWelcome,
  readFromPanel,
  readHookCommand,
  readHookMessage,
  readToPanel,
  type FromPanel,
  type HookCommand,
  type HookMessage,
  type ToPanel,
} from '../../src/messages.ts';
import { createRouter } from '../../src/background/router.ts';
import { FakePort } from '../support/fake-port.ts';
import { pageAnything } from '../support/page-data.ts';

const READERS = { readBridgeRequest, readBridgeWelcome, readFromPanel, readHookCommand, readHookMessage, readToPanel };

const hookMessages: HookMessage[] = [
  { type: 'items', hook: 'h', items: [], clients: [] },
  { type: 'state', hook: 'h', drops: { c1: 2 }, clients: [], path: 'top/0', v: PROTOCOL },
  { type: 'skipped', hook: 'h', through: { c1: 4 } },
  { type: 'answer', id: 'inj-1', ok: true },
  { type: 'answer', id: 'inj-2', ok: false, error: 'no such client' },
  { type: 'flushed', hook: 'h', id: 'f-1', through: { c1: 7 }, waiting: 0 },
  {
    type: 'coverage',
    hook: 'h',
    report: {
      path: 'top',
      url: 'http://127.0.0.1/',
      origin: 'http://127.0.0.1',
      children: [{ index: 0, element: 'iframe', src: 'http://127.0.0.2/', sandbox: 'allow-scripts' }, { index: 1, element: '', src: '', url: 'about:blank' }],
      workers: [{ url: 'http://127.0.0.1/w.js', kind: 'shared', type: 'module', captured: false, reason: 'r' }],
      workersDropped: 2,
    },
  },
];

const commands: HookCommand[] = [
  { type: 'subscribe', cursors: { 'h/c1': 3 } },
  { type: 'unsubscribe' },
  { type: 'hook:flush', id: 'f-1' },
  { type: 'hook:hold', id: 'i', scope: 'postmessage:top<->top/0', hold: ['r1'] },
  { type: 'hook:inject', id: 'i', target: { via: 'websocket', frameId: 0, hook: 'h', client: 'c1' }, hold: ['r1'], frame: '{"type":"action:request"}' },
  { type: 'hook:inject', id: 'i', target: { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', frameId: 3, peerFrameId: 0 }, hold: [], message: { type: 'action:request' } },
  { type: 'hook:inject', id: 'i', target: { via: 'direct', frameId: 0, hook: 'h', client: 'd' }, hold: [], request: { requestId: 'r' }, wantReceipt: true },
  { type: 'hook:coverage' },
];

describe('message catalogue', () => {
  it('reads back every well-formed message as it was sent', () => {
    for (const m of hookMessages) assert.deepEqual(readHookMessage(structuredClone(m)), m);
    for (const c of commands) assert.deepEqual(readHookCommand(structuredClone(c)), c);
    const fromPanel: FromPanel[] = [{ type: 'panel:hello', v: PROTOCOL, tabId: 4 }, commands[0] as FromPanel, { type: 'hook:coverage' }, { ...(commands[3] as Extract<HookCommand, { type: 'hook:inject' }>), frameId: 2 }];
    for (const m of fromPanel) assert.deepEqual(readFromPanel(structuredClone(m)), m);
    const toPanel: ToPanel[] = [{ type: 'capture', frameId: 0, message: hookMessages[1]! }, { type: 'restored', frameId: 2 }, { type: 'stale', line: 'reload' }];
    for (const m of toPanel) assert.deepEqual(readToPanel(structuredClone(m)), m);
    assert.deepEqual(readBridgeRequest({ type: 'bridge:hello', v: PROTOCOL, late: true }), { type: 'bridge:hello', v: PROTOCOL, restored: false, late: true });
    assert.deepEqual(readBridgeWelcome({ type: 'bridge:welcome', key: 'k', subscribe: { type: 'subscribe', cursors: {} } }), { type: 'bridge:welcome', key: 'k', subscribe: { type: 'subscribe', cursors: {} } });
  });

  it('keeps only the fields a message has: nothing extra rides along to the next hop', () => {
    const inject = readHookCommand({ ...commands[3], code: 'alert(1)', target: { ...(commands[3] as { target: object }).target, extra: 1 } });
    assert.deepEqual(inject, commands[3]);
    assert.deepEqual(readHookMessage({ type: 'answer', id: 'x', ok: 'yes', error: { toString: 1 } }), { type: 'answer', id: 'x', ok: false, error: 'not delivered' });
    // A frame report keeps strings and counts only: a child or worker of another shape is left out, not the report.
    const report = { path: 'top', url: 'u', origin: 'o', children: [{ index: -1, element: 'iframe', src: '' }, { index: 0, element: 'iframe', src: 's', sandbox: 7, html: '<b>' }], workers: [{ url: 'w', kind: 'service', type: 'classic' }, { url: 'w', kind: 'dedicated', type: 'classic', captured: 'yes' }], workersDropped: -1 };
    assert.deepEqual(readHookMessage({ type: 'coverage', hook: 'h', report }), {
      type: 'coverage',
      hook: 'h',
      report: { path: 'top', url: 'u', origin: 'o', children: [{ index: 0, element: 'iframe', src: 's' }], workers: [{ url: 'w', kind: 'dedicated', type: 'classic', captured: false }], workersDropped: 0 },
    });
  });

  it('refuses what names no message or lacks the fields it acts on', () => {
    const refused: Array<[keyof typeof READERS, unknown]> = [
      ['readHookMessage', { type: 'items', hook: 1, items: [] }],
      ['readHookMessage', { type: 'items', hook: 'h', items: 'all' }],
      ['readHookMessage', { type: 'state', hook: 'h' }],
      ['readHookMessage', { type: 'subscribe', cursors: {} }],
      ['readHookCommand', { type: 'hook:inject', id: 'i', target: { via: 'websocket', frameId: -1, hook: 'h', client: 'c' }, hold: [] }],
      ['readHookCommand', { type: 'hook:inject', id: 'i', target: { via: 'ftp' }, hold: [] }],
      ['readHookCommand', { type: 'hook:inject', id: 'i', target: { via: 'direct', frameId: 0, hook: 'h', client: 'c' }, hold: [1] }],
      ['readHookCommand', { type: 'items', hook: 'h', items: [] }],
      ['readHookCommand', { type: 'hook:flush' }],
      ['readHookMessage', { type: 'flushed', hook: 'h', id: 'f', through: 3 }],
      ['readHookMessage', { type: 'flushed', hook: 'h', through: {}, waiting: 0 }],
      ['readHookMessage', { type: 'coverage', hook: 'h', report: { path: 'top', url: 'u' } }],
      ['readHookMessage', { type: 'coverage', hook: 'h' }],
      // Only the Playwright fixture's bridge asks a hook to flush: a panel cannot.
      ['readFromPanel', { type: 'hook:flush', id: 'f' }],
      ['readFromPanel', { type: 'panel:hello', tabId: 1 }],
      ['readFromPanel', { type: 'unsubscribe' }],
      ['readFromPanel', { type: 'hello', tabId: 1 }],
      ['readToPanel', { type: 'capture', frameId: 0, message: { type: 'eval' } }],
      ['readBridgeRequest', { type: 'hello' }],
      ['readBridgeWelcome', { type: 'subscribe', cursors: {} }],
    ];
    for (const [reader, x] of refused) assert.equal(READERS[reader](x), null, `${reader}(${JSON.stringify(x)})`);
  });

  it('never throws, whatever arrives (fast-check, prototype keys included)', () => {
    const tagged = fc.record({ type: fc.constantFrom('items', 'state', 'skipped', 'answer', 'subscribe', 'unsubscribe', 'hook:inject', 'hook:hold', 'panel:hello', 'capture', 'restored', 'stale', 'bridge:hello', 'bridge:stale', 'bridge:welcome', 'coverage', 'hook:coverage'), hook: pageAnything(), report: pageAnything(), items: pageAnything(), target: pageAnything(), hold: pageAnything(), message: pageAnything(), frameId: pageAnything(), cursors: pageAnything(), subscribe: pageAnything() }, { requiredKeys: ['type'] });
    fc.assert(
      fc.property(fc.oneof(pageAnything(), tagged), (x) => {
        for (const read of Object.values(READERS)) read(x);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('versioned hello', () => {
  it('a panel of another message version is told in one line and receives no capture', () => {
    const ORIGIN = 'chrome-extension://x';
    const router = createRouter({ extensionOrigin: ORIGIN, sendToTab: async () => true });
    const panel = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(panel);
    panel.send({ type: 'panel:hello', v: PROTOCOL + 1, tabId: 3 });
    assert.equal(panel.received.length, 1);
    assert.match(String((panel.received[0] as { line?: unknown }).line), new RegExp(`protocol ${PROTOCOL + 1}.*${PROTOCOL}`));
    assert.equal(router.watched(3), false);
    const bridge = new FakePort('capture', { tab: { id: 3 }, frameId: 0 });
    router.connect(bridge);
    bridge.send({ type: 'items', hook: 'h', items: [], clients: [] });
    assert.equal(panel.received.length, 1);
  });
});
