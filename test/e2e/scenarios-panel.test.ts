/**
 * Scenarios in the panel, end to end on the demo in real Chromium, driven by
 * the Scenarios view's labels and roles: requests the demo's real runtime
 * sent are ticked in the checklist and saved as a scenario; it is exported
 * (a download), one step's expectation changed in the file so that the
 * app's answer cannot meet it, imported back and run through the panel's
 * stand-in runtime: that step fails and says why, the others pass, and the
 * page shows that each step really ran. Saved per origin: still there after
 * the panel reloads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { demoUpgraded, SLOW_MS } from '../support/demo-page.ts';

let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;
let dir: string;

/**
 * The docs' pictures of the view as it is now, light and dark (docs/NAME-light.png, -dark.png), with
 * UPDATE_SCREENSHOTS=1; and always: docked to the side at 560 px, nothing is wider than the panel.
 */
async function pictures(name: string): Promise<void> {
  const size = panel.viewportSize()!;
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    await panel.setViewportSize({ width: 1280, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
      await panel.screenshot({ path: fileURLToPath(new URL(`../../docs/${name}-${scheme}.png`, import.meta.url)) });
    }
    await panel.emulateMedia({ colorScheme: null });
  }
  await panel.setViewportSize({ width: 560, height: 800 });
  const wide = await panel.evaluate(() => {
    const view = document.querySelector('.main > .view')!;
    return { page: document.documentElement.scrollWidth, view: view.scrollWidth, room: view.clientWidth };
  });
  assert.ok(wide.page <= 560 && wide.view <= wide.room, `docked at 560 px the view fits, with no sideways scroll (${JSON.stringify(wide)})`);
  await panel.setViewportSize(size);
}

const cartCount = async () => Number(await page.locator('#cart-count').innerText());

describe('scenarios in the panel', () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oui-scenarios-'));
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 } });
    page = await browser.context.newPage();
    await page.goto(demo.url);
    const client = await demo.runtime.waitForClient();
    await demoUpgraded(page);
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    // What the agent did: three requests of the real runtime, captured by the panel.
    for (const req of [
      { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } },
      { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 } },
      { surfaceId: 'catalog', actionId: 'search', params: { query: 'tea' } },
    ]) {
      const r = await demo.runtime.request(client, req);
      assert.equal(r.success, true, `${req.actionId} ran`);
    }
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('saved from captured requests, exported, imported back and run: the step changed to fail fails, the others pass', async () => {
    await panel.getByRole('tab', { name: 'Scenarios' }).click();
    const list = panel.getByRole('list', { name: 'Captured requests' });
    const boxes = [/catalog › search \{"query":"mug"\}/, /catalog › add_to_cart \{"productId":"mug-travel","quantity":1\}/, /catalog › search \{"query":"tea"\}/];
    for (const name of boxes) {
      const box = list.getByRole('checkbox', { name });
      await box.waitFor({ timeout: SLOW_MS });
      await box.check();
    }
    await panel.getByLabel('Scenario name').fill('shop flow');
    await panel.getByRole('button', { name: 'Save as scenario (3)' }).click();
    await panel.getByRole('region', { name: 'Scenario shop flow', exact: true }).waitFor();
    await panel.getByTestId('scenario-message').filter({ hasText: /Saved "shop flow" with 3 steps/ }).waitFor();

    // Export: the versioned file, as the issue defines it (format, version, steps in order).
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByRole('region', { name: 'Scenario shop flow', exact: true }).getByRole('button', { name: 'Export' }).click()]);
    const exported = join(dir, 'exported.json');
    await download.saveAs(exported);
    const file = JSON.parse(readFileSync(exported, 'utf8')) as { format: string; version: number; name: string; origin?: string; steps: Array<{ surfaceId: string; actionId: string; params: unknown; expect?: unknown }> };
    assert.equal(file.format, 'oui-devtools-scenario');
    assert.equal(file.version, 1);
    assert.equal(file.origin, new URL(demo.url).origin);
    assert.deepEqual(
      file.steps.map((s) => [s.actionId, s.params]),
      [
        ['search', { query: 'mug' }],
        ['add_to_cart', { productId: 'mug-travel', quantity: 1 }],
        ['search', { query: 'tea' }],
      ],
    );
    assert.deepEqual(file.steps[0]!.expect, { success: true }, 'each step expects what its request got');
    // One client has these surfaces: the steps name none (its label carries the page's host and port, which change between runs).
    assert.deepEqual(
      file.steps.map((s) => (s as { client?: string }).client),
      [undefined, undefined, undefined],
    );

    // On purpose: the second step now expects an error the app will not answer with.
    file.name = 'shop flow, edited';
    file.steps[1]!.expect = { error: 'app:coupon_invalid' };
    const edited = join(dir, 'edited.oui-scenario.json');
    writeFileSync(edited, JSON.stringify(file, null, 2));
    const [chooser] = await Promise.all([panel.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Import scenario…' }).click()]);
    await chooser.setFiles(edited);
    const card = panel.getByRole('region', { name: 'Scenario shop flow, edited' });
    await card.waitFor();
    await panel.getByTestId('scenario-message').filter({ hasText: /Imported "shop flow, edited" \(3 steps\) from edited\.oui-scenario\.json/ }).waitFor();

    // One step first, then the rest.
    const before = await cartCount();
    await card.getByRole('button', { name: 'Run next step' }).click();
    const rows = card.getByRole('table', { name: 'Steps of shop flow, edited' }).locator('tbody tr');
    await rows.nth(0).locator('[data-testid=step-verdict]', { hasText: /^pass/ }).waitFor({ timeout: SLOW_MS });
    assert.equal(await rows.nth(1).getAttribute('data-verdict'), 'not run');
    await card.getByRole('button', { name: 'Run all' }).click();
    await card.getByTestId('scenario-summary').filter({ hasText: /^2 of 3 run steps passed$/ }).waitFor({ timeout: SLOW_MS });
    const verdicts = await rows.locator('[data-testid=step-verdict]').allInnerTexts();
    assert.match(verdicts[0]!, /^pass success/);
    assert.match(verdicts[1]!, /^fail expected error app:coupon_invalid, got success/);
    assert.match(verdicts[2]!, /^pass success/);
    await pictures('scenarios');
    // The failing step really ran: the page's cart has the unit it added.
    await page.waitForFunction((n) => Number(document.querySelector('#cart-count')?.textContent) === n + 1, before);

    // A step's exchange, one click away: the Timeline opens on its request.
    await rows.nth(1).getByRole('button', { name: 'Show exchange' }).click();
    await panel.locator('#tab-timeline[aria-selected=true]').waitFor();
    const selected = panel.locator('.vlist [role=row][aria-selected=true]');
    await selected.waitFor({ timeout: SLOW_MS });
    assert.match(await selected.innerText(), /add_to_cart/);

    // Kept for the origin: both scenarios after the panel reloads.
    await panel.reload();
    await panel.getByRole('tab', { name: 'Scenarios' }).click();
    await panel.getByRole('region', { name: 'Scenario shop flow, edited' }).waitFor({ timeout: SLOW_MS });
    await panel.getByRole('region', { name: 'Scenario shop flow', exact: true }).waitFor();
  });

  test('a scenario file dropped on the panel is imported into the Scenarios view, the session on screen kept', async () => {
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    // The live session is on screen (the positive witness for "kept" below).
    await panel.locator('.vlist [role=row]').first().waitFor({ timeout: SLOW_MS });
    const text = JSON.stringify({ format: 'oui-devtools-scenario', version: 1, name: 'dropped flow', steps: [{ surfaceId: 'catalog', actionId: 'search', params: { query: 'dropped' } }] });
    const dataTransfer = await panel.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped.oui-scenario.json', { type: 'application/json' }));
      return dt;
    }, text);
    await panel.dispatchEvent('.main', 'dragenter', { dataTransfer });
    await panel.dispatchEvent('.main', 'dragover', { dataTransfer });
    await panel.dispatchEvent('.main', 'drop', { dataTransfer });
    await panel.locator('#tab-scenarios[aria-selected=true]').waitFor();
    await panel.getByRole('region', { name: 'Scenario dropped flow' }).waitFor();
    await panel.getByTestId('scenario-message').filter({ hasText: /Imported "dropped flow" \(1 step\) from dropped\.oui-scenario\.json/ }).waitFor();
    // Still the live capture: no "Back to live" (an imported session would show it).
    assert.equal(await panel.getByRole('button', { name: 'Back to live' }).count(), 0);
  });

  test('a file that is not a scenario is refused, and says why', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'oui-devtools-scenario', version: 1, steps: [{ surfaceId: 'catalog', params: [] }] }));
    const [chooser] = await Promise.all([panel.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Import scenario…' }).click()]);
    await chooser.setFiles(bad);
    await panel.getByTestId('scenario-message').filter({ hasText: /bad\.json is not a scenario: steps\[0\]\.actionId: a non-empty string is required; steps\[0\]\.params: must be an object/ }).waitFor();
  });
});
