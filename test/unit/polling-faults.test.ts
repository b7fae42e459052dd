/**
 * Fault rules in Socket.IO's long-polling phase, run in Node with the real
 * parts: a socket.io 4 server, socket.io-client on engine.io-client's fetch()
 * transport, and the page hook's fetch tap (content/taps/polling.ts) with its
 * rules (content/faults.ts) wrapped around Node's own fetch. The oracle is
 * what the server's handlers got and what the client's handlers got.
 *
 * The server's pingInterval is long (60 s): what reaches the client within a
 * few seconds was delivered by the hook answering the poll in flight, not
 * carried by a heartbeat.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { Fetch } from 'engine.io-client';
import type { CapturedItem } from '../../src/capture/captured-items.ts';
import type { FaultRule } from '../../src/runtime/faults.ts';
import { until } from '../support/wait.ts';

(globalThis as { location?: unknown }).location ??= { origin: 'http://127.0.0.1:1', href: 'http://127.0.0.1:1/' };
(globalThis as { window?: unknown }).window ??= globalThis;
const { scopeNatives } = await import('../../content/scope-natives.ts');
const { createCaptureBuffer } = await import('../../content/capture-buffer.ts');
const { tapPolling } = await import('../../content/taps/polling.ts');
const { installHookFaults } = await import('../../content/faults.ts');

const buffer = createCaptureBuffer(scopeNatives() as never);
const faults = installHookFaults(buffer);
tapPolling(buffer);

let httpServer: http.Server;
let ioServer: Server;
let url: string;
/** What the server's handlers got, per event. */
const got: Array<{ type: string; payload: unknown }> = [];
let serverSocket: ServerSocket | undefined;
let client: Socket;
/** What the client's handlers got. */
const received: Array<{ type: string; payload: unknown; t: number }> = [];

function items(): CapturedItem[] {
  const all: CapturedItem[] = [];
  buffer.subscribe({}, { items: (list: CapturedItem[]) => all.push(...list) });
  buffer.unsubscribe();
  return all;
}

const rules = (list: FaultRule[]) => faults.set(list, 7);

before(async () => {
  httpServer = http.createServer();
  ioServer = new Server(httpServer, { pingInterval: 60_000, pingTimeout: 20_000, transports: ['polling'] });
  ioServer.of('/oui').on('connection', (s) => {
    serverSocket = s;
    s.onAny((type: string, payload: unknown, ...rest: unknown[]) => {
      got.push({ type, payload });
      const ack = rest[rest.length - 1];
      if (typeof ack === 'function') (ack as (v: unknown) => void)({ ok: true });
    });
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  client = connect(`${url}/oui`, { transports: [Fetch], forceNew: true, reconnection: false });
  client.onAny((type: string, payload: unknown, ...rest: unknown[]) => {
    received.push({ type, payload, t: Date.now() });
    const ack = rest[rest.length - 1];
    if (typeof ack === 'function') (ack as (v: unknown) => void)({ ok: true });
  });
  await until(() => client.connected && serverSocket !== undefined, 'connected over polling', 10_000, 10);
});

after(async () => {
  rules([]);
  client?.close();
  ioServer?.close();
  await new Promise((r) => httpServer?.close(r));
});

describe('fault rules on fetch() long-polling', () => {
  it('with no rule on, the client gets what the server sent, as it was', async () => {
    const payload = { requestId: 'plain', surfaceId: 's', actionId: 'a', params: { text: 'héllo \u001e not a separator', n: [1, 2.5, null] }, timestamp: 1 };
    serverSocket!.emit('action:request', payload);
    await until(() => received.some((r) => (r.payload as { requestId?: string }).requestId === 'plain'), 'received', 5_000, 10);
    assert.deepEqual(received.find((r) => (r.payload as { requestId?: string }).requestId === 'plain')!.payload, payload);
  });

  it('refuse a result: the client is acknowledged { ok: false, error } at once, and the server never gets it', async () => {
    rules([{ id: 'refuse', match: {}, fault: { kind: 'refuse-result', error: 'refused here' }, maxCount: 1 }]);
    const t0 = Date.now();
    const ack = await new Promise<unknown>((r) => client.emit('action:result', { requestId: 'r1', success: true, timestamp: 1 }, r));
    assert.deepEqual(ack, { ok: false, error: 'refused here' });
    assert.ok(Date.now() - t0 < 10_000, `the refusal came in ${Date.now() - t0} ms, before any heartbeat`);
    // The next result (the rule faulted at most one) goes through: a positive witness before counting.
    const ack2 = await new Promise<unknown>((r) => client.emit('action:result', { requestId: 'r2', success: true, timestamp: 1 }, r));
    assert.deepEqual(ack2, { ok: true });
    const results = got.filter((g) => g.type === 'action:result').map((g) => (g.payload as { requestId: string }).requestId);
    assert.deepEqual(results, ['r2']);
    const marked = items().filter((i) => i.faulted === 'refuse');
    assert.ok(marked.some((i) => i.fault === 'refused'), 'the capture marks the refused result');
    rules([]);
  });

  it('drop and duplicate requests to the client', async () => {
    rules([
      { id: 'drop', match: { type: 'action:request', actionId: 'dropped' }, fault: { kind: 'drop' } },
      { id: 'dup', match: { type: 'action:request', actionId: 'twice' }, fault: { kind: 'duplicate' } },
    ]);
    serverSocket!.emit('action:request', { requestId: 'd1', surfaceId: 's', actionId: 'dropped', params: {}, timestamp: 1 });
    serverSocket!.emit('action:request', { requestId: 'd2', surfaceId: 's', actionId: 'twice', params: {}, timestamp: 1 });
    serverSocket!.emit('action:request', { requestId: 'd3', surfaceId: 's', actionId: 'plain', params: {}, timestamp: 1 });
    await until(() => received.some((r) => (r.payload as { requestId?: string }).requestId === 'd3'), 'the last one received', 5_000, 10);
    const ids = received.map((r) => (r.payload as { requestId?: string }).requestId).filter((id) => id && id.startsWith('d'));
    assert.deepEqual(ids, ['d2', 'd2', 'd3']);
    rules([]);
  });

  it('delay a request: it reaches the client no sooner than the delay', async () => {
    rules([{ id: 'delay', match: { type: 'action:request' }, fault: { kind: 'delay', ms: 400 }, maxCount: 1 }]);
    const t0 = Date.now();
    serverSocket!.emit('action:request', { requestId: 'late', surfaceId: 's', actionId: 'a', params: {}, timestamp: 1 });
    await until(() => received.some((r) => (r.payload as { requestId?: string }).requestId === 'late'), 'received', 10_000, 10);
    const t = received.find((r) => (r.payload as { requestId?: string }).requestId === 'late')!.t;
    assert.ok(t - t0 >= 400, `received ${t - t0} ms after it was sent`);
    rules([]);
  });

  it("duplicate and delay the client's results: the POST carries it twice; a delayed one's POST is held", async () => {
    rules([
      { id: 'dup-out', match: { direction: 'from-client', type: 'action:result', actionId: 'twice' }, fault: { kind: 'duplicate' } },
      { id: 'slow-out', match: { direction: 'from-client', type: 'action:result', actionId: 'slow' }, fault: { kind: 'delay', ms: 400 } },
    ]);
    const before = got.length;
    // A result names its request's action only through the request: the server asks first.
    serverSocket!.emit('action:request', { requestId: 'o1', surfaceId: 's', actionId: 'twice', params: {}, timestamp: 1 });
    serverSocket!.emit('action:request', { requestId: 'o2', surfaceId: 's', actionId: 'slow', params: {}, timestamp: 1 });
    await until(() => received.some((r) => (r.payload as { requestId?: string }).requestId === 'o2'), 'the requests received', 5_000, 10);
    client.emit('action:result', { requestId: 'o1', success: true, timestamp: 1 });
    await until(() => got.filter((g) => (g.payload as { requestId?: string }).requestId === 'o1').length === 2, 'the duplicate received', 5_000, 10);
    const t0 = Date.now();
    client.emit('action:result', { requestId: 'o2', success: true, timestamp: 1 });
    await until(() => got.some((g) => (g.payload as { requestId?: string }).requestId === 'o2'), 'the delayed result received', 5_000, 5);
    assert.ok(Date.now() - t0 >= 400, `received ${Date.now() - t0} ms after it was sent`);
    assert.deepEqual(
      got.slice(before).map((g) => (g.payload as { requestId?: string }).requestId),
      ['o1', 'o1', 'o2'],
    );
    rules([]);
  });

  it('disconnect: the poll fails as on a network error, and both ends see the session end', async () => {
    const server = serverSocket!;
    const serverGone = new Promise<string>((r) => server.once('disconnect', r));
    const clientGone = new Promise<string>((r) => client.once('disconnect', r));
    rules([{ id: 'cut', match: { type: 'action:request' }, fault: { kind: 'disconnect', code: 4000, reason: '' }, maxCount: 1 }]);
    server.emit('action:request', { requestId: 'cut', surfaceId: 's', actionId: 'a', params: {}, timestamp: 1 });
    assert.equal(await clientGone, 'transport error');
    assert.ok(await serverGone);
    assert.ok(!received.some((r) => (r.payload as { requestId?: string }).requestId === 'cut'), 'the request never reached the client');
    rules([]);
  });
});
