/**
 * Socket.IO injection from the moment the WebSocket carries the session: a
 * client that joins and registers over long-polling, upgrades, and then sends
 * nothing at all (or only heartbeats) is injected into and replayed into from
 * the panel. The page's client holds its WebSocket back until the test lets
 * it upgrade, so the registration and the runtime's own request always go
 * over long-polling; the server checks that no message ever went over the
 * WebSocket before the panel sent one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Server, type Socket as ServerSocket } from 'socket.io';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { injectable, SLOW_MS } from '../support/demo-page.ts';

interface QuietServer {
  url: string;
  io: Server;
  /** The client's Socket.IO socket on `/oui`, once it registered. */
  client(): Promise<ServerSocket>;
  /** Socket.IO messages the server received over a WebSocket, by Engine.IO session. */
  wsMessages: number;
  /** Heartbeat answers (pong packets) the server received over a WebSocket. */
  wsPongs: number;
  upgraded: boolean;
  results: Array<{ requestId?: string }>;
  close(): Promise<void>;
}

const pageScript = (async () => {
  const out = await build({
    entryPoints: [fileURLToPath(new URL('../support/quiet-socketio-page.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'chrome111',
    platform: 'browser',
    logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
})();

async function startQuietServer(opts: { pingInterval?: number } = {}): Promise<QuietServer> {
  const js = await pageScript;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/client.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>quiet</title><p>count <span id="count">0</span></p><script src="/client.js"></script>');
    res.writeHead(404).end();
  });
  const io = new Server(server, { serveClient: false, ...(opts.pingInterval ? { pingInterval: opts.pingInterval, pingTimeout: 5000 } : {}) });
  const state: Omit<QuietServer, 'url' | 'io' | 'client' | 'close'> = { wsMessages: 0, wsPongs: 0, upgraded: false, results: [] };
  io.engine.on('connection', (conn: { on(ev: string, fn: (...a: never[]) => void): void; transport: { name: string } }) => {
    conn.on('upgrade', () => (state.upgraded = true));
    conn.on('packet', (p: { type: string }) => {
      if (p.type === 'message' && conn.transport.name === 'websocket') state.wsMessages++;
      if (p.type === 'pong' && conn.transport.name === 'websocket') state.wsPongs++;
    });
  });
  let resolveClient!: (s: ServerSocket) => void;
  const registered = new Promise<ServerSocket>((r) => (resolveClient = r));
  io.of('/oui').on('connection', (s) => {
    s.on('surface:register', () => resolveClient(s));
    s.on('action:result', (p: { requestId?: string }) => state.results.push(p));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/`,
    io,
    client: () => registered,
    async close() {
      io.disconnectSockets(true);
      await new Promise<void>((r) => {
        io.close(() => r());
        server.closeAllConnections();
      });
    },
  });
}

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Picks the Socket.IO client, its surface and action in the composer by their labels, and fills `by` through the form. */
async function compose(panel: Page, by: number): Promise<void> {
  await panel.getByRole('tab', { name: 'Inject' }).click();
  const picker = panel.getByLabel('Inject into client');
  const option = picker.locator('option', { hasText: 'socket.io:' });
  await option.first().waitFor({ state: 'attached' });
  await picker.selectOption((await option.first().getAttribute('value'))!);
  await panel.getByLabel('Surface', { exact: true }).selectOption('counter');
  await panel.getByLabel('Action', { exact: true }).selectOption('bump');
  await panel.getByLabel('by', { exact: true }).fill(String(by));
}

/** The newest history row once it shows the client's final answer. */
async function newestAnswer(panel: Page, count: number): Promise<{ answer: string; requestId: string }> {
  const rows = panel.getByTestId('inject-history').locator('tbody tr');
  await until(async () => (await rows.count()) >= count, `${count} history rows`);
  const row = rows.first();
  await until(async () => /success|error/.test(await row.getByTestId('inject-answer').innerText()), "the client's answer");
  return { answer: (await row.getByTestId('inject-answer').innerText()).trim(), requestId: (await row.getAttribute('data-request-id'))! };
}

const ranOnPage = (page: Page) => page.evaluate(() => (window as unknown as { __quiet: { ran: string[] } }).__quiet.ran.slice());

for (const variant of ['polling, then a quiet upgrade', 'polling, then a quiet upgrade with heartbeats only', 'WebSocket only'] as const) {
  describe(`Socket.IO ${variant}`, () => {
    let server: QuietServer;
    let browser: Browser;
    let page: Page;
    let panel: Page;
    const wsOnly = variant === 'WebSocket only';
    const pings = variant.includes('heartbeats');

    before(async () => {
      server = await startQuietServer(pings ? { pingInterval: 150 } : {});
      browser = await launch({ rows: 'events', viewport: { width: 1300, height: 850 } });
      page = await browser.context.newPage();
      await page.goto(`${server.url}${wsOnly ? '?transport=websocket' : ''}`);
      panel = await openPanelPage(browser, await tabIdOf(browser, page));
      const s = await server.client();
      // The runtime's own request: answered over long-polling (or the only WebSocket), before any injection.
      const receipt = await s.timeout(5000).emitWithAck('action:request', { requestId: '11111111-2222-4333-8444-555555555555', surfaceId: 'counter', actionId: 'bump', params: { by: 1 }, timestamp: Date.now() });
      assert.deepEqual(receipt, { ok: true });
      await until(() => server.results.length === 1, "the runtime's request answered");
      if (!wsOnly) {
        assert.equal(server.upgraded, false, 'still on long-polling: the WebSocket is held back');
        await page.evaluate(() => (window as unknown as { __quiet: { upgrade(): void } }).__quiet.upgrade());
      }
      await until(() => page.evaluate(() => (window as unknown as { __quiet: { transport(): string } }).__quiet.transport() === 'websocket'), 'the client on WebSocket');
      // Heartbeats only: some have gone over the WebSocket before anything else.
      if (pings) await until(() => server.wsPongs >= 2, 'two heartbeats over the WebSocket', SLOW_MS);
      // The panel has heard of the upgrade: it offers the client as injectable.
      await injectable(panel, 'socket.io');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('the composer can send at once, and the injected request runs and is answered', async () => {
      if (!wsOnly) assert.equal(server.upgraded, true);
      const wsBefore = server.wsMessages;
      if (!wsOnly) assert.equal(wsBefore, 0, 'the client sent nothing over the WebSocket: the panel had only the upgrade to go by');
      await compose(panel, 2);
      assert.equal(await panel.getByText('has not upgraded to WebSocket').count(), 0);
      const send = panel.getByRole('button', { name: 'Send', exact: true });
      assert.equal(await send.isEnabled(), true, 'Send is enabled for the quiet client');
      await send.click();
      const { answer, requestId } = await newestAnswer(panel, 1);
      assert.equal(answer, 'success');
      assert.ok((await ranOnPage(page)).includes(requestId), "the page's client ran the injected request");
      await page.waitForFunction(() => document.getElementById('count')?.textContent === '3');
      assert.equal(server.results.some((r) => r.requestId === requestId), false, "the answer was kept from the app's runtime");
    });

    test("the runtime's captured request replays into the same quiet client", async () => {
      await panel.getByRole('tab', { name: 'Timeline' }).click();
      await panel.getByLabel('Free-text filter').fill('11111111-2222');
      await panel.locator('.vlist [role=row][data-type="action:request"]').first().click();
      await panel.getByRole('button', { name: 'Replay', exact: true }).click();
      await panel.getByLabel('Free-text filter').fill('');
      await panel.getByRole('tab', { name: 'Inject' }).click();
      const { answer, requestId } = await newestAnswer(panel, 2);
      assert.equal(answer, 'success');
      assert.notEqual(requestId, '11111111-2222-4333-8444-555555555555');
      assert.ok((await ranOnPage(page)).includes(requestId), 'the replay reached the client');
      await page.waitForFunction(() => document.getElementById('count')?.textContent === '4');
    });
  });
}
