/**
 * Never silent, the pure parts: what the hook keeps of a frame over the cap
 * (its head, its size, whether that size is its bytes), what the decoder says
 * of it on every transport, what the bounded buffer tells a subscriber it
 * will never get (items and size, counted once), and how the bridge splits a
 * message Chrome refuses. The same paths in real Chromium:
 * test/e2e/capture-edges.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CapturedItem, OmittedPayload } from '../../src/capture/captured-items.ts';
import type { HookMessage, ItemsMessage } from '../../src/messages.ts';
import type { Natives } from '../../content/natives.ts';
import { createDropLedger } from '../../content/drop-ledger.ts';
import { payloadSizes, splitRefused } from '../../content/chunks.ts';
import { BINARY_HEAD, FRAME_CAP, bytesHeadPayload, bytesPayload, jsonPayload, textPayload } from '../../content/payloads.ts';
import { cappedNote, sizeText } from '../../src/session/wire/capped.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { CaptureIntake } from '../../src/session/wire/intake.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';

(globalThis as { location?: unknown }).location ??= { origin: 'http://127.0.0.1:1', href: 'http://127.0.0.1:1/' };
const { createCaptureBuffer, MAX_BYTES } = await import('../../content/capture-buffer.ts');

const MB = 1024 * 1024;
const omitted = (p: unknown): OmittedPayload => {
  assert.ok(p && typeof p === 'object' && 'omitted' in p, `an omitted payload, not ${JSON.stringify(p)}`);
  return p as OmittedPayload;
};

describe('a frame over the cap, in the hook', () => {
  it('text keeps its head and size, and says when its size is its bytes (ASCII only)', () => {
    const ascii = textPayload('{"type":"observation:update"' + 'x'.repeat(FRAME_CAP));
    assert.equal(ascii.size, FRAME_CAP + 28);
    assert.equal(omitted(ascii.payload).ascii, true);
    assert.equal(omitted(ascii.payload).head.slice(0, 28), '{"type":"observation:update"');
    const wide = textPayload('x'.repeat(FRAME_CAP) + '✓');
    assert.equal(omitted(wide.payload).ascii, undefined, 'a non-ASCII character anywhere: its bytes are more than its units');
    assert.equal(omitted(wide.payload).head, 'x'.repeat(512));
    // Under the cap nothing changes.
    assert.deepEqual(textPayload('{"a":1}'), { payload: { text: '{"a":1}' } });
  });

  it("a page's RegExp.prototype.exec is neither called nor believed", () => {
    const exec = RegExp.prototype.exec;
    let calls = 0;
    RegExp.prototype.exec = function () {
      calls++;
      return null;
    };
    try {
      const p = omitted(textPayload('é'.repeat(FRAME_CAP + 1)).payload);
      assert.equal(p.ascii, undefined, 'the non-ASCII text is seen as such');
      assert.equal(calls, 0);
    } finally {
      RegExp.prototype.exec = exec;
    }
  });

  it('binary keeps its first bytes in hex, its size and that it is binary', () => {
    const bytes = new Uint8Array(FRAME_CAP + 5);
    bytes.set([0x7b, 0x22, 0xff, 0x00, 0x0a]);
    const p = bytesPayload(bytes);
    assert.equal(p.size, FRAME_CAP + 5);
    const o = omitted(p.payload);
    assert.equal(o.binary, true);
    assert.equal(o.head.slice(0, 14), '7b 22 ff 00 0a');
    assert.equal(o.head.split(' ').length, BINARY_HEAD);
    // A Blob over the cap: only its head was read, the size is the Blob's.
    const head = bytesHeadPayload(new Uint8Array([1, 2, 3]), 50 * MB);
    assert.deepEqual(head, { payload: { omitted: true, head: '01 02 03', binary: true }, size: 50 * MB });
    // Under the cap: the bytes, copied.
    const small = bytesPayload(new Uint8Array([1, 2]));
    assert.deepEqual([...(small.payload as { bytes: Uint8Array }).bytes], [1, 2]);
  });

  it('a JS value over the cap is measured as its JSON', () => {
    const v = { type: 'action:result', payload: { requestId: 'r', data: 'z'.repeat(FRAME_CAP) } };
    const p = jsonPayload(v);
    assert.equal(p.size, JSON.stringify(v).length);
    assert.equal(omitted(p.payload).ascii, true);
  });
});

describe('what the decoder says of it', () => {
  const hook = new FakeHook('h');
  const decode = (items: CapturedItem[]): WireEvent[] => {
    const d = new WireDecoder();
    for (const c of hook.clients.values()) d.addClient(c, 'h', 1);
    return items.flatMap((i) => d.push(i));
  };
  const textHead = '{"type":"observation:update","payload":{"surfaceId":"s","value":"' + 'x'.repeat(400);

  it('sizes read as the panel reads them', () => {
    assert.deepEqual([sizeText(512), sizeText(1536), sizeText(50 * MB), sizeText(52_428_800 + 60_000)], ['512 B', '1.5 kB', '50.0 MB', '50.1 MB']);
  });

  it('a WebSocket frame, text or binary, is a row with its size and head', () => {
    const ws = hook.client('websocket', 'ws://app.test/ws');
    const [text, bin, wide, legacy] = decode([
      hook.item(ws, 'frame', { dir: 'out', payload: { omitted: true, head: textHead, ascii: true }, size: 50 * MB }),
      hook.item(ws, 'frame', { dir: 'in', ...bytesHeadPayload(new Uint8Array([0x7b, 0x22, 0x62]), 50 * MB) }),
      hook.item(ws, 'frame', { dir: 'in', payload: { omitted: true, head: 'é'.repeat(10) }, size: 50 * MB }),
      hook.item(ws, 'frame', { dir: 'in', payload: { omitted: true, head: '[52428800 bytes]' }, size: 50 * MB }),
    ]);
    assert.equal(text!.note, `frame over the capture cap: 50.0 MB, head: ${textHead.slice(0, 120)}…`);
    assert.equal(text!.kind, 'other');
    assert.equal(text!.size, 50 * MB);
    assert.equal(text!.raw, textHead, 'the raw view has the whole head');
    assert.equal(bin!.note, 'frame over the capture cap: 50.0 MB, head: 7b 22 62…');
    assert.equal(wide!.note, `frame over the capture cap: at least 50.0 MB, head: ${'é'.repeat(10)}…`);
    assert.equal(legacy!.note, 'frame over the capture cap: 50.0 MB', "an older hook's binary marker");
  });

  it('a Socket.IO frame or a long-polling body over the cap is a row of its session (a body was dropped without a word before)', () => {
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S1');
    const poll = hook.client('polling', 'http://app.test/socket.io/');
    const url = 'http://app.test/socket.io/?EIO=4&transport=polling&sid=S2';
    const big = { omitted: true as const, head: '42/oui,["observation:update",{"v":"' + 'x'.repeat(100), ascii: true as const };
    const events = decode([
      hook.frame(ws, 'in', '0{"sid":"S1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}'),
      hook.frame(ws, 'out', '40/oui,'),
      hook.item(ws, 'frame', { dir: 'out', payload: big, size: 3 * MB }),
      hook.item(poll, 'frame', { dir: 'in', url, payload: big, size: 4 * MB }),
    ]);
    const capped = events.filter((e) => e.note?.includes('over the capture cap'));
    assert.deepEqual(
      capped.map((e) => [e.client.startsWith('socket.io:'), e.via, e.note?.slice(0, 58)]),
      [
        // On the namespace the session carries.
        [true, 'websocket', 'frame over the capture cap: 3.0 MB, head: 42/oui,["observa'],
        // A body of a session no packet of which was seen yet: on its raw connection.
        [false, undefined, 'response body over the capture cap: 4.0 MB, head: 42/oui,['],
      ],
    );
  });

  it('a postMessage or a direct call over the cap, or not JSON, says so instead of showing an empty event', () => {
    const pm = hook.client('postmessage', 'http://app.test', 'postmessage:top<->top/0');
    const direct = hook.client('direct', 'assistant');
    const head = '{"requestId":"r1","success":true,"data":"zzzz';
    const events = decode([
      hook.item(pm, 'frame', { dir: 'in', from: 'top/0', to: 'top', payload: { omitted: true, head: '{"type":"action:result"', ascii: true }, size: 50 * MB }),
      hook.item(direct, 'open'),
      hook.item(direct, 'frame', { dir: 'out', method: 'sendResult', payload: { omitted: true, head, ascii: true }, size: 50 * MB }),
      hook.item(direct, 'frame', { dir: 'out', method: 'register', payload: { omitted: true, head: '[not JSON]' } }),
    ]);
    assert.deepEqual(
      events.map((e) => [e.kind, e.type, e.note]),
      [
        ['other', undefined, 'message over the capture cap: 50.0 MB, head: {"type":"action:result"…'],
        ['lifecycle', 'open', undefined],
        ['other', undefined, `sendResult() over the capture cap: 50.0 MB, head: ${head}…`],
        ['other', undefined, 'register() not captured: not JSON'],
      ],
    );
  });

  it('the recorder counts what was over the cap, and forgets it with the events', () => {
    const h = new FakeHook('r');
    const ws = h.client('websocket', 'ws://app.test/ws');
    const r = new Recorder();
    r.accept(0, h.message([h.frame(ws, 'out', '{"type":"surface:register"}'), h.item(ws, 'frame', { dir: 'out', payload: { omitted: true, head: 'x', ascii: true }, size: 3 * MB })]));
    r.accept(0, h.message([h.item(ws, 'frame', { dir: 'in', ...bytesHeadPayload(new Uint8Array(1), 5 * MB) })]));
    assert.deepEqual([r.overCap, r.overCapSize], [2, 8 * MB]);
    r.clear();
    assert.deepEqual([r.overCap, r.overCapSize], [0, 0]);
  });
});

describe('what the bounded buffer dropped', () => {
  it('a ledger of runs: exact for any cursor outside a run, by share inside one', () => {
    const l = createDropLedger();
    assert.equal(l.after(0), undefined);
    for (let seq = 5; seq <= 14; seq++) l.add(seq, 100);
    // A pinned item dropped late: a run of its own.
    l.add(2, 7);
    assert.deepEqual(l.after(0), { items: 11, size: 1007, from: 2, to: 14 });
    assert.deepEqual(l.after(4), { items: 10, size: 1000, from: 5, to: 14 });
    assert.deepEqual(l.after(9), { items: 5, size: 500, from: 10, to: 14 });
    assert.equal(l.after(14), undefined);
  });

  it('a ledger stays small, and still exact outside what it merged', () => {
    const l = createDropLedger();
    // Every other seq: 20 runs of one.
    for (let i = 0; i < 20; i++) l.add(1 + 2 * i, 10);
    assert.deepEqual(l.after(0), { items: 20, size: 200, from: 1, to: 39 });
    assert.deepEqual(l.after(35), { items: 2, size: 20, from: 37, to: 39 });
  });

  it('the real buffer tells a late subscriber exactly what it dropped, and a resuming one only what came after its cursor', () => {
    let clock = 1000;
    const natives = { now: () => clock++, randomId: () => 'hk', setTimeout: (fn: () => void) => setTimeout(fn, 0) } as unknown as Natives;
    const buffer = createCaptureBuffer(natives);
    const ws = buffer.addClient('websocket', 'ws://x/oui');
    const out = buffer.sink(ws, 'out');
    buffer.record(ws, 'open');
    const register = '{"type":"surface:register","payload":{"surface":{"id":"s"}}}';
    buffer.frame(out, register);
    const frame = '{"type":"observation:update","payload":"' + 'x'.repeat(MB) + '"}';
    const frames = 40;
    for (let i = 0; i < frames; i++) buffer.frame(out, frame);
    const kept = Math.floor(MAX_BYTES / (64 + frame.length * 2));
    const dropped = 2 + frames - kept;
    // A subscriber from the start: the open (no payload), the registration and the oldest frames.
    const report = buffer.lostAfter({})!;
    assert.deepEqual(report[ws.id], { items: dropped, size: register.length + (frames - kept) * frame.length, from: 1, to: dropped });
    // What it is sent starts right after: the gap the panel sees is the same count.
    const replayed: CapturedItem[] = [];
    buffer.subscribe({}, { items: (items) => replayed.push(...items) });
    buffer.unsubscribe();
    assert.equal(replayed.length, kept);
    assert.equal(replayed[0]!.seq, dropped + 1);
    // A subscriber that had read up to seq 10 (then missed what was sent while its service worker was stopped): only the
    // drops after its cursor, exactly; their size is the run's share, since the buffer keeps a run's size, not each item's.
    const total = register.length + (frames - kept) * frame.length;
    assert.deepEqual(buffer.lostAfter({ [`hk/${ws.id}`]: 10 })![ws.id], { items: dropped - 10, size: Math.round((total * (dropped - 10)) / dropped), from: 11, to: dropped });
    assert.equal(buffer.lostAfter({ [`hk/${ws.id}`]: dropped + 3 }), undefined);
  });

  it('the quiet ring\'s drops of a socket that never spoke OUI are reported too', () => {
    let clock = 1000;
    const natives = { now: () => clock++, randomId: () => 'hq', setTimeout: (fn: () => void) => setTimeout(fn, 0) } as unknown as Natives;
    const buffer = createCaptureBuffer(natives);
    const ws = buffer.addClient('websocket', 'ws://x/chatter');
    const sink = buffer.sink(ws, 'in');
    for (let i = 0; i < 300; i++) buffer.frame(sink, `{"tick":${String(i).padStart(4, '0')}}`);
    const r = buffer.lostAfter({})![ws.id]!;
    // 256 items fit the quiet ring; the first three are pinned; so 300 - 256 - 3 + ... are gone: exactly the buffer's own count.
    assert.equal(r.items, buffer.drops()[ws.id]);
    assert.equal(r.size, r.items * '{"tick":0000}'.length);
  });
});

describe("the panel's count of it", () => {
  it('counts a hook\'s report once, also for a client none of whose items arrived, beside the gaps it sees', () => {
    const intake = new CaptureIntake();
    const h = new FakeHook('h1');
    const a = h.client('websocket', 'ws://a');
    const b = h.client('websocket', 'ws://b');
    for (let i = 0; i < 9; i++) h.item(a, 'frame');
    intake.accept(0, h.message([h.frame(a, 'out', 'x')], [a, b]));
    const state = { type: 'state', hook: 'h1', drops: {}, clients: [], lost: { [a.id]: { items: 9, size: 9000, from: 1, to: 9 }, [b.id]: { items: 4, size: 400, from: 1, to: 4 } } };
    intake.accept(0, state);
    assert.equal(intake.totalLost(), 13, "a's gap of 9 is its report; b left no gap but is reported");
    assert.equal(intake.totalLostSize(), 9400);
    // Resubscribed (a stopped service worker): the hook reports the same drops again; counted once.
    intake.accept(0, state);
    assert.deepEqual([intake.totalLost(), intake.totalLostSize()], [13, 9400]);
    // A report reaching back over what was counted: only its new part.
    intake.accept(0, { ...state, lost: { [b.id]: { items: 8, size: 800, from: 1, to: 8 } } });
    assert.deepEqual([intake.totalLost(), intake.totalLostSize()], [17, 9800]);
    // Malformed reports change nothing.
    for (const lost of [null, 'x', { [a.id]: { items: -1, size: 0, from: 1, to: 2 } }, { [a.id]: { items: 1, size: 1, from: 30, to: 20 } }, { [a.id]: { items: 1.5, size: 1, from: 30, to: 40 } }]) {
      intake.accept(0, { ...state, lost });
    }
    assert.deepEqual([intake.totalLost(), intake.totalLostSize()], [17, 9800]);
  });

  it('counts what could not be carried with its size, once', () => {
    const intake = new CaptureIntake();
    intake.accept(0, { type: 'skipped', hook: 'h', through: { c1: 3 }, size: 5000 });
    intake.accept(0, { type: 'skipped', hook: 'h', through: { c1: 3 }, size: 5000 });
    assert.deepEqual([intake.totalUndelivered(), intake.undeliveredSize], [3, 5000]);
  });
});

describe('a message Chrome refuses, split by the bridge', () => {
  const item = (seq: number, text: string, client = 'c1'): CapturedItem => ({ hook: 'h', client, seq, t: seq, kind: 'frame', dir: 'out', payload: { text } });
  const client = { id: 'c1', kind: 'websocket' as const, url: 'ws://a', origin: 'http://a', frameUrl: 'http://a/' };
  const m = (items: CapturedItem[], clients = [client]): ItemsMessage => ({ type: 'items', hook: 'h', items, clients });

  it('sends the clients apart first, so no item is of a client the panel never heard of', () => {
    const parts = splitRefused(m([item(1, 'a'), item(2, 'b')]));
    assert.deepEqual(parts, [m([]), m([item(1, 'a'), item(2, 'b')], [])]);
  });

  it('halves, down to one item, which is said as skipped with its size', () => {
    assert.deepEqual(splitRefused(m([item(1, 'a'), item(2, 'bb'), item(3, 'ccc')], [])), [m([item(1, 'a')], []), m([item(2, 'bb'), item(3, 'ccc')], [])]);
    const capped: CapturedItem = { ...item(7, ''), payload: { omitted: true, head: 'x' }, size: 9 * MB };
    assert.deepEqual(splitRefused(m([capped], [])), [{ type: 'skipped', hook: 'h', through: { c1: 7 }, size: 9 * MB }]);
    assert.equal(payloadSizes([item(1, 'abc'), capped, { ...item(2, ''), payload: { base64: 'AAAA' } }]), 3 + 9 * MB + 3);
  });

  it('a client too large to carry goes with the heads of its URLs; then nothing more is tried', () => {
    const huge = { ...client, url: 'ws://a/?' + 'q'.repeat(70 * MB) };
    const [again] = splitRefused(m([], [huge])) as ItemsMessage[];
    assert.ok(again!.clients[0]!.url.length < 3000);
    assert.match(again!.clients[0]!.url, /… \[73400328 characters\]$/);
    assert.deepEqual(splitRefused(again!), []);
    assert.deepEqual(splitRefused({ type: 'state', hook: 'h', drops: {}, clients: [] } as HookMessage), []);
  });
});
