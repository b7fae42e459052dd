/**
 * `npm start` opens DevTools on the OUI panel, as it announces: the same
 * start logic (scripts/devtools-panel.ts), headless, with the panel shown in
 * the DevTools window's main tab strip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openChromiumOnPanel } from '../../scripts/devtools-panel.ts';
import { startDemoServer } from '../demo/server.ts';
import { until } from '../support/wait.ts';

test('npm start: DevTools opens on the OUI panel, which shows the demo page live', async () => {
  const demo = await startDemoServer();
  const { browser, shown } = await openChromiumOnPanel(demo.url, { headless: true });
  try {
    assert.ok(!(shown instanceof Error), String(shown));
    const { devtools, panel } = shown;
    // The selected tab of DevTools' main tab strip, by its own accessible state.
    const selected = devtools.getByRole('tab', { selected: true });
    await until(async () => (await selected.allInnerTexts()).some((t) => t.trim() === 'OUI'), 'the OUI tab selected');
    assert.ok(!(await selected.allInnerTexts()).some((t) => t.trim() === 'Elements'), 'not on Elements');
    const frame = await panel.frameElement();
    const box = await frame.boundingBox();
    assert.ok(box && box.width > 100 && box.height > 100, `the panel is on screen: ${JSON.stringify(box)}`);
    await until(async () => (await panel.locator('.vlist [role=row]').count()) > 0, 'the demo traffic in the panel');
  } finally {
    await browser.close();
    await demo.close();
  }
});
