/** The OUI panel inside real DevTools, not only opened as a page. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openDevtoolsPanel, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

let server: FixtureServer;
let browser: Browser;

before(async () => {
  server = await startFixtureServer({
    '/': `<!doctype html><title>app</title><script>
      const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
      ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'inbox', name: 'Inbox', description: 'Mail', actions: [{ id: 'archive', description: 'Archive', input: { type: 'object' } }] }, timestamp: 1 } }));
    </script>`,
  });
  browser = await launch({ devtools: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('DevTools shows an OUI panel that sees the inspected page, from its load on', async () => {
  const page = browser.context.pages().find((p) => !p.url().startsWith('devtools://')) ?? (await browser.context.newPage());
  await page.goto(`${server.url}/`);
  const panel = await openDevtoolsPanel(browser);
  await panel.waitForFunction(() => document.body.innerText.includes('surface=inbox'), undefined, { timeout: 15_000 });
  server.sockets.at(-1)!.send(JSON.stringify({ type: 'action:request', payload: { requestId: 'q1', surfaceId: 'inbox', actionId: 'archive', params: {}, timestamp: 2 } }));
  await panel.waitForFunction(() => document.body.innerText.includes('requestId=q1'), undefined, { timeout: 15_000 });
  const text = await panel.locator('[data-testid=events]').innerText();
  assert.match(text, /surface:register/);
  assert.match(text, /action:request/);
});
