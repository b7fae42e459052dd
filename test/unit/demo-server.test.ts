/**
 * The demo server and its agent runtime against scripted clients in Node
 * (socket.io-client, ws): the runtime's §7.3.4 bookkeeping, §7.2/§7.6.1
 * pending requests, malformed events, HTTP routes and upgrade paths.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { io as connect, type Socket } from 'socket.io-client';
import { WebSocket } from 'ws';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { surfacesHash } from '../../src/protocol/index.ts';
import { until } from '../support/wait.ts';
import type { OUIActionRequest, OUISurface } from '../../src/protocol/index.ts';

const probe: OUISurface = {
  id: 'probe',
  name: 'Probe',
  description: 'A scripted surface',
  actions: [{ id: 'ping', description: 'ping', effect: 'view', input: { type: 'object' } }],
};
const probe2: OUISurface = { ...probe, id: 'probe-two', name: 'Probe two' };

describe('demo server and runtime (scripted Node clients)', () => {
  let server: DemoServer;
  let sock: Socket;
  const requests: OUIActionRequest[] = [];
  let answer: (req: OUIActionRequest) => unknown = () => undefined;

  before(async () => {
    server = await startDemoServer({ port: 0 });
    sock = connect(`${server.url}oui`, { transports: ['websocket'], forceNew: true, reconnection: false });
    sock.on('action:request', (req: OUIActionRequest, receipt?: (a: unknown) => void) => {
      requests.push(req);
      receipt?.({ ok: true });
      const result = answer(req);
      if (result) sock.emit('action:result', result, () => {});
    });
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.emit('surface:register', { surface: probe, timestamp: Date.now() });
  });

  after(async () => {
    sock?.close();
    await server?.close();
  });

  test('HTTP routes', async () => {
    for (const p of ['/', '/cart', '/checkout', '/orders', '/frame.html']) {
      const r = await fetch(new URL(p, server.url));
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type') ?? '', /text\/html/);
      await r.arrayBuffer();
    }
    for (const [p, type] of [['/app.js', /javascript/], ['/frame.js', /javascript/], ['/styles.css', /css/]] as const) {
      const r = await fetch(new URL(p, server.url));
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type') ?? '', type);
      assert.ok((await r.arrayBuffer()).byteLength > 1000);
    }
    assert.equal((await fetch(new URL('/nope', server.url))).status, 404);
    assert.equal((await fetch(new URL('/index.html', server.url))).status, 404);
  });

  test('knownSurfaces: sent while it holds the hash; kept on a result without surfaces; unknown when it holds none', async () => {
    const id = await server.runtime.waitForClient();
    assert.equal(id, sock.id);
    const h1 = surfacesHash([probe]);
    assert.equal(server.runtime.knownHash(id), h1);

    answer = (req) => ({ requestId: req.requestId, success: true, data: { pong: 1 }, timestamp: Date.now(), surfacesHash: h1 });
    const r1 = await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    assert.equal(r1.success, true);
    assert.equal(requests.at(-1)!.knownSurfaces, h1);
    assert.deepEqual(server.runtime.surfaces(id), [probe], 'kept');

    const strange = 'fnv1a64:00000000000000ff';
    answer = (req) => ({ requestId: req.requestId, success: true, timestamp: Date.now(), surfacesHash: strange });
    await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    assert.equal(server.runtime.knownHash(id), null, 'no surfaces under that hash: unknown');
    answer = (req) => ({ requestId: req.requestId, success: true, timestamp: Date.now(), surfacesHash: surfacesHash([probe, probe2]), surfaces: [probe, probe2] });
    await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    assert.equal(requests.at(-1)!.knownSurfaces, undefined, 'so no knownSurfaces is sent');
    assert.equal(server.runtime.knownHash(id), surfacesHash([probe, probe2]));
    assert.deepEqual(server.runtime.surfaces(id).map((s) => s.id), ['probe', 'probe-two']);
    await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    assert.equal(requests.at(-1)!.knownSurfaces, surfacesHash([probe, probe2]));
    // an earlier set it still holds
    answer = (req) => ({ requestId: req.requestId, success: true, timestamp: Date.now(), surfacesHash: h1 });
    await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    assert.deepEqual(server.runtime.surfaces(id), [probe]);
  });

  test('interim results extend the wait; the final resolves; late duplicates are discarded', async () => {
    const id = sock.id!;
    answer = (req) => {
      setTimeout(() => sock.emit('action:result', { requestId: req.requestId, success: true, interim: false, data: 'done', timestamp: Date.now(), surfacesHash: surfacesHash([probe]) }), 60);
      setTimeout(() => sock.emit('action:result', { requestId: req.requestId, success: true, interim: false, data: 'again', timestamp: Date.now(), surfacesHash: surfacesHash([probe]) }), 90);
      return { requestId: req.requestId, success: true, interim: true, progress: 10, timestamp: Date.now(), surfacesHash: surfacesHash([probe]) };
    };
    const r = await server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {}, timeoutMs: 1000 });
    assert.equal(r.data, 'done');
    // The duplicate arrives (witness: the runtime recorded it coming in) and goes down the discard branch.
    const of = (type: string) => server.runtime.events.filter((e) => e.type === type && (e.payload as { requestId?: string } | null)?.requestId === r.requestId);
    await until(() => of('x-discarded').length > 0, 'the late duplicate discarded');
    assert.deepEqual(of('action:result').map((e) => [(e.payload as { interim?: boolean }).interim, (e.payload as { data?: unknown }).data]), [[true, undefined], [false, 'done'], [false, 'again']]);
    assert.equal(of('x-discarded').length, 1, 'only the duplicate, not the interim or the final, was discarded');
    assert.equal(r.data, 'done', 'the first final stands');
  });

  test('deregistration and malformed events', async () => {
    const id = sock.id!;
    answer = () => undefined; // never answers
    const seen = requests.length;
    const pending = server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    await until(() => requests.length > seen, 'the request reached the client');
    sock.emit('surface:deregister', { surfaceId: 'probe', timestamp: Date.now() });
    const r = await pending;
    assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE');

    const ack = await new Promise((resolve) => sock.emit('action:result', 'garbage', resolve));
    assert.deepEqual(ack, { ok: false, error: 'malformed action:result' });
    sock.emit('surface:register', 42);
    sock.emit('observation:update', { nope: true });
    sock.emit('x-custom:thing', { a: 1 });
    sock.emit('surface:register', { surface: probe, timestamp: Date.now() });
    await until(() => server.runtime.surfaces(id).some((s) => s.id === 'probe'), 'probe registered again');
    assert.deepEqual(server.runtime.surfaces(id).map((s) => s.id), ['probe', 'probe-two'], 'still working: probe registered again');
  });

  test('a lost connection resolves pending requests SURFACE_UNAVAILABLE', async () => {
    const id = sock.id!;
    const seen = requests.length;
    const pending = server.runtime.request(id, { surfaceId: 'probe', actionId: 'ping', params: {} });
    await until(() => requests.length > seen, 'the request reached the client');
    sock.disconnect();
    assert.equal((await pending).error?.code, 'SURFACE_UNAVAILABLE');
    assert.throws(() => server.runtime.surfaces(id), /no connected client/);
  });

  test('/ws-json upgrades; other upgrade paths are refused', async () => {
    const base = server.url.replace(/^http/, 'ws');
    const ok = new WebSocket(`${base}ws-json`);
    await new Promise<void>((resolve, reject) => {
      ok.once('open', () => resolve());
      ok.once('error', reject);
    });
    ok.send(JSON.stringify({ type: 'surface:register', payload: { surface: { ...probe, id: 'ws-probe' }, timestamp: Date.now() } }));
    ok.send('not json');
    const wid = await server.wsRuntime.waitForClient(2000);
    assert.deepEqual(server.wsRuntime.surfaces(wid).map((s) => s.id), ['ws-probe']);
    ok.close();
    const bad = new WebSocket(`${base}elsewhere`);
    await new Promise<void>((resolve) => {
      bad.once('error', () => resolve());
      bad.once('close', () => resolve());
    });
    assert.notEqual(bad.readyState, WebSocket.OPEN);
  });
});
