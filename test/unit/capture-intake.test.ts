/**
 * CaptureIntake: the panel's end of the capture line. Replays overlap live
 * traffic, the page's bounded buffer drops items, and anything a page posts
 * may be garbage: duplicates are dropped, gaps counted exactly, cursors kept
 * per hook and client, clients announced once, and nothing throws.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageAnything, pageKey } from '../support/page-data.ts';
import { CaptureIntake } from '../../src/session/wire/intake.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { PROTOCOL as CAPTURE_PROTOCOL } from '../../src/messages.ts';
import { FakeHook } from '../support/capture-items.ts';

const seqs = (items: Array<{ seq: number }>): number[] => items.map((i) => i.seq);

describe('CaptureIntake', () => {
  it('notes a hook that speaks another capture protocol (an older hook left in a page by an extension update)', () => {
    const intake = new CaptureIntake();
    assert.equal(intake.accept(0, { type: 'state', hook: 'h', drops: {}, clients: [], path: 'top', v: CAPTURE_PROTOCOL }).otherProtocol, undefined);
    assert.equal(intake.accept(0, { type: 'state', hook: 'old', drops: {}, clients: [] }).otherProtocol, 0, 'a hook that names no version is an older one');
    assert.equal(intake.accept(0, { type: 'state', hook: 'next', drops: {}, clients: [], v: CAPTURE_PROTOCOL + 1 }).otherProtocol, CAPTURE_PROTOCOL + 1);
    assert.equal(intake.accept(0, { type: 'state', hook: 'odd', drops: {}, clients: [], v: 'x' }).otherProtocol, 0);
    const recorder = new Recorder();
    recorder.accept(0, { type: 'state', hook: 'h', drops: {}, clients: [], v: CAPTURE_PROTOCOL });
    assert.equal(recorder.otherProtocol, undefined);
    recorder.accept(3, { type: 'state', hook: 'old', drops: {}, clients: [] });
    assert.equal(recorder.otherProtocol, 0);
  });

  it("takes a hook's frame path from its state message, with the frameId the browser gave it, and nothing malformed", () => {
    const intake = new CaptureIntake();
    assert.deepEqual(intake.accept(4, { type: 'state', hook: 'h', drops: {}, clients: [], path: 'top/0' }).frame, { path: 'top/0', frameId: 4 });
    assert.deepEqual(intake.accept(0, { type: 'state', hook: 'h2', drops: {}, clients: [], path: 'top' }).frame, { path: 'top', frameId: 0 });
    for (const path of [undefined, 5, '', 'evil', 'top/x', '../top', 'top/0/'] as unknown[]) {
      assert.equal(intake.accept(1, { type: 'state', hook: 'h3', drops: {}, clients: [], path }).frame, undefined, String(path));
    }
  });

  it('drops the items a replay repeats and keeps only what is new', () => {
    const hook = new FakeHook('h1');
    const ws = hook.client('websocket', 'ws://app.test/oui');
    const all = Array.from({ length: 7 }, () => hook.frame(ws, 'in', '{}'));
    const intake = new CaptureIntake();

    const live = intake.accept(0, hook.message(all.slice(0, 5)));
    assert.deepEqual(seqs(live.items), [1, 2, 3, 4, 5]);
    // A reconnecting panel's replay overlaps what it already has (3..5), then brings 6 and 7.
    const replay = intake.accept(0, hook.message(all.slice(2)));
    assert.deepEqual(seqs(replay.items), [6, 7]);
    assert.equal(intake.duplicates, 3);
    assert.equal(intake.totalLost(), 0);
    // Exactly the same batch again: nothing new at all.
    assert.deepEqual(intake.accept(0, hook.message(all)).items, []);
    assert.equal(intake.duplicates, 10);
  });

  it('counts gaps exactly, per hook and client', () => {
    const hook = new FakeHook('h1');
    const a = hook.client('websocket', 'ws://app.test/a');
    const b = hook.client('direct', 'runtime');
    const itemsA = Array.from({ length: 10 }, () => hook.frame(a, 'in', 'x'));
    const itemsB = Array.from({ length: 4 }, () => hook.frame(b, 'out', 'y'));
    const intake = new CaptureIntake();
    // a: 1, 2, 5, 6, 10 arrive (3, 4, 7, 8, 9 were dropped by the page); b: only 4 arrives.
    const pick = (list: typeof itemsA, s: number[]) => list.filter((i) => s.includes(i.seq));
    const r = intake.accept(0, hook.message([...pick(itemsA, [1, 2, 5, 6, 10]), ...pick(itemsB, [4])]));
    assert.equal(r.items.length, 6);
    assert.deepEqual(intake.lost, { 'h1/c1': 5, 'h1/c2': 3 });
    assert.equal(intake.totalLost(), 8);
    // A late arrival of a dropped seq is not resurrected (it is behind the cursor).
    assert.deepEqual(intake.accept(0, hook.message(pick(itemsA, [7]))).items, []);
    assert.equal(intake.totalLost(), 8);
  });

  it('keeps one cursor per hook and client, and hands out a copy', () => {
    const top = new FakeHook('top-hook');
    const frame = new FakeHook('frame-hook');
    const t1 = top.client('websocket', 'ws://app.test/');
    const t2 = top.client('postmessage', 'http://frame.test', 'postmessage:top<->top/0');
    const f1 = frame.client('postmessage', 'http://app.test', 'postmessage:top<->top/0');
    const intake = new CaptureIntake();
    intake.accept(0, top.message([top.frame(t1, 'in', 'a'), top.frame(t1, 'in', 'b'), top.frame(t2, 'in', 'c')]));
    intake.accept(7, frame.message([frame.frame(f1, 'in', 'd'), frame.frame(f1, 'in', 'e'), frame.frame(f1, 'in', 'f')]));
    const cursors = intake.cursors();
    assert.deepEqual(cursors, { 'top-hook/c1': 2, 'top-hook/c2': 1, 'frame-hook/c1': 3 });
    cursors['top-hook/c1'] = 999;
    assert.equal(intake.cursors()['top-hook/c1'], 2, 'mutating the returned cursors must not move the intake');
  });

  it('announces each client once, per hook, with the frame it came from', () => {
    const top = new FakeHook('h-top');
    const sub = new FakeHook('h-sub');
    const c = top.client('websocket', 'ws://app.test/');
    const s = sub.client('websocket', 'ws://app.test/'); // same id "c1" in another hook: another client
    const intake = new CaptureIntake();
    const first = intake.accept(0, top.message([top.frame(c, 'in', '1')]));
    assert.deepEqual(first.clients, [{ hook: 'h-top', frameId: 0, client: c }]);
    const again = intake.accept(0, top.message([top.frame(c, 'in', '2')], [c]));
    assert.deepEqual(again.clients, []);
    assert.equal(again.items.length, 1);
    const other = intake.accept(3, sub.message([sub.frame(s, 'in', '1')]));
    assert.deepEqual(other.clients, [{ hook: 'h-sub', frameId: 3, client: s }]);
    // Announced in a batch with no items: still announced, and only once.
    const d = top.client('direct', 'runtime');
    assert.equal(intake.accept(0, top.message([], [d])).clients.length, 1);
    assert.equal(intake.accept(0, top.message([], [d])).clients.length, 0);
  });

  it('records what a hook says it dropped from a state message', () => {
    const intake = new CaptureIntake();
    const r = intake.accept(0, { type: 'state', hook: 'h1', drops: { c1: 4, c2: 0, c3: -2, c4: 'many' }, clients: [], v: CAPTURE_PROTOCOL });
    assert.deepEqual(r, { clients: [], items: [] });
    assert.deepEqual(intake.hookDrops, { 'h1/c1': 4, 'h1/c2': 0 });
    // The hook's counts are running totals: a later state replaces, never adds.
    intake.accept(0, { type: 'state', hook: 'h1', drops: { c1: 6 }, clients: [] });
    assert.equal(intake.hookDrops['h1/c1'], 6);
    // Drops are not items that went missing between page and panel.
    assert.equal(intake.totalLost(), 0);
    // Without a hook id or a drops object, a state message changes nothing.
    intake.accept(0, { type: 'state', drops: { c9: 1 } });
    intake.accept(0, { type: 'state', hook: 'h2', drops: null });
    assert.deepEqual(Object.keys(intake.hookDrops).sort(), ['h1/c1', 'h1/c2']);
  });

  it('ignores malformed messages and malformed items without throwing', () => {
    const intake = new CaptureIntake();
    for (const m of [null, undefined, 42, 'items', [], { type: 'items' }, { type: 'items', items: 'nope' }, { type: 'other', items: [] }]) {
      assert.deepEqual(intake.accept(0, m), { clients: [], items: [] });
    }
    const hook = new FakeHook('h1');
    const c = hook.client('websocket', 'ws://app.test/');
    const good = hook.frame(c, 'in', 'ok');
    const r = intake.accept(0, {
      type: 'items',
      hook: 'h1',
      clients: [null, { id: 5, kind: 'websocket' }, { id: 'cx' }, c],
      items: [
        null,
        'item',
        { hook: 'h1', client: 'c1', seq: 0, t: 1, kind: 'frame' },
        { hook: 'h1', client: 'c1', seq: 1.5, t: 1, kind: 'frame' },
        { hook: 'h1', client: 'c1', seq: '2', t: 1, kind: 'frame' },
        { hook: 7, client: 'c1', seq: 1, t: 1, kind: 'frame' },
        { hook: 'h1', client: null, seq: 1, t: 1, kind: 'frame' },
        good,
      ],
    });
    assert.deepEqual(r.items, [good]);
    assert.deepEqual(r.clients, [{ hook: 'h1', frameId: 0, client: c }]);
    assert.equal(intake.duplicates, 0);
    assert.equal(intake.totalLost(), 0);
    // Clients of a message without a hook id are not announced.
    assert.deepEqual(intake.accept(0, { type: 'items', items: [], clients: [{ id: 'c2', kind: 'direct' }] }).clients, []);
  });

  it('never throws on arbitrary input (fast-check)', () => {
    const intake = new CaptureIntake();
    const nearItem = fc.record(
      { hook: fc.oneof(fc.constant('h'), pageAnything()), client: fc.oneof(fc.constantFrom('c1', 'c2'), pageAnything()), seq: fc.oneof(fc.integer({ min: -2, max: 30 }), fc.double(), pageAnything()), t: pageAnything(), kind: pageAnything() },
      { requiredKeys: [] },
    );
    const nearMessage = fc.record(
      {
        type: fc.oneof(fc.constantFrom('items', 'state'), pageAnything()),
        hook: fc.oneof(fc.constant('h'), pageAnything()),
        items: fc.oneof(fc.array(fc.oneof(nearItem, pageAnything()), { maxLength: 8 }), pageAnything()),
        clients: fc.oneof(fc.array(fc.oneof(fc.record({ id: pageAnything(), kind: pageAnything() }), pageAnything()), { maxLength: 3 }), pageAnything()),
        drops: fc.oneof(fc.dictionary(pageKey, pageAnything()), pageAnything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.integer({ min: -1, max: 10 }), fc.oneof(nearMessage, pageAnything()), (frameId, message) => {
        const r = intake.accept(frameId, message);
        assert.ok(Array.isArray(r.items) && Array.isArray(r.clients), 'a result of two lists');
        for (const it of r.items) assert.ok(typeof it.hook === 'string' && typeof it.client === 'string' && Number.isInteger(it.seq) && it.seq >= 1, 'only well-formed items pass');
      }),
      { numRuns: 500 },
    );
  });

  it('accounts for every seq: accepted + duplicates = delivered, lost = highest seq - accepted (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 }), fc.integer({ min: 1, max: 10 }), (delivered, batchSize) => {
        const intake = new CaptureIntake();
        let accepted: number[] = [];
        for (let i = 0; i < delivered.length; i += batchSize) {
          const items = delivered.slice(i, i + batchSize).map((seq) => ({ hook: 'h', client: 'c1', seq, t: seq, kind: 'frame' }));
          accepted = accepted.concat(seqs(intake.accept(0, { type: 'items', hook: 'h', items, clients: [] }).items));
        }
        // The model: an item is taken when it is above everything taken before.
        const expected: number[] = [];
        for (const s of delivered) if (s > (expected[expected.length - 1] ?? 0)) expected.push(s);
        assert.deepEqual(accepted, expected);
        assert.equal(intake.duplicates, delivered.length - expected.length);
        const top = expected[expected.length - 1] ?? 0;
        assert.equal(intake.totalLost(), top - expected.length);
        assert.deepEqual(intake.cursors(), top ? { 'h/c1': top } : {});
      }),
      { numRuns: 300 },
    );
  });
});
