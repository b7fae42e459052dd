/**
 * WebSockets in the workers a page starts, in real Chromium with a real
 * server: a classic worker (relative WebSocket, importScripts, fetch and XHR
 * URLs, a worker it starts itself), a module worker (a relative import), a
 * blob: worker whose URL the page revokes at once, a SharedWorker, scripts
 * that fail to load, and pages whose CSP forbids blob: workers (in a header,
 * in a meta tag).
 *
 * Side by side with and without the extension, every worker does the same:
 * the same messages to the page in the same order, the same `location`, the
 * same answers to relative URLs, the same fingerprint of what the hook wraps
 * (names, lengths, source text, descriptors). The OUI exchanges of the
 * captured workers reach the panel; the coverage view lists every worker,
 * captured or not and why; a page whose CSP forbids blob: workers keeps its
 * workers as they were.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { fill, firefoxTabId, launchFirefox, openFirefoxPanel, waitIn, type Firefox } from '../support/firefox.ts';
import puppeteer, { type Page as FirefoxPage } from 'puppeteer-core';
import { findBrowser } from '../../scripts/browsers.ts';
import { until } from '../support/wait.ts';

/** A plain-JSON OUI client: registers one surface, answers its one action. Defined in each worker's own script. */
const OUI_CLIENT = `function ouiClient(ws, tag, say) {
  ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: tag + '-surface', name: tag, description: 'a worker', actions: [{ id: 'ping_' + tag, description: 'ping', input: { type: 'object' } }] }, timestamp: Date.now() } }));
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type !== 'action:request') return;
    ws.send(JSON.stringify({ type: 'action:result', payload: { requestId: m.payload.requestId, success: true, data: { tag }, timestamp: Date.now() } }));
    say('answered');
  };
}`;

/** What a page or worker can see of the functions the hooks wrap: the same with and without the extension. */
const FINGERPRINT = `function fingerprint() {
  const fn = (f) => (typeof f === 'function' ? [f.name, f.length, Function.prototype.toString.call(f), typeof f.prototype].join('|') : typeof f);
  const d = (o, k) => { const x = o && Object.getOwnPropertyDescriptor(o, k); return x ? [typeof x.value, typeof x.get, x.writable, x.enumerable, x.configurable].join() : 'none'; };
  const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.name + ': ' + e.message; } };
  const g = self;
  const loc = typeof WorkerLocation === 'function' ? WorkerLocation.prototype : Location.prototype;
  const hrefGetter = Object.getOwnPropertyDescriptor(loc, 'href');
  return [
    fn(g.Worker), fn(g.SharedWorker), fn(URL.revokeObjectURL), fn(g.importScripts), fn(g.fetch), fn(g.WebSocket), fn(g.Request), fn(g.EventSource),
    fn(XMLHttpRequest.prototype.open), fn(Function.prototype.toString), fn(hrefGetter && hrefGetter.get), fn(loc.toString),
    d(g, 'Worker'), d(g, 'SharedWorker'), d(URL, 'revokeObjectURL'), d(g, 'fetch'), d(g, 'WebSocket'), d(g, 'importScripts'), d(loc, 'href'), d(loc, 'pathname'), d(loc, 'toString'),
    g.Worker ? [Worker.prototype.constructor === Worker, Worker.length, Worker.name].join() : '',
    Object.prototype.toString.call(g.location), String(g.location) === g.location.href,
    attempt(() => new WebSocket()), attempt(() => new WebSocket('ftp://x')), attempt(() => g.Worker && new Worker()), attempt(() => g.Worker && Worker('x')),
    attempt(() => g.importScripts && importScripts('http://[')),
    Object.getOwnPropertyNames(g).filter((k) => k !== '__OUI_DEVTOOLS_HOOK__').sort().join(','),
  ].join('\\n');
}`;

const say = `let n = 0; const say = (m) => postMessage({ n: ++n, m });`;
const short = `const short = (u) => String(u).split(location.origin).join('');`;

const FILES: Record<string, { type: string; body: string }> = {
  '/workers/lib.js': { type: 'text/javascript', body: `self.libValue = 'lib-ok';\n${OUI_CLIENT}\nself.ouiClient = ouiClient;` },
  '/workers/data.json': { type: 'application/json', body: '{"v":42}' },
  '/workers/classic.js': {
    type: 'text/javascript',
    body: `${say}\n${short}\n${FINGERPRINT}
      const tag = new URLSearchParams(location.search).get('tag');
      self.onmessage = (e) => say('page said ' + e.data);
      say('location ' + short(location.href));
      say('string ' + short(location) + ' ' + location.pathname + location.search + ' ' + location.protocol + ' ' + location.host.length);
      say('name ' + self.name);
      say('resolved ' + short(new URL('x', location).href));
      importScripts('lib.js');
      say('lib ' + self.libValue);
      say('fingerprint ' + fingerprint());
      fetch('data.json').then((r) => r.json()).then((d) => say('fetch ' + d.v), (e) => say('fetch failed ' + e.name));
      const x = new XMLHttpRequest();
      x.open('GET', 'data.json');
      x.onload = () => say('xhr ' + JSON.parse(x.responseText).v + ' ' + short(x.responseURL));
      x.send();
      say('request ' + short(new Request('data.json').url));
      const ws = new WebSocket('../ws?from=' + tag);
      say('ws url ' + short(ws.url));
      ouiClient(ws, tag, say);
      const nested = new Worker('nested.js?tag=' + tag + '-nested');
      nested.onmessage = (e) => say('nested ' + e.data.m);`,
  },
  '/workers/nested.js': {
    type: 'text/javascript',
    body: `${say}\n${short}\n${OUI_CLIENT}
      const tag = new URLSearchParams(location.search).get('tag');
      say('location ' + short(location.href));
      fetch('data.json').then((r) => r.json()).then((d) => say('fetch ' + d.v), (e) => say('fetch failed ' + e.name));
      ouiClient(new WebSocket('../ws?from=' + tag), tag, say);`,
  },
  // Served as text/plain: Chromium runs it as a classic worker's script anyway (its importScripts would not); Firefox does not.
  '/workers/plain.js': {
    type: 'text/plain',
    body: `${say}\n${short}\n${OUI_CLIENT}
      say('location ' + short(location.href));
      ouiClient(new WebSocket('../ws?from=plain'), 'plain', say);`,
  },
  '/workers/dep.js': { type: 'text/javascript', body: `export const dep = 'dep-ok';\nexport ${OUI_CLIENT}` },
  '/workers/module.js': {
    type: 'text/javascript',
    body: `import { dep, ouiClient } from './dep.js';
      ${say}\n${short}\n${FINGERPRINT}
      const tag = new URL(import.meta.url).searchParams.get('tag');
      self.onmessage = (e) => say('page said ' + e.data);
      say('meta ' + short(import.meta.url));
      say('location ' + short(location.href));
      say('dep ' + dep);
      say('name ' + self.name);
      say('fingerprint ' + fingerprint());
      fetch('data.json').then((r) => r.json()).then((d) => say('fetch ' + d.v), (e) => say('fetch failed ' + e.name));
      ouiClient(new WebSocket('../ws?from=' + tag), tag, say);`,
  },
  '/workers/shared.js': {
    type: 'text/javascript',
    body: `${OUI_CLIENT}\n${short}
      onconnect = (c) => {
        const port = c.ports[0];
        let n = 0;
        const say = (m) => port.postMessage({ n: ++n, m });
        say('location ' + short(location.href));
        port.onmessage = (e) => ouiClient(new WebSocket(e.data.ws + '?from=shared'), 'shared', say);
      };`,
  },
};

/** The blob: worker's own script: it is told its URL and the server's by the page. */
const BLOB_CODE = `${say}\n${OUI_CLIENT}\n${FINGERPRINT}
  self.onmessage = (e) => {
    say('location is its url ' + (self.location.href === e.data.url) + ' ' + String(self.location === self.location));
    say('origin ' + (self.location.origin === e.data.origin) + ' ' + self.location.protocol + ' ' + self.location.host.length);
    say('fingerprint ' + fingerprint());
    try { new WebSocket('/ws'); say('relative ws opened'); } catch (err) { say('relative ws ' + err.name); }
    fetch('data.json').then(() => say('relative fetch ok'), (err) => say('relative fetch ' + err.name));
    ouiClient(new WebSocket(e.data.ws + '?from=' + e.data.tag), e.data.tag, say);
  };`;

/** The page: one of each worker. `tag` names its classic worker (and so its surface and action). */
const page = (tag: string, meta = '') => `<!doctype html><title>workers</title>${meta}<script>
  ${FINGERPRINT}
  const WS = location.origin.replace('http', 'ws') + '/ws';
  window.results = {};
  window.errors = [];
  window.pageFingerprint = fingerprint();
  const log = (k) => (e) => (results[k] = results[k] || []).push(e.data);
  const c = new Worker('workers/classic.js?tag=${tag}', { name: 'classic-name' });
  c.onmessage = log('${tag}');
  c.postMessage('first');
  c.postMessage('second');
  const m = new Worker(new URL('workers/module.js?tag=module-${tag}', location.href), { type: 'module', name: 'module-name' });
  m.onmessage = log('module');
  m.postMessage('first');
  const code = ${JSON.stringify(BLOB_CODE)};
  const blobWorker = (tag, type) => {
    const url = URL.createObjectURL(type === undefined ? new Blob([code]) : new Blob([code], { type }));
    const w = new Worker(url);
    URL.revokeObjectURL(url);
    w.onmessage = log(tag);
    w.onerror = (e) => errors.push(tag + ' ' + e.type);
    w.postMessage({ url, ws: WS, origin: location.origin, tag });
  };
  blobWorker('blob', 'text/javascript');
  // Untyped: a blob: worker's script runs whatever its type (Firefox's importScripts would not take it).
  blobWorker('blob-untyped');
  const p = new Worker('workers/plain.js');
  p.onmessage = log('plain');
  p.onerror = (e) => errors.push('plain ' + e.type);
  const s = new SharedWorker('workers/shared.js');
  s.port.onmessage = log('shared');
  s.port.postMessage({ ws: WS });
  new Worker('workers/missing.js').onerror = (e) => errors.push('missing-classic ' + e.type);
  new Worker('workers/missing.mjs', { type: 'module' }).onerror = (e) => errors.push('missing-module ' + e.type);
</script>`;

interface Server {
  url: string;
  /** Worker tags whose action:result the server received. */
  answered: Set<string>;
  close(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const pages: Record<string, { type: string; body: string; csp?: string }> = {
    '/': { type: 'text/html', body: page('classic') },
    '/csp-header': { type: 'text/html', body: page('header'), csp: "worker-src 'self'" },
    '/csp-meta': { type: 'text/html', body: page('meta', `<meta http-equiv="Content-Security-Policy" content="worker-src 'self'">`) },
    ...FILES,
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const p = pages[path];
    if (!p) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': p.type, 'cache-control': 'no-store', ...(p.csp ? { 'content-security-policy': p.csp } : {}) }).end(p.body);
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  const answered = new Set<string>();
  let n = 0;
  wss.on('connection', (ws, req) => {
    const from = new URL(req.url ?? '/', 'http://x').searchParams.get('from') ?? '?';
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string; payload: { requestId?: string } };
      if (m.type === 'surface:register') {
        const requestId = `req-${++n}-0000-4000-8000-000000000001`;
        ws.send(JSON.stringify({ type: 'action:request', payload: { requestId, surfaceId: `${from}-surface`, actionId: `ping_${from}`, params: {}, timestamp: Date.now() } }));
      } else if (m.type === 'action:result') answered.add(from);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type Said = { n: number; m: string };
interface Outcome {
  results: Record<string, Said[]>;
  errors: string[];
  pageFingerprint: string;
}

/** Everything the page's workers said, once each has answered its action and said what it says. */
async function runPage(b: Browser, url: string, tag: string): Promise<{ app: Page; outcome: Outcome }> {
  const app = await b.context.newPage();
  await app.goto(url);
  await app.waitForFunction(finished(tag), undefined, { timeout: 20_000 });
  const outcome = await app.evaluate(() => {
    const w = window as unknown as Outcome;
    return { results: w.results, errors: w.errors, pageFingerprint: w.pageFingerprint };
  });
  return { app, outcome };
}

/** The condition runPage waits for, as text (nothing of the test's build goes into the page): every worker answered its action (and said what it says) or failed. */
const finished = (tag: string) => `(() => {
  const r = window.results;
  const said = (k, m) => (r[k] || []).some((x) => x.m.startsWith(m));
  const failed = (k) => window.errors.some((e) => e.startsWith(k + ' '));
  const tag = ${JSON.stringify(tag)};
  return said(tag, 'answered') && said(tag, 'fetch') && said(tag, 'xhr') && said(tag, 'nested answered') && said(tag, 'nested fetch') &&
    said('module', 'answered') && said('module', 'fetch') &&
    ['blob', 'blob-untyped'].every((k) => (said(k, 'answered') && said(k, 'relative fetch')) || failed(k)) &&
    (said('plain', 'answered') || failed('plain')) &&
    said('shared', 'answered') && failed('missing-classic') && failed('missing-module');
})()`;

/** What a worker said, in the order it arrived, with its sequence numbers checked: 1, 2, 3… (nothing lost, nothing reordered). */
function inOrder(list: Said[], who: string): string[] {
  assert.deepEqual(
    list.map((s) => s.n),
    list.map((_, i) => i + 1),
    `${who}: its messages arrive in the order it sent them`,
  );
  return list.map((s) => s.m);
}

/** The same messages (async ones may interleave differently from run to run). */
const sameMessages = (a: string[], b: string[], who: string) => assert.deepEqual([...a].sort(), [...b].sort(), `${who} says the same with the hook as without`);

interface Row {
  type: string;
  kind: string;
  text: string;
}

async function timelineRows(panel: Page, filter: string): Promise<Row[]> {
  const input = panel.locator('input[aria-label="Free-text filter"]');
  if (!(await input.count())) await panel.getByRole('tab', { name: 'Timeline' }).click();
  await input.fill(filter);
  return panel.locator('.vlist [role=row]').evaluateAll((els) =>
    els.map((el) => ({ type: el.getAttribute('data-type') ?? '', kind: el.getAttribute('data-client-kind') ?? '', text: (el as HTMLElement).innerText })),
  );
}

async function waitRows(panel: Page, filter: string, what: string, ok: (rows: Row[]) => boolean): Promise<void> {
  let last: Row[] = [];
  try {
    await until(async () => ok((last = await timelineRows(panel, filter))), what, 20_000, 150);
  } catch {
    assert.fail(`${what}: never shown. Rows for "${filter}":\n${last.map((r) => `${r.kind} ${r.type} ${r.text}`).join('\n')}`);
  }
}

const exchange = (action: string) => (rows: Row[]) =>
  rows.some((r) => r.kind === 'websocket' && r.type === 'action:request' && r.text.includes(action)) && rows.some((r) => r.kind === 'websocket' && r.type === 'action:result');

interface CoverageRow {
  kind: string | null;
  status: string | null;
  text: string;
}

async function workerRows(panel: Page, count: number): Promise<CoverageRow[]> {
  await panel.getByRole('tab', { name: 'Coverage' }).click();
  await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=coverage-view] tbody tr[data-kind=worker]').length >= n, count, { timeout: 15_000 });
  return panel.locator('[data-testid=coverage-view] tbody tr[data-kind=worker]').evaluateAll((trs) =>
    trs.map((tr) => ({ kind: tr.getAttribute('data-kind'), status: tr.getAttribute('data-status'), text: (tr as HTMLElement).innerText })),
  );
}

/** The coverage row of the worker whose URL contains `url`. */
function rowOf(rows: CoverageRow[], url: string): CoverageRow {
  const row = rows.find((r) => r.text.includes(url));
  assert.ok(row, `a coverage row for ${url}: ${rows.map((r) => r.text).join(' | ')}`);
  return row;
}

describe('WebSockets in workers', () => {
  let server: Server;
  let withExt: Browser;
  let without: Browser;
  before(async () => {
    server = await startServer();
    [withExt, without] = await Promise.all([launch({ rows: 'events' }), launch({ extension: false })]);
  });
  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    await server?.close();
  });

  test('every worker does the same with the hook as without: messages and their order, location, relative URLs, errors, fingerprint', async () => {
    const [hooked, plain] = await Promise.all([runPage(withExt, server.url, 'classic'), runPage(without, server.url, 'classic')]);
    const a = hooked.outcome;
    const b = plain.outcome;
    assert.equal(a.pageFingerprint, b.pageFingerprint, "the page's Worker, SharedWorker and URL.revokeObjectURL look the browser's own");
    for (const who of ['classic', 'module', 'blob', 'blob-untyped', 'plain', 'shared']) sameMessages(inOrder(a.results[who]!, who), inOrder(b.results[who]!, who), who);
    const classic = inOrder(a.results.classic!, 'classic');
    assert.ok(classic.includes('location /workers/classic.js?tag=classic'), 'self.location is its own URL');
    assert.ok(classic.includes('string /workers/classic.js?tag=classic /workers/classic.js?tag=classic http: 15'));
    assert.ok(classic.includes('resolved /workers/x'));
    assert.ok(classic.includes('lib lib-ok'), 'importScripts of a relative URL');
    assert.ok(classic.includes('fetch 42') && classic.includes('xhr 42 /workers/data.json') && classic.includes('request /workers/data.json'));
    assert.ok(classic.includes('ws url ws://127.0.0.1:' + new URL(server.url).port + '/ws?from=classic'), 'a relative WebSocket URL');
    assert.ok(classic.includes('nested location /workers/nested.js?tag=classic-nested') && classic.includes('nested fetch 42'), 'the worker it starts, from a relative URL');
    assert.deepEqual(
      classic.filter((m) => m.startsWith('page said')),
      ['page said first', 'page said second'],
      "the worker's own listener gets the page's messages, in order, and nothing else",
    );
    const module = inOrder(a.results.module!, 'module');
    assert.ok(module.includes('meta /workers/module.js?tag=module-classic') && module.includes('location /workers/module.js?tag=module-classic'));
    assert.ok(module.includes('dep dep-ok') && module.includes('name module-name') && module.includes('page said first'));
    const blob = inOrder(a.results.blob!, 'blob');
    assert.ok(blob.includes('location is its url true true'), "a blob: worker's location is the URL the page made (which it revoked at once)");
    assert.ok(blob.includes('relative ws SyntaxError') && blob.includes('relative fetch TypeError'), 'relative URLs fail in a blob: worker, as without the hook');
    assert.ok(inOrder(a.results['blob-untyped']!, 'blob-untyped').includes('location is its url true true'), 'an untyped blob: script runs');
    assert.deepEqual(inOrder(a.results.plain!, 'plain'), ['location /workers/plain.js', 'answered'], 'a classic script served as text/plain runs, as Chromium runs it');
    assert.deepEqual([...a.errors].sort(), [...b.errors].sort(), 'scripts that fail to load give their Worker an error event');
    assert.deepEqual([...a.errors].sort(), ['missing-classic error', 'missing-module error']);
    for (const tag of ['classic', 'classic-nested', 'module-classic', 'blob', 'blob-untyped', 'plain', 'shared']) assert.ok(server.answered.has(tag), `the server got ${tag}'s answer`);
    await Promise.all([hooked.app.close(), plain.app.close()]);
  });

  test('the OUI exchanges of the captured workers reach the panel; the coverage view lists every worker, captured or not and why', async () => {
    const { app } = await runPage(withExt, server.url, 'classic');
    const panel = await openPanelPage(withExt, await tabIdOf(withExt, app));
    await waitRows(panel, 'ping_classic-nested', 'the nested worker\'s request and result', exchange('ping_classic-nested'));
    await waitRows(panel, 'ping_classic', 'the classic worker\'s request and result', exchange('classic-surface'));
    await waitRows(panel, 'ping_module-classic', 'the module worker\'s request and result', exchange('ping_module-classic'));
    await waitRows(panel, 'ping_blob', 'the blob: worker\'s request and result', exchange('ping_blob'));
    await waitRows(panel, 'ping_blob-untyped', 'the untyped blob: worker\'s request and result', exchange('ping_blob-untyped'));
    await waitRows(panel, 'ping_plain', 'the text/plain worker\'s request and result', exchange('ping_plain'));
    await waitRows(panel, 'surface:register', 'the registrations', (rows) =>
      ['classic-surface', 'classic-nested-surface', 'module-classic-surface', 'blob-surface', 'blob-untyped-surface', 'plain-surface'].every((s) => rows.some((r) => r.text.includes(s))),
    );
    // Everything captured has been delivered by now (the replay came in one batch): the SharedWorker's exchange is not among it.
    assert.deepEqual(await timelineRows(panel, 'ping_shared'), [], "the SharedWorker's traffic is not captured");

    // A replay of the nested worker's request goes down the lines (page hook → its worker's hook → that worker's) to its socket; the answer is paired.
    await timelineRows(panel, 'ping_classic-nested');
    await panel.locator('.vlist [role=row][data-type="action:request"]').first().click();
    await panel.getByRole('button', { name: 'Replay', exact: true }).click();
    await panel.getByRole('tab', { name: 'Inject' }).click();
    await panel.waitForFunction(() => document.querySelector('[data-testid=inject-history] tbody tr [data-testid=inject-answer]')?.textContent === 'success', undefined, { timeout: 15_000 });
    await app.waitForFunction(`window.results.classic.filter((x) => x.m === 'nested answered').length === 2`, undefined, { timeout: 10_000 });

    const rows = await workerRows(panel, 9);
    assert.equal(rows.length, 9, rows.map((r) => r.text).join(' | '));
    for (const url of ['/workers/classic.js?tag=classic', '/workers/nested.js?tag=classic-nested', '/workers/module.js?tag=module-classic', 'blob:', '/workers/plain.js']) {
      assert.equal(rowOf(rows, url).status, 'captured', `${url} is captured: ${rowOf(rows, url).text}`);
    }
    assert.equal(rows.filter((r) => r.text.includes('blob:') && r.status === 'captured').length, 2, 'both blob: workers');
    assert.match(rowOf(rows, '/workers/plain.js').text, /its script's MIME type is not JavaScript, which importScripts refuses: it runs from a copy/);
    const shared = rowOf(rows, '/workers/shared.js');
    assert.equal(shared.status, 'missing');
    assert.match(shared.text, /SharedWorker \(classic\): a SharedWorker is found by its URL and name by every document that starts it/);
    const failed = rowOf(rows, '/workers/missing.mjs');
    assert.equal(failed.status, 'missing');
    assert.match(failed.text, /Worker \(module\): it failed before its hook started/);
    await Promise.all([panel.close(), app.close()]);
  });

  for (const [path, tag, reason] of [
    ['/csp-header', 'header', /the page has a Content-Security-Policy header, which no page script can read/],
    ['/csp-meta', 'meta', /the page's CSP does not allow blob: workers \(worker-src 'self'\)/],
  ] as const) {
    test(`a page whose CSP forbids blob: workers (${tag}) keeps its workers as they were, each said not captured and why`, async () => {
      const [hooked, plain] = await Promise.all([runPage(withExt, server.url + path, tag), runPage(without, server.url + path, tag)]);
      for (const who of [tag, 'module', 'plain', 'shared']) sameMessages(inOrder(hooked.outcome.results[who]!, who), inOrder(plain.outcome.results[who]!, who), who);
      assert.equal(hooked.outcome.results.blob, undefined, 'the CSP refuses the blob: worker the page makes itself, as without the hook');
      assert.deepEqual([...hooked.outcome.errors].sort(), ['blob error', 'blob-untyped error', 'missing-classic error', 'missing-module error']);
      assert.deepEqual([...hooked.outcome.errors].sort(), [...plain.outcome.errors].sort());
      assert.ok(server.answered.has(tag) && server.answered.has(`${tag}-nested`), 'its worker and the one that worker started still speak to the server');
      const panel = await openPanelPage(withExt, await tabIdOf(withExt, hooked.app));
      const rows = await workerRows(panel, 8);
      for (const url of [`/workers/classic.js?tag=${tag}`, `/workers/module.js?tag=module-${tag}`, 'blob:', '/workers/plain.js', '/workers/missing.js', '/workers/missing.mjs']) {
        const row = rowOf(rows, url);
        assert.equal(row.status, 'missing', `${url}: ${row.text}`);
        assert.match(row.text, reason);
      }
      assert.equal(rowOf(rows, '/workers/shared.js').status, 'missing');
      assert.deepEqual(await timelineRows(panel, `ping_${tag}`), [], 'nothing of its workers is captured');
      await Promise.all([panel.close(), hooked.app.close(), plain.app.close()]);
    });
  }
});

/**
 * Firefox (firefox-esr, the extension from dist/firefox): the same page with
 * and without the extension; its workers do the same, and what its captured
 * workers exchange reaches the panel.
 */
describe('WebSockets in workers, in Firefox', () => {
  let server: Server;
  let ff: Firefox;
  let plain: import('puppeteer-core').Browser;
  before(async () => {
    server = await startServer();
    ff = await launchFirefox();
    plain = await puppeteer.launch({ browser: 'firefox', executablePath: findBrowser('firefox'), headless: true });
  });
  after(async () => {
    await ff?.close();
    await plain?.close().catch(() => {});
    await server?.close();
  });

  async function run(page: FirefoxPage, url: string, tag = 'classic'): Promise<Outcome> {
    await page.goto(url);
    await waitIn(page, 'every worker done', (cond) => (0, eval)(cond) as boolean, finished(tag), 30_000).catch(async (e) => {
      // Which side stalled and where: each worker's messages and the page's errors so far.
      const seen = await page.evaluate(() => JSON.stringify({ results: (window as unknown as Outcome).results, errors: (window as unknown as Outcome).errors })).catch(() => 'unreadable');
      throw new Error(`${(e as Error).message} (${page.browser() === plain ? 'without' : 'with'} the extension): ${seen.slice(0, 4000)}`);
    });
    return page.evaluate(() => {
      const w = window as unknown as Outcome;
      return { results: w.results, errors: w.errors, pageFingerprint: w.pageFingerprint };
    });
  }

  test('every worker does the same with the hook as without, and the captured ones reach the panel', async () => {
    const app = await ff.browser.newPage();
    const other = await plain.newPage();
    const [a, b] = await Promise.all([run(app, server.url), run(other, server.url)]);
    assert.equal(a.pageFingerprint, b.pageFingerprint);
    for (const who of ['classic', 'module', 'blob', 'blob-untyped', 'shared']) sameMessages(inOrder(a.results[who]!, who), inOrder(b.results[who]!, who), who);
    assert.equal(a.results.plain, undefined, 'Firefox does not run a worker script served as text/plain, with the hook or without');
    const classic = a.results.classic!.map((x) => x.m);
    assert.ok(classic.includes('location /workers/classic.js?tag=classic') && classic.includes('lib lib-ok') && classic.includes('fetch 42'));
    assert.deepEqual([...a.errors].sort(), [...b.errors].sort());
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, app), { rows: 'events' });
    for (const action of ['ping_classic-nested', 'ping_module-classic', 'ping_blob', 'ping_blob-untyped']) {
      await fill(panel, 'input[aria-label="Free-text filter"]', action);
      await waitIn(panel, `${action} in the panel`, (a) => {
        const rows = [...document.querySelectorAll('.vlist [role=row]')];
        return rows.some((r) => r.getAttribute('data-type') === 'action:request' && (r as HTMLElement).innerText.includes(a)) && rows.some((r) => r.getAttribute('data-type') === 'action:result');
      }, action, 20_000);
    }
  });

  test('a page whose CSP forbids blob: workers keeps its workers as they were (header, meta)', async () => {
    for (const [path, tag] of [['/csp-header', 'header'], ['/csp-meta', 'meta']] as const) {
      const app = await ff.browser.newPage();
      const other = await plain.newPage();
      const [a, b] = await Promise.all([run(app, server.url + path, tag), run(other, server.url + path, tag)]);
      for (const who of [tag, 'module', 'shared']) sameMessages(inOrder(a.results[who]!, who), inOrder(b.results[who]!, who), `${path} ${who}`);
      assert.deepEqual([...a.errors].sort(), [...b.errors].sort());
      assert.ok(a.results[tag]!.some((x) => x.m === 'nested answered'));
      await Promise.all([app.close(), other.close()]);
    }
  });
});
