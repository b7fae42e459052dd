/**
 * The Sequence view in real Chromium with the built extension on the demo
 * shop: a lane per client (the demo's four: Socket.IO, WebSocket JSON,
 * postMessage, the direct hook) and the runtime's; the order the runtime
 * sent without an approval marked failed, with the code the runtime was
 * answered; a drag across the spans narrows the Timeline to that time
 * range; a click on a span (found by its colour on the canvas) and Enter on
 * a span chosen with the arrows open its exchange; usable at 560 px.
 * Found by visible labels and roles; the oracles are what the demo's
 * runtimes were answered and the times the Timeline prints.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { SLOW_MS, until } from '../support/wait.ts';
import { openDemoPanel, ORDER, tourTraffic, type DemoPanel } from '../support/demo-panel.ts';
import { demoUpgraded } from '../support/demo-page.ts';
import { contrastScript, WCAG_MATH, type ContrastReport } from '../support/contrast.ts';

let d: DemoPanel;
let panel: Page;
let refusedCode = '';

const lanes = () => panel.getByRole('list', { name: 'Lanes' }).getByRole('listitem');
const canvas = () => panel.getByRole('img', { name: /^Spans of/ });
const eventCount = () => panel.getByTestId('event-count');

/** "12 / 340 events" → [12, 340]. */
async function counts(): Promise<[number, number]> {
  const m = /(\d+) \/ (\d+) events/.exec(await eventCount().innerText());
  assert.ok(m, 'the Timeline says how many events it lists');
  return [Number(m[1]), Number(m[2])];
}

describe('the Sequence view', () => {
  before(async () => {
    d = await openDemoPanel({ viewport: { width: 1100, height: 900 } });
    panel = d.panel;
    const { demo, page } = d;
    const client = await tourTraffic(d, { refused: 0 });
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    const refused = await demo.runtime.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
    assert.equal(refused.success, false, 'an order without approval is refused');
    refusedCode = (refused as { error?: { code?: string } }).error?.code ?? '';
    assert.ok(refusedCode, 'the refusal carries a code');
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
    // The other three clients answer a request each.
    await demoUpgraded(page);
    await page.click('#assistant-tip');
    await page.evaluate(() => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<unknown> } }).__demo.hostFrame('apply_coupon', { code: 'SAVE10' }));
    const ws = await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'notifications', actionId: 'list', params: {} });
    assert.equal(ws.success, true);
    await panel.bringToFront();
    await panel.getByRole('tab', { name: 'Sequence', exact: true }).click();
  });

  after(async () => {
    await d?.close();
  });

  test('a lane per client and the runtime’s, each with its requests', async () => {
    const laneTexts = async () => (await lanes().allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
    // The last answers may still be on their way to the panel: wait for each of the four clients' lanes to count one.
    await until(async () => (await laneTexts()).slice(1).filter((t) => !/ 0$/.test(t)).length >= 4, 'the runtime and four client lanes with requests', SLOW_MS, 50).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${(await laneTexts()).join(' | ')}`);
    });
    const texts = await laneTexts();
    assert.match(texts[0]!, /^Runtime \d+$/);
    const clients = texts.slice(1);
    // Each client lane counts its spans: the four that were sent a request have some.
    const busy = clients.filter((t) => !/ 0$/.test(t));
    assert.ok(busy.length >= 4, `four clients with requests: ${clients.join(' | ')}`);
    const keys = await panel.locator('[data-lane]').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane')));
    assert.equal(new Set(keys).size, keys.length, 'one lane per client');
  });

  test('the order refused for want of an approval is marked failed, with the code the runtime got', async () => {
    const marked = panel.getByRole('list', { name: 'Marked spans in view' }).getByRole('button');
    await until(async () => (await marked.allInnerTexts()).some((t) => t.includes('checkout › place_order')), 'the refused order among the marked spans', SLOW_MS, 50);
    const line = (await marked.allInnerTexts()).find((t) => t.includes('checkout › place_order'))!;
    assert.match(line, new RegExp(`failed ${refusedCode}`));
    // The latency table counts the order among the failed ones.
    const row = panel.getByRole('table', { name: 'Latency per action' }).getByRole('row').filter({ hasText: 'checkout/place_order' });
    const cells = await row.getByRole('cell').allInnerTexts();
    assert.equal(cells[0], 'checkout/place_order');
    assert.ok(Number(cells[6]) >= 1, `failed counted: ${cells.join(' | ')}`);
  });

  test('a click on a span opens its exchange: a failed or refused span, found by its colour', async () => {
    await panel.getByRole('button', { name: 'Fit' }).click();
    const at = await canvas().evaluate((el) => {
      const c = el as HTMLCanvasElement;
      const error = getComputedStyle(c).getPropertyValue('--error').trim();
      const probe = document.createElement('canvas').getContext('2d')!;
      probe.fillStyle = error;
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
      const img = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const scale = c.width / c.clientWidth;
      for (let y = 0; y < c.height; y++) {
        for (let x = 0; x < c.width; x++) {
          const i = (y * c.width + x) * 4;
          // Inside a span's rectangle (not a mark): the error colour 6 device pixels across and 4 down.
          let inside = true;
          for (const [dx, dy] of [[0, 0], [5, 0], [0, 4], [5, 4]]) {
            const k = ((y + dy!) * c.width + x + dx!) * 4;
            if (!(img[k] === r && img[k + 1] === g && img[k + 2] === b && img[k + 3] === 255)) inside = false;
          }
          if (inside) return { x: (x + 3) / scale, y: (y + 2) / scale };
        }
      }
      return null;
    });
    assert.ok(at, 'a span drawn in the error colour');
    await canvas().click({ position: at });
    await until(async () => (await panel.getByRole('tab', { name: 'Timeline', exact: true }).getAttribute('aria-selected')) === 'true', 'the Timeline opened', SLOW_MS, 50);
    const exchange = panel.getByRole('tab', { name: 'Exchange' });
    await until(async () => (await exchange.getAttribute('aria-selected')) === 'true', 'on the exchange', SLOW_MS, 50);
    // Red is failed or refused: the tour's first such exchange is a result the demo's runtime refused as too large, or the order it was refused.
    const detail = await panel.getByRole('tabpanel').last().innerText();
    assert.match(detail, new RegExp(`refused|${refusedCode}`));
  });

  test('arrows move between spans and Enter opens the selected one', async () => {
    await panel.getByRole('tab', { name: 'Sequence', exact: true }).click();
    await canvas().focus();
    await panel.keyboard.press('ArrowDown');
    await panel.keyboard.press('ArrowRight');
    const status = panel.getByTestId('sequence-selected');
    await until(async () => /›/.test(await status.innerText()), 'a span selected', SLOW_MS, 50);
    const said = await status.innerText();
    const action = /^(\S+ › \S+)/.exec(said)?.[1];
    assert.ok(action, said);
    await panel.keyboard.press('Enter');
    await until(async () => (await panel.getByRole('tab', { name: 'Timeline', exact: true }).getAttribute('aria-selected')) === 'true', 'the Timeline opened', SLOW_MS, 50);
    const [surface, act] = action.split(' › ');
    assert.match(await panel.getByRole('tabpanel').last().innerText(), new RegExp(`${surface}[\\s\\S]*${act}`));
  });

  test('a drag across the spans narrows the Timeline to that time range', async () => {
    await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
    const clear = panel.getByRole('button', { name: 'Clear filters' });
    if (await clear.isEnabled()) await clear.click();
    const [, all] = await counts();
    const [shownBefore] = await counts();
    await panel.getByRole('tab', { name: 'Sequence', exact: true }).click();
    await panel.getByRole('button', { name: 'Fit' }).click();
    const box = (await canvas().boundingBox())!;
    await panel.mouse.move(box.x + box.width * 0.3, box.y + 8);
    await panel.mouse.down();
    await panel.mouse.move(box.x + box.width * 0.5, box.y + 12, { steps: 5 });
    await panel.mouse.move(box.x + box.width * 0.6, box.y + 12, { steps: 5 });
    await panel.mouse.up();
    const narrowed = panel.getByRole('status').filter({ hasText: 'Timeline narrowed to' });
    await narrowed.waitFor({ timeout: SLOW_MS });
    const [from, to] = /(\d\d:\d\d:\d\d\.\d\d\d) – (\d\d:\d\d:\d\d\.\d\d\d)/.exec(await narrowed.innerText())!.slice(1);
    // The latency table follows the range: it says so, and counts no more requests than the whole session's did.
    await until(async () => (await panel.getByTestId('seq-latency-scope').innerText()).includes(`${from} – ${to}`), 'the latency table scoped to the range', SLOW_MS, 50);
    await panel.getByRole('button', { name: 'Show in Timeline' }).click();
    await until(async () => (await counts())[0] < shownBefore, 'fewer events listed', SLOW_MS, 50);
    const [shown, total] = await counts();
    assert.equal(total, all);
    assert.ok(shown > 0, 'the middle of the session has events');
    // Every event listed lies in the range, by the time the Timeline prints.
    await panel.getByRole('group', { name: 'Rows' }).getByRole('button', { name: 'All events' }).click();
    const times = await panel.locator('[role=tabpanel] .vlist [role=row] .c-time').allInnerTexts();
    assert.ok(times.length > 0);
    for (const t of times) assert.ok(t >= from! && t <= to!, `${t} within ${from}–${to}`);
    // The Timeline says so, and clearing the range lists everything again.
    await panel.getByRole('button', { name: 'Clear the time range' }).click();
    await until(async () => (await counts())[0] === shownBefore, 'every event again', SLOW_MS, 50);
    await panel.getByRole('group', { name: 'Rows' }).getByRole('button', { name: 'Exchanges' }).click();
  });

  test('zoom by buttons and keys changes the window; usable docked at 560 px', async () => {
    await panel.getByRole('tab', { name: 'Sequence', exact: true }).click();
    await panel.getByRole('button', { name: 'Fit' }).click();
    const range = panel.getByTestId('seq-range');
    const width = async () => {
      const m = /\((\d+(?:\.\d+)?) (ms|s)\)/.exec(await range.innerText())!;
      return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
    };
    const w0 = await width();
    await panel.getByRole('button', { name: 'Zoom in' }).click();
    assert.ok(Math.abs((await width()) - w0 / 2) <= w0 * 0.01 + 1, 'zoom in halves the window');
    await canvas().focus();
    await panel.keyboard.press('-');
    assert.ok(Math.abs((await width()) - w0) <= w0 * 0.01 + 1, '- zooms back out');
    await panel.setViewportSize({ width: 560, height: 800 });
    await until(async () => (await canvas().boundingBox())!.width < 560, 'the canvas follows the width', SLOW_MS, 50);
    const overflow = await panel.locator('.sequence').evaluate((el) => el.scrollWidth - el.clientWidth);
    assert.ok(overflow <= 1, `nothing scrolls sideways at 560 px (${overflow})`);
    assert.ok((await lanes().count()) >= 5);
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: its text reads at 4.5:1, its span colours at 3:1 against the background (WCAG 1.4.3, 1.4.11)`, async () => {
      await panel.setViewportSize({ width: 1100, height: 900 });
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
      await panel.getByRole('tab', { name: 'Sequence', exact: true }).click();
      await canvas().focus();
      await panel.keyboard.press('ArrowRight');
      await until(async () => /›/.test(await panel.getByTestId('sequence-selected').innerText()), 'a span selected', SLOW_MS, 50);
      const r = (await panel.evaluate(contrastScript(4.5))) as ContrastReport;
      assert.ok(r.measured > 20, `texts measured: ${r.measured}`);
      assert.deepEqual(r.misses.map((m) => `"${m.text}" ${m.ratio}:1 at ${m.where}`), []);
      // The legend's swatches are painted with the colours the canvas uses.
      const ratios = (await panel.evaluate(`(() => { ${WCAG_MATH}
        const bg = parse(getComputedStyle(document.body).backgroundColor);
        /* In flight is a light fill in an outline of the span colour: the outline carries the contrast. */
        const paint = (i) => i.className === 'k-open' ? getComputedStyle(i).borderTopColor : getComputedStyle(i).backgroundColor;
        return [...document.querySelectorAll('.seq-legend i')].map((i) => [i.className, ratio(over(parse(paint(i)), bg), bg)]);
      })()`)) as Array<[string, number]>;
      assert.equal(ratios.length, 5);
      for (const [swatch, ratio] of ratios) assert.ok(ratio >= 3, `${scheme} ${swatch}: ${ratio.toFixed(2)}:1`);
    });
  }
});
