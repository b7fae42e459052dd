/**
 * `oui.serve` of oui-devtools/playwright, in real Chromium with no extension:
 * the fixture's capture (OuiCapture, as the `oui` fixture attaches it, with
 * the built init script) on a context whose pages load the demo app from a
 * static server with no runtime (test/support/static-demo.ts). With the
 * Socket.IO endpoint and `/ws-json` served, the app connects and registers;
 * `oui.call` (the stand-in runtime) asks each client through the virtual
 * server and gets the app's answers; nothing reached the network. After
 * `stop()`, a reloaded page's Socket.IO client goes to the network again
 * (the static server sees its requests, and refuses them).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OuiCapture } from '../../src/playwright/capture.ts';
import { chromiumPath, CHROMIUM_FLAGS } from '../support/browser.ts';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { startStaticDemo, type StaticDemo } from '../support/static-demo.ts';
import { until } from '../support/wait.ts';

const INIT = fileURLToPath(new URL('../../dist/playwright/oui-init.js', import.meta.url));

type DemoClients = { socket: { connected: boolean; transport: string; surfaces: string[] }; ws: { connected: boolean; surfaces: string[] } };
const connected = (page: Page) =>
  page.waitForFunction(
    () => {
      const c = (window as unknown as { __demo?: { state(): { clients: DemoClients } } }).__demo?.state().clients;
      return !!c && c.socket.connected && c.socket.transport === 'websocket' && c.socket.surfaces.includes('catalog') && c.ws.connected && c.ws.surfaces.includes('notifications');
    },
    undefined,
    { timeout: 20_000 },
  );

describe('oui.serve: the Playwright fixture with no runtime', () => {
  let site: StaticDemo;
  let browser: Browser;
  let capture: OuiCapture;
  let page: Page;

  before(async () => {
    ensureFreshBuild();
    site = await startStaticDemo();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
    const context = await browser.newContext();
    capture = await OuiCapture.attach(context, readFileSync(INIT, 'utf8'));
    page = await context.newPage();
  });
  after(async () => {
    capture?.close();
    await browser?.close();
    await site?.close();
  });

  test('served before the first page: the app connects, registers, and answers oui.call through the virtual server', async () => {
    const sio = await capture.serve('/socket.io/');
    await capture.serve(`${new URL(site.url).host}/ws-json`);
    await page.goto(site.url);
    await connected(page);

    const search = await capture.call('catalog', 'search', { query: 'mug' });
    assert.equal(search.success, true);
    const data = search.data as { results: Array<{ name: string }>; total: number };
    assert.ok(data.results.length > 0 && data.results.every((p) => /mug/i.test(JSON.stringify(p))), `mugs found: ${JSON.stringify(data).slice(0, 200)}`);
    const list = await capture.call('notifications', 'list', { limit: 3 });
    assert.equal(list.success, true);

    // The clients are in the capture (the stand-in found them there), and none of their traffic left the page.
    assert.ok(capture.snapshot().clients.length >= 2);
    assert.deepEqual(site.requests.filter((p) => p.startsWith('/socket.io') || p.startsWith('/ws-json')), []);
    assert.deepEqual(site.upgrades, []);

    // Stopped: a new document's Socket.IO client goes to the network (which has nothing there).
    await sio.stop();
    await page.reload();
    await until(() => site.requests.some((p) => p.startsWith('/socket.io/?EIO=4')), 'the Socket.IO client asked the network again', 15_000, 50);
    const state = await page.evaluate(() => (window as unknown as { __demo: { state(): { clients: DemoClients } } }).__demo.state().clients);
    assert.equal(state.socket.connected, false, 'no runtime there');
    await page.waitForFunction(() => (window as unknown as { __demo: { state(): { clients: DemoClients } } }).__demo.state().clients.ws.connected, undefined, { timeout: 10_000 });
  });
});
