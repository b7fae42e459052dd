/**
 * Arrival order never changes the model, end to end in real Chromium: the
 * demo's coupon widget is a cross-origin iframe, so its requests are
 * captured by the iframe's hook and its answers by the host's, and the two
 * reach the panel in separate batches, in either order. Many requests
 * answered quickly: every one is paired, none stays pending, and no answer
 * is said to be for a request "never received".
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS } from '../support/wait.ts';

const REQUESTS = 200;

let demo: DemoServer;
let browser: Browser;

before(async () => {
  demo = await startDemoServer();
  browser = await launch({ rows: 'events' });
});

after(async () => {
  await browser?.close();
  await demo?.close();
});

/** The timeline's "shown / all events" count with the given filters. */
async function shown(panel: Page, status: string): Promise<number> {
  await panel.selectOption('select[aria-label="Status"]', status);
  const text = (await panel.locator('[data-testid=event-count]').innerText()).trim();
  return Number(/^(\d+)/.exec(text)?.[1] ?? NaN);
}

describe('a cross-origin iframe client answering many requests quickly', () => {
  test('every request is paired with its answer: none pending, none "never received"', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${demo.url}?crossOrigin=1`);
    const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
    assert.notEqual(new URL(frame.url()).origin, new URL(page.url()).origin, 'the widget is cross-origin');
    const panel = await openPanelPage(browser, await tabIdOf(browser, page));
    try {
      await page.waitForFunction(() => {
        const s = (window as unknown as { __demo: { state(): { clients: { frame: { connected: boolean; surfaces: string[] } } } } }).__demo.state();
        return s.clients.frame.connected && s.clients.frame.surfaces.includes('coupon-widget');
      });
      // The host page, as the widget's runtime, sends the next request as soon as the last is answered, and a burst at
      // once: round trips far shorter than a hook's batching, so the two frames' batches cut between a request and its
      // answer, and the answer's batch often reaches the panel first.
      const succeeded = await page.evaluate(async (n) => {
        const demoApi = (window as unknown as { __demo: { hostFrame(a: string, p: Record<string, unknown>): Promise<{ success: boolean }> } }).__demo;
        const codes = ['SAVE10', 'WELCOME15', 'AGENT20'];
        let ok = 0;
        for (let i = 0; i < n / 2; i++) if ((await demoApi.hostFrame('apply_coupon', { code: codes[i % codes.length]! })).success) ok++;
        const burst = await Promise.all(Array.from({ length: n / 2 }, (_, i) => demoApi.hostFrame('apply_coupon', { code: codes[i % codes.length]! })));
        return ok + burst.filter((r) => r.success).length;
      }, REQUESTS);
      assert.equal(succeeded, REQUESTS, 'the widget answered every request');

      await panel.click('#tab-timeline');
      await panel.selectOption('select[aria-label="Type"]', 'requests');
      await panel.fill('input[aria-label="Free-text filter"]', 'surface:coupon-widget action:apply_coupon');
      // Everything captured has reached the panel...
      const deadline = Date.now() + SLOW_MS; // a wait for a loaded machine, not a timing
      let all = 0;
      while (Date.now() < deadline && (all = await shown(panel, '')) < REQUESTS) await panel.waitForTimeout(200);
      assert.equal(all, REQUESTS, 'every request reached the panel');
      // ...and once the reorder window has closed, every request is paired: no re-sorting ever leaves one pending.
      let done = 0;
      let pending = NaN;
      while (Date.now() < deadline) {
        done = await shown(panel, 'succeeded');
        pending = await shown(panel, 'pending');
        if (done === REQUESTS && pending === 0) break;
        await panel.waitForTimeout(200);
      }
      assert.equal(pending, 0, 'no request is left pending');
      assert.equal(done, REQUESTS, 'every request succeeded in the panel, as it did in the page');

      await panel.click('#tab-findings');
      const findings = await panel.locator('main, body').first().innerText();
      assert.doesNotMatch(findings, /never received/, 'no answer is taken for one to a request never received');
    } finally {
      await panel.close();
      await page.close();
    }
  });
});
