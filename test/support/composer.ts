/**
 * The panel's composer (the Inject view), driven as a user does, for the e2e
 * files that inject: pick a surface mounted now, its client where more than
 * one has it, an action and optionally the params; send, and wait for the
 * experiments history to show the client's final answer.
 */
import assert from 'node:assert/strict';
import type { Frame, Locator, Page } from 'playwright-core';
import { SLOW_MS, until } from './wait.ts';

/**
 * Picks, in the composer, a surface that is mounted now, then the client and
 * the action. With `kind`, the client is checked or picked: the only client
 * with the surface is chosen for the user and named as text, of several the
 * first of that kind is picked. `params`, when given, are written into the
 * Params JSON box.
 */
export async function compose(panel: Page | Frame, surfaceId: string, actionId: string, opts: { kind?: string; params?: unknown } = {}): Promise<void> {
  await panel.getByRole('tab', { name: 'Inject', exact: true }).click();
  await panel.waitForFunction(
    (s) => [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Surface"] option')].some((o) => o.value === s && o.dataset.mounted === 'true'),
    surfaceId,
    { timeout: SLOW_MS },
  );
  await panel.getByRole('combobox', { name: 'Surface', exact: true }).selectOption(surfaceId);
  if (opts.kind !== undefined) {
    const picker = panel.getByRole('combobox', { name: 'Inject into client' });
    if (await picker.count()) {
      const option = picker.locator('option', { hasText: `${opts.kind}:` });
      await picker.selectOption((await option.first().getAttribute('value'))!);
    } else {
      assert.match(await panel.getByTestId('chosen-client').innerText(), new RegExp(`^Client ${opts.kind}:`));
    }
  }
  await panel.getByRole('combobox', { name: 'Action', exact: true }).selectOption(actionId);
  if (opts.params !== undefined) await panel.getByRole('textbox', { name: 'Params JSON' }).fill(JSON.stringify(opts.params));
}

/**
 * Clicks the composer's Send button as it reads now (`name`: "Send", or
 * "Send anyway (…)"; any of them by default) and returns the experiments
 * history's newest row once it shows the client's final answer.
 */
export async function sendInjected(panel: Page | Frame, name: string | RegExp = /^Send/): Promise<Locator> {
  const rows = panel.getByTestId('inject-history').locator('tbody tr');
  const before = await rows.count();
  await panel.getByRole('button', { name, exact: typeof name === 'string' }).click();
  await until(async () => (await rows.count()) > before, 'a new history row', SLOW_MS, 20);
  const row = rows.first();
  await until(async () => /success|error/.test(await row.getByTestId('inject-answer').innerText()), "the client's answer in the newest row", SLOW_MS, 20);
  return row;
}
