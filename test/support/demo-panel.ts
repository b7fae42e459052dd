/**
 * The demo app (test/demo) in real Chromium with the OUI panel opened as a
 * page on its tab, the set-up most panel e2e files share; and the traffic they
 * put behind it: the runtime's tour with its order approved on the page, and
 * orders refused for want of an approval.
 */
import type { Frame, Page } from 'playwright-core';
import { launch, openDevtoolsPanel, openPanelPage, tabIdOf, type Browser, type LaunchOptions } from './browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { demoUpgraded, injectable } from './demo-page.ts';
import { SLOW_MS } from './wait.ts';

export const ORDER = {
  shipping: { name: 'Ada Lovelace', address: { street: '12 Analytical Row', city: 'London', postcode: 'N1 9GU', country: 'GB' }, method: 'standard' },
  payment: { type: 'card', last4: '4242' },
};

export interface DemoPanel {
  demo: DemoServer;
  browser: Browser;
  /** The demo app's tab. */
  page: Page;
  /** The panel, as a page, on that tab. */
  panel: Page;
  tabId: number;
  close(): Promise<void>;
}

/**
 * Starts the demo server, launches Chromium with the extension (1400×900
 * unless `opts.viewport` says), opens the demo in a tab and the panel on it.
 * Whatever was started is closed again if a later step fails, so a failed
 * set-up never leaves the test process hanging on an open browser or server.
 */
export async function openDemoPanel(opts: Pick<LaunchOptions, 'viewport' | 'rows'> = {}): Promise<DemoPanel> {
  const demo = await startDemoServer();
  let browser: Browser | undefined;
  try {
    browser = await launch({ viewport: opts.viewport ?? { width: 1400, height: 900 }, ...(opts.rows ? { rows: opts.rows } : {}) });
    const page = await browser.context.newPage();
    await page.goto(demo.url);
    const tabId = await tabIdOf(browser, page);
    const panel = await openPanelPage(browser, tabId);
    const b = browser;
    return {
      demo,
      browser: b,
      page,
      panel,
      tabId,
      async close() {
        await b.close();
        await demo.close();
      },
    };
  } catch (e) {
    await browser?.close();
    await demo.close();
    throw e;
  }
}

/**
 * The runtime's tour (search, cart, a refused over-large result re-sent
 * trimmed, a repeated request, an order approved by clicking the page's
 * Approve button, an async export), then `refused` orders sent at /checkout
 * without an approval (each refused by the client), and back to /. Returns
 * the runtime's client id.
 */
export async function tourTraffic(d: Pick<DemoPanel, 'demo' | 'page'>, opts: { refused?: number; stepMs?: number } = {}): Promise<string> {
  const { runtime } = d.demo;
  const client = await runtime.waitForClient();
  const tour = runtime.runScenario('tour', client, { stepMs: opts.stepMs ?? 50, approvalTimeoutMs: 30_000 });
  await d.page.locator('#approve-btn').click({ timeout: 30_000 });
  await tour;
  await runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
  for (let i = 0; i < (opts.refused ?? 1); i++) {
    const r = await runtime.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
    if (r.success !== false) throw new Error('an order without approval was not refused');
  }
  await runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
  return client;
}

/**
 * The demo and its panel with the tour's traffic behind it (and one refused
 * order), so every view has something to show: for tests that look at the
 * panel rather than at the capture. Resolves once the Timeline shows `rows`
 * rows at least.
 */
export async function demoPanelWithTraffic(opts: Pick<LaunchOptions, 'viewport'> = {}, rows = 10): Promise<DemoPanel> {
  const d = await openDemoPanel(opts);
  try {
    await tourTraffic(d, { refused: 1 });
    await d.panel.waitForFunction((n) => document.querySelectorAll('.vlist [role=row]').length >= n, rows, { timeout: SLOW_MS });
    return d;
  } catch (e) {
    await d.close();
    throw e;
  }
}

/**
 * The demo app in a tab of Chromium launched with DevTools open (docked at
 * the bottom), and the OUI panel inside that real DevTools window: its frame,
 * and DevTools' own page around it.
 */
export async function openDemoInDevtools(): Promise<{ demo: DemoServer; browser: Browser; page: Page; panel: Frame; devtools: Page; close(): Promise<void> }> {
  const demo = await startDemoServer();
  let browser: Browser | undefined;
  try {
    browser = await launch({ devtools: true, viewport: { width: 1280, height: 800 } });
    const b = browser;
    const page = b.context.pages().find((p) => !p.url().startsWith('devtools://')) ?? (await b.context.newPage());
    await page.goto(demo.url);
    const panel = await openDevtoolsPanel(b);
    const devtools = b.context.pages().find((p) => p.url().startsWith('devtools://'))!;
    return {
      demo,
      browser: b,
      page,
      panel,
      devtools,
      async close() {
        await b.close();
        await demo.close();
      },
    };
  } catch (e) {
    await browser?.close();
    await demo.close();
    throw e;
  }
}

/** Ready to inject: the demo's Socket.IO client on WebSocket (injection rides it), and the composer offering it. */
export async function composerReady(d: Pick<DemoPanel, 'demo' | 'page' | 'panel'>): Promise<void> {
  await d.demo.runtime.waitForClient();
  await demoUpgraded(d.page);
  await injectable(d.panel, 'socket.io');
}
