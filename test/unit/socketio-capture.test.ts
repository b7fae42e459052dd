/**
 * Decodes REAL socket.io 4 traffic, recorded by a proxy as a page hook would
 * see it, and checks the decoder recovers exactly what the test emitted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Manager, type Socket as ClientSocket } from 'socket.io-client';
import type { Socket as ServerSocket } from 'socket.io';
import { startSocketIOCapture, type RecordedFrame, type SocketIOCapture } from '../support/socketio-capture.ts';
import {
  SocketIODecoder,
  decodeEngineFrame,
  decodePollingPayload,
  looksLikeEngineIO,
  parseEngineHandshake,
  parseEngineUrl,
  readOUIFromSocketIO,
  type EnginePacket,
  type SocketIOPacket,
} from '../../src/protocol/index.ts';

type Transports = Array<'polling' | 'websocket'>;

interface Expected {
  type: SocketIOPacket['type'];
  namespace: string;
  name?: string;
  args?: unknown[];
  ackId?: number;
  /** For connect packets: only check that data.sid is a string (server side) or data is absent (client side). */
  sid?: boolean;
}

/** Buffers as the decoder renders attachments. */
function asDecoded(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { binary: v.toString('base64'), size: v.length };
  if (Array.isArray(v)) return v.map(asDecoded);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asDecoded(x)]));
  return v;
}

function once<T extends unknown[]>(emitter: { once(ev: string, fn: (...a: T) => void): unknown }, ev: string): Promise<T> {
  return new Promise((resolve) => emitter.once(ev, (...a: T) => resolve(a)));
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms);
    }),
  ]);
}

/** A payload of ~200 KB with varied content (ASCII, escapes, BMP and astral characters). */
function bigPayload(): { big: string; rows: Array<{ i: number; s: string }> } {
  const rows: Array<{ i: number; s: string }> = [];
  for (let i = 0; i < 2000; i++) rows.push({ i, s: `row ${i} "q" \\ é 日本 😀`.repeat(3) });
  return { big: 'abcdefghij'.repeat(10_000), rows };
}

const UNICODE = {
  text: 'héllo wörld 日本語 😀 𝄞 emoji‍👩‍💻 \u2028\u2029 "quotes" \\ back\\slash \u0000 nul \t tab',
  lone: 'a\ud800b\udc00c',
  astralKey: { '𝒳': '🚀' },
};

const REG = { surface: { id: 'surf-1', title: 'Café ☕ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', actions: [{ id: 'go', params: { n: 1 } }] } };
const REQ = { requestId: 'r-1', surfaceId: 'surf-1', actionId: 'go', params: { n: 42, s: 'x' } };
const RES = { requestId: 'r-1', ok: true, result: { value: [1, 2, 3] } };
const OBS_REQ = { surfaceId: 'surf-1', fields: ['a', 'b'] };

interface ScenarioResult {
  capture: SocketIOCapture;
  expectedOut: Expected[];
  expectedIn: Expected[];
}

async function runScenario(capture: SocketIOCapture, transports: Transports): Promise<Omit<ScenarioResult, 'capture'>> {
  const { io } = capture;
  const server: { oui?: ServerSocket; root?: ServerSocket } = {};
  const gotOui: Array<{ name: string; args: unknown[] }> = [];
  const gotRoot: Array<{ name: string; args: unknown[] }> = [];
  const ouiConnected = once<[ServerSocket]>(io.of('/oui'), 'connection');
  const rootConnected = once<[ServerSocket]>(io.of('/'), 'connection');
  io.of('/oui').on('connection', (s) => {
    server.oui = s;
    s.onAny((name: string, ...args: unknown[]) => {
      if (typeof args[args.length - 1] === 'function') args = args.slice(0, -1);
      gotOui.push({ name, args });
    });
    s.on('action:request', (_p: unknown, ack: (...a: unknown[]) => void) => ack(RES, 'second'));
    s.on('x-binary', (_a: unknown, _b: unknown, ack: (...a: unknown[]) => void) => ack(Buffer.from([0, 255, 1]), 'done'));
  });
  io.of('/').on('connection', (s) => {
    server.root = s;
    s.onAny((name: string, ...args: unknown[]) => {
      if (typeof args[args.length - 1] === 'function') args = args.slice(0, -1);
      gotRoot.push({ name, args });
    });
    s.on('x-large', (_p: unknown, ack: (...a: unknown[]) => void) => ack('ok'));
  });

  const manager = new Manager(capture.url, { transports, reconnection: false, timeout: 5000 });
  const c: ClientSocket = manager.socket('/oui');
  const r: ClientSocket = manager.socket('/');
  const clientGot: Array<{ ns: string; name: string; args: unknown[] }> = [];
  c.onAny((name: string, ...args: unknown[]) => clientGot.push({ ns: '/oui', name, args }));
  r.onAny((name: string, ...args: unknown[]) => clientGot.push({ ns: '/', name, args }));
  c.on('observation:request', (p: unknown, cb: (...a: unknown[]) => void) => cb({ observed: p }));

  const out: Expected[] = [];
  const inn: Expected[] = [];
  // Every wait is bounded, so a failure tears everything down instead of hanging the process.
  const until = async (cond: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 5000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
      await new Promise((res) => setTimeout(res, 2));
    }
  };
  const waitServer = (list: Array<{ name: string }>, name: string): Promise<void> => until(() => list.some((e) => e.name === name), name);
  const waitClient = (name: string): Promise<void> => until(() => clientGot.some((e) => e.name === name), name);
  const T = 5000;

  try {
    // Connect both namespaces; first event emitted immediately (buffered until connected).
    c.emit('surface:register', REG);
    await withTimeout(Promise.all([once(c, 'connect'), once(r, 'connect'), ouiConnected, rootConnected]), T, 'connect');
    out.push({ type: 'connect', namespace: '/oui' }, { type: 'connect', namespace: '/' });
    inn.push({ type: 'connect', namespace: '/oui', sid: true }, { type: 'connect', namespace: '/', sid: true });
    await waitServer(gotOui, 'surface:register');
    out.push({ type: 'event', namespace: '/oui', name: 'surface:register', args: [REG] });

    // Client emit with ack; server answers with two args.
    const res = await c.timeout(T).emitWithAck('action:request', REQ);
    assert.deepEqual(res, RES);
    out.push({ type: 'event', namespace: '/oui', name: 'action:request', args: [REQ], ackId: 0 });
    inn.push({ type: 'ack', namespace: '/oui', ackId: 0, args: [RES, 'second'] });

    // Server emit with ack; client answers.
    const reply = await server.oui!.timeout(T).emitWithAck('observation:request', OBS_REQ);
    assert.deepEqual(reply, { observed: OBS_REQ });
    inn.push({ type: 'event', namespace: '/oui', name: 'observation:request', args: [OBS_REQ], ackId: 0 });
    out.push({ type: 'ack', namespace: '/oui', ackId: 0, args: [{ observed: OBS_REQ }] });

    // Several args.
    c.emit('x-multi', 1, 'two', { three: 3 }, [4, null, true], -0.5);
    await waitServer(gotOui, 'x-multi');
    out.push({ type: 'event', namespace: '/oui', name: 'x-multi', args: [1, 'two', { three: 3 }, [4, null, true], -0.5] });

    // Binary args, binary ack.
    const binA = { blob: Buffer.from([1, 2, 3]), nested: [Buffer.from('hello'), { deep: Buffer.alloc(300, 7) }] };
    const binB = Buffer.alloc(0);
    const binAck = await c.timeout(T).emitWithAck('x-binary', binA, binB);
    assert.deepEqual(Buffer.from(binAck as Uint8Array), Buffer.from([0, 255, 1]));
    out.push({ type: 'event', namespace: '/oui', name: 'x-binary', args: asDecoded([binA, binB]) as unknown[], ackId: 1 });
    inn.push({ type: 'ack', namespace: '/oui', ackId: 1, args: asDecoded([Buffer.from([0, 255, 1]), 'done']) as unknown[] });

    // Server binary event on the main namespace.
    server.root!.emit('x-server-binary', Buffer.from('srv'), 'text', { b: Buffer.from([9]) });
    await waitClient('x-server-binary');
    inn.push({ type: 'event', namespace: '/', name: 'x-server-binary', args: asDecoded([Buffer.from('srv'), 'text', { b: Buffer.from([9]) }]) as unknown[] });

    // Large payload, main namespace, with ack.
    const big = bigPayload();
    assert.ok(JSON.stringify(big).length > 200_000);
    assert.equal(await r.timeout(T).emitWithAck('x-large', big), 'ok');
    out.push({ type: 'event', namespace: '/', name: 'x-large', args: [big], ackId: 0 });
    inn.push({ type: 'ack', namespace: '/', ackId: 0, args: ['ok'] });

    // Unicode from the server.
    server.oui!.emit('observation:update', UNICODE);
    await waitClient('observation:update');
    inn.push({ type: 'event', namespace: '/oui', name: 'observation:update', args: [UNICODE] });

    // The receiving ends got what was emitted (sanity for the fixtures themselves).
    assert.deepEqual(gotOui.find((e) => e.name === 'surface:register')?.args, [REG]);
    assert.deepEqual(clientGot.find((e) => e.name === 'observation:update')?.args, [UNICODE]);

    // Leave /oui, then /.
    const ouiGone = once(server.oui!, 'disconnect');
    c.disconnect();
    await withTimeout(ouiGone, T, 'disconnect /oui');
    out.push({ type: 'disconnect', namespace: '/oui' });
    const rootGone = once(server.root!, 'disconnect');
    r.disconnect();
    await withTimeout(rootGone, T, 'disconnect /');
    out.push({ type: 'disconnect', namespace: '/' });
  } finally {
    c.disconnect();
    r.disconnect();
    manager.engine?.close();
  }
  return { expectedOut: out, expectedIn: inn };
}

/** Feeds the recorded frames of one direction to one decoder, as the panel would. */
function decodeDirection(frames: RecordedFrame[]): { packets: SocketIOPacket[]; engine: EnginePacket[] } {
  const decoder = new SocketIODecoder();
  const packets: SocketIOPacket[] = [];
  const engine: EnginePacket[] = [];
  for (const f of frames) {
    const eps = f.transport === 'polling' && 'text' in f.payload ? decodePollingPayload(f.payload.text) : [decodeEngineFrame(f.payload)];
    for (const ep of eps) {
      engine.push(ep);
      packets.push(...decoder.push(ep));
    }
  }
  packets.push(...decoder.end());
  return { packets, engine };
}

function comparable(p: SocketIOPacket, e: Expected | undefined): Expected {
  const c: Expected = { type: p.type, namespace: p.namespace };
  if (p.name !== undefined) c.name = p.name;
  if (p.args !== undefined) c.args = p.args;
  if (p.ackId !== undefined) c.ackId = p.ackId;
  if (p.type === 'error') (c as Expected & { reason?: string }).reason = p.reason;
  if (p.type === 'connect' && e?.sid) {
    assert.equal(typeof (p.data as { sid?: unknown } | undefined)?.sid, 'string', 'server CONNECT carries a sid');
    c.sid = true;
  } else if (p.type === 'connect') {
    assert.equal(p.data, undefined, 'client CONNECT without auth carries no data');
  }
  return c;
}

function assertPackets(actual: SocketIOPacket[], expected: Expected[], label: string): void {
  const got = actual.map((p, i) => comparable(p, expected[i]));
  assert.deepEqual(got, expected, label);
}

async function checkTransport(transports: Transports, label: string): Promise<RecordedFrame[]> {
  const capture = await startSocketIOCapture();
  try {
    const { expectedOut, expectedIn } = await runScenario(capture, transports);
    const frames = capture.frames;
    assert.ok(frames.length > 0);

    // One Engine.IO session, identified consistently across transports.
    const sids = new Set(frames.map((f) => f.sid));
    assert.equal(sids.size, 1, `one sid in ${label}: ${[...sids].join(',')}`);
    const sid = [...sids][0]!;
    assert.equal(typeof sid, 'string');

    // URLs are recognised; the handshake parses.
    for (const f of frames) {
      const u = parseEngineUrl(f.url);
      assert.ok(u, f.url);
      assert.equal(u.eio, 4);
      assert.equal(u.transport, f.transport);
      assert.equal(u.path, '/socket.io/');
      if (u.sid !== undefined) assert.equal(u.sid, sid);
      if ('text' in f.payload && f.payload.text.length > 0) assert.ok(looksLikeEngineIO(f.payload.text), `looksLikeEngineIO(${f.payload.text.slice(0, 40)})`);
    }

    const outD = decodeDirection(capture.framesFor('out'));
    const inD = decodeDirection(capture.framesFor('in'));
    for (const ep of [...outD.engine, ...inD.engine]) assert.notEqual(ep.type, 'error', `engine error: ${ep.reason}`);
    const open = inD.engine.find((p) => p.type === 'open');
    assert.ok(open);
    assert.equal(parseEngineHandshake(open)?.sid, sid);

    assertPackets(outD.packets, expectedOut, `${label}: client to server`);
    assertPackets(inD.packets, expectedIn, `${label}: server to client`);

    // The OUI view of the events.
    const oui = outD.packets.map(readOUIFromSocketIO).filter((m) => m !== null);
    assert.deepEqual(oui[0], { kind: 'event', type: 'surface:register', payload: REG, namespace: '/oui', extraArgs: 0 });
    assert.deepEqual(oui[1], { kind: 'event', type: 'action:request', payload: REQ, namespace: '/oui', extraArgs: 0, ackId: 0 });
    const inOui = inD.packets.map(readOUIFromSocketIO).filter((m) => m !== null);
    assert.deepEqual(inOui[0], { kind: 'ack', ackId: 0, args: [RES, 'second'], namespace: '/oui' });

    // The binary placeholders were reassembled from binary frames.
    const binEvent = outD.packets.find((p) => p.name === 'x-binary');
    assert.equal(binEvent?.binary, true);
    assert.deepEqual(JSON.parse(JSON.stringify(binEvent)), binEvent, 'decoded packets survive JSON');
    assert.deepEqual(structuredClone(binEvent), binEvent, 'decoded packets survive structured clone');
    return frames;
  } finally {
    await capture.close();
  }
}

function countMessages(frames: RecordedFrame[], transport: 'polling' | 'websocket', dir: 'in' | 'out'): number {
  let n = 0;
  for (const f of frames) {
    if (f.transport !== transport || f.dir !== dir) continue;
    const eps = f.transport === 'polling' && 'text' in f.payload ? decodePollingPayload(f.payload.text) : [decodeEngineFrame(f.payload)];
    n += eps.filter((p) => p.type === 'message').length;
  }
  return n;
}

test('socket.io default client (polling, then upgrade to websocket)', async () => {
  const frames = await checkTransport(['polling', 'websocket'], 'default');
  // Both transports carried Socket.IO messages, and the upgrade handshake went over the WebSocket.
  assert.ok(countMessages(frames, 'polling', 'out') > 0, 'messages sent over polling before the upgrade');
  assert.ok(countMessages(frames, 'polling', 'in') > 0, 'messages received over polling before the upgrade');
  assert.ok(countMessages(frames, 'websocket', 'out') > 0);
  assert.ok(countMessages(frames, 'websocket', 'in') > 0);
  const wsText = frames.filter((f) => f.transport === 'websocket' && 'text' in f.payload).map((f) => (f.payload as { text: string }).text);
  assert.ok(wsText.includes('2probe') && wsText.includes('3probe') && wsText.includes('5'));
});

test('socket.io websocket-only client', async () => {
  const frames = await checkTransport(['websocket'], 'websocket-only');
  assert.ok(frames.every((f) => f.transport === 'websocket'));
  assert.ok(frames.some((f) => 'base64' in f.payload), 'binary attachments travelled as binary frames');
});

test('socket.io polling-only client', async () => {
  const frames = await checkTransport(['polling'], 'polling-only');
  assert.ok(frames.every((f) => f.transport === 'polling'));
  const bodies = frames.map((f) => ('text' in f.payload ? f.payload.text : ''));
  assert.ok(bodies.some((b) => b.includes('\x1eb') || b.startsWith('b')), 'binary attachments travelled as b<base64>');
});
