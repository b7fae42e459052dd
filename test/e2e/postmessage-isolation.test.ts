/**
 * The postMessage path cannot be forged or overheard. A host app embeds its
 * OUI widget (another origin) and a third-party frame (a third origin) that
 * attacks: it dispatches forged message events in its own window, redefines
 * the frame tree its window reports, posts results of its own to the host,
 * and patches its realm's Array and String built-ins to read whatever passes
 * through them. The panel shows nothing forged under the widget's client,
 * and an injection into the widget reaches the widget's frame only: the
 * third party reads neither the command nor the requestId, not even through a
 * redefined MessageEvent.prototype.data (nor does such code in the host's frame).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { SLOW_MS } from '../support/wait.ts';

const SURFACE = { id: 'notes', name: 'Notes', description: 'd', actions: [{ id: 'add_note', description: 'Add a note', input: { type: 'object', properties: { text: { type: 'string' } } } }] };

const widget = `<!doctype html><title>widget</title><script>
  window.handled = [];
  addEventListener('message', (e) => {
    if (e.source !== parent || !e.data || e.data.type !== 'action:request') return;
    const p = e.data.payload;
    window.handled.push(p.requestId);
    parent.postMessage({ type: 'action:result', payload: { requestId: p.requestId, success: true, data: { saved: p.params.text }, timestamp: Date.now() } }, '*');
  });
  parent.postMessage({ type: 'surface:register', payload: { surface: ${JSON.stringify(SURFACE)}, timestamp: Date.now() } }, '*');
</script>`;

const thirdParty = `<!doctype html><title>third</title><script>
  // Reads whatever passes through this realm's built-ins, as a hostile frame would.
  window.seen = [];
  const keep = (v) => { try { window.seen.push(typeof v === 'string' ? v : JSON.stringify(v)); } catch {} };
  const iter = Array.prototype[Symbol.iterator];
  Array.prototype[Symbol.iterator] = function () { keep(this); return iter.call(this); };
  for (const name of ['join', 'filter', 'map', 'slice', 'includes', 'push']) {
    const f = Array.prototype[name];
    Array.prototype[name] = function (...a) { if (name !== 'push') keep(this); return f.apply(this, a); };
  }
  for (const name of ['split', 'includes', 'slice', 'startsWith']) {
    const f = String.prototype[name];
    String.prototype[name] = function (...a) { keep(String(this)); return f.apply(this, a); };
  }
  // And every message event's data, through a redefined MessageEvent.prototype.data, as analytics or an attacker would.
  const dataGetter = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data').get;
  Object.defineProperty(MessageEvent.prototype, 'data', { configurable: true, enumerable: true, get() { const v = dataGetter.call(this); keep(v); return v; } });
  // Forged traffic: untrusted events claiming to come from the host, after making this window look like the widget's frame.
  const fakeTop = { frames: null, length: 1, parent: null };
  Object.defineProperty(window, 'parent', { value: fakeTop, configurable: true });
  Object.defineProperty(window, 'length', { value: 0, configurable: true });
  fakeTop.parent = fakeTop;
  for (let i = 0; i < 3; i++) {
    window.dispatchEvent(new MessageEvent('message', { data: { type: 'action:request', payload: { requestId: 'forged-request-' + i, surfaceId: 'notes', actionId: 'add_note', params: {}, timestamp: 1 } }, origin: location.origin, source: window }));
    window.dispatchEvent(new MessageEvent('message', { data: { type: 'action:result', payload: { requestId: 'forged-result-' + i, success: true, timestamp: 1 } }, origin: location.origin }));
  }
  // Real traffic of its own: it is captured, as the third party's own pairing.
  top.postMessage({ type: 'x-third-party:hello', payload: { from: 'third' } }, '*');
  document.title = 'attacked';
</script>`;

describe('postMessage isolation', () => {
  let host: FixtureServer;
  let widgetServer: FixtureServer;
  let thirdServer: FixtureServer;
  let b: Browser;
  before(async () => {
    widgetServer = await startFixtureServer({ '/widget': widget });
    thirdServer = await startFixtureServer({ '/third': thirdParty });
    // Three origins: the host on 127.0.0.1, the widget on localhost, the third party on 127.0.0.1 with another port.
    const widgetUrl = widgetServer.url.replace('127.0.0.1', 'localhost') + '/widget';
    host = await startFixtureServer({
      '/': `<!doctype html><title>host</title>
        <iframe id="widget" src="${widgetUrl}"></iframe>
        <iframe id="third" src="${thirdServer.url}/third"></iframe>
        <script>
          window.results = [];
          window.dataSeen = [];
          const dataGetter = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data').get;
          Object.defineProperty(MessageEvent.prototype, 'data', { configurable: true, enumerable: true, get() { const v = dataGetter.call(this); try { window.dataSeen.push(JSON.stringify(v)); } catch {} return v; } });
          addEventListener('message', (e) => {
            if (e.data && e.data.type === 'action:result') window.results.push(e.data.payload.requestId);
            if (e.data && e.data.type === 'surface:register' && e.source === document.getElementById('widget').contentWindow && !location.search.includes('quiet')) {
              // The app's runtime asks once, so the widget's frame has traffic of its own.
              e.source.postMessage({ type: 'action:request', payload: { requestId: 'app-0001-0000-4000-8000-000000000001', surfaceId: 'notes', actionId: 'add_note', params: { text: 'from the app' }, timestamp: Date.now() } }, '*');
            }
          });
        </script>`,
    });
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await Promise.all([host?.close(), widgetServer?.close(), thirdServer?.close()]);
  });

  test('forged events and a redefined frame tree never reach the widget client, and an injection reaches its frame only', async () => {
    const app = await b.context.newPage();
    await app.goto(host.url);
    await app.waitForFunction(() => (window as unknown as { results: string[] }).results.length >= 1);
    const third = app.frames().find((f) => f.url().includes('/third'))!;
    await third.waitForFunction(() => document.title === 'attacked');
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    // The witness: the third party's real message, posted after its forged events; once it shows, they would have shown before.
    await panel.waitForFunction(() => document.querySelector('.vlist')?.textContent?.includes('x-third-party:hello'), undefined, { timeout: SLOW_MS });
    const rows = await panel.locator('.vlist').innerText();
    assert.doesNotMatch(rows, /forged/, 'no forged event was recorded');

    // Inject into the widget's pairing.
    await panel.getByRole('tab', { name: 'Inject' }).click();
    const picker = panel.getByRole('combobox', { name: 'Inject into client' });
    const option = picker.locator('option', { hasText: 'notes' });
    await option.first().waitFor({ state: 'attached', timeout: 15_000 });
    assert.equal(await option.count(), 1, "one client has the widget's surface");
    await picker.selectOption((await option.first().getAttribute('value'))!);
    await panel.getByRole('combobox', { name: 'Surface', exact: true }).selectOption('notes');
    await panel.getByRole('combobox', { name: 'Action', exact: true }).selectOption('add_note');
    await panel.getByLabel('text', { exact: true }).fill('secret-params-7f3a');
    await panel.getByRole('button', { name: /^Send/ }).click();
    const row = panel.getByTestId('inject-history').locator('tbody tr').first();
    await panel.waitForFunction(() => /success/.test(document.querySelector('[data-testid=inject-history] tbody tr [data-testid=inject-answer]')?.textContent ?? ''), undefined, { timeout: 15_000 });
    const requestId = (await row.getAttribute('data-request-id'))!;
    const widgetFrame = app.frames().find((f) => f.url().includes('/widget'))!;
    assert.ok(((await widgetFrame.evaluate('window.handled')) as string[]).includes(requestId), 'the widget ran the injected request');
    // The answer was kept from the host's runtime (the panel's "success" is that answer, captured in the host's
    // frame in the same dispatch that would have reached its listener), and no frame's hostile code saw the command.
    assert.ok(!((await app.evaluate('window.results')) as string[]).includes(requestId), "the answer was held from the app's runtime");
    const hostSeen = ((await app.evaluate('window.dataSeen')) as string[]).join('\n');
    assert.match(hostSeen, /action:result/, "the host's spy did read message events");
    assert.ok(!hostSeen.includes(requestId), "the host frame's spy never read the hold command's requestId");
    const seen = ((await third.evaluate('window.seen')) as string[]).join('\n');
    assert.ok(seen.length > 0, 'the third party did read its own realm');
    assert.ok(!seen.includes(requestId), 'the third party never saw the requestId');
    assert.ok(!seen.includes('secret-params-7f3a'), 'the third party never saw the params');
  });

  test("an injection reaches a widget whose frame has captured nothing yet: its hook said where it is", async () => {
    const app = await b.context.newPage();
    // The app's runtime never sends the widget anything: only the host's hook has seen the pairing.
    await app.goto(`${host.url}/?quiet=1`);
    const widgetFrame = () => app.frames().find((f) => f.url().includes('/widget'))!;
    await app.waitForFunction(() => document.querySelectorAll('iframe').length === 2);
    // The widget registered with the host: the host's hook has seen the pairing.
    await app.waitForFunction(() => (window as unknown as { dataSeen: string[] }).dataSeen.some((d) => d.includes('surface:register')), undefined, { timeout: SLOW_MS });
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    await panel.getByRole('tab', { name: 'Inject' }).click();
    const picker = panel.getByRole('combobox', { name: 'Inject into client' });
    const option = picker.locator('option', { hasText: 'notes' });
    await option.first().waitFor({ state: 'attached', timeout: 15_000 });
    await picker.selectOption((await option.first().getAttribute('value'))!);
    await panel.getByRole('combobox', { name: 'Surface', exact: true }).selectOption('notes');
    await panel.getByRole('combobox', { name: 'Action', exact: true }).selectOption('add_note');
    await panel.getByLabel('text', { exact: true }).fill('first words');
    await panel.getByRole('button', { name: /^Send/ }).click();
    await panel.waitForFunction(() => /success/.test(document.querySelector('[data-testid=inject-history] tbody tr [data-testid=inject-answer]')?.textContent ?? ''), undefined, { timeout: 15_000 });
    const requestId = (await panel.getByTestId('inject-history').locator('tbody tr').first().getAttribute('data-request-id'))!;
    assert.deepEqual(await widgetFrame().evaluate('window.handled'), [requestId]);
  });
});
