/**
 * The virtual server, end to end in real Chromium with the built extension:
 * the demo app is served by a static server with no runtime at all
 * (test/support/static-demo.ts: no Socket.IO, no WebSocket endpoint, every
 * upgrade refused), the panel's command `hook:serve` (panel → background →
 * bridge → hook, on a port of the extension's own panel page) names the
 * Socket.IO endpoint and `/ws-json`, and then:
 * - the shop client (Socket.IO, the default polling start, `?transport=websocket`
 *   and `?transport=fetch`) and the notifications client (plain WebSocket)
 *   connect, upgrade and register their surfaces, read from what the app sent
 *   (decoded with engine.io-parser and socket.io-parser, checked against the
 *   spec's shapes, §3 and §7.2) while nothing reached the network;
 * - a request injected through the existing inject path (`hook:inject`) into
 *   the served socket is answered by the app, and its result acknowledged by
 *   the virtual server;
 * - a URL that does not match still goes to the network: with the real demo
 *   server up and only `/ws-json` served, the shop client reaches the real
 *   runtime, the notifications client does not reach the real one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { decodePacket, decodePayload } from 'engine.io-parser';
import { Decoder, PacketType } from 'socket.io-parser';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startStaticDemo, type StaticDemo } from '../support/static-demo.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { until } from '../support/wait.ts';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { fileURLToPath } from 'node:url';

const SURFACE_ID = /^[a-z][a-z0-9-]*[a-z0-9]$/;
const MEMBER_ID = /^[a-z][a-z0-9_]*[a-z0-9]$/;

interface Captured {
  hook: string;
  client: CapturedClient;
  items: CapturedItem[];
}

/** A port of the extension's panel page, as the panel's own: it says hello for the tab, sends commands, and keeps every capture message. */
async function panelPort(panel: Page, tabId: number): Promise<void> {
  await panel.evaluate((tab) => {
    const w = window as unknown as { __serveLog: unknown[]; __servePort: chrome.runtime.Port };
    w.__serveLog = [];
    const port = chrome.runtime.connect({ name: 'panel' });
    port.onMessage.addListener((m) => w.__serveLog.push(m));
    port.postMessage({ type: 'panel:hello', v: 2, tabId: tab });
    w.__servePort = port;
  }, tabId);
}

async function command(panel: Page, message: object): Promise<void> {
  await panel.evaluate((m) => (window as unknown as { __servePort: chrome.runtime.Port }).__servePort.postMessage(m), message);
}

/** Every capture message the port got, by hook and client. */
async function captured(panel: Page): Promise<{ clients: Map<string, Captured>; answers: Array<{ id: string; ok: boolean; error?: string }> }> {
  const log = (await panel.evaluate(() => (window as unknown as { __serveLog: unknown[] }).__serveLog)) as Array<{ type: string; message?: { type: string; hook: string; items?: CapturedItem[]; clients?: CapturedClient[]; id?: string; ok?: boolean; error?: string } }>;
  const clients = new Map<string, Captured>();
  const answers: Array<{ id: string; ok: boolean; error?: string }> = [];
  for (const m of log) {
    const msg = m.message;
    if (m.type !== 'capture' || !msg) continue;
    if (msg.type === 'answer') answers.push({ id: msg.id!, ok: msg.ok!, ...(msg.error ? { error: msg.error } : {}) });
    if (msg.type !== 'items' && msg.type !== 'state') continue;
    for (const c of msg.clients ?? []) {
      const key = `${msg.hook}/${c.id}`;
      const had = clients.get(key);
      if (had) had.client = c;
      else clients.set(key, { hook: msg.hook, client: c, items: [] });
    }
    for (const it of msg.items ?? []) clients.get(`${msg.hook}/${it.client}`)?.items.push(it);
  }
  return { clients, answers };
}

const textOf = (it: CapturedItem) => (it.payload && 'text' in it.payload ? it.payload.text : '');

/** The Socket.IO packets of a client's frames in one direction, read with the protocol's own parsers. */
function socketIoPackets(items: CapturedItem[], dir: 'in' | 'out'): Array<{ type: number; nsp: string; id?: number; data?: unknown }> {
  const out: Array<{ type: number; nsp: string; id?: number; data?: unknown }> = [];
  const decoder = new Decoder();
  decoder.on('decoded', (p: { type: number; nsp: string; id?: number; data?: unknown }) => out.push(p));
  for (const it of items) {
    if (it.kind !== 'frame' || it.dir !== dir) continue;
    const text = textOf(it);
    if (!text) continue;
    const packets = it.url ? (decodePayload(text) as Array<{ type: string; data?: unknown }>) : [decodePacket(text) as { type: string; data?: unknown }];
    for (const p of packets) if (p.type === 'message' && typeof p.data === 'string') decoder.add(p.data);
  }
  return out;
}

/** §3.1, §3.2, §4.2, §7.2: what a `surface:register` payload must hold. */
function checkRegistration(payload: unknown): string {
  const p = payload as { surface?: { id?: unknown; name?: unknown; description?: unknown; actions?: unknown }; timestamp?: unknown };
  assert.equal(typeof p.timestamp, 'number', 'a registration has a timestamp');
  const s = p.surface!;
  assert.ok(s && typeof s === 'object', 'a registration carries its surface');
  assert.match(String(s.id), SURFACE_ID);
  assert.equal(typeof s.name, 'string');
  assert.equal(typeof s.description, 'string');
  assert.ok(Array.isArray(s.actions) && s.actions.length >= 1, 'a surface has at least one action');
  for (const a of s.actions as Array<{ id?: unknown; input?: unknown }>) {
    assert.match(String(a.id), MEMBER_ID);
    if (a.input !== undefined) assert.equal(typeof a.input, 'object');
  }
  return String(s.id);
}

type DemoClients = { socket: { connected: boolean; transport: string; surfaces: string[] }; ws: { connected: boolean; surfaces: string[] } };
const demoClients = (page: Page) => page.evaluate(() => (window as unknown as { __demo: { state(): { clients: DemoClients } } }).__demo.state().clients);

let browser: Browser;

before(async () => {
  // Each event its own Timeline row: the docs' picture (UPDATE_SCREENSHOTS=1) shows the served traffic event by event.
  browser = await launch({ rows: 'events' });
});
after(async () => {
  await browser?.close();
});

describe('the virtual server with no runtime running', () => {
  let site: StaticDemo;
  let page: Page;
  let panel: Page;

  before(async () => {
    site = await startStaticDemo();
    page = await browser.context.newPage();
    await page.goto(`${site.url}blank`);
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    await panelPort(panel, await tabIdOf(browser, page));
    const origin = site.url.replace(/^http:\/\//, '').replace(/\/$/, '');
    await command(panel, { type: 'hook:serve', id: 'serve-sio', pattern: `http://${origin}/socket.io/`, on: true });
    await command(panel, { type: 'hook:serve', id: 'serve-ws', pattern: `${origin}/ws-*`, on: true });
    await until(async () => (await captured(panel)).answers.filter((a) => a.id.startsWith('serve-') && a.ok).length >= 2, 'the hook took both rules', 10_000, 50);
  });
  after(async () => {
    await page?.close();
    await panel?.close();
    await site?.close();
  });

  for (const transport of ['', 'websocket', 'fetch'] as const) {
    test(`shop (Socket.IO${transport ? `, ?transport=${transport}` : ', polling first'}) and notifications (WebSocket) connect, register, and answer an injected request`, async () => {
      const before = site.requests.length;
      await page.goto(`${site.url}${transport ? `?transport=${transport}` : ''}`);
      await page.waitForFunction(
        () => {
          const c = (window as unknown as { __demo?: { state(): { clients: DemoClients } } }).__demo?.state().clients;
          return !!c && c.socket.connected && c.socket.transport === 'websocket' && c.socket.surfaces.length >= 3 && c.ws.connected && c.ws.surfaces.includes('notifications');
        },
        undefined,
        { timeout: 20_000 },
      );
      const clients = await demoClients(page);
      assert.equal(clients.socket.transport, 'websocket', 'the served session upgraded');

      // Nothing of either connection reached the network; the page itself did (the positive witness).
      const sent = site.requests.slice(before);
      assert.ok(sent.some((p) => p.startsWith('/app.js')), `the page loaded from the static server: ${sent.join(' ')}`);
      assert.deepEqual(sent.filter((p) => p.startsWith('/socket.io') || p.startsWith('/ws-json')), []);
      assert.deepEqual(site.upgrades, []);

      // What the app sent on the served connections, as captured (the panel's port got it, as the panel does).
      let sio: Captured[] = [];
      let notif: Captured | undefined;
      await until(
        async () => {
          const { clients: all } = await captured(panel);
          const pageUrl = page.url();
          const mine = [...all.values()].filter((c) => c.client.frameUrl === pageUrl && c.client.served);
          sio = mine.filter((c) => c.client.url.includes('/socket.io/'));
          notif = mine.find((c) => c.client.url.endsWith('/ws-json'));
          const registered = sio.flatMap((c) => socketIoPackets(c.items, 'out')).filter((p) => p.type === PacketType.EVENT && (p.data as unknown[])[0] === 'surface:register');
          return registered.length >= 3 && !!notif?.items.some((i) => i.dir === 'out' && textOf(i).includes('surface:register'));
        },
        'the served clients and their registrations in the capture',
        15_000,
        100,
      );
      assert.deepEqual(sio.map((c) => c.client.kind).sort(), transport === 'websocket' ? ['websocket'] : ['polling', 'websocket'], 'the served Socket.IO phases, each marked served');

      // Registrations over Socket.IO (whichever phase carried them) and over plain JSON, in the spec's shapes.
      const sioOut = sio.flatMap((c) => socketIoPackets(c.items, 'out'));
      const connect = sioOut.find((p) => p.type === PacketType.CONNECT);
      assert.equal(connect?.nsp, '/oui', 'the client connected namespace /oui');
      const sioIn = sio.flatMap((c) => socketIoPackets(c.items, 'in'));
      const connected = sioIn.find((p) => p.type === PacketType.CONNECT);
      assert.equal(connected?.nsp, '/oui');
      assert.equal(typeof (connected?.data as { sid?: unknown })?.sid, 'string', 'the virtual server answered the connect with a sid');
      const registered = sioOut.filter((p) => p.type === PacketType.EVENT && (p.data as unknown[])[0] === 'surface:register').map((p) => checkRegistration((p.data as unknown[])[1]));
      for (const id of ['shop-nav', 'catalog', 'cart']) assert.ok(registered.includes(id), `${id} registered: ${registered.join(', ')}`);
      const wsRegs = notif!.items.filter((i) => i.dir === 'out').map((i) => JSON.parse(textOf(i)) as { type: string; payload: unknown }).filter((m) => m.type === 'surface:register');
      assert.deepEqual(wsRegs.map((m) => checkRegistration(m.payload)), ['notifications']);

      // A request injected into the served Socket.IO socket, by the existing inject path: the app answers it.
      const ws = sio.find((c) => c.client.kind === 'websocket')!;
      const requestId = crypto.randomUUID();
      const request = { requestId, surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timestamp: Date.now() };
      await command(panel, { type: 'hook:inject', id: `inject-${requestId}`, frameId: 0, target: { via: 'websocket', frameId: 0, hook: ws.hook, client: ws.client.id }, frame: `42/oui,${JSON.stringify(['action:request', request])}`, hold: [] });
      let result: { requestId: string; success: boolean; data?: { results?: Array<{ name?: string }>; total?: number } } | undefined;
      let resultAck: number | undefined;
      await until(
        async () => {
          const c = (await captured(panel)).clients.get(`${ws.hook}/${ws.client.id}`)!;
          const r = socketIoPackets(c.items, 'out').find((p) => p.type === PacketType.EVENT && (p.data as unknown[])[0] === 'action:result' && ((p.data as unknown[])[1] as { requestId?: string }).requestId === requestId);
          result = r && ((r.data as unknown[])[1] as typeof result);
          resultAck = r?.id;
          return !!result && socketIoPackets(c.items, 'in').some((p) => p.type === PacketType.ACK && p.id === resultAck);
        },
        'the app answered the injected request, and the virtual server acknowledged the result',
        15_000,
        100,
      );
      assert.equal((await captured(panel)).answers.find((a) => a.id === `inject-${requestId}`)?.ok, true, 'the hook delivered the injection');
      assert.equal(result!.success, true);
      assert.ok(Array.isArray(result!.data?.results) && result!.data!.results!.length > 0 && result!.data!.total === result!.data!.results!.length, `the search found the mugs: ${JSON.stringify(result!.data)}`);
      const ack = socketIoPackets((await captured(panel)).clients.get(`${ws.hook}/${ws.client.id}`)!.items, 'in').find((p) => p.type === PacketType.ACK && p.id === resultAck)!;
      assert.deepEqual(ack.data, [{ ok: true }], 'acknowledged as the demo runtime does');

      // The same over the served plain WebSocket.
      const listId = crypto.randomUUID();
      await command(panel, {
        type: 'hook:inject',
        id: `inject-${listId}`,
        frameId: 0,
        target: { via: 'websocket', frameId: 0, hook: notif!.hook, client: notif!.client.id },
        frame: JSON.stringify({ type: 'action:request', payload: { requestId: listId, surfaceId: 'notifications', actionId: 'list', params: { limit: 5 }, timestamp: Date.now() } }),
        hold: [],
      });
      let listResult: { success?: boolean; requestId?: string } | undefined;
      await until(
        async () => {
          const c = (await captured(panel)).clients.get(`${notif!.hook}/${notif!.client.id}`)!;
          listResult = c.items
            .filter((i) => i.dir === 'out')
            .map((i) => JSON.parse(textOf(i)) as { type: string; payload: { requestId?: string; success?: boolean } })
            .find((m) => m.type === 'action:result' && m.payload.requestId === listId)?.payload;
          return !!listResult;
        },
        'the notifications client answered over the served WebSocket',
        15_000,
        100,
      );
      assert.equal(listResult!.success, true);

      // docs/virtual-server.png: the panel on this traffic (refreshed with UPDATE_SCREENSHOTS=1).
      if (process.env.UPDATE_SCREENSHOTS && transport === 'websocket') {
        await panel.setViewportSize({ width: 1280, height: 720 });
        await panel.waitForFunction(() => [...document.querySelectorAll('.vlist [role=row]')].some((r) => /ack/.test(r.textContent ?? '')), undefined, { timeout: 10_000 });
        await panel.screenshot({ path: fileURLToPath(new URL('../../docs/virtual-server.png', import.meta.url)) });
      }
    });
  }

  test("closing the tab's last panel turns serving off: the next load goes to the network", async () => {
    assert.match(String(await page.evaluate(() => sessionStorage.getItem('__oui_devtools_serve'))), /socket\.io/, 'the rules are kept while a panel is open');
    await panel.close();
    const before = site.requests.length;
    // The background tells every frame's hook as the last panel's port closes; the page's session storage forgets the rules.
    await until(async () => (await page.evaluate(() => sessionStorage.getItem('__oui_devtools_serve'))) === null, 'the rules gone from the page', 10_000, 50);
    await page.reload();
    await until(() => site.requests.slice(before).some((p) => p.startsWith('/socket.io/?EIO=4')), 'the Socket.IO client asked the network', 15_000, 50);
    await until(() => site.upgrades.some((p) => p.startsWith('/ws-json')), 'the notifications client asked the network', 15_000, 50);
  });
});

describe('a URL that does not match goes to the network', () => {
  let demo: DemoServer;
  let page: Page;
  let panel: Page;

  before(async () => {
    demo = await startDemoServer();
    page = await browser.context.newPage();
    await page.goto(`${demo.url}healthz`);
    const tab = await tabIdOf(browser, page);
    panel = await openPanelPage(browser, tab);
    await panelPort(panel, tab);
    await command(panel, { type: 'hook:serve', id: 'serve-json', pattern: '/ws-json', on: true });
    await until(async () => (await captured(panel)).answers.some((a) => a.id === 'serve-json' && a.ok), 'the hook took the rule', 10_000, 50);
  });
  after(async () => {
    await page?.close();
    await panel?.close();
    await demo?.close();
  });

  test('only /ws-json is served: the shop client reaches the real runtime, the notifications client never does', async () => {
    await page.goto(`${demo.url}?transport=websocket`);
    // The real runtime sees the shop client (positive witness that the page's other connection went out).
    const runtimeClient = await demo.runtime.waitForClient();
    assert.ok(runtimeClient);
    await page.waitForFunction(
      () => {
        const c = (window as unknown as { __demo?: { state(): { clients: DemoClients } } }).__demo?.state().clients;
        return !!c && c.socket.connected && c.socket.surfaces.length >= 3 && c.ws.connected && c.ws.surfaces.includes('notifications');
      },
      undefined,
      { timeout: 20_000 },
    );
    const r = await demo.runtime.request(runtimeClient, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
    assert.equal(r.success, true, 'the real runtime asked the app and got its answer');
    assert.deepEqual(demo.wsRuntime.clients(), [], 'the ws-json runtime never saw the served client');
    // The hook relays in the page's idle time: both sockets' clients reach the port a moment later.
    const sockets = async () => {
      const { clients } = await captured(panel);
      const mine = [...clients.values()].filter((c) => c.client.frameUrl === page.url());
      return mine.filter((c) => c.client.kind === 'websocket').map((c) => [new URL(c.client.url).pathname, c.client.served === true]).sort();
    };
    await until(async () => (await sockets()).length >= 2, 'both sockets captured', 10_000, 50).catch(() => undefined);
    assert.deepEqual(await sockets(), [
      ['/socket.io/', false],
      ['/ws-json', true],
    ]);
  });
});
