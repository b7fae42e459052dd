/**
 * The stand-in runtime's suite (oui.call, oui.faults, oui.runScenario and the
 * specs `oui-devtools generate-test` writes), run by
 * test/e2e/playwright-stand-in.test.ts:
 *   npx playwright test --config test/playwright/stand-in/playwright.config.ts
 * Kept apart from the fixture's sample suite (../playwright.config.ts), whose
 * run asserts its exact outcomes. OUI_STAND_IN_SPECS=dir runs the specs of
 * another directory (a generated spec) with the same settings.
 */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, chromiumPath } from '../../support/browser.ts';

const report = process.env.OUI_FIXTURE_REPORT;

export default defineConfig({
  testDir: process.env.OUI_STAND_IN_SPECS ?? '.',
  testMatch: '*.spec.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  forbidOnly: true,
  outputDir: process.env.OUI_FIXTURE_OUTPUT ?? '../../../test-results/playwright-stand-in',
  reporter: report ? [['list'], ['json', { outputFile: report }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_FLAGS },
  },
});
