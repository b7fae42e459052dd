/**
 * Launching Firefox with the built extension (dist/firefox), for the Firefox
 * end-to-end tests: puppeteer-core over WebDriver BiDi (Firefox's own
 * protocol; Playwright cannot load Firefox extensions), a fresh profile, the
 * extension installed temporarily, and a fixed extension UUID (the
 * `extensions.webextensions.uuids` preference) so the panel's URL is known:
 * moz-extension://UUID/panel.html?tabId=N. Browser path: see scripts/browsers.ts.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findBrowser } from '../../scripts/browsers.ts';
import { ensureFreshBuild } from './fresh-build.ts';

export const FIREFOX_DIST = fileURLToPath(new URL('../../dist/firefox', import.meta.url));
/** Any fixed UUID will do; Firefox otherwise draws a new one for every profile. */
export const FIREFOX_EXTENSION_UUID = '0b0e5ad0-5c0d-4e1e-9a6e-0bd1e5dc0de0';

export interface Firefox {
  browser: Browser;
  /** The extension's origin, moz-extension://UUID. */
  origin: string;
  /** An extension page kept open to ask the extension APIs (tabs.query) from. */
  probe: Page;
  close(): Promise<void>;
}

/** The gecko id, from the built manifest (derived from manifest.json by scripts/manifests.mjs). */
function geckoId(): string {
  const manifest = JSON.parse(readFileSync(`${FIREFOX_DIST}/manifest.json`, 'utf8')) as { browser_specific_settings?: { gecko?: { id?: string } } };
  const id = manifest.browser_specific_settings?.gecko?.id;
  if (!id) throw new Error(`${FIREFOX_DIST}/manifest.json has no gecko id: run npm run build`);
  return id;
}

export async function launchFirefox(opts: { headless?: boolean } = {}): Promise<Firefox> {
  ensureFreshBuild();
  const id = geckoId();
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: findBrowser('firefox'),
    headless: opts.headless ?? true,
    // Lets a tab navigate to the extension's own pages (the panel as a page).
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ [id]: FIREFOX_EXTENSION_UUID }) },
  });
  try {
    const installed = await browser.installExtension(FIREFOX_DIST);
    if (installed !== id) throw new Error(`Firefox installed ${installed}, expected ${id}`);
    const origin = `moz-extension://${FIREFOX_EXTENSION_UUID}`;
    const probe = await browser.newPage();
    await gotoExtensionPage(probe, `${origin}/panel.html`);
    return { browser, origin, probe, close: () => browser.close().catch(() => {}) };
  } catch (e) {
    await browser.close().catch(() => {});
    throw e;
  }
}

/**
 * Opens an extension page in `page`. Firefox loads it but never reports its
 * load event over BiDi, so: navigate with a short timeout, then wait for the
 * document to be ready.
 */
export async function gotoExtensionPage(page: Page, url: string): Promise<void> {
  await page.goto(url, { timeout: 1500 }).catch(() => {});
  await waitIn(page, `the extension page ${url}`, (u) => location.href === u && document.readyState !== 'loading', url);
}

/**
 * Waits until `fn(arg)`, run in the page, is truthy, and returns its value. For extension pages, whose
 * CSP refuses the `Function()` behind puppeteer's waitForFunction; works in any page.
 */
export async function waitIn<A, R>(page: Page, what: string, fn: (arg: A) => R, arg: A, timeout = 15_000): Promise<NonNullable<Awaited<R>>> {
  const deadline = Date.now() + timeout;
  let error: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await page.evaluate(fn as (a: unknown) => R, arg);
      if (value) return value as NonNullable<Awaited<R>>;
    } catch (e) {
      error = e; // A page still loading has no realm yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${error ? ` (last error: ${String(error)})` : ''}`);
}

/** The tab id Firefox gave a page: asked from an extension page (the host permission shows the tab's URL). */
export async function firefoxTabId(ff: Firefox, page: Page): Promise<number> {
  const url = page.url();
  const id = await ff.probe.evaluate(async (u) => {
    const api = (globalThis as unknown as { browser: { tabs: { query(q: object): Promise<Array<{ id?: number; url?: string }>> } } }).browser;
    const tabs = (await api.tabs.query({})).filter((t) => t.url === u && typeof t.id === 'number');
    return tabs.length ? Math.max(...tabs.map((t) => t.id!)) : null;
  }, url);
  if (id === null) throw new Error(`no tab for ${url}`);
  return id;
}

/** The panel opened as an extension page for the given tab. */
export async function openFirefoxPanel(ff: Firefox, tabId: number, opts: { rows?: 'events' } = {}): Promise<Page> {
  const panel = await ff.browser.newPage();
  const url = `${ff.origin}/panel.html?tabId=${tabId}`;
  await gotoExtensionPage(panel, url);
  if (opts.rows === 'events') {
    // The setting the Timeline's "All events" button keeps; the panel reads it when it starts.
    await panel.evaluate(() => localStorage.setItem('oui.timelineRows', 'events'));
    await gotoExtensionPage(panel, url);
  }
  return panel;
}

/** Sets a text field as typing would (preact listens to `input`). */
export async function fill(page: Page, selector: string, text: string): Promise<void> {
  await page.$eval(
    selector,
    (el, t) => {
      (el as HTMLInputElement).value = t;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    text,
  );
}

/** Clicks the enabled button named `name` (its aria-label, else its text; `prefix`: starting so), once there is one. */
export async function clickButton(page: Page, name: string, opts: { prefix?: boolean; timeout?: number } = {}): Promise<void> {
  await waitIn(
    page,
    `the button ${name}`,
    ([n, prefix]) => {
      const b = [...document.querySelectorAll('button')].find((x) => {
        if (x.disabled) return false;
        const said = x.getAttribute('aria-label') ?? x.textContent?.trim() ?? '';
        return prefix ? said.startsWith(n) : said === n;
      });
      b?.click();
      return !!b;
    },
    [name, opts.prefix === true] as const,
    opts.timeout,
  );
}

/** Picks the option whose value is `value` in the select labelled `label`, once the select offers it (options may come with the capture). */
export async function choose(page: Page, label: string, value: string, timeout?: number): Promise<void> {
  const selector = `select[aria-label="${label}"]`;
  await waitIn(page, `the option ${JSON.stringify(value)} of ${label}`, ([s, v]) => [...((document.querySelector(s) as HTMLSelectElement | null)?.options ?? [])].some((o) => o.value === v), [selector, value] as const, timeout);
  await page.select(selector, value);
  // A controlled select takes the value on its next render: the next field is set after it.
  await waitIn(page, `${label} set to ${JSON.stringify(value)}`, ([s, v]) => (document.querySelector(s) as HTMLSelectElement | null)?.value === v, [selector, value] as const, timeout);
}
