/**
 * DevTools shown on the OUI panel, for `npm start`. The profile's DevTools
 * preferences (test/support/browser.ts, `devtools: true`) put the OUI tab
 * first and name it as the selected one, but DevTools restores a selected
 * tab only among its own panels at start: an extension's panel is added
 * later, so DevTools still opens on Elements. The front end is driven
 * instead, as a user would: its OUI tab is clicked once it appears.
 */
import type { Frame, Page } from 'playwright-core';
import { launch, type Browser } from '../test/support/browser.ts';
import { SLOW_MS } from '../test/support/wait.ts';

const PANEL_TITLE = 'OUI';

/** The DevTools window's OUI tab selected, and the panel's frame once it has rendered. */
export async function showOuiPanel(b: Browser, timeoutMs = SLOW_MS): Promise<{ devtools: Page; panel: Frame }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const devtools of b.context.pages().filter((p) => p.url().startsWith('devtools://'))) {
      const tab = devtools.getByRole('tab', { name: PANEL_TITLE, exact: true });
      if (!(await tab.count().catch(() => 0))) continue;
      if ((await tab.getAttribute('aria-selected').catch(() => null)) !== 'true') await tab.click().catch(() => {});
      const panel = devtools.frames().find((f) => f.url().includes(`${b.extensionId}/panel.html`));
      if (panel && (await panel.locator('.shell').count().catch(() => 0))) return { devtools, panel };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`DevTools never showed the ${PANEL_TITLE} panel`);
}

/**
 * What `npm start` opens in Chromium: the extension loaded, `url` in the tab,
 * DevTools docked at the bottom on the OUI panel. A DevTools window that never
 * shows the panel (closed by the user meanwhile) leaves the browser open and
 * says why in `shown`.
 */
export async function openChromiumOnPanel(url: string, opts: { headless?: boolean } = {}): Promise<{ browser: Browser; page: Page; shown: { devtools: Page; panel: Frame } | Error }> {
  const browser = await launch({ headless: opts.headless ?? false, devtools: true, viewport: null });
  let page: Page;
  try {
    // With DevTools auto-opened, the first pages can be DevTools windows: use the tab.
    page = browser.context.pages().find((p) => !p.url().startsWith('devtools://')) ?? (await browser.context.newPage());
    await page.goto(url);
  } catch (e) {
    await browser.close();
    throw e;
  }
  const shown = await showOuiPanel(browser).catch((e: Error) => e);
  return { browser, page, shown };
}
