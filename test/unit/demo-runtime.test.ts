/**
 * The demo app end to end, without the extension: the demo server and its
 * runtimes, and the page in headless Chromium (one browser, one page).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumPath } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { argsHashSync, surfacesHash } from '../../src/protocol/index.ts';
import type { OUIActionResult } from '../../src/protocol/index.ts';

const REANSWER_MS = 1500;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const ORDER = {
  shipping: { name: 'Ada Lovelace', address: { street: '12 Analytical Row', city: 'London', postcode: 'N1 9GU', country: 'GB' }, method: 'standard' },
  payment: { type: 'card', last4: '4242' },
};

describe('demo app (headless Chromium, no extension)', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let cid: string;
  const pageErrors: string[] = [];

  const rt = () => server.runtime;
  const results = (requestId: string) =>
    rt().events.filter((e) => e.dir === 'in' && e.type === 'action:result' && (e.payload as OUIActionResult).requestId === requestId).map((e) => e.payload as OUIActionResult);
  const state = () => page.evaluate(() => (window as any).__demo.state());
  /** The page client's activity entries of `kind` for one request (its log, newest first, 40 kept). */
  const activityOf = (requestId: string, kind: string) =>
    page.evaluate(([id, k]) => ((window as any).__demo.activity() as Array<{ requestId: string; kind: string; note?: string }>).filter((e) => e.requestId === id && e.kind === k), [requestId, kind] as const);
  const nav = async (route: string) => {
    const r = await rt().request(cid, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route } });
    assert.equal(r.success, true, JSON.stringify(r.error));
    return r;
  };

  before(async () => {
    server = await startDemoServer({ port: 0 });
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${server.url}?reanswerMs=${REANSWER_MS}`);
    cid = await rt().waitForClient(10_000);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the Socket.IO client registers its surfaces and upgrades to WebSocket', async () => {
    await until(() => rt().surfaces(cid).length === 3, 'three surfaces');
    assert.deepEqual(rt().surfaces(cid).map((s) => s.id), ['cart', 'catalog', 'shop-nav']);
    const regs = rt().events.filter((e) => e.clientId === cid && e.type === 'surface:register');
    assert.ok(regs.length >= 3);
    // default transports: polling first, then the upgrade
    const first = rt().events.find((e) => e.clientId === cid && e.type === 'x-connect')!;
    assert.equal((first.payload as { transport: string }).transport, 'polling');
    await until(async () => (await state()).clients.socket.transport === 'websocket', 'upgrade to websocket');
    assert.equal(await page.getAttribute('#status-socket', 'data-state'), 'connected');
  });

  test('a request runs the handler; surfacesHash matches what the runtime holds', async () => {
    const held = surfacesHash(rt().surfaces(cid));
    const r = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
    assert.equal(r.success, true);
    assert.deepEqual((r.data as { results: Array<{ id: string }> }).results.map((p) => p.id), ['mug-classic', 'mug-travel']);
    const sent = rt().events.filter((e) => e.dir === 'out' && e.type === 'action:request').at(-1)!.payload as { knownSurfaces?: string };
    assert.equal(sent.knownSurfaces, held, 'the runtime sends the hash it holds');
    assert.equal(r.surfacesHash, held);
    assert.equal(r.surfaces, undefined, 'unchanged surfaces are not repeated');
    assert.equal(typeof r.durationMs, 'number');
    assert.equal(typeof r.timestamp, 'number');
    assert.deepEqual((r.observations as any).catalog.results.productIds, ['mug-classic', 'mug-travel']);
    assert.match(await page.textContent('#search-summary') ?? '', /2 products for “mug”/);

    // no knownSurfaces: the surfaces come along
    const r2 = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: '', category: 'books', sort: 'price_desc', limit: 5 }, knownSurfaces: null });
    assert.ok(Array.isArray(r2.surfaces));
    assert.equal(surfacesHash(r2.surfaces), r2.surfacesHash);
    assert.deepEqual((r2.data as any).results.map((p: any) => p.id), ['book-protocols', 'book-surfaces']);
  });

  test('navigating changes the surfaces; the result carries the new set', async () => {
    const r = await nav('/cart');
    assert.ok(r.surfaces, 'surfaces changed, so they are sent');
    assert.deepEqual(r.surfaces!.map((s) => s.id), ['cart', 'shop-nav']);
    assert.equal(surfacesHash(r.surfaces), r.surfacesHash);
    assert.deepEqual(rt().surfaces(cid).map((s) => s.id), ['cart', 'shop-nav']);
    assert.equal(rt().knownHash(cid), r.surfacesHash);
    // The page's own history.pushState: Playwright learns of it from the page a moment later, on a loaded machine.
    await page.waitForURL((u) => u.pathname === '/cart', { timeout: 5_000 }).catch(() => {});
    assert.equal(new URL(page.url()).pathname, '/cart');
    assert.ok(rt().events.some((e) => e.type === 'surface:deregister' && (e.payload as any).surfaceId === 'catalog'));
    const gone = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: 'x' } });
    assert.equal(gone.error?.code, 'SURFACE_UNAVAILABLE');
    await nav('/');
  });

  test('errors: VALIDATION_ERROR, ACTION_NOT_FOUND, SURFACE_UNAVAILABLE, and receipts', async () => {
    const bad = await rt().request(cid, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'nope', quantity: 99 } });
    assert.equal(bad.success, false);
    assert.equal(bad.error?.code, 'VALIDATION_ERROR');
    assert.ok((bad.error?.details as any).errors.length >= 2);
    assert.equal(typeof bad.surfacesHash, 'string');
    const extra = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: 'a', colour: 'red' } });
    assert.equal(extra.error?.code, 'VALIDATION_ERROR');
    assert.equal((await rt().request(cid, { surfaceId: 'catalog', actionId: 'fly', params: {} })).error?.code, 'ACTION_NOT_FOUND');
    assert.equal((await rt().request(cid, { surfaceId: 'nowhere', actionId: 'x', params: {} })).error?.code, 'SURFACE_UNAVAILABLE');
    const receipt = rt().events.find((e) => e.type === 'receipt' && (e.payload as any).requestId === bad.requestId);
    assert.equal((receipt?.payload as any)?.ok, true);
  });

  test('add_to_cart changes the page and pushes observations; a polling observation answers a pull', async () => {
    const r = await rt().request(cid, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 2, options: { color: 'green' } } });
    assert.equal(r.success, true, JSON.stringify(r.error));
    assert.equal((r.data as any).cartCount, 2);
    assert.equal(await page.textContent('#cart-count'), '2');
    await until(() => (rt().observations(cid).cart?.items as unknown[] | undefined)?.length === 1, 'cart/items update');
    assert.equal((rt().observations(cid).cart!.total as any).total, 44);
    const inv = (await rt().pull(cid, 'catalog', 'inventory')) as Record<string, number>;
    assert.equal(inv['mug-travel'], 9);
    const tooMany = await rt().request(cid, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'book-protocols', quantity: 5 } });
    assert.equal(tooMany.error?.code, 'PRECONDITION_FAILED');
  });

  test('place_order runs only on the user’s grant for exactly those params', async () => {
    await nav('/checkout');
    const none = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
    assert.equal(none.error?.code, 'ACTION_DENIED');
    assert.match(none.error!.message, /no approval/);
    const forged = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER, approval: { approvalId: 'forged', argsHash: argsHashSync(ORDER) } });
    assert.equal(forged.error?.code, 'ACTION_DENIED');
    assert.match(forged.error!.message, /no grant forged/);

    // the user denies
    const denied = rt().askApproval(cid, 'checkout', 'place_order', ORDER).then(
      () => null,
      (e: Error) => e,
    );
    await page.click('#deny-btn');
    assert.match(String(await denied), /approval denied/);

    // the user approves
    const asked = rt().askApproval(cid, 'checkout', 'place_order', ORDER);
    await page.waitForSelector('[role=dialog]');
    assert.match((await page.textContent('#approval-title')) ?? '', /^Approve: Place order for \$44\.00\?$/);
    await page.click('#approve-btn');
    const approval = await asked;
    assert.equal(approval.argsHash, argsHashSync(ORDER));
    assert.equal(await page.$('[role=dialog]'), null);

    const other = { ...ORDER, shipping: { ...ORDER.shipping, method: 'express' } };
    const wrongParams = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: other, approval: { approvalId: approval.approvalId, argsHash: argsHashSync(other) } });
    assert.equal(wrongParams.error?.code, 'ACTION_DENIED');
    assert.match(wrongParams.error!.message, /does not match the grant/);
    const wrongHash = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: other, approval });
    assert.equal(wrongHash.error?.code, 'ACTION_DENIED');
    assert.match(wrongHash.error!.message, /params differ/);

    const ok = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER, approval });
    assert.equal(ok.success, true, JSON.stringify(ok.error));
    assert.deepEqual(ok.data, { orderId: 'ORD-1001', total: 44, status: 'placed' });
    assert.equal(await page.textContent('#last-order-id'), 'ORD-1001');
    assert.equal(await page.textContent('#cart-count'), '0');

    const again = await rt().request(cid, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER, approval });
    assert.equal(again.error?.code, 'ACTION_DENIED');
    assert.match(again.error!.message, /already used/);
  });

  test('a refused result is re-sent trimmed: first without surfaces and observations, then without data', async () => {
    await nav('/');
    rt().setResultLimit(2500);
    try {
      const r = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: '' }, knownSurfaces: null });
      assert.equal(r.success, true);
      assert.deepEqual(r.delivery?.omitted, ['surfaces', 'observations']);
      assert.equal(r.delivery?.trimmed, true);
      assert.match(r.delivery!.reason, /^result too large: \d+ bytes > 2500$/);
      assert.equal(r.surfaces, undefined);
      assert.equal(r.observations, undefined);
      assert.equal((r.data as any).total, 8);
      assert.equal(rt().knownHash(cid), r.surfacesHash, 'it holds surfaces under that hash, so it keeps them');
      const acks = rt().events.filter((e) => e.type === 'ack' && (e.payload as any).requestId === r.requestId).map((e) => (e.payload as any).ok);
      assert.deepEqual(acks, [false, true]);

      rt().setResultLimit(900);
      const r2 = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: '' }, knownSurfaces: null });
      assert.equal(r2.success, true);
      assert.deepEqual(r2.delivery?.omitted, ['surfaces', 'observations', 'data']);
      assert.match(r2.delivery!.reason, /> 900$/);
      assert.equal(r2.data, undefined);
      assert.equal(results(r2.requestId).length, 3);
    } finally {
      rt().setResultLimit(null);
    }
  });

  test('repeats: a receipt, no second answer within the re-answer interval or once acknowledged; the same answer after it', async () => {
    const r = await nav('/');
    assert.deepEqual(await rt().repeat(cid, r.requestId), { ok: true });
    const ignoredAcked = await until(async () => (await activityOf(r.requestId, 'repeat-ignored')).at(0), 'the client ignoring the acknowledged repeat');
    assert.match(ignoredAcked.note ?? '', /acknowledged/);
    assert.equal(results(r.requestId).length, 1, 'acknowledged: not answered again');

    rt().setAckResults(false);
    try {
      const u = await rt().request(cid, { surfaceId: 'catalog', actionId: 'search', params: { query: 'tee' } });
      assert.deepEqual(await rt().repeat(cid, u.requestId), { ok: true });
      const ignoredYoung = await until(async () => (await activityOf(u.requestId, 'repeat-ignored')).at(0), 'the client ignoring the young repeat');
      assert.match(ignoredYoung.note ?? '', /first answer sent \d+ ms ago/);
      assert.equal(results(u.requestId).length, 1, 'unacknowledged but young: not answered again');
      // The condition is the answer's age: older than the re-answer interval by the client's clock (its timestamp).
      const answeredAt = results(u.requestId)[0]!.timestamp;
      await until(async () => (await page.evaluate(() => Date.now())) > answeredAt + REANSWER_MS + 50, 'the first answer to age past the re-answer interval', REANSWER_MS + 5000);
      assert.deepEqual(await rt().repeat(cid, u.requestId), { ok: true });
      await until(() => results(u.requestId).length === 2, 'the re-answer');
      assert.deepEqual(results(u.requestId)[1], results(u.requestId)[0], 'the same result');
      const s = await state();
      assert.equal(s.cartCount, 0);
      assert.ok(s.clients.socket.stats.repeatsAnswered >= 1);
    } finally {
      rt().setAckResults(true);
    }
  });

  test('an async job answers interim results with progress, then one final result', async () => {
    await nav('/orders');
    const rid = crypto.randomUUID();
    const job = rt().request(cid, { surfaceId: 'orders', actionId: 'export_orders', params: { format: 'csv', range: { from: '2024-01-01', to: '2030-01-01' } }, requestId: rid });
    await until(() => results(rid).length > 0, 'the job acknowledged (its first interim)');
    assert.deepEqual(await rt().repeat(cid, rid), { ok: true });
    const final = await job;
    assert.equal(final.success, true, JSON.stringify(final.error));
    assert.equal(final.interim, false);
    assert.equal((final.data as any).rows, 1);
    assert.match((final.data as any).content, /^id,total,status,items,createdAt\nORD-1001,44,placed,2,/);
    const all = results(rid);
    assert.ok(all.length >= 3);
    assert.deepEqual(all.map((x) => x.interim), [...all.slice(0, -1).map(() => true), false], 'interims, then the final; the repeat added nothing');
    assert.deepEqual(all.filter((x) => x.interim).map((x) => x.progress), [0, 35, 70]);
    assert.equal(final.surfaces, undefined, 'unchanged since the acknowledgment');
    assert.equal(final.surfacesHash, all[0]!.surfacesHash);
    assert.match((await page.textContent('#export-status')) ?? '', /done, 1 row/);
    await nav('/');
  });

  test('the WebSocket JSON client (notifications) works', async () => {
    const ws = server.wsRuntime;
    const wid = await ws.waitForClient();
    assert.deepEqual(ws.surfaces(wid).map((s) => s.id), ['notifications']);
    const list = await ws.request(wid, { surfaceId: 'notifications', actionId: 'list', params: { unreadOnly: true } });
    assert.equal(list.success, true);
    assert.equal((list.data as any).notifications.length, 3, 'two seeded and one for the order');
    const bad = await ws.request(wid, { surfaceId: 'notifications', actionId: 'mark_read', params: { target: { ids: ['x1'] } } });
    assert.equal(bad.error?.code, 'VALIDATION_ERROR');
    const marked = await ws.request(wid, { surfaceId: 'notifications', actionId: 'mark_read', params: { target: { all: true } } });
    assert.deepEqual(marked.data, { marked: 3, unread: 0 });
    assert.equal(await page.textContent('#notif-unread'), '0');
    await until(() => ws.observations(wid).notifications?.unread === 0, 'unread observation');
    assert.equal(surfacesHash(ws.surfaces(wid)), marked.surfacesHash);
  });

  test('the iframe client (coupon widget over postMessage) works', async () => {
    const r: OUIActionResult = await page.evaluate(() => (window as any).__demo.hostFrame('apply_coupon', { code: 'AGENT20' }));
    assert.equal(r.success, true, JSON.stringify(r.error));
    assert.deepEqual(r.data, { code: 'AGENT20', percentOff: 20 });
    await until(async () => (await state()).coupon?.code === 'AGENT20', 'the host sees the coupon');
    const frame = page.frameLocator('#coupon-frame');
    assert.equal(await frame.locator('#coupon-applied').getAttribute('data-code'), 'AGENT20');
    const invalid: OUIActionResult = await page.evaluate(() => (window as any).__demo.hostFrame('apply_coupon', { code: 'NOPE1' }));
    assert.equal(invalid.error?.code, 'app:coupon_invalid');
    const badShape: OUIActionResult = await page.evaluate(() => (window as any).__demo.hostFrame('apply_coupon', { code: 'x' }));
    assert.equal(badShape.error?.code, 'VALIDATION_ERROR');
    await page.click('#host-apply-coupon');
    await page.waitForFunction(() => document.querySelector('#host-log')?.textContent?.includes('Applied SAVE10'));
    assert.deepEqual((await state()).clients.frame.surfaces, ['coupon-widget']);
  });

  test('the direct (in-process) client works without the DevTools hook', async () => {
    await page.click('#assistant-tip');
    await page.waitForFunction(() => (document.querySelector('#assistant-output')?.textContent ?? '').length > 10);
    const r: OUIActionResult = await page.evaluate(() => (window as any).__demo.assistant('open_article', { articleId: 'agents' }));
    assert.equal(r.success, true);
    assert.deepEqual(r.data, { articleId: 'agents', title: 'Agents in this shop' });
    assert.equal(await page.getAttribute('#help-article', 'data-article-id'), 'agents');
    assert.ok(r.surfacesHash && !r.surfaces, 'the assistant holds the help surface, so it is not repeated');
    const bad: OUIActionResult = await page.evaluate(() => (window as any).__demo.assistant('open_article', { articleId: 'nope' }));
    assert.equal(bad.error?.code, 'VALIDATION_ERROR');
    const s = await state();
    assert.equal(s.clients.direct.hooked, false);
    assert.deepEqual(s.clients.direct.runtimeSurfaces, ['help']);
    assert.deepEqual(pageErrors, []);
  });

  test('the tour runs end to end (the user approves the order in the page)', async () => {
    const from = rt().events.length;
    let approving = true;
    const approver = (async () => {
      while (approving) {
        const btn = await page.waitForSelector('#approve-btn', { timeout: 500 }).catch(() => null);
        if (btn) await btn.click().catch(() => {});
      }
    })();
    try {
      await rt().runScenario('tour', cid, { stepMs: 20, approvalTimeoutMs: 5000 });
    } finally {
      approving = false;
      await approver;
    }
    const seen = rt().events.slice(from);
    const sent = seen.filter((e) => e.dir === 'out' && e.type === 'action:request').map((e) => `${(e.payload as any).surfaceId}/${(e.payload as any).actionId}`);
    for (const a of ['catalog/search', 'catalog/add_to_cart', 'shop-nav/navigate', 'checkout/place_order', 'orders/export_orders']) assert.ok(sent.includes(a), a);
    const got = seen.filter((e) => e.dir === 'in' && e.type === 'action:result').map((e) => e.payload as OUIActionResult);
    assert.ok(got.some((r) => r.delivery?.trimmed && r.delivery.omitted.join() === 'surfaces,observations'), 'a trimmed re-send');
    assert.ok(seen.some((e) => e.type === 'receipt' && (e.payload as any).repeat === true && (e.payload as any).ok === true), 'a repeat acknowledged');
    assert.ok(got.some((r) => r.interim === true && r.progress === 35), 'the export reported progress');
    const order = got.find((r) => (r.data as any)?.orderId === 'ORD-1002');
    assert.ok(order?.success, 'the approved order was placed');
    assert.ok(!got.some((r) => !r.success), `no failures: ${JSON.stringify(got.filter((r) => !r.success).map((r) => r.error))}`);
    const s = await state();
    assert.equal(s.route, '/');
    assert.equal(s.orders[0].id, 'ORD-1002');
  });

  test('the app hands the direct transport to __OUI_DEVTOOLS_HOOK__, which may wrap it in place', async () => {
    const p2 = await browser.newPage();
    try {
      await p2.addInitScript(() => {
        const seen: string[] = [];
        (window as any).__hookSeen = seen;
        (window as any).__OUI_DEVTOOLS_HOOK__ = {
          attach(t: any, opts: { label: string }) {
            seen.push(`attach:${opts.label}`);
            for (const m of ['dispatch', 'sendResult', 'register']) {
              const orig = t[m];
              t[m] = (...a: unknown[]) => {
                seen.push(m);
                return orig(...a);
              };
            }
          },
        };
      });
      const from = rt().events.length;
      await p2.goto(`${server.url}cart?transport=websocket`);
      const connect = await until(() => rt().events.slice(from).find((e) => e.type === 'x-connect'), 'a second socket client');
      assert.equal((connect.payload as { transport: string }).transport, 'websocket', '?transport=websocket skips polling');
      await until(() => rt().events.slice(from).filter((e) => e.type === 'surface:register' && e.clientId === connect.clientId).length === 2, 'its registrations');
      assert.deepEqual(rt().surfaces(connect.clientId).map((s) => s.id), ['cart', 'shop-nav'], 'kept apart from the first client');
      assert.equal(rt().surfaces(cid).length, 3);
      await p2.click('#assistant-tip');
      await p2.waitForFunction(() => ((window as any).__hookSeen as string[]).includes('sendResult'));
      const seen: string[] = await p2.evaluate(() => (window as any).__hookSeen);
      assert.equal(seen[0], 'attach:in-page assistant');
      assert.ok(seen.includes('register') && seen.includes('dispatch'));
      assert.equal((await p2.evaluate(() => (window as any).__demo.state())).clients.direct.hooked, true);
    } finally {
      await p2.close();
    }
  });
});
