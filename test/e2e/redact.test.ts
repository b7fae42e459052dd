/**
 * Redaction in real Chromium with the built extension: the demo shop after
 * the runtime's tour (an order approved on the page, so an argsHash is in
 * play), a test card number typed into the shop's search box (it reaches the
 * runtime in the `results` observation). Then:
 *   - every Copy of the panel holds no card number (and at least one Copy
 *     held the redacted value: the marker is in it);
 *   - Export opens the preview: counts per rule, the places; a pointer of
 *     the user's (the order's shipping name) added and kept for the origin;
 *     the downloaded file holds neither secret, lists them, carries the
 *     verdicts; `oui-devtools lint` (the real binary) reports the same
 *     findings on it as on the unredacted export, made on purpose and
 *     marked so.
 * The preview's screenshot goes to test-results/screenshots/redaction.png,
 * and with UPDATE_SCREENSHOTS=1 to docs/redaction.png (as compare.test.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDemoPanel, tourTraffic, ORDER, type DemoPanel } from '../support/demo-panel.ts';
import { openPanelPage } from '../support/browser.ts';
import { until, SLOW_MS } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
const CARD = '4242 4242 4242 4242';
const CARD_FORMS = [CARD, '4242424242424242'];
const NAME = ORDER.shipping.name;

function lintFindings(path: string): string[] {
  const r = spawnSync(process.execPath, [CLI, 'lint', '--format', 'json', '--fail-on', 'never', path], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { files: Array<{ findings: Array<{ rule: string; severity: string; events: Array<{ id: string }> }> }> };
  return out.files[0]!.findings.map((f) => `${f.severity} ${f.rule} ${f.events.map((e) => e.id).join(',')}`).sort();
}

describe('redaction in the panel', () => {
  let d: DemoPanel;
  before(async () => {
    d = await openDemoPanel();
    await tourTraffic(d, { refused: 1 });
    // Typed into the shop's search until the app searched for it (a render of the catalog page can reset the field under the typing).
    await until(
      async () => {
        await d.page.locator('#search-input').fill(CARD);
        await d.page.locator('#search-input').press('Enter');
        return (await d.page.locator('#search-summary').innerText()).includes(CARD);
      },
      'the app searched for the typed card number',
      SLOW_MS,
      200,
    );
  });
  after(async () => {
    await d?.close();
  });

  test('every Copy is scrubbed of the card number', async () => {
    const { panel } = d;
    await panel.click('#tab-observations');
    // What the panel puts on the clipboard, as it writes it.
    await panel.evaluate(() => {
      (window as unknown as { copied: string[] }).copied = [];
      navigator.clipboard.writeText = async (t: string) => void (window as unknown as { copied: string[] }).copied.push(t);
    });
    // Each Copy button of the view, until one of them copies the observation the card number was typed into (the capture may still be on its way).
    const buttons = panel.locator('.main button.copy');
    let copied: string[] = [];
    await until(
      async () => {
        const n = await buttons.count();
        for (let i = 0; i < n; i++) await buttons.nth(i).dispatchEvent('click'); // shown on hover
        copied = await panel.evaluate(() => (window as unknown as { copied: string[] }).copied);
        return copied.some((t) => t.includes('[REDACTED]'));
      },
      'a Copy held the typed value, redacted',
      SLOW_MS,
      200,
    );
    assert.ok(copied.length > 0);
    for (const t of copied) for (const s of CARD_FORMS) assert.equal(t.includes(s), false, `a Copy holds ${s}`);
  });

  test('Export previews, exports redacted with the verdicts, and lints to the same findings', async () => {
    const { panel } = d;
    await panel.getByTestId('export').click();
    const preview = panel.getByTestId('redact-preview');
    await preview.waitFor();
    assert.match(await preview.getByTestId('redact-summary').innerText(), /\d+ values? will be replaced by \[REDACTED\]/);
    assert.ok(Number(await preview.locator('tr[data-rule=card] td.num').innerText()) >= 1, 'the card number is counted');
    // The user's own pointer: the order's shipping name, kept for the origin.
    await preview.getByTestId('redact-pointers').fill('/params/shipping/name');
    await preview.getByTestId('redact-apply').click();
    await until(async () => Number(await preview.locator('tr[data-rule=pointer] td.num').innerText()) >= 1, 'the pointer counted');
    await preview.locator('details').evaluate((el) => ((el as HTMLDetailsElement).open = true));
    await preview.screenshot({ path: join(ROOT, 'test-results/screenshots/redaction.png') });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(join(ROOT, 'test-results/screenshots/redaction.png'), join(ROOT, 'docs/redaction.png'));

    const [download] = await Promise.all([panel.waitForEvent('download'), preview.getByTestId('export-redacted').click()]);
    assert.doesNotMatch(download.suggestedFilename(), /UNREDACTED/);
    const redactedPath = await download.path();
    const text = readFileSync(redactedPath, 'utf8');
    for (const s of [...CARD_FORMS, NAME]) assert.equal(text.includes(s), false, `the export holds ${s}`);
    const file = JSON.parse(text);
    const rules = new Set(file.redaction.redacted.map((r: { rule: string }) => r.rule));
    assert.ok(rules.has('card') && rules.has('pointer'), [...rules].join());
    assert.ok(Array.isArray(file.verdicts.findings));
    assert.equal(await panel.getByTestId('redact-preview').count(), 0, 'the preview closes');

    await panel.getByTestId('export').click();
    await preview.getByTestId('unredacted-sure').check();
    const [raw] = await Promise.all([panel.waitForEvent('download'), preview.getByTestId('export-unredacted').click()]);
    assert.match(raw.suggestedFilename(), /-UNREDACTED\.json$/);
    const rawPath = await raw.path();
    const rawFile = JSON.parse(readFileSync(rawPath, 'utf8'));
    assert.equal(rawFile.redaction.unredacted, true);
    assert.ok(JSON.stringify(rawFile).includes(CARD) && JSON.stringify(rawFile).includes(NAME), 'the unredacted export holds the values');

    const before = lintFindings(rawPath);
    assert.ok(before.length > 0 || rawFile.events.length > 50, 'a recording with traffic');
    const after = lintFindings(redactedPath);
    assert.deepEqual(after, before);
    assert.ok(!after.some((f) => /approval-hash-mismatch/.test(f)), 'the redacted shipping name makes no argsHash finding');

    // The HAR button: the same preview; the redacted HAR lints to what the HAR exported unredacted lints to.
    await panel.getByTestId('export-har').click();
    await preview.getByTestId('unredacted-sure').check();
    const [rawHar] = await Promise.all([panel.waitForEvent('download'), preview.getByTestId('export-unredacted').click()]);
    assert.match(rawHar.suggestedFilename(), /-UNREDACTED\.har$/);
    await panel.getByTestId('export-har').click();
    const [har] = await Promise.all([panel.waitForEvent('download'), preview.getByTestId('export-redacted').click()]);
    const harPath = await har.path();
    const harText = readFileSync(harPath, 'utf8');
    for (const s of [...CARD_FORMS, NAME]) assert.equal(harText.includes(s), false, `the HAR holds ${s}`);
    assert.ok(Array.isArray(JSON.parse(harText).log._ouiVerdicts.findings), 'the HAR carries its verdicts');
    const harBefore = lintFindings(await rawHar.path());
    assert.ok(harBefore.length > 0, 'the HAR has findings to keep');
    assert.deepEqual(lintFindings(harPath), harBefore);
  });

  test('the pointer is kept for the origin: a new panel shows it', async () => {
    const again = await openPanelPage(d.browser, d.tabId);
    try {
      await until(async () => (await again.locator('.vlist [role=row]').count()) > 0, 'the new panel has the traffic', SLOW_MS, 50);
      await again.getByTestId('export').click();
      await until(async () => (await again.getByTestId('redact-pointers').inputValue()) === '/params/shipping/name', 'the pointer of the origin', SLOW_MS, 50);
    } finally {
      await again.close();
    }
  });
});
