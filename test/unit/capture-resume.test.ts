/**
 * Capture that never goes quiet without a word, in its pure parts: replays
 * chunked so no message exceeds what Chrome carries, items that could not be
 * carried counted, and the background telling panels when a page came back
 * from the back/forward cache or outlived an extension reload.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chunkItems, jsonBound, lastSeqs, CHUNK_BYTES } from '../../content/chunks.ts';
import { CaptureIntake } from '../../src/session/wire/intake.ts';
import { createRouter, STALE_LINE } from '../../src/background/router.ts';
import { FakePort } from '../support/fake-port.ts';
import { until } from '../support/wait.ts';
import { PROTOCOL } from '../../src/messages.ts';
import type { CapturedItem } from '../../src/capture/captured-items.ts';

const item = (seq: number, text: string, client = 'c1'): CapturedItem => ({ hook: 'h', client, seq, t: seq, kind: 'frame', dir: 'out', payload: { text } });
const utf8 = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('chunked replay', () => {
  it('keeps order, loses nothing, and bounds every chunk by its real JSON size', () => {
    const nasty = '\u0001"\\é😀'.repeat(300);
    const items = Array.from({ length: 5000 }, (_, i) => item(i + 1, i % 3 ? nasty : 'x'.repeat(i % 1000)));
    const chunks = chunkItems(items, 256 * 1024);
    assert.ok(chunks.length > 10);
    assert.deepEqual(chunks.flat().map((it) => it.seq), items.map((it) => it.seq));
    for (const c of chunks) assert.ok(utf8({ type: 'items', hook: 'h', items: c, clients: [] }) <= 256 * 1024 + 1024, 'a chunk fits its bound');
  });

  it('the estimate is never below the serialised size, for text, bytes (as base64) and capped frames', () => {
    for (const it of [
      item(1, '\u0000\u001f\ud800"\\'),
      item(2, '中文'.repeat(100)),
      { ...item(3, ''), payload: { bytes: new Uint8Array(1000) } },
      { ...item(4, ''), payload: { omitted: true as const, head: '\u0002'.repeat(512) }, size: 9e6, note: 'x\n', url: 'ws://a/"b"' },
    ]) {
      const wire = 'bytes' in it.payload! ? { ...it, payload: { base64: Buffer.from(it.payload.bytes).toString('base64') } } : it;
      assert.ok(jsonBound(it) >= utf8(wire), JSON.stringify(wire).slice(0, 60));
    }
  });

  it('an item above the bound goes alone; an empty replay is one empty message', () => {
    const big = item(2, 'y'.repeat(CHUNK_BYTES));
    assert.deepEqual(chunkItems([item(1, 'a'), big, item(3, 'b')]).map((c) => c.map((it) => it.seq)), [[1], [2], [3]]);
    assert.deepEqual(chunkItems([]), [[]]);
  });

  it('a full buffer whose single message would exceed 64 MiB is chunked below it', () => {
    // 20,000 frames of control characters: 32 MiB as the buffer weighs them, ~97 MB as JSON.
    const text = '\u0001'.repeat(806);
    const items = Array.from({ length: 20_000 }, (_, i) => item(i + 1, text));
    assert.ok(utf8({ items }) > 64 * 1024 * 1024);
    const chunks = chunkItems(items);
    assert.ok(chunks.every((c) => utf8({ items: c }) < CHUNK_BYTES + 4096));
    assert.equal(chunks.flat().length, 20_000);
  });

  it('lastSeqs names the highest seq per client', () => {
    assert.deepEqual(lastSeqs([item(3, ''), item(5, '', 'c2'), item(4, '')]), { c1: 4, c2: 5 });
  });
});

describe('undelivered items', () => {
  it('are counted apart from the buffer drops, and are not replayed nor counted twice', () => {
    const intake = new CaptureIntake();
    intake.accept(0, { type: 'items', hook: 'h', clients: [{ id: 'c1', kind: 'websocket', url: 'u', origin: 'o', frameUrl: 'f' }], items: [item(1, 'a'), item(2, 'b')] });
    intake.accept(0, { type: 'skipped', hook: 'h', through: { c1: 5 } });
    assert.deepEqual(intake.cursors(), { 'h/c1': 5 });
    const later = intake.accept(0, { type: 'items', hook: 'h', items: [item(5, 'dup'), item(6, 'c')] });
    assert.deepEqual(later.items.map((it) => it.seq), [6]);
    intake.accept(0, { type: 'skipped', hook: 'h', through: { c1: 4, c2: 'x' } });
    assert.equal(intake.totalUndelivered(), 3);
    assert.equal(intake.totalLost(), 0, 'nothing attributed to the page buffer');
  });
});

describe('background: restored pages and stale tabs', () => {
  const ORIGIN = 'chrome-extension://abcdefghijklmnop';
  function setup() {
    const stale = new Set<number>();
    const sent: unknown[] = [];
    const router = createRouter({
      extensionOrigin: ORIGIN,
      sendToTab: async (tabId, m) => {
        sent.push([tabId, m]);
        return true;
      },
      staleTabs: { mark: (t) => void stale.add(t), clear: (t) => void stale.delete(t), has: async (t) => stale.has(t) },
    });
    const panel = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(panel);
    panel.send({ type: 'panel:hello', v: PROTOCOL, tabId: 7 });
    return { router, panel, stale, sent };
  }

  it('a page back from the cache gets no blind subscription; its panel is told, and skipped notes reach it', () => {
    const { router, panel } = setup();
    assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL, restored: true }, { tab: { id: 7 }, frameId: 0 }), { type: 'bridge:welcome' });
    assert.deepEqual(panel.received, [{ type: 'restored', frameId: 0 }]);
    assert.deepEqual(router.hello({ type: 'bridge:hello', v: PROTOCOL, restored: true }, { tab: { id: 8 }, frameId: 0 }), { type: 'bridge:welcome' });
    assert.equal(panel.received.length, 1, "another tab's restore is not this panel's business");
    const bridge = new FakePort('capture', { tab: { id: 7 }, frameId: 0 });
    router.connect(bridge);
    bridge.send({ type: 'skipped', hook: 'h', through: { c1: 3 } });
    assert.deepEqual(panel.received[1], { type: 'capture', frameId: 0, message: { type: 'skipped', hook: 'h', through: { c1: 3 } } });
  });

  it('a tab that outlived a reload says so to its panels, now and later, until a new document loads', async () => {
    const { router, panel, stale } = setup();
    assert.equal(router.stale({ type: 'bridge:stale' }, { tab: { id: 7 }, frameId: 3 }), true);
    assert.equal(stale.size, 0, 'an iframe alone does not make the page stale');
    router.stale({ type: 'bridge:stale' }, { tab: { id: 7 }, frameId: 0 });
    assert.deepEqual(panel.received, [{ type: 'stale', line: STALE_LINE }]);
    const late = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(late);
    late.send({ type: 'panel:hello', v: PROTOCOL, tabId: 7 });
    await until(() => late.received.length > 0, 'the late panel told');
    assert.deepEqual(late.received, [{ type: 'stale', line: STALE_LINE }]);
    router.hello({ type: 'bridge:hello', v: PROTOCOL, late: true }, { tab: { id: 7 }, frameId: 0 });
    assert.ok(stale.has(7), 'a late bridge is not a new document');
    router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 7 }, frameId: 0 });
    assert.ok(!stale.has(7));
  });

  it('a panel that says hello while the stale mark is still being written is told all the same', async () => {
    // Storage that has not finished writing: the mark is not readable yet.
    const router = createRouter({ extensionOrigin: ORIGIN, sendToTab: async () => true, staleTabs: { mark: () => {}, clear: () => {}, has: async (id: number) => id === 10 } });
    router.markStale(9);
    const panel = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(panel);
    panel.send({ type: 'panel:hello', v: PROTOCOL, tabId: 9 });
    await until(() => panel.received.length > 0, 'the panel told');
    assert.deepEqual(panel.received, [{ type: 'stale', line: STALE_LINE }]);
    // A new document in the tab: no longer stale, for a panel opened after it.
    router.hello({ type: 'bridge:hello', v: PROTOCOL }, { tab: { id: 9 }, frameId: 0 });
    const after = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(after);
    after.send({ type: 'panel:hello', v: PROTOCOL, tabId: 9 });
    // A witness: a later hello for a tab whose mark storage has (10) takes the same asynchronous path and is answered; the first was handled before it.
    const witness = new FakePort('panel', { url: `${ORIGIN}/panel.html` });
    router.connect(witness);
    witness.send({ type: 'panel:hello', v: PROTOCOL, tabId: 10 });
    await until(() => witness.received.length > 0, 'the witness panel told');
    assert.deepEqual(after.received, []);
  });
});
