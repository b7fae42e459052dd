/**
 * The hook's items as JSON text (ItemsJsonMessage), run in Node with the real
 * buffer: the text a subscriber that asked for JSON gets parses (by JSON.parse,
 * the oracle) into the very items an object subscriber gets, sent over the
 * extension's messaging as JSON (bytes as base64: Node's Buffer), in the same
 * order, with every client announced before its first item, within the chunk
 * bound, and with each batch's last seqs and payload size for a `skipped`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import type { Natives } from '../../content/natives.ts';

(globalThis as { location?: unknown }).location ??= { origin: 'http://127.0.0.1:1', href: 'http://127.0.0.1:1/' };
const { createCaptureBuffer, FRAME_CAP } = await import('../../content/capture-buffer.ts');
const { JSON_CHUNK_UNITS } = await import('../../content/outbox.ts');
const { itemsOfJson, readHookMessage } = await import('../../src/messages.ts');

let clock = 1_000.25;
const natives = {
  now: () => (clock += 0.5),
  randomId: () => 'hook1',
  setTimeout: (fn: () => void) => setTimeout(fn, 0),
} as unknown as Natives;

/** An item as the extension's JSON messaging carries it: bytes as base64 (by Node), undefined fields gone. */
function asCarried(it: CapturedItem): unknown {
  const p = it.payload as { bytes?: Uint8Array } | undefined;
  const copy = p?.bytes ? { ...it, payload: { base64: Buffer.from(p.bytes).toString('base64') } } : it;
  return JSON.parse(JSON.stringify(copy));
}

interface JsonBatch {
  text: string;
  clients: CapturedClient[];
  through: Record<string, number>;
  size: number;
}

/** Fills a buffer with every kind of item the hook keeps; both subscribers are then given the same entries. */
function filled() {
  const buffer = createCaptureBuffer(natives);
  const ws = buffer.addClient('websocket', 'ws://x/"quoted"\u2028');
  buffer.record(ws, 'open');
  buffer.frame(buffer.sink(ws, 'out'), '{"type":"surface:register","payload":{"surfaceId":"s"}}');
  buffer.frame(buffer.sink(ws, 'in'), '{"type":"action:request","payload":{"params":{"x":"\\"\u00e9\ud800\\n"}}}');
  buffer.frame(buffer.sink(ws, 'in'), 'z'.repeat(FRAME_CAP + 3));
  buffer.record(ws, 'frame', { dir: 'in', payload: { bytes: new Uint8Array([0, 1, 2, 250, 251, 252, 253]) } });
  buffer.record(ws, 'close', { note: '1000 bye' });
  const pm = buffer.addClient('postmessage', 'http://a', 'top|top/0');
  buffer.value(buffer.sink(pm, 'in', { from: 'top/0', to: 'top' }), { type: 'action:result', payload: { requestId: 'r1', data: [1, null, { a: '\u0000' }] } });
  const cyclic: Record<string, unknown> = { type: 'action:result' };
  cyclic.self = cyclic;
  buffer.value(buffer.sink(pm, 'out', { from: 'top', to: 'top/0' }), cyclic);
  const direct = buffer.addClient('direct', 'in-page');
  const seq = buffer.value(buffer.sink(direct, 'out', { method: 'sendResult' }), { requestId: 'r', success: true });
  buffer.value(buffer.sink(direct, 'in', { method: 'ack' }), { ok: true }, seq);
  buffer.injecting(() => buffer.frame(buffer.sink(ws, 'in'), '{"type":"action:request"}'));
  return buffer;
}

describe('items as JSON text', () => {
  it('parse into the items an object subscriber gets, in order, with their clients before their first item', () => {
    const objects: CapturedItem[] = [];
    const announced: CapturedClient[] = [];
    filled().subscribe({}, { items: (items, clients) => (objects.push(...items), announced.push(...clients)) });
    const batches: JsonBatch[] = [];
    clock = 1_000.25;
    const buffer = filled();
    buffer.subscribe({}, { items: () => assert.fail('items as objects'), json: (text, clients, through, size) => batches.push({ text, clients, through, size }) });
    const parsed = batches.flatMap((b) => JSON.parse(b.text) as unknown[]);
    assert.equal(objects.length, 11);
    assert.deepEqual(parsed, objects.map(asCarried));
    assert.deepEqual(batches.flatMap((b) => b.clients).map((c) => c.id), announced.map((c) => c.id));
    // Live: a client's first item comes with the client, later ones alone; the batch says its last seqs and size.
    const c = buffer.addClient('websocket', 'ws://x/late');
    buffer.record(c, 'frame', { dir: 'in', payload: { text: '{"type":"observation:update"}' } });
    buffer.frame(buffer.sink(c, 'in'), 'abc');
    buffer.frame(buffer.sink(c, 'in'), 'defg');
    const before = batches.length;
    buffer.flushNow();
    const live = batches.slice(before);
    assert.equal(live.length, 1);
    assert.deepEqual(live[0]!.clients.map((x) => x.id), [c.id]);
    assert.deepEqual(live[0]!.through, { [c.id]: 3 });
    assert.equal(live[0]!.size, '{"type":"observation:update"}'.length + 3 + 4);
    assert.deepEqual((JSON.parse(live[0]!.text) as CapturedItem[]).map((it) => it.payload), [{ text: '{"type":"observation:update"}' }, { text: 'abc' }, { text: 'defg' }]);
    buffer.unsubscribe();
  });

  it('go in batches within the chunk bound, none lost', () => {
    const buffer = createCaptureBuffer(natives);
    const c = buffer.addClient('websocket', 'ws://x/oui');
    buffer.frame(buffer.sink(c, 'in'), '{"type":"observation:update"}');
    const frame = `{"type":"observation:update","payload":{"v":"${'v'.repeat(100_000)}"}}`;
    for (let i = 0; i < 60; i++) buffer.frame(buffer.sink(c, 'in'), frame);
    const batches: JsonBatch[] = [];
    buffer.subscribe({}, { items: () => assert.fail('items as objects'), json: (text, clients, through, size) => batches.push({ text, clients, through, size }) });
    assert.ok(batches.length > 1, `${batches.length} batch`);
    for (const b of batches) assert.ok(b.text.length <= JSON_CHUNK_UNITS, `${b.text.length} units`);
    const seqs = batches.flatMap((b) => (JSON.parse(b.text) as CapturedItem[]).map((it) => it.seq));
    assert.deepEqual(seqs, Array.from({ length: 61 }, (_, i) => i + 1));
    assert.equal(batches.reduce((n, b) => n + b.size, 0), '{"type":"observation:update"}'.length + 60 * frame.length);
  });

  it('a page that adds to Object.prototype writes nothing into them', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.note = 'page';
    proto.toJSON = () => 'page';
    try {
      const batches: string[] = [];
      const buffer = createCaptureBuffer(natives);
      const c = buffer.addClient('websocket', 'ws://x/oui');
      buffer.record(c, 'open');
      buffer.frame(buffer.sink(c, 'in'), '{"type":"observation:update"}');
      buffer.subscribe({}, { items: () => {}, json: (text) => batches.push(text) });
      delete proto.note;
      delete proto.toJSON;
      const items = JSON.parse(batches.join('').replace('][', ',')) as CapturedItem[];
      assert.deepEqual(
        items.map((it) => [it.kind, it.note, it.payload]),
        [
          ['open', undefined, undefined],
          ['frame', undefined, { text: '{"type":"observation:update"}' }],
        ],
      );
    } finally {
      delete proto.note;
      delete proto.toJSON;
    }
  });

  it('are read by the background as the items message they carry', () => {
    const m = readHookMessage({ type: 'items:json', hook: 'h', json: '[{"hook":"h","client":"c1","seq":1,"t":1,"kind":"open"}]', clients: [] });
    assert.equal(m?.type, 'items:json');
    assert.deepEqual(m?.type === 'items:json' ? itemsOfJson(m) : null, { type: 'items', hook: 'h', items: [{ hook: 'h', client: 'c1', seq: 1, t: 1, kind: 'open' }], clients: [] });
    assert.equal(readHookMessage({ type: 'items:json', hook: 'h', json: 5 }), null);
    assert.equal(itemsOfJson({ type: 'items:json', hook: 'h', json: '{"not":"a list"}', clients: [] }), null);
  });
});
