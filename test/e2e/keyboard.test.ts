/**
 * The panel by keyboard alone, in real Chromium on the demo app's traffic
 * (issue 20, item 4; the usability review's problem 5 and task 9): Home, End,
 * PageUp, PageDown and the arrows in the Timeline's list (with nothing
 * selected, to the newest row), Ctrl+F (Cmd+F) to the filter and Escape
 * from its bar back to the list, one Tab stop per tab strip with the arrows inside it,
 * focus never fallen to the document after a link, a closed detail or
 * popover, a cleared session or a switched view; and the review's task 9,
 * "the most recent failure and its cause", in at most TASK_9_KEYS keys.
 * Every key goes through page.keyboard and is checked by the selection or the
 * focus it produces; set-up uses clicks on visible labels.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openPanelPage, type Browser } from '../support/browser.ts';
import type { DemoServer } from '../demo/server.ts';
import { KeyCounter, assertFocusKept, settled } from '../support/keys.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { openDemoInDevtools, openDemoPanel, ORDER, type DemoPanel } from '../support/demo-panel.ts';
import { REVIEW_TASKS } from '../support/review-tasks.ts';

/** The review measured ≈95 keys for task 9; the panel must now do it in this many at most (test/support/review-tasks.ts). */
const TASK_9_KEYS = REVIEW_TASKS[9].target;


let d: DemoPanel;
let demo: DemoServer;
let browser: Browser;
let panel: Page;
let tabId: number;
/** The last failure the runtime saw: what task 9 must find. */
let lastFailure: { code: string; message: string };

/** The Timeline's list, and facts about its selection read from the page. */
const LIST = '[role=tabpanel] .vlist';

interface ListState {
  /** Focus is on the list or its selected row. */
  focused: boolean;
  /** The selected row's index in the list (from its position), or -1. */
  index: number;
  id: string | null;
  count: number;
  /** The selected row is within the list's visible box. */
  visible: boolean;
  /** The list names the selected row as its active descendant. */
  active: boolean;
  page: number;
}

async function listState(): Promise<ListState> {
  return panel.evaluate((sel) => {
    const list = document.querySelector<HTMLElement>(sel)!;
    const row = list.querySelector<HTMLElement>('[role=row][aria-selected=true]');
    const content = list.firstElementChild as HTMLElement;
    const rowH = (list.querySelector<HTMLElement>('[role=row]')?.offsetHeight ?? 20) || 20;
    const box = list.getBoundingClientRect();
    const r = row?.getBoundingClientRect();
    return {
      // Focus on the list (its selected row the active descendant), or on the selected row itself.
      focused: document.activeElement === list || (!!row && document.activeElement === row),
      index: r ? Math.round((r.top - content.getBoundingClientRect().top) / rowH) : -1,
      id: row?.getAttribute('data-id') ?? null,
      count: Number(list.getAttribute('aria-rowcount')),
      visible: !!r && r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
      active: !!row && !!row.id && list.getAttribute('aria-activedescendant') === row.id,
      page: Math.max(1, Math.floor(list.clientHeight / rowH) - 1),
    };
  }, LIST);
}

/** After a key: the list keeps focus, its selected row at `index`, in view and its active descendant. */
async function assertSelected(index: number, what: string): Promise<ListState> {
  await until(async () => (await listState()).index === index, `${what}: row ${index} selected`, SLOW_MS, 20).catch(async (e) => {
    throw new Error(`${(e as Error).message}; list: ${JSON.stringify(await listState())}`);
  });
  const s = await listState();
  assert.ok(s.focused, `${what}: the list keeps focus`);
  assert.ok(s.visible, `${what}: the selected row is scrolled into view`);
  assert.ok(s.active, `${what}: the selected row is the list's active descendant`);
  return s;
}

async function focusedLabel(): Promise<string | null> {
  return panel.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? null);
}

async function focusedRole(): Promise<string | null> {
  return panel.evaluate(() => document.activeElement?.getAttribute('role') ?? null);
}

/** Back to the Timeline with default filters, nothing selected, focus on its view tab. */
async function freshTimeline(): Promise<void> {
  await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
  await panel.getByLabel('Free-text filter').fill('');
  await panel.getByLabel('Status', { exact: true }).selectOption('');
  await panel.getByLabel('Type', { exact: true }).selectOption('');
  const close = panel.getByRole('button', { name: 'Close detail' });
  if (await close.count()) await close.click();
  await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
  await panel.locator(`${LIST} [role=row]`).first().waitFor();
}

describe('the panel by keyboard', () => {
  before(async () => {
    d = await openDemoPanel({ viewport: { width: 1280, height: 700 } });
    ({ demo, browser, panel, tabId } = d);
    const client = await demo.runtime.waitForClient();
    // A list longer than a screen: searches, an earlier failure (an invalid quantity), the refused order (no approval), then more searches.
    for (let i = 0; i < 70; i++) await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: `mug ${i}`, category: 'all', sort: 'price_asc' } });
    const invalid = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 99 } });
    assert.equal(invalid.success, false, 'the invalid quantity fails');
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    const refused = await demo.runtime.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER });
    assert.equal(refused.success, false, 'the order without approval is refused');
    lastFailure = refused.error as { code: string; message: string };
    assert.ok(lastFailure.code && lastFailure.message);
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
    for (let i = 0; i < 3; i++) await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: `tee ${i}`, category: 'all', sort: 'price_asc' } });
    await panel.bringToFront();
    await panel.getByRole('tab', { name: 'Timeline', exact: true }).waitFor();
    // Everything above is on screen: its last search's request and answer.
    await panel.getByLabel('Free-text filter').fill('tee 2');
    await panel.locator(`${LIST} [role=row][data-type="action:request"]`).first().waitFor({ timeout: SLOW_MS });
    await panel.getByLabel('Free-text filter').fill('');
  });

  after(async () => {
    await d?.close();
  });

  test('list: ↓ with nothing selected goes to the newest row; Home, PageDown, PageUp, End, ↑ move the selection and scroll it into view', async () => {
    await freshTimeline();
    const keys = new KeyCounter(panel);
    // Into the list by keyboard: the filter (Ctrl+F), then Escape.
    await keys.press('ControlOrMeta+f');
    await keys.press('Escape');
    let s = await listState();
    assert.ok(s.focused, 'Escape in the filter goes to the list');
    assert.equal(s.index, -1, 'nothing selected yet');
    assert.ok(s.count > 2 * s.page, `a list of more than two pages (${s.count} rows, ${s.page} a page)`);
    await keys.press('ArrowDown');
    const newest = await assertSelected(s.count - 1, '↓ from none');
    await keys.press('Home');
    await assertSelected(0, 'Home');
    await keys.press('PageDown');
    s = await assertSelected(newest.page, 'PageDown');
    await keys.press('PageDown');
    await assertSelected(2 * newest.page, 'PageDown again');
    await keys.press('PageUp');
    await assertSelected(newest.page, 'PageUp');
    await keys.press('ArrowDown');
    await assertSelected(newest.page + 1, '↓');
    await keys.press('End');
    assert.equal((await assertSelected(newest.count - 1, 'End')).id, newest.id, 'End selects the newest row');
    await keys.press('ArrowUp');
    await assertSelected(newest.count - 2, '↑');
    await keys.press('PageUp');
    await assertSelected(newest.count - 2 - newest.page, 'PageUp from the end');
    // Escape clears the selection; End then goes to the newest row again, as does ↑ from none.
    await keys.press('Escape');
    await until(async () => (await listState()).index === -1, 'Escape clears the selection', SLOW_MS, 20);
    assert.ok((await listState()).focused, 'the list keeps focus after Escape');
    await keys.press('ArrowUp');
    await assertSelected(newest.count - 1, '↑ from none');
    await keys.press('Escape');
    await until(async () => (await listState()).index === -1, 'Escape clears the selection', SLOW_MS, 20);
    await keys.press('End');
    await assertSelected(newest.count - 1, 'End from none');
  });

  test('Ctrl+F (Cmd+F) from another view focuses the Timeline filter with its text selected; Escape keeps the filter and returns to the list', async () => {
    await freshTimeline();
    await panel.getByLabel('Free-text filter').fill('search');
    await panel.getByRole('tab', { name: 'Surfaces' }).click();
    await panel.locator('[role=tab][aria-selected=true]', { hasText: 'Surfaces' }).waitFor();
    const keys = new KeyCounter(panel);
    await keys.press('ControlOrMeta+f');
    await until(async () => (await focusedLabel()) === 'Free-text filter', 'the filter focused', SLOW_MS, 20);
    assert.equal(await panel.getByRole('tab', { selected: true }).innerText(), 'Timeline', 'Ctrl+F switched to the Timeline');
    const selection = await panel.evaluate(() => {
      const input = document.activeElement as HTMLInputElement;
      return { start: input.selectionStart, end: input.selectionEnd, value: input.value };
    });
    assert.deepEqual(selection, { start: 0, end: 'search'.length, value: 'search' }, "the filter's text is selected");
    // Typing replaces it.
    await keys.type('mug');
    assert.equal(await panel.getByLabel('Free-text filter').inputValue(), 'mug');
    await keys.press('Escape');
    assert.ok((await listState()).focused, 'Escape returns focus to the list');
    assert.equal(await panel.getByLabel('Free-text filter').inputValue(), 'mug', 'and keeps the filter');
    // Ctrl+F in the Timeline itself, from the list.
    await keys.press('ControlOrMeta+f');
    assert.equal(await focusedLabel(), 'Free-text filter');
    await panel.getByLabel('Free-text filter').fill('');
  });

  test('view tabs: one Tab stop; Left and Right (wrapping), Home and End move and activate', async () => {
    await freshTimeline();
    const keys = new KeyCounter(panel);
    // Focus is on the Timeline tab (clicked). Tab leaves the strip at once, Shift+Tab comes back to the selected tab only.
    await keys.press('Tab');
    assert.notEqual(await focusedRole(), 'tab', 'Tab leaves the tab strip: one Tab stop');
    await keys.press('Shift+Tab');
    assert.equal(await focusedLabel(), 'Timeline');
    await keys.press('Shift+Tab');
    assert.notEqual(await focusedRole(), 'tab', 'Shift+Tab leaves the tab strip too');
    await keys.press('Tab');
    assert.equal(await focusedLabel(), 'Timeline', 'back on the selected tab');
    const selected = async () => (await panel.getByRole('tab', { selected: true }).innerText()).trim();
    const step = async (key: string, name: RegExp) => {
      await keys.press(key);
      assert.match(await selected(), name, `${key} selects`);
      assert.match((await focusedLabel()) ?? '', name, `${key} focuses the tab it selects`);
      assert.equal(await panel.locator('[role=tablist][aria-label=Views] [role=tab][tabindex="0"]').count(), 1, 'one tab is the Tab stop');
    };
    await step('ArrowRight', /^Sequence/);
    await step('ArrowRight', /^Surfaces/);
    await step('ArrowLeft', /^Sequence/);
    await step('End', /^Coverage/);
    await step('ArrowRight', /^Timeline/);
    await step('ArrowLeft', /^Coverage/);
    await step('Home', /^Timeline/);
  });

  test("the review's task 9 by keyboard: the most recent failure and its cause, in at most TASK_9_KEYS keys", async () => {
    // A fresh panel on the same tab: the session as captured, default filters, nothing focused.
    panel = await openPanelPage(browser, tabId);
    await panel.locator(`${LIST} [role=row]`).first().waitFor({ timeout: SLOW_MS });
    await settled(panel);
    const keys = new KeyCounter(panel);
    // The sequence, as a user would type it:
    await keys.press('ControlOrMeta+f'); //  1. Ctrl+F: the Timeline's filter
    await keys.press('Tab', 2); //            2–3. Type, Status (surface and action are terms of the filter box now)
    assert.equal(await focusedLabel(), 'Status');
    await keys.press('f'); //                 4. Status = failed (a closed select's type-ahead)
    assert.equal(await panel.getByLabel('Status', { exact: true }).inputValue(), 'failed');
    await keys.press('Escape'); //            5. from the filter bar to the list
    assert.ok((await listState()).focused);
    await keys.press('End'); //               6. the newest failure, selected; its detail opens on its error
    const detail = panel.getByTestId('event-detail');
    await detail.waitFor();
    await until(async () => {
      const text = await detail.innerText();
      return text.includes(lastFailure.code) && text.includes(lastFailure.message);
    }, `the detail shows ${lastFailure.code}: ${lastFailure.message}`, SLOW_MS, 20).catch(async (e) => {
      throw new Error(`${(e as Error).message}; detail: ${await detail.innerText()}`);
    });
    assert.ok(keys.count <= TASK_9_KEYS, `task 9 took ${keys.count} keys (${keys.log.join(' ')}), target ${TASK_9_KEYS}`);
    console.log(`task 9 by keyboard: ${keys.count} keys (${keys.log.join(' ')})`);
  });
  test('event detail subtabs: one Tab stop, arrows inside; a link, closing the detail and the Sites list, Clear and a view switch keep focus in the panel', async () => {
    await freshTimeline();
    await panel.getByLabel('Type', { exact: true }).selectOption('requests');
    await panel.locator(`${LIST} [role=row]`).first().waitFor();
    const keys = new KeyCounter(panel);
    await keys.press('ControlOrMeta+f');
    await keys.press('Escape');
    await keys.press('End');
    const detail = panel.getByTestId('event-detail');
    await detail.waitFor();
    // Tab from the list into the detail until a subtab has focus: one of them only.
    let tabs = 0;
    while ((await focusedRole()) !== 'tab' && tabs < 20) {
      await keys.press('Tab');
      tabs++;
    }
    assert.equal(await focusedRole(), 'tab', 'the subtabs are reachable by Tab');
    assert.equal(await focusedLabel(), 'payload', 'the selected subtab is the Tab stop');
    const strip = panel.getByRole('tablist', { name: 'Event detail tabs' });
    const subtab = async () => (await strip.getByRole('tab', { selected: true }).innerText()).trim();
    for (const [key, name] of [
      ['ArrowRight', 'raw'],
      ['ArrowRight', 'exchange'],
      ['ArrowRight', 'payload'],
      ['ArrowLeft', 'exchange'],
      ['Home', 'payload'],
      ['End', 'exchange'],
    ] as const) {
      await keys.press(key);
      assert.equal(await subtab(), name, `${key} selects ${name}`);
      assert.equal(await focusedLabel(), name, `${key} focuses ${name}`);
      assert.equal(await strip.locator('[role=tab][tabindex="0"]').count(), 1, 'one subtab is the Tab stop');
    }
    await keys.press('Tab');
    assert.notEqual(await focusedRole(), 'tab', 'Tab leaves the subtabs at once');
    // A link in the exchange to another event (its answer): focus stays in the panel, the list keeps its selection.
    const before = (await listState()).id;
    while (!/^action:result at/.test((await focusedLabel()) ?? '') && tabs++ < 40) await keys.press('Tab');
    assert.match((await focusedLabel()) ?? '', /^action:result at/, 'the link to the result reached by Tab');
    await keys.press('Enter');
    await until(async () => (await panel.getByTestId('event-detail').innerText()).startsWith('action:result'), 'the result opened', SLOW_MS, 20);
    await assertFocusKept(panel, 'following a link');
    assert.notEqual((await listState()).id, before);
    // Closing the detail with its button: focus goes to the list.
    await panel.getByRole('button', { name: 'Close detail' }).focus();
    await keys.press('Enter');
    await detail.waitFor({ state: 'detached' });
    await until(async () => (await listState()).focused, 'focus on the list after closing the detail', SLOW_MS, 20);
    // The Sites list closes with Escape, from inside it, focus back on its button.
    await panel.getByRole('button', { name: 'Sites', exact: true }).click();
    const sites = panel.getByTestId('capture-sites');
    await sites.waitFor();
    await keys.press('Tab');
    await keys.press('Escape');
    await sites.waitFor({ state: 'detached' });
    assert.equal(await focusedLabel(), 'Sites', 'focus back on the Sites button');
    // A view switched by a Findings link lands on the Timeline with focus on its list.
    await panel.getByRole('tab', { name: 'Findings' }).click();
    const findings = panel.getByRole('tabpanel');
    await findings.getByRole('button', { name: /^event$|findings? of this rule|×\d/ }).first().waitFor();
    // Findings of one rule are grouped: open the first group to reach its events.
    const link = findings.getByRole('button', { name: 'event', exact: true }).first();
    if (!(await link.isVisible())) await findings.locator('button[aria-expanded=false]').first().click();
    await link.waitFor();
    await link.focus();
    await keys.press('Enter');
    await panel.getByTestId('event-detail').waitFor();
    await until(async () => (await focusedLabel()) !== null, 'focus somewhere after the Findings link', SLOW_MS, 20);
    await assertFocusKept(panel, 'a Findings link');
    // Clear: the button keeps focus.
    await panel.getByRole('button', { name: 'Clear', exact: true }).focus();
    await keys.press('Enter');
    await until(async () => (await listState()).count === 0, 'the list cleared', SLOW_MS, 20);
    assert.equal(await focusedLabel(), 'Clear');
  });

});

/**
 * The same keys inside real DevTools (launch({ devtools: true })): there the
 * panel is a frame of the DevTools window, whose own shortcuts (Ctrl+F its
 * search, Escape its console drawer) see keys the panel lets through.
 */
describe('the panel by keyboard in real DevTools', () => {
  let d: Awaited<ReturnType<typeof openDemoInDevtools>>;
  before(async () => {
    d = await openDemoInDevtools();
  });
  after(async () => {
    await d?.close();
  });

  test('Ctrl+F (Cmd+F) from another view focuses the Timeline filter inside the DevTools frame; Escape goes back to the list, the filter kept, focus still in the panel', async () => {
    const { panel, devtools } = d;
    await panel.locator('.vlist [role=row]').first().waitFor({ timeout: SLOW_MS });
    /** Where focus is: DevTools' own document, or inside the panel's frame (and on what there). */
    const where = async () => {
      // Into DevTools' shadow roots: what DevTools itself has focused (its console prompt, say), or the panel's frame.
      const outer = await devtools
        .evaluate(() => {
          let a = document.activeElement;
          while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
          return a?.tagName ?? null;
        })
        .catch(() => null);
      const inner = await panel.evaluate(() => {
        const a = document.activeElement;
        return a && a !== document.body ? `${a.getAttribute('role') ?? a.tagName.toLowerCase()} ${a.getAttribute('aria-label') ?? ''}`.trim() : null;
      });
      return { outer, inner };
    };
    await panel.getByLabel('Free-text filter').fill('search');
    await panel.getByRole('tab', { name: 'Surfaces' }).click();
    await panel.locator('[role=tab][aria-selected=true]', { hasText: 'Surfaces' }).waitFor();
    await devtools.keyboard.press('ControlOrMeta+f');
    await until(async () => (await where()).inner === 'combobox Free-text filter', 'the filter focused in the panel', SLOW_MS, 20).catch(async (e) => {
      throw new Error(`${(e as Error).message}: focus ${JSON.stringify(await where())}`);
    });
    assert.equal((await where()).outer, 'IFRAME', "focus stays in the panel's frame: DevTools' own search did not take Ctrl+F");
    assert.equal((await panel.getByRole('tab', { selected: true }).innerText()).trim(), 'Timeline', 'Ctrl+F switched to the Timeline');
    assert.deepEqual(
      await panel.evaluate(() => {
        const input = document.activeElement as HTMLInputElement;
        return [input.selectionStart, input.selectionEnd];
      }),
      [0, 'search'.length],
      "the filter's text selected",
    );
    await devtools.keyboard.type('mug');
    assert.equal(await panel.getByLabel('Free-text filter').inputValue(), 'mug', 'typing goes to the filter');
    await devtools.keyboard.press('Escape');
    await until(async () => (await where()).inner === 'grid Exchanges and events', 'the list focused after Escape', SLOW_MS, 20).catch(async (e) => {
      throw new Error(`${(e as Error).message}: focus ${JSON.stringify(await where())}`);
    });
    assert.equal((await where()).outer, 'IFRAME', 'Escape left focus in the panel (DevTools did not move it to its drawer)');
    assert.equal(await panel.getByLabel('Free-text filter').inputValue(), 'mug', 'Escape kept the filter');
    // Ctrl+F again, now from the list.
    await devtools.keyboard.press('ControlOrMeta+f');
    await until(async () => (await where()).inner === 'combobox Free-text filter', 'the filter focused again', SLOW_MS, 20).catch(async (e) => {
      throw new Error(`${(e as Error).message}: focus ${JSON.stringify(await where())}`);
    });
    // Escape again, then a key DevTools only sees if the panel let it through: the panel's focus has stayed put all along.
    await devtools.keyboard.press('Escape');
    await until(async () => (await where()).inner === 'grid Exchanges and events', 'the list focused after the second Escape', SLOW_MS, 20);
    await devtools.keyboard.press('End');
    await until(async () => (await panel.locator('.vlist [role=row][aria-selected=true]').count()) === 1, 'End selected the newest row', SLOW_MS, 20);
    assert.deepEqual(await where(), { outer: 'IFRAME', inner: 'grid Exchanges and events' }, 'focus in the panel, on its list');
  });
});
