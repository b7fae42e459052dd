/**
 * `oui.serve` of oui-devtools/playwright, in real Chromium with no extension:
 * the fixture's capture (OuiCapture, as the `oui` fixture attaches it, with
 * the built init script) on a context whose pages load the demo app from a
 * static server with no runtime (test/support/static-demo.ts). With the
 * Socket.IO endpoint and `/ws-json` served, the app connects and registers;
 * `oui.call` (the stand-in runtime) asks each client through the virtual
 * server and gets the app's answers; nothing reached the network. After
 * `stop()`, a reloaded page's Socket.IO client goes to the network again
 * (the static server sees its requests, and refuses them).
 *
 * And the served WebSocket behaves as the browser's own: one script runs
 * against a real socket (to a `ws` server) and against a served one, and
 * their traces (readyState on each step, events and handlers in order,
 * errors thrown, close codes, attributes) must be the same; the oracle is
 * the browser.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OuiCapture } from '../../src/playwright/capture.ts';
import { chromiumPath, CHROMIUM_FLAGS } from '../support/browser.ts';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { startStaticDemo, type StaticDemo } from '../support/static-demo.ts';
import { until } from '../support/wait.ts';

const INIT = fileURLToPath(new URL('../../dist/playwright/oui-init.js', import.meta.url));

type DemoClients = { socket: { connected: boolean; transport: string; surfaces: string[] }; ws: { connected: boolean; surfaces: string[] } };
const connected = (page: Page) =>
  page.waitForFunction(
    () => {
      const c = (window as unknown as { __demo?: { state(): { clients: DemoClients } } }).__demo?.state().clients;
      return !!c && c.socket.connected && c.socket.transport === 'websocket' && c.socket.surfaces.includes('catalog') && c.ws.connected && c.ws.surfaces.includes('notifications');
    },
    undefined,
    { timeout: 20_000 },
  );

describe('oui.serve: the Playwright fixture with no runtime', () => {
  let site: StaticDemo;
  let browser: Browser;
  let capture: OuiCapture;
  let page: Page;

  before(async () => {
    ensureFreshBuild();
    site = await startStaticDemo();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
    const context = await browser.newContext();
    capture = await OuiCapture.attach(context, readFileSync(INIT, 'utf8'));
    page = await context.newPage();
  });
  after(async () => {
    capture?.close();
    await browser?.close();
    await site?.close();
  });

  test('served before the first page: the app connects, registers, and answers oui.call through the virtual server', async () => {
    const sio = await capture.serve('/socket.io/');
    await capture.serve(`${new URL(site.url).host}/ws-json`);
    await page.goto(site.url);
    await connected(page);

    const search = await capture.call('catalog', 'search', { query: 'mug' });
    assert.equal(search.success, true);
    const data = search.data as { results: Array<{ name: string }>; total: number };
    assert.ok(data.results.length > 0 && data.results.every((p) => /mug/i.test(JSON.stringify(p))), `mugs found: ${JSON.stringify(data).slice(0, 200)}`);
    const list = await capture.call('notifications', 'list', { limit: 3 });
    assert.equal(list.success, true);

    // The clients are in the capture (the stand-in found them there), and none of their traffic left the page.
    assert.ok(capture.snapshot().clients.length >= 2);
    assert.deepEqual(site.requests.filter((p) => p.startsWith('/socket.io') || p.startsWith('/ws-json')), []);
    assert.deepEqual(site.upgrades, []);

    // Stopped: a new document's Socket.IO client goes to the network (which has nothing there).
    await sio.stop();
    await page.reload();
    await until(() => site.requests.some((p) => p.startsWith('/socket.io/?EIO=4')), 'the Socket.IO client asked the network again', 15_000, 50);
    const state = await page.evaluate(() => (window as unknown as { __demo: { state(): { clients: DemoClients } } }).__demo.state().clients);
    assert.equal(state.socket.connected, false, 'no runtime there');
    await page.waitForFunction(() => (window as unknown as { __demo: { state(): { clients: DemoClients } } }).__demo.state().clients.ws.connected, undefined, { timeout: 10_000 });
  });

  test('a served WebSocket behaves as the browser\'s own: the same script, the same trace', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (protocols) => [...protocols][0] ?? false });
    const seen: string[] = [];
    wss.on('connection', (_ws, req) => seen.push(req.url ?? ''));
    await new Promise((r) => wss.once('listening', r));
    const port = (wss.address() as { port: number }).port;
    try {
      await capture.serve(`127.0.0.1:${port}/virtual`);
      await page.goto(`${site.url}blank`);
      const trace = (url: string) => page.evaluate(`(${SOCKET_SCRIPT})(${JSON.stringify(url)})`) as Promise<unknown[]>;
      const real = await trace(`ws://127.0.0.1:${port}/real`);
      const served = await trace(`ws://127.0.0.1:${port}/virtual`);
      assert.deepEqual(served, real);
      // An Engine.IO v3 client is refused as a v4-only server refuses it: the socket closes 1002, a polling request gets 400 and code 5.
      const v3 = await page.evaluate(`new Promise((done) => {
        const ws = new WebSocket('ws://127.0.0.1:${port}/virtual/?EIO=3&transport=websocket');
        ws.onclose = (e) => {
          const x = new XMLHttpRequest();
          x.open('GET', 'http://127.0.0.1:${port}/virtual/?EIO=3&transport=polling&t=1');
          x.onload = () => done([e.code, x.status, x.responseText]);
          x.send();
        };
      })`);
      assert.deepEqual(v3, [1002, 400, '{"code":5,"message":"Unsupported protocol version"}']);

      // A page that has replaced the built-ins the server could use (after the hook took its own): still served.
      const sabotaged = await page.evaluate(`(async () => {
        const saved = [];
        const later = window.setTimeout;
        const breakIt = (obj, name) => { saved[saved.length] = [obj, name, obj[name]]; obj[name] = () => { throw new Error('sabotaged ' + name); }; };
        for (const n of ['slice', 'indexOf', 'charCodeAt', 'toLowerCase', 'trim', 'startsWith']) breakIt(String.prototype, n);
        for (const n of ['push', 'slice', 'filter', 'map']) breakIt(Array.prototype, n);
        for (const n of ['get', 'set', 'has', 'delete']) breakIt(Map.prototype, n);
        for (const n of ['get', 'set', 'has']) breakIt(WeakMap.prototype, n);
        breakIt(RegExp.prototype, 'exec');
        breakIt(RegExp.prototype, 'test');
        breakIt(JSON, 'parse');
        breakIt(JSON, 'stringify');
        breakIt(Array, 'isArray');
        breakIt(Storage.prototype, 'getItem');
        breakIt(Storage.prototype, 'setItem');
        breakIt(EventTarget.prototype, 'dispatchEvent');
        breakIt(window, 'setTimeout');
        breakIt(Reflect, 'apply');
        const got = [];
        let result;
        try {
          const ws = new WebSocket('ws://127.0.0.1:${port}/virtual/?EIO=4&transport=websocket');
          await new Promise((done, fail) => {
            later(() => fail(new Error('no answer after ' + got.length + ' messages')), 5000);
            ws.addEventListener('message', (e) => {
              got[got.length] = e.data;
              if (got.length === 1) ws.send('40/oui,');
              if (got.length === 2) ws.send('42/oui,7["action:result",{}]');
              if (got.length === 3) done();
            });
            ws.addEventListener('error', () => fail(new Error('error')));
          });
          result = got;
        } catch (e) {
          result = String(e);
        } finally {
          for (let i = saved.length - 1; i >= 0; i--) saved[i][0][saved[i][1]] = saved[i][2];
        }
        return result;
      })()`);
      assert.ok(Array.isArray(sabotaged), `served through the page's sabotage: ${String(sabotaged)}`);
      const [open, connect, ack] = sabotaged as string[];
      assert.match(open!, /^0\{"sid":"[^"]+","upgrades":\[\],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000\}$/);
      assert.match(connect!, /^40\/oui,\{"sid":"[^"]+"\}$/);
      assert.equal(ack, '43/oui,7[{"ok":true}]');
      assert.equal(JSON.stringify(real).includes('"open-listener"'), true, 'the script ran to the end on the real socket');
      // The real socket that closed before it opened may or may not have reached the server.
      assert.ok(seen.length >= 1 && seen.every((u) => u === '/real'), `the server saw the real sockets only: ${seen.join(' ')}`);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
    }
  });
});

/** Run in the page on a URL: what the app can see of a socket, step by step (a string: nothing of the test's transpiler goes into the page). */
const SOCKET_SCRIPT = `async (url) => {
  const trace = [];
  const ws = new WebSocket(url, ['oui.v1', 'other']);
  trace.push(['identity', ws instanceof WebSocket, ws.constructor === WebSocket, Object.prototype.toString.call(ws), Object.getPrototypeOf(Object.getPrototypeOf(ws)) === EventTarget.prototype || Object.getPrototypeOf(ws) === WebSocket.prototype]);
  trace.push(['initial', ws.readyState, ws.url === url, ws.protocol, ws.extensions, ws.bufferedAmount, ws.binaryType]);
  try { ws.send('too early'); trace.push(['send while connecting went']); } catch (e) { trace.push(['send while connecting', e.name]); }
  ws.binaryType = 'arraybuffer';
  ws.binaryType = 'bogus';
  trace.push(['binaryType', ws.binaryType]);
  ws.onopen = (e) => trace.push(['onopen', e.type, e.target === ws, this === undefined, ws.readyState, ws.protocol]);
  ws.addEventListener('open', (e) => trace.push(['open-listener', e.type, e instanceof Event]));
  await new Promise((r) => ws.addEventListener('open', r));
  trace.push(['handler kept', typeof ws.onopen]);
  ws.send('hello');
  trace.push(['sent', ws.bufferedAmount >= 0]);
  for (const [code, reason] of [[1001, ''], [999, ''], [1000, 'x'.repeat(124)]]) {
    try { ws.close(code, reason); trace.push(['close', code, 'went']); } catch (e) { trace.push(['close', code, e.name]); }
  }
  trace.push(['still', ws.readyState]);
  ws.onclose = (e) => trace.push(['onclose', e.code, e.reason, e.wasClean, ws.readyState, e instanceof CloseEvent]);
  ws.onerror = () => trace.push(['onerror']);
  ws.close(4000, 'bye');
  trace.push(['closing', ws.readyState]);
  ws.close(4001, 'again');
  ws.send('late');
  trace.push(['late send', ws.readyState, ws.bufferedAmount]);
  await new Promise((r) => ws.addEventListener('close', r));
  trace.push(['closed', ws.readyState]);
  const early = new WebSocket(url);
  const t2 = [];
  early.onopen = () => t2.push('open');
  early.onerror = (e) => t2.push('error ' + e.type);
  early.onclose = (e) => t2.push('close ' + e.code + ' ' + e.wasClean);
  early.close();
  t2.push('readyState ' + early.readyState);
  await new Promise((r) => early.addEventListener('close', r));
  trace.push(['closed before open', t2]);
  return trace;
}`;
