/**
 * The composer as surfaces come and go, on the demo app in real Chromium,
 * found by visible labels and roles: the demo's route is driven (the agent's
 * shop-nav navigate) so a chosen surface unmounts; the composer keeps it,
 * says it is not mounted and why, Send says so and still sends on purpose,
 * and the client's SURFACE_UNAVAILABLE shows. Replay shows its answer next to
 * the button and selects the new row; the experiments history survives a
 * reload of the panel. And the form: oneOf/anyOf alternatives chosen from a
 * numbered list, an array's "Add item", errors beside their field, the group
 * annotation in the legend. Screenshots go to /tmp.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { Browser } from '../support/browser.ts';
import type { DemoServer } from '../demo/server.ts';
import { SLOW_MS } from '../support/demo-page.ts';
import { composerReady, openDemoPanel, type DemoPanel } from '../support/demo-panel.ts';
import { compose, sendInjected } from '../support/composer.ts';
import { until } from '../support/wait.ts';

let d: DemoPanel;
let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;

/** The agent navigates the app (shop-nav › navigate), and the page shows the route: surfaces mount and unmount with it. */
async function route(to: string): Promise<void> {
  const r = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: to } });
  assert.equal(r.success, true, `navigate ${to}`);
}

const surfacePicker = () => panel.getByRole('combobox', { name: 'Surface', exact: true });
const actionPicker = () => panel.getByRole('combobox', { name: 'Action', exact: true });
const paramsJson = async () => JSON.parse(await panel.getByRole('textbox', { name: 'Params JSON' }).inputValue()) as Record<string, unknown>;

/** The Timeline's rows for the free-text `text`, with the request rows of it. */
async function timelineRequests(text: string): Promise<Locator> {
  await panel.getByRole('tab', { name: 'Timeline' }).click();
  await panel.getByLabel('Free-text filter').fill(text);
  const rows = panel.locator('.vlist [role=row][data-type="action:request"]');
  await rows.first().waitFor({ timeout: SLOW_MS });
  return rows;
}

describe('the composer as surfaces come and go', () => {
  before(async () => {
    d = await openDemoPanel();
    ({ demo, browser, page, panel } = d);
    await composerReady(d);
    // Back to a composer with no client chosen by hand: the surface decides.
    await panel.getByRole('combobox', { name: 'Inject into client' }).selectOption('');
  });

  after(async () => {
    await d?.close();
  });

  test('the only client with a surface is chosen and named, with no picker', async () => {
    await compose(panel, 'catalog', 'add_to_cart');
    assert.equal(await panel.getByRole('combobox', { name: 'Inject into client' }).count(), 0, 'no client picker');
    assert.match(await panel.getByTestId('chosen-client').innerText(), /^Client socket\.io:/);
    assert.equal(await panel.getByRole('button', { name: 'Send', exact: true }).count(), 1);
  });

  test('a chosen surface that unmounts is kept, said to be not mounted and why; Send says so, sends on purpose, and SURFACE_UNAVAILABLE shows', async () => {
    await compose(panel, 'catalog', 'add_to_cart');
    await panel.getByRole('combobox', { name: 'productId', exact: true }).selectOption({ label: 'mug-travel' });
    await panel.getByRole('spinbutton', { name: 'quantity', exact: true }).fill('3');
    const params = { productId: 'mug-travel', quantity: 3 };
    assert.deepEqual(await paramsJson(), params);

    await route('/checkout');
    const notice = panel.getByTestId('not-mounted');
    await notice.waitFor({ timeout: SLOW_MS });
    assert.match(await notice.innerText(), /^catalog is not mounted now \(activates on \/; unmounted \d\d:\d\d:\d\d after navigate \/checkout\)/);
    // Nothing blanked: surface, client, action, the form and the JSON as they were.
    assert.equal(await surfacePicker().inputValue(), 'catalog');
    assert.match(await surfacePicker().locator('option:checked').innerText(), /^catalog — not mounted now$/);
    assert.match(await panel.getByTestId('chosen-client').innerText(), /^Client socket\.io:/);
    assert.equal(await actionPicker().inputValue(), 'add_to_cart');
    assert.equal(await panel.getByRole('spinbutton', { name: 'quantity', exact: true }).inputValue(), '3');
    assert.deepEqual(await paramsJson(), params);
    // Known but not mounted surfaces are listed greyed out; mounted ones are not.
    const greyed = await surfacePicker().locator('option.unmounted').evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, getComputedStyle(o).color, o.textContent]));
    assert.ok(greyed.some(([v]) => v === 'catalog'), JSON.stringify(greyed));
    const plain = await surfacePicker().evaluate((select) => {
      const o = [...(select as HTMLSelectElement).options].find((x) => x.value === 'checkout')!;
      return [o.className, getComputedStyle(o).color];
    });
    assert.equal(plain[0], '');
    assert.notEqual(greyed[0]![1], plain[1], 'greyed out: another colour');
    await panel.screenshot({ path: '/tmp/oui-inject-unmounted.png' });

    // Send says so before sending; sent anyway, the client answers SURFACE_UNAVAILABLE.
    assert.equal(await panel.getByRole('button', { name: 'Send', exact: true }).count(), 0);
    const row = await sendInjected(panel, 'Send anyway (not mounted)');
    assert.match(await row.getByTestId('inject-answer').innerText(), /^error SURFACE_UNAVAILABLE/);

    // Mounted again: the notice goes, Send is plain Send, the edits are still there.
    await route('/');
    await notice.waitFor({ state: 'detached', timeout: SLOW_MS });
    assert.equal(await panel.getByRole('button', { name: 'Send', exact: true }).count(), 1);
    assert.deepEqual(await paramsJson(), params);
  });

  test("Replay shows its answer next to the button and selects the new row; on an unmounted surface it says so first", async () => {
    const client = await demo.runtime.waitForClient();
    const original = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'replay-me' } });
    assert.equal(original.success, true);
    const rows = await timelineRequests('replay-me');
    await rows.first().click();
    const detail = panel.getByRole('complementary', { name: 'Event detail' });
    await detail.getByRole('button', { name: 'Replay', exact: true }).click();
    const answer = panel.getByTestId('replay-answer');
    await until(async () => /·\s+success$/.test(await answer.innerText()), 'the replay answer next to the button', SLOW_MS, 20);
    assert.match(await answer.innerText(), /^Replayed as [0-9a-f]{8} · success$/);
    const replayedId = /Replayed as ([0-9a-f]{8})/.exec(await answer.innerText())![1]!;
    // The new request's row is selected: the detail shows the experiment, sent from this panel.
    await until(async () => (await panel.getByTestId('experiment-note').allInnerTexts()).some((t) => /Experiment: sent from this panel/.test(t)), 'the new row selected', SLOW_MS, 20);
    const selected = panel.locator('.vlist [role=row][aria-selected=true]');
    assert.equal(await selected.getAttribute('data-experiment'), 'true');
    assert.equal(await selected.getAttribute('data-type'), 'action:request');
    assert.ok((await detail.innerText()).includes(replayedId), 'the detail is the replayed request');
    assert.match(await answer.innerText(), /^Replayed as [0-9a-f]{8} · success$/, 'the answer is still shown beside Replay');

    // On /checkout the catalog is gone: Replay says so before sending, and still sends.
    await route('/checkout');
    await panel.getByLabel('Free-text filter').fill(original.requestId);
    await panel.locator('.vlist [role=row][data-type="action:request"]').first().click();
    const anyway = detail.getByRole('button', { name: 'Replay anyway (not mounted)', exact: true });
    await anyway.waitFor({ timeout: SLOW_MS });
    assert.match(await detail.getByTestId('replay-not-mounted').innerText(), /^catalog is not mounted now \(activates on \/; unmounted .* after navigate \/checkout\)/);
    await anyway.click();
    await until(async () => /SURFACE_UNAVAILABLE/.test(await answer.innerText()), 'the replay refused', SLOW_MS, 20);
    assert.match(await answer.innerText(), /^Replayed as [0-9a-f]{8} · error SURFACE_UNAVAILABLE/);
    await route('/');
    await panel.getByLabel('Free-text filter').fill('');
  });

  test('the experiments history survives a reload of the panel', async () => {
    await panel.getByRole('tab', { name: 'Inject' }).click();
    const rows = panel.getByTestId('inject-history').locator('tbody tr');
    const ids = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-request-id')));
    assert.ok(ids.length >= 3, `three experiments at least: ${ids.join(', ')}`);
    const answers = await rows.getByTestId('inject-answer').allInnerTexts();
    await panel.reload();
    await panel.getByRole('tab', { name: 'Inject' }).click();
    await until(async () => (await rows.count()) >= ids.length, 'the history after the reload', SLOW_MS, 50);
    assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-request-id'))), ids);
    await until(async () => JSON.stringify(await rows.getByTestId('inject-answer').allInnerTexts()) === JSON.stringify(answers), 'the same answers after the reload', SLOW_MS, 50);
  });

  test('the form: oneOf alternatives numbered and choosable, errors beside their field, group annotations in their legend', async () => {
    await route('/checkout');
    await compose(panel, 'checkout', 'place_order');
    const payment = panel.getByRole('group', { name: 'payment', exact: true });
    const alternative = payment.getByRole('combobox', { name: 'payment: alternative' });
    assert.deepEqual(await alternative.locator('option').allInnerTexts(), ['1. type = card · requires type, last4', '2. type = invoice · requires type']);
    assert.deepEqual((await paramsJson()).payment, { type: 'card', last4: '' });
    // The card's last4 is invalid as it starts: marked, with its message beside it.
    const last4 = payment.getByRole('textbox', { name: 'last4', exact: true });
    await until(async () => (await last4.getAttribute('aria-invalid')) === 'true', 'last4 marked invalid', SLOW_MS, 20);
    const errorId = (await last4.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    const message = panel.locator(`[id="${errorId}"]`);
    assert.match(await message.innerText(), /pattern/);
    assert.equal(await message.evaluate((el, field) => el.parentElement === (field as Element).parentElement, await last4.elementHandle()), true, 'beside the field');
    await last4.fill('4242');
    await until(async () => (await last4.getAttribute('aria-invalid')) === null, 'last4 valid', SLOW_MS, 20);

    // The other alternative: its sub-form replaces the card's.
    await alternative.selectOption({ index: 1 });
    assert.deepEqual((await paramsJson()).payment, { type: 'invoice' });
    assert.equal(await payment.getByRole('textbox', { name: 'last4', exact: true }).count(), 0);
    await payment.getByRole('textbox', { name: 'poNumber', exact: true }).fill('PO-77');
    assert.deepEqual((await paramsJson()).payment, { type: 'invoice', poNumber: 'PO-77' });
    await alternative.selectOption({ index: 0 });
    assert.deepEqual((await paramsJson()).payment, { type: 'card', last4: '' });

    // A group's annotation sits in its legend, not under the group.
    const shipping = panel.getByRole('group', { name: 'shipping', exact: true });
    assert.match(await shipping.locator(':scope > legend').innerText(), /shipping\s*\*?\s*required · object/);
    await panel.screenshot({ path: '/tmp/oui-inject-alternatives.png' });
    await route('/');
  });

  test("the form: anyOf of a string and an object, and an array's Add item and remove", async () => {
    await route('/orders');
    await compose(panel, 'orders', 'export_orders');
    const range = panel.getByRole('group', { name: 'range', exact: true });
    const alternative = range.getByRole('combobox', { name: 'range: alternative' });
    assert.equal(await alternative.locator('option').count(), 2);
    assert.match((await alternative.locator('option').allInnerTexts())[1]!, /^2\. .*requires from, to$/);
    assert.equal((await paramsJson()).range, 'all');
    assert.equal(await range.getByRole('combobox', { name: 'range', exact: true }).locator('option:checked').innerText(), 'all', 'the named range, unquoted');
    await alternative.selectOption({ index: 1 });
    assert.deepEqual((await paramsJson()).range, { from: '', to: '' });
    await range.getByRole('textbox', { name: 'from', exact: true }).fill('2026-01-01');
    assert.deepEqual((await paramsJson()).range, { from: '2026-01-01', to: '' });
    await alternative.selectOption({ index: 0 });
    assert.equal((await paramsJson()).range, 'all');

    const columns = panel.getByRole('group', { name: 'columns', exact: true });
    await columns.getByRole('button', { name: 'add columns item' }).click();
    assert.deepEqual((await paramsJson()).columns, ['id']);
    await columns.getByRole('combobox', { name: 'columns item 1', exact: true }).selectOption({ label: 'total' });
    await columns.getByRole('button', { name: 'add columns item' }).click();
    assert.deepEqual((await paramsJson()).columns, ['total', 'id']);
    await columns.getByRole('button', { name: 'remove columns item 1' }).click();
    assert.deepEqual((await paramsJson()).columns, ['id']);
    await route('/');
  });
});
