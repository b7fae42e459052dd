/**
 * The long per-client views made navigable (issue 20, items 6 and 8), driven
 * in real Chromium by visible labels and roles on the demo app: Surfaces and
 * Observations with an index whose links scroll to and focus their section,
 * a filter, histories collapsed to the last 5; Findings grouped by rule with
 * a count; one newest-first order with a shared "Oldest first" toggle; an
 * Alt+click that opens a whole JSON subtree; schema alternatives listed; and
 * an argsHash that differs from its recomputation with exactly the differing
 * characters marked. Screenshots go to test-results/screenshots/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { SLOW_MS, until } from '../support/wait.ts';
import type { DemoServer } from '../demo/server.ts';
import { openDemoPanel, ORDER, type DemoPanel } from '../support/demo-panel.ts';
import { argsHashSync } from '../../src/protocol/hashes.ts';

const SHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;
const UNAPPROVED = 3;

let d: DemoPanel;
let demo: DemoServer;
let page: Page;
let panel: Page;
let client: string;
/** The recomputed argsHash of ORDER, and the wrong one the test's request carried: two characters changed, one in the middle, the last. */
let rightHash: string;
let wrongHash: string;

async function view(name: string): Promise<void> {
  await panel.getByRole('tab', { name: new RegExp(`^${name}`) }).click();
  await panel.locator(`[role=tab][aria-selected=true]`, { hasText: name }).waitFor();
}

/** The `data-t` times of `rows`, as numbers, in the order shown. */
async function times(rows: Locator): Promise<number[]> {
  return rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-t'))));
}

function descending(ts: number[]): boolean {
  return ts.every((t, i) => i === 0 || ts[i - 1]! >= t);
}
function ascending(ts: number[]): boolean {
  return ts.every((t, i) => i === 0 || ts[i - 1]! <= t);
}

describe('long views you can navigate', () => {
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    d = await openDemoPanel({ viewport: { width: 1280, height: 640 } });
    ({ demo, page, panel } = d);
    client = await demo.runtime.waitForClient();
    const r = demo.runtime;
    // A route history longer than 5, cart updates, then the checkout: three orders with no approval, one with a wrong argsHash.
    for (const route of ['/cart', '/', '/cart', '/', '/cart', '/']) await r.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route } });
    for (const productId of ['mug-classic', 'mug-classic']) await r.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId, quantity: 1 } });
    await r.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    for (let i = 0; i < UNAPPROVED; i++) assert.equal((await r.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER })).success, false);
    rightHash = argsHashSync(ORDER);
    const chars = [...rightHash];
    chars[30] = chars[30] === 'a' ? 'b' : 'a';
    chars[63] = chars[63] === '0' ? '1' : '0';
    wrongHash = chars.join('');
    await r.request(client, { surfaceId: 'checkout', actionId: 'place_order', params: ORDER, approval: { approvalId: 'test-wrong-hash', argsHash: wrongHash } });
    await page.click('#assistant-tip');
  });

  after(async () => {
    await d?.close();
  });

  test('Surfaces: the main app first, an index whose links scroll to and focus their section, a filter, empty clients counted', async () => {
    await view('Surfaces');
    const index = panel.getByRole('navigation', { name: 'Surfaces index' });
    await index.getByRole('link', { name: 'checkout', exact: true }).waitFor();
    await panel.locator('article.surface[data-surface=help]').waitFor();
    assert.equal(await panel.locator('section.client-block').first().getAttribute('data-client-kind'), 'socket.io', 'the main app client (most surfaces) first');

    const body = panel.locator('.surfaces .indexed-body');
    // The last surface of the last client is below the fold: its link scrolls it to the top and focuses it.
    const links = index.getByRole('link');
    const last = links.last();
    const name = (await last.innerText()).trim();
    const target = panel.locator('article.surface').filter({ has: panel.locator('header') }).last();
    assert.equal(await target.getAttribute('data-surface'), name, 'the index lists the sections in their order');
    assert.equal(await body.evaluate((e) => e.scrollTop), 0);
    await last.click();
    await until(async () => (await target.evaluate((e) => document.activeElement === e)), 'the section focused', SLOW_MS);
    assert.ok((await body.evaluate((e) => e.scrollTop)) > 0, 'the view scrolled');
    const [boxTop, targetTop] = [(await body.boundingBox())!.y, (await target.boundingBox())!.y];
    assert.ok(Math.abs(targetTop - boxTop) < 40 || (await body.evaluate((e) => e.scrollTop + e.clientHeight >= e.scrollHeight - 1)), `the section is at the top of the view (${targetTop} vs ${boxTop}) or the view is scrolled to its end`);

    // Another link, back up: the cart.
    await index.getByRole('link', { name: 'cart', exact: true }).click();
    const cart = panel.locator('article.surface[data-surface=cart]');
    await until(async () => cart.evaluate((e) => document.activeElement === e), 'the cart focused', SLOW_MS);
    assert.ok(Math.abs((await cart.boundingBox())!.y - (await body.boundingBox())!.y) < 40, 'the cart section at the top of the view');

    // The filter narrows the index and the sections, as text.
    const all = await panel.locator('article.surface').count();
    await panel.getByRole('searchbox', { name: 'Filter surfaces' }).fill('CART');
    await until(async () => (await panel.locator('article.surface').count()) < all, 'the filter narrows the sections', SLOW_MS);
    const ids = await panel.locator('article.surface').evaluateAll((els) => els.map((e) => e.getAttribute('data-surface')));
    assert.deepEqual(ids, ['cart'], `only the cart matches: ${ids.join(', ')}`);
    assert.deepEqual((await index.getByRole('link').allInnerTexts()).map((t) => t.trim()), ['cart']);
    assert.match(await panel.getByTestId('hidden-clients').innerText(), /^\d+ clients? with no matching surface$/);
    await panel.getByRole('searchbox', { name: 'Filter surfaces' }).fill('c.rt');
    assert.equal(await panel.locator('article.surface').count(), 0, 'a query is text, not a pattern');
    await panel.getByRole('searchbox', { name: 'Filter surfaces' }).fill('');
    await until(async () => (await panel.locator('article.surface').count()) === all, 'the filter cleared', SLOW_MS);
  });

  test('Surfaces: oneOf and anyOf alternatives listed as numbered sub-lists, enums and defaults quoted', async () => {
    await view('Surfaces');
    const payment = panel.locator('article.surface[data-surface=checkout] li.action[data-action=place_order] .props > li', { has: panel.locator(':scope > code', { hasText: /^payment$/ }) });
    const alts = payment.locator(':scope > ol.alternatives > li');
    assert.equal(await alts.count(), 2);
    assert.match(await payment.locator(':scope > span.muted').first().innerText(), /exactly one of 2 alternatives/);
    assert.match(await alts.nth(0).innerText(), /type\*\s*= "card"[\s\S]*last4\*/);
    assert.match(await alts.nth(1).innerText(), /type\*\s*= "invoice"[\s\S]*poNumber/);

    const target = panel.locator('li.action[data-action=mark_read] .props > li', { has: panel.locator(':scope > code', { hasText: /^target$/ }) });
    assert.equal(await target.locator(':scope > ol.alternatives > li').count(), 2);
    assert.match(await target.locator(':scope > ol.alternatives > li').nth(1).innerText(), /all\*\s*= true/);

    const style = panel.locator('li.action[data-action=show_tip] .props > li', { has: panel.locator(':scope > code', { hasText: /^style$/ }) });
    assert.match(await style.locator(':scope > span.muted').first().innerText(), /any of 2 alternatives, default "short"/);
    const styleAlts = await style.locator(':scope > ol.alternatives > li').allInnerTexts();
    assert.match(styleAlts[0]!, /one of "short" \| "detailed"/);
    assert.match(styleAlts[1]!, /integer, ≥ 1, ≤ 3/);

    // The catalog (its search has an empty-string default) is mounted on / only: there and back.
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
    const query = panel.locator('li.action[data-action=search] .props > li', { has: panel.locator(':scope > code', { hasText: /^query$/ }) });
    assert.match(await query.innerText(), /default ""/, 'an empty-string default shown as ""');
    await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' } });
    await panel.locator('article.surface[data-surface=checkout]').waitFor();
  });

  test('a JSON tree: Alt+click opens the whole subtree, Alt+click again closes it', async () => {
    await view('Surfaces');
    const action = panel.locator('article.surface[data-surface=checkout] li.action[data-action=place_order]');
    await action.getByRole('button', { name: 'raw' }).first().click();
    const tree = action.getByRole('tree').first();
    const root = tree.getByRole('treeitem').first();
    assert.equal(await root.getAttribute('aria-expanded'), 'true', 'the raw schema opens at its root');
    await root.click();
    assert.equal(await tree.getByRole('treeitem').count(), 1, 'closed: its children are gone');
    await root.click({ modifiers: ['Alt'] });
    const items = tree.getByRole('treeitem');
    await until(async () => (await items.count()) > 20, 'the subtree opened', SLOW_MS);
    const states = await items.evaluateAll((els) => els.map((e) => e.getAttribute('aria-expanded')));
    assert.ok(
      states.every((s) => s === 'true'),
      `every node of the subtree is open: ${states.filter((s) => s !== 'true').length} closed of ${states.length}`,
    );
    // The deepest leaf of the schema (shipping › address › … › pattern) is shown.
    assert.match(await tree.innerText(), /postcode/);
    await root.click({ modifiers: ['Alt'] });
    assert.equal(await items.count(), 1, 'Alt+click on an open node closes it all');
    await root.click();
    assert.deepEqual(
      await tree.getByRole('treeitem').evaluateAll((els) => els.slice(1).map((e) => e.getAttribute('aria-expanded'))),
      Array(await tree.getByRole('treeitem').count() - 1).fill('false'),
      'a plain click opens one level',
    );
  });

  test('Observations: an index, a filter, histories collapsed to the last 5 with "Show all", peak rate', async () => {
    await view('Observations');
    const index = panel.getByRole('navigation', { name: 'Observations index' });
    const route = panel.locator('article.observation[data-observation="shop-nav/route"]');
    await route.waitFor();
    const entries = route.locator('ol.history > li');
    assert.equal(await entries.count(), 5, 'collapsed to the last 5');
    const total = Number(/History \((\d+)/.exec(await route.locator('summary').innerText())![1]);
    assert.ok(total >= 8, `the route changed at least 8 times (${total})`);
    assert.ok(descending(await times(entries)), 'newest first');
    assert.match(await entries.first().innerText(), /changed \/ from "\/" to "\/checkout"/, 'the newest change first');
    await route.getByRole('button', { name: `Show all ${total}` }).click();
    assert.equal(await entries.count(), total);
    await route.getByRole('button', { name: 'Show the last 5' }).click();
    assert.equal(await entries.count(), 5);
    assert.match(await route.locator('.obs-rate').innerText(), /peak \d+\/s/);

    // The index's last link: its section is focused.
    const link = index.getByRole('link').last();
    const [surfaceId, observationId] = (await link.innerText()).trim().split(' › ');
    await link.click();
    const section = panel.locator(`article.observation[data-observation="${surfaceId}/${observationId}"]`);
    await until(async () => section.evaluate((e) => document.activeElement === e), 'the observation focused', SLOW_MS);

    await panel.getByRole('searchbox', { name: 'Filter observations' }).fill('route');
    await until(async () => (await panel.locator('article.observation').count()) === 1, 'the filter narrows', SLOW_MS);
    assert.deepEqual((await index.getByRole('link').allInnerTexts()).map((t) => t.trim()), ['shop-nav › route']);
    await panel.getByRole('searchbox', { name: 'Filter observations' }).fill('');
  });

  test('Findings: grouped by rule with a count, each group expandable to its findings and their events', async () => {
    await view('Findings');
    const group = panel.locator('.finding-group[data-rule=approval-missing]');
    await group.waitFor();
    const toggle = group.getByRole('button', { name: new RegExp(`A request for an action that needs approval carries none ×${UNAPPROVED}`) });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await panel.locator('.finding-group[data-rule=approval-missing]').count(), 1, 'one group per rule');
    assert.equal(await group.locator('.finding').count(), 0, 'collapsed');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await group.locator('.finding[data-rule=approval-missing]').count(), UNAPPROVED);
    assert.ok(descending(await times(group.locator('.finding-row'))), 'newest first');
    assert.ok(await panel.locator('.finding-group[data-rule=approval-hash-mismatch]').count(), 'the wrong argsHash has its own group');
    await panel.screenshot({ path: `${SHOTS}long-views-findings-open.png` });
    await group.locator('.finding').first().getByRole('button', { name: 'event' }).click();
    await panel.getByTestId('event-detail').waitFor();
    assert.match(await panel.getByTestId('event-detail').innerText(), /action:request[\s\S]*place_order/);
  });

  test('Approvals: both argsHashes shortened, the full value in the title, exactly the differing characters marked', async () => {
    await view('Approvals');
    const row = panel.locator('table.approvals tr', { hasText: 'argsHash does not match params' }).first();
    await row.waitFor();
    const carried = row.locator('td.carried-hash .hash');
    const recomputed = row.locator('td.recomputed-hash .hash');
    assert.equal(await carried.getAttribute('title'), wrongHash);
    assert.equal(await recomputed.getAttribute('title'), rightHash);
    // The oracle: positions where the two differ, computed here.
    const oracle = [...wrongHash].flatMap((ch, i) => (ch === rightHash[i] ? [] : [i]));
    assert.deepEqual(oracle, [30, 63]);
    for (const [cell, full] of [
      [carried, wrongHash],
      [recomputed, rightHash],
    ] as const) {
      // Walk the cell's text: plain characters, marked ones, and gaps of `data-gap` characters.
      const { marked, text } = await cell.evaluate((el) => {
        const marked: number[] = [];
        let text = '';
        for (const n of el.childNodes) {
          if (n.nodeType === Node.TEXT_NODE) text += n.textContent;
          else if ((n as Element).classList.contains('hash-gap')) text += '?'.repeat(Number((n as Element).getAttribute('data-gap')));
          else if ((n as Element).classList.contains('hash-diff')) for (const ch of n.textContent ?? '') (marked.push(text.length), (text += ch));
        }
        return { marked, text };
      });
      assert.deepEqual(marked, oracle, 'exactly the differing characters are marked');
      assert.equal(text.length, 64);
      for (let i = 0; i < 64; i++) if (text[i] !== '?') assert.equal(text[i], full[i]);
      assert.ok((await cell.innerText()).length < 40, `shortened: ${await cell.innerText()}`);
      assert.match(await cell.innerText(), new RegExp(`^${full.slice(0, 8)}…`));
    }
    const none = panel.locator('table.approvals tr', { hasText: 'no approval carried' }).first();
    assert.equal(await none.locator('td.carried-hash').innerText(), '—');
    assert.equal(await none.locator('.hash-diff').count(), 0, 'nothing marked where nothing is compared');
    assert.match(await none.locator('td.recomputed-hash').innerText(), new RegExp(`^${rightHash.slice(0, 8)}…${rightHash.slice(-6)}$`));
  });

  test('one sort order: newest first in Acks, Hashes, Approvals and Observations; "Oldest first" flips them all and is remembered', async () => {
    const lists: Record<string, string> = {
      Acknowledgments: 'section.client-block[data-client-kind="socket.io"] table.acks tbody tr',
      Hashes: 'section.client-block[data-client-kind="socket.io"] table.hashes tbody tr',
      Approvals: 'table.approvals tbody tr',
      Observations: 'article.observation[data-observation="shop-nav/route"] ol.history > li',
    };
    for (const [v, rows] of Object.entries(lists)) {
      await view(v);
      await panel.locator(rows).first().waitFor();
      const ts = await times(panel.locator(rows));
      assert.ok(ts.length >= 2 && ts[0]! > ts[ts.length - 1]!, `${v}: newest first (${ts.join(',')})`);
      assert.ok(descending(ts), `${v}: newest first`);
      assert.equal(await panel.getByRole('checkbox', { name: 'Oldest first' }).isChecked(), false);
    }
    await view('Acknowledgments');
    await panel.getByRole('checkbox', { name: 'Oldest first' }).check();
    for (const [v, rows] of Object.entries(lists)) {
      await view(v);
      await panel.locator(rows).first().waitFor();
      assert.equal(await panel.getByRole('checkbox', { name: 'Oldest first' }).isChecked(), true, `${v}: the toggle is shared`);
      assert.ok(ascending(await times(panel.locator(rows))), `${v}: oldest first`);
    }
    // Remembered across a reload of the panel.
    await panel.reload();
    await view('Approvals');
    await panel.locator(lists.Approvals!).first().waitFor();
    assert.equal(await panel.getByRole('checkbox', { name: 'Oldest first' }).isChecked(), true);
    assert.ok(ascending(await times(panel.locator(lists.Approvals!))));
    await panel.getByRole('checkbox', { name: 'Oldest first' }).uncheck();
    assert.ok(descending(await times(panel.locator(lists.Approvals!))));
  });

  test('Acknowledgments: clients with nothing to show are left out and counted', async () => {
    await view('Acknowledgments');
    await panel.locator('section.client-block').first().waitFor();
    const clients = (await panel.locator('select[aria-label="Filter by client"] option').count()) - 1;
    const sections = await panel.locator('section.client-block').count();
    const hidden = clients - sections;
    assert.ok(hidden >= 1, `the demo has clients without acknowledgments (${clients} clients, ${sections} shown)`);
    assert.equal(await panel.getByTestId('hidden-clients').innerText(), `${hidden} ${hidden === 1 ? 'client' : 'clients'} with nothing to show`);
  });

  test('docked to the side (560 px): the index sits above the view, which keeps the width', async () => {
    await panel.setViewportSize({ width: 560, height: 800 });
    try {
      for (const v of ['Surfaces', 'Observations']) {
        await view(v);
        const index = panel.getByRole('navigation', { name: `${v} index` });
        await index.getByRole('link').first().waitFor();
        const body = panel.locator('.indexed-body');
        const [ib, bb] = [(await index.boundingBox())!, (await body.boundingBox())!];
        assert.ok(ib.y + ib.height <= bb.y + 1, `${v}: the index above the view`);
        assert.ok(bb.width > 500, `${v}: the view keeps the panel's width (${bb.width})`);
        await panel.screenshot({ path: `${SHOTS}long-views-${v.toLowerCase()}-560.png` });
      }
    } finally {
      await panel.setViewportSize({ width: 1280, height: 640 });
    }
  });

  test('screenshots of Surfaces, Observations and Findings', async () => {
    for (const v of ['Surfaces', 'Observations', 'Findings', 'Approvals']) {
      await view(v);
      await panel.screenshot({ path: `${SHOTS}long-views-${v.toLowerCase()}.png` });
    }
  });
});
