/**
 * WireDecoder: raw captured items in, wire events out. Plain JSON WebSocket,
 * real Socket.IO traffic (recorded by a proxy, turned into items exactly as
 * the page hook captures them) across the polling → WebSocket upgrade,
 * postMessage pairings seen from both frames, direct-hook calls, and garbage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DIRECT_METHOD, eventId } from '../../src/capture/contract.ts';
import { pageJson, pageObject } from '../support/page-data.ts';
import { Manager, type Socket as ClientSocket } from 'socket.io-client';
import type { Socket as ServerSocket } from 'socket.io';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { encodeSocketIOAck, encodeSocketIOEvent } from '../../src/protocol/index.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { whyNotInjectable } from '../../src/session/wire/injection.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';
import { startSocketIOCapture, type RecordedFrame, type SocketIOCapture } from '../support/socketio-capture.ts';
import { once, until } from '../support/wait.ts';

const REG = { surface: { id: 'cart', name: 'Cart', description: 'The cart', actions: [] }, timestamp: 1 };
const REQ = { requestId: 'r-1', surfaceId: 'cart', actionId: 'add', params: { sku: 'a', qty: 2 }, timestamp: 2 };
const RES = { requestId: 'r-1', success: true, data: { count: 2 }, timestamp: 3 };
const OBS = { surfaceId: 'cart', observationId: 'total', value: 42, timestamp: 4 };

/** Feeds items to a fresh decoder, announcing each hook's clients first (as the recorder does). */
function decodeAll(hooks: Array<{ hook: FakeHook; frameId: number }>, items: CapturedItem[]): { decoder: WireDecoder; events: WireEvent[] } {
  const decoder = new WireDecoder();
  for (const { hook, frameId } of hooks) for (const c of hook.clients.values()) decoder.addClient(c, hook.hook, frameId);
  const events: WireEvent[] = [];
  for (const it of items) events.push(...decoder.push(it));
  return { decoder, events };
}

const client = (decoder: WireDecoder, key: string): WireClient => {
  const c = decoder.allClients().find((x) => x.key === key);
  assert.ok(c, `client ${key} among ${decoder.allClients().map((x) => x.key).join(', ')}`);
  return c;
};

// ---------------------------------------------------------------------------

describe('plain JSON WebSocket', () => {
  const hook = new FakeHook('h1');
  const ws = hook.client('websocket', 'wss://app.test/agent');
  const items = [
    hook.item(ws, 'open'),
    hook.json(ws, 'out', { type: 'surface:register', payload: REG }),
    hook.json(ws, 'in', { type: 'action:request', payload: REQ }),
    hook.json(ws, 'out', { type: 'x-approval:granted', payload: { a: 1 } }),
    hook.json(ws, 'in', { type: 'chat', payload: 'hi' }),
    hook.json(ws, 'in', { hello: 1 }),
    hook.frame(ws, 'in', 'pong'),
    hook.frame(ws, 'out', '{"type":"action:result","payload":{"requestId":'),
    hook.item(ws, 'frame', { dir: 'out', payload: { omitted: true, head: '{"type":"observation:update","payload":{"v' }, size: 3_000_000 }),
    hook.item(ws, 'frame', { dir: 'in', payload: { base64: 'AAEC' } }),
    hook.item(ws, 'close', { note: '1000 bye' }),
  ];
  const { decoder, events } = decodeAll([{ hook, frameId: 2 }], items);
  const key = decoder.allClients()[0]!.key;

  it('gives one event per item, under one client, with stable ids', () => {
    assert.equal(decoder.allClients().length, 1);
    assert.equal(events.length, items.length);
    assert.ok(events.every((e) => e.client === key), 'all under one client');
    assert.deepEqual(
      events.map((e) => e.id),
      items.map((i) => `h1/c1/${i.seq}`),
    );
    assert.ok(events.every((e) => e.via === undefined), 'via is for Socket.IO only');
  });

  it('decodes OUI events with their payload and direction', () => {
    assert.deepEqual(
      events.slice(1, 4).map((e) => [e.kind, e.type, e.dir, e.payload]),
      [
        ['event', 'surface:register', 'out', REG],
        ['event', 'action:request', 'in', REQ],
        ['event', 'x-approval:granted', 'out', { a: 1 }],
      ],
    );
    assert.equal(events[1]!.raw, JSON.stringify({ type: 'surface:register', payload: REG }));
  });

  it('keeps non-OUI frames as other and OUI-looking invalid JSON as malformed', () => {
    assert.deepEqual(
      events.slice(4, 7).map((e) => [e.kind, e.type]),
      [
        ['other', undefined],
        ['other', undefined],
        ['other', undefined],
      ],
    );
    const bad = events[7]!;
    assert.equal(bad.kind, 'malformed');
    assert.equal(bad.note, 'invalid JSON');
    assert.equal(bad.raw, '{"type":"action:result","payload":{"requestId":');
  });

  it('omits an over-cap payload but keeps its size and head', () => {
    const big = events[8]!;
    assert.equal(big.kind, 'other');
    assert.equal(big.size, 3_000_000);
    assert.equal(big.payload, undefined);
    // No `ascii` mark: text's bytes are at least its UTF-16 units.
    assert.equal(big.note, 'frame over the capture cap: at least 2.9 MB, head: {"type":"observation:update","payload":{"v…');
    assert.equal(big.raw, '{"type":"observation:update","payload":{"v');
    assert.equal(events[9]!.note, 'binary frame');
  });

  it('reports lifecycle and sets the client as injectable through its socket', () => {
    assert.deepEqual([events[0]!.kind, events[0]!.type], ['lifecycle', 'open']);
    assert.deepEqual([events[10]!.kind, events[10]!.type, events[10]!.note], ['lifecycle', 'close', '1000 bye']);
    assert.deepEqual(client(decoder, key).inject, { via: 'websocket', frameId: 2, hook: 'h1', client: 'c1' });
    assert.equal(client(decoder, key).frameId, 2);
  });
});

// ---------------------------------------------------------------------------
// Real Socket.IO traffic

/** Turns recorded frames into the items a page hook captures (see content/taps/polling.ts, websocket.ts). */
function itemsFromRecording(capture: SocketIOCapture, frames: RecordedFrame[]): { hook: FakeHook; items: CapturedItem[]; ws: Map<number, CapturedClient> } {
  const hook = new FakeHook('H', undefined, capture.url, `${capture.url}/`);
  // One polling client per endpoint; the request URL goes on each item.
  const polling = hook.client('polling', `${capture.url}/socket.io/`);
  const ws = new Map<number, CapturedClient>();
  const items: CapturedItem[] = [];
  for (const f of frames) {
    if (f.transport === 'polling') {
      const url = `${capture.url}${f.url}`;
      assert.ok('text' in f.payload, 'polling bodies are text');
      items.push(hook.frame(polling, f.dir, f.payload.text, { url }));
      // The server's answer to a POST of packets, which the XHR tap records too.
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
  return { hook, items, ws };
}



interface Expect {
  ns: string;
  dir: 'in' | 'out';
  kind: 'event' | 'other' | 'ack';
  type?: string;
  payload: unknown;
  /** For acks: the index (in the expected list) of the event acknowledged. */
  ackOf?: number;
  wantsAck?: boolean;
}

/** The comparable part of decoded events and acks (lifecycle left out). */
function traffic(events: WireEvent[], keyOfNs: Map<string, string>): Expect[] {
  const nsOf = new Map([...keyOfNs].map(([ns, key]) => [key, ns]));
  const msgs = events.filter((e) => e.kind === 'event' || e.kind === 'other' || e.kind === 'ack');
  const index = new Map(msgs.map((e, i) => [e.id, i]));
  return msgs.map((e) => {
    const x: Expect = { ns: nsOf.get(e.client) ?? `?${e.client}`, dir: e.dir, kind: e.kind as Expect['kind'], payload: e.payload };
    if (e.type !== undefined) x.type = e.type;
    if (e.ackOf !== undefined) x.ackOf = index.get(e.ackOf) ?? -1;
    if (e.wantsAck) x.wantsAck = true;
    return x;
  });
}

describe('Socket.IO, real traffic', () => {
  it('one logical client per namespace across the polling → WebSocket upgrade, with acks paired', async () => {
    const capture = await startSocketIOCapture();
    const manager = new Manager(capture.url, { reconnection: false, timeout: 5000 });
    const c: ClientSocket = manager.socket('/oui');
    const r: ClientSocket = manager.socket('/');
    try {
      const srv: { oui?: ServerSocket; root?: ServerSocket } = {};
      const gotOui: string[] = [];
      const gotRoot: string[] = [];
      const gotClient: string[] = [];
      capture.io.of('/oui').on('connection', (s) => {
        srv.oui = s;
        s.onAny((name: string) => gotOui.push(name));
        s.on('action:result', (_p: unknown, ack: (v: unknown) => void) => ack({ ok: true }));
      });
      capture.io.of('/').on('connection', (s) => {
        srv.root = s;
        s.onAny((name: string) => gotRoot.push(name));
      });
      c.on('action:request', (_p: unknown, receipt: (v: unknown) => void) => receipt({ received: true }));
      c.onAny((name: string) => gotClient.push(name));
      r.onAny((name: string) => gotClient.push(name));

      // Emitted before connecting: buffered, then sent as soon as the namespace is joined.
      c.emit('surface:register', REG);
      await Promise.all([once(c, 'connect'), once(r, 'connect')]);
      await until(() => gotOui.includes('surface:register'), 'surface:register');
      if (manager.engine.transport.name !== 'websocket') await once(manager.engine, 'upgrade');

      // The client's result, acknowledged by the runtime.
      assert.deepEqual(await c.timeout(5000).emitWithAck('action:result', RES), { ok: true });
      // The runtime's request, with a receipt from the client.
      assert.deepEqual(await srv.oui!.timeout(5000).emitWithAck('action:request', REQ), { received: true });
      c.emit('observation:update', OBS);
      await until(() => gotOui.includes('observation:update'), 'observation:update');
      r.emit('chat', { text: 'not OUI' });
      await until(() => gotRoot.includes('chat'), 'chat');
      srv.root!.emit('x-note', { n: 1 });
      await until(() => gotClient.includes('x-note'), 'x-note');
      c.emit('x-blob', Buffer.from([1, 2, 3]));
      await until(() => gotOui.includes('x-blob'), 'x-blob');
    } finally {
      c.disconnect();
      r.disconnect();
      manager.engine?.close();
      await capture.close();
    }

    const { hook, items, ws } = itemsFromRecording(capture, capture.frames);
    assert.ok(ws.size >= 1, 'the client upgraded to a WebSocket');
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);

    // One Engine.IO session → one logical client per namespace, nothing else.
    const clients = decoder.allClients();
    assert.deepEqual(clients.map((x) => [x.kind, x.namespace]).sort(), [
      ['socket.io', '/'],
      ['socket.io', '/oui'],
    ]);
    const sids = new Set(capture.frames.map((f) => f.sid));
    assert.equal(sids.size, 1);
    const endpoint = capture.url.replace(/^http:/, '') + '/socket.io/';
    const keyOfNs = new Map(clients.map((x) => [x.namespace!, x.key]));
    assert.equal(keyOfNs.get('/oui'), `socket.io:${endpoint}#${[...sids][0]}/oui`);
    assert.ok(events.every((e) => keyOfNs.get('/oui') === e.client || keyOfNs.get('/') === e.client), 'every event on a namespace client');
    assert.deepEqual(events.filter((e) => e.kind === 'malformed'), []);

    // What was emitted, in wire order, decoded: types, payloads, directions and ack pairing.
    assert.deepEqual(traffic(events, keyOfNs), [
      { ns: '/oui', dir: 'out', kind: 'event', type: 'surface:register', payload: REG },
      { ns: '/oui', dir: 'out', kind: 'event', type: 'action:result', payload: RES, wantsAck: true },
      { ns: '/oui', dir: 'in', kind: 'ack', payload: { ok: true }, ackOf: 1 },
      { ns: '/oui', dir: 'in', kind: 'event', type: 'action:request', payload: REQ, wantsAck: true },
      { ns: '/oui', dir: 'out', kind: 'ack', payload: { received: true }, ackOf: 3 },
      { ns: '/oui', dir: 'out', kind: 'event', type: 'observation:update', payload: OBS },
      { ns: '/', dir: 'out', kind: 'other', type: 'chat', payload: { text: 'not OUI' } },
      { ns: '/', dir: 'in', kind: 'event', type: 'x-note', payload: { n: 1 } },
      { ns: '/oui', dir: 'out', kind: 'event', type: 'x-blob', payload: { binary: 'AQID', size: 3 } },
    ]);

    // Namespace joins are lifecycle events; the client's go out on long-polling, as soon as the session opens.
    const joins = events.filter((e) => e.type === 'socket.io connect');
    assert.deepEqual(joins.map((e) => [e.client === keyOfNs.get('/oui') ? '/oui' : '/', e.dir]).sort(), [
      ['/', 'in'],
      ['/', 'out'],
      ['/oui', 'in'],
      ['/oui', 'out'],
    ]);
    assert.ok(joins.filter((e) => e.dir === 'out').every((e) => e.via === 'polling'), 'client CONNECTs via polling');

    // `via` says which Engine.IO transport carried each event, and both did.
    const kindOf = new Map([...hook.clients.values()].map((x) => [x.id, x.kind]));
    const itemOf = new Map(items.map((i) => [`${i.hook}/${i.client}/${i.seq}`, i]));
    const fromFrames = events.filter((e) => itemOf.get(e.id.split('.')[0]!)?.kind === 'frame');
    assert.ok(fromFrames.length > 10, 'enough frame events');
    for (const e of fromFrames) assert.equal(e.via, kindOf.get(e.id.split('/')[1]!), `via of ${e.id} (${e.type ?? e.kind})`);
    assert.deepEqual(new Set(fromFrames.map((e) => e.via)), new Set(['polling', 'websocket']));
    // Everything emitted after the upgrade went over the WebSocket.
    for (const e of events.filter((x) => x.type === 'action:request' || x.type === 'observation:update' || x.type === 'x-note')) assert.equal(e.via, 'websocket');

    // Injection rides the WebSocket of the session.
    const wsClient = [...ws.values()].at(-1)!;
    assert.deepEqual(client(decoder, keyOfNs.get('/oui')!).inject, { via: 'websocket', frameId: 0, hook: 'H', client: wsClient.id });
  });

  it('polling only: events via polling, no injection target, and the Engine.IO close packet', async () => {
    const capture = await startSocketIOCapture();
    const manager = new Manager(capture.url, { transports: ['polling'], reconnection: false, timeout: 5000 });
    const c: ClientSocket = manager.socket('/oui');
    try {
      capture.io.of('/oui').on('connection', (s) => {
        s.on('action:result', (_p: unknown, ack: (v: unknown) => void) => ack({ ok: false, reason: 'stale' }));
      });
      await once(c, 'connect');
      assert.deepEqual(await c.timeout(5000).emitWithAck('action:result', RES), { ok: false, reason: 'stale' });
      c.disconnect(); // the last socket: the manager closes the Engine.IO session too
      await until(() => capture.frames.some((f) => f.dir === 'out' && 'text' in f.payload && f.payload.text.split('\x1e').includes('1')), 'Engine.IO close');
    } finally {
      c.disconnect();
      manager.engine?.close();
      await capture.close();
    }

    const { hook, items } = itemsFromRecording(capture, capture.frames);
    assert.ok(items.some((i) => i.payload && 'text' in i.payload && i.payload.text === 'ok'), 'POST answers are among the items');
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    assert.equal(decoder.allClients().length, 1);
    const sio = decoder.allClients()[0]!;
    assert.equal(sio.namespace, '/oui');
    assert.ok(events.every((e) => e.via === 'polling'), 'all via polling');
    assert.deepEqual(events.filter((e) => e.kind === 'malformed' || e.kind === 'other'), [], 'the bare "ok" answers are not frames');

    const result = events.find((e) => e.type === 'action:result')!;
    const ack = events.find((e) => e.kind === 'ack')!;
    assert.equal(ack.ackOf, result.id);
    assert.deepEqual(ack.payload, { ok: false, reason: 'stale' });

    const close = events.filter((e) => e.kind === 'lifecycle' && e.type === 'close');
    assert.equal(close.length, 1);
    assert.equal(close[0]!.note, 'Engine.IO close packet');
    assert.equal(close[0]!.dir, 'out');
    assert.ok(events.some((e) => e.type === 'socket.io disconnect' && e.dir === 'out'), 'the client DISCONNECT');

    assert.equal(sio.inject, undefined, 'no injection while on long-polling');
    assert.match(whyNotInjectable(sio) ?? '', /WebSocket/);
  });
});

describe('Socket.IO, hand-built frames', () => {
  const wsUrl = 'wss://app.test/socket.io/?EIO=4&transport=websocket&sid=S1';

  it('gives every event of one captured item its own id, the n-th with the suffix eventId gives it', () => {
    const hook = new FakeHook('hp');
    const url = 'http://app.test/socket.io/?EIO=4&transport=polling&sid=P1';
    const poll = hook.client('polling', url);
    // One polling body: an event, then two namespaces' connects, then an ack: four events of one item.
    const body = ['4' + encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [REQ], ackId: 3 }), '40/oui,{"sid":"a"}', '40/other,{"sid":"b"}', '4' + encodeSocketIOAck({ namespace: '/oui', ackId: 7, args: [] })].join('\x1e');
    const item = hook.frame(poll, 'in', body, { url });
    const { events } = decodeAll([{ hook, frameId: 0 }], [item]);
    assert.deepEqual(
      events.map((e) => e.id),
      [0, 1, 2, 3].map((n) => eventId('hp', item.client, item.seq, n)),
    );
  });

  it('pairs acks per direction even when both sides use the same ack id', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', wsUrl);
    const items = [
      hook.frame(ws, 'out', '40/oui,'),
      hook.frame(ws, 'in', '40/oui,{"sid":"n1"}'),
      hook.frame(ws, 'out', encodeSocketIOEvent({ namespace: '/oui', name: 'action:result', args: [RES], ackId: 1 })),
      hook.frame(ws, 'in', encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [REQ], ackId: 1 })),
      hook.frame(ws, 'out', encodeSocketIOAck({ namespace: '/oui', ackId: 1, args: [{ received: true }] })),
      hook.frame(ws, 'in', encodeSocketIOAck({ namespace: '/oui', ackId: 1, args: [{ ok: true }] })),
      hook.frame(ws, 'in', encodeSocketIOAck({ namespace: '/oui', ackId: 9, args: [] })),
    ];
    const { events } = decodeAll([{ hook, frameId: 0 }], items);
    const [, , result, request, receipt, accepted, stray] = events;
    assert.equal(result!.wantsAck, true);
    assert.equal(request!.wantsAck, true);
    assert.deepEqual([receipt!.kind, receipt!.dir, receipt!.ackOf, receipt!.payload], ['ack', 'out', request!.id, { received: true }]);
    assert.deepEqual([accepted!.kind, accepted!.dir, accepted!.ackOf, accepted!.payload], ['ack', 'in', result!.id, { ok: true }]);
    assert.equal(stray!.ackOf, undefined);
    assert.match(stray!.note ?? '', /ack 9 for nothing seen/);
    // An ack pairs once: the same id again is for nothing.
    const { events: again } = decodeAll([{ hook, frameId: 0 }], [...items, hook.frame(ws, 'in', encodeSocketIOAck({ namespace: '/oui', ackId: 1, args: [] }))]);
    assert.equal(again.at(-1)!.ackOf, undefined);
  });

  it('learns the session from the handshake when the URL has no sid, and closes every namespace', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
    const items = [
      hook.frame(ws, 'in', '0{"sid":"S2","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}'),
      hook.frame(ws, 'out', '40'),
      hook.frame(ws, 'out', '40/oui,'),
      hook.frame(ws, 'in', '40{"sid":"a"}'),
      hook.frame(ws, 'in', '40/oui,{"sid":"b"}'),
      hook.frame(ws, 'out', encodeSocketIOEvent({ namespace: '/oui', name: 'surface:register', args: [REG] })),
      hook.frame(ws, 'in', '1'),
    ];
    const { decoder, events } = decodeAll([{ hook, frameId: 0 }], items);
    assert.deepEqual(decoder.allClients().map((x) => x.key).sort(), ['socket.io://app.test/socket.io/#S2/', 'socket.io://app.test/socket.io/#S2/oui']);
    const reg = events.find((e) => e.type === 'surface:register')!;
    assert.equal(reg.client, 'socket.io://app.test/socket.io/#S2/oui');
    assert.equal(reg.via, 'websocket');
    const closes = events.filter((e) => e.type === 'close');
    assert.equal(closes.length, 2, 'one close per namespace of the session');
    assert.equal(new Set(closes.map((e) => e.client)).size, 2);
    assert.equal(new Set(closes.map((e) => e.id)).size, 2, 'distinct ids for the events of one item');
    assert.ok(closes.every((e) => e.note === 'Engine.IO close packet' && e.dir === 'in'), 'close events noted, inbound');
  });

  it('a WebSocket-only Socket.IO connection is one logical client, its open included', () => {
    // transports: ['websocket']: no sid in the URL, and the hook records `open` before the handshake frame.
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
    const { decoder, events } = decodeAll(
      [{ hook, frameId: 0 }],
      [
        hook.item(ws, 'open'),
        hook.frame(ws, 'in', '0{"sid":"S3","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}'),
        hook.frame(ws, 'out', '40/oui,'),
        hook.frame(ws, 'in', '40/oui,{"sid":"b"}'),
        hook.frame(ws, 'out', encodeSocketIOEvent({ namespace: '/oui', name: 'surface:register', args: [REG] })),
        hook.item(ws, 'close', { note: '1005' }),
      ],
    );
    assert.equal(events.find((e) => e.type === 'surface:register')?.client, 'socket.io://app.test/socket.io/#S3/oui');
    assert.deepEqual(
      decoder.allClients().map((x) => `${x.kind} ${x.key}`),
      ['socket.io socket.io://app.test/socket.io/#S3/oui'],
      'no second, plain-WebSocket client for the same connection',
    );
  });

  it('reports an undecodable Socket.IO packet as malformed', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', wsUrl);
    const { events } = decodeAll([{ hook, frameId: 0 }], [hook.frame(ws, 'in', '42/oui,["action:request",{"requestId":')]);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.kind, 'malformed');
    assert.match(events[0]!.note ?? '', /invalid JSON/);
  });

  it('carries the injected and held flags through', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', wsUrl);
    const { events } = decodeAll(
      [{ hook, frameId: 0 }],
      [
        hook.frame(ws, 'in', encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [REQ], ackId: 900_000_001 }), { injected: true }),
        hook.frame(ws, 'out', encodeSocketIOAck({ namespace: '/oui', ackId: 900_000_001, args: [{ received: true }] }), { held: true }),
        hook.frame(ws, 'out', encodeSocketIOEvent({ namespace: '/oui', name: 'action:result', args: [RES] }), { held: true }),
      ],
    );
    assert.deepEqual(
      events.map((e) => [e.kind, e.injected, e.held]),
      [
        ['event', true, undefined],
        ['ack', undefined, true],
        ['event', undefined, true],
      ],
    );
    assert.equal(events[1]!.ackOf, events[0]!.id);
  });
});

// ---------------------------------------------------------------------------

describe('postMessage pairing', () => {
  const KEY = 'postmessage:top<->top/0';

  /** The host page (top) and an iframe client (top/0), each hook recording what its window receives. */
  function pairing() {
    const clock = { t: 1000 };
    const top = new FakeHook('hook-top', clock, 'http://host.test', 'http://host.test/');
    const frame = new FakeHook('hook-frame', clock, 'http://widget.test', 'http://widget.test/frame.html');
    const atTop = top.client('postmessage', 'http://widget.test', KEY);
    const atFrame = frame.client('postmessage', 'http://host.test', KEY);
    const fromFrame = (v: unknown, extra: Partial<CapturedItem> = {}) => top.json(atTop, 'in', v, { from: 'top/0', to: 'top', ...extra });
    const fromTop = (v: unknown, extra: Partial<CapturedItem> = {}) => frame.json(atFrame, 'in', v, { from: 'top', to: 'top/0', ...extra });
    const hooks = [
      { hook: top, frameId: 0 },
      { hook: frame, frameId: 4 },
    ];
    return { fromFrame, fromTop, hooks };
  }

  it('maps both frames to one client, with directions from which frame is the client', () => {
    const { fromFrame, fromTop, hooks } = pairing();
    const { decoder, events } = decodeAll(hooks, [
      fromFrame({ type: 'x-hello', payload: {} }), // untyped direction: not enough to learn the sides
      fromFrame({ type: 'surface:register', payload: REG }),
      fromTop({ type: 'action:request', payload: REQ }),
      fromFrame({ type: 'action:result', payload: RES }, { held: true }),
      fromTop({ type: 'x-ping', payload: 1 }),
      fromFrame({ type: 'x-pong', payload: 2 }),
    ]);
    assert.deepEqual(decoder.allClients().map((x) => x.key), [KEY]);
    assert.ok(events.every((e) => e.client === KEY), 'one pairing client');
    assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'ids stay unique across the two hooks');
    assert.deepEqual(
      events.map((e) => e.id.split('/')[0]),
      ['hook-top', 'hook-top', 'hook-frame', 'hook-top', 'hook-frame', 'hook-top'],
    );
    assert.deepEqual(
      events.slice(1).map((e) => [e.type, e.dir]),
      [
        ['surface:register', 'out'],
        ['action:request', 'in'],
        ['action:result', 'out'],
        ['x-ping', 'in'],
        ['x-pong', 'out'],
      ],
    );
    assert.equal(events[3]!.held, true);
    assert.deepEqual(events[2]!.payload, REQ);
    // Each frame's frameId is learnt from what its own hook captured: the client's frame (top/0) is 4, the host 0.
    assert.deepEqual(client(decoder, KEY).inject, { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', frameId: 4, peerFrameId: 0 });
  });

  it("an injection waits for the client's frame to be known, and learns it from the frame's own hook", () => {
    const { fromFrame, hooks } = pairing();
    const { decoder } = decodeAll(hooks, [fromFrame({ type: 'surface:register', payload: REG })]);
    // Only the host's hook has captured anything: which frameId is top/0 is not known yet.
    assert.deepEqual(client(decoder, KEY).inject, { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', peerFrameId: 0 });
    assert.match(whyNotInjectable(client(decoder, KEY)) ?? '', /client's frame/);
    // The frame's hook says where it is (its state message): now it is reachable, and only there.
    decoder.frameAt('top/0', 4);
    assert.deepEqual(client(decoder, KEY).inject, { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', frameId: 4, peerFrameId: 0 });
    assert.equal(whyNotInjectable(client(decoder, KEY)), null);
    decoder.frameAt('top/0', 'x' as unknown as number);
    assert.equal((client(decoder, KEY).inject as { frameId?: number }).frameId, 4, 'a frameId that is not one is ignored');
  });

  it('learns the client side from a message towards the client too', () => {
    const { fromFrame, fromTop, hooks } = pairing();
    const { decoder, events } = decodeAll(hooks, [fromTop({ type: 'observation:request', payload: { surfaceId: 'cart' } }), fromFrame({ type: 'x-any', payload: null })]);
    assert.deepEqual(
      events.map((e) => e.dir),
      ['in', 'out'],
    );
    assert.deepEqual(client(decoder, KEY).inject, { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', frameId: 4, peerFrameId: 0 });
  });

  it('is not injectable before a typed message shows which frame is the client', () => {
    const { fromFrame, hooks } = pairing();
    const { decoder, events } = decodeAll(hooks, [fromFrame({ type: 'x-hello', payload: {} }), fromFrame('not json', { payload: { text: '{bad' } })]);
    assert.equal(client(decoder, KEY).inject, undefined);
    assert.match(whyNotInjectable(client(decoder, KEY)) ?? '', /which frame/);
    assert.equal(events[1]!.kind, 'malformed');
  });
});

// ---------------------------------------------------------------------------

describe('direct hook calls', () => {
  const hook = new FakeHook('hd');
  const d = hook.client('direct', 'my runtime');
  const open = hook.item(d, 'open');
  const request = hook.json(d, 'in', REQ, { method: DIRECT_METHOD.request });
  const receipt = hook.json(d, 'out', { received: true }, { method: DIRECT_METHOD.receipt, re: request.seq });
  const result = hook.json(d, 'out', RES, { method: DIRECT_METHOD.result, held: true });
  const ack = hook.json(d, 'in', { ok: true }, { method: DIRECT_METHOD.resultAck, re: result.seq, injected: true });
  const register = hook.json(d, 'out', REG.surface, { method: 'register' });
  const registerWhole = hook.json(d, 'out', REG, { method: 'registerSurface' });
  const deregister = hook.json(d, 'out', 'cart', { method: 'deregister' });
  const unregister = hook.json(d, 'out', { surfaceId: 'cart', timestamp: 9 }, { method: 'unregisterSurface' });
  const push = hook.json(d, 'out', OBS, { method: 'pushObservation' });
  const typed = hook.json(d, 'out', { type: 'x-approval:granted', payload: { id: 1 } }, { method: 'send' });
  const other = hook.json(d, 'out', { foo: 1 }, { method: 'frobnicate' });
  const close = hook.item(d, 'close', { note: 'detached' });
  const items = [open, request, receipt, result, ack, register, registerWhole, deregister, unregister, push, typed, other, close];
  const { decoder, events } = decodeAll([{ hook, frameId: 6 }], items);
  const byItem = (it: CapturedItem) => events.find((e) => e.id === eventId('hd', it.client, it.seq))!;

  it('decodes each call as the OUI event it stands for', () => {
    assert.equal(events.length, items.length);
    assert.deepEqual([byItem(request).kind, byItem(request).type, byItem(request).dir, byItem(request).payload, byItem(request).wantsAck], ['event', 'action:request', 'in', REQ, true]);
    assert.deepEqual([byItem(result).type, byItem(result).dir, byItem(result).payload], ['action:result', 'out', RES]);
    assert.deepEqual([byItem(register).type, byItem(register).payload], ['surface:register', { surface: REG.surface, timestamp: Math.round(register.t) }]);
    assert.deepEqual([byItem(registerWhole).type, byItem(registerWhole).payload], ['surface:register', REG]);
    assert.deepEqual([byItem(deregister).type, byItem(deregister).payload], ['surface:deregister', { surfaceId: 'cart', timestamp: Math.round(deregister.t) }]);
    assert.deepEqual([byItem(unregister).type, byItem(unregister).payload], ['surface:deregister', { surfaceId: 'cart', timestamp: 9 }]);
    assert.deepEqual([byItem(push).type, byItem(push).payload, byItem(push).kind], ['observation:update', OBS, 'event']);
    assert.deepEqual([byItem(typed).type, byItem(typed).payload], ['x-approval:granted', { id: 1 }]);
    assert.deepEqual([byItem(other).kind, byItem(other).note], ['other', 'call frobnicate()']);
    assert.deepEqual([byItem(open).type, byItem(close).type], ['open', 'close']);
  });

  it('pairs receipts and acknowledgments through `re`', () => {
    assert.deepEqual([byItem(receipt).kind, byItem(receipt).dir, byItem(receipt).ackOf], ['ack', 'out', byItem(request).id]);
    assert.deepEqual([byItem(ack).kind, byItem(ack).dir, byItem(ack).ackOf, byItem(ack).payload], ['ack', 'in', byItem(result).id, { ok: true }]);
  });

  it("an app's own methods named like the hook's entries are calls, never acknowledgments", () => {
    const h = new FakeHook('ha');
    const c = h.client('direct', 'rt');
    const calls = ['ack', 'receipt', 'onAction', 'sendResult'].map((method) => h.json(c, 'out', { ok: true }, { method, re: 1 }));
    const { events: out } = decodeAll([{ hook: h, frameId: 0 }], calls);
    assert.deepEqual(
      out.map((e) => [e.kind, e.note, e.ackOf]),
      ['ack', 'receipt', 'onAction', 'sendResult'].map((m) => ['other', `call ${m}()`, undefined]),
    );
  });

  it("names the hook's own entries by the transport call they come from when their value was not kept", () => {
    const h = new FakeHook('hc');
    const c = h.client('direct', 'rt');
    const over = h.item(c, 'frame', { dir: 'out', method: DIRECT_METHOD.result, payload: { omitted: true, head: '{"requestId"', ascii: true }, size: 5_000_000 });
    const { events: out } = decodeAll([{ hook: h, frameId: 0 }], [over]);
    assert.match(out[0]!.note ?? '', /^sendResult\(\) over the capture cap/);
  });

  it('carries held and injected, and targets the hook client for injection', () => {
    assert.equal(byItem(result).held, true);
    assert.equal(byItem(ack).injected, true);
    assert.equal(byItem(request).held, undefined);
    const c = decoder.allClients();
    assert.equal(c.length, 1);
    assert.deepEqual(c[0]!.inject, { via: 'direct', frameId: 6, hook: 'hd', client: d.id });
    assert.equal(c[0]!.kind, 'direct');
    assert.equal(c[0]!.label, 'my runtime');
  });
});

// ---------------------------------------------------------------------------

describe('garbage', () => {
  it('ignores items of clients it was never told about', () => {
    const decoder = new WireDecoder();
    assert.deepEqual(decoder.push({ hook: 'x', client: 'c1', seq: 1, t: 0, kind: 'frame', dir: 'in', payload: { text: '{}' } }), []);
  });

  it('does not throw on an item whose payload is not an object (page-supplied)', () => {
    // The intake only checks hook/client/seq, so a page can hand over `payload: "text"`.
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'ws://app.test/');
    const decoder = new WireDecoder();
    decoder.addClient(ws, 'h', 0);
    const item = { ...hook.item(ws, 'frame', { dir: 'in' }), payload: 'just a string' } as unknown as CapturedItem;
    let out: WireEvent[] = [];
    assert.doesNotThrow(() => {
      out = decoder.push(item);
    });
    assert.equal(out.length, 1);
  });

  it('never throws on arbitrary items, for every kind of client (fast-check)', () => {
    const urls = ['ws://app.test/plain', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S', 'ws://app.test/socket.io/?EIO=4&transport=websocket', 'http://app.test/socket.io/'];
    const texts = fc.oneof(
      fc.string(),
      fc.constantFrom('0{"sid":"S"}', '40', '40/oui,', '42/oui,1["action:request",{}]', '43/oui,1[{}]', '451-["x",{"_placeholder":true,"num":0}]', '1', '6', 'ok', '{"type":"action:result"', '{"type":"surface:register","payload":1}'),
      pageJson().map((v) => JSON.stringify(v)),
    );
    const payload = fc.oneof(
      texts.map((text) => ({ text })),
      fc.base64String().map((base64) => ({ base64 })),
      fc.string().map((head) => ({ omitted: true as const, head })),
      fc.constant(undefined),
      pageObject(),
    );
    const item = fc.record(
      {
        client: fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6'),
        seq: fc.nat(),
        t: fc.oneof(fc.double(), fc.integer()),
        kind: fc.constantFrom('open', 'close', 'error', 'frame', 'weird'),
        dir: fc.constantFrom('in', 'out', undefined),
        method: fc.oneof(fc.constantFrom(...Object.values(DIRECT_METHOD), 'onAction', 'ack', 'register', 'deregister', 'push'), fc.string()),
        payload,
        size: fc.oneof(fc.nat(), fc.constant(undefined)),
        note: fc.oneof(fc.string(), fc.constant(undefined)),
        url: fc.oneof(fc.constantFrom(...urls.map((u) => u + '&x=1'), 'http://app.test/socket.io/?EIO=4&transport=polling&sid=S'), fc.string(), fc.constant(undefined)),
        from: fc.constantFrom('top', 'top/0', undefined),
        to: fc.constantFrom('top', 'top/0', undefined),
        re: fc.oneof(fc.nat(), fc.constant(undefined)),
        held: fc.boolean(),
        injected: fc.boolean(),
      },
      { requiredKeys: ['client', 'seq', 't', 'kind'] },
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (list) => {
        const hook = new FakeHook('g');
        hook.client('websocket', urls[0]!);
        hook.client('websocket', urls[1]!);
        hook.client('websocket', urls[2]!);
        hook.client('polling', urls[3]!);
        hook.client('postmessage', 'http://x.test', 'postmessage:top<->top/0');
        hook.client('direct', 'rt');
        const decoder = new WireDecoder();
        for (const c of hook.clients.values()) decoder.addClient(c, 'g', 0);
        for (const it of list) {
          const events = decoder.push({ ...it, hook: 'g' } as CapturedItem);
          for (const e of events) {
            assert.equal(typeof e.id, 'string');
            assert.ok(e.dir === 'in' || e.dir === 'out', 'dir in or out');
            assert.ok(['event', 'ack', 'lifecycle', 'other', 'malformed'].includes(e.kind));
            assert.equal(typeof e.client, 'string');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
