/**
 * The demo shop under oui-devtools/playwright, as an app's own test would
 * use it: every transport (Socket.IO over polling then WebSocket, plain
 * WebSocket, a cross-origin iframe over postMessage, the direct-call hook)
 * is captured, in the page and in a popup, and the conformant demo has no
 * findings.
 */
import { test, expect } from 'oui-devtools/playwright';
import type { Page } from '@playwright/test';
import { startDemoServer, type DemoServer } from '../demo/server.ts';

interface DemoState {
  clients: Record<'socket' | 'ws' | 'frame' | 'direct', { connected: boolean; transport?: string; surfaces: string[] }>;
}
type DemoApi = {
  state(): DemoState;
  hostFrame(actionId: string, params: Record<string, unknown>): Promise<{ success: boolean }>;
  assistant(actionId: string, params: Record<string, unknown>): Promise<{ success: boolean }>;
};

let demo: DemoServer;
test.beforeAll(async () => {
  demo = await startDemoServer();
});
test.afterAll(async () => {
  await demo?.close();
});

/** Every client of the page connected, with its surfaces registered. */
async function allConnected(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const s = (window as unknown as { __demo?: DemoApi }).__demo?.state();
    return !!s && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0);
  });
}

/** One request over each transport, answered. */
async function exercise(page: Page): Promise<void> {
  const coupon = await page.evaluate(() => (window as unknown as { __demo: DemoApi }).__demo.hostFrame('apply_coupon', { code: 'SAVE10' }));
  expect(coupon.success).toBe(true);
  const tip = await page.evaluate(() => (window as unknown as { __demo: DemoApi }).__demo.assistant('show_tip', {}));
  expect(tip.success).toBe(true);
}

test('the demo shop: every transport captured, in the page and a popup, no findings', async ({ page, oui, context }) => {
  await page.goto(`${demo.url}?crossOrigin=1`);
  const frame = page.frames().find((f) => f.url().includes('frame.html'));
  expect(frame, 'the coupon widget iframe').toBeTruthy();
  expect(new URL(frame!.url()).origin, 'the widget is cross-origin').not.toBe(new URL(page.url()).origin);
  await allConnected(page);
  // Wait for the Socket.IO client's upgrade to WebSocket, then the agent runtime asks something over it.
  await page.waitForFunction(() => (window as unknown as { __demo: DemoApi }).__demo.state().clients.socket.transport === 'websocket');
  const search = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
  expect(search.success).toBe(true);
  const list = await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'notifications', actionId: 'list', params: {} });
  expect(list.success).toBe(true);
  await exercise(page);

  // A popup of the same context: the hook is there too, and its clients are its own.
  const [popup] = await Promise.all([context.waitForEvent('page'), page.evaluate((url) => void window.open(url), `${demo.url}cart`)]);
  await popup.waitForLoadState();
  await allConnected(popup);
  await exercise(popup);

  await expect(oui).toHaveNoFindings();
  await expect(oui).toHaveNoFindings({ min: 'error' });

  const clients = await oui.clients();
  const kinds = (kind: string) => clients.filter((c) => c.kind === kind);
  // Socket.IO (one per namespace session), the notifications WebSocket, the widget pairing, the assistant: in each page.
  expect(kinds('socket.io').length, 'Socket.IO clients').toBeGreaterThanOrEqual(2);
  expect(kinds('websocket').length, 'plain WebSocket clients').toBeGreaterThanOrEqual(2);
  expect(kinds('postmessage').length, 'postMessage pairings: one per page, kept apart').toBe(2);
  expect(kinds('direct').length, 'direct-hook registrations').toBe(2);
  expect(new Set(clients.map((c) => c.key)).size, 'client keys are unique across pages').toBe(clients.length);
  // Each frame's hook records what its window receives: a pairing's requests come from the iframe's hook (cross-origin in
  // the first page), its registrations and results from the host's.
  const events = await oui.events();
  for (const c of kinds('postmessage')) {
    const own = events.filter((e) => e.client === c.key);
    const hookOf = (type: string) => own.find((e) => e.type === type)?.id.split('/')[0];
    expect(hookOf('action:request'), `${c.key}: the request, captured in the iframe`).toBeTruthy();
    expect(hookOf('action:result'), `${c.key}: the result, captured in the host`).toBeTruthy();
    expect(hookOf('action:request'), `${c.key}: two frames' hooks`).not.toBe(hookOf('action:result'));
  }

  // The model saw what each transport carried.
  const model = await oui.session();
  const registered = new Set([...model.clients.values()].flatMap((c) => [...c.surfaces.keys()]));
  for (const id of ['catalog', 'cart', 'notifications', 'coupon-widget', 'help']) expect(registered, `surface ${id}`).toContain(id);
  const requests = [...model.clients.values()].flatMap((c) => [...c.requests.values()]);
  const answered = (actionId: string) => requests.filter((r) => r.actionId === actionId && r.status === 'succeeded').length;
  expect(answered('search'), 'search over Socket.IO (WebSocket)').toBe(1);
  expect(answered('list'), 'list over plain WebSocket').toBe(1);
  expect(answered('apply_coupon'), 'apply_coupon over postMessage, in the page and the popup').toBe(2);
  expect(answered('show_tip'), 'show_tip over the direct hook, in the page and the popup').toBe(2);
  expect(events.some((e) => e.via === 'websocket') && events.some((e) => e.via === 'polling'), 'Socket.IO over both Engine.IO transports').toBe(true);
});
