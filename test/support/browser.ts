/**
 * Launching Chromium with the built extension, for tests, benchmarks and
 * `npm start`. Browser path: CHROMIUM_PATH, Debian's Chromium, then
 * Playwright's own; none: installed where possible (scripts/browsers.ts).
 */
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBrowser } from '../../scripts/browsers.ts';
import { ensureFreshBuild } from './fresh-build.ts';
import { SLOW_MS } from './wait.ts';

// Lets Playwright see DevTools windows (targets of type "other"); read when a browser is launched.
process.env.PW_CHROMIUM_ATTACH_TO_OTHER = '1';

export const DIST = fileURLToPath(new URL('../../dist/chrome', import.meta.url));

/** The Chromium to launch: found, or installed, or a one-line error that says what to install (scripts/browsers.ts). */
export function chromiumPath(): string {
  return findBrowser('chromium');
}

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface LaunchOptions {
  /** Load the extension (default true). */
  extension?: boolean;
  headless?: boolean;
  /** Open DevTools for every tab, docked at the bottom with the OUI panel first. */
  devtools?: boolean;
  viewport?: { width: number; height: number } | null;
  /** Extra Chromium flags (e.g. --host-resolver-rules, to serve a test page under a non-local host name). */
  args?: string[];
  /**
   * Host permissions the user already granted the extension (as if they had
   * clicked "Capture on this site"): written into the new profile, which
   * Chromium reads at start. Prompts cannot be answered headless.
   */
  grantedOrigins?: string[];
  /**
   * The Timeline's rows in this browser's panels: 'events' for tests that
   * read each event as its own row (the setting the panel's "All events"
   * button keeps); the panel's default, one row per exchange, otherwise.
   */
  rows?: 'events';
}

export interface Browser {
  context: BrowserContext;
  extensionId: string | null;
  worker: Worker | null;
  close(): Promise<void>;
}

/** Chromium derives an unpacked extension's id from its absolute path: sha256, first 32 hex digits mapped to a–p. */
export async function extensionIdFor(path: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const hex = createHash('sha256').update(path).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

export async function launch(opts: LaunchOptions = {}): Promise<Browser> {
  const extension = opts.extension ?? true;
  if (extension) ensureFreshBuild();
  const userDataDir = mkdtempSync(join(tmpdir(), 'oui-devtools-'));
  const args = [...CHROMIUM_FLAGS, ...(opts.args ?? [])];
  if (extension) args.push(`--disable-extensions-except=${DIST}`, `--load-extension=${DIST}`);
  const prefs: Record<string, unknown> = {};
  const id = await extensionIdFor(DIST);
  if (opts.devtools) {
    args.push('--auto-open-devtools-for-tabs');
    prefs.devtools = {
      preferences: {
        currentDockState: '"bottom"',
        'panel-tab-order': JSON.stringify({ [`chrome-extension://${id}OUI`]: 1, elements: 10, console: 20 }),
        'panel-selected-tab': `"chrome-extension://${id}OUI"`,
      },
    };
  }
  if (opts.grantedOrigins?.length) {
    const hosts = { explicit_host: opts.grantedOrigins };
    prefs.extensions = { settings: { [id]: { granted_permissions: hosts, active_permissions: hosts } } };
  }
  if (Object.keys(prefs).length) {
    mkdirSync(join(userDataDir, 'Default'), { recursive: true });
    writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(prefs));
  }
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: opts.headless ?? true,
    viewport: opts.viewport === undefined ? { width: 1280, height: 800 } : opts.viewport,
    args,
  });
  let worker: Worker | null = null;
  let extensionId: string | null = null;
  if (extension) {
    try {
      worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: SLOW_MS }));
    } catch (e) {
      // A browser left open keeps the test process alive: it would hang instead of failing.
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
      throw e;
    }
    extensionId = new URL(worker.url()).host;
    if (opts.rows === 'events') {
      const page = await context.newPage();
      await page.goto(`chrome-extension://${extensionId}/panel.html`);
      await page.evaluate(() => localStorage.setItem('oui.timelineRows', 'events'));
      await page.close();
    }
  }
  return {
    context,
    extensionId,
    worker,
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The tab id Chrome gave a page. The extension asks for no `tabs` permission,
 * so tabs carry no URL: bring the page to the front and ask for the active tab.
 */
export async function tabIdOf(b: Browser, page: Page): Promise<number> {
  await page.bringToFront();
  const worker = b.context.serviceWorkers()[0] ?? b.worker!;
  const id = await worker.evaluate(async () => {
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    return tab?.id ?? null;
  });
  if (id === null) throw new Error(`no tab for ${page.url()}`);
  return id;
}

/** The panel opened as a page for the given tab. */
export async function openPanelPage(b: Browser, tabId: number): Promise<Page> {
  const panel = await b.context.newPage();
  await panel.goto(`chrome-extension://${b.extensionId}/panel.html?tabId=${tabId}`);
  return panel;
}

/**
 * The OUI panel inside real DevTools (launch with `devtools: true`): finds the
 * DevTools window, clicks the OUI tab and returns the panel's frame.
 */
export async function openDevtoolsPanel(b: Browser, timeout = SLOW_MS): Promise<import('playwright-core').Frame> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const devtools = b.context.pages().find((p) => p.url().startsWith('devtools://'));
    if (devtools) {
      const tab = devtools.getByRole('tab', { name: 'OUI' });
      if (await tab.count()) {
        await tab.click();
        while (Date.now() < deadline) {
          const frame = devtools.frames().find((f) => f.url().includes(`${b.extensionId}/panel.html`));
          if (frame && (await frame.locator('.shell').count())) return frame;
          await devtools.waitForTimeout(100);
        }
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the OUI panel never appeared in DevTools');
}

/**
 * Opens `url` in a new tab, waits until the page sets `document.title` to
 * `title` (its traffic is sent), opens the panel for that tab and waits for at
 * least `rows` Timeline rows. `errors` collects what the panel throws from then on.
 */
export async function openAppAndPanel(b: Browser, url: string, title: string, rows: number): Promise<{ app: Page; panel: Page; errors: string[] }> {
  const app = await b.context.newPage();
  await app.goto(url);
  await app.waitForFunction((t) => document.title === t, title);
  const panel = await openPanelPage(b, await tabIdOf(b, app));
  const errors: string[] = [];
  panel.on('pageerror', (e) => errors.push(e.message));
  await panel.waitForFunction((n) => document.querySelectorAll('.vlist [role=row]').length >= n, rows, { timeout: SLOW_MS });
  return { app, panel, errors };
}
