/**
 * The Timeline's filter box speaks the query grammar, in real Chromium with
 * the built extension on the demo shop: completion as you type (a listbox:
 * arrows, Enter or Tab, Escape), the bad term said under the bar, /regex/,
 * negation, and filters saved for the page's origin that a panel opened
 * later finds. Found by visible labels and roles; the oracle is what the
 * demo's runtime was answered, not what the panel computed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openPanelPage } from '../support/browser.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { openDemoPanel, ORDER, type DemoPanel } from '../support/demo-panel.ts';

let d: DemoPanel;
let panel: Page;
/** What the runtime was answered: how many requests failed, and of which surfaces. */
const failed: string[] = [];
let searches = 0;

const rows = () => panel.locator('[role=tabpanel] .vlist [role=row]');
const box = () => panel.getByRole('combobox', { name: 'Free-text filter' });
const completions = () => panel.getByRole('listbox', { name: 'Filter completions' });

/** The list's rows once it has settled on `n` of them. */
async function rowCount(n: number, what: string): Promise<void> {
  await until(async () => (await rows().count()) === n, `${what}: ${n} rows`, SLOW_MS, 20).catch(async (e) => {
    throw new Error(`${(e as Error).message}; ${await rows().count()} rows: ${(await rows().allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')).join(' | ')}`);
  });
}

describe('the Timeline filter box speaks the query grammar', () => {
  before(async () => {
    d = await openDemoPanel({ viewport: { width: 1400, height: 800 } });
    panel = d.panel;
    const { demo } = d;
    const client = await demo.runtime.waitForClient();
    for (let i = 0; i < 5; i++) {
      const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: `mug ${i}`, category: 'all', sort: 'price_asc' } });
      assert.equal(r.success, true);
      searches++;
    }
    const invalid = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 99 } });
    if (!invalid.success) failed.push('catalog');
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    const refused = await demo.runtime.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
    if (!refused.success) failed.push('checkout');
    assert.deepEqual(failed, ['catalog', 'checkout'], 'the invalid quantity and the order without approval fail');
    await panel.bringToFront();
    await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
    await box().fill('action:search');
    await rowCount(searches, 'every search on screen');
    await box().fill('');
  });

  after(async () => {
    await d?.close();
  });

  test('completion: keys, then the values the session knows; arrows, Enter and Tab take one, Escape closes the list', async () => {
    await box().click();
    await panel.keyboard.type('stat');
    await completions().waitFor();
    assert.deepEqual(await completions().getByRole('option').allInnerTexts().then((t) => t.map((s) => s.split('\n')[0])), ['status:']);
    assert.equal(await box().getAttribute('aria-expanded'), 'true');
    await panel.keyboard.press('Enter');
    assert.equal(await box().inputValue(), 'status:');
    // Now its values: the statuses, the first highlighted; ArrowDown moves on.
    await until(async () => (await completions().getByRole('option').count()) >= 5, 'the statuses offered', SLOW_MS, 20);
    assert.equal(await completions().getByRole('option', { selected: true }).innerText().then((s) => s.split('\n')[0]), 'pending');
    await panel.keyboard.press('ArrowDown');
    assert.equal(await completions().getByRole('option', { selected: true }).innerText().then((s) => s.split('\n')[0]), 'running');
    await panel.keyboard.type('fa');
    await until(async () => (await completions().getByRole('option').allInnerTexts()).some((t) => t.startsWith('failed')), 'failed offered', SLOW_MS, 20);
    await panel.keyboard.press('Tab');
    assert.equal(await box().inputValue(), 'status:failed ');
    assert.equal(await box().evaluate((el) => el === document.activeElement), true, 'Tab took the item and kept focus in the box');
    await rowCount(failed.length, 'status:failed');
    for (const status of await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))) assert.equal(status, 'failed');
    // Escape with the list open closes it, and only it: focus stays in the box.
    await panel.keyboard.type('-su');
    await completions().waitFor();
    await panel.keyboard.press('Escape');
    await completions().waitFor({ state: 'detached' });
    assert.equal(await box().getAttribute('aria-expanded'), 'false');
    assert.equal(await box().evaluate((el) => el === document.activeElement), true, 'focus stayed in the box');
    await panel.keyboard.type('rface:checkout');
    await rowCount(failed.filter((s) => s !== 'checkout').length, 'status:failed -surface:checkout');
    assert.match(await rows().first().innerText(), /catalog › add_to_cart/);
  });

  test('a bad term is said under the bar with its column, and the rest still filters', async () => {
    await box().fill('type:request dur:>soon');
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /dur: wants a duration .*at column 14: "dur:>soon"/);
    assert.equal(await box().getAttribute('aria-invalid'), 'true');
    // type:request alone: every request the runtime sent (searches, the invalid add, the navigation, the order), none left out for the bad term.
    await rowCount(searches + 3, 'type:request with the bad term left out');
    await box().fill('type:request dur:>=0ms');
    await alert.waitFor({ state: 'detached' });
    assert.equal(await box().getAttribute('aria-invalid'), 'false');
  });

  test('a /regex/ runs over the searchable text, case-insensitive; "-" negates it', async () => {
    // The searches for mug 0, 1 and 2, and the observation updates that echo their query: as many
    // as the runtime received (the app may fold quick updates into one, so not always one per search).
    const echoed = d.demo.runtime.events.filter((e) => e.dir === 'in' && e.type === 'observation:update' && /"query":"mug [0-2]"/i.test(JSON.stringify(e.payload))).length;
    assert.ok(echoed >= 1, 'the runtime received at least one observation echoing a search');
    await box().fill('/"QUERY":"mug [0-2]"/');
    await rowCount(3 + echoed, 'the searches for mug 0, mug 1 and mug 2 and their results observed');
    await box().fill('type:action:request /"QUERY":"mug [0-2]"/');
    await rowCount(3, 'the searches for mug 0, mug 1 and mug 2');
    await box().fill('type:action:request surface:catalog -/"mug [0-2]"/');
    await rowCount(searches - 3 + 1, 'the other catalog requests: two searches and the invalid add');
    await box().fill('');
  });

  test('a filter saved for the origin is one pick away, in this panel and in one opened later', async () => {
    await box().fill('status:failed surface:"checkout"');
    await panel.getByRole('button', { name: 'Save filter' }).click();
    await panel.getByRole('button', { name: 'Forget filter' }).waitFor();
    await box().fill('');
    await until(async () => (await rows().count()) > 1, 'every row again', SLOW_MS, 20);
    await panel.getByRole('combobox', { name: 'Saved filter' }).selectOption({ label: 'status:failed surface:"checkout"' });
    assert.equal(await box().inputValue(), 'status:failed surface:"checkout"');
    await rowCount(1, 'the saved filter applied');
    // Kept in extension storage for the origin: a panel opened afresh on the same tab lists it.
    const later = await openPanelPage(d.browser, d.tabId);
    try {
      const saved = later.getByRole('combobox', { name: 'Saved filter' });
      await until(async () => (await saved.locator('option').allInnerTexts()).includes('status:failed surface:"checkout"'), 'the saved filter in a new panel', SLOW_MS, 50);
    } finally {
      await later.close();
    }
    await panel.getByRole('button', { name: 'Forget filter' }).click();
    await panel.getByRole('button', { name: 'Save filter' }).waitFor();
    await box().fill('');
  });
});
