/**
 * The timers the traffic is judged against, in the panel: the toolbar's
 * Timers… beside the Spec menu, reached and used by keyboard, each input
 * labelled; a change judges the recorded session again at once (the
 * Findings view says which timers the model was judged with), a value that
 * is not a timer is refused where it was typed, and the setting is kept for
 * the next panel, as the spec version is.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openAppAndPanel, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { notesPage, requestOnRegister } from '../support/notes-page.ts';

const SHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;


describe('the timers the traffic is judged against', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({ '/plain': notesPage() });
    requestOnRegister(server);
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  test('set by keyboard beside the Spec menu, the session judged again at once, kept for the next panel', async () => {
    const { app, panel, errors } = await openAppAndPanel(b, `${server.url}/plain`, 'answered', 4);
    await panel.getByRole('tab', { name: 'Findings' }).click();
    const judged = panel.getByTestId('judged-timers');
    assert.equal(await judged.count(), 0, 'the spec defaults say nothing');

    // From the Spec menu, Tab reaches Timers…; Enter opens it on its first input.
    await panel.getByRole('combobox', { name: 'Spec version' }).focus();
    await panel.keyboard.press('Tab');
    const button = panel.getByTestId('timers');
    assert.equal(await button.evaluate((el) => el === document.activeElement), true);
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    await panel.keyboard.press('Enter');
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    const group = panel.getByRole('group', { name: 'Timers' });
    const sync = group.getByRole('spinbutton', { name: 'Sync result timeout (ms)' });
    assert.equal(await sync.evaluate((el) => el === document.activeElement), true);
    for (const [name, value] of [
      ['Sync result timeout (ms)', '30000'],
      ['Async ack timeout (ms)', '5000'],
      ['Observation pull timeout (ms)', '5000'],
      ['Re-answer interval (ms)', '8000'],
    ] as const) {
      assert.equal(await group.getByRole('spinbutton', { name }).inputValue(), value, name);
    }

    // A new value, committed with Enter: judged again at once, the input keeps its focus.
    await sync.fill('1500');
    await sync.press('Enter');
    await judged.waitFor({ timeout: 5_000 });
    assert.match(await judged.innerText(), /timers: sync 1\.5 s/);
    assert.equal(await sync.evaluate((el) => el === document.activeElement), true);

    // Tab to the next timer, type, Tab on: committed on leaving the input.
    await panel.keyboard.press('Tab');
    const ack = group.getByRole('spinbutton', { name: 'Async ack timeout (ms)' });
    assert.equal(await ack.evaluate((el) => el === document.activeElement), true);
    await panel.keyboard.press('Control+A');
    await panel.keyboard.type('250');
    await panel.keyboard.press('Tab');
    await panel.waitForFunction(() => /ack 250 ms/.test(document.querySelector('[data-testid=judged-timers]')?.textContent ?? ''), null, { timeout: 5_000 });

    // Not a timer: said where it was typed; the session keeps its timers.
    const pull = group.getByRole('spinbutton', { name: 'Observation pull timeout (ms)' });
    await pull.fill('0');
    await pull.press('Enter');
    await group.getByRole('alert').waitFor({ timeout: 5_000 });
    assert.equal(await pull.getAttribute('aria-invalid'), 'true');
    assert.doesNotMatch(await judged.innerText(), /pull/);
    await panel.screenshot({ path: `${SHOTS}timers-light.png` });

    // Escape closes it and gives the focus back to the button, which says timers are set.
    await panel.keyboard.press('Escape');
    assert.equal(await group.count(), 0);
    assert.equal(await button.evaluate((el) => el === document.activeElement), true);
    assert.match(await button.innerText(), /Timers \(set\)/);

    // Kept in the settings: the next panel judges with them from the start.
    const again = await openPanelPage(b, await tabIdOf(b, app));
    await again.waitForFunction(() => document.querySelectorAll('.vlist [role=row]').length >= 4, null, { timeout: 20_000 });
    await again.getByRole('tab', { name: 'Findings' }).click();
    assert.match(await again.getByTestId('judged-timers').innerText(), /timers: sync 1\.5 s, ack 250 ms/);

    // Spec defaults: back to the spec's timers, judged again.
    await again.getByTestId('timers').click();
    await again.getByRole('group', { name: 'Timers' }).getByRole('button', { name: 'Spec defaults' }).click();
    await again.getByTestId('judged-timers').waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal(await again.getByRole('group', { name: 'Timers' }).getByRole('spinbutton', { name: 'Sync result timeout (ms)' }).inputValue(), '30000');
    assert.deepEqual(errors, []);
  });
});
