/**
 * Conditions on the demo app (test/demo) and the panel showing it, waited on
 * instead of sleeping: the Socket.IO client on WebSocket, and the composer
 * offering a client as injectable.
 */
import type { Frame, Page } from 'playwright-core';
import { SLOW_MS } from './wait.ts';

/** What `window.__demo.state()` says of each client (test/demo/app/main.ts). */
export interface DemoState {
  clients: Record<'socket' | 'ws' | 'frame' | 'direct', { connected: boolean; transport?: string; surfaces: string[] }>;
}

export { SLOW_MS };

/** Resolves once the demo's Socket.IO client rides the WebSocket (its upgrade from long-polling is done), and every client has registered. */
export async function demoUpgraded(page: Page, timeout = SLOW_MS): Promise<void> {
  await page.waitForFunction(
    () => {
      const s = (window as unknown as { __demo?: { state(): DemoState } }).__demo?.state();
      return !!s && s.clients.socket.transport === 'websocket' && Object.values(s.clients).every((c) => c.connected && c.surfaces.length > 0);
    },
    undefined,
    { timeout },
  );
}

/**
 * Resolves once the panel's composer, with the first client of `kind`
 * picked, offers it as injectable: the client is picked and no reason it
 * cannot be injected into (e.g. "has not upgraded to WebSocket") is shown.
 * Leaves the Inject tab open with that client picked.
 */
export async function injectable(panel: Page | Frame, kind: string, timeout = SLOW_MS): Promise<void> {
  await panel.locator('#tab-inject').click();
  const picker = panel.locator('select[aria-label="Inject into client"]');
  const option = picker.locator('option', { hasText: `${kind}:` }).first();
  await option.waitFor({ state: 'attached', timeout });
  const value = (await option.getAttribute('value'))!;
  await picker.selectOption(value);
  await panel.waitForFunction(
    (v) => (document.querySelector('select[aria-label="Inject into client"]') as HTMLSelectElement | null)?.value === v && !document.querySelector('[data-testid=inject-view] .composer > p.warn'),
    value,
    { timeout },
  );
}
