/**
 * The demo app with a known amount of traffic behind it, for tests that look
 * at the panel rather than at the capture: the runtime's tour (search, cart,
 * a trimmed re-send, a repeat, an approved order, an async export) and one
 * refused order, so every view has something to show.
 */
import type { Page } from 'playwright-core';
import { startDemoServer, type DemoServer } from '../demo/server.ts';

export const ORDER = {
  shipping: { name: 'Ada Lovelace', address: { street: '12 Analytical Row', city: 'London', postcode: 'N1 9GU', country: 'GB' }, method: 'standard' },
  payment: { type: 'card', last4: '4242' },
};

/** The demo server, and `page` (a tab of `b`) on it after the tour and a refused order. */
export async function demoWithTraffic(page: Page): Promise<DemoServer> {
  const demo = await startDemoServer();
  await page.goto(demo.url);
  const client = await demo.runtime.waitForClient();
  const tour = demo.runtime.runScenario('tour', client, { stepMs: 30, approvalTimeoutMs: 30_000 });
  await page.locator('#approve-btn').click({ timeout: 30_000 });
  await tour;
  await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
  await demo.runtime.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
  await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
  return demo;
}
