/**
 * One page's traffic, recorded three ways, linted to the same findings:
 *
 *   (a) the panel's Export (a session file), (b) the panel's HAR button, and
 *   (c) a HAR recorded by Chromium itself, with no extension involved: the
 *       page's Network events over CDP (requestWillBeSent, responseReceived,
 *       loadingFinished with getResponseBody / getRequestPostData for the
 *       long-polling bodies; webSocketCreated, webSocketFrameSent /
 *       Received for frames), written in the shape Chrome DevTools' "Save all
 *       as HAR" writes: `_webSocketMessages: [{type, time (epoch seconds),
 *       opcode, data}]`.
 *   (d) Playwright's own HAR recorder (`context.tracing.startHar`, what
 *       `recordHar` uses) on the same traffic. Playwright 1.65 writes
 *       `_webSocketMessages` too, but with `time` in epoch *milliseconds*
 *       (Chrome writes seconds): the reader takes either.
 *
 * The page is the demo shop with deliberately wrong clients
 * (`?broken=surface-id,result-id`, test/demo/app/main.ts): the notifications
 * client (plain WebSocket) registers an invalid surface id, and the shop
 * client (Socket.IO: long-polling, then the upgrade to WebSocket) answers the
 * agent under a requestId of its own. The built CLI (dist/cli/oui-devtools.js,
 * `lint --format json`) reads each recording.
 *
 * Compared: the findings of the clients a HAR can carry, Socket.IO and plain
 * WebSocket. The demo's postMessage pairing and direct-hook client are not
 * network traffic: a HAR Chromium records has no record of them (the panel's
 * HAR keeps them in `_ouiMessages` entries of its own), so their findings, if
 * any, are left out of the comparison, and said so below.
 *
 * OUI_TIMINGS=1 prints how long each phase took; OUI_KEEP_HAR=1 copies the four
 * recordings into test-results/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CDPSession, Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { demoUpgraded, SLOW_MS } from '../support/demo-page.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
/** The kinds of client a HAR recorded by the browser can hold. */
const HAR_KINDS = new Set(['socket.io', 'websocket']);

interface LintJson {
  files: Array<{
    kind: 'session' | 'har';
    events: number;
    clients: Array<{ key: string; kind: string; label: string }>;
    findings: Array<{ rule: string; severity: string; section: string; party: string; client: string; t: number; time: string; message: string }>;
    notes: string[];
  }>;
}
type LintedFile = LintJson['files'][number];

type Linted = { status: number | null; out: LintedFile; stderr: string };
const linted = new Map<string, Linted>();

/** `lint --format json` on every recording in one run (each run is a Node start), then each file's part. */
function lint(file: string): Linted {
  if (!linted.size) {
    const all = Object.values(files);
    const r = spawnSync(process.execPath, [CLI, 'lint', '--no-config', '--format', 'json', ...all], { encoding: 'utf8', maxBuffer: 1 << 26 });
    let out: LintJson;
    try {
      out = JSON.parse(r.stdout) as LintJson;
    } catch {
      assert.fail(`lint: exit ${r.status}, no JSON on stdout:\n${r.stdout}\n${r.stderr}`);
    }
    assert.equal(out.files.length, all.length, r.stderr);
    all.forEach((f, i) => linted.set(f, { status: r.status, out: out.files[i]!, stderr: r.stderr }));
  }
  const done = linted.get(file);
  assert.ok(done, file);
  return done;
}

/** The findings of the clients a HAR can carry, as comparable lines: rule, severity, section, party, client kind. */
function comparable(f: LintedFile): string[] {
  const kind = new Map(f.clients.map((c) => [c.key, c.kind]));
  return f.findings
    .filter((x) => HAR_KINDS.has(kind.get(x.client) ?? ''))
    .map((x) => `${x.rule} ${x.severity} ${x.section} ${x.party} ${kind.get(x.client)}`)
    .sort();
}

/**
 * What Chromium's Network domain reports of one page, written as Chrome DevTools writes a HAR (WebInspector
 * HARWriter): entries in start order, `startedDateTime` from the request's wall time, `time` in ms, WebSocket
 * entries with `_resourceType: "websocket"`, a 101 response and `_webSocketMessages` timed in epoch seconds.
 * Bodies of XHR/fetch exchanges are kept (long-polling); other resources keep their status only.
 */
class CdpHar {
  private readonly requests = new Map<string, { wallTime: number; ts: number; url: string; method: string; type: string; postData?: string; hasPostData?: boolean; status?: number; statusText?: string; mimeType?: string; end?: number; body?: Promise<{ text: string; base64: boolean } | null>; post?: Promise<string | undefined> }>();
  private readonly sockets = new Map<string, { url: string; wallTime?: number; status?: number; statusText?: string; messages: Array<{ type: 'send' | 'receive'; ts: number; opcode: number; data: string }> }>();
  /** Wall time minus monotonic time, seconds: from the latest event that carries both. */
  private offset = 0;

  constructor(private readonly cdp: CDPSession) {}

  async start(): Promise<void> {
    const c = this.cdp;
    c.on('Network.requestWillBeSent', (e) => {
      this.offset = e.wallTime - e.timestamp;
      this.requests.set(e.requestId, { wallTime: e.wallTime, ts: e.timestamp, url: e.request.url, method: e.request.method, type: e.type ?? 'Other', postData: e.request.postData, hasPostData: e.request.hasPostData });
    });
    c.on('Network.responseReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (r) Object.assign(r, { status: e.response.status, statusText: e.response.statusText, mimeType: e.response.mimeType });
    });
    c.on('Network.loadingFinished', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.end = e.timestamp;
      if (r.type !== 'XHR' && r.type !== 'Fetch') return;
      r.body = c.send('Network.getResponseBody', { requestId: e.requestId }).then((b) => ({ text: b.body, base64: b.base64Encoded }), () => null);
      if (r.hasPostData && r.postData === undefined) r.post = c.send('Network.getRequestPostData', { requestId: e.requestId }).then((p) => p.postData, () => undefined);
    });
    c.on('Network.webSocketCreated', (e) => this.sockets.set(e.requestId, { url: e.url, messages: [] }));
    c.on('Network.webSocketWillSendHandshakeRequest', (e) => {
      this.offset = e.wallTime - e.timestamp;
      const w = this.sockets.get(e.requestId);
      if (w) w.wallTime = e.wallTime;
    });
    c.on('Network.webSocketHandshakeResponseReceived', (e) => {
      const w = this.sockets.get(e.requestId);
      if (w) Object.assign(w, { status: e.response.status, statusText: e.response.statusText });
    });
    const frame = (type: 'send' | 'receive') => (e: { requestId: string; timestamp: number; response: { opcode: number; payloadData: string } }) =>
      this.sockets.get(e.requestId)?.messages.push({ type, ts: e.timestamp, opcode: e.response.opcode, data: e.response.payloadData });
    c.on('Network.webSocketFrameSent', frame('send'));
    c.on('Network.webSocketFrameReceived', frame('receive'));
    await c.send('Network.enable', { maxPostDataSize: 1 << 20 });
  }

  async write(path: string): Promise<void> {
    const iso = (sec: number) => new Date(sec * 1000).toISOString();
    const entries: Array<Record<string, unknown> & { startedDateTime: string }> = [];
    for (const r of this.requests.values()) {
      if (r.end === undefined) continue; // still pending: Chrome would show it without a response
      const body = (await r.body) ?? null;
      const post = r.postData ?? (await r.post);
      const text = body ? body.text : undefined;
      entries.push({
        startedDateTime: iso(r.wallTime),
        time: (r.end - r.ts) * 1000,
        request: { method: r.method, url: r.url, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: post?.length ?? 0, ...(post !== undefined ? { postData: { mimeType: 'text/plain;charset=UTF-8', text: post } } : {}) },
        response: { status: r.status ?? 0, statusText: r.statusText ?? '', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: text?.length ?? 0, mimeType: r.mimeType ?? 'x-unknown', ...(text !== undefined ? { text, ...(body!.base64 ? { encoding: 'base64' } : {}) } : {}) }, redirectURL: '', headersSize: -1, bodySize: -1 },
        cache: {},
        timings: { blocked: -1, dns: -1, ssl: -1, connect: -1, send: 0, wait: (r.end - r.ts) * 1000, receive: 0 },
        _resourceType: r.type.toLowerCase(),
      });
    }
    for (const w of this.sockets.values()) {
      const wall = w.wallTime ?? (w.messages[0] ? w.messages[0].ts + this.offset : Date.now() / 1000);
      entries.push({
        startedDateTime: iso(wall),
        time: w.messages.length ? (w.messages.at(-1)!.ts + this.offset - wall) * 1000 : 0,
        request: { method: 'GET', url: w.url, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
        response: { status: w.status ?? 101, statusText: w.statusText ?? 'Switching Protocols', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: 0, mimeType: 'x-unknown' }, redirectURL: '', headersSize: -1, bodySize: 0 },
        cache: {},
        timings: { blocked: -1, dns: -1, ssl: -1, connect: -1, send: 0, wait: 0, receive: 0 },
        _resourceType: 'websocket',
        _webSocketMessages: w.messages.map((m) => ({ type: m.type, time: m.ts + this.offset, opcode: m.opcode, data: m.data })),
      });
    }
    entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
    writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, pages: [], entries } }, null, 2));
  }
}

async function download(panel: Page, button: string, to: string): Promise<string> {
  // Export and HAR open the redaction preview first (docs/redaction.md): its Export redacted downloads.
  await panel.getByRole('button', { name: button, exact: true }).click();
  const [d] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('export-redacted').click()]);
  await d.saveAs(to);
  return to;
}

let demo: DemoServer;
let b: Browser;
let dir: string;
const files: Record<'session' | 'panelHar' | 'chromiumHar' | 'playwrightHar', string> = { session: '', panelHar: '', chromiumHar: '', playwrightHar: '' };
let started = 0;
let ended = 0;

describe('lint: the same traffic as a session file, the panel\'s HAR and Chromium\'s own HAR', () => {
  before(async () => {
    const t0 = Date.now();
    const mark = (what: string) => process.env.OUI_TIMINGS && console.log(`# ${what}: ${Date.now() - t0} ms`);
    // The CLI as built (npm run build), like the extension in dist/chrome.
    assert.ok(existsSync(CLI), `${CLI} is missing: npm run build`);
    dir = mkdtempSync(join(tmpdir(), 'oui-lint-har-'));
    demo = await startDemoServer();
    mark('demo');
    b = await launch({ rows: 'events' });
    mark('browser');
    started = Date.now();
    // (c) and (d): Chromium's own records of the network, from before the page loads.
    files.chromiumHar = join(dir, 'chromium.har');
    files.playwrightHar = join(dir, 'playwright.har');
    await b.context.tracing.startHar(files.playwrightHar, { content: 'embed', mode: 'full' });
    const app = await b.context.newPage();
    const cdpHar = new CdpHar(await b.context.newCDPSession(app));
    await cdpHar.start();
    await app.goto(`${demo.url}?broken=surface-id,result-id`);
    mark('page loaded');
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    mark('panel opened');
    const errors: string[] = [];
    panel.on('pageerror', (e) => errors.push(e.message));
    await panel.waitForFunction(() => document.querySelectorAll('.vlist [role=row]').length >= 3, undefined, { timeout: 20_000 });
    mark('panel rows');
    // Every client up, the Socket.IO one upgraded from long-polling to WebSocket.
    await demoUpgraded(app);
    mark('page and panel up');
    // The agent runtimes ask: the shop (Socket.IO over WebSocket) answers under another requestId, so the runtime
    // times out; the notifications client (plain WebSocket) answers properly under its invalid surface id.
    const search = await demo.runtime.request(await demo.runtime.waitForClient(), { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' }, timeoutMs: 800 });
    assert.equal(search.error?.code, 'TIMEOUT');
    // The ws-json runtime uses the id it was given, so its request is at fault too (an invalid surfaceId, Appendix A).
    const list = await demo.wsRuntime.request(await demo.wsRuntime.waitForClient(), { surfaceId: 'Notifications', actionId: 'list', params: {} });
    assert.equal(list.success, true, JSON.stringify(list));

    // Wait until the panel has it all: the last frame of each exchange, the shop's answer under its own id (`…:result`)
    // and the notifications' answer, shown (the runtimes' later traffic is only heartbeats).
    const filter = panel.locator('input[aria-label="Free-text filter"]');
    for (const requestId of [`${search.requestId}:result`, list.requestId]) {
      await filter.fill(requestId);
      await panel.locator('.vlist [role=row][data-type="action:result"]').first().waitFor({ timeout: SLOW_MS });
    }
    await filter.fill('');
    mark('traffic in the panel');
    await b.context.tracing.stopHar();
    await cdpHar.write(files.chromiumHar);
    ended = Date.now();
    // (a) and (b): the panel's two exports.
    files.session = await download(panel, 'Export', join(dir, 'panel-session.json'));
    files.panelHar = await download(panel, 'HAR', join(dir, 'panel.har'));
    mark('recorded');
    assert.deepEqual(errors, [], 'the panel threw nothing');
  });

  after(async () => {
    await b?.close();
    await demo?.close();
    if (process.env.OUI_KEEP_HAR) for (const f of Object.values(files)) if (f) copyFileSync(f, join(ROOT, 'test-results', f.split('/').at(-1)!));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('Chromium\'s HAR has the Socket.IO session over long-polling then WebSocket, and the plain WebSocket, with their messages', () => {
    const har = JSON.parse(readFileSync(files.chromiumHar, 'utf8')) as { log: { entries: Array<Record<string, any>> } };
    const entries = har.log.entries;
    const polling = entries.filter((e) => /\/socket\.io\/\?.*transport=polling/.test(e.request.url));
    const sockets = entries.filter((e) => e._resourceType === 'websocket');
    assert.ok(polling.some((e) => e.request.method === 'POST' && typeof e.request.postData?.text === 'string'), 'a polling POST with its body');
    assert.ok(polling.some((e) => e.request.method === 'GET' && typeof e.response.content?.text === 'string' && e.response.content.text.length > 0), 'a polling GET with its body');
    const sio = sockets.find((e) => /\/socket\.io\/\?.*transport=websocket/.test(e.request.url));
    const ws = sockets.find((e) => /\/ws-json$/.test(e.request.url));
    assert.ok(sio?._webSocketMessages?.some((m: { data: string }) => m.data.includes('action:request')), 'the Socket.IO request travelled over the upgraded WebSocket');
    assert.ok(ws?._webSocketMessages?.some((m: { data: string }) => m.data.includes('"surface:register"')), 'the plain WebSocket registration');
    // Nothing of the postMessage or direct clients: not network traffic.
    assert.ok(!entries.some((e) => '_ouiClient' in e));
  });

  test('the three recordings give the same findings for the clients a HAR can carry, and there are findings', () => {
    const session = lint(files.session);
    const panelHar = lint(files.panelHar);
    const chromium = lint(files.chromiumHar);
    for (const [name, r] of Object.entries({ session, panelHar, chromium })) {
      assert.equal(r.status, 1, `${name}: exit 1 (errors found)\n${r.stderr}`);
      assert.equal(r.stderr, '', name);
    }
    assert.equal(session.out.kind, 'session');
    assert.equal(panelHar.out.kind, 'har');
    assert.equal(chromium.out.kind, 'har');

    const expected = comparable(session.out);
    // The surface declared with a bad id is the client's one error; the runtime naming it back is no second one.
    assert.deepEqual(expected, [
      'result-unknown-request warning §7.3.3 client socket.io',
      'surface-id error §3.2 client websocket',
    ]);
    assert.deepEqual(comparable(panelHar.out), expected, 'the panel\'s HAR');
    assert.deepEqual(comparable(chromium.out), expected, 'Chromium\'s HAR');

    // The clients themselves: one Socket.IO session across its polling and WebSocket phases, one plain WebSocket.
    const kinds = (f: LintedFile) => f.clients.filter((c) => HAR_KINDS.has(c.kind)).map((c) => c.kind).sort();
    assert.deepEqual(kinds(session.out), ['socket.io', 'websocket']);
    assert.deepEqual(kinds(panelHar.out), ['socket.io', 'websocket']);
    assert.deepEqual(kinds(chromium.out), ['socket.io', 'websocket']);
    // What Chromium's HAR cannot hold: the session file and the panel's HAR do have the other two clients.
    assert.deepEqual(session.out.clients.map((c) => c.kind).filter((k) => !HAR_KINDS.has(k)).sort(), ['direct', 'postmessage']);
    assert.deepEqual(panelHar.out.clients.map((c) => c.kind).filter((k) => !HAR_KINDS.has(k)).sort(), ['direct', 'postmessage']);
  });

  test('each finding is placed at the time it happened, whichever recording it was read from', () => {
    for (const name of ['session', 'panelHar', 'chromiumHar'] as const) {
      const { out } = lint(files[name]);
      for (const f of out.findings) assert.ok(f.t >= started - 1_000 && f.t <= ended + 5_000, `${name}: ${f.rule} at ${f.time}, outside the run (${new Date(started).toISOString()} … ${new Date(ended).toISOString()})`);
    }
  });

  test('Playwright\'s recordHar of the same traffic gives the same findings, at their times', () => {
    const har = JSON.parse(readFileSync(files.playwrightHar, 'utf8')) as { log: { entries: Array<Record<string, any>> } };
    const ws = har.log.entries.find((e) => e._resourceType === 'websocket' && e._webSocketMessages?.length);
    assert.ok(ws, 'Playwright recorded WebSocket frames');
    assert.ok(ws._webSocketMessages[0].time > 1e12, 'in epoch milliseconds');
    const pw = lint(files.playwrightHar);
    assert.deepEqual(comparable(pw.out), comparable(lint(files.session).out));
    for (const f of pw.out.findings) assert.ok(f.t >= started - 1_000 && f.t <= ended + 5_000, `${f.rule} at ${f.time}`);
  });
});
