/**
 * The capture pipeline in real Chromium with the built extension: page hook →
 * bridge → background → panel, on real WebSocket frames and direct-hook calls.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { SLOW_MS, until } from '../support/wait.ts';

const STREAM = 300;

/** A page whose client registers a surface, then streams numbered observation updates. */
const streamPage = (count: number, everyMs: number, firstGate = count) => `<!doctype html><title>stream</title><script>
// The test opens the gate in steps, so that a step is still streaming whatever the machine's load.
window.gate = ${firstGate};
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'counter', name: 'Counter', description: 'Counts', actions: [{ id: 'reset', description: 'Reset', input: { type: 'object' } }] }, timestamp: 1 } }));
  let i = 0;
  const tick = () => {
    ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'counter', observationId: 'n', value: ++i, timestamp: 1000 + i } }));
    if (i >= ${count}) document.title = 'done';
    else if (i < window.gate) setTimeout(tick, ${everyMs});
    else {
      const wait = () => (i < window.gate ? tick() : setTimeout(wait, ${everyMs}));
      setTimeout(wait, ${everyMs});
    }
  };
  tick();
};
</script>`;

/** What the app sees and sends, so a run with and without the extension can be compared. */
const echoPage = `<!doctype html><title>echo</title><script>
window.seen = [];
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.binaryType = 'arraybuffer';
ws.addEventListener('message', (e) => {
  const text = typeof e.data === 'string' ? e.data : 'bin:' + new Uint8Array(e.data).join(',');
  window.seen.push(text);
  if (text.includes('"action:request"')) {
    const req = JSON.parse(text).payload;
    ws.send(JSON.stringify({ type: 'action:result', payload: { requestId: req.requestId, success: true, data: { echoed: req.params }, timestamp: 2 } }));
  }
  if (text === 'done') document.title = 'done';
});
window.addEventListener('message', (e) => window.seen.push('window:' + JSON.stringify(e.data)));
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'echo', name: 'Echo', description: 'Echo', actions: [{ id: 'say', description: 'Say', input: { type: 'object' } }] }, timestamp: 1 } }));
  ws.send(new Uint8Array([1, 2, 3]));
  ws.send('not json at all');
};
</script>`;

/** The timeline renders only the rows in view: a tall panel shows every row of these short sessions. */
async function tall(panel: Page): Promise<Page> {
  await panel.setViewportSize({ width: 1200, height: (STREAM + 20) * 20 });
  return panel;
}

async function rows(panel: Page): Promise<string[]> {
  return panel.locator('.vlist [role=row]').allInnerTexts();
}

async function waitForRows(panel: Page, predicate: (rows: string[]) => boolean, timeout = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeout;
  let last: string[] = [];
  while (Date.now() < deadline) {
    last = await rows(panel);
    if (predicate(last)) return last;
    await panel.waitForTimeout(100);
  }
  assert.fail(`panel rows never matched; last ${last.length} rows:\n${last.slice(-10).join('\n')}`);
}

function values(list: string[]): number[] {
  return list.flatMap((r) => {
    const m = /observation:update[\s\S]*\bn = (\d+)/.exec(r);
    return m ? [Number(m[1])] : [];
  });
}

describe('capture pipeline', () => {
  let server: FixtureServer;
  let browser: Browser;

  before(async () => {
    server = await startFixtureServer({
      '/stream': streamPage(STREAM, 8, 40),
      '/early': streamPage(40, 1),
      '/echo': echoPage,
      '/wrapping': `<!doctype html><title>wrapping</title><script>
        // An app that wraps WebSocket and fetch itself, after the hook did.
        window.appSent = [];
        window.appFetches = 0;
        class AppSocket extends WebSocket {
          send(data) { window.appSent.push(data); return super.send(data); }
        }
        window.WebSocket = AppSocket;
        const nativeFetch = window.fetch;
        window.fetch = (...args) => { window.appFetches++; return nativeFetch(...args); };
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'wrapped-ws', name: 'W', description: 'W', actions: [{ id: 'go', description: 'g', input: { type: 'object' } }] }, timestamp: 1 } }));
        fetch('/socket.io/?EIO=4&transport=polling&t=1').then((r) => r.text()).then((t) => (window.polled = t));
      </script>`,
      '/socket.io/': '0{"sid":"sid-abc","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}\x1e40/oui,{"sid":"ns-1"}\x1e42/oui,["surface:register",{"surface":{"id":"wrapped-sio","name":"S","description":"S","actions":[{"id":"go","description":"g","input":{"type":"object"}}]},"timestamp":1}]',
      '/forger': `<!doctype html><title>forger</title><script>
        window.markers = [];
        window.addEventListener('message', (e) => { if (e.data && '__ouiDevtoolsHookPort' in e.data) window.markers.push(e.data.__ouiDevtoolsHookPort); });
        const ch = new MessageChannel();
        window.postMessage({ __ouiDevtoolsHookPort: 'forged' }, '*', [ch.port2]);
        ch.port1.postMessage({ type: 'items', hook: 'forged', clients: [{ id: 'c1', kind: 'websocket', url: 'ws://forged', origin: 'x', frameUrl: 'x' }], items: [{ hook: 'forged', client: 'c1', seq: 1, t: 1, kind: 'frame', dir: 'out', payload: { text: '{"type":"surface:register","payload":{}}' } }] });
        window.postMessage({ type: 'subscribe', cursors: {} }, '*');
        window.postMessage({ type: 'items', hook: 'forged2', clients: [], items: [] }, '*');
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'forger-own', name: 'F', description: 'F', actions: [] }, timestamp: 1 } }));
      </script>`,
    });
    browser = await launch({ rows: 'events' });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('a panel opened after the app started sees everything since load', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/early`);
    await page.waitForFunction(() => document.title === 'done');
    const panel = await tall(await openPanelPage(browser, await tabIdOf(browser, page)));
    const list = await waitForRows(panel, (r) => values(r).length >= 40);
    assert.deepEqual(values(list), Array.from({ length: 40 }, (_, i) => i + 1));
    assert.ok(list.some((r) => r.includes('surface:register') && r.includes('counter')));
    assert.ok(list.some((r) => r.includes('open')), 'the socket open is shown');
    await panel.close();
    await page.close();
  });

  test('a service-worker stop in the middle of a stream loses and duplicates nothing', async () => {
    const page = await browser.context.newPage();
    const panelReady = page.goto(`${server.url}/stream`);
    await panelReady;
    const panel = await tall(await openPanelPage(browser, await tabIdOf(browser, page)));
    await waitForRows(panel, (r) => values(r).length >= 20);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    const reconnects = async () => Number(await panel.getByTestId('connection').getAttribute('data-reconnects'));
    for (const atLeast of [60, 120]) {
      const dropsBefore = await reconnects();
      await page.evaluate((gate) => ((window as unknown as { gate: number }).gate = gate), atLeast + 60);
      // The panel's port dropped with the worker: proof the stop happened mid-stream.
      // A stop that lands while Chrome is still starting the worker (woken by the
      // bridge or the panel) is ignored by Chrome, so it is asked again until it takes.
      for (let attempt = 0; (await reconnects()) <= dropsBefore; attempt++) {
        assert.ok(attempt < 10, 'the service worker never stopped');
        await cdp.send('ServiceWorker.stopAllWorkers');
        await panel
          .waitForFunction((n) => Number(document.querySelector('[data-testid=connection]')?.getAttribute('data-reconnects')) > n, dropsBefore, { timeout: 3_000 })
          .catch(() => undefined);
      }
      const before = values(await rows(panel)).length;
      assert.ok(before < STREAM, 'the stop came before the stream ended');
      await waitForRows(panel, (r) => values(r).length >= atLeast);
    }
    assert.ok((await reconnects()) >= 2);
    await page.evaluate((gate) => ((window as unknown as { gate: number }).gate = gate), STREAM);
    await page.waitForFunction(() => document.title === 'done', undefined, { timeout: 20_000 });
    await waitForRows(panel, (r) => values(r).length >= STREAM);
    // A witness sent after the stream: once it shows, a late duplicate of the stream would have shown before it.
    await page.evaluate(`ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'counter', observationId: 'n', value: ${STREAM + 1}, timestamp: ${1000 + STREAM + 1} } }))`);
    const list = await waitForRows(panel, (r) => values(r).includes(STREAM + 1));
    assert.deepEqual(values(list), Array.from({ length: STREAM + 1 }, (_, i) => i + 1));
    assert.equal(await panel.locator('[data-testid=lost]').count(), 0, 'nothing reported lost');
    assert.ok(list.length > STREAM);
    await panel.close();
    await page.close();
  });

  test("the app's traffic is the same with and without the extension", async () => {
    async function run(b: Browser): Promise<{ seen: string[]; frames: FixtureServer['frames'] }> {
      server.frames.length = 0;
      const onConn = (ws: import('ws').WebSocket) => {
        ws.on('message', (d) => {
          if (String(d).includes('surface:register')) {
            ws.send(JSON.stringify({ type: 'action:request', payload: { requestId: 'r-1', surfaceId: 'echo', actionId: 'say', params: { text: 'hi ✓ 😀' }, timestamp: 1 } }));
            ws.send(Buffer.from([9, 8, 7]));
            ws.send(JSON.stringify({ type: 'x-vendor:ping', payload: { n: 1 } }));
            setTimeout(() => ws.send('done'), 50);
          }
        });
      };
      const off = server.onConnection(onConn);
      const page = await b.context.newPage();
      await page.goto(`${server.url}/echo`);
      await page.waitForFunction(() => document.title === 'done');
      // Witnesses, the same in both runs: the page's last frame reached the server (every earlier one did), and
      // the page's own last window message reached it (a message from the extension would have come before).
      await page.evaluate(`ws.send('bye'); window.postMessage('end-of-run', '*')`);
      await until(() => server.frames.some((f) => f.dir === 'to-server' && f.data === 'bye'), "the page's last frame at the server", SLOW_MS);
      await page.waitForFunction(() => (window as unknown as { seen: string[] }).seen.includes('window:"end-of-run"'), undefined, { timeout: SLOW_MS });
      const seen = ((await page.evaluate(() => (window as unknown as { seen: string[] }).seen)) as string[]).filter((s) => s !== 'window:"end-of-run"');
      await page.close();
      off();
      return { seen, frames: [...server.frames] };
    }
    const withExtension = await run(browser);
    const plain = await launch({ extension: false });
    let without;
    try {
      without = await run(plain);
    } finally {
      await plain.close();
    }
    assert.ok(withExtension.frames.length >= 6);
    // Each direction in order (the two directions interleave on the server as the network schedules them).
    for (const dir of ['to-server', 'to-page'] as const) {
      assert.deepEqual(
        withExtension.frames.filter((f) => f.dir === dir),
        without.frames.filter((f) => f.dir === dir),
      );
    }
    assert.deepEqual(withExtension.seen, without.seen);
    assert.ok(!withExtension.seen.some((s) => s.startsWith('window:')), 'the app never receives a message from the extension');
  });

  test('navigation clears the panel unless the log is preserved', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/early`);
    await page.waitForFunction(() => document.title === 'done');
    const panel = await tall(await openPanelPage(browser, await tabIdOf(browser, page)));
    await waitForRows(panel, (r) => values(r).length === 40);
    await page.goto(`${server.url}/echo`);
    await waitForRows(panel, (r) => r.some((x) => x.includes('echo')) && values(r).length === 0);
    await panel.getByLabel('Preserve log').check();
    await page.goto(`${server.url}/early`);
    await page.waitForFunction(() => document.title === 'done');
    const kept = await waitForRows(panel, (r) => values(r).length === 40);
    assert.ok(kept.some((x) => x.includes('surface:register') && x.includes('echo')), 'the previous page is kept');
    await panel.getByLabel('Preserve log').uncheck();
    await panel.close();
    await page.close();
  });

  test('capture keeps working when the app wraps WebSocket and fetch itself', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/wrapping`);
    await page.waitForFunction(() => (window as unknown as { polled?: string }).polled !== undefined);
    const panel = await openPanelPage(browser, await tabIdOf(browser, page));
    const list = await waitForRows(panel, (r) => r.some((x) => x.includes('wrapped-ws')) && r.some((x) => x.includes('wrapped-sio')));
    assert.ok(list.some((r) => /socket\.io[\s\S]*surface:register[\s\S]*wrapped-sio/.test(r)), 'the Socket.IO polling answer, fetched through the app\'s wrapper, is decoded');
    const app = await page.evaluate(() => ({ sent: (window as any).appSent.length, fetches: (window as any).appFetches }));
    assert.deepEqual(app, { sent: 1, fetches: 1 }, "the app's own wrappers still see their calls");
    await panel.close();
    await page.close();
  });

  test('a page that forges bridge messages reaches neither its own panel nor another tab', async () => {
    const victim = await browser.context.newPage();
    await victim.goto(`${server.url}/echo`);
    const victimPanel = await openPanelPage(browser, await tabIdOf(browser, victim));
    const forger = await browser.context.newPage();
    await forger.goto(`${server.url}/forger`);
    const forgerPanel = await openPanelPage(browser, await tabIdOf(browser, forger));
    const own = await waitForRows(forgerPanel, (r) => r.some((x) => x.includes('forger-own')));
    assert.ok(!own.some((r) => r.includes('forged')), 'forged items are not shown');
    // The page sees its own forged marker, never the hook's.
    assert.deepEqual(await forger.evaluate(() => (window as unknown as { markers: string[] }).markers), ['forged'], "the hook's port message is invisible to the page");
    // A witness on the victim's page, sent after the forger's page ran: once its panel shows it, a leak would have shown before.
    await victim.evaluate(`ws.send(JSON.stringify({ type: 'x-victim:witness', payload: {} }))`);
    const victimRows = await waitForRows(victimPanel, (r) => r.some((x) => x.includes('x-victim:witness')), SLOW_MS);
    assert.ok(victimRows.some((r) => r.includes('surface:register') && r.includes('echo')));
    assert.ok(!victimRows.some((r) => r.includes('forger')), "nothing of the forger's tab reaches another tab's panel");
    for (const p of [victim, victimPanel, forger, forgerPanel]) await p.close();
  });
});
