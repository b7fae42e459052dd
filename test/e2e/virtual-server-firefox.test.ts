/**
 * The virtual server in Firefox, with the built extension (puppeteer over
 * WebDriver BiDi, test/support/firefox.ts): the demo app from a static server
 * with no runtime, `hook:serve` from a port of the extension's panel page
 * (panel → background → bridge → hook, as in Chromium); the shop client
 * starts on long-polling (XMLHttpRequest answered in the page), upgrades to
 * the served WebSocket and registers, the notifications client registers on
 * its served WebSocket, a request injected into the served Socket.IO socket
 * is answered by the app, and nothing reached the network.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'puppeteer-core';
import { firefoxTabId, gotoExtensionPage, launchFirefox, waitIn, type Firefox } from '../support/firefox.ts';
import { startStaticDemo, type StaticDemo } from '../support/static-demo.ts';
import { SLOW_MS, until } from '../support/wait.ts';

type Port = { postMessage(m: unknown): void; onMessage: { addListener(fn: (m: unknown) => void): void } };
type Logged = { type: string; message?: { type: string; hook: string; id?: string; ok?: boolean; clients?: Array<{ id: string; url: string; kind: string; served?: boolean; frameUrl: string }>; items?: Array<{ client: string; dir?: string; payload?: { text?: string } }> } };

describe('the virtual server in Firefox', () => {
  let ff: Firefox;
  let site: StaticDemo;
  let page: Page;
  let panel: Page;

  before(async () => {
    site = await startStaticDemo();
    ff = await launchFirefox();
    page = await ff.browser.newPage();
    await page.goto(`${site.url}blank`);
    const tabId = await firefoxTabId(ff, page);
    panel = await ff.browser.newPage();
    await gotoExtensionPage(panel, `${ff.origin}/panel.html?tabId=${tabId}`);
    await panel.evaluate((tab: number) => {
      const w = window as unknown as { __serveLog: unknown[]; __servePort: Port; browser: { runtime: { connect(o: object): Port } } };
      w.__serveLog = [];
      w.__servePort = w.browser.runtime.connect({ name: 'panel' });
      w.__servePort.onMessage.addListener((m) => w.__serveLog.push(m));
      w.__servePort.postMessage({ type: 'panel:hello', v: 2, tabId: tab });
    }, tabId);
  });
  after(async () => {
    await ff?.close();
    await site?.close();
  });

  const send = (m: object) => panel.evaluate((x: object) => (window as unknown as { __servePort: Port }).__servePort.postMessage(x), m);
  const log = () => panel.evaluate(() => (window as unknown as { __serveLog: Logged[] }).__serveLog) as Promise<Logged[]>;

  test('polling first, then the served WebSocket; registrations and an injected request answered, with no runtime', async () => {
    const host = new URL(site.url).host;
    await send({ type: 'hook:serve', id: 'ff-sio', pattern: `${host}/socket.io/`, on: true });
    await send({ type: 'hook:serve', id: 'ff-ws', pattern: `${host}/ws-json`, on: true });
    await waitIn(panel, 'the rules taken', () => (window as unknown as { __serveLog: Logged[] }).__serveLog.filter((m) => m.message?.type === 'answer' && m.message.ok).length >= 2, null);

    const before = site.requests.length;
    await page.goto(site.url);
    await waitIn(
      page,
      'both clients connected and registered',
      () => {
        const c = (window as unknown as { __demo?: { state(): { clients: { socket: { connected: boolean; transport: string; surfaces: string[] }; ws: { connected: boolean; surfaces: string[] } } } } }).__demo?.state().clients;
        return !!c && c.socket.connected && c.socket.transport === 'websocket' && c.socket.surfaces.includes('catalog') && c.ws.connected && c.ws.surfaces.includes('notifications');
      },
      null,
      20_000,
    );
    const sent = site.requests.slice(before);
    assert.ok(sent.some((p) => p.startsWith('/app.js')), 'the page itself came from the network');
    assert.deepEqual(sent.filter((p) => p.startsWith('/socket.io') || p.startsWith('/ws-json')), []);
    assert.deepEqual(site.upgrades, []);

    // The served clients as the hook reported them: both Socket.IO phases and the plain socket, marked served.
    const pageUrl = page.url();
    let clients: Array<{ hook: string; id: string; url: string; kind: string }> = [];
    await until(
      async () => {
        clients = (await log()).flatMap((m) => (m.message?.type === 'items' ? (m.message.clients ?? []).filter((c) => c.served && c.frameUrl === pageUrl).map((c) => ({ hook: m.message!.hook, id: c.id, url: c.url, kind: c.kind })) : []));
        return clients.length >= 3;
      },
      'the three served clients reported',
      SLOW_MS,
      100,
    );
    assert.deepEqual(clients.map((c) => `${c.kind} ${new URL(c.url).pathname}`).sort(), ['polling /socket.io/', 'websocket /socket.io/', 'websocket /ws-json']);

    const ws = clients.find((c) => c.kind === 'websocket' && c.url.includes('/socket.io/'))!;
    const requestId = crypto.randomUUID();
    const request = { requestId, surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timestamp: Date.now() };
    await send({ type: 'hook:inject', id: `ff-${requestId}`, frameId: 0, target: { via: 'websocket', frameId: 0, hook: ws.hook, client: ws.id }, frame: `42/oui,${JSON.stringify(['action:request', request])}`, hold: [] });
    const answer = await waitIn(
      panel,
      'the app answered the injected request',
      (id: string) =>
        (window as unknown as { __serveLog: Logged[] }).__serveLog
          .flatMap((m) => (m.message?.type === 'items' ? m.message.items ?? [] : []))
          .map((i) => (i.dir === 'out' ? (i.payload?.text ?? '') : ''))
          .find((t) => t.includes('"action:result"') && t.includes(id)),
      requestId,
    );
    // A Socket.IO EVENT with an ack id, the event name and its payload: read by the packet's grammar, not by the product's decoder.
    const m = /^42\/oui,(\d+)(\[.*\])$/.exec(answer);
    assert.ok(m, `an event asking for an ack: ${answer.slice(0, 80)}`);
    const [name, result] = JSON.parse(m[2]!) as [string, { requestId: string; success: boolean; data: { results: unknown[] } }];
    assert.equal(name, 'action:result');
    assert.equal(result.requestId, requestId);
    assert.equal(result.success, true);
    assert.ok(result.data.results.length > 0);
    await waitIn(
      panel,
      'the virtual server acknowledged the result',
      (ack: string) => (window as unknown as { __serveLog: Logged[] }).__serveLog.some((x) => x.message?.type === 'items' && (x.message.items ?? []).some((i) => i.dir === 'in' && i.payload?.text === ack)),
      `43/oui,${m[1]}[{"ok":true}]`,
    );
  });
});
