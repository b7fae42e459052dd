/**
 * The Faults view driven as a person does, by its visible labels and roles:
 * shared by the faults-*.test.ts files. Also the demo's runtimes read as
 * independent witnesses (their own logs, `runtime.events`).
 */
import type { Frame, Page } from 'playwright-core';
import { SLOW_MS } from '../support/wait.ts';

export interface RuleForm {
  direction?: 'to the client (runtime → app)' | 'from the client (app → runtime)';
  type?: string;
  surface?: string;
  action?: string;
  transport?: 'WebSocket (plain JSON)' | 'Socket.IO' | 'postMessage' | 'direct calls';
  /** The fault's label in the picker. */
  fault: string;
  ms?: number;
  error?: string;
  code?: number;
  reason?: string;
  knownSurfaces?: string;
  probability?: number;
  maxCount?: number;
}

/** Adds a rule in the Faults view and waits until `frames` frames' hooks have the new set. */
export async function addRule(panel: Page | Frame, r: RuleForm, frames = 1): Promise<string> {
  await panel.getByRole('tab', { name: 'Faults' }).click();
  const before = await panel.locator('table[aria-label=Rules] tbody tr').count();
  if (r.direction) await panel.getByLabel('Direction', { exact: true }).selectOption({ label: r.direction });
  if (r.type) await panel.getByLabel('Event type', { exact: true }).selectOption(r.type === 'ack' ? { label: 'ack (acknowledgments, receipts)' } : { label: r.type });
  if (r.surface) {
    // Options are set as properties (no value attribute): waited for by their text.
    await panel.getByLabel('Surface', { exact: true }).locator('option', { hasText: new RegExp(`^${r.surface}$`) }).waitFor({ state: 'attached', timeout: SLOW_MS });
    await panel.getByLabel('Surface', { exact: true }).selectOption({ label: r.surface });
  }
  if (r.action) await panel.getByLabel('Action', { exact: true }).selectOption({ label: r.action });
  if (r.transport) await panel.getByLabel('Transport', { exact: true }).selectOption({ label: r.transport });
  await panel.getByLabel('Fault', { exact: true }).selectOption({ label: r.fault });
  if (r.ms !== undefined) await panel.getByLabel(/^(Delay|Late by) \(ms\)/).fill(String(r.ms));
  if (r.error !== undefined) await panel.getByLabel('Error', { exact: true }).fill(r.error);
  if (r.code !== undefined) await panel.getByLabel('Close code', { exact: true }).fill(String(r.code));
  if (r.reason !== undefined) await panel.getByLabel('Close reason', { exact: true }).fill(r.reason);
  if (r.knownSurfaces !== undefined) await panel.getByLabel('knownSurfaces', { exact: true }).fill(r.knownSurfaces);
  await panel.getByLabel('Probability', { exact: true }).fill(String(r.probability ?? 1));
  await panel.getByLabel('At most (times)', { exact: true }).fill(r.maxCount === undefined ? '' : String(r.maxCount));
  await panel.getByRole('button', { name: 'Add rule' }).click();
  const row = panel.locator('table[aria-label=Rules] tbody tr').nth(before);
  await row.waitFor({ timeout: SLOW_MS });
  await appliedIn(panel, frames);
  // The form back to its defaults for the next rule.
  if (r.direction) await panel.getByLabel('Direction', { exact: true }).selectOption({ label: 'either' });
  if (r.type) await panel.getByLabel('Event type', { exact: true }).selectOption({ label: 'every OUI event' });
  if (r.surface) await panel.getByLabel('Surface', { exact: true }).selectOption({ label: 'any' });
  if (r.transport) await panel.getByLabel('Transport', { exact: true }).selectOption({ label: 'any' });
  return (await row.getAttribute('data-rule'))!;
}

/** Waits until at least `frames` frames' hooks said they have the current set of rules. */
export async function appliedIn(panel: Page | Frame, frames = 1): Promise<void> {
  await panel.waitForFunction((n) => Number(document.querySelector('[data-testid=faults-applied]')?.getAttribute('data-frames') ?? 0) >= n, frames, { timeout: SLOW_MS });
}

/** Clears every rule by the banner's own button, and waits until the hooks have the empty set and the banner is gone. */
export async function clearRules(panel: Page | Frame, frames = 1): Promise<void> {
  const banner = panel.getByTestId('faults-banner');
  if (await banner.count()) await banner.getByRole('button', { name: 'Clear' }).click();
  await banner.waitFor({ state: 'detached', timeout: SLOW_MS });
  await panel.getByRole('tab', { name: 'Faults' }).click();
  await appliedIn(panel, frames);
}

interface Logged {
  clientId: string;
  dir: 'in' | 'out';
  type: string;
  payload: unknown;
}

const requestIdOf = (p: unknown) => (p && typeof p === 'object' ? (p as { requestId?: unknown }).requestId : undefined);

/** The results a runtime's own log shows for one request id (what reached it), in order. */
export function resultsFor(events: readonly Logged[], requestId: string): Array<Record<string, unknown>> {
  return events.filter((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === requestId).map((e) => e.payload as Record<string, unknown>);
}
