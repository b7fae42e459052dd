/**
 * Compare and "as of" in real Chromium on the demo shop (test/demo).
 *
 * - As of an event: after the runtime's tour (which ends back on /, where
 *   the `checkout` surface is not mounted: README of the demo, route
 *   /checkout only), the refused order's request is selected in the
 *   Timeline and "State as of this event" pressed in its detail (selecting
 *   alone changes nothing): Surfaces shows `checkout` mounted, the banner says "As of
 *   event #N", the request's sight is shown; Approvals shows that order
 *   pending (its refusal came after), Hashes fewer results; Live (and
 *   Escape) return to now, where `checkout` is not mounted.
 * - The demo recorded twice, once with a change (`?broken=surface-id`: the
 *   notifications client registers its surface under its display name,
 *   `Notifications`, the demo's README says), each exported from the panel;
 *   `oui-devtools diff A B` (the built CLI, dist/cli/oui-devtools.js) says
 *   `notifications` is gone, `Notifications` appeared, and a surface-id
 *   finding was added; the panel's Compare view, the live session (B)
 *   against the imported file A, shows the same sentence.
 *
 * Pictures of both views go to test-results/screenshots/, and to docs/ with
 * UPDATE_SCREENSHOTS=1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openDemoPanel, tourTraffic, type DemoPanel } from '../support/demo-panel.ts';
import { demoUpgraded } from '../support/demo-page.ts';
import { ROOT } from '../support/fresh-build.ts';
import { SLOW_MS } from '../support/wait.ts';

const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
const SHOTS = join(ROOT, 'test-results/screenshots');
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';

/** The panel's Export, through the redaction preview when there is one. */
async function exportSession(panel: Page, path: string): Promise<void> {
  const download = panel.waitForEvent('download', { timeout: SLOW_MS });
  await panel.getByTestId('export').click();
  const redacted = panel.getByTestId('export-redacted');
  // The preview (if this build has one) opens on the click; without it the download has started already.
  const which = await Promise.race([download.then(() => 'download' as const), redacted.waitFor({ timeout: SLOW_MS }).then(() => 'preview' as const)]);
  if (which === 'preview') await redacted.click();
  await (await download).saveAs(path);
}

/** How many approvals the Approvals view shows per outcome. */
async function outcomes(panel: Page): Promise<Record<string, number>> {
  const list = await panel.locator('table.approvals tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-outcome') ?? ''));
  const out: Record<string, number> = { pending: 0, ran: 0, refused: 0, failed: 0 };
  for (const o of list) out[o] = (out[o] ?? 0) + 1;
  return out;
}

async function shoot(panel: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await panel.screenshot({ path: join(SHOTS, `${name}.png`) });
  if (UPDATE) copyFileSync(join(SHOTS, `${name}.png`), join(ROOT, 'docs', `${name}.png`));
}

describe('compare and as of, on the demo', () => {
  let d: DemoPanel;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oui-compare-'));
    d = await openDemoPanel();
    await tourTraffic(d, { refused: 1 });
    await d.panel.waitForFunction(() => document.querySelectorAll('.vlist [role=row]').length >= 10, undefined, { timeout: SLOW_MS });
  });
  after(async () => {
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('select an old event: Surfaces shows the state then (checkout mounted), Live and Escape return to now', async () => {
    const { panel } = d;
    // Now: the refused order's approval is decided, and every result's hash is listed.
    await panel.click('#tab-approvals');
    await panel.locator('table.approvals tr[data-outcome=refused]').first().waitFor();
    const liveOutcomes = await outcomes(panel);
    await panel.click('#tab-hashes');
    await panel.locator('table.hashes tbody tr').first().waitFor();
    const liveHashes = await panel.locator('table.hashes tbody tr').count();
    // Now (back on /): checkout is not mounted.
    await panel.click('#tab-surfaces');
    await panel.locator('article.surface[data-surface=cart]').first().waitFor();
    assert.equal(await panel.locator('article.surface[data-surface=checkout]').count(), 0);
    assert.equal(await panel.getByTestId('as-of-banner').count(), 0);

    await panel.click('#tab-timeline');
    const order = panel.locator('.vlist [role=row][data-type="action:request"]', { hasText: '› place_order' }).last();
    await order.click();
    const id = await order.getAttribute('data-id');
    assert.ok(id);
    // Selecting alone changes nothing elsewhere: Surfaces still shows now.
    await panel.click('#tab-surfaces');
    await panel.locator('article.surface[data-surface=cart]').first().waitFor();
    assert.equal(await panel.getByTestId('as-of-banner').count(), 0);
    assert.equal(await panel.locator('article.surface[data-surface=checkout]').count(), 0);
    // The event detail's "State as of this event": Surfaces as it was then.
    await panel.click('#tab-timeline');
    await panel.getByTestId('as-of-here').click();
    await panel.locator('#tab-surfaces[aria-selected=true]').waitFor();
    const banner = panel.getByTestId('as-of-banner');
    await banner.waitFor();
    assert.match(await banner.innerText(), /As of event #\d+\s+\(action:request at /);
    await panel.locator('article.surface[data-surface=checkout]').waitFor();
    // The request's sight: what the agent could see when it sent the order.
    const sight = panel.getByTestId('as-of-sight');
    assert.match(await sight.innerText(), /When the agent sent checkout › place_order/);
    assert.match(await sight.innerText(), /on the client: [^\n]*checkout/);
    // What changed since: checkout left.
    await panel.getByTestId('as-of-diff').locator('summary').click();
    assert.match(await panel.getByTestId('as-of-diff').innerText(), /removed surface checkout/);
    await shoot(panel, 'as-of');

    // Approvals then: the order just sent has no answer yet (pending), not refused; Hashes then: the results after it are not there yet.
    await panel.click('#tab-approvals');
    await panel.getByTestId('as-of-banner').waitFor();
    const thenOutcomes = await outcomes(panel);
    assert.equal(thenOutcomes.refused, liveOutcomes.refused! - 1, JSON.stringify({ thenOutcomes, liveOutcomes }));
    assert.equal(thenOutcomes.pending, liveOutcomes.pending! + 1, JSON.stringify({ thenOutcomes, liveOutcomes }));
    await panel.click('#tab-hashes');
    await panel.getByTestId('as-of-banner').waitFor();
    const thenHashes = await panel.locator('table.hashes tbody tr').count();
    assert.ok(thenHashes > 0 && thenHashes < liveHashes, `${thenHashes} hashes then, ${liveHashes} now`);
    await panel.click('#tab-surfaces');

    await panel.getByTestId('as-of-live').click();
    await banner.waitFor({ state: 'detached' });
    assert.equal(await panel.locator('article.surface[data-surface=checkout]').count(), 0);
    await panel.locator('article.surface[data-surface=cart]').first().waitFor();

    // On again from the detail; while on, selecting another event moves the moment; Escape goes back to live.
    await panel.click('#tab-timeline');
    await panel.locator(`.vlist [role=row][data-id="${id}"][aria-selected=true]`).waitFor();
    await panel.getByTestId('as-of-here').click();
    await panel.locator('article.surface[data-surface=checkout]').waitFor();
    const first = await panel.getByTestId('as-of-banner').locator('.as-of-head b').innerText();
    await panel.click('#tab-timeline');
    await panel.locator('.vlist [role=row]').last().click();
    await panel.click('#tab-observations');
    await panel.getByTestId('as-of-banner').waitFor();
    assert.notEqual(await panel.getByTestId('as-of-banner').locator('.as-of-head b').innerText(), first, 'the moment moved with the selection');
    await panel.click('#tab-surfaces');
    await panel.getByTestId('as-of-banner').waitFor();
    // The newest event came after the tour went back to /: checkout is not mounted then either.
    await panel.locator('article.surface[data-surface=cart]').first().waitFor();
    assert.equal(await panel.locator('article.surface[data-surface=checkout]').count(), 0);
    await panel.locator('[data-testid=surfaces-view]').click({ position: { x: 300, y: 5 } });
    await panel.keyboard.press('Escape');
    await panel.getByTestId('as-of-banner').waitFor({ state: 'detached' });
    assert.equal(await panel.locator('article.surface[data-surface=checkout]').count(), 0);
  });

  test('the demo recorded twice, once with a change: diff A B through the CLI, and the Compare view against an imported file', async () => {
    const { panel, page, demo } = d;
    const A = join(dir, 'a.json');
    const B = join(dir, 'b.json');
    await panel.click('#tab-timeline');
    await exportSession(panel, A);

    // The changed build: a fresh page (the panel starts afresh), one search for the latency table.
    await page.goto(`${demo.url}?broken=surface-id`);
    await demoUpgraded(page);
    await page.waitForFunction(() => (window as unknown as { __demo: { state(): { clients: { ws: { surfaces: string[] } } } } }).__demo.state().clients.ws.surfaces.includes('Notifications'));
    const client = await demo.runtime.waitForClient();
    await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
    await panel.waitForFunction(() => [...document.querySelectorAll('.vlist [role=row]')].some((r) => r.textContent?.includes('search')), undefined, { timeout: SLOW_MS });
    await exportSession(panel, B);
    assert.ok(readFileSync(B, 'utf8').includes('"Notifications"'));

    const r = spawnSync(process.execPath, [CLI, 'diff', '--format', 'json', A, B], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { sentences: Array<{ text: string }>; findings: { added: Array<{ rule: string; place: string }> }; latency: Array<{ action: string; before?: { count: number }; after?: { count: number } }> };
    const texts = out.sentences.map((s) => s.text);
    assert.ok(texts.includes('surface `notifications` is gone'), texts.join('\n'));
    assert.ok(texts.some((t) => t.startsWith('surface `Notifications` appeared (actions `list`, `mark_read`')), texts.join('\n'));
    assert.ok(out.findings.added.some((f) => f.rule === 'surface-id' && f.place === 'Notifications'), JSON.stringify(out.findings.added));
    const search = out.latency.find((l) => l.action === 'catalog.search');
    assert.ok(search?.before && search.after && search.after.count >= 1, JSON.stringify(search));
    const md = spawnSync(process.execPath, [CLI, 'diff', '--format', 'markdown', A, B], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(md.status, 0, md.stderr);
    assert.match(md.stdout, /^- ➖ surface `notifications` is gone$/m);

    // The panel: the live session (B) against the file A.
    await panel.click('#tab-compare');
    await panel.getByTestId('compare-before').setInputFiles(A);
    const sentences = panel.getByTestId('compare-sentences');
    await sentences.waitFor();
    const shown = await sentences.innerText();
    assert.match(shown, /surface Notifications appeared/);
    assert.match(shown, /surface notifications is gone/);
    assert.equal(await panel.locator('[data-testid=compare-findings] tr[data-change=added][data-rule=surface-id]').count(), 1);
    await panel.locator('[data-testid=compare-latency] tr[data-action="catalog.search"]').waitFor();
    await shoot(panel, 'compare');

    // Two files: B against A says the opposite.
    await panel.getByTestId('compare-before').setInputFiles(B);
    await panel.getByTestId('compare-after').setInputFiles(A);
    await panel.locator('[data-testid=compare-sentences] li', { hasText: 'surface Notifications is gone' }).waitFor();
    await panel.getByTestId('compare-use-live').click();
    await panel.getByTestId('compare-no-change').waitFor();
  });
});
