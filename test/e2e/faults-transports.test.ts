/**
 * Fault rules on the demo's other transports (plain WebSocket JSON, the
 * postMessage coupon widget, the direct-call assistant) and their seeded
 * repeatability, set in the panel's Faults view by its labels. Witnesses:
 * the runtimes' own logs and results (the `/ws-json` runtime's `events`, the
 * page's postMessage host and in-page assistant), and the spec's rules.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { addRule, appliedIn, clearRules, resultsFor } from './faults-steps.ts';
import type { OUIActionResult } from '../../src/protocol/index.ts';

let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;

/** The page's frames that run a hook: the app and its coupon widget. */
const FRAMES = 2;

const host = (actionId: string, params: Record<string, unknown>) =>
  page.evaluate(([a, p]) => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<OUIActionResult> } }).__demo.hostFrame(a, p), [actionId, params] as const);
const assistant = (actionId: string, params: Record<string, unknown>) =>
  page.evaluate(([a, p]) => (window as unknown as { __demo: { assistant(a: string, p: unknown): Promise<OUIActionResult> } }).__demo.assistant(a, p), [actionId, params] as const);

describe('faults on plain WebSocket, postMessage and direct calls; seeded repeatability', () => {
  before(async () => {
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 }, rows: 'events' });
    page = await browser.context.newPage();
    await page.goto(`${demo.url}?transport=websocket&reanswerMs=300`);
    await demo.runtime.waitForClient();
    await demo.wsRuntime.waitForClient();
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    await panel.locator('.vlist [role=row][data-type="surface:register"]').first().waitFor({ timeout: SLOW_MS });
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  test('plain WebSocket: a dropped request is never answered (the runtime times out), the next one is; a duplicate is answered once', async () => {
    const ws = await demo.wsRuntime.waitForClient();
    await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', transport: 'WebSocket (plain JSON)', fault: 'Drop', maxCount: 1 }, FRAMES);
    const dropped = await demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {}, timeoutMs: 1500 });
    assert.equal(dropped.error?.code, 'TIMEOUT', 'the runtime never got an answer');
    const next = await demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {} });
    assert.equal(next.success, true, 'at most once: the next request passes');
    assert.equal(resultsFor(demo.wsRuntime.events, dropped.requestId).length, 0, 'the client never saw the dropped request');
    await clearRules(panel, FRAMES);

    const rule = await addRule(panel, { type: 'action:request', transport: 'WebSocket (plain JSON)', fault: 'Duplicate', maxCount: 1 }, FRAMES);
    const once = await demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {} });
    assert.equal(once.success, true);
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.waitForFunction((id) => document.querySelectorAll(`.vlist [role=row][data-faulted="${id}"]`).length === 2, rule, { timeout: SLOW_MS });
    // A positive witness after both copies: the next answer; then the count (§7.3.7: a repeat is not answered while the first answer is young).
    assert.equal((await demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {} })).success, true);
    assert.equal(resultsFor(demo.wsRuntime.events, once.requestId).length, 1, 'answered once');
    await clearRules(panel, FRAMES);
  });

  test('plain WebSocket: disconnect closes the socket with the code and reason; the client connects again', async () => {
    const ws = await demo.wsRuntime.waitForClient();
    await addRule(panel, { type: 'action:request', transport: 'WebSocket (plain JSON)', fault: 'Disconnect the transport', code: 4002, reason: 'ws closed by a rule', maxCount: 1 }, FRAMES);
    const r = await demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {}, timeoutMs: SLOW_MS });
    assert.equal(r.success, false);
    await until(() => demo.wsRuntime.events.some((e) => e.clientId === ws && e.type === 'x-disconnect'), 'the runtime saw the socket close', SLOW_MS, 20);
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row]', { hasText: '4002 ws closed by a rule' }).first().waitFor({ timeout: SLOW_MS });
    await clearRules(panel, FRAMES);
    await until(() => demo.wsRuntime.clients().some((c) => c !== ws), 'the client back on a new socket', SLOW_MS, 50);
  });

  test('postMessage: a delayed request reaches the iframe client no sooner than the delay; a duplicate reaches it twice and is answered once', async () => {
    const rule = await addRule(panel, { type: 'action:request', transport: 'postMessage', fault: 'Delay', ms: 700, maxCount: 1 }, FRAMES);
    const t0 = Date.now();
    const r = await host('apply_coupon', { code: 'SAVE10' });
    assert.equal(r.success, true);
    assert.ok(Date.now() - t0 >= 700, `answered after ${Date.now() - t0} ms`);
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator(`.vlist [role=row][data-faulted="${rule}"]`, { hasText: 'faulted by you: delayed' }).first().waitFor({ timeout: SLOW_MS });
    await clearRules(panel, FRAMES);

    const dup = await addRule(panel, { type: 'action:request', transport: 'postMessage', fault: 'Duplicate', maxCount: 1 }, FRAMES);
    await page.evaluate(`window.hostResults = []; addEventListener('message', (e) => { if (e.data && e.data.type === 'action:result') window.hostResults.push(e.data.payload.requestId); });`);
    const d = await host('remove_coupon', {});
    assert.equal(d.success, true);
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.waitForFunction((id) => document.querySelectorAll(`.vlist [role=row][data-faulted="${id}"]`).length === 2, dup, { timeout: SLOW_MS });
    // A later exchange as the witness, then the count of answers the host page received for the duplicated request.
    assert.equal((await host('apply_coupon', { code: 'SAVE10' })).success, true);
    const seen = (await page.evaluate('window.hostResults')) as string[];
    assert.equal(seen.filter((id) => id === d.requestId).length, 1, 'answered once');
    await clearRules(panel, FRAMES);
  });

  test('direct calls: a refused result is re-sent trimmed (§7.3.6); a delayed request is answered after the delay', async () => {
    const rule = await addRule(panel, { transport: 'direct calls', fault: 'Refuse the result', error: 'refused over direct', maxCount: 1 }, FRAMES);
    const r = await assistant('open_article', { articleId: 'returns' });
    assert.equal(r.success, true);
    const delivery = r.delivery as { trimmed?: unknown } | undefined;
    assert.equal(delivery?.trimmed, true, 'the re-sent result says it was trimmed');
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator(`.vlist [role=row][data-faulted="${rule}"]`, { hasText: 'faulted by you: refused' }).first().waitFor({ timeout: SLOW_MS });
    await clearRules(panel, FRAMES);

    await addRule(panel, { type: 'action:request', transport: 'direct calls', fault: 'Delay', ms: 600, maxCount: 1 }, FRAMES);
    const t0 = Date.now();
    const late = await assistant('show_tip', {});
    assert.equal(late.success, true);
    assert.ok(Date.now() - t0 >= 600, `answered after ${Date.now() - t0} ms`);
    await clearRules(panel, FRAMES);
  });

  test('seeded: with one seed the same requests are dropped on a second run; another seed drops others', async () => {
    const client = await demo.runtime.waitForClient();
    const run = async (tag: string): Promise<boolean[]> => {
      const dropped: boolean[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: `${tag} ${i}` }, timeoutMs: 700 });
        dropped.push(r.error?.code === 'TIMEOUT');
      }
      return dropped;
    };
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByLabel('Seed', { exact: true }).fill('7');
    await panel.getByLabel('Seed', { exact: true }).press('Tab');
    const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Drop', probability: 0.5 }, FRAMES);
    const first = await run('a');
    // Off and on again: the rules are sent anew, each rule's stream starts again from the seed.
    const on = panel.getByLabel(`Rule ${rule} on`);
    await on.uncheck();
    await appliedIn(panel, FRAMES);
    await on.check();
    await appliedIn(panel, FRAMES);
    const second = await run('b');
    assert.deepEqual(second, first, 'the same seed faults the same events');
    assert.ok(first.some(Boolean) && !first.every(Boolean), `some dropped and some not: ${first}`);
    await panel.getByLabel('Seed', { exact: true }).fill('8');
    await panel.getByLabel('Seed', { exact: true }).press('Tab');
    await appliedIn(panel, FRAMES);
    const other = await run('c');
    assert.notDeepEqual(other, first, 'another seed, other events');
    await clearRules(panel, FRAMES);
  });

  test('rules survive a panel reload for the tab, and the banner says so at once', async () => {
    await addRule(panel, { type: 'observation:request', fault: 'Delay', ms: 10 }, FRAMES);
    await panel.reload();
    await panel.getByTestId('faults-banner').waitFor({ timeout: SLOW_MS });
    assert.match(await panel.getByTestId('faults-banner').innerText(), /Faults active: 1 rule/);
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await appliedIn(panel, FRAMES);
    await clearRules(panel, FRAMES);
  });
});
