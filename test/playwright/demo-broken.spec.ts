/**
 * The demo shop with deliberately wrong clients (`?broken=surface-id,result-id`,
 * see test/demo/app/main.ts), as an app's own test would catch them: the
 * notifications client (plain WebSocket) registers its surface under its
 * display name, an invalid id (§3.2), and the shop client (Socket.IO, over
 * long-polling then WebSocket) answers the agent with results whose requestId
 * is not the request's (§7.3.3). Everything else is the conformant demo.
 */
import { test, expect } from 'oui-devtools/playwright';
import { startDemoServer, type DemoServer } from '../demo/server.ts';

interface DemoState {
  clients: Record<'socket' | 'ws' | 'frame' | 'direct', { connected: boolean; transport?: string; surfaces: string[] }>;
}

let demo: DemoServer;
test.beforeAll(async () => {
  demo = await startDemoServer();
});
test.afterAll(async () => {
  await demo?.close();
});

test('the demo with a deliberately wrong client fails toHaveNoFindings', async ({ page, oui }) => {
  // Expected to fail; OUI_FIXTURE_SHOW_FAILURES=1 lets it fail for real so its message can be checked.
  test.fail(!process.env.OUI_FIXTURE_SHOW_FAILURES, 'the demo variant breaks the protocol on purpose');
  await page.goto(`${demo.url}?broken=surface-id,result-id`);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __demo?: { state(): DemoState } }).__demo?.state();
    return !!s && s.clients.socket.transport === 'websocket' && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0);
  });
  expect(await page.evaluate(() => (window as unknown as { __demo: { state(): DemoState } }).__demo.state().clients.ws.surfaces)).toEqual(['Notifications']);
  // The agent runtime asks the shop something; the answer comes back under another requestId, so the runtime times out.
  const search = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timeoutMs: 1_000 });
  expect(search.error?.code).toBe('TIMEOUT');
  await expect(oui).toHaveNoFindings({ min: 'warning' });
});
