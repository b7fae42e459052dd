/**
 * Type and colour as DevTools: in real DevTools the panel's text is the size
 * of DevTools' own UI text (Chrome's stylesheet for extension pages shrinks
 * `body` to 75%, 9 px, unless the panel sets it), and every visible text in
 * every view reads at WCAG AA (4.5:1) in light and in dark.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { demoPanelWithTraffic, openDemoInDevtools, type DemoPanel } from '../support/demo-panel.ts';
import { contrastScript, type ContrastReport } from '../support/contrast.ts';
import { SLOW_MS, until } from '../support/wait.ts';

const AA = 4.5;
const px = (s: string) => Number.parseFloat(s);

describe('the panel in real DevTools', () => {
  let d: Awaited<ReturnType<typeof openDemoInDevtools>>;
  before(async () => {
    d = await openDemoInDevtools();
  });
  after(async () => {
    await d?.close();
  });

  test("body text is DevTools' own UI text size, at least 11 px", async () => {
    const { panel, devtools } = d;
    // DevTools' own UI text: the label of one of its own panel tabs, beside the OUI tab.
    const host = await devtools.getByRole('tab', { name: 'Console', exact: true }).evaluate((el) => getComputedStyle(el).fontSize);
    const ours = {
      body: await panel.locator('body').evaluate((el) => getComputedStyle(el).fontSize),
      tab: await panel.getByRole('tab', { name: 'Timeline' }).evaluate((el) => getComputedStyle(el).fontSize),
      button: await panel.getByRole('button', { name: 'Export', exact: true }).evaluate((el) => getComputedStyle(el).fontSize),
    };
    console.log(`# DevTools' tab text ${host}; the OUI panel: body ${ours.body}, view tab ${ours.tab}, toolbar button ${ours.button}`);
    assert.ok(px(host) >= 11, `DevTools' own text measured ${host}`);
    for (const [what, size] of Object.entries(ours)) {
      assert.equal(size, host, `the panel's ${what} text is ${size}, DevTools' own is ${host}`);
      assert.ok(px(size) >= 11, `${what}: ${size}`);
    }
  });
});

describe('contrast of every visible text, every view, light and dark', () => {
  let d: DemoPanel;
  let panel: Page;
  before(async () => {
    d = await demoPanelWithTraffic({ viewport: { width: 1280, height: 800 } });
    panel = d.panel;
  });
  after(async () => {
    await d?.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: every text node reads at ${AA}:1 or more against its background`, async () => {
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
      const tabs = panel.getByRole('tablist', { name: 'Views' }).getByRole('tab');
      const names = (await tabs.allInnerTexts()).map((t) => t.replace(/\s*\d+$/, '').trim());
      assert.ok(names.length >= 8, `views: ${names.join(', ')}`);
      const results: string[] = [];
      const misses: string[] = [];
      const measure = async (label: string) => {
        const r = (await panel.evaluate(contrastScript(AA))) as ContrastReport;
        results.push(`${label} ${r.measured} texts, min ${r.min}`);
        for (const m of r.misses) misses.push(`${label}: "${m.text}" ${m.ratio}:1 (${m.fg} on ${m.bg}) at ${m.where}`);
        assert.ok(r.measured > 0, `${label}: no text measured`);
      };
      for (const name of names) {
        const tab = panel.getByRole('tab', { name: new RegExp(`^${name}`) });
        await tab.click();
        await until(async () => (await tab.getAttribute('aria-selected')) === 'true', `${name} selected`);
        await until(async () => (await panel.getByRole('tabpanel').innerText()).trim().length > 0, `${name} shows something`);
        await measure(name);
        if (name === 'Timeline') {
          // Rows, the selected row and the detail beside them.
          await panel.locator('.vlist [role=row]').nth(3).click();
          await until(async () => (await panel.locator('.split.with-detail').count()) === 1, 'the detail open');
          await measure('Timeline with the detail open');
          await panel.keyboard.press('Escape');
        }
      }
      console.log(`# ${scheme}: ${results.join('; ')}`);
      assert.deepEqual(misses, [], `texts below ${AA}:1 in ${scheme}:\n${misses.join('\n')}`);
    });
  }
});
