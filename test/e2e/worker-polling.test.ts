/**
 * Socket.IO's long-polling phase inside a dedicated worker: the polling tap
 * runs in the worker hook too (XMLHttpRequest there, and fetch, which
 * Chromium's workers hold on WorkerGlobalScope.prototype). A real Socket.IO
 * server, its own client bundle loaded in the worker, polling only: the
 * worker's surface registration and the server's request reach the panel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { Server } from 'socket.io';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';

const CLIENT_BUNDLE = readFileSync(new URL('../../node_modules/socket.io-client/dist/socket.io.min.js', import.meta.url), 'utf8');

const WORKER = `importScripts('/socket.io.js');
const socket = io(self.location.origin, { transports: ['polling'] });
socket.on('connect', () => socket.emit('surface:register', { surface: { id: 'in-worker', name: 'W', description: 'd', actions: [{ id: 'go', description: 'd', input: { type: 'object' } }] }, timestamp: Date.now() }));
socket.on('action:request', (r) => { socket.emit('action:result', { requestId: r.requestId, success: true, data: { from: 'worker' }, timestamp: Date.now() }); postMessage('answered'); });
// fetch: an Engine.IO session of its own, by hand, which the tap records too.
(async () => {
  const at = (sid) => '/socket.io/?EIO=4&transport=polling' + (sid ? '&sid=' + sid : '') + '&t=' + Math.random();
  const open = JSON.parse((await (await fetch(at())).text()).slice(1));
  await fetch(at(open.sid), { method: 'POST', body: '40' });
  await (await fetch(at(open.sid))).text();
  const reg = { surface: { id: 'by-fetch', name: 'F', description: 'd', actions: [] }, timestamp: Date.now() };
  await fetch(at(open.sid), { method: 'POST', body: '42' + JSON.stringify(['surface:register', reg]) });
  postMessage('fetched');
})();`;

const PAGE = `<!doctype html><title>page</title><script>
  window.seen = [];
  const w = new Worker('/worker.js');
  w.onmessage = (e) => { window.seen.push(e.data); };
</script>`;

describe('Socket.IO polling in a worker', () => {
  let server: http.Server;
  let url: string;
  let b: Browser;
  before(async () => {
    server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const body = path === '/' ? PAGE : path === '/worker.js' ? WORKER : path === '/socket.io.js' ? CLIENT_BUNDLE : undefined;
      if (body === undefined) return; // socket.io answers its own path
      res.writeHead(200, { 'content-type': path === '/' ? 'text/html' : 'text/javascript', 'cache-control': 'no-store' }).end(body);
    });
    const io = new Server(server, { serveClient: false, transports: ['polling'] });
    io.on('connection', (s) => {
      s.on('surface:register', () => s.emit('action:request', { requestId: 'req-worker-0000-4000-8000-000000000001', surfaceId: 'in-worker', actionId: 'go', params: {}, timestamp: Date.now() }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await new Promise((r) => server?.close(r));
  });

  test("the worker's polling exchange reaches the panel, both ways", async () => {
    const app = await b.context.newPage();
    await app.goto(url);
    await app.waitForFunction(() => (window as unknown as { seen: string[] }).seen.includes('answered') && (window as unknown as { seen: string[] }).seen.includes('fetched'));
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    for (const type of ['surface:register', 'action:request', 'action:result']) {
      await panel.waitForFunction((t) => [...document.querySelectorAll('.vlist [role=row]')].some((r) => r.getAttribute('data-type') === t && r.getAttribute('data-client-kind') === 'socket.io'), type, { timeout: 20_000 });
    }
    const result = panel.locator('.vlist [role=row][data-type="action:result"]').first();
    assert.match(await result.innerText(), /in-worker|go|succeeded|success/);
    // The session the worker ran by fetch is its own client, with its own registration.
    await panel.waitForFunction(() => [...document.querySelectorAll('select[aria-label="Filter by client"] option')].some((o) => /surface by-fetch/.test(o.textContent ?? '')), undefined, { timeout: 20_000 });
  });
});
