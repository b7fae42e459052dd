/**
 * Socket.IO injection from the moment the WebSocket carries the session: the
 * inject target is learnt from the Engine.IO upgrade itself (probe, upgrade,
 * heartbeats, a WebSocket-only handshake), not only from message packets, so
 * a client that upgrades and then stays quiet can be injected into. Frames as
 * the page hook captures them, then real socket.io traffic recorded by a proxy.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Manager, type Socket as ClientSocket } from 'socket.io-client';
import { NodeWebSocket, NodeXHR } from 'engine.io-client';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { planInjection, whyNotInjectable } from '../../src/session/wire/injection.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';
import { startSocketIOCapture, type SocketIOCapture } from '../support/socketio-capture.ts';

const REG = { surface: { id: 'cart', name: 'Cart', description: 'The cart', actions: [{ id: 'add', description: 'Add', effect: 'edit', input: { type: 'object' } }] }, timestamp: 1 };
const HANDSHAKE = (sid: string, upgrades: string[]) => `0${JSON.stringify({ sid, upgrades, pingInterval: 25000, pingTimeout: 20000, maxPayload: 1000000 })}`;
const REQ = { requestId: '6f1c1d2e-8a4b-4c3d-9e5f-0a1b2c3d4e5f', surfaceId: 'cart', actionId: 'add', params: {}, timestamp: 2 };

/** A decoder fed one item at a time, with the hook's clients announced first (as the recorder does). */
function stepper(hook: FakeHook, frameId = 0) {
  const decoder = new WireDecoder();
  const announced = new Set<string>();
  return {
    decoder,
    push(item: CapturedItem) {
      for (const c of hook.clients.values()) if (!announced.has(c.id)) (announced.add(c.id), decoder.addClient(c, hook.hook, frameId));
      return decoder.push(item);
    },
    ns(namespace: string): WireClient {
      const c = decoder.allClients().find((x) => x.kind === 'socket.io' && x.namespace === namespace);
      assert.ok(c, `a Socket.IO client on ${namespace} among ${decoder.allClients().map((x) => x.key).join(', ')}`);
      return c;
    },
  };
}

const wsTarget = (hook: FakeHook, ws: CapturedClient, frameId = 0) => ({ via: 'websocket', frameId, hook: hook.hook, client: ws.id });

/** A session opened and joined over long-polling: the handshake, a CONNECT per namespace, and a registration. */
function pollingPhase(hook: FakeHook, sid: string, namespaces: string[]): { polling: CapturedClient; items: CapturedItem[] } {
  const base = 'http://app.test/socket.io/?EIO=4&transport=polling';
  const polling = hook.client('polling', 'http://app.test/socket.io/');
  const items = [hook.frame(polling, 'in', HANDSHAKE(sid, ['websocket']), { url: `${base}&t=a` })];
  for (const ns of namespaces) {
    items.push(hook.frame(polling, 'out', `40${ns},`, { url: `${base}&sid=${sid}` }));
    items.push(hook.frame(polling, 'in', `40${ns},{"sid":"n-${ns}"}`, { url: `${base}&sid=${sid}` }));
  }
  items.push(hook.frame(polling, 'out', `42${namespaces[0]},["surface:register",${JSON.stringify(REG)}]`, { url: `${base}&sid=${sid}` }));
  return { polling, items };
}

describe('Socket.IO inject target from the Engine.IO upgrade', () => {
  it('polling → WebSocket: not while probing, from the upgrade packet on, for every namespace joined over polling', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook, 3);
    const { items } = pollingPhase(hook, 'S1', ['/oui', '/admin']);
    for (const it of items) s.push(it);
    assert.equal(s.ns('/oui').inject, undefined);
    assert.match(whyNotInjectable(s.ns('/oui')) ?? '', /not upgraded/);

    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S1');
    s.push(hook.item(ws, 'open'));
    s.push(hook.frame(ws, 'out', '2probe'));
    assert.equal(s.ns('/oui').inject, undefined, 'the probe alone does not move the session');
    s.push(hook.frame(ws, 'in', '3probe'));
    assert.equal(s.ns('/oui').inject, undefined, "the probe's answer alone does not move the session");
    const events = s.push(hook.frame(ws, 'out', '5'));
    assert.deepEqual(events, [], 'the upgrade packet is no event of its own');
    assert.deepEqual(s.ns('/oui').inject, wsTarget(hook, ws, 3));
    assert.deepEqual(s.ns('/admin').inject, wsTarget(hook, ws, 3));
    assert.equal(whyNotInjectable(s.ns('/oui')), null);
    // Nothing else was ever sent on the WebSocket: no message packet taught this.
    assert.equal(s.decoder.allClients().length, 2, 'still one client per namespace');
  });

  it('an injected request for the quiet client is encoded for its namespace and goes to its WebSocket', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook);
    for (const it of pollingPhase(hook, 'S9', ['/oui']).items) s.push(it);
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S9');
    for (const it of [hook.item(ws, 'open'), hook.frame(ws, 'out', '2probe'), hook.frame(ws, 'in', '3probe'), hook.frame(ws, 'out', '5')]) s.push(it);
    const plan = planInjection(s.ns('/oui'), REQ, { id: 'i1', wantReceipt: true, letThrough: false, ackId: 900_000_001 });
    assert.ok(plan.ok, plan.ok ? '' : plan.error);
    assert.deepEqual(plan.command.target, wsTarget(hook, ws));
    assert.match(plan.command.frame ?? '', /^42\/oui,900000001\["action:request",/);
  });

  it('heartbeats only: a ping on the WebSocket shows it carries the session even when the upgrade packet was not seen', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook);
    for (const it of pollingPhase(hook, 'S2', ['/oui']).items) s.push(it);
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S2');
    s.push(hook.item(ws, 'open'));
    assert.equal(s.ns('/oui').inject, undefined);
    s.push(hook.frame(ws, 'in', '2'));
    assert.deepEqual(s.ns('/oui').inject, wsTarget(hook, ws));
  });

  it("a client's pong on the WebSocket counts too; a pong on long-polling does not", () => {
    const hook = new FakeHook('h');
    const s = stepper(hook);
    const { polling, items } = pollingPhase(hook, 'S4', ['/oui']);
    for (const it of items) s.push(it);
    s.push(hook.frame(polling, 'in', '2', { url: 'http://app.test/socket.io/?EIO=4&transport=polling&sid=S4' }));
    s.push(hook.frame(polling, 'out', '3', { url: 'http://app.test/socket.io/?EIO=4&transport=polling&sid=S4' }));
    assert.equal(s.ns('/oui').inject, undefined, 'heartbeats over long-polling leave it on long-polling');
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S4');
    s.push(hook.item(ws, 'open'));
    s.push(hook.frame(ws, 'out', '3'));
    assert.deepEqual(s.ns('/oui').inject, wsTarget(hook, ws));
  });

  it('a probe that fails (the socket closes before the upgrade) leaves the client on long-polling', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook);
    for (const it of pollingPhase(hook, 'S5', ['/oui']).items) s.push(it);
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=S5');
    for (const it of [hook.item(ws, 'open'), hook.frame(ws, 'out', '2probe'), hook.frame(ws, 'in', '3probe'), hook.item(ws, 'close', { note: '1006' })]) s.push(it);
    assert.equal(s.ns('/oui').inject, undefined);
  });

  it('WebSocket only: injectable from the handshake, for a namespace joined later, with no message ever sent', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook, 1);
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket');
    s.push(hook.item(ws, 'open'));
    s.push(hook.frame(ws, 'in', HANDSHAKE('S3', [])));
    s.push(hook.frame(ws, 'out', '40/oui,'));
    s.push(hook.frame(ws, 'in', '40/oui,{"sid":"n1"}'));
    assert.deepEqual(s.ns('/oui').inject, wsTarget(hook, ws, 1));
  });

  it('a session on another sid is not moved by this WebSocket', () => {
    const hook = new FakeHook('h');
    const s = stepper(hook);
    for (const it of pollingPhase(hook, 'A', ['/oui']).items) s.push(it);
    const ws = hook.client('websocket', 'ws://app.test/socket.io/?EIO=4&transport=websocket&sid=B');
    for (const it of [hook.item(ws, 'open'), hook.frame(ws, 'out', '2probe'), hook.frame(ws, 'in', '3probe'), hook.frame(ws, 'out', '5')]) s.push(it);
    assert.equal(s.ns('/oui').inject, undefined);
  });
});

// ---------------------------------------------------------------------------
// Real traffic: socket.io-client upgrades, then stays quiet.

/** Items as the page hook captures them (see content/taps/polling.ts, websocket.ts). */
function itemsOf(capture: SocketIOCapture): { hook: FakeHook; items: CapturedItem[] } {
  const hook = new FakeHook('H', undefined, capture.url, `${capture.url}/`);
  const polling = hook.client('polling', `${capture.url}/socket.io/`);
  const ws = new Map<number, CapturedClient>();
  const items: CapturedItem[] = [];
  for (const f of capture.frames) {
    if (f.transport === 'polling') {
      assert.ok('text' in f.payload);
      items.push(hook.frame(polling, f.dir, f.payload.text, { url: `${capture.url}${f.url}` }));
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

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The WebSocket transport, held back until `open()` is called: the client joins and registers over long-polling first, deterministically. */
function gatedWebSocket(): { transport: typeof NodeWebSocket; open(): void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  class Gated extends NodeWebSocket {
    override doOpen(): this {
      void gate.then(() => super.doOpen());
      return this;
    }
  }
  return { transport: Gated, open: () => release() };
}

describe('Socket.IO quiet upgrade, real traffic', () => {
  for (const variant of ['upgrade, then silence', 'upgrade, then heartbeats only'] as const) {
    it(`${variant}: the namespace client is injectable through the WebSocket`, async () => {
      const pings = variant === 'upgrade, then heartbeats only';
      const capture = await startSocketIOCapture({ server: pings ? { pingInterval: 100, pingTimeout: 2000 } : {} });
      const gated = gatedWebSocket();
      const manager = new Manager(capture.url, { reconnection: false, timeout: 5000, transports: [NodeXHR, gated.transport] });
      const c: ClientSocket = manager.socket('/oui');
      try {
        let registered = false;
        capture.io.of('/oui').on('connection', (s) => s.on('surface:register', () => (registered = true)));
        c.emit('surface:register', REG);
        await until(() => registered, 'registration over long-polling');
        gated.open();
        if (manager.engine.transport.name !== 'websocket') await new Promise((r) => manager.engine.once('upgrade', r));
        if (pings) await until(() => capture.frames.filter((f) => f.transport === 'websocket' && f.dir === 'in' && 'text' in f.payload && f.payload.text === '2').length >= 2, 'two pings on the WebSocket');
        else await until(() => capture.frames.some((f) => f.transport === 'websocket' && 'text' in f.payload && f.payload.text === '5'), 'the upgrade packet captured on the WebSocket');
      } finally {
        c.disconnect();
        manager.engine?.close();
        await capture.close();
      }
      const onWs = capture.frames.filter((f) => f.transport === 'websocket').map((f) => ('text' in f.payload ? f.payload.text : '<binary>'));
      // What makes this the quiet case: no Socket.IO packet ever went over the WebSocket before it closed.
      const leaving = onWs.findIndex((t) => t.startsWith('41') || t === '1');
      const beforeClose = leaving < 0 ? onWs : onWs.slice(0, leaving);
      assert.deepEqual(beforeClose.filter((t) => t.startsWith('4')), [], `no message packet on the WebSocket: ${onWs.join(' ')}`);
      assert.ok(onWs.includes('2probe') && onWs.includes('5'), `probe and upgrade on the WebSocket: ${onWs.join(' ')}`);
      if (pings) assert.ok(onWs.filter((t) => t === '2').length >= 2);

      const { hook, items } = itemsOf(capture);
      // Up to the client's own disconnect: the quiet stretch is what is checked.
      const cut = items.findIndex((it) => it.kind === 'frame' && 'payload' in it && it.payload && 'text' in it.payload && (it.payload.text.startsWith('41') || it.payload.text === '1'));
      const s = stepper(hook);
      for (const it of cut < 0 ? items : items.slice(0, cut)) s.push(it);
      const ws = [...hook.clients.values()].find((x) => x.kind === 'websocket')!;
      assert.deepEqual(s.ns('/oui').inject, wsTarget(hook, ws));
    });
  }
});
