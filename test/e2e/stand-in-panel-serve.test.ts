/**
 * No runtime at all: the demo app served by a static server with no Socket.IO
 * and no WebSocket endpoint (test/support/static-demo.ts, which logs every
 * request and refuses every upgrade). In the Runtime view the user names the
 * shop's Socket.IO endpoint in "URL pattern" and clicks Serve; after a reload
 * the shop client connects to the virtual server inside the page, registers
 * its surfaces, and a request sent as the stand-in is answered by the app,
 * while the static server's own log shows nothing of it reached the network.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startStaticDemo, type StaticDemo } from '../support/static-demo.ts';
import { SLOW_MS } from '../support/wait.ts';
import type { DemoState } from '../support/demo-page.ts';

let server: StaticDemo;
let browser: Browser;
let page: Page;
let panel: Page;

describe('the virtual server from the Runtime view', () => {
  before(async () => {
    server = await startStaticDemo();
    browser = await launch({ viewport: { width: 1400, height: 900 } });
    page = await browser.context.newPage();
    await page.goto(server.url);
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('Serve the Socket.IO endpoint: the app connects with no runtime running and answers the stand-in', async () => {
    const origin = new URL(server.url).host;
    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.getByLabel('URL pattern').fill(`http://${origin}/socket.io/`);
    await panel.getByRole('button', { name: 'Serve', exact: true }).click();
    const served = panel.getByRole('list', { name: 'Served URL patterns' });
    await served.getByText(/— served/).waitFor({ timeout: SLOW_MS });

    // The rule holds for the tab's next documents: reload, and the shop client connects to the virtual server.
    const requestsBefore = server.requests.length;
    const upgradesBefore = server.upgrades.length;
    await page.reload();
    await page.waitForFunction(
      () => {
        const s = (window as unknown as { __demo?: { state(): DemoState } }).__demo?.state();
        return !!s && s.clients.socket.connected && s.clients.socket.transport === 'websocket' && s.clients.socket.surfaces.length > 0;
      },
      undefined,
      { timeout: SLOW_MS },
    );
    const connections = panel.getByRole('list', { name: 'Connections to the virtual server' });
    await connections.getByText(/^socket\.io: .*\/socket\.io\/ \/oui/).waitFor({ timeout: SLOW_MS });
    const row = panel.getByRole('table', { name: 'Clients and their runtime' }).locator('tr', { hasText: /^socket\.io:/ });
    assert.match(await row.innerText(), /stand-in \(virtual server, no runtime\)/);

    await panel.waitForFunction(
      () => [...document.querySelectorAll('select[aria-label="Surface"] option')].some((o) => (o as HTMLOptionElement).value === 'catalog' && (o as HTMLOptionElement).dataset.mounted === 'true'),
      undefined,
      { timeout: SLOW_MS },
    );
    await panel.getByLabel('Surface', { exact: true }).selectOption('catalog');
    await panel.getByLabel('Action', { exact: true }).selectOption('add_to_cart');
    await panel.getByLabel('Params JSON').fill(JSON.stringify({ productId: 'mug-travel', quantity: 3 }));
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    const answer = panel.getByRole('table', { name: 'Stand-in requests' }).locator('tbody tr').first().getByTestId('stand-in-answer');
    await answer
      .filter({ hasText: /^(success|error|timeout|unavailable|not delivered)/ })
      .waitFor({ timeout: SLOW_MS })
      .catch(async (e: Error) => {
        // Said with what the view showed: the request's row and the clients' seats.
        const shown = [await panel.getByRole('table', { name: 'Stand-in requests' }).innerText(), await panel.getByRole('table', { name: 'Clients and their runtime' }).innerText()];
        throw new Error(`${e.message}\n${shown.join('\n')}`);
      });
    assert.match(await answer.innerText(), /^success/);
    // The app's own state: the handler ran.
    await page.waitForFunction(() => document.querySelector('#cart-count')?.textContent === '3');

    // What did reach the network is logged: the reloaded page's script, and the notifications client's WebSocket (not served, refused).
    assert.ok(server.requests.slice(requestsBefore).some((r) => r.startsWith('/app.js')), 'the reload fetched the app');
    assert.ok(server.upgrades.slice(upgradesBefore).some((u) => u.startsWith('/ws-json')), "the unserved socket's upgrade reached the server");
    // Nothing of the shop's connection did since it is served (before, the page's first tries went out and failed).
    assert.deepEqual(
      server.requests.slice(requestsBefore).filter((r) => r.startsWith('/socket.io')),
      [],
    );
    assert.deepEqual(
      server.upgrades.slice(upgradesBefore).filter((u) => u.startsWith('/socket.io')),
      [],
    );

    await panel.getByRole('button', { name: `Stop serving http://${origin}/socket.io/` }).click();
    await served.waitFor({ state: 'detached' });
  });
});
