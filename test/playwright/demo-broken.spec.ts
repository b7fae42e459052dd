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
import { expectMatcherFailure } from './expected-failure.ts';

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
  await page.goto(`${demo.url}?broken=surface-id,result-id`);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __demo?: { state(): DemoState } }).__demo?.state();
    return !!s && s.clients.socket.transport === 'websocket' && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0);
  });
  expect(await page.evaluate(() => (window as unknown as { __demo: { state(): DemoState } }).__demo.state().clients.ws.surfaces)).toEqual(['Notifications']);
  // The agent runtime asks the shop something; the answer comes back under another requestId, so the runtime times out.
  const search = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timeoutMs: 1_000 });
  expect(search.error?.code).toBe('TIMEOUT');
  // The matcher must fail, with both findings in its message (OUI_FIXTURE_SHOW_FAILURES=1 then fails the test for real).
  await expectMatcherFailure(() => expect(oui).toHaveNoFindings({ min: 'warning' }), [
    "expect(oui).toHaveNoFindings({ min: 'warning' })",
    /Received: 2 findings \(4 clients, /,
    '\n1. error surface-id §3.2 (party at fault: client)',
    '\n2. warning result-unknown-request §7.3.3 (party at fault: client)',
    /surface id "Notifications" does not match/,
    /result for [0-9a-f-]{36}:result, a request this client never received/,
  ]);
});
