/**
 * The sample suite of oui-devtools/playwright (run by test/e2e/playwright-fixture.test.ts):
 *   npx playwright test --config test/playwright/playwright.config.ts
 * The specs import the fixture as an app would, `oui-devtools/playwright` (the
 * package's own "exports"), so the build must have run (npm run build).
 *
 * The specs that break the protocol on purpose (violations.spec.ts's small
 * page, demo-broken.spec.ts's demo with wrong clients) assert that the matcher
 * fails there and what its message says, in every run: without a variable
 * they pass when it does (and fail on anything else: a crash, a missing build).
 * OUI_FIXTURE_SHOW_FAILURES=1 makes them, after those checks, throw the
 * matcher's error again, so they fail for real and the report shows the
 * message as an app's developer sees it (test/e2e/playwright-fixture.test.ts).
 * OUI_FIXTURE_REPORT=path adds a JSON report; OUI_FIXTURE_OUTPUT=dir sets where results and attachments go.
 */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, chromiumPath } from '../support/browser.ts';

const report = process.env.OUI_FIXTURE_REPORT;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // The stand-in runtime's suite has its own config and run (stand-in/playwright.config.ts).
  testIgnore: 'stand-in/**',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  forbidOnly: true,
  outputDir: process.env.OUI_FIXTURE_OUTPUT ?? '../../test-results/playwright-fixture',
  reporter: report ? [['list'], ['json', { outputFile: report }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    // The same browser and flags as the other end-to-end tests (CHROMIUM_PATH, Debian's Chromium, then Playwright's own).
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_FLAGS },
  },
});
