/**
 * `oui.call`: the fixture's stand-in runtime drives the demo shop's four
 * clients (Socket.IO shop, plain-WebSocket notifications, the postMessage
 * coupon widget, the direct-call help), as an app's test would. Oracles: the
 * page's own state (`__demo.state()`, the DOM), the demo server's runtime
 * (which must never see the answers), the spec's rules on the captured
 * requests, and the demo's independent argsHash (test/demo/independent/).
 */
import { test, expect } from 'oui-devtools/playwright';
import type { Page } from '@playwright/test';
import { startDemoServer, type DemoServer } from '../../demo/server.ts';
import { argsHashSync as independentArgsHash } from '../../demo/independent/args-hash-node.ts';

type DemoState = {
  route: string;
  cart: { lines?: unknown[]; count?: number } & Record<string, unknown>;
  coupon: unknown;
  clients: Record<'socket' | 'ws' | 'frame' | 'direct', { connected: boolean; transport?: string; surfaces: string[] }>;
} & Record<string, unknown>;

let demo: DemoServer;
test.beforeAll(async () => {
  demo = await startDemoServer();
});
test.afterAll(async () => {
  await demo?.close();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function state(page: Page): Promise<DemoState> {
  return page.evaluate(() => (window as unknown as { __demo: { state(): DemoState } }).__demo.state());
}

/** Every client connected with its surfaces, the Socket.IO client on WebSocket (where requests are injected). */
async function ready(page: Page, query = ''): Promise<void> {
  await page.goto(`${demo.url}${query}`);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __demo?: { state(): DemoState } }).__demo?.state();
    return !!s && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0) && s.clients.socket.transport === 'websocket';
  });
}

test('oui.call over Socket.IO: the shop answers the stand-in, not the real runtime; knownSurfaces follows the last surfacesHash', async ({ page, oui }) => {
  await ready(page);
  const before = demo.runtime.events.length;
  const first = await oui.call('catalog', 'add_to_cart', { productId: 'mug-classic' });
  expect(first.success, JSON.stringify(first.error)).toBe(true);
  // §7.3.1: a fresh id, UUID v4.
  expect(first.requestId).toMatch(UUID_V4);
  // The page's own count is what the result says.
  await expect(page.locator('#cart-count')).toHaveText(String((first.data as { cartCount: number }).cartCount));
  // §7.3.4: the runtime held nothing, so the request carried no knownSurfaces and the client sent its surfaces.
  expect(first.surfacesHash).toMatch(/^fnv1a64:[0-9a-f]{16}$/);
  expect(Array.isArray(first.surfaces)).toBe(true);

  const second = await oui.call('catalog', 'add_to_cart', { productId: 'mug-classic', quantity: 2 });
  expect(second.success).toBe(true);
  const events = await oui.events();
  const sent = events.filter((e) => e.type === 'action:request' && e.dir === 'in' && (e.payload as { requestId?: string }).requestId === second.requestId);
  expect(sent.length).toBe(1);
  // The stand-in holds the surfaces of the first result under its hash, so it names them (§7.3.4)…
  expect((sent[0]!.payload as { knownSurfaces?: string }).knownSurfaces).toBe(first.surfacesHash);
  // …and the client, whose surfaces did not change, may leave them out: it did.
  if (second.surfacesHash === first.surfacesHash) expect(second.surfaces).toBeUndefined();

  // The demo server's runtime never saw these answers (held by the hook): it has other traffic, but none of these ids.
  const seen = demo.runtime.events.slice(before).map((e) => JSON.stringify(e));
  expect(seen.some((t) => t.includes(first.requestId) || t.includes(second.requestId))).toBe(false);
  // The client's result was acknowledged (Socket.IO ack { ok: true }) as a runtime would (§7.3.6).
  const resultEvent = events.find((e) => e.type === 'action:result' && (e.payload as { requestId?: string }).requestId === second.requestId && e.dir === 'out');
  expect(resultEvent?.wantsAck).toBe(true);
  const ack = events.find((e) => e.kind === 'ack' && e.ackOf === resultEvent!.id);
  expect(ack?.payload).toEqual({ ok: true });
  await expect(oui).toHaveNoFindings({ min: 'error' });
});

test('oui.call over plain WebSocket, postMessage and direct calls', async ({ page, oui }) => {
  await ready(page);
  const list = await oui.call('notifications', 'list', {});
  expect(list.success, JSON.stringify(list.error)).toBe(true);
  // The page's unread badge agrees with the list the client gave.
  const items = (list.data as { notifications?: Array<{ read: boolean }> }).notifications;
  if (items) await expect(page.locator('#notif-unread')).toHaveText(String(items.filter((n) => !n.read).length));

  const coupon = await oui.call('coupon-widget', 'apply_coupon', { code: 'SAVE10' });
  expect(coupon.success, JSON.stringify(coupon.error)).toBe(true);
  const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
  await expect(frame.locator('#coupon-applied')).toHaveAttribute('data-code', 'SAVE10');

  const tip = await oui.call('help', 'show_tip', {});
  expect(tip.success, JSON.stringify(tip.error)).toBe(true);
  await expect(page.locator('#assistant-tip')).not.toBeEmpty();

  // A custom error code comes back as the client gave it.
  const bad = await oui.call('coupon-widget', 'apply_coupon', { code: 'NOPE1234' });
  expect(bad.success).toBe(false);
  expect(bad.error?.code).toBe('app:coupon_invalid');
  await expect(oui).toHaveNoFindings({ min: 'error' });
});

test('oui.call says why it cannot: unknown surface, unknown client, invalid params answered by the client', async ({ page, oui }) => {
  await ready(page);
  await expect(oui.call('no-such-surface', 'x', {})).rejects.toThrow(/unknown surface "no-such-surface".*mounted now: .*catalog/);
  await expect(oui.call('catalog', 'search', { query: 'x' }, { client: 'nobody-by-that-name' })).rejects.toThrow(/no client matches "nobody-by-that-name"/);
  const invalid = await oui.call('catalog', 'search', { query: 7 });
  expect(invalid.success).toBe(false);
  // §4.3: the surface MUST validate params on receipt.
  expect(invalid.error?.code).toBe('VALIDATION_ERROR');
});

test('approval: the tab is asked, the user confirms in the page, the request carries argsHash of exactly those params', async ({ page, oui }) => {
  await ready(page);
  await oui.call('catalog', 'add_to_cart', { productId: 'mug-classic' });
  const params = { reason: 'start_over' };
  const [result] = await Promise.all([oui.call('cart', 'clear_cart', params, { approve: true }), page.locator('#approve-btn').click()]);
  expect(result.success, JSON.stringify(result.error)).toBe(true);
  await expect(page.locator('#cart-count')).toHaveText('0');
  const events = await oui.events();
  const req = events.find((e) => e.type === 'action:request' && (e.payload as { requestId?: string }).requestId === result.requestId)!;
  const approval = (req.payload as { approval?: { approvalId: string; argsHash: string } }).approval;
  expect(approval?.argsHash).toBe(independentArgsHash(params));

  // Without approval the client refuses (it has no grant): ACTION_DENIED or the app's own code, never success.
  const denied = await oui.call('cart', 'clear_cart', params);
  expect(denied.success).toBe(false);
});

test('faults: a rule drops the real runtime’s requests to the shop; the stand-in’s own are never faulted', async ({ page, oui }) => {
  await ready(page);
  await oui.faults.add({ id: 'quiet-runtime', match: { direction: 'to-client', type: 'action:request', transport: 'socket.io' }, fault: { kind: 'drop' } });
  expect(oui.faults.rules().map((r) => r.id)).toEqual(['quiet-runtime']);
  // The real runtime's request is dropped: it times out on the server.
  const clientId = await demo.runtime.waitForClient();
  const real = await demo.runtime.request(clientId, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timeoutMs: 1500 }).catch((e: Error) => ({ success: false, error: { code: 'THROWN', message: e.message } }));
  expect(real.success).toBe(false);
  // The stand-in's own request is never faulted.
  const mine = await oui.call('catalog', 'search', { query: 'mug' });
  expect(mine.success).toBe(true);
  await oui.faults.clear();
  const after = await demo.runtime.request(clientId, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
  expect(after.success).toBe(true);
});

test('timeout: a client that never answers makes oui.call reject after timeoutMs', async ({ page, oui }) => {
  await ready(page, '?broken=result-id');
  const t0 = Date.now();
  await expect(oui.call('catalog', 'search', { query: 'mug' }, { timeoutMs: 1500 })).rejects.toThrow(/no result within 1500 ms/);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
});

test('takeover: one call takes the shop from the real runtime; the other clients keep theirs', async ({ page, oui }) => {
  await ready(page);
  const rule = await oui.takeover('catalog');
  expect(oui.faults.rules().map((r) => r.id)).toEqual([rule]);
  const shop = await demo.runtime.waitForClient();
  // The real runtime's request never reaches the shop (its own deadline answers it)…
  const real = await demo.runtime.request(shop, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timeoutMs: 1500 }).catch((e: Error) => ({ success: false, error: { code: 'THROWN', message: e.message } }));
  expect(real.success).toBe(false);
  // …the stand-in's does,
  expect((await oui.call('catalog', 'add_to_cart', { productId: 'mug-travel' })).success).toBe(true);
  await expect(page.locator('#cart-count')).toHaveText('1');
  // and the notifications client still answers its own runtime.
  expect((await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'notifications', actionId: 'list', params: {} })).success).toBe(true);
  await oui.faults.clear();
  expect((await demo.runtime.request(shop, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } })).success).toBe(true);
});

test('a refuse-result rule: the stand-in refuses the shop’s result ({ ok: false, error }), the client re-sends it trimmed (§7.3.6)', async ({ page, oui }) => {
  await ready(page);
  await oui.faults.add({ id: 'too-big', match: { surfaceId: 'catalog', actionId: 'search' }, fault: { kind: 'refuse-result', error: 'too large' }, maxCount: 1 });
  const result = await oui.call('catalog', 'search', { query: 'mug' });
  // "A client whose result is refused MUST send it again, trimmed, with delivery: { trimmed: true, reason, omitted }";
  // "The action's outcome (success, error) is never trimmed."
  expect(result.success).toBe(true);
  expect(result.delivery).toMatchObject({ trimmed: true, reason: 'too large' });
  expect(result.delivery!.omitted).toEqual(expect.arrayContaining(['surfaces', 'observations']));
  expect(result.surfaces).toBeUndefined();
  const events = await oui.events();
  const results = events.filter((e) => e.type === 'action:result' && e.dir === 'out' && (e.payload as { requestId?: string }).requestId === result.requestId);
  expect(results.length).toBe(2);
  const acks = results.map((r) => events.find((e) => e.kind === 'ack' && e.ackOf === r.id)?.payload);
  expect(acks).toEqual([{ ok: false, error: 'too large' }, { ok: true }]);
  // Only the first was refused (maxCount 1): the next call is answered whole.
  const whole = await oui.call('catalog', 'search', { query: 'shirt' });
  expect(whole.delivery).toBeUndefined();
});

test('a refuse-result rule on a direct transport: the refusal reaches the client\'s onAcknowledged, which re-sends trimmed (§7.3.6)', async ({ page, oui }) => {
  await ready(page);
  await oui.faults.add({ id: 'too-big-direct', match: { surfaceId: 'help', actionId: 'open_article' }, fault: { kind: 'refuse-result', error: 'too large here' }, maxCount: 1 });
  const result = await oui.call('help', 'open_article', { articleId: 'returns' });
  expect(result.success, JSON.stringify(result.error)).toBe(true);
  expect(result.delivery).toMatchObject({ trimmed: true, reason: 'too large here' });
  // The page's own log of its client: it was told of the refusal and re-sent the result trimmed.
  const activity = await page.evaluate(() => (window as unknown as { __demo: { activity(): Array<{ requestId: string; kind: string }> } }).__demo.activity());
  expect(activity.filter((a) => a.requestId === result.requestId).map((a) => a.kind)).toContain('trimmed');
  await expect(page.locator('#help-article')).toHaveAttribute('data-article-id', 'returns');
  // The transport interface types a refusal { ok: false, reason }, §7.3.6 words it { ok: false, error }: the client got both.
  const events = await oui.events();
  const results = events.filter((e) => e.type === 'action:result' && e.dir === 'out' && (e.payload as { requestId?: string }).requestId === result.requestId);
  expect(results.length).toBe(2);
  const acks = results.map((r) => events.find((e) => e.kind === 'ack' && e.ackOf === r.id)?.payload);
  expect(acks).toEqual([{ ok: false, reason: 'too large here', error: 'too large here' }, { ok: true }]);
  await oui.faults.clear();
});

test('an async action: the interim result is not the end, oui.call resolves with the final one (§7.3.3)', async ({ page, oui }) => {
  await ready(page);
  expect((await oui.call('shop-nav', 'navigate', { route: '/orders' })).success).toBe(true);
  const result = await oui.call('orders', 'export_orders', { format: 'json' });
  expect(result.success, JSON.stringify(result.error)).toBe(true);
  expect(result.interim).not.toBe(true);
  // The page's own job agrees: done, as many rows as the result says.
  const job = await page.evaluate(() => (window as unknown as { __demo: { state(): { exportJob: { status: string; rows: number } } } }).__demo.state().exportJob);
  expect(job.status).toBe('done');
  expect((result.data as { rows: number }).rows).toBe(job.rows);
  // "one immediate acknowledgment result, then one final result": interim ones (the demo reports progress on them) came first,
  // and the call resolved with the last, the one with interim: false.
  const events = await oui.events();
  const answers = events.filter((e) => e.type === 'action:result' && e.dir === 'out' && (e.payload as { requestId?: string }).requestId === result.requestId);
  const interim = answers.map((e) => (e.payload as { interim?: boolean }).interim);
  expect(interim.length).toBeGreaterThan(1);
  expect(interim.slice(0, -1).every((i) => i === true)).toBe(true);
  expect(interim.at(-1)).toBe(false);
});

test('the surface goes away mid-call: SURFACE_UNAVAILABLE (§7.2)', async ({ page, oui }) => {
  await ready(page);
  expect((await oui.call('shop-nav', 'navigate', { route: '/orders' })).success).toBe(true);
  const pending = oui.call('orders', 'export_orders', { format: 'csv' });
  // Once the export runs (its interim result is in), the real runtime leads the page away from /orders.
  await page.waitForFunction(() => (window as unknown as { __demo: { state(): { exportJob: { status: string } | null } } }).__demo.state().exportJob?.status === 'running');
  const shop = await demo.runtime.waitForClient();
  expect((await demo.runtime.request(shop, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } })).success).toBe(true);
  const result = await pending;
  expect(result.success).toBe(false);
  expect(result.error?.code).toBe('SURFACE_UNAVAILABLE');
  // The capture shows the deregistration it followed.
  const events = await oui.events();
  expect(events.some((e) => e.type === 'surface:deregister' && (e.payload as { surfaceId?: string }).surfaceId === 'orders')).toBe(true);
});
