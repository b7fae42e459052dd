/**
 * Which release of the spec a client is judged by, in the panel: a client
 * that answers as 0.4.1 did (no surfacesHash) is flagged under 0.6.0 and
 * not once the user picks 0.4.1, at once, from the same recorded events;
 * a client whose surfaces declare their release is judged by it whatever
 * the pick.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openAppAndPanel, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { notesPage, requestOnRegister } from '../support/notes-page.ts';
import { SLOW_MS } from '../support/wait.ts';


describe('the spec release a client is judged by', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({ '/plain': notesPage(), '/declares': notesPage(`metadata: { ouiSpecVersion: '0.4.1' },`) });
    requestOnRegister(server);
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  async function findingsOf(path: string): Promise<Page> {
    const { panel } = await openAppAndPanel(b, `${server.url}${path}`, 'answered', 4);
    await panel.getByRole('tab', { name: 'Findings' }).click();
    return panel;
  }

  test('picking the release the app implements re-judges the session at once', async () => {
    const panel = await findingsOf('/plain');
    const picker = panel.getByRole('combobox', { name: 'Spec version' });
    await picker.selectOption('0.6.0');
    await panel.locator('.finding-group[data-rule=hash-missing]').waitFor({ timeout: 10_000 });
    await picker.selectOption('0.4.1');
    await panel.locator('.finding-group[data-rule=hash-missing]').waitFor({ state: 'detached', timeout: 5_000 });
    assert.match(await panel.getByTestId('judged-version').innerText(), /judged by spec 0\.4\.1/);
    await picker.selectOption('0.6.0');
    await panel.locator('.finding-group[data-rule=hash-missing]').waitFor({ timeout: 5_000 });
  });

  test('a client whose surfaces declare 0.4.1 is judged by it, whatever the pick', async () => {
    const panel = await findingsOf('/declares');
    await panel.getByRole('combobox', { name: 'Spec version' }).selectOption('0.6.0');
    await panel.getByTestId('judged-version').filter({ hasText: /judged by spec 0\.6\.0; .* declares 0\.4\.1/ }).waitFor({ timeout: SLOW_MS });
    // The witness: the model has applied the result (out of the reorder window) and checked its hash; under 0.6.0 it would be flagged.
    await panel.getByRole('tab', { name: 'Hashes' }).click();
    await panel.locator('tr[data-verdict=missing]').first().waitFor({ timeout: SLOW_MS });
    await panel.getByRole('tab', { name: 'Findings' }).click();
    await panel.getByTestId('judged-version').waitFor({ timeout: SLOW_MS });
    assert.equal(await panel.locator('.finding-group[data-rule=hash-missing]').count(), 0);
  });
});
