/**
 * §7.6.1 across a reconnection: the decoder links a new logical client to the
 * connection it reconnects for (`WireClient.replaces`) — same hook instance
 * and frame, same transport family and target, and only once the earlier
 * transport was seen lost. Real Socket.IO traffic (a real server, a real
 * socket.io-client, recorded as the page hook sees it), plain WebSocket and
 * direct-hook captures, what must never link (two live sockets, another
 * frame, a reload), the bound, and the link through session files, HAR
 * (ours and Chrome's) and the Playwright snapshot.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Manager, type Socket as ClientSocket } from 'socket.io-client';
import type { Socket as ServerSocket } from 'socket.io';
import type { BrowserContext, Page } from '@playwright/test';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { encodeSocketIOEvent, surfacesHash } from '../../src/protocol/index.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { exportSession, parseSessionFile } from '../../src/session/wire/session-file.ts';
import { exportHar } from '../../src/session/har/export.ts';
import { lintStream } from '../../src/cli/lint.ts';
import { OuiCapture } from '../../src/playwright/capture.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';
import { startSocketIOCapture, type SocketIOCapture } from '../support/socketio-capture.ts';
import { chromeHar } from '../fixtures/traffic.ts';
import { runCapture } from '../support/run-capture.ts';
import { once, until } from '../support/wait.ts';

const REG = { surface: { id: 'cart', name: 'Cart', description: 'The cart', actions: [] }, timestamp: 1 };

function decodeAll(hooks: Array<{ hook: FakeHook; frameId: number }>, items: CapturedItem[]): { decoder: WireDecoder; events: WireEvent[] } {
  const decoder = new WireDecoder();
  for (const { hook, frameId } of hooks) for (const c of hook.clients.values()) decoder.addClient(c, hook.hook, frameId);
  const events: WireEvent[] = [];
  for (const it of items) events.push(...decoder.push(it));
  return { decoder, events };
}

/** `[key, replaces]` of each client, in order of appearance. */
const links = (clients: Iterable<WireClient>) => [...clients].map((c) => [c.key, c.replaces] as const);

/** Recorded frames and WebSocket closes as the page hook captures them (content/taps/polling.ts, websocket.ts). */
function itemsFromRecording(capture: SocketIOCapture): { hook: FakeHook; items: CapturedItem[] } {
  const hook = new FakeHook('H', undefined, capture.url, `${capture.url}/`);
  const polling = hook.client('polling', `${capture.url}/socket.io/`);
  const ws = new Map<number, CapturedClient>();
  const items: CapturedItem[] = [];
  type Rec = { seq: number; frame?: (typeof capture.frames)[number]; closed?: number };
  const records: Rec[] = [...capture.frames.map((f) => ({ seq: f.seq, frame: f })), ...capture.wsClosed.map((c) => ({ seq: c.seq, closed: c.conn }))];
  records.sort((a, b) => a.seq - b.seq);
  for (const r of records) {
    if (r.closed !== undefined) {
      const c = ws.get(r.closed);
      if (c) items.push(hook.item(c, 'close', { note: '1005' }));
      continue;
    }
    const f = r.frame!;
    if (f.transport === 'polling') {
      const url = `${capture.url}${f.url}`;
      assert.ok('text' in f.payload, 'polling bodies are text');
      items.push(hook.frame(polling, f.dir, f.payload.text, { url }));
      if (f.dir === 'out') items.push(hook.frame(polling, 'in', 'ok', { url }));
    } else {
      let c = ws.get(f.conn);
      if (!c) {
        c = hook.client('websocket', `${capture.url.replace(/^http/, 'ws')}${f.url}`);
        ws.set(f.conn, c);
        items.push(hook.item(c, 'open'));
      }
      items.push(hook.item(c, 'frame', { dir: f.dir, payload: f.payload }));
    }
  }
  return { hook, items };
}



/** A server whose /oui namespace counts registrations; the app registers on every connect, as §7.6.1 asks. */
function ouiServer(capture: SocketIOCapture): { sockets: ServerSocket[]; registered: () => number } {
  const sockets: ServerSocket[] = [];
  let n = 0;
  capture.io.of('/oui').on('connection', (s) => {
    sockets.push(s);
    s.on('surface:register', () => n++);
  });
  return { sockets, registered: () => n };
}

function registerOnConnect(c: ClientSocket): void {
  c.on('connect', () => c.emit('surface:register', REG));
}

/** The /oui clients of a decoded capture, oldest first, with their sessions' ids. */
function ouiClients(decoder: WireDecoder): WireClient[] {
  return decoder.allClients().filter((c) => c.kind === 'socket.io' && c.namespace === '/oui');
}

describe('Socket.IO reconnections, real traffic', () => {
  it('WebSocket only: a server-side disconnect, then the app connects again', async () => {
    const capture = await startSocketIOCapture();
    const server = ouiServer(capture);
    const manager = new Manager(capture.url, { transports: ['websocket'], reconnection: false, timeout: 5000 });
    const c = manager.socket('/oui');
    registerOnConnect(c);
    try {
      await until(() => server.registered() === 1, 'first registration');
      const gone = once<[string]>(c, 'disconnect');
      server.sockets[0]!.disconnect(true);
      assert.equal((await gone)[0], 'io server disconnect');
      await until(() => capture.wsClosed.length === 1, 'the WebSocket closes');
      c.connect();
      await until(() => server.registered() === 2, 'registration after reconnecting');
    } finally {
      c.disconnect();
      manager.engine?.close();
      await capture.close();
    }
    const { hook, items } = itemsFromRecording(capture);
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    const [first, second] = ouiClients(decoder);
    assert.ok(first && second, links(decoder.allClients()).join(' | '));
    assert.equal(ouiClients(decoder).length, 2);
    assert.notEqual(first.key, second.key, 'a new Engine.IO session');
    assert.equal(first.replaces, undefined);
    assert.equal(second.replaces, first.key);
    // What the link rests on: the server's DISCONNECT and the close of the session's socket, both before the new session.
    const firstItem = Math.min(...events.filter((e) => e.client === second.key).map((e) => e.t));
    assert.ok(events.some((e) => e.client === first.key && e.type === 'socket.io disconnect' && e.dir === 'in' && e.t < firstItem));
    assert.ok(events.some((e) => e.client === first.key && e.type === 'close' && e.via === 'websocket' && e.t < firstItem));
  });

  it('polling then WebSocket: the transport closes, socket.io-client reconnects on its own (new handshake over polling)', async () => {
    const capture = await startSocketIOCapture();
    const server = ouiServer(capture);
    const manager = new Manager(capture.url, { reconnectionDelay: 10, reconnectionDelayMax: 20, timeout: 5000 });
    const c = manager.socket('/oui');
    registerOnConnect(c);
    try {
      await until(() => server.registered() === 1, 'first registration');
      if (manager.engine.transport.name !== 'websocket') await once(manager.engine, 'upgrade');
      const gone = once<[string]>(c, 'disconnect');
      server.sockets[0]!.conn.close();
      assert.equal((await gone)[0], 'transport close');
      await until(() => server.registered() === 2, 'registration after the automatic reconnection');
    } finally {
      c.disconnect();
      manager.engine?.close();
      await capture.close();
    }
    const { hook, items } = itemsFromRecording(capture);
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    const list = ouiClients(decoder);
    assert.equal(list.length, 2, links(decoder.allClients()).join(' | '));
    assert.equal(list[1]!.replaces, list[0]!.key);
    // No DISCONNECT went over the wire: the loss is the close of the WebSocket that carried the session.
    assert.ok(!events.some((e) => e.client === list[0]!.key && e.type === 'socket.io disconnect'));
    assert.ok(events.some((e) => e.client === list[1]!.key && e.via === 'polling'), 'the new session starts on long-polling');
  });

  it('polling only: the server closes the session (Engine.IO close packet), then a new handshake', async () => {
    const capture = await startSocketIOCapture();
    const server = ouiServer(capture);
    const manager = new Manager(capture.url, { transports: ['polling'], reconnectionDelay: 10, reconnectionDelayMax: 20, timeout: 5000 });
    const c = manager.socket('/oui');
    registerOnConnect(c);
    try {
      await until(() => server.registered() === 1, 'first registration');
      const gone = once<[string]>(c, 'disconnect');
      server.sockets[0]!.conn.close();
      assert.equal((await gone)[0], 'transport close');
      await until(() => server.registered() === 2, 'registration after reconnecting');
    } finally {
      c.disconnect();
      manager.engine?.close();
      await capture.close();
    }
    const { hook, items } = itemsFromRecording(capture);
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    const list = ouiClients(decoder);
    assert.equal(list.length, 2, links(decoder.allClients()).join(' | '));
    assert.equal(list[1]!.replaces, list[0]!.key);
    assert.ok(events.some((e) => e.client === list[0]!.key && e.type === 'close' && e.note === 'Engine.IO close packet'));
  });
});

describe('Socket.IO reconnections, hand-built frames', () => {
  const base = 'http://app.test/socket.io/?EIO=4&transport=polling';
  const hs = (sid: string) => `0${JSON.stringify({ sid, upgrades: [], pingInterval: 25000, pingTimeout: 20000, maxPayload: 1e6 })}`;

  it('a polling session the server forgot ("Session ID unknown"), then a new handshake', () => {
    const hook = new FakeHook('h');
    const poll = hook.client('polling', 'http://app.test/socket.io/');
    const items = [
      hook.frame(poll, 'in', hs('S1'), { url: `${base}&t=a` }),
      hook.frame(poll, 'out', '40/oui,', { url: `${base}&t=b&sid=S1` }),
      hook.frame(poll, 'in', '40/oui,{"sid":"n1"}', { url: `${base}&t=c&sid=S1` }),
      hook.frame(poll, 'out', encodeSocketIOEvent({ namespace: '/oui', name: 'surface:register', args: [REG] }), { url: `${base}&t=d&sid=S1` }),
      hook.frame(poll, 'in', '{"code":1,"message":"Session ID unknown"}', { url: `${base}&t=e&sid=S1` }),
      hook.frame(poll, 'in', hs('S2'), { url: `${base}&t=f` }),
      hook.frame(poll, 'out', '40/oui,', { url: `${base}&t=g&sid=S2` }),
    ];
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    const list = ouiClients(decoder);
    assert.deepEqual(links(list), [
      ['socket.io://app.test/socket.io/#S1/oui', undefined],
      ['socket.io://app.test/socket.io/#S2/oui', 'socket.io://app.test/socket.io/#S1/oui'],
    ]);
  });

  it('a namespace leaves and joins again on one live session: one client, nothing to link', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
    const items = [
      hook.item(ws, 'open'),
      hook.frame(ws, 'in', hs('S1')),
      hook.frame(ws, 'out', '40/oui,'),
      hook.frame(ws, 'in', '40/oui,{"sid":"n1"}'),
      hook.frame(ws, 'out', '41/oui,'),
      hook.frame(ws, 'out', '40/oui,'),
      hook.frame(ws, 'in', '40/oui,{"sid":"n2"}'),
    ];
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(links(decoder.allClients()), [['socket.io://app.test/socket.io/#S1/oui', undefined]]);
    assert.equal(events.filter((e) => e.type === 'socket.io connect').length, 4);
    // And once that session is lost, the next one links to the namespace that joined again.
    const ws2 = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
    const more = [hook.item(ws, 'close', { note: '1006' }), hook.item(ws2, 'open'), hook.frame(ws2, 'in', hs('S2')), hook.frame(ws2, 'out', '40/oui,')];
    decoder.addClient(ws2, 'h', 0);
    for (const it of more) decoder.push(it);
    assert.equal(decoder.allClients().find((c) => c.key.endsWith('#S2/oui'))?.replaces, 'socket.io://app.test/socket.io/#S1/oui');
  });

  it('each namespace links to its own; the app query stays part of the endpoint', () => {
    const hook = new FakeHook('h');
    const url = (q: string) => `ws://app.test/socket.io/?EIO=4&transport=websocket&token=${q}`;
    const a = hook.client('websocket', url('x'));
    const b = hook.client('websocket', url('x'));
    const other = hook.client('websocket', url('y'));
    const items = [
      hook.item(a, 'open'),
      hook.frame(a, 'in', hs('A')),
      hook.frame(a, 'out', '40'),
      hook.frame(a, 'out', '40/oui,'),
      hook.frame(a, 'in', '1'),
      hook.item(a, 'close', { note: '1005' }),
      // Another token: another app connection.
      hook.item(other, 'open'),
      hook.frame(other, 'in', hs('O')),
      hook.frame(other, 'out', '40/oui,'),
      hook.item(b, 'open'),
      hook.frame(b, 'in', hs('B')),
      hook.frame(b, 'out', '40/oui,'),
      hook.frame(b, 'out', '40'),
    ];
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    const replaces = new Map(decoder.allClients().map((c) => [c.key, c.replaces]));
    assert.equal(replaces.get('socket.io://app.test/socket.io/#B/oui'), 'socket.io://app.test/socket.io/#A/oui');
    assert.equal(replaces.get('socket.io://app.test/socket.io/#B/'), 'socket.io://app.test/socket.io/#A/');
    assert.equal(replaces.get('socket.io://app.test/socket.io/#O/oui'), undefined);
  });
});

describe('plain WebSocket and direct-hook reconnections', () => {
  const URL = 'wss://app.test/agent';

  it('a WebSocket closes, a new one to the same URL replaces it; a chain links step by step', () => {
    const hook = new FakeHook('h');
    const [a, b, c] = [hook.client('websocket', URL), hook.client('websocket', URL), hook.client('websocket', URL)];
    const items = [
      hook.item(a, 'open'),
      hook.json(a, 'out', { type: 'surface:register', payload: REG }),
      hook.item(a, 'close', { note: '1006' }),
      hook.item(b, 'open'),
      hook.json(b, 'out', { type: 'surface:register', payload: REG }),
      hook.item(b, 'error'),
      hook.item(b, 'close', { note: '1006' }),
      hook.item(c, 'open'),
    ];
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(links(decoder.allClients()), [
      [`websocket:c1@0:${URL}`, undefined],
      [`websocket:c2@0:${URL}`, `websocket:c1@0:${URL}`],
      [`websocket:c3@0:${URL}`, `websocket:c2@0:${URL}`],
    ]);
  });

  it('two live sockets to one URL are never linked; a reconnection replaces the one that closed', () => {
    const hook = new FakeHook('h');
    const [a, b, c, d] = [URL, URL, URL, URL].map((u) => hook.client('websocket', u));
    const items = [
      hook.item(a!, 'open'),
      hook.item(b!, 'open'),
      hook.item(b!, 'error'), // an error alone is not a loss
      hook.item(a!, 'close', { note: '1001' }),
      hook.item(c!, 'open'),
      hook.item(d!, 'open'),
    ];
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(links(decoder.allClients()), [
      [`websocket:c1@0:${URL}`, undefined],
      [`websocket:c2@0:${URL}`, undefined],
      [`websocket:c3@0:${URL}`, `websocket:c1@0:${URL}`],
      // c1 is replaced already, c2 and c3 are alive.
      [`websocket:c4@0:${URL}`, undefined],
    ]);
  });

  it('the same URL in another frame, or after a reload (a new hook), is a client of its own', () => {
    const clock = { t: 1_700_000_000_000 };
    const top = new FakeHook('top', clock);
    const frame = new FakeHook('frame', clock, 'http://app.test', 'http://app.test/inner.html');
    const reloaded = new FakeHook('top2', clock);
    const a = top.client('websocket', URL);
    const f = frame.client('websocket', URL);
    const r = reloaded.client('websocket', URL);
    const items = [top.item(a, 'open'), top.item(a, 'close', { note: '1001' }), frame.item(f, 'open'), reloaded.item(r, 'open')];
    const { decoder } = decodeAll(
      [
        { hook: top, frameId: 0 },
        { hook: frame, frameId: 3 },
        { hook: reloaded, frameId: 0 },
      ],
      items,
    );
    assert.deepEqual(links(decoder.allClients()), [
      [`websocket:c1@0:${URL}`, undefined],
      [`websocket:c1@3:${URL}`, undefined],
      // The reloaded page numbers its first client c1 too: still a client of its own, not the old page's.
      [`websocket:top2/c1@0:${URL}`, undefined],
    ]);
  });

  it('direct hook: a re-attach under the same label replaces a detached transport, never an attached one', () => {
    const hook = new FakeHook('h');
    const d1 = hook.client('direct', 'runtime');
    const d2 = hook.client('direct', 'runtime');
    const d3 = hook.client('direct', 'runtime');
    const other = hook.client('direct', 'other');
    const items = [
      hook.item(d1, 'open'),
      hook.json(d1, 'out', REG, { method: 'register' }),
      hook.item(d1, 'close', { note: 'detached' }),
      hook.item(other, 'open'),
      hook.item(d2, 'open'),
      hook.json(d2, 'out', REG, { method: 'register' }),
      // Attached beside d2, which was never detached.
      hook.item(d3, 'open'),
    ];
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(links(decoder.allClients()), [
      ['direct:h/c1', undefined],
      ['direct:h/c4', undefined],
      ['direct:h/c2', 'direct:h/c1'],
      ['direct:h/c3', undefined],
    ]);
  });

  it('postMessage pairings keep one key across a reconnection of their frames', () => {
    const hook = new FakeHook('h');
    const key = 'postmessage:top<->top/0';
    const p1 = hook.client('postmessage', 'http://app.test', key);
    const p2 = hook.client('postmessage', 'http://app.test', key);
    const items = [
      hook.json(p1, 'out', { type: 'surface:register', payload: REG }, { from: 'top/0', to: 'top' }),
      hook.json(p2, 'out', { type: 'surface:register', payload: REG }, { from: 'top/0', to: 'top' }),
    ];
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(links(decoder.allClients()), [[key, undefined]]);
    assert.ok(events.every((e) => e.client === key));
  });

  it('remembers a bounded number of identities, the least recently used forgotten', () => {
    const hook = new FakeHook('h');
    const items: CapturedItem[] = [];
    const n = 300;
    for (let i = 0; i < n; i++) {
      const c = hook.client('websocket', `${URL}/${i}`);
      items.push(hook.item(c, 'open'), hook.item(c, 'close'));
    }
    const first = hook.client('websocket', `${URL}/0`);
    const last = hook.client('websocket', `${URL}/${n - 1}`);
    items.push(hook.item(first, 'open'), hook.item(last, 'open'));
    const { decoder } = decodeAll([{ hook, frameId: 0 }], items);
    const byKey = new Map(decoder.allClients().map((c) => [c.key, c.replaces]));
    assert.equal(byKey.get(`websocket:${first.id}@0:${URL}/0`), undefined, 'forgotten');
    assert.equal(byKey.get(`websocket:${last.id}@0:${URL}/${n - 1}`), `websocket:c${n}@0:${URL}/${n - 1}`);
    const inner = decoder as unknown as { lineages: Map<string, unknown[]>; generations: Map<string, unknown> };
    assert.ok(inner.lineages.size <= 256 && inner.generations.size <= 256 * 8, `${inner.lineages.size} identities, ${inner.generations.size} clients`);
  });
});

// ---------------------------------------------------------------------------

/** One tab's capture: a plain WebSocket reconnection, a Socket.IO one (server DISCONNECT), a direct re-attach. */
function reconnections(hookId = 'h'): { hook: FakeHook; items: CapturedItem[] } {
  const hook = new FakeHook(hookId, undefined, 'http://app.test', 'http://app.test/');
  const json = (c: CapturedClient, dir: 'in' | 'out', type: string, payload: unknown) => hook.json(c, dir, { type, payload });
  const ws1 = hook.client('websocket', 'ws://app.test/agent');
  const ws2 = hook.client('websocket', 'ws://app.test/agent');
  const s1 = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
  const s2 = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
  const d1 = hook.client('direct', 'runtime');
  const d2 = hook.client('direct', 'runtime');
  const hs = (sid: string) => `0${JSON.stringify({ sid, upgrades: [], pingInterval: 25000, pingTimeout: 20000, maxPayload: 1e6 })}`;
  const reg = encodeSocketIOEvent({ namespace: '/oui', name: 'surface:register', args: [REG] });
  const items = [
    hook.item(ws1, 'open'),
    json(ws1, 'out', 'surface:register', REG),
    hook.item(ws1, 'close', { note: '1006' }),
    hook.item(ws2, 'open'),
    json(ws2, 'out', 'surface:register', REG),
    hook.item(s1, 'open'),
    hook.frame(s1, 'in', hs('S1')),
    hook.frame(s1, 'out', '40/oui,'),
    hook.frame(s1, 'in', '40/oui,{"sid":"n1"}'),
    hook.frame(s1, 'out', reg),
    hook.frame(s1, 'in', '41/oui,'),
    hook.item(s1, 'close', { note: '1005' }),
    hook.item(s2, 'open'),
    hook.frame(s2, 'in', hs('S2')),
    hook.frame(s2, 'out', '40/oui,'),
    hook.frame(s2, 'in', '40/oui,{"sid":"n2"}'),
    hook.frame(s2, 'out', reg),
    hook.item(d1, 'open'),
    hook.json(d1, 'out', REG, { method: 'register' }),
    hook.item(d1, 'close', { note: 'detached' }),
    hook.item(d2, 'open'),
    hook.json(d2, 'out', REG, { method: 'register' }),
  ];
  return { hook, items };
}

/** Links as `label → label of what it replaces`, which survive a change of keys (a HAR is decoded again). */
function linkedLabels(clients: WireClient[]): string[] {
  const byKey = new Map(clients.map((c) => [c.key, c]));
  return clients
    .filter((c) => c.replaces !== undefined)
    .map((c) => `${c.kind} ${c.label} → ${byKey.get(c.replaces!)?.label ?? `missing ${c.replaces}`}`)
    .sort();
}

async function* chunks(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
}

describe('the link in files', () => {
  const recorded = () => {
    const { hook, items } = reconnections();
    const r = new Recorder(Number.MAX_SAFE_INTEGER);
    r.accept(0, hook.message(items, [...hook.clients.values()]));
    return r;
  };
  const EXPECTED = [
    'direct runtime → runtime',
    'socket.io //app.test/socket.io/ /oui → //app.test/socket.io/ /oui',
    'websocket ws://app.test/agent → ws://app.test/agent',
  ];

  it('the recorder keeps what the decoder linked', () => {
    assert.deepEqual(linkedLabels([...recorded().clients.values()]), EXPECTED);
  });

  it('a session file keeps it, and drops one that names no client of the file', async () => {
    const r = recorded();
    const text = JSON.stringify(exportSession(r.clients.values(), r.events));
    const back = parseSessionFile(text);
    assert.ok(back.ok);
    assert.deepEqual(links(back.file.clients), links(r.clients.values()));
    assert.deepEqual(linkedLabels((await lintStream(chunks(text))).clients), EXPECTED, 'the linter reads it too');

    const data = JSON.parse(text) as { clients: Array<Record<string, unknown>> };
    data.clients[0]!.replaces = 'nobody';
    data.clients[1]!.replaces = 42;
    data.clients[2]!.replaces = data.clients[2]!.key;
    const edited = parseSessionFile(JSON.stringify(data));
    assert.ok(edited.ok);
    assert.equal(edited.skipped, 0);
    for (const i of [0, 1, 2]) assert.equal(edited.file.clients[i]!.replaces, undefined, `client ${i}`);
  });

  it('a HAR of ours keeps it: in _ouiClient for the direct hook, decoded again from frames and lifecycles for the rest', async () => {
    const r = recorded();
    const har = exportHar(r.clients.values(), r.events);
    const direct = har.log.entries.filter((e) => (e._ouiClient as WireClient | undefined)?.kind === 'direct').map((e) => e._ouiClient as WireClient);
    assert.deepEqual(links(direct), [
      ['direct:h/c5', undefined],
      ['direct:h/c6', 'direct:h/c5'],
    ]);
    const report = await lintStream(chunks(JSON.stringify(har)));
    assert.deepEqual(linkedLabels(report.clients), EXPECTED);
  });

  it("Chrome's own HAR (no custom fields) links from what its frames show", async () => {
    const { hook, items } = reconnections();
    // Chrome has no direct hook, and records no WebSocket close: the plain WebSocket's loss is not in its HAR.
    const clients = [...hook.clients.values()].filter((c) => c.kind !== 'direct');
    const report = await lintStream(chunks(chromeHar({ clients, items: items.filter((i) => clients.some((c) => c.id === i.client)) })));
    assert.equal(report.kind, 'har');
    assert.deepEqual(linkedLabels(report.clients), ['socket.io //app.test/socket.io/ /oui → //app.test/socket.io/ /oui']);
  });

  it('the Playwright snapshot renames what a reconnection names with the client it names', () => {
    // Batches go straight to `accept`, as the context's binding hands them over: no browser, no init script.
    const context = { exposeBinding: async () => {}, addInitScript: async () => {}, pages: () => [] } as unknown as BrowserContext;
    const capture = new (OuiCapture as unknown as new (context: BrowserContext) => OuiCapture)(context);
    // Two tabs with the same traffic: the second tab's keys are made unique, and so what its reconnections name.
    for (const page of [{}, {}] as unknown as Page[]) {
      const { hook, items } = reconnections();
      capture.accept(page, null, JSON.stringify(hook.message(items, [...hook.clients.values()])));
    }
    const snap = capture.snapshot();
    capture.close();
    const keys = new Set(snap.clients.map((c) => c.key));
    const linked = snap.clients.filter((c) => c.replaces !== undefined);
    assert.equal(linked.length, 6);
    for (const c of linked) {
      assert.ok(keys.has(c.replaces!), `${c.key} names ${c.replaces}`);
      assert.equal(c.key.endsWith('#page2'), c.replaces!.endsWith('#page2'), `${c.key} → ${c.replaces}: same page`);
    }
    assert.equal(linked.filter((c) => c.key.endsWith('#page2')).length, 3);
  });
});

describe('§7.6.1 judged across a real reconnection', () => {
  const SURFACE = {
    id: 'cart',
    name: 'Cart',
    description: 'The cart',
    actions: [{ id: 'view_cart', description: 'Show it', effect: 'view', input: { type: 'object', properties: {} } }],
  };

  /**
   * A real server and socket.io-client: the app registers on its first
   * connection (and on the second too when `reregister`), the server drops the
   * connection, the app connects again, and the runtime sends a request for
   * the cart on the new session, which the app answers.
   */
  async function reconnectAndAsk(reregister: boolean): Promise<{ findings: Array<{ rule: string; party: string; section: string }>; statuses: string[] }> {
    const capture = await startSocketIOCapture();
    const sockets: ServerSocket[] = [];
    let registrations = 0;
    capture.io.of('/oui').on('connection', (s) => {
      sockets.push(s);
      s.on('surface:register', () => registrations++);
    });
    const manager = new Manager(capture.url, { transports: ['websocket'], reconnection: false, timeout: 5000 });
    const c = manager.socket('/oui');
    let connects = 0;
    c.on('connect', () => {
      connects++;
      if (connects === 1 || reregister) c.emit('surface:register', { surface: SURFACE, timestamp: Date.now() });
    });
    c.on('action:request', (req: { requestId: string }, receipt?: (a: unknown) => void) => {
      receipt?.({ ok: true });
      c.emit('action:result', { requestId: req.requestId, success: true, data: {}, timestamp: Date.now(), surfacesHash: surfacesHash([SURFACE]), surfaces: [SURFACE] });
    });
    let answered = false;
    try {
      await until(() => registrations === 1, 'first registration');
      const gone = once<[string]>(c, 'disconnect');
      sockets[0]!.disconnect(true);
      await gone;
      await until(() => capture.wsClosed.length === 1, 'the WebSocket closes');
      c.connect();
      await until(() => sockets.length === 2 && (!reregister || registrations === 2), 'the second connection');
      sockets[1]!.on('action:result', () => (answered = true));
      sockets[1]!.emit('action:request', { requestId: '6f1c2a4e-9b7d-4c3e-8a2f-1d5e7b9c0a3f', surfaceId: 'cart', actionId: 'view_cart', params: {}, timestamp: Date.now() });
      await until(() => answered, 'the answer');
    } finally {
      c.disconnect();
      manager.engine?.close();
      await capture.close();
    }
    const { hook, items } = itemsFromRecording(capture);
    const run = runCapture([{ frameId: 0, message: hook.message(items) }]);
    const statuses = [...run.model.clients.values()].flatMap((s) => [...s.requests.values()].map((r) => r.status));
    return { findings: run.findings.map((f) => ({ rule: f.rule, party: f.party, section: f.section })), statuses };
  }

  it('an app that does not register again and runs a request on the lost surface: not-reregistered (client) and the runtime\'s request after the loss', async () => {
    const { findings, statuses } = await reconnectAndAsk(false);
    assert.deepEqual(statuses, ['succeeded']);
    assert.deepEqual(
      findings.map((f) => `${f.rule} ${f.section} ${f.party}`).sort(),
      ['not-reregistered §7.6.1 client', 'request-after-transport-loss §7.6.1 runtime'],
    );
  });

  it('an app that registers again on reconnecting: nothing', async () => {
    const { findings, statuses } = await reconnectAndAsk(true);
    assert.deepEqual(statuses, ['succeeded']);
    assert.deepEqual(findings, []);
  });
});
