/**
 * Fault rules on a live Socket.IO connection (the demo's shop client forced
 * onto WebSocket), set in the panel's Faults view by its labels, judged by
 * what the spec says the client must then do and by the demo runtime's own
 * log (`runtime.events`), an independent witness of what reached it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { addRule, clearRules, resultsFor } from './faults-steps.ts';

let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;
let client: string;

/** The §7.3.7 re-answer interval the page's client runs with here (its `?reanswerMs`). */
const REANSWER_MS = 300;
/** How long the page's approval grants last (its `?grantTtlMs`): short, so a grant used past its time is quick to test. */
const GRANT_TTL_MS = 5000;

type Logged = DemoServer['runtime']['events'][number];
const requestIdOf = (p: unknown) => (p as { requestId?: string } | undefined)?.requestId;
/** The runtime's own log entry of one kind for one request. */
const logged = (dir: 'in' | 'out', type: string, requestId: string): Logged | undefined => demo.runtime.events.find((e) => e.dir === dir && e.type === type && requestIdOf(e.payload) === requestId);

const search = (query: string, timeoutMs?: number) => demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query }, ...(timeoutMs ? { timeoutMs } : {}) });

/** A row of the Timeline marked as faulted by a rule, with what it did. */
async function faultedRow(rule: string, did: string): Promise<void> {
  await panel.getByRole('tab', { name: 'Timeline' }).click();
  await panel.locator(`.vlist [role=row][data-faulted="${rule}"]`, { hasText: `faulted by you: ${did}` }).first().waitFor({ timeout: SLOW_MS });
}

describe('faults on Socket.IO over WebSocket', () => {
  before(async () => {
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 }, rows: 'events' });
    page = await browser.context.newPage();
    await page.goto(`${demo.url}?transport=websocket&reanswerMs=${REANSWER_MS}&grantTtlMs=${GRANT_TTL_MS}`);
    client = await demo.runtime.waitForClient();
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    // The panel has the capture: the surfaces registered are rows of its Timeline.
    await panel.locator('.vlist [role=row][data-type="surface:register"]').first().waitFor({ timeout: SLOW_MS });
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  test('refuse a result: the client re-sends it trimmed (§7.3.6), and only the trimmed one reaches the runtime', async () => {
    const rule = await addRule(panel, { direction: 'from the client (app → runtime)', surface: 'catalog', action: 'search', fault: 'Refuse the result', error: 'result refused by the test', maxCount: 1 });
    // The banner, in another view too.
    await panel.getByRole('tab', { name: 'Surfaces' }).click();
    assert.match(await panel.getByTestId('faults-banner').innerText(), /Faults active: 1 rule/);
    const r = await search('mug');
    assert.equal(r.success, true);
    // §7.3.6: re-sent with `delivery: { trimmed: true, reason, omitted }`, first without surfaces and observations.
    const delivery = r.delivery as { trimmed?: unknown; reason?: unknown; omitted?: unknown } | undefined;
    assert.equal(delivery?.trimmed, true, 'the re-sent result says it was trimmed');
    assert.ok(Array.isArray(delivery?.omitted) && (delivery.omitted as string[]).length > 0, 'it names what it left out');
    assert.equal(r.surfaces, undefined);
    assert.equal(r.observations, undefined);
    const reached = resultsFor(demo.runtime.events, r.requestId);
    assert.equal(reached.length, 1, 'the refused result never reached the runtime');
    assert.equal((reached[0]!.delivery as { trimmed?: boolean }).trimmed, true);
    await faultedRow(rule, 'refused');
    await clearRules(panel);
  });

  test("drop the client's answer: the runtime's repeat is answered with the same result once the re-answer interval passed (§7.3.7)", async () => {
    await addRule(panel, { surface: 'catalog', action: 'search', fault: "Drop the client's answer", maxCount: 1 });
    const pending = search('kettle', 20_000);
    // The request went out and its answer was kept back: the panel shows the dropped result.
    await until(() => demo.runtime.events.some((e) => e.dir === 'out' && e.type === 'action:request' && (e.payload as { params?: { query?: string } }).params?.query === 'kettle'), 'the request sent', SLOW_MS, 20);
    const requestId = [...demo.runtime.events].reverse().find((e) => e.dir === 'out' && e.type === 'action:request')!.payload as { requestId: string };
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row][data-type="action:result"]', { hasText: 'faulted by you: dropped' }).first().waitFor({ timeout: SLOW_MS });
    assert.equal(resultsFor(demo.runtime.events, requestId.requestId).length, 0, 'the answer did not reach the runtime');
    // The client answers a repeat only once its re-answer interval has passed (§7.3.7): the runtime repeats until it does.
    await until(
      async () => {
        await demo.runtime.repeat(client, requestId.requestId);
        return resultsFor(demo.runtime.events, requestId.requestId).length === 1;
      },
      'a repeat answered',
      SLOW_MS,
      REANSWER_MS / 2,
    );
    const r = await pending;
    assert.equal(r.success, true, 'the repeat was answered');
    assert.equal(resultsFor(demo.runtime.events, requestId.requestId).length, 1);
    await clearRules(panel);
  });

  test('delay a request: the answer comes no sooner than the delay', async () => {
    const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', fault: 'Delay', ms: 800, maxCount: 1 });
    const t0 = Date.now();
    const r = await search('delayed');
    assert.equal(r.success, true);
    assert.ok(Date.now() - t0 >= 800, `answered after ${Date.now() - t0} ms`);
    await faultedRow(rule, 'delayed');
    await clearRules(panel);
  });

  test('duplicate a request: the client runs it once (§7.3.7) and answers once', async () => {
    const cart = Number(await page.locator('#cart-count').innerText());
    const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'add_to_cart', fault: 'Duplicate', maxCount: 1 });
    const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 } });
    assert.equal(r.success, true);
    await page.waitForFunction((n) => Number(document.querySelector('#cart-count')?.textContent) === n + 1, cart);
    // Both copies reached the app: two rows, each marked.
    await faultedRow(rule, 'duplicated');
    await panel.waitForFunction((id) => document.querySelectorAll(`.vlist [role=row][data-faulted="${id}"][data-type="action:request"]`).length === 2, rule, { timeout: SLOW_MS });
    // A positive witness after the duplicate: the next request's answer, then the counts.
    assert.equal((await search('after duplicate')).success, true);
    assert.equal(Number(await page.locator('#cart-count').innerText()), cart + 1, 'run once');
    assert.equal(resultsFor(demo.runtime.events, r.requestId).length, 1, 'answered once');
    await clearRules(panel);
  });

  test('reorder: the first request is held until the next one, whose answer comes first', async () => {
    await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Reorder (hold one until the next)', maxCount: 2 });
    const first = search('first');
    await until(() => demo.runtime.events.some((e) => e.dir === 'out' && (e.payload as { params?: { query?: string } }).params?.query === 'first'), 'the first request sent', SLOW_MS, 10);
    const second = search('second');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.success && b.success, true);
    const order = demo.runtime.events.filter((e) => e.type === 'action:result' && [a.requestId, b.requestId].includes((e.payload as { requestId: string }).requestId)).map((e) => (e.payload as { requestId: string }).requestId);
    assert.deepEqual(order, [b.requestId, a.requestId]);
    await clearRules(panel);
  });

  test("withhold the runtime's acknowledgments: the client's answer stays unacknowledged, so a repeat is answered again (§7.3.7)", async () => {
    await addRule(panel, { direction: 'to the client (runtime → app)', surface: 'catalog', action: 'search', fault: 'Withhold acknowledgments', maxCount: 1 });
    const r = await search('unacked');
    assert.equal(r.success, true);
    // The runtime acknowledged it (its own log), the app never got that acknowledgment.
    await until(() => demo.runtime.events.some((e) => e.type === 'ack' && (e.payload as { requestId?: string }).requestId === r.requestId), 'the runtime acknowledged', SLOW_MS, 10);
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row][data-type="ack"]', { hasText: 'faulted by you: withheld' }).first().waitFor({ timeout: SLOW_MS });
    // Unacknowledged, the answer is given again to a repeat once the re-answer interval has passed (§7.3.7): the runtime repeats until it is.
    await until(
      async () => {
        await demo.runtime.repeat(client, r.requestId);
        return resultsFor(demo.runtime.events, r.requestId).length === 2;
      },
      'the repeat answered with the same result',
      SLOW_MS,
      REANSWER_MS / 2,
    );
    const [one, two] = resultsFor(demo.runtime.events, r.requestId);
    assert.deepEqual(two!.success, one!.success);
    await clearRules(panel);
  });

  test('stale knownSurfaces: the client must then send its surfaces in the result (§7.3.4)', async () => {
    await addRule(panel, { surface: 'catalog', action: 'search', fault: 'Send stale knownSurfaces', maxCount: 1 });
    const r = await search('stale');
    assert.equal(r.success, true);
    assert.ok(Array.isArray(r.surfaces) && r.surfaces.length > 0, 'surfaces sent, as the hash differs from the stale one');
    const sent = demo.runtime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && (e.payload as { requestId: string }).requestId === r.requestId)!;
    assert.notEqual((sent.payload as { knownSurfaces?: string }).knownSurfaces, 'fnv1a64:0000000000000000', 'the runtime itself sent its real hash');
    await clearRules(panel);
  });

  test("an approval's argsHash altered: the client refuses (ACTION_DENIED); reused: the second use is refused as the grant is single-use", async () => {
    const params = { reason: 'start_over' };
    const ask = () => {
      const granted = demo.runtime.askApproval(client, 'cart', 'clear_cart', params, { timeoutMs: SLOW_MS });
      return page.locator('#approve-btn').click().then(() => granted);
    };
    await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: "Alter the approval's argsHash", maxCount: 1 });
    const r = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval: await ask() });
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'ACTION_DENIED');
    await clearRules(panel);

    await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: 'Reuse the approval', maxCount: 1 });
    const approval = await ask();
    const ok = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval });
    assert.equal(ok.success, true, 'the first use runs');
    // The copy under another request id: its answer reaches the runtime as one it never asked for.
    await until(
      () => demo.runtime.events.some((e) => e.type === 'action:result' && (e.payload as { requestId: string; error?: { code?: string } }).requestId !== ok.requestId && (e.payload as { error?: { code?: string } }).error?.code === 'ACTION_DENIED'),
      'the reused approval refused',
      SLOW_MS,
      20,
    );
    await clearRules(panel);
  });

  test("delay the client's receipts: the runtime gets the receipt no sooner than the delay, and the result on time", async () => {
    const rule = await addRule(panel, { direction: 'from the client (app → runtime)', type: 'ack', surface: 'catalog', action: 'search', fault: 'Delay acknowledgments', ms: 800, maxCount: 1 });
    const r = await search('late receipt');
    assert.equal(r.success, true);
    await until(() => logged('in', 'receipt', r.requestId) !== undefined, 'the receipt reached the runtime', SLOW_MS, 20);
    // On the runtime's clock: its request going out, the receipt and the result coming in.
    const sent = logged('out', 'action:request', r.requestId)!;
    const receipt = logged('in', 'receipt', r.requestId)!;
    const result = logged('in', 'action:result', r.requestId)!;
    assert.ok(receipt.t - sent.t >= 800, `the receipt came ${receipt.t - sent.t} ms after the request`);
    assert.ok(result.t < receipt.t, 'the result was not held back with the receipt');
    await faultedRow(rule, 'delayed');
    await clearRules(panel);
  });

  test("expire the approval: delivered past the grant's expiresAt, the client refuses it (ACTION_DENIED) and does not run it", async () => {
    // Something in the cart, so that clearing it would show.
    assert.equal((await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 1 } })).success, true);
    await page.waitForFunction(() => Number(document.querySelector('#cart-count')?.textContent) > 0);
    const cart = Number(await page.locator('#cart-count').innerText());
    const rule = await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: 'Expire the approval (deliver late)', ms: GRANT_TTL_MS + 1000, maxCount: 1 });
    const params = { reason: 'start_over' };
    const granted = demo.runtime.askApproval(client, 'cart', 'clear_cart', params, { timeoutMs: SLOW_MS });
    await page.locator('#approve-btn').click();
    const approval = await granted;
    const grant = demo.runtime.events.find((e) => e.dir === 'in' && e.type === 'x-approval:granted' && (e.payload as { approvalId?: string }).approvalId === approval.approvalId)!.payload as { expiresAt: number };
    const r = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval, timeoutMs: SLOW_MS });
    const sent = logged('out', 'action:request', r.requestId)!;
    const answered = logged('in', 'action:result', r.requestId)!;
    assert.ok(sent.t < grant.expiresAt, 'the runtime sent it while the grant was good');
    assert.ok(answered.t > grant.expiresAt, 'answered past the grant');
    // The grant no longer admits anything (OUIApprovalGrant.expiresAt): refused as any approval that does not match a grant.
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'ACTION_DENIED');
    assert.equal(Number(await page.locator('#cart-count').innerText()), cart, 'the cart was not cleared');
    await faultedRow(rule, 'delivered late');
    await clearRules(panel);
  });

  test('disconnect: the transport closes with the code and reason; the runtime fails the request SURFACE_UNAVAILABLE (§7.6.1) and the client comes back', async () => {
    await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Disconnect the transport', code: 4001, reason: 'closed by a fault rule', maxCount: 1 });
    const r = await search('disconnect');
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE');
    assert.ok(demo.runtime.events.some((e) => e.clientId === client && e.type === 'x-disconnect'));
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row]', { hasText: '4001 closed by a fault rule' }).first().waitFor({ timeout: SLOW_MS });
    await clearRules(panel);
    // Socket.IO reconnects by itself: a new client registers again.
    await until(() => demo.runtime.clients().some((c) => c !== client), 'a new connection', SLOW_MS, 50);
  });
});
