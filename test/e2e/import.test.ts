/**
 * Import says what is wrong, in one line, and loses nothing: a file that is
 * not a session, one of another version, one with nothing readable is
 * refused with its reason while the live session stays on screen; one with
 * skipped records is imported, saying how many and why. Also in a panel
 * opened with no tab.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

const REGISTER = { type: 'surface:register', payload: { surface: { id: 'notes', name: 'Notes', description: 'Notes', actions: [{ id: 'add', description: 'Add a note', effect: 'edit', input: { type: 'object' } }] }, timestamp: 1 } };

const session = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'oui-devtools-session',
    version: 1,
    exportedAt: '2026-03-04T05:06:07.000Z',
    clients: [{ key: 'k', kind: 'websocket', label: 'ws://recorded.test/agent', origin: 'http://recorded.test', frameUrl: 'http://recorded.test/', frameId: 0 }],
    events: [
      { id: 'e1', client: 'k', t: 1_700_000_000_000, dir: 'out', kind: 'event', type: 'surface:register', payload: REGISTER.payload, size: 10 },
      { id: 'e2', client: 'ghost', t: 1_700_000_000_001, dir: 'out', kind: 'event', type: 'surface:register', payload: {}, size: 10 },
    ],
    ...over,
  });

/** Opens a file through the panel's own Import control. */
async function importFile(panel: Page, trigger: string, name: string, text: string | Buffer): Promise<string> {
  const [chooser] = await Promise.all([panel.waitForEvent('filechooser'), panel.getByRole('button', { name: trigger }).click()]);
  await chooser.setFiles({ name, mimeType: name.endsWith('.png') ? 'image/png' : 'application/json', buffer: Buffer.isBuffer(text) ? text : Buffer.from(text) });
  const line = panel.getByRole('status').locator('.notice-text');
  await line.waitFor();
  await panel.waitForFunction((n) => document.querySelector('[role=status] .notice-text')?.textContent?.includes(n), name);
  const text_ = await line.innerText();
  assert.doesNotMatch(text_, /\n/, 'one line');
  return text_;
}

const total = async (panel: Page) => parseInt((await panel.getByTestId('event-count').innerText()).split('/')[1]!, 10);

describe('import says what is wrong', () => {
  let server: FixtureServer;
  let b: Browser;
  let page: Page;
  let panel: Page;

  before(async () => {
    server = await startFixtureServer({
      '/': `<!doctype html><title>notes</title><script>
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => { ws.send(${JSON.stringify(JSON.stringify(REGISTER))}); document.title = 'sent'; };
      </script>`,
    });
    b = await launch({ rows: 'events', viewport: { width: 1300, height: 800 } });
    page = await b.context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.title === 'sent');
    panel = await openPanelPage(b, await tabIdOf(b, page));
    await panel.locator('.vlist [role=row][data-type="surface:register"]').waitFor();
  });

  after(async () => {
    await b?.close();
    await server?.close();
  });

  const refusals: Array<[string, string | Buffer, RegExp]> = [
    ['screenshot.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]), /^Import of screenshot\.png failed: not JSON: .*; the current session is kept\.$/],
    ['network.har', JSON.stringify({ log: { version: '1.2', entries: [] } }), /^Import of network\.har failed: the HAR holds no OUI traffic \(0 entries/],
    ['future.json', session({ version: 2 }), /^Import of future\.json failed: unsupported version 2; this panel reads version 1 \(the file was written by a newer OUI DevTools: update the extension\); the current session is kept\.$/],
    ['garbled.json', session({ events: [{ id: 1 }, 'x'] }), /^Import of garbled\.json failed: none of its records could be read \(event 1: no id\); the current session is kept\.$/],
  ];
  for (const [name, text, why] of refusals) {
    test(`${name}: refused with its reason, the live session kept`, async () => {
      const before = await total(panel);
      const line = await importFile(panel, 'Import', name, text);
      assert.match(line, why);
      assert.equal(await total(panel), before, 'every event still there');
      assert.equal(await panel.getByRole('button', { name: 'Back to live' }).count(), 0, 'still live');
      assert.equal(await panel.locator('.vlist [role=row][data-type="surface:register"]').count(), 1);
      await panel.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal(await panel.locator('.notice-text').count(), 0);
    });
  }

  test('a session with a skipped record is imported, saying how many and why', async () => {
    const line = await importFile(panel, 'Import', 'recorded.json', session());
    assert.equal(line, "Imported 1 events of 1 client from recorded.json exported 2026-03-04T05:06:07.000Z; 1 record skipped (event 2: client \"ghost\" is not among the file's clients). Live capture is off until you go back to live.");
    assert.equal(await total(panel), 1);
    await panel.getByRole('button', { name: 'Back to live' }).click();
    await panel.locator('.vlist [role=row][data-type="surface:register"]').waitFor();
  });

  test('in a panel with no tab, a refused file says so too', async () => {
    const offline = await b.context.newPage();
    try {
      await offline.goto(`chrome-extension://${b.extensionId}/panel.html`);
      const line = await importFile(offline, 'open a session file', 'notes.txt', 'just some notes\nline two');
      assert.match(line, /^Import of notes\.txt failed: not JSON: .*; the current session is kept\.$/);
      assert.equal(await offline.getByRole('button', { name: 'open a session file' }).count(), 1, 'still offering to open one');
    } finally {
      await offline.close();
    }
  });
});
