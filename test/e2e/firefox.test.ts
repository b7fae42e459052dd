/**
 * The extension in real Firefox (dist/firefox, Debian's firefox-esr or
 * FIREFOX_PATH), one launch for the file: the page hook hands its private
 * port to the bridge through Firefox's wrappers for page objects and runs in
 * about:blank and srcdoc frames; every transport of the demo reaches the
 * panel (opened as an extension page for the tab); one request injected per
 * transport runs the app's handler and its answer is paired in the panel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'puppeteer-core';
import { fill, firefoxTabId, waitIn, launchFirefox, openFirefoxPanel, type Firefox } from '../support/firefox.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';

interface Row {
  type: string;
  kind: string;
  text: string;
}

async function rows(panel: Page): Promise<Row[]> {
  return panel.$$eval('.vlist [role=row]', (els) =>
    els.map((el) => ({ type: el.getAttribute('data-type') ?? '', kind: el.getAttribute('data-client-kind') ?? '', text: (el as HTMLElement).innerText })),
  );
}

/** Filters the Timeline (it is virtualised: only rows in view exist) and waits for a row. */
async function waitForRow(panel: Page, what: string, filter: string, predicate: (r: Row) => boolean, timeout = 20_000): Promise<void> {
  if (!(await panel.$('input[aria-label="Free-text filter"]'))) await panel.click('#tab-timeline');
  await fill(panel, 'input[aria-label="Free-text filter"]', filter);
  const deadline = Date.now() + timeout;
  let last: Row[] = [];
  while (Date.now() < deadline) {
    last = await rows(panel);
    if (last.some(predicate)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  assert.fail(`${what}: never shown. Last rows:\n${last.slice(-10).map((r) => `${r.kind} ${r.type} ${r.text.replace(/\s+/g, ' ')}`).join('\n')}`);
}

const register = (id: string) =>
  `var ws = new WebSocket(${'(parent || window).location.origin'}.replace('http', 'ws') + '/ws');` +
  `ws.onopen = function () { ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: '${id}', name: '${id}', description: '${id}', actions: [] }, timestamp: 1 } })); };`;

const FRAMES_PAGE = `<!doctype html><html><head><title>frames</title></head><body>
<script>${register('top-frame')} ws.addEventListener('open', function () { ws.send(new Uint8Array([1, 2, 3])); });</script>
<iframe id="srcdoc" srcdoc="<script>${register('srcdoc-frame').replace(/"/g, '&quot;')}</script>"></iframe>
<iframe id="blank" src="about:blank"></iframe>
<script>
  // An about:blank frame runs no script of its own: its parent writes one into it, as apps do.
  var blank = document.getElementById('blank');
  function fill() {
    var d = blank.contentDocument, s = d.createElement('script');
    s.textContent = ${JSON.stringify(register('blank-frame'))};
    (d.head || d.documentElement).appendChild(s);
  }
  if (blank.contentDocument && blank.contentDocument.readyState === 'complete') fill(); else blank.addEventListener('load', fill);
  addEventListener('load', function () { document.title = 'frames ready'; });
</script>
</body></html>`;

describe('Firefox', () => {
  let ff: Firefox;
  let demo: DemoServer;
  let fixture: FixtureServer;
  let loopback: FixtureServer;

  before(async () => {
    demo = await startDemoServer();
    loopback = await startFixtureServer({ '/widget': '<!doctype html><title>widget</title>' }, '127.0.0.2');
    fixture = await startFixtureServer({
      '/frames': FRAMES_PAGE,
      '/coverage': `<!doctype html><title>coverage</title><iframe src="${loopback.url}/widget"></iframe><iframe sandbox="" src="/frames"></iframe><iframe srcdoc="<p>x"></iframe>`,
    });
    ff = await launchFirefox();
  });

  after(async () => {
    await ff?.close();
    await Promise.all([demo?.close(), fixture?.close(), loopback?.close()]);
  });

  test('the hook hands its port to the bridge, in the top frame and in srcdoc and about:blank frames', async () => {
    const page = await ff.browser.newPage();
    await page.goto(`${fixture.url}/frames`);
    await page.waitForFunction(() => document.title === 'frames ready');
    // A string: tsx would wrap named inner functions in a helper the page does not have.
    const hooked = await page.evaluate(`(() => {
      const has = (w) => !!w && Object.getOwnPropertyDescriptor(w, '__OUI_DEVTOOLS_HOOK__') !== undefined;
      return { top: has(window), srcdoc: has(document.getElementById('srcdoc').contentWindow), blank: has(document.getElementById('blank').contentWindow) };
    })()`);
    assert.deepEqual(hooked, { top: true, srcdoc: true, blank: true }, 'the page hook is installed in every frame');
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
    for (const id of ['top-frame', 'srcdoc-frame', 'blank-frame']) {
      await waitForRow(panel, `${id} registration`, id, (r) => r.kind === 'websocket' && r.type === 'surface:register' && r.text.includes(id));
    }
    // Bytes cross from the page's world to the bridge's (Firefox wraps page objects there) and on to the panel.
    await waitForRow(panel, 'the binary frame', '', (r) => r.kind === 'websocket' && r.type === 'other' && /binary frame/.test(r.text));
    await panel.close();
    await page.close();
  });

  test('the Coverage view names the loopback frame on 127.0.0.2 as not captured, and why', async () => {
    const page = await ff.browser.newPage();
    await page.goto(`${fixture.url}/coverage`);
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
    await panel.click('#tab-coverage');
    const status = (path: string) =>
      panel.evaluate((p) => {
        const tr = document.querySelector(`[data-testid=coverage-view] tbody tr[data-kind=frame][data-path="${p}"]`) as HTMLElement | null;
        return [tr?.getAttribute('data-status') ?? '', tr?.innerText ?? ''];
      }, path) as Promise<[string, string]>;
    await waitIn(panel, 'the coverage rows', (p) => document.querySelector(`[data-testid=coverage-view] tbody tr[data-kind=frame][data-path="${p}"]`)?.getAttribute('data-status') === 'captured', 'top/2');
    assert.equal((await status('top'))[0], 'captured');
    const [widget, why] = await status('top/0');
    assert.equal(widget, 'missing');
    assert.match(why, /loopback host 127\.0\.0\.2:\d+ is not enabled/);
    // Firefox runs extension scripts even where a sandbox forbids the page's own: there the hook speaks (Chromium: nothing to capture).
    assert.ok(['idle', 'captured'].includes((await status('top/1'))[0]), 'a sandbox without allow-scripts is no gap');
    await panel.close();
    await page.close();
  });

  describe('the demo', () => {
    let page: Page;
    let panel: Page;
    const errors: string[] = [];

    before(async () => {
      page = await ff.browser.newPage();
      await page.goto(demo.url);
      await demo.runtime.waitForClient();
      await page.waitForFunction(() => document.querySelector('#status-socket')?.getAttribute('data-state') === 'connected');
      panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
      panel.on('pageerror', (e) => errors.push(String((e as Error).message ?? e)));
    });

    test('every transport reaches the panel', async () => {
      await waitForRow(panel, 'Socket.IO registration', 'surface:register', (r) => r.kind === 'socket.io' && r.type === 'surface:register' && r.text.includes('cart'));
      await waitForRow(panel, 'WebSocket JSON registration', 'surface:register', (r) => r.kind === 'websocket' && r.type === 'surface:register' && r.text.includes('notifications'));
      await waitForRow(panel, 'postMessage registration', 'surface:register', (r) => r.kind === 'postmessage' && r.type === 'surface:register' && r.text.includes('coupon-widget'));
      await waitForRow(panel, 'direct-hook registration', 'surface:register', (r) => r.kind === 'direct' && r.type === 'surface:register' && r.text.includes('help'));
      // The app's own runtime asks, the app answers: both directions of a live transport.
      const result = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
      assert.equal(result.success, true);
      await waitForRow(panel, 'Socket.IO result', 'search', (r) => r.kind === 'socket.io' && r.type === 'action:result');
      await fill(panel, 'input[aria-label="Free-text filter"]', '');
    });

    /** Composes in the panel's Inject view, sends, and returns the history row's answer once the client's answer is paired. */
    async function inject(kind: string, surfaceId: string, actionId: string, params: unknown): Promise<{ answer: string; requestId: string }> {
      await panel.click('#tab-inject');
      const client = await waitIn(
        panel,
        `a ${kind} client to inject into`,
        (k) => [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Inject into client"] option')].find((o) => o.textContent?.startsWith(`${k}:`))?.value,
        kind,
      );
      await panel.select('select[aria-label="Inject into client"]', client);
      await waitIn(panel, `surface ${surfaceId}`, (s) => [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Surface"] option')].some((o) => o.value === s), surfaceId);
      await panel.select('select[aria-label="Surface"]', surfaceId);
      await panel.select('select[aria-label="Action"]', actionId);
      await fill(panel, 'textarea[aria-label="Params JSON"]', JSON.stringify(params));
      const before = await panel.$$eval('[data-testid=inject-history] tbody tr', (r) => r.length).catch(() => 0);
      await waitIn(panel, 'the Send button', () => {
        const send = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Send');
        send?.click();
        return !!send;
      }, null);
      await waitIn(panel, 'a new history row', (n) => document.querySelectorAll('[data-testid=inject-history] tbody tr').length > n, before);
      await waitIn(panel, "the client's answer", () => /success|error/.test(document.querySelector('[data-testid=inject-history] tbody tr [data-testid=inject-answer]')?.textContent ?? ''), null);
      return panel.$eval('[data-testid=inject-history] tbody tr', (row) => ({
        answer: (row.querySelector('[data-testid=inject-answer]') as HTMLElement).innerText.trim(),
        requestId: row.getAttribute('data-request-id') ?? '',
      }));
    }

    /** The injected request and its answer are one exchange in the Timeline. */
    async function paired(kind: string, requestId: string): Promise<void> {
      await panel.click('#tab-timeline');
      await waitForRow(panel, `${kind} injected request`, requestId, (r) => r.kind === kind && r.type === 'action:request' && /succeeded/.test(r.text));
      await waitForRow(panel, `${kind} answer`, requestId, (r) => r.kind === kind && r.type === 'action:result');
      await fill(panel, 'input[aria-label="Free-text filter"]', '');
    }

    test('Socket.IO: an injected request runs the handler and its answer is paired', async () => {
      const cart = Number(await page.$eval('#cart-count', (e) => e.textContent));
      const { answer, requestId } = await inject('socket.io', 'catalog', 'add_to_cart', { productId: 'mug-travel', quantity: 2 });
      assert.equal(answer, 'success');
      await page.waitForFunction((n) => Number(document.querySelector('#cart-count')?.textContent) === n + 2, {}, cart);
      assert.equal(demo.runtime.events.some((e) => e.type === 'action:result' && (e.payload as { requestId?: string } | null)?.requestId === requestId), false, "the answer was kept from the app's runtime");
      await paired('socket.io', requestId);
    });

    test('WebSocket JSON: an injected request runs the handler and its answer is paired', async () => {
      const { answer, requestId } = await inject('websocket', 'notifications', 'mark_read', { target: { all: true } });
      assert.equal(answer, 'success');
      await page.waitForFunction(() => document.querySelector('#notif-unread')?.textContent?.trim() === '0');
      await paired('websocket', requestId);
    });

    test('postMessage: an injected request reaches the iframe client and its answer is paired', async () => {
      const { answer, requestId } = await inject('postmessage', 'coupon-widget', 'apply_coupon', { code: 'SAVE10' });
      assert.equal(answer, 'success');
      const frame = page.frames().find((f) => f.url().includes('frame.html'))!;
      await frame.waitForSelector('#coupon-applied[data-code="SAVE10"]');
      await paired('postmessage', requestId);
    });

    test('direct hook: an injected request goes through the transport handler and its answer is paired', async () => {
      const { answer, requestId } = await inject('direct', 'help', 'open_article', { articleId: 'returns' });
      assert.equal(answer, 'success');
      await page.waitForSelector('#help-article[data-article-id="returns"]');
      await paired('direct', requestId);
      assert.deepEqual(errors, [], 'the panel threw nothing');
    });
  });
});
