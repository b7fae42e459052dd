/**
 * The panel in the runtime's seat, end to end on the demo in real Chromium,
 * driven by the Runtime view's labels and roles: Take over the Socket.IO shop
 * client, send a request as the stand-in and see its answer, while the demo's
 * real runtime (its own log, `runtime.events`, an independent witness) neither
 * gets that request nor reaches the page with its own; an approval issued for
 * exact params lets `clear_cart` run, and the same approval sent again is
 * refused by the app (grants are single-use).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { argsHashSync } from '../demo/independent/args-hash-node.ts';
import { demoUpgraded, SLOW_MS, type DemoState } from '../support/demo-page.ts';
import { until } from '../support/wait.ts';

let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;
let client: string;

/** Picks surface and action in the Runtime view's composer (the only client with the surface is chosen by it) and sets the params. */
async function compose(surfaceId: string, actionId: string, params: unknown): Promise<void> {
  await panel.getByRole('tab', { name: 'Runtime' }).click();
  const surface = panel.getByLabel('Surface', { exact: true });
  // An option's value is a property (not an attribute): waited on as the inject tests do.
  await panel.waitForFunction(
    (s) => [...document.querySelectorAll('select[aria-label="Surface"] option')].some((o) => (o as HTMLOptionElement).value === s && (o as HTMLOptionElement).dataset.mounted === 'true'),
    surfaceId,
    { timeout: SLOW_MS },
  );
  await surface.selectOption(surfaceId);
  await panel.getByLabel('Action', { exact: true }).selectOption(actionId);
  await panel.getByLabel('Params JSON').fill(JSON.stringify(params));
}

/** The stand-in's newest request row once it has an answer: its requestId and the answer's words. */
async function newestAnswer(count: number): Promise<{ requestId: string; answer: string }> {
  const rows = panel.getByRole('table', { name: 'Stand-in requests' }).locator('tbody tr');
  await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=stand-in-calls] tbody tr').length >= n, count, { timeout: SLOW_MS });
  const row = rows.first();
  await panel.waitForFunction(() => /^(success|error|timeout|unavailable|not-sent|not delivered)/.test(document.querySelector('[data-testid=stand-in-calls] tbody tr [data-testid=stand-in-answer]')?.textContent ?? ''), undefined, { timeout: SLOW_MS });
  return { requestId: (await row.getAttribute('data-request-id')) ?? '', answer: (await row.getByTestId('stand-in-answer').innerText()).trim() };
}

/**
 * The docs' pictures of the view as it is now, light and dark (docs/NAME-light.png, -dark.png), with
 * UPDATE_SCREENSHOTS=1; and always: docked to the side at 560 px, nothing is wider than the panel.
 */
async function pictures(name: string, top?: string): Promise<void> {
  const size = panel.viewportSize()!;
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    await panel.setViewportSize({ width: 1280, height: 800 });
    if (top) await panel.getByTestId(top).evaluate((el) => el.scrollIntoView({ block: 'start' }));
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

const runtimeGot = (type: string, requestId: string) => demo.runtime.events.some((e) => e.type === type && (e.payload as { requestId?: string } | null)?.requestId === requestId);

/**
 * The banner is the panel's word; the page's hooks have a takeover or a give-back once each
 * frame answered the new rule set (the Faults view counts them). Waits for that, then goes
 * back to the view it was on.
 */
async function seatInPlace(back: string): Promise<void> {
  const frames = page.frames().filter((f) => f.url().startsWith('http')).length;
  await panel.getByRole('tab', { name: 'Faults' }).click();
  await panel.waitForFunction((n) => Number(document.querySelector('[data-testid=faults-applied]')?.getAttribute('data-frames') ?? 0) >= n, frames, { timeout: SLOW_MS });
  await panel.getByRole('tab', { name: back }).click();
}

describe('stand-in runtime in the panel', () => {
  before(async () => {
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 } });
    page = await browser.context.newPage();
    await page.goto(demo.url);
    client = await demo.runtime.waitForClient();
    await demoUpgraded(page);
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  test('Take over the Socket.IO client: the stand-in answers, the real runtime is held back and never sees the request', async () => {
    await panel.getByRole('tab', { name: 'Runtime' }).click();
    const takeOver = panel.getByRole('button', { name: /^Take over socket\.io:/ });
    await takeOver.waitFor({ timeout: SLOW_MS });
    // Injection rides the upgraded WebSocket: the button is enabled once the panel heard of it.
    await panel.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => /^Take over socket\.io:/.test(b.getAttribute('aria-label') ?? '') && !b.disabled), undefined, { timeout: SLOW_MS });
    await takeOver.click();
    assert.match(await panel.getByTestId('stand-in-banner').innerText(), /Stand-in runtime: the app's runtime is held back from socket\.io/);
    await seatInPlace('Runtime');
    // The banner stays in another view, as the Faults banner does.
    await panel.getByRole('tab', { name: 'Surfaces' }).click();
    await panel.getByTestId('stand-in-banner').waitFor();

    // The real runtime's own request no longer reaches the page: it times out.
    const held = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'held back' }, timeoutMs: 1500 });
    assert.equal(held.success, false);
    assert.equal(held.error?.code, 'TIMEOUT', "the app's runtime got no answer while the stand-in holds its seat");

    await compose('catalog', 'search', { query: 'mug' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    const { requestId, answer } = await newestAnswer(1);
    assert.match(answer, /^success/);
    assert.match(requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a fresh UUID v4 requestId (§7.3.1)');
    // The page's own log of what its client ran: the stand-in's request, handled.
    const ran = await page.evaluate((id) => JSON.stringify((window as unknown as { __demo: { activity(): unknown[] } }).__demo.activity()).includes(id), requestId);
    assert.equal(ran, true, 'the page ran the stand-in request');
    assert.equal(runtimeGot('action:request', requestId), false, "the app's runtime never sent nor saw the stand-in's request");
    assert.equal(runtimeGot('action:result', requestId), false, "the app's runtime never got the stand-in's answer");

    // The stand-in's state: it holds the surfaces the result carried, by hash, and will send that hash as knownSurfaces.
    const known = (await panel.getByTestId('known-surfaces').innerText()).trim();
    assert.match(known, /\S+:[0-9a-f]+/, 'a surfacesHash it holds');
    assert.ok(await panel.getByRole('table', { name: 'Surfaces held by hash' }).getByText(known).count());

    // Give back: the runtime's requests reach the page again (the positive witness for the timeout above).
    await panel.getByRole('button', { name: /^Give back socket\.io:/ }).click();
    await panel.getByTestId('stand-in-banner').waitFor({ state: 'detached' });
    await seatInPlace('Runtime');
    const back = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'given back' }, timeoutMs: 15_000 });
    assert.equal(back.success, true);
  });

  test('a taken-over client that reconnects is taken over again on its new connection', async () => {
    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.getByRole('button', { name: /^Take over socket\.io:/ }).click();
    const seat = panel.getByRole('table', { name: 'Clients and their runtime' }).locator('tr[data-seat=stand-in]');
    const oldKey = await seat.getAttribute('data-client');
    // Products on the page to add from (the last search showed none).
    const calls = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('catalog', 'search', { query: 'mug' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    assert.match((await newestAnswer(calls + 1)).answer, /^success/);
    await page.locator('[data-add]:not([disabled])').first().waitFor({ timeout: SLOW_MS });
    // The transport lost: a Faults rule closes the socket on the client's next observation update.
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByLabel('Direction').selectOption({ label: 'from the client (app → runtime)' });
    await panel.getByLabel('Event type').selectOption('observation:update');
    await panel.getByLabel('Fault', { exact: true }).selectOption({ label: 'Disconnect the transport' });
    await panel.getByLabel('At most (times)').fill('1');
    await panel.getByRole('button', { name: 'Add rule' }).click();
    const socketId = () => page.evaluate(() => (window as unknown as { __demo: { state(): DemoState & { clients: { socket: { id: string | null } } } } }).__demo.state().clients.socket.id);
    const first = await socketId();
    await until(
      async () => {
        await page.locator('[data-add]:not([disabled])').first().click();
        const now = await socketId();
        return now !== null && now !== first;
      },
      'the shop client reconnected on a new socket',
      SLOW_MS,
      500,
    );
    await demoUpgraded(page);
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByRole('button', { name: 'Clear all rules' }).click();
    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.waitForFunction((old) => [...document.querySelectorAll('tr[data-seat=stand-in]')].some((r) => r.getAttribute('data-client') !== old), oldKey, { timeout: SLOW_MS });
    assert.match(await panel.getByTestId('stand-in-banner').innerText(), /held back from socket\.io: /);

    // The stand-in answers on the new connection. Its request went after the new rule (the panel's commands reach
    // the page's hook in order), so by its answer the hook holds the app's runtime back there too.
    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('catalog', 'search', { query: 'after reconnect' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    assert.match((await newestAnswer(before + 1)).answer, /^success/);
    const client2 = await demo.runtime.waitForClient();
    assert.notEqual(client2, client);
    const held = await demo.runtime.request(client2, { surfaceId: 'catalog', actionId: 'search', params: { query: 'held again' }, timeoutMs: 1500 });
    assert.equal(held.error?.code, 'TIMEOUT', "the app's runtime is held back on the new connection");
    await panel.getByRole('button', { name: /^Give back socket\.io:/ }).click();
    await panel.getByTestId('stand-in-banner').waitFor({ state: 'detached' });
    await seatInPlace('Runtime');
    client = client2;
  });

  test('postMessage: the stand-in plays the host frame; direct: it calls the handlers', async () => {
    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('coupon-widget', 'apply_coupon', { code: 'SAVE10' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    assert.match((await newestAnswer(before + 1)).answer, /^success/);
    // The widget's own page shows the coupon applied.
    const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
    await frame.waitForSelector('#coupon-applied[data-code="SAVE10"]', { timeout: SLOW_MS });
    const row = panel.getByRole('table', { name: 'Stand-in requests' }).locator('tbody tr').first();
    assert.equal((await row.locator('td').nth(4).innerText()).trim(), 'none: the transport carries no acknowledgment of a result');

    await compose('help', 'open_article', { articleId: 'returns' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    assert.match((await newestAnswer(before + 2)).answer, /^success/);
    await page.waitForSelector('#help-article[data-article-id="returns"]', { timeout: SLOW_MS });
  });

  test('postMessage takeover: the stand-in answers once the host frame holds; the real runtime\'s request sent in the same moment never reaches the widget', async () => {
    // What the host page's own listeners see (added after the hook's, as the app's are): an answer held from the app's runtime never shows here.
    await page.evaluate(() => {
      const w = window as unknown as { __seenResults?: string[] };
      w.__seenResults = [];
      window.addEventListener('message', (e) => {
        const d = e.data as { type?: unknown; payload?: { requestId?: unknown } } | null;
        if (d?.type === 'action:result' && typeof d.payload?.requestId === 'string') w.__seenResults!.push(d.payload.requestId);
      });
    });
    const seen = () => page.evaluate(() => (window as unknown as { __seenResults: string[] }).__seenResults);
    const hostFrame = (code: string) =>
      page.evaluate((c) => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<{ success: boolean; error?: { code: string } }> } }).__demo.hostFrame('apply_coupon', { code: c }), code);
    // The witness works: the host's own request is answered, and its listeners see the answer.
    assert.equal((await hostFrame('SAVE10')).success, true);
    assert.ok((await seen()).length >= 1, "the host page's listeners see its runtime's answers");

    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.getByRole('button', { name: /^Take over postmessage:/ }).click();
    await panel.getByRole('button', { name: /^Give back postmessage:/ }).waitFor();
    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('coupon-widget', 'apply_coupon', { code: 'AGENT20' });
    // The app's runtime asks for another coupon in the same moment as the stand-in sends.
    const [host] = await Promise.all([hostFrame('WELCOME15'), panel.getByRole('button', { name: 'Send as stand-in' }).click()]);
    const { requestId, answer } = await newestAnswer(before + 1);
    assert.match(answer, /^success/);
    const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
    await frame.waitForSelector('#coupon-applied[data-code="AGENT20"]', { timeout: SLOW_MS });
    assert.equal(host.error?.code, 'TIMEOUT', "the app's runtime got no answer: its request was held back");
    // Had the runtime's request reached the widget after the stand-in's, its coupon would show; before it, the runtime would have had an answer.
    assert.equal(await frame.getAttribute('#coupon-applied', 'data-code'), 'AGENT20');
    assert.equal((await seen()).includes(requestId), false, "the widget's answer to the stand-in never reached the host page's runtime");

    await panel.getByRole('button', { name: /^Give back postmessage:/ }).click();
    await panel.getByTestId('stand-in-banner').waitFor({ state: 'detached' });
    await seatInPlace('Runtime');
    assert.equal((await hostFrame('SAVE10')).success, true, 'given back, the runtime is answered again');
  });

  test('a refuse-result rule on the direct transport: the stand-in refuses through the client\'s onAcknowledged, the client re-sends trimmed (§7.3.6)', async () => {
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByLabel('Direction').selectOption({ label: 'from the client (app → runtime)' });
    await panel.getByLabel('Surface', { exact: true }).selectOption('help');
    await panel.getByLabel('Action', { exact: true }).selectOption('open_article');
    await panel.getByLabel('Fault', { exact: true }).selectOption({ label: 'Refuse the result' });
    await panel.getByLabel('Error', { exact: true }).fill('too big for direct');
    await panel.getByLabel('At most (times)').fill('1');
    await panel.getByRole('button', { name: 'Add rule' }).click();
    await panel.getByTestId('faults-banner').waitFor();

    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('help', 'open_article', { articleId: 'shipping' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    const { requestId, answer } = await newestAnswer(before + 1);
    assert.match(answer, /^success/);
    assert.match(answer, /\(re-sent trimmed, without \S/);
    const row = panel.getByRole('table', { name: 'Stand-in requests' }).locator('tbody tr').first();
    assert.equal((await row.locator('td').nth(4).innerText()).trim(), 'refused: too big for direct; accepted { ok: true }');
    // The page's own log: its client was told of the refusal and re-sent the result trimmed.
    const kinds = await page.evaluate((id) => (window as unknown as { __demo: { activity(): Array<{ requestId: string; kind: string }> } }).__demo.activity().filter((a) => a.requestId === id).map((a) => a.kind), requestId);
    assert.ok(kinds.includes('trimmed'), `the client re-sent trimmed (${kinds.join(', ')})`);
    await page.waitForSelector('#help-article[data-article-id="shipping"]', { timeout: SLOW_MS });
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByRole('button', { name: 'Clear all rules' }).click();
    await panel.getByTestId('faults-banner').waitFor({ state: 'detached' });
  });

  test("a refuse-result rule of the Faults view: the stand-in refuses the client's result, the client re-sends it trimmed (§7.3.6) and the stand-in accepts that", async () => {
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByLabel('Direction').selectOption({ label: 'from the client (app → runtime)' });
    await panel.getByLabel('Surface', { exact: true }).selectOption('catalog');
    await panel.getByLabel('Action', { exact: true }).selectOption('search');
    await panel.getByLabel('Fault', { exact: true }).selectOption({ label: 'Refuse the result' });
    await panel.getByLabel('Error', { exact: true }).fill('too big for the test');
    await panel.getByLabel('At most (times)').fill('1');
    await panel.getByRole('button', { name: 'Add rule' }).click();
    await panel.getByTestId('faults-banner').waitFor();

    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.getByRole('button', { name: /^Take over socket\.io:/ }).click();
    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('catalog', 'search', { query: 'refused once' });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    const { requestId, answer } = await newestAnswer(before + 1);
    assert.match(answer, /^success/);
    const row = panel.getByRole('table', { name: 'Stand-in requests' }).locator('tbody tr').first();
    assert.equal((await row.locator('td').nth(4).innerText()).trim(), 'refused: too big for the test; accepted { ok: true }');
    // The answer accepted is the client's re-send, which says so itself (§7.3.6: `delivery: { trimmed: true, omitted }`).
    assert.match(answer, /\(re-sent trimmed, without \S/);
    assert.equal(runtimeGot('action:result', requestId), false, "neither result reached the app's runtime");
    await panel.getByRole('button', { name: /^Give back socket\.io:/ }).click();
    await panel.getByRole('tab', { name: 'Faults' }).click();
    await panel.getByRole('button', { name: 'Clear all rules' }).click();
    await panel.getByTestId('faults-banner').waitFor({ state: 'detached' });
  });

  test('an approval issued for exact params lets clear_cart run once; the same approval again is refused by the app', async () => {
    await panel.getByRole('tab', { name: 'Runtime' }).click();
    await panel.getByRole('button', { name: /^Take over socket\.io:/ }).click();
    const before = await panel.locator('[data-testid=stand-in-calls] tbody tr').count();
    await compose('catalog', 'add_to_cart', { productId: 'mug-travel', quantity: 2 });
    await panel.getByRole('button', { name: 'Send as stand-in' }).click();
    assert.match((await newestAnswer(before + 1)).answer, /^success/);
    await page.waitForFunction(() => Number(document.querySelector('#cart-count')?.textContent) > 0);

    await compose('cart', 'clear_cart', {});
    await panel.getByRole('button', { name: 'Review approval…' }).click();
    const dialog = panel.getByRole('dialog', { name: 'Confirm approval' });
    assert.deepEqual(JSON.parse(await dialog.getByTestId('approval-params').innerText()), {}, 'the exact params');
    // The argsHash shown, against the demo's own implementation (independent of src/protocol).
    assert.match(await dialog.innerText(), new RegExp(`argsHash = ${argsHashSync({}).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await dialog.getByRole('button', { name: 'Approve and send' }).click();
    // The tab asks its user (the app's dialog), who approves.
    await page.getByRole('button', { name: 'Approve' }).click();
    const first = await newestAnswer(before + 2);
    assert.match(first.answer, /^success/);
    await page.waitForFunction(() => document.querySelector('#cart-count')?.textContent === '0');
    const approvals = panel.getByRole('table', { name: 'Approvals issued' });
    const row = approvals.locator('tbody tr').first();
    assert.match(await row.innerText(), /granted, sent/);
    assert.equal((await row.locator('td').nth(1).innerText()).trim(), argsHashSync({}));

    // Single use: the app refuses a second request under the same approval.
    await row.getByRole('button', { name: 'Send again with this approval' }).click();
    const second = await newestAnswer(before + 3);
    assert.match(second.answer, /^error \S+: .*already used/);
    assert.notEqual(second.requestId, first.requestId);
    await pictures('stand-in', 'stand-in-state');
    await panel.getByRole('button', { name: /^Give back socket\.io:/ }).click();
  });
});
