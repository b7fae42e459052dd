/**
 * Capture never goes quiet without a word, in real Chromium: a page restored
 * from the back/forward cache keeps reaching its panel; a late panel on a full
 * buffer whose replay is far over Chrome's 64 MiB message limit shows all of
 * it; after an extension reload, capture resumes where Chrome lets the new
 * service worker script the page, and otherwise the panel says in one line
 * that the page must be reloaded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { CHROMIUM_FLAGS, DIST, chromiumPath, extensionIdFor } from '../support/browser.ts';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { SLOW_MS } from '../support/wait.ts';
import { MAX_BYTES, MAX_ITEMS } from '../../content/capture-buffer.ts';

/** Register a surface, then send observation values `from`..`to` on a socket opened for each showing of the page. */
const livePage = `<!doctype html><title>live</title><script>
window.n = 0;
window.shows = [];
let ws = null;
window.more = (count) => new Promise((resolve) => {
  const go = () => {
    for (let i = 0; i < count; i++) ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'live', observationId: 'n', value: ++window.n, timestamp: 1000 + window.n } }));
    resolve(window.n);
  };
  if (ws && ws.readyState === 1) return go();
  ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'live', name: 'Live', description: 'Counts', actions: [] }, timestamp: 1 } }));
    go();
  };
});
addEventListener('pageshow', (e) => window.shows.push(e.persisted));
// An open socket keeps a page out of the back/forward cache: close it when leaving, as a well-behaved app does.
addEventListener('pagehide', () => { if (ws) ws.close(); ws = null; });
</script>`;

const FRAMES = MAX_ITEMS - 10;
/** Each frame weighs what a full buffer of FRAMES frames allows; its text is mostly lone surrogates, each 6 bytes of JSON (`\\ud800`). */
const FRAME_UNITS = Math.floor((MAX_BYTES / MAX_ITEMS - 64) / 2) - 4;

const bigPage = `<!doctype html><title>big</title><script>
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'big', name: 'Big', description: 'Big frames', actions: [] }, timestamp: 1 } }));
  for (let i = 1; i <= ${FRAMES}; i++) {
    const head = '{"type":"observation:update","payload":{"surfaceId":"big","observationId":"o","timestamp":' + i + ',"value":"';
    ws.send(head + '\\ud800'.repeat(${FRAME_UNITS} - head.length - 3) + '"}}');
  }
  document.title = 'sent';
};
</script>`;

interface Run {
  context: BrowserContext;
  extensionId: string;
  close(): Promise<void>;
}

/**
 * Chromium as a developer runs it: developer mode on (else Chromium keeps a
 * reloaded unpacked extension disabled), the back/forward cache on (Playwright
 * turns it off by default), and optionally host permissions already granted.
 */
async function launchDev(grantedOrigins: string[] = [], args: string[] = []): Promise<Run> {
  ensureFreshBuild();
  const dir = mkdtempSync(join(tmpdir(), 'oui-resume-'));
  const id = await extensionIdFor(DIST);
  const prefs: Record<string, unknown> = { extensions: { ui: { developer_mode: true } } };
  if (grantedOrigins.length) {
    const hosts = { explicit_host: grantedOrigins };
    (prefs.extensions as Record<string, unknown>).settings = { [id]: { granted_permissions: hosts, active_permissions: hosts } };
  }
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify(prefs));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1200, height: 900 },
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
    args: [...CHROMIUM_FLAGS, ...args, `--disable-extensions-except=${DIST}`, `--load-extension=${DIST}`],
  });
  if (!context.serviceWorkers().length) await context.waitForEvent('serviceworker', { timeout: SLOW_MS });
  return {
    context,
    extensionId: id,
    async close() {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function tabOf(run: Run, page: Page): Promise<number> {
  await page.bringToFront();
  const id = await run.context.serviceWorkers()[0]!.evaluate('chrome.tabs.query({ active: true, lastFocusedWindow: true }).then(([tab]) => tab?.id ?? null)');
  if (typeof id !== 'number') throw new Error(`no tab for ${page.url()}`);
  return id;
}

async function openPanel(run: Run, tabId: number): Promise<Page> {
  const panel = await run.context.newPage();
  await panel.setViewportSize({ width: 1200, height: 2400 });
  await panel.goto(`chrome-extension://${run.extensionId}/panel.html?tabId=${tabId}`);
  return panel;
}

/** The observation values the timeline shows, in order (the list is tall enough for these short sessions). */
async function values(panel: Page): Promise<number[]> {
  const rows = await panel.locator('.vlist [role=row]').allInnerTexts();
  return rows.flatMap((r) => {
    const m = /observation:update[\s\S]*\bn = (\d+)/.exec(r);
    return m ? [Number(m[1])] : [];
  });
}

async function waitForValues(panel: Page, want: number[], timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let last: number[] = [];
  while (Date.now() < deadline) {
    last = await values(panel);
    if (JSON.stringify(last) === JSON.stringify(want)) return;
    await panel.waitForTimeout(100);
  }
  assert.fail(`panel shows ${JSON.stringify(last)}, expected ${JSON.stringify(want)}`);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('capture resumes', () => {
  let server: http.Server;
  let url: string;

  before(async () => {
    // No `cache-control: no-store`: that alone keeps a page out of the back/forward cache.
    server = http.createServer((req, res) => {
      const body = ({ '/live': livePage, '/big': bigPage, '/other': '<!doctype html><title>other</title>' } as Record<string, string>)[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    const wss = new WebSocketServer({ server, path: '/ws' });
    wss.on('connection', (ws) => ws.on('error', () => {}));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('a page restored by Back from the back/forward cache keeps reaching its panel', async () => {
    const run = await launchDev();
    try {
      const page = await run.context.newPage();
      await page.goto(`${url}/live`);
      await page.evaluate('more(10)');
      const panel = await openPanel(run, await tabOf(run, page));
      await waitForValues(panel, range(1, 10));

      await page.goto(`${url}/other`);
      await waitForValues(panel, []);
      await page.goBack({ waitUntil: 'commit' });
      await page.waitForFunction('window.shows.length === 2');
      assert.deepEqual(await page.evaluate('window.shows'), [false, true], 'Chromium restored the page from the back/forward cache');
      await page.evaluate('more(10)');
      // Afresh, as the Network panel does on a navigation, showing the restored page as a panel opened now would.
      await waitForValues(panel, range(1, 20));

      await panel.getByLabel('Preserve log').check();
      await page.goto(`${url}/other`);
      await page.goBack({ waitUntil: 'commit' });
      await page.waitForFunction('window.shows.length === 3');
      assert.equal(await page.evaluate('window.shows[2]'), true);
      await page.evaluate('more(10)');
      // With the log preserved, the panel goes on from its cursors: nothing twice, nothing missing.
      await waitForValues(panel, range(1, 30));
      // A witness sent after: once it shows, a late duplicate of 1..30 would have shown before it.
      await page.evaluate('more(1)');
      await waitForValues(panel, range(1, 31));
      assert.equal(await panel.locator('[data-testid=lost]').count(), 0);
      assert.equal(await panel.locator('[data-testid=undelivered]').count(), 0);
      await panel.getByLabel('Preserve log').uncheck();
    } finally {
      await run.close();
    }
  });

  test('a late panel on a full buffer far over the 64 MiB message limit shows all of it', async () => {
    // The precondition: the whole replay in one message is over Chrome's limit.
    const frame = '{"type":"observation:update","payload":{"surfaceId":"big","observationId":"o","timestamp":1,"value":"' + '\ud800'.repeat(FRAME_UNITS - 100) + '"}}';
    assert.ok(Buffer.byteLength(JSON.stringify({ payload: { text: frame } })) * FRAMES > 64 * 1024 * 1024);
    const run = await launchDev();
    try {
      const page = await run.context.newPage();
      await page.goto(`${url}/big`);
      await page.waitForFunction(() => document.title === 'sent', undefined, { timeout: 30_000 });
      const panel = await openPanel(run, await tabOf(run, page));
      // The socket's open, the registration and every frame.
      const count = panel.getByTestId('event-count');
      const deadline = Date.now() + 180_000; // a wait for a loaded machine, not a timing
      while ((await count.innerText()) !== `${FRAMES + 2} / ${FRAMES + 2} events`) {
        if (Date.now() > deadline) assert.fail(`the panel shows ${await count.innerText()}, not ${FRAMES + 2} events`);
        await panel.waitForTimeout(250);
      }
      assert.equal(await panel.locator('[data-testid=lost]').count(), 0, 'nothing dropped');
      assert.equal(await panel.locator('[data-testid=undelivered]').count(), 0, 'nothing undelivered');
    } finally {
      await run.close();
    }
  });

  async function reloadExtension(run: Run): Promise<void> {
    const worker = run.context.serviceWorkers()[0]!;
    const gone = new Promise((r) => worker.once('close', r));
    await worker.evaluate('setTimeout(() => chrome.runtime.reload(), 50)');
    await gone;
    // The extension is back when its pages load again.
    const probe = await run.context.newPage();
    // A loaded machine takes a while to restart an extension: this is a wait, not a timing.
    const deadline = Date.now() + 60_000;
    for (;;) {
      await new Promise((r) => setTimeout(r, 300));
      const ok = await probe.goto(`chrome-extension://${run.extensionId}/panel.html`).then(
        () => probe.evaluate('typeof chrome.tabs?.query === "function"'),
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('the extension did not come back after its reload');
    }
    await probe.close();
  }

  test('after an extension reload, capture resumes where the worker may script the page', async () => {
    const run = await launchDev([`${url}/*`.replace(/:\d+\/\*$/, '/*')]);
    try {
      const page = await run.context.newPage();
      await page.goto(`${url}/live`);
      await page.evaluate('more(10)');
      const tabId = await tabOf(run, page);
      const panel = await openPanel(run, tabId);
      await waitForValues(panel, range(1, 10));
      await reloadExtension(run);
      const again = await openPanel(run, tabId);
      // Everything the page's hook held, replayed through the old bridge, then live traffic.
      await waitForValues(again, range(1, 10));
      await page.evaluate('more(10)');
      await waitForValues(again, range(1, 20));
      // A witness sent after: once it shows, a late duplicate (or a notice) would have come before it.
      await page.evaluate('more(1)');
      await waitForValues(again, range(1, 21));
      assert.equal(await again.locator('[role=status] .notice-text').count(), 0, 'no notice');
    } finally {
      await run.close();
    }
  });

  test('after an extension reload, a page the worker may no longer script says so in one line', async () => {
    // Local hosts are always scriptable; a site the user enabled, then removed, is not: its hook outlives the grant.
    const run = await launchDev(['http://app.example/*'], ['--host-resolver-rules=MAP *.example 127.0.0.1']);
    try {
      const worker = run.context.serviceWorkers()[0]!;
      // The worker registers the hook for the granted site when it starts (a wait for a loaded machine).
      await worker.evaluate(`(async () => {
        for (let i = 0; (await chrome.scripting.getRegisteredContentScripts()).length < 2; i++) {
          if (i > 1200) throw new Error('the hook was not registered for the granted site');
          await new Promise((r) => setTimeout(r, 50));
        }
      })()`);
      const page = await run.context.newPage();
      await page.goto(`${url.replace('127.0.0.1', 'app.example')}/live`);
      await page.evaluate('more(3)');
      const tabId = await tabOf(run, page);
      const first = await openPanel(run, tabId);
      await waitForValues(first, [1, 2, 3]);
      assert.equal(await first.evaluate(`chrome.permissions.remove({ origins: ['http://app.example/*'] })`), true);
      await reloadExtension(run);
      const panel = await openPanel(run, tabId);
      const line = panel.locator('[role=status] .notice-text');
      await line.waitFor({ timeout: 30_000 });
      assert.equal(await line.innerText(), 'The extension was reloaded or updated after this page loaded: reload the page to capture again.');
      assert.deepEqual(await values(panel), []);
    } finally {
      await run.close();
    }
  });
});
