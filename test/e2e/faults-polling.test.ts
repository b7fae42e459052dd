/**
 * Fault rules in Socket.IO's long-polling phase: the demo's shop client kept
 * on long-polling (`?transport=polling`: XMLHttpRequest; `fetch-polling`:
 * fetch), never upgraded, against the demo's real Socket.IO server. Rules are
 * set in the panel's Faults view by its labels; the oracle is the demo
 * runtime's own log (`runtime.events`, what reached the server), what the
 * spec says the client must then do, and what the app did (its cart).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { addRule, clearRules, resultsFor } from './faults-steps.ts';

/** The §7.3.7 re-answer interval the page's client runs with here (its `?reanswerMs`). */
const REANSWER_MS = 300;
/** How long the page's approval grants last (its `?grantTtlMs`). */
const GRANT_TTL_MS = 5000;

type Events = DemoServer['runtime']['events'];
const queryOf = (p: unknown) => (p as { params?: { query?: string } } | undefined)?.params?.query;
const requestIdOf = (p: unknown) => (p as { requestId?: string } | undefined)?.requestId;

/** The transport the page's Socket.IO client rides, by its own word (the demo's state). */
const engineTransport = (page: Page) => page.evaluate(() => (window as unknown as { __demo: { state(): { clients: { socket: { transport: string } } } } }).__demo.state().clients.socket.transport);

function suite(transport: 'polling' | 'fetch-polling', full: boolean) {
  let demo: DemoServer;
  let browser: Browser;
  let page: Page;
  let panel: Page;
  let client: string;
  const search = (query: string, timeoutMs?: number) => demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query }, ...(timeoutMs ? { timeoutMs } : {}) });
  const events = (): Events => demo.runtime.events;

  async function faultedRow(rule: string, did: string): Promise<void> {
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator(`.vlist [role=row][data-faulted="${rule}"]`, { hasText: `faulted by you: ${did}` }).first().waitFor({ timeout: SLOW_MS });
  }

  before(async () => {
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 }, rows: 'events' });
    page = await browser.context.newPage();
    // How the page polls, by the browser's word: every Engine.IO request of the page is of one kind.
    const kinds = new Set<string>();
    page.on('request', (r) => {
      if (r.url().includes('EIO=')) kinds.add(r.resourceType());
    });
    await page.goto(`${demo.url}?transport=${transport}&reanswerMs=${REANSWER_MS}&grantTtlMs=${GRANT_TTL_MS}`);
    client = await demo.runtime.waitForClient();
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    await panel.locator('.vlist [role=row][data-type="surface:register"]').first().waitFor({ timeout: SLOW_MS });
    assert.equal(await engineTransport(page), 'polling', 'the client polls');
    assert.deepEqual([...kinds], [transport === 'polling' ? 'xhr' : 'fetch'], 'by XMLHttpRequest or fetch()');
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  test('refuse a result: the client re-sends it trimmed (§7.3.6), and only the trimmed one reaches the runtime', async () => {
    const rule = await addRule(panel, { direction: 'from the client (app → runtime)', surface: 'catalog', action: 'search', fault: 'Refuse the result', error: 'result refused by the test', maxCount: 1 });
    const r = await search('mug');
    assert.equal(r.success, true);
    const delivery = r.delivery as { trimmed?: unknown; omitted?: unknown } | undefined;
    assert.equal(delivery?.trimmed, true, 'the re-sent result says it was trimmed');
    assert.ok(Array.isArray(delivery?.omitted) && (delivery.omitted as string[]).length > 0, 'it names what it left out');
    const reached = resultsFor(events(), r.requestId);
    assert.equal(reached.length, 1, 'the refused result never reached the runtime');
    assert.equal((reached[0]!.delivery as { trimmed?: boolean }).trimmed, true);
    await faultedRow(rule, 'refused');
    await clearRules(panel);
    assert.equal(await engineTransport(page), 'polling', 'still polling');
  });

  test("drop the client's answer: the runtime repeats and gets the same answer once the re-answer interval passed (§7.3.7)", async () => {
    await addRule(panel, { surface: 'catalog', action: 'search', fault: "Drop the client's answer", maxCount: 1 });
    const pending = search('kettle', 20_000);
    await until(() => events().some((e) => e.dir === 'out' && e.type === 'action:request' && queryOf(e.payload) === 'kettle'), 'the request sent', SLOW_MS, 20);
    const requestId = requestIdOf([...events()].reverse().find((e) => e.dir === 'out' && e.type === 'action:request')!.payload)!;
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row][data-type="action:result"]', { hasText: 'faulted by you: dropped' }).first().waitFor({ timeout: SLOW_MS });
    assert.equal(resultsFor(events(), requestId).length, 0, 'the answer did not reach the runtime');
    await until(
      async () => {
        await demo.runtime.repeat(client, requestId);
        return resultsFor(events(), requestId).length === 1;
      },
      'a repeat answered',
      SLOW_MS,
      REANSWER_MS / 2,
    );
    const r = await pending;
    assert.equal(r.success, true, 'the repeat was answered');
    assert.equal(resultsFor(events(), requestId).length, 1);
    await clearRules(panel);
  });

  test('delay a request: it reaches the app no sooner than the delay, and the answer after it', async () => {
    const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', fault: 'Delay', ms: 800, maxCount: 1 });
    const r = await search('delayed');
    assert.equal(r.success, true);
    // On the runtime's clock: from its request going out to the answer coming in.
    const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
    const answered = events().find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === r.requestId)!;
    assert.ok(answered.t - sent.t >= 800, `answered ${answered.t - sent.t} ms after the request`);
    await faultedRow(rule, 'delayed');
    await clearRules(panel);
  });

  test('duplicate a request: the client runs it once (§7.3.7) and answers once', async () => {
    const cart = Number(await page.locator('#cart-count').innerText());
    const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'add_to_cart', fault: 'Duplicate', maxCount: 1 });
    const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 } });
    assert.equal(r.success, true);
    await page.waitForFunction((n) => Number(document.querySelector('#cart-count')?.textContent) === n + 1, cart);
    await faultedRow(rule, 'duplicated');
    await panel.waitForFunction((id) => document.querySelectorAll(`.vlist [role=row][data-faulted="${id}"][data-type="action:request"]`).length === 2, rule, { timeout: SLOW_MS });
    // A positive witness after the duplicate: the next request's answer, then the counts.
    assert.equal((await search('after duplicate')).success, true);
    assert.equal(Number(await page.locator('#cart-count').innerText()), cart + 1, 'run once');
    assert.equal(resultsFor(events(), r.requestId).length, 1, 'answered once');
    await clearRules(panel);
  });

  if (full) {
    test('reorder: the first request is held until the next one, whose answer comes first', async () => {
      await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Reorder (hold one until the next)', maxCount: 2 });
      const first = search('first');
      await until(() => events().some((e) => e.dir === 'out' && queryOf(e.payload) === 'first'), 'the first request sent', SLOW_MS, 10);
      const second = search('second');
      const [a, b] = await Promise.all([first, second]);
      assert.equal(a.success && b.success, true);
      const order = events()
        .filter((e) => e.dir === 'in' && e.type === 'action:result' && [a.requestId, b.requestId].includes(requestIdOf(e.payload)!))
        .map((e) => requestIdOf(e.payload));
      assert.deepEqual(order, [b.requestId, a.requestId]);
      await clearRules(panel);
    });

    test('delay past the hold (11 s): the rest of the session goes on, and the request still reaches the app after its delay', async () => {
      const rule = await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Delay', ms: 11_000, maxCount: 1 });
      const late = search('very late', SLOW_MS);
      await until(() => events().some((e) => e.dir === 'out' && queryOf(e.payload) === 'very late'), 'the late request sent', SLOW_MS, 10);
      // Meanwhile the session is not held: another request is answered at once.
      const meanwhile = await search('meanwhile');
      assert.equal(meanwhile.success, true);
      const r = await late;
      assert.equal(r.success, true);
      const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      const answered = events().find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === r.requestId)!;
      const other = events().find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === meanwhile.requestId)!;
      assert.ok(answered.t - sent.t >= 11_000, `answered ${answered.t - sent.t} ms after the request`);
      assert.ok(other.t < answered.t, 'the other request was answered first');
      await faultedRow(rule, 'delayed');
      await clearRules(panel);
    });

    test("delay a result on its way to the runtime: the POST is held, the runtime gets it no sooner than the delay", async () => {
      const rule = await addRule(panel, { direction: 'from the client (app → runtime)', type: 'action:result', surface: 'catalog', action: 'search', fault: 'Delay', ms: 800, maxCount: 1 });
      const r = await search('slow uplink');
      assert.equal(r.success, true);
      const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      const answered = events().find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === r.requestId)!;
      assert.ok(answered.t - sent.t >= 800, `answered ${answered.t - sent.t} ms after the request`);
      await faultedRow(rule, 'delayed');
      await clearRules(panel);
    });

    test("delay the client's receipts: the runtime gets the receipt no sooner than the delay", async () => {
      const rule = await addRule(panel, { direction: 'from the client (app → runtime)', type: 'ack', surface: 'catalog', action: 'search', fault: 'Delay acknowledgments', ms: 800, maxCount: 1 });
      const r = await search('late receipt');
      assert.equal(r.success, true);
      await until(() => events().some((e) => e.dir === 'in' && e.type === 'receipt' && requestIdOf(e.payload) === r.requestId), 'the receipt reached the runtime', SLOW_MS, 20);
      const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      const receipt = events().find((e) => e.dir === 'in' && e.type === 'receipt' && requestIdOf(e.payload) === r.requestId)!;
      assert.ok(receipt.t - sent.t >= 800, `the receipt came ${receipt.t - sent.t} ms after the request`);
      await faultedRow(rule, 'delayed');
      await clearRules(panel);
    });

    test("withhold the runtime's acknowledgments: the client's answer stays unacknowledged, so a repeat is answered again (§7.3.7)", async () => {
      await addRule(panel, { direction: 'to the client (runtime → app)', surface: 'catalog', action: 'search', fault: 'Withhold acknowledgments', maxCount: 1 });
      const r = await search('unacked');
      assert.equal(r.success, true);
      await until(() => events().some((e) => e.type === 'ack' && requestIdOf(e.payload) === r.requestId), 'the runtime acknowledged', SLOW_MS, 10);
      await panel.getByRole('tab', { name: 'Timeline' }).click();
      await panel.locator('.vlist [role=row][data-type="ack"]', { hasText: 'faulted by you: withheld' }).first().waitFor({ timeout: SLOW_MS });
      await until(
        async () => {
          await demo.runtime.repeat(client, r.requestId);
          return resultsFor(events(), r.requestId).length === 2;
        },
        'the repeat answered with the same result',
        SLOW_MS,
        REANSWER_MS / 2,
      );
      await clearRules(panel);
    });

    test('stale knownSurfaces: the client must then send its surfaces in the result (§7.3.4)', async () => {
      await addRule(panel, { surface: 'catalog', action: 'search', fault: 'Send stale knownSurfaces', maxCount: 1 });
      const r = await search('stale');
      assert.equal(r.success, true);
      assert.ok(Array.isArray(r.surfaces) && r.surfaces.length > 0, 'surfaces sent, as the hash differs from the stale one');
      const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      assert.notEqual((sent.payload as { knownSurfaces?: string }).knownSurfaces, 'fnv1a64:0000000000000000', 'the runtime itself sent its real hash');
      await clearRules(panel);
    });

    test("an approval's argsHash altered: the client refuses (ACTION_DENIED); reused: the second use is refused; expired: delivered past the grant, refused, and the cart is kept", async () => {
      assert.equal((await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 1 } })).success, true);
      await page.waitForFunction(() => Number(document.querySelector('#cart-count')?.textContent) > 0);
      const params = { reason: 'start_over' };
      const ask = async () => {
        const granted = demo.runtime.askApproval(client, 'cart', 'clear_cart', params, { timeoutMs: SLOW_MS });
        await page.locator('#approve-btn').click();
        return granted;
      };
      await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: "Alter the approval's argsHash", maxCount: 1 });
      const altered = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval: await ask() });
      assert.equal(altered.success, false);
      assert.equal(altered.error?.code, 'ACTION_DENIED');
      await clearRules(panel);

      // Reused: the copy under another request id is refused, as the grant is single-use.
      await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: 'Reuse the approval', maxCount: 1 });
      await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 1 } });
      const reused = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval: await ask() });
      assert.equal(reused.success, true, 'the first use runs');
      await until(
        () => events().some((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) !== reused.requestId && (e.payload as { error?: { code?: string } }).error?.code === 'ACTION_DENIED' && !requestIdOf(e.payload)?.startsWith(altered.requestId)),
        'the reused approval refused',
        SLOW_MS,
        20,
      );
      await clearRules(panel);
      assert.equal((await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 1 } })).success, true);
      await page.waitForFunction(() => Number(document.querySelector('#cart-count')?.textContent) > 0);

      const kept = Number(await page.locator('#cart-count').innerText());
      const rule = await addRule(panel, { surface: 'cart', action: 'clear_cart', fault: 'Expire the approval (deliver late)', ms: GRANT_TTL_MS + 1000, maxCount: 1 });
      const approval = await ask();
      const grant = events().find((e) => e.dir === 'in' && e.type === 'x-approval:granted' && (e.payload as { approvalId?: string }).approvalId === approval.approvalId)!.payload as { expiresAt: number };
      const r = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval, timeoutMs: SLOW_MS });
      const sent = events().find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      const answered = events().find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === r.requestId)!;
      assert.ok(sent.t < grant.expiresAt && answered.t > grant.expiresAt, 'sent while the grant was good, answered past it');
      assert.equal(r.success, false);
      assert.equal(r.error?.code, 'ACTION_DENIED');
      assert.equal(Number(await page.locator('#cart-count').innerText()), kept, 'the cart was not cleared');
      await faultedRow(rule, 'delivered late');
      await clearRules(panel);
    });
  }

  test('disconnect: the poll fails as on a network error; the runtime fails the request SURFACE_UNAVAILABLE (§7.6.1) and the client comes back, polling', async () => {
    await addRule(panel, { direction: 'to the client (runtime → app)', type: 'action:request', surface: 'catalog', action: 'search', fault: 'Disconnect the transport', maxCount: 1 });
    const before = client;
    const r = await search('disconnect');
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE');
    assert.ok(events().some((e) => e.clientId === before && e.type === 'x-disconnect'));
    await panel.getByRole('tab', { name: 'Timeline' }).click();
    await panel.locator('.vlist [role=row][data-type="action:request"]', { hasText: 'faulted by you: disconnected' }).first().waitFor({ timeout: SLOW_MS });
    await clearRules(panel);
    // Socket.IO reconnects by itself: a new session registers again, and answers.
    await until(() => demo.runtime.clients().some((c) => c !== before), 'a new connection', SLOW_MS, 50);
    client = demo.runtime.clients().find((c) => c !== before)!;
    await until(async () => (await search('back').catch(() => ({ success: false }))).success === true, 'the new session answers', SLOW_MS, 100);
    assert.equal(await engineTransport(page), 'polling');
  });
}

describe('faults on Socket.IO long-polling (XMLHttpRequest)', () => suite('polling', true));
// engine.io-client's fetch() transport: the same mechanism with a Response built for the app.
describe('faults on Socket.IO long-polling (fetch)', () => suite('fetch-polling', false));
