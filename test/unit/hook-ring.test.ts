/**
 * The hook buffer's parts on their own, in Node: the column ring's wrap and
 * bounds, the client table's bounds (MAX_CLIENTS, then states forgotten), the
 * quiet ring's pinned clients (PIN_CLIENTS), the direct hook's injectable
 * transports (MAX_DIRECT_CLIENTS), the taps' bounded maps, and the Blob path
 * (a pending item's bytes arrive, and the items after it wait, in order).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import type { Natives } from '../../content/natives.ts';
import { until } from '../support/wait.ts';

(globalThis as { location?: unknown }).location ??= { origin: 'http://127.0.0.1:1', href: 'http://127.0.0.1:1/' };
const { ColumnRing } = await import('../../content/column-ring.ts');
const { ClientTable } = await import('../../content/client-table.ts');
const { BoundedMap } = await import('../../content/bounded-map.ts');
const { createQuietRing, PIN_CLIENTS } = await import('../../content/quiet-ring.ts');
const { createCaptureBuffer } = await import('../../content/capture-buffer.ts');

let clock = 1_000;
const natives = { now: () => clock++, randomId: () => 'hook1', setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms) } as unknown as Natives;
const OUI = (i: number) => `{"type":"observation:update","payload":{"surfaceId":"s","observationId":"o","value":${i},"timestamp":1}}`;
const client = (id: string): CapturedClient => ({ id, kind: 'websocket', url: 'ws://x', origin: 'o', frameUrl: 'f' });

describe('ColumnRing', () => {
  it('keeps the newest `capacity` entries across many wraps, each at the slot slotOf names', () => {
    const dropped: number[] = [];
    const ring = new ColumnRing<string>(5, 1e9, (slot, g) => dropped.push(g, ring.seq[slot]!));
    for (let g = 0; g < 23; g++) {
      const i = ring.add(10);
      ring.seq[i] = g * 100;
      ring.data[i] = `d${g}`;
      ring.sink[i] = 'k';
    }
    assert.equal(ring.count, 5);
    assert.equal(ring.oldest, 18);
    for (let g = 18; g < 23; g++) assert.equal(ring.data[ring.slotOf(g)], `d${g}`);
    assert.equal(ring.slotOf(17), -1, 'dropped');
    assert.equal(ring.slotOf(23), -1, 'not written yet');
    // Each drop was reported with its own columns, oldest first.
    for (let k = 0; k < dropped.length; k += 2) assert.equal(dropped[k + 1], dropped[k]! * 100);
    assert.equal(dropped.length / 2, 18);
    assert.equal(ring.bytes, 50);
  });

  it('drops by weight before an entry that would not fit, and clears what it dropped', () => {
    const ring = new ColumnRing<string>(100, 100, () => {});
    for (let g = 0; g < 4; g++) {
      const i = ring.add(30);
      ring.data[i] = g;
    }
    assert.equal(ring.count, 3);
    assert.equal(ring.bytes, 90);
    const i = ring.add(100);
    ring.data[i] = 'big';
    assert.equal(ring.count, 1, 'everything older went to make room');
    assert.equal(ring.bytes, 100);
    ring.grow(i, -60);
    assert.equal(ring.bytes, 40);
    assert.equal(ring.data.filter((d) => d !== undefined).length, 1, 'dropped slots hold nothing');
  });
});

describe('ClientTable', () => {
  it('announces at most maxClients, counts the let-go one as a drop, and forgets states beyond twice that', () => {
    const evicted: string[] = [];
    const table = new ClientTable(3, (id) => evicted.push(id));
    for (let n = 1; n <= 10; n++) table.add(client(`c${n}`), true);
    assert.deepEqual(table.list().map((c) => c.id), ['c8', 'c9', 'c10']);
    assert.deepEqual(evicted, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    assert.equal(table.states.size, 6);
    assert.equal(table.forgotten, 4);
    assert.equal(table.stateOf(client('c1')), undefined);
    const gone = table.stateOf(client('c5'))!;
    assert.ok(gone.gone && !gone.oui && gone.dropped === 1);
  });

  it('in the buffer: past MAX_CLIENTS a let-go client keeps counting its seqs, and a forgotten one records nothing', () => {
    const buffer = createCaptureBuffer(natives);
    const first = buffer.addClient('websocket', 'ws://first');
    buffer.record(first, 'open');
    for (let n = 0; n < 2_000; n++) buffer.addClient('websocket', 'ws://x');
    assert.equal(buffer.drops()[first.id], 1, 'let go: counted');
    assert.equal(buffer.record(first, 'frame', { dir: 'in', payload: { text: OUI(1) } }).seq, 2, 'its seqs go on');
    for (let n = 0; n < 2_000; n++) buffer.addClient('websocket', 'ws://y');
    assert.equal(buffer.record(first, 'frame', { dir: 'in', payload: { text: OUI(2) } }).seq, 0, 'forgotten: not kept');
    assert.equal(buffer.drops()[first.id], undefined);
    assert.equal(Object.keys(buffer.lastSeqs()).length, 0, 'no client numbered anything since');
  });
});

describe('BoundedMap', () => {
  it('keeps the newest entries and counts those it let go', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    assert.equal(m.get('a'), undefined);
    assert.equal(m.get('c'), 3);
    assert.equal(m.size, 2);
    assert.equal(m.evicted, 1);
  });
});

describe('the quiet ring\'s pins', () => {
  it('pins the first items of at most PIN_CLIENTS clients; the oldest client\'s pins go, each counted', () => {
    const dropped: CapturedItem[] = [];
    const ring = createQuietRing((it) => dropped.push(it), () => 10);
    for (let c = 0; c <= PIN_CLIENTS; c++) ring.add({ hook: 'h', client: `c${c}`, seq: 1, t: c, kind: 'open' }, 10);
    assert.deepEqual(dropped.map((d) => d.client), ['c0']);
    assert.equal(ring.items().length, PIN_CLIENTS);
    assert.equal(ring.bytes, PIN_CLIENTS * 10);
  });
});

describe('the direct hook\'s transports', () => {
  it('keeps at most MAX_DIRECT_CLIENTS injectable, the newest', async () => {
    (globalThis as { window?: unknown }).window ??= globalThis;
    const { installDirectHook, directClients, MAX_DIRECT_CLIENTS } = await import('../../content/taps/direct.ts');
    installDirectHook(createCaptureBuffer(natives));
    const api = (globalThis as unknown as { __OUI_DEVTOOLS_HOOK__: { attach(t: unknown, o?: unknown): () => void } }).__OUI_DEVTOOLS_HOOK__;
    for (let n = 0; n < MAX_DIRECT_CLIENTS + 5; n++) api.attach({ onAction: () => () => {}, sendResult: () => {} }, { label: `t${n}` });
    assert.equal(directClients.size, MAX_DIRECT_CLIENTS);
    const labels = [...directClients.values()].map((d) => d.client.url);
    assert.equal(labels[0], 't5');
    assert.equal(labels.at(-1), `t${MAX_DIRECT_CLIENTS + 4}`);
  });
});

describe('the Blob path', () => {
  it('a pending frame\'s bytes reach the subscriber, and the items after it wait for it, in order', async () => {
    const buffer = createCaptureBuffer(natives);
    const ws = buffer.addClient('websocket', 'ws://blob');
    const got: CapturedItem[] = [];
    buffer.subscribe({}, { items: (items) => got.push(...items) });
    buffer.record(ws, 'frame', { dir: 'in', payload: { text: OUI(0) } });
    const done = buffer.recordPending(ws, { dir: 'in' });
    buffer.record(ws, 'frame', { dir: 'in', payload: { text: OUI(2) } });
    buffer.frame(buffer.sink(ws, 'in'), OUI(3));
    // Positive witness: what came before the Blob is delivered while it is read.
    await until(() => got.length === 1, 'the item before the Blob');
    assert.equal(buffer.flushNow(), 3, 'the Blob and the two after it wait');
    assert.equal(got.length, 1);
    done({ bytes: new Uint8Array([1, 2, 3]) });
    await until(() => got.length === 4, 'the Blob and what came after it');
    assert.deepEqual(got.map((i) => i.seq), [1, 2, 3, 4]);
    assert.deepEqual([...(got[1]!.payload as { bytes: Uint8Array }).bytes], [1, 2, 3]);
    buffer.unsubscribe();
  });

  it('a subscriber arriving while a Blob is read gets what precedes it at once, the rest once it is read', async () => {
    const buffer = createCaptureBuffer(natives);
    const ws = buffer.addClient('websocket', 'ws://blob');
    buffer.record(ws, 'frame', { dir: 'in', payload: { text: OUI(0) } });
    const done = buffer.recordPending(ws, { dir: 'in' });
    buffer.record(ws, 'frame', { dir: 'out', payload: { text: OUI(2) } });
    const got: CapturedItem[] = [];
    buffer.subscribe({}, { items: (items) => got.push(...items) });
    assert.deepEqual(got.map((i) => i.seq), [1]);
    done({ bytes: new Uint8Array([9]) });
    await until(() => got.length === 3, 'the rest');
    assert.deepEqual(got.map((i) => i.seq), [1, 2, 3]);
    buffer.unsubscribe();
  });
});
