/**
 * The panel's views on the demo app's traffic, in real Chromium: after the
 * runtime's tour (search, cart, a refused over-large result re-sent trimmed, a
 * repeated request, an approved order, an async export), each view shows what
 * the traffic holds. Screenshots of every view, light and dark, go to
 * test-results/screenshots/. Then: export and import of the session, and
 * hostile page data that must not freeze the panel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launch, openAppAndPanel, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import type { DemoServer } from '../demo/server.ts';
import { openDemoPanel, ORDER, tourTraffic, type DemoPanel } from '../support/demo-panel.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

const SHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;
const VIEWS = ['timeline', 'surfaces', 'hashes', 'observations', 'acks', 'approvals', 'findings', 'inject'];

let d: DemoPanel;
let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;
let tabId: number;

async function view(name: string): Promise<void> {
  await panel.click(`#tab-${name}`);
}

describe('panel views on the demo app', () => {
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    d = await openDemoPanel();
    ({ demo, browser, page, panel, tabId } = d);
    // The tour, and one deliberate mistake the panel must flag: a transaction with no approval at all.
    await tourTraffic(d, { refused: 1 });
    await page.click('#assistant-tip');
    await page.waitForFunction(() =>
      ((window as unknown as { __demo: { activity(): Array<{ actionId: string; kind: string }> } }).__demo.activity()).some((e) => e.actionId === 'show_tip' && e.kind === 'result'),
    );
  });

  after(async () => {
    await d?.close();
  });

  test('Surfaces: what the agent can do now, per client, with effects, approval badges and schemas', async () => {
    await view('surfaces');
    const cart = panel.locator('[data-client-kind="socket.io"] article.surface[data-surface=cart]');
    await cart.waitFor();
    const clear = cart.locator('li.action[data-action=clear_cart]');
    assert.match(await clear.innerText(), /edit[\s\S]*write[\s\S]*approval[\s\S]*destructive/);
    assert.match(await cart.locator('li.action[data-action=remove_item]').innerText(), /productId\*[\s\S]*one of/);
    assert.equal(await panel.locator('[data-client-kind="socket.io"] article.surface[data-surface=checkout]').count(), 0, 'checkout unmounted after the tour went back to /');
    assert.equal(await panel.locator('[data-client-kind=direct] article.surface[data-surface=help]').count(), 1);
    assert.equal(await panel.locator('[data-client-kind=postmessage] article.surface[data-surface=coupon-widget]').count(), 1);
    await panel.locator('[data-client-kind="socket.io"] details.lifecycle summary').click();
    assert.match(await panel.locator('[data-client-kind="socket.io"] details.lifecycle').innerText(), /checkout deregistered/);
  });

  test('Hashes: every reported surfacesHash matches its recomputation; surface set changes read as sentences', async () => {
    await view('hashes');
    const block = panel.locator('section.client-block[data-client-kind="socket.io"]').first();
    await block.locator('tr[data-verdict]').first().waitFor();
    const verdicts = await block.locator('tr[data-verdict]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')));
    assert.ok(verdicts.length >= 10);
    assert.ok(verdicts.every((v) => v === 'match'), `verdicts: ${verdicts.join(',')}`);
    const changes = await block.locator('[data-testid=surface-change] .summary').allInnerTexts();
    assert.ok(changes.some((c) => c.includes('added surface checkout')));
    assert.ok(changes.some((c) => c.includes('removed surface checkout')));
  });

  test('Observations: current value as a tree, history as readable diffs', async () => {
    await view('observations');
    const items = panel.locator('article.observation[data-observation="cart/items"]');
    await items.waitFor();
    // Histories show their last 5 changes until asked for all of them.
    const showAll = items.getByRole('button', { name: /^Show all \d+$/ });
    if (await showAll.count()) await showAll.click();
    const text = await items.innerText();
    assert.match(text, /updates/);
    assert.match(text, /added \/0/);
    // The tour left /orders: its surface's observation state was discarded with it (§7.2).
    assert.equal(await panel.locator('article.observation[data-observation="orders/export_job"]').count(), 0);
    assert.match(await panel.locator('article.observation[data-observation="shop-nav/route"]').innerText(), /changed \/ from "\/orders" to "\/"/);
  });

  test('Acknowledgments: receipts, a refused result and its trimmed re-send, a repeat', async () => {
    await view('acks');
    const block = panel.locator('section.client-block[data-client-kind="socket.io"]').first();
    assert.match(await block.locator('tr.refused').first().innerText(), /refused: result too large/);
    assert.match(await block.locator('tr[data-kind=trimmed-resend]').first().innerText(), /omitted surfaces, observations/);
    assert.match(await block.locator('tr[data-kind=repeat]').first().innerText(), /receipt only/);
    assert.ok((await block.locator('tr[data-kind=receipt]').count()) > 5);
  });

  test('Approvals: the approved order matches its argsHash and ran; the unapproved one was refused', async () => {
    await view('approvals');
    const ran = panel.locator('table.approvals tr[data-outcome=ran]');
    await ran.first().waitFor();
    assert.equal(await ran.first().getAttribute('data-check'), 'ok');
    assert.match(await ran.first().innerText(), /checkout › place_order[\s\S]*transaction[\s\S]*argsHash matches params/);
    const refused = panel.locator('table.approvals tr[data-outcome=refused]');
    assert.match(await refused.first().innerText(), /no approval carried[\s\S]*ACTION_DENIED/);
  });

  test('Findings: the missing approval is flagged with its section, linked to its event', async () => {
    await view('findings');
    // Findings are grouped by rule, with a count: the group opens on its findings.
    const group = panel.locator('.finding-group[data-rule=approval-missing]');
    await group.waitFor();
    await group.getByRole('button', { expanded: false }).click();
    const finding = group.locator('.finding[data-rule=approval-missing]').first();
    await finding.waitFor();
    assert.match(await finding.innerText(), /error/);
    assert.equal(await panel.locator('.finding-group[data-rule=unapproved-run]').count(), 0);
    assert.equal(await panel.locator('.finding-group[data-rule=hash-mismatch]').count(), 0);
    await finding.locator('button.link').first().click();
    await panel.waitForSelector('[data-testid=event-detail]');
    assert.match(await panel.locator('[data-testid=event-detail]').innerText(), /action:request[\s\S]*place_order/);
  });

  test('Timeline: filters by status and type; keyboard moves the selection', async () => {
    await view('timeline');
    await panel.selectOption('select[aria-label=Status]', 'failed');
    const rows = panel.locator('.vlist [role=row]');
    await rows.first().waitFor();
    // One row per exchange by default: the refused order is one failed row.
    const exchanges = await panel.locator('.vlist [role=row][data-type^="action:"]').allInnerTexts();
    assert.ok(exchanges.length >= 1, 'the refused order');
    assert.ok(exchanges.every((t) => /failed/.test(t)), exchanges.join('\n---\n'));
    // Every event its own row: the refused order's request and its result.
    await panel.getByRole('button', { name: 'All events' }).click();
    await panel.locator('.vlist [role=row][data-row=event][data-type="action:result"]').first().waitFor();
    const events = await panel.locator('.vlist [role=row][data-type^="action:"]').allInnerTexts();
    assert.ok(events.length >= 2, 'the refused order: its request and its result');
    assert.ok(events.every((t) => /failed/.test(t)), events.join('\n---\n'));
    await panel.selectOption('select[aria-label=Status]', '');
    await panel.selectOption('select[aria-label=Type]', 'acks');
    // By the row's type: with the detail open, a narrow list hides the Type column.
    const types = await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.type));
    assert.ok(types.length > 0 && types.every((t) => t === 'ack'), types.join(', '));
    await panel.selectOption('select[aria-label=Type]', '');
    await panel.getByRole('button', { name: 'Exchanges' }).click();
    await rows.first().click();
    const first = await panel.locator('.vlist [role=row][aria-selected=true]').getAttribute('data-id');
    await panel.locator('.vlist').press('ArrowDown');
    const second = await panel.locator('.vlist [role=row][aria-selected=true]').getAttribute('data-id');
    assert.notEqual(first, second);
    await panel.locator('.vlist').press('Escape');
  });

  test('copies a payload as JSON', async () => {
    // Chromium grants no clipboard permission to an extension origin from a test: record what the panel writes.
    await panel.evaluate(`window.copied = []; Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t) => void window.copied.push(t) } });`);
    await view('timeline');
    await panel.fill('input[aria-label="Free-text filter"]', 'place_order');
    // An exchange whose result names place_order (a navigation's list of surfaces) matches the text too: the order's own row.
    await panel.locator('.vlist [role=row][data-type="action:request"]', { hasText: '› place_order' }).first().click();
    await panel.locator('[data-testid=event-detail] header button.copy').click();
    const copied = JSON.parse(await panel.evaluate(() => (window as unknown as { copied: string[] }).copied[0]!));
    assert.equal(copied.actionId, 'place_order');
    assert.deepEqual(copied.params, ORDER);
    await panel.fill('input[aria-label="Free-text filter"]', '');
    await panel.locator('[data-testid=event-detail] button[aria-label="Close detail"]').click();
  });

  test('screenshots of every view, light and dark: each shows its content, and differs by view and by theme', async () => {
    // What each view shows of the demo's traffic (the tests above check it in detail): waited for, and visible in the shot.
    const SHOWS: Record<string, string> = {
      timeline: '.vlist [role=row]',
      surfaces: 'article.surface[data-surface=cart]',
      hashes: 'tr[data-verdict=match]',
      observations: 'article.observation[data-observation="cart/items"]',
      acks: 'tr[data-kind=receipt]',
      approvals: 'table.approvals tr[data-outcome=ran]',
      findings: '.finding-group[data-rule=approval-missing]',
      inject: '[data-testid=inject-view]',
    };
    const shots = new Map<string, Buffer>();
    for (const theme of ['light', 'dark']) {
      const shot = await browser.context.newPage();
      await shot.setViewportSize({ width: 1400, height: 900 });
      await shot.goto(`chrome-extension://${browser.extensionId}/panel.html?tabId=${tabId}&theme=${theme}`);
      await shot.waitForSelector('.vlist [role=row]');
      for (const v of VIEWS) {
        await shot.click(`#tab-${v}`);
        await shot.locator(`#tab-${v}[aria-selected=true]`).waitFor();
        const shown = shot.locator(`[role=tabpanel] ${SHOWS[v]}`).first();
        await shown.waitFor({ state: 'visible' });
        assert.ok((await shown.innerText()).trim().length > 0 || v === 'inject', `${v} (${theme}) shows ${SHOWS[v]} with text`);
        const png = await shot.screenshot({ path: `${SHOTS}${v}-${theme}.png` });
        shots.set(`${v}-${theme}`, png);
      }
      const bg = await shot.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, theme === 'dark' ? 'rgb(32, 33, 36)' : 'rgb(255, 255, 255)');
      await shot.close();
    }
    // A blank, stuck or unthemed panel gives equal images: every view's shot differs from every other's, and from itself in the other theme.
    for (const theme of ['light', 'dark']) {
      const distinct = new Set(VIEWS.map((v) => shots.get(`${v}-${theme}`)!.toString('base64')));
      assert.equal(distinct.size, VIEWS.length, `${theme}: each view's screenshot is its own`);
    }
    for (const v of VIEWS) assert.ok(!shots.get(`${v}-light`)!.equals(shots.get(`${v}-dark`)!), `${v}: light and dark screenshots differ`);
  });

  test('a session exported to a file opens offline in a panel with no tab', async () => {
    await view('timeline');
    const total = (await panel.getByTestId('event-count').innerText()).split('/')[1]!.trim();
    // Export opens the redaction preview first (docs/redaction.md): its Export redacted downloads.
    await panel.getByRole('button', { name: 'Export', exact: true }).click();
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('export-redacted').click()]);
    const path = await download.path();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(file.format, 'oui-devtools-session');
    assert.equal(file.version, 1);

    const offline = await browser.context.newPage();
    await offline.goto(`chrome-extension://${browser.extensionId}/panel.html`);
    const [chooser] = await Promise.all([offline.waitForEvent('filechooser'), offline.getByRole('button', { name: 'open a session file' }).click()]);
    await chooser.setFiles(path);
    await offline.waitForSelector('.notice');
    assert.match(await offline.locator('.notice').innerText(), /Imported \d+ events/);
    assert.equal((await offline.getByTestId('event-count').innerText()).split('/')[1]!.trim(), total);
    await offline.click('#tab-approvals');
    assert.equal(await offline.locator('table.approvals tr[data-outcome=ran]').count(), 1);
    assert.equal(await offline.locator('table.approvals tr[data-outcome=refused]').count(), 1);
    await offline.close();
  });
});

describe('hostile page data', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({
      '/': `<!doctype html><title>hostile</title><script>
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => {
          let deep = 'bottom';
          for (let i = 0; i < 10000; i++) deep = { d: deep };
          const big = 'x'.repeat(10 * 1024 * 1024);
          ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'evil', name: '<img src=x onerror="window.pwned=1">', description: '<script>window.pwned=2<' + '/script>', actions: [{ id: 'do_it', description: 'd', input: { type: 'object' } }], observations: [{ id: 'deep', description: 'd', schema: {} }] }, timestamp: 1 } }));
          ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'evil', observationId: 'deep', value: deep, timestamp: 2 } }));
          ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'evil', observationId: 'deep', value: big, timestamp: 3 } }));
          ws.send('{"type":"observation:update","payload":{"surfaceId":"evil","observationId":"deep","value":{"__proto__":{"polluted":1}},"timestamp":4}}');
          ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'evil', observationId: 'deep', value: 'x'.repeat(1024 * 1024), timestamp: 5 } }));
          document.title = 'sent';
        };
      </script>`,
    });
    b = await launch({ viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  test('a 10 MB frame, a 10,000-deep value and markup in names never freeze the panel or run in it', async () => {
    const { panel: p, errors } = await openAppAndPanel(b, server.url, 'sent', 5);
    // A freeze is a long task on the panel's main thread (not wall-clock time, which a loaded machine stretches anyway).
    await p.evaluate(() => {
      const w = window as unknown as { longestTaskMs: number };
      w.longestTaskMs = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.longestTaskMs = Math.max(w.longestTaskMs, e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    for (const v of VIEWS) {
      await p.click(`#tab-${v}`);
      await p.locator(`#tab-${v}[aria-selected=true]`).waitFor();
    }
    await p.click('#tab-surfaces');
    assert.match(await p.locator('article.surface[data-surface=evil]').innerText(), /<img src=x onerror/);
    await p.click('#tab-observations');
    await p.locator('article.observation').first().waitFor();
    await p.click('#tab-timeline');
    const over = p.locator('.vlist [role=row]', { hasText: 'over the capture cap' });
    assert.equal(await over.count(), 1, 'the 10 MB frame is shown as over the capture cap');
    await p.locator('.vlist [role=row][data-type="observation:update"]').first().click();
    await p.waitForSelector('[data-testid=event-detail]');
    const longest = await p.evaluate(() => (window as unknown as { longestTaskMs: number }).longestTaskMs);
    assert.ok(longest < 5_000, `the panel stayed responsive: its longest task took ${Math.round(longest)} ms`);
    assert.equal(await p.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.equal(await p.evaluate(() => ({} as Record<string, unknown>).polluted), undefined);
    assert.deepEqual(errors, []);
  });
});
