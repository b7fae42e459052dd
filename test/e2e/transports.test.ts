/**
 * Every transport of the demo app reaches the panel: Socket.IO over
 * long-polling and WebSocket, plain-JSON WebSocket, postMessage with an
 * iframe client, and the direct-call hook. The panel is opened both as a page
 * and inside real DevTools.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { launch, openDevtoolsPanel, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { demoUpgraded } from '../support/demo-page.ts';

type Panel = Page | Frame;

interface Row {
  type: string;
  kind: string;
  via: string;
  text: string;
}

async function rows(panel: Panel): Promise<Row[]> {
  return panel.locator('.vlist [role=row]').evaluateAll((els) =>
    els.map((el) => ({
      type: el.getAttribute('data-type') ?? '',
      kind: el.getAttribute('data-client-kind') ?? '',
      via: el.getAttribute('data-via') ?? '',
      text: (el as HTMLElement).innerText,
    })),
  );
}

async function waitFor(panel: Panel, what: string, predicate: (rows: Row[]) => boolean, timeout = 20_000): Promise<Row[]> {
  const deadline = Date.now() + timeout;
  let last: Row[] = [];
  while (Date.now() < deadline) {
    last = await rows(panel);
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  assert.fail(`${what}: never shown. Last rows:\n${last.slice(-15).map((r) => `${r.kind} ${r.via} ${r.text}`).join('\n')}`);
}

const has = (kind: string, type: string, text: string, via?: string) => (list: Row[]) =>
  list.some((r) => r.kind === kind && r.type === type && r.text.includes(text) && (via === undefined || r.via === via));

/** Drives the demo's four clients and checks that the panel shows each transport's traffic. */
async function checkEveryTransport(demo: DemoServer, page: Page, panel: Panel): Promise<void> {
  // The virtualised list renders what is in view: filter to keep the rows checked on screen.
  const filter = async (text: string) => panel.locator('input[aria-label="Free-text filter"]').fill(text);

  // A default socket.io-client connects its namespace over long-polling, before it upgrades.
  await filter('socket.io connect');
  await waitFor(panel, 'Socket.IO connect over polling', (list) => list.some((r) => r.kind === 'socket.io' && r.via === 'polling'));
  await filter('surface:register');
  await waitFor(panel, 'Socket.IO registration', has('socket.io', 'surface:register', 'cart'));
  await waitFor(panel, 'WebSocket JSON registration', has('websocket', 'surface:register', 'notifications'));
  await waitFor(panel, 'postMessage registration', has('postmessage', 'surface:register', 'coupon-widget'));
  await waitFor(panel, 'direct-hook registration', has('direct', 'surface:register', 'help'));

  const client = await demo.runtime.waitForClient();
  await demoUpgraded(page); // the client has finished its upgrade to WebSocket
  const result = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
  assert.equal(result.success, true);
  await filter('search');
  await waitFor(panel, 'Socket.IO request over WebSocket', has('socket.io', 'action:request', 'catalog › search', 'websocket'));
  await waitFor(panel, 'Socket.IO result', has('socket.io', 'action:result', 'catalog › search'));

  await page.click('#assistant-tip');
  await filter('show_tip');
  await waitFor(panel, 'direct-hook request', has('direct', 'action:request', 'help › show_tip'));
  await waitFor(panel, 'direct-hook result', has('direct', 'action:result', 'show_tip'));

  await page.evaluate(() => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<unknown> } }).__demo.hostFrame('apply_coupon', { code: 'SAVE10' }));
  await filter('coupon');
  await waitFor(panel, 'postMessage request', has('postmessage', 'action:request', 'coupon-widget › apply_coupon'));
  await waitFor(panel, 'postMessage result', has('postmessage', 'action:result', 'apply_coupon'));
  await waitFor(panel, 'postMessage observation', has('postmessage', 'observation:update', 'coupon'));

  await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'notifications', actionId: 'list', params: {} });
  await filter('notifications');
  await waitFor(panel, 'WebSocket JSON request', has('websocket', 'action:request', 'notifications › list'));
  await waitFor(panel, 'WebSocket JSON result', has('websocket', 'action:result', 'list'));
  await filter('');
}

describe('every transport reaches the panel', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemoServer();
  });
  after(async () => {
    await demo?.close();
  });

  test('panel opened as a page', async () => {
    const browser = await launch({ rows: 'events' });
    try {
      const page = await browser.context.newPage();
      await page.goto(demo.url);
      const panel = await openPanelPage(browser, await tabIdOf(browser, page));
      await checkEveryTransport(demo, page, panel);
    } finally {
      await browser.close();
    }
  });

  test('Socket.IO long-polling over fetch() is captured too', async () => {
    const browser = await launch({ rows: 'events' });
    try {
      const page = await browser.context.newPage();
      const requests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('transport=polling')) requests.push(r.resourceType());
      });
      await page.goto(`${demo.url}?transport=fetch`);
      const panel = await openPanelPage(browser, await tabIdOf(browser, page));
      await panel.locator('input[aria-label="Free-text filter"]').fill('socket.io connect');
      await waitFor(panel, 'Socket.IO connect over fetch polling', (list) => list.some((r) => r.kind === 'socket.io' && r.via === 'polling'));
      assert.ok(requests.length > 0 && requests.every((t) => t === 'fetch'), `polling went over fetch: ${requests.join(',')}`);
      await panel.locator('input[aria-label="Free-text filter"]').fill('surface:register');
      await waitFor(panel, 'Socket.IO registration', has('socket.io', 'surface:register', 'cart'));
    } finally {
      await browser.close();
    }
  });

  test('panel inside real DevTools', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launch({ rows: 'events', devtools: true });
      const page = browser.context.pages().find((p) => !p.url().startsWith('devtools://')) ?? (await browser.context.newPage());
      await page.goto(demo.url);
      const panel = await openDevtoolsPanel(browser);
      await checkEveryTransport(demo, page, panel);
    } finally {
      await browser?.close();
    }
  });
});
