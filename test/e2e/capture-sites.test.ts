/**
 * Least privilege in real Chromium: the hook runs on local development hosts
 * and on the sites the user enabled, and nothing at all is injected anywhere
 * else. Test pages are served on 127.0.0.1 and reached under other names
 * (app.example, other.example) through Chromium's host resolver rules. The
 * user's grant is written into the profile, as Chromium keeps it; its prompt
 * cannot be answered headless.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

const RESOLVE = '--host-resolver-rules=MAP *.example 127.0.0.1';

const APP = `<!doctype html><title>app</title><script>
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  ws.onopen = () => { ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'sites', name: 'S', description: 'd', actions: [{ id: 'go', description: 'd', input: { type: 'object' } }] }, timestamp: 1 } })); document.title = 'sent'; };
</script>`;

/** What a page can see of an injected hook. */
const INJECTED = `Boolean(window.__OUI_DEVTOOLS_HOOK__) || Object.getOwnPropertySymbols(window).some((s) => String(s).includes('oui'))`;

describe('where the hook runs', () => {
  let server: FixtureServer;
  before(async () => {
    server = await startFixtureServer({ '/': APP });
  });
  after(async () => {
    await server?.close();
  });

  async function visit(b: Browser, host: string) {
    const page = await b.context.newPage();
    await page.goto(server.url.replace('127.0.0.1', host));
    await page.waitForFunction(() => document.title === 'sent');
    return { page, injected: (await page.evaluate(INJECTED)) as boolean };
  }

  test('local hosts are captured; any other site gets nothing injected, and its panel offers to capture it', async () => {
    const b = await launch({ rows: 'events', args: [RESOLVE], viewport: { width: 1300, height: 800 } });
    try {
      assert.equal((await visit(b, '127.0.0.1')).injected, true, 'a loopback page runs the hook');
      assert.equal((await visit(b, 'localhost')).injected, true, 'localhost runs the hook');
      const other = await visit(b, 'other.example');
      assert.equal(other.injected, false, 'a site the user did not enable gets nothing');
      const tabId = await tabIdOf(b, other.page);
      const panel = await b.context.newPage();
      const origin = new URL(other.page.url()).origin;
      await panel.goto(`chrome-extension://${b.extensionId}/panel.html?tabId=${tabId}&origin=${encodeURIComponent(origin)}`);
      const banner = panel.getByTestId('capture-banner');
      await banner.waitFor({ timeout: 10_000 });
      assert.match(await banner.innerText(), new RegExp(`not capturing ${origin.replace(/[.]/g, '\\.')}`));
      assert.equal(await panel.getByRole('button', { name: 'Capture on this site' }).count(), 1);
      await panel.getByRole('button', { name: 'Sites…' }).click();
      assert.match(await panel.getByTestId('capture-sites').innerText(), /no other site/);
      assert.equal(await panel.locator('.vlist [role=row]').count(), 0);
      // The panel of a captured page shows no banner.
      const local = await visit(b, '127.0.0.1');
      const localPanel = await openPanelPage(b, await tabIdOf(b, local.page));
      await localPanel.locator('.vlist [role=row]').first().waitFor();
      // The witness: the panel heard the hook, which ends its quiet timer for good (panel/capture-site.ts).
      await localPanel.locator('.shell[data-capture=capturing]').waitFor();
      assert.equal(await localPanel.getByTestId('capture-banner').count(), 0);
    } finally {
      await b.close();
    }
  });

  test('a site the user enabled is captured from its first frame, and only that site', async () => {
    const b = await launch({ rows: 'events', args: [RESOLVE], grantedOrigins: ['http://app.example/*'] });
    try {
      // The worker registers the hook for the granted site when it starts.
      await b.worker!.evaluate(async () => {
        for (let i = 0; i < 100; i++) {
          if ((await chrome.scripting.getRegisteredContentScripts()).length === 2) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('the hook was not registered for the granted site');
      });
      const registered = (await b.worker!.evaluate(() => chrome.scripting.getRegisteredContentScripts())) as Array<{ matches: string[]; world?: string }>;
      assert.deepEqual(registered.map((s) => s.matches), [['http://app.example/*'], ['http://app.example/*']]);
      const app = await visit(b, 'app.example');
      assert.equal(app.injected, true, 'the enabled site runs the hook');
      const panel = await openPanelPage(b, await tabIdOf(b, app.page));
      await panel.locator('.vlist [role=row][data-type="surface:register"]').waitFor({ timeout: 10_000 });
      assert.equal((await visit(b, 'other.example')).injected, false, 'another site still gets nothing');
    } finally {
      await b.close();
    }
  });
});
