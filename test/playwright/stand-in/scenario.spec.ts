/**
 * Scenarios in a Playwright test: `oui.runScenario` from an object and from
 * a file, a failing expectation reported per step, and "save as scenario"
 * from a recording of the app's real runtime, exported and imported back.
 * The recording test's oui-session.json is also what
 * test/e2e/playwright-stand-in.test.ts generates a spec from.
 */
import { test, expect } from 'oui-devtools/playwright';
import type { Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startDemoServer, type DemoServer } from '../../demo/server.ts';
import { parseScenario, scenarioFromRequests, scenarioText } from '../../../src/runtime/scenario.ts';
import { ModelFeed } from '../../../src/session/model/merge.ts';
import type { RequestState } from '../../../src/session/model/model-types.ts';

let demo: DemoServer;
test.beforeAll(async () => {
  demo = await startDemoServer();
});
test.afterAll(async () => {
  await demo?.close();
});

async function ready(page: Page): Promise<void> {
  await page.goto(demo.url);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __demo?: { state(): { clients: Record<string, { connected: boolean; transport?: string; surfaces: string[] }> } } }).__demo?.state();
    return !!s && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0) && s.clients.socket!.transport === 'websocket';
  });
}

const SCENARIO = {
  format: 'oui-devtools-scenario',
  version: 1,
  name: 'search, add, check the cart',
  steps: [
    { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, expect: { success: true }, data: { schema: { type: 'object', required: ['results', 'total'] } } },
    { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 2 }, data: { schema: { type: 'object', properties: { cartCount: { const: 2 } }, required: ['cartCount'] } } },
    { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'no-such-product' }, expect: { error: 'VALIDATION_ERROR' } },
    { surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' }, observations: { 'coupon-widget': { coupon: { schema: { type: 'object', properties: { code: { const: 'SAVE10' } }, required: ['code'] } } } } },
  ],
} as const;

test('runScenario: every step passes, with its exchange', async ({ page, oui }) => {
  await ready(page);
  const seen: number[] = [];
  const report = await oui.runScenario(structuredClone(SCENARIO) as never, { onStep: (s) => seen.push(s.index) });
  expect(report.steps.map((s) => s.failures), JSON.stringify(report.steps.map((s) => s.failures))).toEqual([[], [], [], []]);
  expect(report.pass).toBe(true);
  expect(seen).toEqual([0, 1, 2, 3]);
  // Each step names its exchange: the request the page's client received, and its result.
  const events = await oui.events();
  for (const step of report.steps) {
    const mine = events.filter((e) => step.eventIds.includes(e.id));
    expect(mine.some((e) => e.type === 'action:request' && (e.payload as { requestId: string }).requestId === step.requestId)).toBe(true);
    expect(mine.some((e) => e.type === 'action:result' && e.dir === 'out')).toBe(true);
  }
  // The page agrees with step 2's verdict.
  await expect(page.locator('#cart-count')).toHaveText('2');
});

test('runScenario from a file: a wrong expectation fails its step in words and stops the run', async ({ page, oui }) => {
  await ready(page);
  const wrong = structuredClone(SCENARIO) as unknown as { steps: Array<Record<string, unknown>> };
  wrong.steps[0]!.expect = { error: 'PRECONDITION_FAILED' };
  const path = join(mkdtempSync(join(tmpdir(), 'oui-scenario-')), 'wrong.json');
  writeFileSync(path, JSON.stringify(wrong));
  const report = await oui.runScenario(path);
  expect(report.pass).toBe(false);
  expect(report.steps.length).toBe(1);
  expect(report.skipped).toBe(3);
  expect(report.steps[0]!.failures).toEqual(['expected error PRECONDITION_FAILED, got success']);
  await expect(oui.runScenario({ format: 'oui-devtools-scenario', version: 1, steps: [{ surfaceId: 'x' }] } as never)).rejects.toThrow(/steps\[0\]\.actionId/);
});

test('a recording of the real runtime, saved as a scenario, exported, imported and run again', async ({ page, oui }) => {
  await ready(page);
  // The app's own runtime (the demo server) asks; the page host and the assistant ask theirs.
  const shop = await demo.runtime.waitForClient();
  expect((await demo.runtime.request(shop, { surfaceId: 'catalog', actionId: 'search', params: { query: 'shirt' } })).success).toBe(true);
  expect((await demo.runtime.request(shop, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'shirt-logo' } })).success).toBe(true);
  expect((await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'notifications', actionId: 'list', params: {} })).success).toBe(true);
  expect(await page.evaluate(() => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<{ success: boolean }> } }).__demo.hostFrame('apply_coupon', { code: 'SAVE10' }))).toMatchObject({ success: true });
  expect(await page.evaluate(() => (window as unknown as { __demo: { assistant(a: string, p: unknown): Promise<{ success: boolean }> } }).__demo.assistant('show_tip', {}))).toMatchObject({ success: true });

  // Save as scenario from the captured requests (as the panel's selection would give them).
  const file = await oui.sessionFile();
  const clients = new Map(file.clients.map((c) => [c.key, c]));
  const feed = new ModelFeed((k) => clients.get(k as string) as never);
  feed.add(file.events as never, Date.now());
  feed.finish();
  const requests: RequestState[] = [...feed.model.clients.values()].flatMap((c) => [...c.requests.values()]).sort((a, b) => a.sends[0]!.t - b.sends[0]!.t);
  expect(requests.map((r) => `${r.surfaceId}/${r.actionId}`)).toEqual(['catalog/search', 'catalog/add_to_cart', 'notifications/list', 'coupon-widget/apply_coupon', 'help/show_tip']);
  const saved = scenarioFromRequests(requests, { origin: demo.url });
  const back = parseScenario(scenarioText(saved));
  expect(back.ok && back.scenario).toEqual(saved);

  // Run again from a fresh page: the same requests pass the same checks.
  await ready(page);
  const report = await oui.runScenario(back.ok ? (back.scenario as never) : (undefined as never));
  expect(report.steps.map((s) => s.failures)).toEqual([[], [], [], [], []]);
});
