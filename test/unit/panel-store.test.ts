/**
 * The panel's store and injector in Node: everything the browser gives the
 * panel comes in through `PanelEnv`, so these run without DOM or extension.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { PanelStore, type PanelEnv } from '../../panel/store.ts';
import { Injector, type SavedStore } from '../../panel/injector.ts';
import type { Connection, ConnectionHandlers } from '../../panel/connection.ts';
import type { FromPanel } from '../../src/messages.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';
import { SPEC_TIMERS } from '../../src/session/model/timers.ts';
import { capture, sessionFile } from '../fixtures/traffic.ts';
import { REORDER_WINDOW_MS } from '../../src/session/model/merge.ts';
import { redactSessionFile } from '../../src/session/redact/session.ts';
import { parseSessionFile } from '../../src/session/wire/session-file.ts';
import { secretSession } from './redact-fixture.ts';

function memorySaved(): SavedStore & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: async (k) => structuredClone(data.get(k)), set: async (k, v) => void data.set(k, structuredClone(v)) };
}

function fakeConnection(): Connection & { sent: FromPanel[] } {
  const sent: FromPanel[] = [];
  return { sent, send: (m) => void sent.push(m), close: () => {} };
}

/** A plain-WebSocket client that registered a surface, as the recorder learns it from the hook. */
function webSocketClient(): WireClient {
  const hook = new FakeHook('h1');
  const ws = hook.client('websocket', 'ws://app.test/oui');
  const recorder = new Recorder();
  recorder.accept(0, hook.message([hook.item(ws, 'open'), hook.json(ws, 'out', { type: 'surface:register', payload: { surface: { id: 's', name: 'S', description: 'S', actions: [{ id: 'go', description: 'g', input: { type: 'object' } }] }, timestamp: 1 } })]));
  return [...recorder.clients.values()][0]!;
}

describe('injector', () => {
  it('sends a planned request through the connection and follows the hook’s answer', () => {
    const injector = new Injector(memorySaved());
    const connection = fakeConnection();
    const client = webSocketClient();
    const record = injector.inject(connection, client, { surfaceId: 's', actionId: 'go', params: { n: 1 } }, { wantReceipt: false, letThrough: false });
    assert.equal(record.status, 'sending');
    assert.equal(connection.sent.length, 1);
    const command = connection.sent[0]!;
    assert.equal(command.type, 'hook:inject');
    assert.deepEqual(command.type === 'hook:inject' && JSON.parse(command.frame!), { type: 'action:request', payload: record.request });
    assert.deepEqual(command.type === 'hook:inject' && command.hold, [record.request.requestId], 'the answer is kept from the runtime unless let through');
    injector.onAnswer({ type: 'answer', id: record.id, ok: true });
    assert.equal(injector.injections.value[0]!.status, 'delivered');
    injector.onAnswer({ type: 'answer', id: record.id, ok: false, error: 'late' });
    assert.equal(injector.injections.value[0]!.status, 'delivered', 'a settled injection stays as it was');
  });

  it('fails in the history, with the reason, when there is no line or no way to deliver', () => {
    const injector = new Injector(memorySaved());
    const client = webSocketClient();
    assert.equal(injector.inject(null, client, { surfaceId: 's', actionId: 'go', params: {} }, { wantReceipt: false, letThrough: true }).error, 'not connected to a tab');
    const closed: WireClient = { ...client, inject: undefined };
    const connection = fakeConnection();
    const r = injector.inject(connection, closed, { surfaceId: 's', actionId: 'go', params: {} }, { wantReceipt: false, letThrough: true });
    assert.equal(r.status, 'failed');
    assert.ok(r.error && r.error.length > 0);
    assert.equal(connection.sent.length, 0);
    assert.deepEqual(injector.injections.value.map((x) => x.status), ['failed', 'failed']);
  });

  it('keeps at most 200 injections, newest first', () => {
    const injector = new Injector(memorySaved());
    const client = webSocketClient();
    for (let i = 0; i < 230; i++) injector.inject(null, client, { surfaceId: 's', actionId: 'go', params: { i } }, { wantReceipt: false, letThrough: true });
    assert.equal(injector.injections.value.length, 200);
    assert.deepEqual(injector.injections.value[0]!.request.params, { i: 229 });
  });

  it('saves, lists, replaces and deletes requests per origin', async () => {
    const saved = memorySaved();
    const injector = new Injector(saved);
    const a = { name: 'a', surfaceId: 's', actionId: 'go', params: { x: 1 }, savedAt: 1 };
    await injector.saveRequest('http://one.test', a);
    await injector.saveRequest('http://one.test', { ...a, name: 'b' });
    const list = await injector.saveRequest('http://one.test', { ...a, params: { x: 2 } });
    assert.deepEqual(list.map((s) => [s.name, s.params]), [['a', { x: 2 }], ['b', { x: 1 }]]);
    assert.deepEqual(await injector.loadSaved('http://two.test'), []);
    assert.deepEqual((await injector.deleteSaved('http://one.test', 'a')).map((s) => s.name), ['b']);
    saved.data.set('saved:http://bad.test', 'not a list');
    assert.deepEqual(await injector.loadSaved('http://bad.test'), []);
  });
});

describe('panel store', () => {
  function env(settings: Record<string, string> = {}) {
    const frames: Array<() => void> = [];
    let handlers: ConnectionHandlers | undefined;
    const connection = fakeConnection();
    const e: PanelEnv = {
      settings: { get: (k) => settings[k] ?? null, set: (k, v) => void (settings[k] = v) },
      nextFrame: (fn) => void frames.push(fn),
      connect: (_tabId, h) => {
        handlers = h;
        return connection;
      },
      saved: memorySaved(),
      sites: { granted: async () => [], request: async () => false, remove: async () => {}, sync: async () => {}, reload: async () => {}, reloadFrames: async () => {}, inspectedOrigin: async () => null },
    };
    return { env: e, frames, connection, settings, handlers: () => handlers! };
  }

  it('takes in live capture and redraws once per frame however many batches arrive', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const { env: e, frames, handlers } = env();
    const store = new PanelStore(e);
    store.startLive(3);
    const hook = new FakeHook('h1');
    const ws = hook.client('websocket', 'ws://app.test/oui');
    handlers().capture(0, hook.message([hook.item(ws, 'open')]));
    handlers().capture(0, hook.message([hook.json(ws, 'out', { type: 'observation:update', payload: { surfaceId: 's', observationId: 'o', value: 1, timestamp: 1 } })]));
    assert.equal(store.recorder.events.length, 2);
    assert.equal(frames.length, 1, 'one redraw scheduled for both batches');
    const before = store.session.value;
    frames.shift()!();
    assert.notEqual(store.session.value, before, 'the session is published again');
    assert.equal(store.session.value.recorder, before.recorder, 'with the same recorder');
    assert.equal(store.site.state.value, 'capturing');
  });

  it('hands the hook’s answers to the injector and keeps settings in the environment', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const { env: e, handlers, settings } = env({ 'oui.preserveLog': '1' });
    const store = new PanelStore(e);
    assert.equal(store.preserveLog.value, true);
    store.startLive(3);
    const record = store.injector.inject(store.connection, webSocketClient(), { surfaceId: 's', actionId: 'go', params: {} }, { wantReceipt: false, letThrough: true });
    handlers().capture(0, { type: 'answer', id: record.id, ok: false, error: 'no such socket' });
    assert.deepEqual([store.injector.injections.value[0]!.status, store.injector.injections.value[0]!.error], ['failed', 'no such socket']);
    store.setPreserveLog(false);
    assert.equal(settings['oui.preserveLog'], '0');
  });

  it('judges with the timers the settings hold, the spec defaults for what they do not', () => {
    assert.deepEqual(new PanelStore(env().env).model.timers, SPEC_TIMERS);
    const store = new PanelStore(env({ 'oui.timers': JSON.stringify({ syncMs: 2000, reanswerMs: -1 }) }).env);
    assert.deepEqual(store.timers.value, { ...SPEC_TIMERS, syncMs: 2000 });
    assert.deepEqual(store.model.timers, { ...SPEC_TIMERS, syncMs: 2000 });
    assert.deepEqual(new PanelStore(env({ 'oui.timers': '{not json' }).env).timers.value, SPEC_TIMERS);
  });

  it('changing a timer judges the session again at once and keeps it in the settings, as the spec version does', () => {
    const { env: e, settings } = env();
    const store = new PanelStore(e);
    store.importJson(sessionFile(capture({ transport: 'websocket', requests: 2 })), 'rec.json');
    const events = store.recorder.events.length;
    const clients = store.model.clients.size;
    const before = { model: store.model, session: store.session.value };
    assert.ok(clients > 0);
    assert.equal(store.setTimers({ syncMs: 1500, asyncAckMs: 250 }), true);
    assert.notEqual(store.model, before.model, 'a fresh model, from the recorded events');
    assert.notEqual(store.session.value, before.session);
    assert.equal(store.model.timers.syncMs, 1500);
    assert.equal(store.model.timers.asyncAckMs, 250);
    assert.equal(store.model.timers.reanswerMs, SPEC_TIMERS.reanswerMs);
    assert.equal(store.recorder.events.length, events);
    assert.equal(store.model.clients.size, clients);
    assert.deepEqual(JSON.parse(settings['oui.timers']!), { ...SPEC_TIMERS, syncMs: 1500, asyncAckMs: 250 });
    // A new panel reads it back.
    assert.equal(new PanelStore(env({ ...settings }).env).model.timers.syncMs, 1500);
    // Nothing changed: no rebuild. A value that is not a timer: refused, nothing changed.
    const same = store.model;
    assert.equal(store.setTimers({ syncMs: 1500 }), true);
    assert.equal(store.model, same);
    for (const bad of [0, -1, NaN, Infinity, 1e12, '2000']) assert.equal(store.setTimers({ reanswerMs: bad }), false, String(bad));
    assert.equal(store.model, same);
    assert.equal(store.timers.value.reanswerMs, SPEC_TIMERS.reanswerMs);
    // Back to the spec's.
    store.setTimers({ ...SPEC_TIMERS });
    assert.deepEqual(store.model.timers, SPEC_TIMERS);
  });

  it('says in one line why a file cannot be imported, and keeps the session', () => {
    const { env: e } = env();
    const store = new PanelStore(e);
    store.importJson('{"not":"a session"}', 'x.json');
    assert.equal(store.source.value, 'live');
    assert.match(store.notice.value ?? '', /x\.json/);
  });

  it('two stores share nothing', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const a = new PanelStore(env().env);
    const b = new PanelStore(env().env);
    a.view.value = 'findings';
    a.ui.timeline.text.value = 'cart';
    a.injector.inject(null, webSocketClient(), { surfaceId: 's', actionId: 'go', params: {} }, { wantReceipt: false, letThrough: true });
    assert.equal(b.view.value, 'timeline');
    assert.equal(b.ui.timeline.text.value, '');
    assert.equal(b.injector.injections.value.length, 0);
  });

  /** A live store on mock timers and clock, a hook with one WebSocket client, and the frames the store asked for. */
  function live(t: TestContext, settings: Record<string, string> = {}) {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 1_000_000 });
    const e = env(settings);
    const store = new PanelStore(e.env);
    const stop = store.startLive(3);
    const hook = new FakeHook('h1');
    const ws = hook.client('websocket', 'ws://app.test/oui');
    const send = (...values: unknown[]) => e.handlers().capture(0, hook.message(values.map((v) => hook.json(ws, 'in', v))));
    /** Runs the frames asked for so far: the session is published. */
    const paint = () => {
      while (e.frames.length) e.frames.shift()!();
    };
    const request = (id: string) => ({ type: 'action:request', payload: { requestId: id, surfaceId: 's', actionId: 'go', params: {}, timestamp: 1 } });
    const statusOf = (id: string) => [...store.model.clients.values()][0]?.requests.get(id)?.status;
    return { ...e, store, stop, send, paint, request, statusOf, tick: (ms: number) => t.mock.timers.tick(ms) };
  }

  it('applies what waited in the reorder window when the window closes, with no other traffic', (t) => {
    const { store, send, paint, request, statusOf, tick } = live(t);
    send(request('r1'));
    paint();
    assert.equal(statusOf('r1'), undefined, 'held in the window');
    assert.equal(store.session.value.feed.held, 1);
    tick(REORDER_WINDOW_MS - 10);
    paint();
    assert.equal(statusOf('r1'), undefined, 'still held before the window closes');
    tick(20);
    assert.equal(store.session.peek().feed.held, 0, 'released by the timer');
    const before = store.session.value;
    paint();
    assert.notEqual(store.session.value, before, 'and published at the next frame');
    assert.equal(statusOf('r1'), 'pending');
  });

  it('ticks the model every second: a request with no answer times out with no traffic', (t) => {
    const { store, send, paint, request, statusOf, tick } = live(t, { 'oui.timers': JSON.stringify({ syncMs: 1500 }) });
    send(request('r1'));
    tick(REORDER_WINDOW_MS + 10);
    paint();
    assert.equal(statusOf('r1'), 'pending');
    // The model's clock is the capture time less the window: 1.5 s past the request is ~2.1 s of panel time.
    tick(1000);
    paint();
    assert.equal(statusOf('r1'), 'pending', 'one tick: not yet past the deadline');
    const before = store.session.value;
    tick(2000);
    paint();
    assert.equal(statusOf('r1'), 'timed-out');
    assert.notEqual(store.session.value, before, 'the change was published');
  });

  it('the disposer of live capture clears the tick, the release timer and the coverage poll, and closes the line', (t) => {
    const { store, stop, send, paint, request, statusOf, tick, connection, frames } = live(t, { 'oui.timers': JSON.stringify({ syncMs: 1500 }) });
    let closed = 0;
    connection.close = () => void closed++;
    send(request('r1'));
    stop();
    assert.equal(closed, 1);
    assert.equal(store.connection, null);
    const sent = connection.sent.length;
    tick(60_000);
    assert.equal(frames.length, 1, 'only the frame asked for by the batch itself');
    paint();
    assert.equal(store.session.value.feed.held, 1, 'no release timer ran');
    assert.equal(statusOf('r1'), undefined);
    assert.equal(connection.sent.length, sent, 'no coverage poll ran');
  });

  it('Pause keeps the Timeline at what it shows while traffic is still recorded; Resume shows everything', (t) => {
    const { store, send, paint, request, tick } = live(t);
    send(request('r1'), request('r2'));
    tick(REORDER_WINDOW_MS + 10);
    paint();
    const shown = store.timeline.value.matches.length;
    assert.ok(shown >= 2);
    store.togglePause();
    assert.equal(store.pausedAt.value, store.recorder.events.length);
    send(request('r3'));
    paint();
    assert.equal(store.recorder.events.length, shown + 1, 'recorded');
    assert.equal(store.timeline.value.matches.length, shown, 'not shown');
    assert.equal(store.timeline.value.end, shown);
    store.togglePause();
    assert.equal(store.pausedAt.value, null);
    assert.equal(store.timeline.value.matches.length, shown + 1);
  });

  it('Clear forgets what the panel shows, keeps a paused Timeline paused at nothing, and new traffic shows once resumed', (t) => {
    const { store, send, paint, request, statusOf, tick } = live(t);
    send(request('r1'));
    tick(REORDER_WINDOW_MS + 10);
    paint();
    store.selectedEvent.value = store.recorder.events[0]!.id;
    store.togglePause();
    const before = store.session.value;
    store.clearAll();
    assert.notEqual(store.session.value.feed, before.feed, 'a fresh model');
    assert.equal(store.recorder.events.length, 0);
    assert.equal(statusOf('r1'), undefined);
    assert.equal(store.selectedEvent.value, null);
    assert.equal(store.pausedAt.value, 0);
    assert.equal(store.timeline.value.matches.length, 0);
    send(request('r2'));
    tick(REORDER_WINDOW_MS + 10);
    paint();
    assert.equal(store.timeline.value.matches.length, 0, 'paused at nothing');
    store.togglePause();
    assert.deepEqual(store.timeline.value.matches.toArray().map((ev) => (ev.payload as { requestId?: string }).requestId), ['r2']);
    assert.equal(statusOf('r2'), 'pending');
  });

  it('Back to live leaves an imported session for the tab’s capture, asked for again from the start', (t) => {
    const { store, send, paint, request, statusOf, tick, connection } = live(t);
    store.importJson(sessionFile(capture({ transport: 'websocket', requests: 2 })), 'rec.json');
    assert.equal(store.source.value, 'import');
    const imported = store.recorder.events.length;
    assert.ok(imported > 0);
    // Live traffic is not taken in while an import is shown.
    send(request('r9'));
    assert.equal(store.recorder.events.length, imported);
    const sent = connection.sent.length;
    store.backToLive();
    assert.equal(store.source.value, 'live');
    assert.equal(store.recorder.events.length, 0);
    assert.equal(store.model.clients.size, 0);
    assert.equal(store.notice.value, null);
    assert.deepEqual(connection.sent.slice(sent), [{ type: 'subscribe', cursors: {} }]);
    send(request('r10'));
    tick(REORDER_WINDOW_MS + 10);
    paint();
    assert.equal(statusOf('r10'), 'pending');
  });

  it('Import of a redacted recording shows the findings judged before redaction, none judged on its markers', () => {
    const text = JSON.stringify(secretSession());
    // The oracle: the findings the panel judges on the original, unredacted recording.
    const original = new PanelStore(env().env);
    original.importJson(text, 'original.json');
    const want = original.model.findings.map((f) => `${f.rule} ${f.events.join(',')}`).sort();
    assert.ok(want.length >= 2, 'the original has findings to keep');
    const parsed = parseSessionFile(text);
    assert.ok(parsed.ok);
    const redacted = JSON.stringify(redactSessionFile(parsed.file, original.model.findings));
    assert.equal(redacted.includes('hunter2'), false, 'the fixture\'s password is gone');
    // Judged alone on the markers, the params' argsHash no longer matches: a false finding the file's verdicts must keep out.
    const store = new PanelStore(env().env);
    store.importJson(redacted, 'redacted.json');
    assert.deepEqual(store.model.findings.map((f) => `${f.rule} ${f.events.join(',')}`).sort(), want);
    assert.match(store.notice.value ?? '', /redacted recording/);
  });
});
