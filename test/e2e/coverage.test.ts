/**
 * The edges of the capture, in real Chromium: an app on 127.0.0.1 whose OUI
 * client is an iframe on 127.0.0.2 (loopback too, but a host the manifest
 * cannot name), beside frames no script runs in. The Coverage view lists
 * every frame, says which are not captured and why, points from the
 * half-captured conversation to the frame that hides its other side, and
 * one click (a user's grant, written into the profile, since its prompt
 * cannot be answered headless) reloads that frame with the hook, after which
 * both sides of every exchange appear.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { until } from '../support/wait.ts';

const SURFACE = { id: 'notes', name: 'Notes', description: 'd', actions: [{ id: 'add_note', description: 'Add a note', input: { type: 'object' } }] };

const WIDGET = `<!doctype html><title>widget</title><script>
  addEventListener('message', (e) => {
    if (e.source !== parent || !e.data || e.data.type !== 'action:request') return;
    const p = e.data.payload;
    parent.postMessage({ type: 'action:result', payload: { requestId: p.requestId, success: true, data: {}, timestamp: Date.now() } }, '*');
  });
  parent.postMessage({ type: 'surface:register', payload: { surface: ${JSON.stringify(SURFACE)}, timestamp: Date.now() } }, '*');
</script>`;

const hostPage = (widgetUrl: string) => `<!doctype html><title>host</title>
  <script>
    window.results = [];
    let n = 0;
    addEventListener('message', (e) => {
      if (!e.data || e.source !== document.getElementById('widget').contentWindow) return;
      if (e.data.type === 'action:result') window.results.push(e.data.payload.requestId);
      // The app's runtime asks the widget once per registration.
      if (e.data.type === 'surface:register') e.source.postMessage({ type: 'action:request', payload: { requestId: 'req-' + (++n) + '-0000-4000-8000-000000000001', surfaceId: 'notes', actionId: 'add_note', params: {}, timestamp: Date.now() } }, '*');
    });
  </script>
  <!-- After the listener: the widget registers once, as soon as it runs. -->
  <iframe id="widget" src="${widgetUrl}"></iframe>
  <iframe id="scriptless" sandbox="" src="/plain"></iframe>
  <iframe id="data" src="data:text/html,<p>data frame</p>"></iframe>
  <iframe id="srcdoc" srcdoc="<p>srcdoc frame</p>"></iframe>
`;

describe('coverage of the inspected tab', () => {
  let host: FixtureServer;
  let widget: FixtureServer;
  before(async () => {
    widget = await startFixtureServer({ '/widget': WIDGET }, '127.0.0.2');
    host = await startFixtureServer({ '/': hostPage(`${widget.url}/widget`), '/plain': '<!doctype html><p>plain' });
  });
  after(async () => {
    await Promise.all([host?.close(), widget?.close()]);
  });

  async function coverageRows(panel: import('playwright-core').Page) {
    return panel.locator('[data-testid=coverage-view] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({ path: tr.getAttribute('data-path'), kind: tr.getAttribute('data-kind'), status: tr.getAttribute('data-status'), text: (tr as HTMLElement).innerText })),
    );
  }

  test('a loopback iframe on 127.0.0.2 is named as not captured, with why, the one click, and the conversation it halves', async () => {
    const b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
    try {
      const app = await b.context.newPage();
      await app.goto(host.url);
      await app.waitForFunction(() => (window as unknown as { results: string[] }).results.length >= 1);
      const panel = await openPanelPage(b, await tabIdOf(b, app));
      // The answer (captured in the host's frame) is there; the request (received in the widget's frame) is not.
      await panel.waitForFunction(() => /action:result/.test(document.querySelector('.vlist')?.textContent ?? ''), undefined, { timeout: 15_000 });
      assert.doesNotMatch(await panel.locator('.vlist').innerText(), /action:request/);
      // The answer's detail points to the frame that hides the request.
      await panel.locator('.vlist [role=row]', { hasText: 'action:result' }).first().click();
      assert.match(await panel.getByTestId('half-captured').innerText(), /frame top\/0 is not captured/);
      const warning = panel.getByTestId('coverage-warning');
      await warning.waitFor({ timeout: 10_000 });
      await warning.click();
      await panel.waitForFunction(() => document.querySelectorAll('[data-testid=coverage-view] tbody tr').length >= 5, undefined, { timeout: 10_000 });
      const rows = await coverageRows(panel);
      const at = (path: string) => rows.find((r) => r.path === path && r.kind === 'frame');
      assert.equal(at('top')?.status, 'captured');
      const w = at('top/0');
      assert.equal(w?.status, 'missing', 'the 127.0.0.2 frame is not captured');
      assert.match(w!.text, /127\.0\.0\.2/);
      assert.match(w!.text, /loopback host 127\.0\.0\.2:\d+ is not enabled/);
      assert.match(w!.text, /Capture http:\/\/127\.0\.0\.2/);
      assert.equal(at('top/1')?.status, 'idle', 'a sandbox without allow-scripts has nothing to capture');
      assert.match(at('top/1')!.text, /without allow-scripts/);
      // The manifest's match_origin_as_fallback: a data: frame a captured page made runs the hook too.
      assert.equal(at('top/2')?.status, 'captured', 'the data: frame is captured');
      assert.match(at('top/2')!.text, /data:text\/html/);
      assert.equal(at('top/3')?.status, 'captured', 'the srcdoc frame runs the hook');
      assert.match(await panel.getByTestId('coverage-summary').innerText(), /not captured/);
      const halves = await panel.getByTestId('coverage-halves').innerText();
      assert.match(halves, /only one side is captured; what the runtime sends to the client \(its requests\) cannot be seen, because frame top\/0 is not captured/);
    } finally {
      await b.close();
    }
  });

  test('once its site is enabled, one click reloads the frame with the hook, and both sides of its exchanges appear', async () => {
    // The user's grant, as Chromium keeps it; the page then loads before the hook is registered for it (as a page open when the site was enabled).
    const b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 }, grantedOrigins: ['http://127.0.0.2/*'] });
    try {
      // The worker registers the hook for the granted site when it starts: a witness that it did, before it is taken away.
      await until(async () => (await b.worker!.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).length)) === 2, 'the hook registered for the granted site', 10_000, 50);
      await b.worker!.evaluate(() => chrome.scripting.unregisterContentScripts());
      assert.equal(await b.worker!.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).length), 0);
      const app = await b.context.newPage();
      await app.goto(host.url);
      await app.waitForFunction(() => (window as unknown as { results: string[] }).results.length >= 1);
      const panel = await openPanelPage(b, await tabIdOf(b, app));
      await panel.waitForFunction(() => /action:result/.test(document.querySelector('.vlist')?.textContent ?? ''), undefined, { timeout: 15_000 });
      await panel.getByRole('tab', { name: 'Coverage' }).click();
      const row = panel.locator('[data-testid=coverage-view] tbody tr[data-path="top/0"][data-kind=frame]');
      await row.waitFor({ timeout: 10_000 });
      assert.equal(await row.getAttribute('data-status'), 'missing');
      assert.match(await row.innerText(), /enabled, but no hook spoke from it/);
      await row.getByRole('button', { name: 'Reload frame' }).click();
      await panel.waitForFunction(() => document.querySelector('[data-testid=coverage-view] tbody tr[data-path="top/0"][data-kind=frame]')?.getAttribute('data-status') === 'captured', undefined, { timeout: 15_000 });
      // The reloaded widget registered again; the host's runtime asked it again, and now the request is seen in the widget's frame.
      await panel.getByRole('tab', { name: 'Timeline' }).click();
      await panel.waitForFunction(() => /action:request/.test(document.querySelector('.vlist')?.textContent ?? ''), undefined, { timeout: 15_000 });
      assert.equal(await app.evaluate(() => (window as unknown as { results: string[] }).results.length), 2, 'the widget frame reloaded, the host page did not');
      await panel.getByRole('tab', { name: 'Coverage' }).click();
      await panel.waitForFunction(() => !document.querySelector('[data-testid=coverage-halves]'), undefined, { timeout: 10_000 });
    } finally {
      await b.close();
    }
  });
});
