/**
 * Replay and inject, end to end on the demo app in real Chromium, driven
 * through the panel's own composer: for every transport an injected request
 * runs the app's real handler and its answer shows paired in the panel, kept
 * from the app's runtime; a same-id replay shows the client's repeat
 * handling; invalid params get the client's VALIDATION_ERROR; a transaction
 * without a valid approval is refused by the client and flagged by the panel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import type { DemoServer } from '../demo/server.ts';
import { demoUpgraded, injectable, SLOW_MS } from '../support/demo-page.ts';
import { composerReady, openDemoPanel, ORDER, type DemoPanel } from '../support/demo-panel.ts';
import { compose, sendInjected } from '../support/composer.ts';
import { until } from '../support/wait.ts';
import { openFindingGroup } from '../support/findings.ts';
import { HOOK_PORT_MARKER } from '../../src/messages.ts';

let d: DemoPanel;
let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;


/** Sends, and reads the history's newest row once it shows the client's final answer. */
async function sendAndAnswer(): Promise<{ answer: string; requestId: string; delivery: string }> {
  const row = await sendInjected(panel);
  return {
    answer: (await row.getByTestId('inject-answer').innerText()).trim(),
    requestId: (await row.getAttribute('data-request-id'))!,
    delivery: await row.locator('td').nth(2).innerText(),
  };
}

/**
 * A positive witness: the runtime asks the Socket.IO client once more, and
 * this waits until the panel shows the answer. The client answers in order on
 * its one socket and the panel keeps each client's order, so whatever the
 * page did before this answer has reached the panel when it returns.
 */
async function witness(query: string): Promise<string> {
  const client = await demo.runtime.waitForClient();
  const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query } });
  assert.equal(r.success, true);
  const tab = await panel.locator('[role=tablist][aria-label=Views] [role=tab][aria-selected=true]').getAttribute('id');
  await panel.click('#tab-timeline');
  const filter = panel.locator('input[aria-label="Free-text filter"]');
  const kept = await filter.inputValue();
  await filter.fill(r.requestId);
  // The answer's own row: in "All events" (one row per exchange folds it into its request's), the Timeline's mode kept.
  const allEvents = panel.getByRole('button', { name: 'All events' });
  const wasExchanges = (await allEvents.getAttribute('aria-pressed')) !== 'true';
  if (wasExchanges) await allEvents.click();
  await panel.locator('.vlist [role=row][data-type="action:result"]').first().waitFor({ timeout: SLOW_MS });
  if (wasExchanges) await panel.getByRole('button', { name: 'Exchanges' }).click();
  await filter.fill(kept);
  if (tab) await panel.click(`#${tab}`);
  return r.requestId;
}

function runtimeSawResultFor(requestId: string): boolean {
  return demo.runtime.events.some((e) => e.type === 'action:result' && (e.payload as { requestId?: string } | null)?.requestId === requestId);
}

describe('replay and inject', () => {
  before(async () => {
    d = await openDemoPanel();
    ({ demo, browser, page, panel } = d);
    // Injection rides Socket.IO's WebSocket: wait for the upgrade, and for the panel to have heard of it.
    await composerReady(d);
  });

  after(async () => {
    await d?.close();
  });

  test('Socket.IO: the form composes the params, the real handler runs, the answer is paired and kept from the runtime', async () => {
    const cartBefore = Number(await page.locator('#cart-count').innerText());
    await compose(panel, 'catalog', 'add_to_cart', { kind: 'socket.io' });
    // The form, not the JSON box: pick a product and a quantity.
    await panel.getByLabel('productId', { exact: true }).selectOption({ label: 'mug-travel' });
    await panel.getByLabel('quantity', { exact: true }).fill('2');
    assert.deepEqual(JSON.parse(await panel.inputValue('textarea[aria-label="Params JSON"]')), { productId: 'mug-travel', quantity: 2 });
    await panel.waitForSelector('[data-testid=validation] .ok');
    const { answer, requestId, delivery } = await sendAndAnswer();
    assert.equal(answer, 'success');
    assert.match(delivery, /delivered/);
    await page.waitForFunction((n) => Number(document.querySelector('#cart-count')?.textContent) === n + 2, cartBefore);
    assert.equal(runtimeSawResultFor(requestId), false, "the app's runtime never saw the injected request's answer");
  });

  test('WebSocket JSON: an injected request runs the handler', async () => {
    await compose(panel, 'notifications', 'mark_read', { kind: 'websocket', params: { target: { all: true } } });
    const { answer } = await sendAndAnswer();
    assert.equal(answer, 'success');
    await page.waitForFunction(() => document.querySelector('#notif-unread')?.textContent?.trim() === '0');
  });

  test('postMessage: an injected request reaches the iframe client as if its host sent it', async () => {
    await compose(panel, 'coupon-widget', 'apply_coupon', { kind: 'postmessage', params: { code: 'SAVE10' } });
    const { answer } = await sendAndAnswer();
    assert.equal(answer, 'success');
    const frame = page.frames().find((f) => f.url().includes('frame.html')) as Frame;
    await frame.waitForSelector('#coupon-applied[data-code="SAVE10"]');
  });

  test('postMessage across origins: a cross-origin iframe client is captured and injectable', async () => {
    const [mainPage, mainPanel] = [page, panel];
    page = await browser.context.newPage();
    try {
      await page.goto(`${demo.url}?crossOrigin=1`);
      const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
      assert.notEqual(new URL(frame.url()).origin, new URL(page.url()).origin, 'the widget is cross-origin');
      // Listen as the host page's runtime does: which results reach the page's own listeners?
      await page.evaluate(`window.hostSaw = []; addEventListener('message', (e) => { if (e.data && e.data.type === 'action:result') window.hostSaw.push(e.data.payload.requestId); });`);
      panel = await openPanelPage(browser, await tabIdOf(browser, page));
      await compose(panel, 'coupon-widget', 'apply_coupon', { kind: 'postmessage', params: { code: 'SAVE10' } });
      const { answer, requestId } = await sendAndAnswer();
      assert.equal(answer, 'success');
      await frame.waitForSelector('#coupon-applied[data-code="SAVE10"]');
      // The host is the widget's runtime: its own request's answer reaches it, the injected one's does not.
      await page.click('#host-apply-coupon');
      await page.waitForFunction(() => (window as unknown as { hostSaw: string[] }).hostSaw.length > 0);
      const hostSaw = (await page.evaluate('window.hostSaw')) as string[];
      assert.equal(hostSaw.includes(requestId), false, "the injected request's answer never reached the host page");
    } finally {
      await panel.close();
      await page.close();
      [page, panel] = [mainPage, mainPanel];
    }
  });

  test('direct hook: an injected request goes through the transport handler', async () => {
    await compose(panel, 'help', 'open_article', { kind: 'direct', params: { articleId: 'returns' } });
    const { answer } = await sendAndAnswer();
    assert.equal(answer, 'success');
    await page.waitForSelector('#help-article[data-article-id="returns"]');
  });

  test("with the toggle on, the answer reaches the app's runtime", async () => {
    await compose(panel, 'catalog', 'search', { kind: 'socket.io', params: { query: 'through' } });
    await panel.getByLabel("let the answer reach the app's runtime").check();
    const { answer, requestId, delivery } = await sendAndAnswer();
    await panel.getByLabel("let the answer reach the app's runtime").uncheck();
    assert.equal(answer, 'success');
    assert.doesNotMatch(delivery, /kept from the runtime/);
    await until(() => runtimeSawResultFor(requestId), "the injected request's answer at the app's runtime", SLOW_MS, 50);
  });

  test('requests saved for an origin come back after the panel reloads', async () => {
    await compose(panel, 'catalog', 'search', { kind: 'socket.io', params: { query: 'saved mugs' } });
    await panel.fill('input[aria-label="Name to save as"]', 'my search');
    await panel.getByRole('button', { name: 'Save request' }).click();
    await panel.waitForSelector('.saved li:has-text("my search")');
    await panel.reload();
    await compose(panel, 'catalog', 'add_to_cart', { kind: 'socket.io' });
    await panel.locator('.saved button.link', { hasText: 'my search' }).click();
    assert.equal(await panel.inputValue('select[aria-label="Action"]'), 'search');
    assert.deepEqual(JSON.parse(await panel.inputValue('textarea[aria-label="Params JSON"]')), { query: 'saved mugs' });
    await panel.getByRole('button', { name: 'Delete my search' }).click();
    await panel.waitForFunction(() => !document.querySelector('.saved li'));
  });

  test('invalid params are sent on purpose and the client answers VALIDATION_ERROR', async () => {
    await compose(panel, 'catalog', 'add_to_cart', { kind: 'socket.io', params: { productId: 'no-such-product', quantity: 99 } });
    await panel.waitForSelector('[data-testid=validation] ul.warn li');
    assert.equal(await panel.getByRole('button', { name: 'Send anyway (invalid params)' }).count(), 1);
    const { answer } = await sendAndAnswer();
    assert.match(answer, /^error VALIDATION_ERROR/);
  });

  test('a captured request replays with a fresh id, and with the same id shows how the client handles a repeat', async () => {
    const client = await demo.runtime.waitForClient();
    const original = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'sticker' } });
    assert.equal(original.success, true);
    // Find the runtime's own request in the timeline and open it.
    await panel.click('#tab-timeline');
    await panel.fill('input[aria-label="Free-text filter"]', 'sticker');
    await panel.locator('.vlist [role=row][data-type="action:request"]').first().click();
    await panel.waitForSelector('[data-testid=event-detail]');

    await panel.getByRole('button', { name: 'Replay', exact: true }).click();
    await panel.click('#tab-inject');
    const fresh = panel.locator('[data-testid=inject-history] tbody tr').first();
    await panel.waitForFunction(() => document.querySelector('[data-testid=inject-history] tbody tr [data-testid=inject-answer]')?.textContent === 'success');
    const freshId = await fresh.getAttribute('data-request-id');
    assert.notEqual(freshId, original.requestId, 'a replay gets a fresh requestId by default');

    // Replay selected its new row (and may have changed the filter to show it): the original, by its id.
    await panel.click('#tab-timeline');
    await panel.fill('input[aria-label="Free-text filter"]', original.requestId);
    await panel.locator('.vlist [role=row][data-type="action:request"]').first().click();
    await panel.getByRole('button', { name: 'Replay same id' }).click();
    await panel.click('#tab-acks');
    const repeat = panel.locator(`tr[data-kind=repeat][data-request-id="${original.requestId}"]`);
    await repeat.waitFor({ timeout: 15_000 });
    // A later answer of the same client shown in the panel: a second answer to the repeat would have come before it.
    await witness('after-the-repeat');
    // The runtime acknowledged the first answer: a conformant client gives a receipt and no second answer.
    assert.match(await repeat.innerText(), /receipt only/i);
    await panel.click('#tab-findings');
    // The same-id replay is the user's experiment: its findings show only with the toggle.
    await panel.getByLabel(/show my experiments/).check();
    assert.equal(await panel.locator('.finding[data-rule^="repeat-"]').count(), 0, 'a conformant client raises no repeat finding');
    await panel.click('#tab-timeline');
    await panel.fill('input[aria-label="Free-text filter"]', '');
  });

  test('a page can neither feed the panel forged capture data nor make the extension inject, by port, window message or DOM event', async () => {
    // Real targets, as the panel would name them: the Socket.IO client's hook and socket (from a row it captured), the widget's frame.
    const rid = await witness('before-the-forgery');
    await panel.click('#tab-timeline');
    // Every event its own row: the result's row names its hook and client, and no forged event hides in an exchange.
    await panel.getByRole('button', { name: 'All events' }).click();
    await panel.fill('input[aria-label="Free-text filter"]', rid);
    const [hook, client] = (await panel.locator('.vlist [role=row][data-type="action:result"]').first().getAttribute('data-id'))!.split('/');
    await panel.fill('input[aria-label="Free-text filter"]', '');
    const widget = page.frames().find((f) => f.url().includes('frame.html'))!;
    const cartBefore = await page.locator('#cart-count').innerText();
    const couponBefore = await widget.locator('#coupon-applied').getAttribute('data-code').catch(() => null);
    assert.notEqual(couponBefore, 'AGENT20');

    /** In a frame: forged capture data and a forged injection, through a forged hook port, a window message and DOM events. */
    const forge = ({ marker, inject, items }: { marker: string; inject: Record<string, unknown>; items: unknown }) => {
      const target = inject.target as Record<string, unknown>;
      // The postMessage target names this frame's real path in the tab ('top', 'top/0'), as the panel would.
      if (target.via === 'postmessage') target.clientPath = `top/${[...Array(parent.length).keys()].find((i) => parent[i] === window)}`;
      window.postMessage(items, '*');
      window.postMessage(inject, '*');
      const ch = new MessageChannel();
      window.postMessage({ [marker]: 'forged' }, '*', [ch.port2]);
      ch.port1.postMessage(items);
      ch.port1.postMessage(inject);
      for (const detail of [items, inject] as Array<{ type: string }>) {
        for (const target of [window, document]) target.dispatchEvent(new CustomEvent(detail.type, { detail }));
      }
      // The page's own last message: once it is delivered, so is every forged one posted before it.
      return new Promise<void>((resolve) => {
        // (No named function in here: the test's compiler would wrap it in a helper the page does not have.)
        addEventListener('message', (e) => e.data === 'forgery-posted' && resolve());
        window.postMessage('forgery-posted', '*');
      });
    };
    const items = (surfaceId: string) => ({
      type: 'items',
      hook,
      clients: [{ id: 'forged-client', kind: 'websocket', url: 'ws://forged.example/', origin: 'http://forged.example', frameUrl: 'http://forged.example/' }],
      items: [{ hook, client: 'forged-client', seq: 1, t: 1, kind: 'frame', dir: 'out', payload: { text: JSON.stringify({ type: 'surface:register', payload: { surface: { id: surfaceId, name: 'F', description: 'F', actions: [] }, timestamp: 1 } }) } }],
    });
    const socketFrame = '42/oui,["action:request",{"requestId":"forged-inject-0001","surfaceId":"catalog","actionId":"add_to_cart","params":{"productId":"mug-classic","quantity":1},"timestamp":1}]';
    await page.evaluate(forge, { marker: HOOK_PORT_MARKER, inject: { type: 'hook:inject', id: 'forged', target: { via: 'websocket', frameId: 0, hook, client }, frame: socketFrame, hold: [] }, items: items('forged-surface-top') });
    const couponRequest = { type: 'action:request', payload: { requestId: 'forged-inject-0002', surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'AGENT20' }, timestamp: 1 } };
    await widget.evaluate(forge, { marker: HOOK_PORT_MARKER, inject: { type: 'hook:inject', id: 'forged', target: { via: 'postmessage', clientPath: '', peerPath: 'top' }, message: couponRequest, hold: [] }, items: items('forged-surface-widget') });

    // Witnesses that each frame's capture ran past the forgery: the widget's real traffic, then the Socket.IO client's.
    const hosted = (await page.evaluate(() => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<{ requestId: string; success: boolean }> } }).__demo.hostFrame('apply_coupon', { code: 'SAVE10' }))) as { requestId: string; success: boolean };
    assert.equal(hosted.success, true);
    await panel.click('#tab-timeline');
    await panel.fill('input[aria-label="Free-text filter"]', hosted.requestId);
    await panel.locator('.vlist [role=row][data-type="action:result"]').first().waitFor({ timeout: SLOW_MS });
    await panel.fill('input[aria-label="Free-text filter"]', '');
    const after = await witness('after-the-forgery');

    // The filter "forge" shows the two witness requests, named so, and nothing else.
    await panel.click('#tab-timeline');
    await panel.fill('input[aria-label="Free-text filter"]', 'forge');
    await until(async () => (await panel.locator('.vlist [role=row][data-type="action:request"]').count()) >= 2, 'the witness requests under the filter', SLOW_MS, 50);
    const rows = await panel.locator('.vlist [role=row]').allInnerTexts();
    assert.ok(!rows.some((r) => /forged-surface|forged-inject|forged\.example/.test(r)), `no forged item and no injected request is shown:\n${rows.join('\n')}`);
    await panel.fill('input[aria-label="Free-text filter"]', '');
    await panel.getByRole('button', { name: 'Exchanges' }).click();
    assert.equal(await page.locator('#cart-count').innerText(), cartBefore, 'no forged add_to_cart ran');
    assert.equal(await widget.locator('#coupon-applied').getAttribute('data-code'), 'SAVE10', 'no forged apply_coupon ran in the widget');
    assert.equal(runtimeSawResultFor('forged-inject-0001'), false, 'the app never answered a forged request');
    assert.ok(runtimeSawResultFor(after));
  });

  test('a transaction without a valid approval is refused by the client and flagged by the panel', async () => {
    const result = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    assert.equal(result.success, true);
    await compose(panel, 'checkout', 'place_order', { kind: 'socket.io', params: ORDER });
    await panel.waitForSelector('[data-testid=approval-block]');
    await panel.check('input[name=approval-mode] >> nth=1'); // a wrong argsHash
    const wrong = await sendAndAnswer();
    assert.match(wrong.answer, /^error ACTION_DENIED/);
    await panel.check('input[name=approval-mode] >> nth=2'); // no approval at all
    const none = await sendAndAnswer();
    assert.match(none.answer, /^error ACTION_DENIED/);
    assert.equal(await page.locator('#orders-count').innerText(), '0', 'no order was placed');

    await panel.click('#tab-approvals');
    const rows = panel.locator('table.approvals tbody tr');
    await panel.waitForFunction(() => document.querySelectorAll('table.approvals tbody tr[data-outcome=refused]').length >= 2);
    const text = await rows.allInnerTexts();
    assert.ok(text.some((t) => /argsHash does not match params/.test(t)));
    assert.ok(text.some((t) => /no approval carried/.test(t)));
    await panel.click('#tab-findings');
    // Sent from the composer on purpose: the user's experiments, shown with the toggle.
    await panel.getByLabel(/show my experiments/).check();
    // Grouped by rule: each group opens on its findings.
    await openFindingGroup(panel, 'approval-hash-mismatch');
    await openFindingGroup(panel, 'approval-missing');
    assert.equal(await panel.locator('.finding-group[data-rule=unapproved-run], .finding[data-rule=unapproved-run]').count(), 0, 'nothing ran without approval');
  });
});
