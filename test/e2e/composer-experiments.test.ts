/**
 * The composer as a first-time user expects, and the user's experiments kept
 * apart, on the demo app in real Chromium, found by accessible names only:
 * every form field is a control named by its property through its own
 * <label>, the composer's client picker is named apart from the toolbar's
 * client filter and names each client's surfaces, the client's answer opens
 * in the history row itself; findings raised by injected requests are marked,
 * left out of the counts and the badge until the toggle shows them, and the
 * Timeline marks the rows; the event detail opens on the payload tab for
 * every newly selected event. Screenshots go to /tmp.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Browser } from '../support/browser.ts';
import type { DemoServer } from '../demo/server.ts';
import { composerReady, openDemoPanel, type DemoPanel } from '../support/demo-panel.ts';
import { compose, sendInjected } from '../support/composer.ts';
import { openFindingGroup } from '../support/findings.ts';

let d: DemoPanel;
let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;

const badge = async () => ((await panel.getByTestId('findings-badge').count()) ? Number(await panel.getByTestId('findings-badge').innerText()) : 0);

describe('the composer and experiments', () => {
  before(async () => {
    d = await openDemoPanel();
    ({ demo, browser, page, panel } = d);
    // Injection rides Socket.IO's WebSocket: wait for the upgrade, and for the panel to have heard of it.
    await composerReady(d);
  });

  after(async () => {
    await d?.close();
  });

  test("the composer's client picker is named apart from the toolbar's filter, and each client's option names its surfaces", async () => {
    await panel.getByRole('tab', { name: 'Inject' }).click();
    assert.equal(await panel.getByRole('combobox', { name: 'Inject into client' }).count(), 1);
    assert.equal(await panel.getByRole('combobox', { name: 'Filter by client' }).count(), 1);
    assert.equal(await panel.getByLabel('client', { exact: true }).count(), 0, 'no two controls share a bare "client" name');
    const picker = panel.getByRole('combobox', { name: 'Inject into client' });
    await picker.locator('option', { hasText: 'direct:' }).waitFor({ state: 'attached', timeout: 15_000 });
    const options = await picker.locator('option').allInnerTexts();
    const of = (kind: string) => options.find((o) => o.startsWith(`${kind}:`)) ?? '';
    assert.match(of('socket.io'), /surfaces .*\bcatalog\b/);
    assert.match(of('socket.io'), /\bcart\b/);
    assert.match(of('websocket'), /surface notifications$/);
    assert.match(of('postmessage'), /surface coupon-widget$/);
    assert.match(of('direct'), /surface help$/);
  });

  test('each form field is a control named by its property, through a <label> tied to it', async () => {
    await compose(panel, 'catalog', 'add_to_cart', { kind: 'socket.io' });
    const productId = panel.getByRole('combobox', { name: 'productId', exact: true });
    const quantity = panel.getByRole('spinbutton', { name: 'quantity', exact: true });
    assert.equal(await productId.count(), 1);
    assert.equal(await quantity.count(), 1);
    // The name comes from the <label> itself, not from an aria-label standing in for one.
    for (const control of [productId, quantity]) {
      const tie = await control.evaluate((el) => ({ labels: [...((el as HTMLInputElement).labels ?? [])].map((l) => l.textContent), ariaLabel: el.getAttribute('aria-label') }));
      assert.equal(tie.ariaLabel, null);
      assert.equal(tie.labels.length, 1);
    }
    assert.deepEqual(await productId.evaluate((el) => [...(el as HTMLSelectElement).labels].map((l) => l.textContent)), ['productId']);
    assert.equal(await productId.getAttribute('aria-required'), 'true', 'required is said, not only shown by an asterisk');
    assert.equal(await quantity.getAttribute('aria-required'), null);
    // A nested object is a group named by its property; its members are named by theirs.
    const options = panel.getByRole('group', { name: 'options', exact: true });
    assert.equal(await options.getByRole('combobox', { name: 'size', exact: true }).count(), 1);
    assert.equal(await options.getByRole('textbox', { name: 'color', exact: true }).count(), 1);
    // Clicking a label focuses its control, as a first-time user expects.
    await panel.locator('label', { hasText: 'quantity' }).click();
    assert.equal(await quantity.evaluate((el) => el === document.activeElement), true);
    // Filled by the form through those names, the params follow.
    await productId.selectOption({ label: 'mug-classic' });
    await quantity.fill('3');
    await options.getByRole('combobox', { name: 'size', exact: true }).selectOption({ label: 'M' });
    assert.deepEqual(JSON.parse(await panel.getByRole('textbox', { name: 'Params JSON' }).inputValue()), { productId: 'mug-classic', quantity: 3, options: { size: 'M' } });
    await panel.screenshot({ path: '/tmp/oui-composer-form.png' });
  });

  test("the client's answer (data, or error code and message) opens in the history row itself", async () => {
    await compose(panel, 'catalog', 'search', { kind: 'socket.io' });
    await panel.getByRole('textbox', { name: 'query', exact: true }).fill('mug');
    const ok = await sendInjected(panel);
    const okButton = ok.getByRole('button', { name: 'success' });
    assert.equal(await okButton.getAttribute('aria-expanded'), 'false');
    await okButton.click();
    assert.equal(await okButton.getAttribute('aria-expanded'), 'true');
    const data = ok.getByRole('region', { name: 'Answer' });
    await data.waitFor();
    assert.match(await data.innerText(), /results/);
    assert.match(await data.innerText(), /total/);

    await compose(panel, 'catalog', 'add_to_cart', { kind: 'socket.io' });
    await panel.getByRole('textbox', { name: 'Params JSON' }).fill(JSON.stringify({ productId: 'no-such-product', quantity: 99 }));
    const bad = await sendInjected(panel);
    const badButton = bad.getByRole('button', { name: /^error VALIDATION_ERROR/ });
    await badButton.click();
    const answer = bad.getByRole('region', { name: 'Answer' });
    const text = await answer.innerText();
    assert.match(text, /code\s+VALIDATION_ERROR/);
    assert.match(text, /message\s+\S+/);
    assert.equal(await panel.getByTestId('inject-view').count(), 1, 'still in the composer: no trip through the Timeline');
    await panel.screenshot({ path: '/tmp/oui-composer.png', fullPage: true });
    await badButton.click();
    assert.equal(await answer.count(), 0, 'collapses again');
  });

  test("findings of injected requests are marked and left out of the app's counts until the toggle shows them", async () => {
    await panel.getByRole('tab', { name: 'Findings' }).click();
    const appBadge = await badge();
    const appFindings = await panel.locator('.finding-list .finding').count();
    assert.equal(await panel.locator('.finding[data-experiment]').count(), 0);

    // On purpose: a confirm action with no approval.
    await compose(panel, 'cart', 'clear_cart', { kind: 'socket.io' });
    await panel.getByRole('radio', { name: 'send no approval' }).check();
    await sendInjected(panel);

    await panel.getByRole('tab', { name: 'Findings' }).click();
    const toggle = panel.getByRole('checkbox', { name: /show my experiments/ });
    // The invalid params of the previous test and the missing approval of this one.
    await panel.waitForFunction(() => Number(/\((\d+)\)/.exec(document.querySelector('label.toggle.experiment')?.textContent ?? '')?.[1]) >= 2);
    assert.equal(await toggle.isChecked(), false, 'hidden by default');
    assert.equal(await panel.locator('.finding[data-experiment]').count(), 0, 'not in the list');
    assert.equal(await panel.locator('.finding-list .finding').count(), appFindings, "the app's own findings are as they were");
    assert.equal(await badge(), appBadge, 'the badge counts the app only');

    await toggle.check();
    // Grouped by rule: each group opens on its findings.
    await openFindingGroup(panel, 'approval-missing');
    await openFindingGroup(panel, 'params-invalid');
    const mine = panel.locator('.finding[data-experiment=true]');
    await mine.first().waitFor();
    const rulesShown = await mine.evaluateAll((els) => els.map((e) => e.getAttribute('data-rule')));
    assert.ok(rulesShown.includes('approval-missing'), `approval-missing among ${rulesShown.join(', ')}`);
    assert.ok(rulesShown.includes('params-invalid'), `params-invalid among ${rulesShown.join(', ')}`);
    assert.ok((await mine.first().innerText()).includes('experiment'));
    assert.ok((await badge()) > appBadge, 'shown, they count');
    await panel.screenshot({ path: '/tmp/oui-findings-experiments.png' });
    await toggle.uncheck();
    assert.equal(await badge(), appBadge);
  });

  test('the Timeline marks the injected request and what answers it', async () => {
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    // Every event its own row: the injected request and the result that answers it, each marked.
    await panel.getByRole('button', { name: 'All events' }).click();
    await panel.getByLabel('Free-text filter').fill('clear_cart');
    const request = panel.locator('.vlist [role=row][data-type="action:request"]').first();
    await request.waitFor();
    assert.equal(await request.getAttribute('data-experiment'), 'true');
    assert.match(await request.innerText(), /\(experiment\)/);
    const result = panel.locator('.vlist [role=row][data-type="action:result"][data-experiment=true]').first();
    await result.waitFor();
    assert.match(await result.innerText(), /\(experiment\)/);
    await result.click();
    assert.match(await panel.getByTestId('experiment-note').innerText(), /Experiment: answers a request sent from this panel/);
    // The app's own traffic is not marked.
    await panel.getByLabel('Free-text filter').fill('surface:register');
    const own = panel.locator('.vlist [role=row]').first();
    await own.waitFor();
    assert.equal(await own.getAttribute('data-experiment'), null);
    await panel.getByLabel('Free-text filter').fill('');
    await panel.getByRole('button', { name: 'Close detail' }).click();
    await panel.getByRole('button', { name: 'Exchanges' }).click();
  });

  test('the event detail opens on the payload tab for every newly selected event', async () => {
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.getByLabel('Free-text filter').fill('action:');
    const rows = panel.locator('.vlist [role=row]');
    await rows.nth(1).waitFor();
    await rows.nth(0).click();
    const detail = panel.getByRole('complementary', { name: 'Event detail' });
    await detail.getByRole('tab', { name: 'raw' }).click();
    assert.equal(await detail.getByRole('tab', { name: 'raw' }).getAttribute('aria-selected'), 'true');
    await rows.nth(1).click();
    assert.equal(await detail.getByRole('tab', { name: 'payload' }).getAttribute('aria-selected'), 'true', 'a click on another event');
    assert.equal(await detail.getByRole('tabpanel').locator('pre.raw').count(), 0);
    await detail.getByRole('tab', { name: 'exchange' }).click();
    await panel.locator('.vlist').press('ArrowUp');
    assert.equal(await detail.getByRole('tab', { name: 'payload' }).getAttribute('aria-selected'), 'true', 'the keyboard to another event');
    // The same event again keeps what was picked for it.
    await detail.getByRole('tab', { name: 'raw' }).click();
    await rows.nth(0).click();
    assert.equal(await detail.getByRole('tab', { name: 'raw' }).getAttribute('aria-selected'), 'true');
    await panel.getByLabel('Free-text filter').fill('');
  });
});
