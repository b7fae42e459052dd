/**
 * The page hook's bounded memory, run in Node with the real buffer: what it
 * counts is what it holds (a large frame keeps a head of its own, not a view
 * of the original), and a client that has shown no OUI traffic keeps only a
 * small ring, its first items pinned, until it does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CapturedItem } from '../../src/capture/captured-items.ts';
import type { Natives } from '../../content/natives.ts';

(globalThis as { location?: unknown }).location ??= { origin: 'http://127.0.0.1:1', href: 'http://127.0.0.1:1/' };
const { createCaptureBuffer, textPayload, FRAME_CAP } = await import('../../content/capture-buffer.ts');
const { createQuietRing, showsOui, QUIET_ITEMS, QUIET_BYTES } = await import('../../content/quiet-ring.ts');

let clock = 1_000;
const natives = {
  now: () => clock++,
  randomId: () => 'hook1',
  setTimeout: (fn: () => void) => setTimeout(fn, 0),
} as unknown as Natives;

const OUI = '{"type":"observation:update","payload":{"surfaceId":"s","observationId":"o","value":1,"timestamp":1}}';

/** Everything a panel subscribing now is sent at once, every chunk of it. */
function replay(buffer: ReturnType<typeof createCaptureBuffer>): Promise<CapturedItem[]> {
  const all: CapturedItem[] = [];
  buffer.subscribe({}, { items: (items) => all.push(...items) });
  buffer.unsubscribe();
  return Promise.resolve(all);
}

describe('a large frame', () => {
  it('keeps a head and the size of the original', () => {
    const big = 'x'.repeat(FRAME_CAP + 1) + 'y';
    const { payload, size } = textPayload(big);
    assert.equal(size, FRAME_CAP + 2);
    assert.ok('omitted' in payload && payload.head === 'x'.repeat(512));
    // Whether V8 retains the original behind the head is measured in real Chromium (test/e2e/hook-memory.test.ts).
  });

  it('keeps lone surrogates and every code unit of its head', () => {
    const text = '\ud800a😀'.repeat(200) + 'x'.repeat(FRAME_CAP);
    const { payload } = textPayload(text);
    assert.ok('omitted' in payload && payload.head === text.slice(0, 512));
  });
});

describe('the quiet ring', () => {
  it('reads OUI traffic in JSON, Socket.IO and capped heads, and nothing else', () => {
    const item = (payload: CapturedItem['payload']): CapturedItem => ({ hook: 'h', client: 'c', seq: 1, t: 1, kind: 'frame', payload });
    assert.ok(showsOui(item({ text: OUI })));
    assert.ok(showsOui(item({ text: '42/ns,["action:request",{"requestId":"r"}]' })));
    assert.ok(showsOui(item({ omitted: true, head: '{"type":"surface:register",' })));
    // A socket whose only OUI is extension events is promoted, as the decoder reads them (contract.ts).
    assert.ok(showsOui(item({ text: '{"type":"x-approval:ask","payload":{}}' })));
    assert.ok(!showsOui(item({ text: '{"type":"chat","text":"an action: go"}' })));
    assert.ok(!showsOui(item({ base64: 'AAAA' })));
    assert.ok(!showsOui(item(undefined)));
  });

  it('keeps at most its items and bytes, pins each client\'s first small items, and counts every drop', () => {
    const dropped: CapturedItem[] = [];
    const ring = createQuietRing((it) => dropped.push(it), (it) => (it.payload && 'text' in it.payload ? it.payload.text.length * 2 : 64));
    for (let i = 1; i <= QUIET_ITEMS + 50; i++) {
      const it: CapturedItem = { hook: 'h', client: 'a', seq: i, t: i, kind: 'frame', payload: { text: 'x'.repeat(10) } };
      ring.add(it, 20);
    }
    const held = ring.items();
    assert.equal(held.length, QUIET_ITEMS + 3);
    assert.deepEqual(held.slice(0, 3).map((i) => i.seq), [1, 2, 3], 'the first items stay');
    assert.equal(dropped.length, QUIET_ITEMS + 50 - QUIET_ITEMS - 3);
    assert.equal(dropped[0]!.seq, 4);
    const big = { text: 'y'.repeat(200_000) };
    for (let i = 1; i <= 20; i++) ring.add({ hook: 'h', client: 'b', seq: 10 + i, t: i, kind: 'frame', payload: big }, 400_000);
    assert.ok(ring.bytes <= QUIET_BYTES + 3 * 1024, `${ring.bytes} bytes`);
    const taken = ring.take('a');
    assert.ok(taken.every((i) => i.client === 'a'));
    assert.deepEqual(taken.map((i) => i.seq), [...taken.map((i) => i.seq)].sort((x, y) => x - y));
    assert.ok(ring.items().every((i) => i.client === 'b'));
  });
});

describe('the capture buffer', () => {
  it('keeps a non-OUI socket to a small ring, then all of it once it speaks OUI, its handshake included', async () => {
    const buffer = createCaptureBuffer(natives);
    const chatty = buffer.addClient('websocket', 'ws://x/chat');
    const oui = buffer.addClient('websocket', 'ws://x/oui');
    buffer.record(chatty, 'open');
    buffer.record(oui, 'open');
    buffer.record(oui, 'frame', { dir: 'in', payload: { text: '0{"sid":"abc"}' } });
    for (let i = 0; i < 5_000; i++) buffer.record(chatty, 'frame', { dir: 'in', payload: { text: `{"tick":${i}}` } });
    for (let i = 0; i < 400; i++) buffer.record(oui, 'frame', { dir: 'in', payload: { text: '3' } });
    buffer.record(oui, 'frame', { dir: 'out', payload: { text: OUI } });
    const items = await replay(buffer);
    const chattyItems = items.filter((i) => i.client === chatty.id);
    const ouiItems = items.filter((i) => i.client === oui.id);
    assert.ok(chattyItems.length <= QUIET_ITEMS + 3, `${chattyItems.length} items of a socket with no OUI traffic`);
    assert.equal(chattyItems[0]!.kind, 'open', 'its open stays');
    assert.equal(buffer.drops()[chatty.id], 5_001 - chattyItems.length, 'every drop is counted');
    // The OUI socket kept its open and Engine.IO handshake (pinned) and its latest frames.
    assert.equal(ouiItems[0]!.kind, 'open');
    assert.equal((ouiItems[1]!.payload as { text: string }).text, '0{"sid":"abc"}');
    assert.equal((ouiItems.at(-1)!.payload as { text: string }).text, OUI);
    for (let i = 1; i < ouiItems.length; i++) assert.ok(ouiItems[i]!.seq > ouiItems[i - 1]!.seq);
    // From now on it is an OUI client: nothing more of it is dropped.
    const before = buffer.drops()[oui.id] ?? 0;
    for (let i = 0; i < 1_000; i++) buffer.record(oui, 'frame', { dir: 'in', payload: { text: '3' } });
    assert.equal(buffer.drops()[oui.id] ?? 0, before);
  });

  it('postMessage and direct clients are OUI from the start', async () => {
    const buffer = createCaptureBuffer(natives);
    const pm = buffer.addClient('postmessage', 'http://a', 'k');
    for (let i = 0; i < 1_000; i++) buffer.record(pm, 'frame', { dir: 'in', payload: { text: '{}' } });
    assert.equal((await replay(buffer)).length, 1_000);
    assert.equal(buffer.drops()[pm.id], undefined);
  });

  it('tells what it injects apart from the page', () => {
    const buffer = createCaptureBuffer(natives);
    assert.equal(buffer.isInjecting(), false);
    assert.equal(buffer.injecting(() => buffer.isInjecting()), true);
    assert.equal(buffer.isInjecting(), false);
  });
});

describe('a flush on request (the Playwright fixture\'s handshake)', () => {
  it('sends what waits for the next batch at once, says what still waits behind a payload being read, and each client\'s last seq', () => {
    const buffer = createCaptureBuffer(natives);
    const c = buffer.addClient('websocket', 'ws://x/oui');
    const out = buffer.sink(c, 'out');
    const got: CapturedItem[] = [];
    buffer.subscribe({}, { items: (items) => got.push(...items) });
    const replayed = got.length;
    buffer.frame(out, OUI);
    buffer.frame(out, OUI);
    // Without a flush these wait for the batch timer; flushNow sends them now, in order.
    assert.equal(got.length, replayed);
    assert.equal(buffer.flushNow(), 0);
    assert.deepEqual(got.slice(replayed).map((it) => it.seq), [1, 2]);
    const resolve = buffer.recordPending(c, { dir: 'in' });
    buffer.frame(out, OUI);
    assert.equal(buffer.flushNow(), 2, 'a Blob still being read holds itself and what came after');
    assert.deepEqual(buffer.lastSeqs(), { [c.id]: 4 });
    resolve({ text: 'blob' });
    assert.equal(buffer.flushNow(), 0);
    assert.deepEqual(got.slice(replayed).map((it) => it.seq), [1, 2, 3, 4]);
    buffer.unsubscribe();
    assert.equal(buffer.flushNow(), 0, 'nothing is sent without a subscriber');
  });
});

describe('the hot path', () => {
  it('keeps raw text frames in columns and builds the same items when the panel reads them', async () => {
    const buffer = createCaptureBuffer(natives);
    const c = buffer.addClient('websocket', 'ws://x/oui');
    const inbound = buffer.sink(c, 'in');
    const outbound = buffer.sink(c, 'out');
    buffer.record(c, 'open');
    buffer.frame(outbound, OUI);
    buffer.frame(inbound, '{"type":"action:request"}');
    const big = 'z'.repeat(FRAME_CAP + 10);
    buffer.frame(inbound, big);
    const items = await replay(buffer);
    assert.deepEqual(
      items.map(({ hook, client, seq, kind, dir, payload, size }) => ({ hook, client, seq, kind, dir, payload, size })),
      [
        { hook: 'hook1', client: c.id, seq: 1, kind: 'open', dir: undefined, payload: undefined, size: undefined },
        { hook: 'hook1', client: c.id, seq: 2, kind: 'frame', dir: 'out', payload: { text: OUI }, size: undefined },
        { hook: 'hook1', client: c.id, seq: 3, kind: 'frame', dir: 'in', payload: { text: '{"type":"action:request"}' }, size: undefined },
        { hook: 'hook1', client: c.id, seq: 4, kind: 'frame', dir: 'in', payload: { omitted: true, head: 'z'.repeat(512), ascii: true }, size: FRAME_CAP + 10 },
      ],
    );
    for (let i = 1; i < items.length; i++) assert.ok(items[i]!.t > items[i - 1]!.t, 'timestamps in order');
  });

  it('copies a JS value when it is seen and serialises it when read, whatever the app does to it later', async () => {
    const buffer = createCaptureBuffer(natives);
    const pm = buffer.addClient('postmessage', 'http://a', 'k');
    const sink = buffer.sink(pm, 'in', { from: 'top/0', to: 'top' });
    const data = { type: 'action:result', payload: { requestId: 'r1', data: { list: [1, { a: 'b' }, null], s: '\ud800' }, skip: undefined }, arr: [undefined, 2] };
    const expected = JSON.stringify(data);
    buffer.value(sink, data);
    data.payload.data.list.push(4);
    (data.payload.data.list[1] as { a: string }).a = 'changed';
    data.payload.requestId = 'r2';
    const cyclic: Record<string, unknown> = { type: 'action:result' };
    cyclic.self = cyclic;
    buffer.value(sink, cyclic);
    const date = new Date(0);
    buffer.value(sink, { type: 'action:result', at: date });
    date.setTime(1000);
    buffer.value(sink, { type: 'x-big', n: 10n } as unknown);
    const items = await replay(buffer);
    assert.deepEqual(items[0]!.payload, { text: expected });
    assert.equal(items[0]!.from, 'top/0');
    assert.equal(items[0]!.to, 'top');
    assert.equal(items[0]!.dir, 'in');
    assert.deepEqual(items[1]!.payload, { omitted: true, head: '[not JSON]' });
    assert.deepEqual(items[2]!.payload, { text: '{"type":"action:result","at":"1970-01-01T00:00:00.000Z"}' });
    assert.deepEqual(items[3]!.payload, { omitted: true, head: '[not JSON]' });
    assert.deepEqual(items.map((i) => i.seq), [1, 2, 3, 4]);
  });

  it('records method and the seq answered for direct calls', async () => {
    const buffer = createCaptureBuffer(natives);
    const d = buffer.addClient('direct', 'label');
    const seq = buffer.value(buffer.sink(d, 'out', { method: 'sendResult' }), { requestId: 'r' });
    buffer.value(buffer.sink(d, 'in', { method: 'ack' }), { ok: true }, seq);
    const items = await replay(buffer);
    assert.deepEqual(items.map(({ method, re, dir, payload }) => ({ method, re, dir, payload })), [
      { method: 'sendResult', re: undefined, dir: 'out', payload: { text: '{"requestId":"r"}' } },
      { method: 'ack', re: seq, dir: 'in', payload: { text: '{"ok":true}' } },
    ]);
  });

  it('marks what it records while injecting, and sends a non-OUI socket\'s frames to the quiet ring', async () => {
    const buffer = createCaptureBuffer(natives);
    const ws = buffer.addClient('websocket', 'ws://x/oui');
    const sink = buffer.sink(ws, 'in');
    buffer.frame(sink, '{"tick":1}');
    buffer.injecting(() => buffer.frame(sink, OUI));
    buffer.frame(sink, '{"tick":2}');
    const items = await replay(buffer);
    assert.deepEqual(items.map((i) => [i.seq, i.injected ?? false]), [[1, false], [2, true], [3, false]]);
  });

  it('holds MAX_ITEMS, counts every drop, and still delivers live what a long loop recorded before its flush', async () => {
    const { MAX_ITEMS } = await import('../../content/capture-buffer.ts');
    const buffer = createCaptureBuffer(natives);
    const c = buffer.addClient('websocket', 'ws://x/oui');
    const sink = buffer.sink(c, 'in');
    buffer.frame(sink, OUI);
    const got: CapturedItem[] = [];
    buffer.subscribe({}, { items: (items) => got.push(...items) });
    for (let i = 0; i < MAX_ITEMS + 500; i++) buffer.frame(sink, `{"n":${i}}`);
    assert.equal(buffer.drops()[c.id], 501);
    await new Promise((r) => setTimeout(r, 50));
    buffer.unsubscribe();
    const seqs = got.map((i) => i.seq);
    assert.equal(seqs.length, MAX_ITEMS + 501, 'the replay and every live item');
    for (let i = 0; i < seqs.length; i++) assert.equal(seqs[i], i + 1);
    assert.equal((got.at(-1)!.payload as { text: string }).text, `{"n":${MAX_ITEMS + 499}}`);
    const again = await replay(buffer);
    assert.equal(again.length, MAX_ITEMS);
    assert.equal(again[0]!.seq, 502);
  });

  it('keeps the byte bound with the hot path', async () => {
    const { MAX_BYTES } = await import('../../content/capture-buffer.ts');
    const buffer = createCaptureBuffer(natives);
    const c = buffer.addClient('websocket', 'ws://x/oui');
    const sink = buffer.sink(c, 'in');
    buffer.frame(sink, OUI);
    const frame = `${OUI}${'x'.repeat(1024 * 1024)}`;
    const n = Math.ceil(MAX_BYTES / (frame.length * 2)) + 5;
    for (let i = 0; i < n; i++) buffer.frame(sink, frame);
    const items = await replay(buffer);
    const held = items.reduce((sum, it) => sum + 64 + ((it.payload as { text: string }).text.length * 2), 0);
    assert.ok(held <= MAX_BYTES, `${held} bytes held`);
    assert.equal(buffer.drops()[c.id], n + 1 - items.length);
  });
});
