/**
 * The Playwright fixture's attachment, redacted: a real @playwright/test run
 * (a child process, as an app's CI runs its tests) of a small spec written
 * here, importing `oui-devtools/playwright` as an app does. The spec opens
 * the demo shop, types a test card number into its search box and waits
 * until the fixture has captured it; the attached oui-session.json must not
 * hold it, must list it (rule `card`) and carry the verdicts. A second spec
 * with `ouiOptions: { redact: false }` attaches it unredacted, marked so.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JSONReport, JSONReportSuite } from '@playwright/test/reporter';
import { ensureFreshBuild } from '../support/fresh-build.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Inside the package (so `oui-devtools/playwright` resolves as in an app), in the ignored test-results.
const work = join(root, 'test-results/redact-fixture');
const CARD = '4242 4242 4242 4242';

const SPEC = `
import { test, expect } from 'oui-devtools/playwright';
import { startDemoServer, type DemoServer } from '../../test/demo/server.ts';

let demo: DemoServer;
test.beforeAll(async () => { demo = await startDemoServer(); });
test.afterAll(async () => { await demo?.close(); });

async function typeCard(page, oui) {
  await page.goto(demo.url);
  await page.locator('#search-input').fill(${JSON.stringify(CARD)});
  await page.locator('#search-input').press('Enter');
  await expect.poll(async () => JSON.stringify(await oui.events()).includes(${JSON.stringify(CARD)}), { timeout: 20000 }).toBe(true);
}

test('redacted', async ({ page, oui }) => {
  await typeCard(page, oui);
});

test.describe('unredacted on purpose', () => {
  test.use({ ouiOptions: { redact: false } });
  test('unredacted', async ({ page, oui }) => {
    await typeCard(page, oui);
  });
});
`;

const CONFIG = `
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, chromiumPath } from '../../test/support/browser.ts';
export default defineConfig({
  testDir: '.',
  testMatch: 'redact.spec.ts',
  workers: 1,
  retries: 0,
  timeout: 60_000,
  outputDir: './results',
  reporter: [['json', { outputFile: './report.json' }]],
  use: { browserName: 'chromium', headless: true, launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_FLAGS } },
});
`;

function tests(suites: JSONReportSuite[] | undefined): JSONReportSuite['specs'] {
  return (suites ?? []).flatMap((s) => [...s.specs, ...tests(s.suites)]);
}

describe('the fixture’s oui-session.json', () => {
  let report: JSONReport;
  before(async () => {
    await ensureFreshBuild();
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'redact.spec.ts'), SPEC);
    writeFileSync(join(work, 'playwright.config.ts'), CONFIG);
    const r = spawnSync(process.execPath, [join(root, 'node_modules/@playwright/test/cli.js'), 'test', '--config', join(work, 'playwright.config.ts')], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '1', FORCE_COLOR: '0' }, timeout: 240_000 });
    assert.equal(r.status, 0, `the run passes: ${r.stdout}\n${r.stderr}`);
    report = JSON.parse(readFileSync(join(work, 'report.json'), 'utf8')) as JSONReport;
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const attachment = (title: string): string => {
    const spec = tests(report.suites).find((s) => s.title === title);
    assert.ok(spec, title);
    const a = spec.tests[0]!.results[0]!.attachments.find((x) => x.name === 'oui-session.json');
    assert.ok(a, `${title}: attached`);
    return a.path ? readFileSync(a.path, 'utf8') : Buffer.from(a.body ?? '', 'base64').toString('utf8');
  };

  test('redacted by default: no card number, the list, the verdicts', () => {
    const text = attachment('redacted');
    for (const s of [CARD, CARD.replace(/ /g, '')]) assert.equal(text.includes(s), false, `holds ${s}`);
    const file = JSON.parse(text);
    assert.ok(file.events.length > 10, 'a recording of the demo');
    assert.ok(file.redaction.redacted.some((r: { rule: string; pointer: string }) => r.rule === 'card' && /query/.test(r.pointer)), 'the card listed');
    assert.ok(Array.isArray(file.verdicts.findings));
  });

  test('`redact: false`: the values, and the file says so', () => {
    const text = attachment('unredacted');
    assert.ok(text.includes(CARD));
    assert.equal(JSON.parse(text).redaction.unredacted, true);
  });
});
