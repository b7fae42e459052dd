/**
 * Never silent, in real Chromium with the built extension (and, for frames
 * and the direct hook, in real Firefox):
 * (a) a 50 MB WebSocket frame (text and binary, each way), postMessage and
 *     direct call is a Timeline row that says it is over the capture cap,
 *     with its size and head, and the status line counts them;
 * (b) a panel opened late on a page that sent over 100 MB, whose buffer's
 *     replay is past Chrome's 64 MiB message limit, says exactly how many
 *     items and how many bytes the page's buffer dropped;
 * (c) clients in about:blank, srcdoc and document.open()ed frames carry
 *     their creator's origin and a frame URL that says what they are;
 * (d) attach() of the direct hook on a Proxy, getters, a revoked Proxy, a
 *     frozen object and a throwing getter neither throws nor runs a getter
 *     more often than the app does, captures what it can, and says what it
 *     could not attach.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CDPSession, Page } from 'playwright-core';
import type { Page as FirefoxPage } from 'puppeteer-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { firefoxTabId, launchFirefox, openFirefoxPanel, waitIn, type Firefox } from '../support/firefox.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { MAX_BYTES, MAX_ITEMS } from '../../content/capture-buffer.ts';
import { HEAD } from '../../content/payloads.ts';
import { sizeText } from '../../src/session/wire/capped.ts';

const MB = 1024 * 1024;
const SIZE = 50 * MB;

// ── (a) 50 MB each way, on every transport ──────────────────────────────────

/** Everything the app does with 50 MB, once the panel listens: a text frame first (`sentAt`: when its send returned), then the rest. */
const BIG_PAGE = `<!doctype html><title>big</title><body>
<iframe id="peer" srcdoc="<script>addEventListener('message', function (e) { if (e.data === 'big') parent.postMessage({ type: 'action:result', payload: { requestId: 'pm-1', success: true, data: 'y'.repeat(${SIZE - 90}), timestamp: 2 } }, '*'); });</script>"></iframe>
<script>
const SIZE = ${SIZE};
window.got = [];
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onmessage = (e) => { got.push(typeof e.data === 'string' ? 'text ' + e.data.length : 'blob ' + e.data.size); };
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'big', name: 'Big', description: 'Big frames', actions: [] }, timestamp: 1 } }));
  document.title = 'open';
};
const transport = { onAction() { return () => {}; }, sendResult(r, cb) { if (cb) cb({ ok: true }); }, register() {} };
window.__OUI_DEVTOOLS_HOOK__?.attach(transport, { label: 'big direct' });
transport.register({ surface: { id: 'big-direct', name: 'Big', description: 'd', actions: [] }, timestamp: 1 });
window.bigText = () => {
  const pre = '{"type":"observation:update","payload":{"surfaceId":"big","observationId":"o","timestamp":1,"value":"';
  // Flat before the clock starts: the send is timed, not the app's building of the string.
  const text = JSON.parse(JSON.stringify(pre + 'x'.repeat(SIZE - pre.length - 3) + '"}}'));
  const t0 = performance.now();
  ws.send(text);
  window.sendMs = performance.now() - t0;
  window.sentAt = Date.now();
};
window.bigRest = () => {
  const bin = new Uint8Array(SIZE);
  bin.set([0x7b, 0x22, 0x62, 0x69, 0x6e]);
  ws.send(bin);
  ws.send('send me big');
  transport.sendResult({ requestId: 'd-1', success: true, data: 'z'.repeat(SIZE - 70), timestamp: 3 }, () => {});
  document.getElementById('peer').contentWindow.postMessage('big', '*');
};
</script>`;

const BIG_IN_TEXT = (() => {
  const pre = '{"type":"action:request","payload":{"requestId":"in-1","surfaceId":"big","actionId":"go","timestamp":1,"params":{"blob":"';
  return pre + 'q'.repeat(SIZE - pre.length - 4) + '"}}}';
})();
const BIG_IN_BYTES = (() => {
  const b = Buffer.alloc(SIZE);
  b.set([1, 2, 3]);
  return b;
})();

// ── (b) a late panel on a page that sent over 100 MB ────────────────────────

const FULL_FRAMES = 50;
/**
 * Each frame: under the cap (2 MB), 70% raw control characters, each 6 bytes
 * of JSON in Chrome's messages (`\u0001`) but one on the wire: a full
 * buffer's replay is past 64 MiB. Raw control characters are not JSON, so
 * the panel shows these frames as malformed; what matters here is that they
 * are shown, or counted as dropped.
 */
const FULL_UNITS = 2_000_000;
const FULL_ESCAPED = 1_400_000;
const FULL_CAPPED = 4;
const FULL_CAPPED_SIZE = 3 * MB;
const FULL_REGISTER = JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'full', name: 'Full', description: 'A full buffer', actions: [] }, timestamp: 1 } });

const FULL_PAGE = `<!doctype html><title>full</title><script>
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  ws.send(${JSON.stringify(FULL_REGISTER)});
  const pad = '\\u0001'.repeat(${FULL_ESCAPED}) + 'a'.repeat(${FULL_UNITS - FULL_ESCAPED});
  for (let i = 1; i <= ${FULL_FRAMES}; i++) {
    const pre = '{"type":"observation:update","payload":{"surfaceId":"full","observationId":"o","timestamp":' + String(i).padStart(3, '0') + ',"value":"';
    ws.send(pre + pad.slice(0, ${FULL_UNITS} - pre.length - 3) + '"}}');
  }
  for (let i = 0; i < ${FULL_CAPPED}; i++) ws.send('{"type":"x-bulk","payload":"' + String(i).repeat(${FULL_CAPPED_SIZE} - 30) + '"}');
  document.title = 'sent';
};
</script>`;

/**
 * What the hook's ring keeps and drops of FULL_PAGE, by its own rules
 * (content/capture-buffer.ts): oldest first, while the newest item's weight
 * does not fit in MAX_BYTES. Sizes as the panel counts them.
 */
function fullExpectation(): { dropped: number; droppedSize: number; kept: number; replayJson: number } {
  const items: Array<{ w: number; size: number; json: number }> = [{ w: 64, size: 0, json: 0 }, { w: 64 + 2 * FULL_REGISTER.length, size: FULL_REGISTER.length, json: FULL_REGISTER.length }];
  for (let i = 1; i <= FULL_FRAMES; i++) {
    const units = FULL_UNITS;
    const ascii = units - FULL_ESCAPED;
    items.push({ w: 64 + 2 * units, size: units, json: FULL_ESCAPED * 6 + ascii });
  }
  for (let i = 0; i < FULL_CAPPED; i++) items.push({ w: 64 + 2 * HEAD, size: FULL_CAPPED_SIZE, json: HEAD });
  const ring: typeof items = [];
  let bytes = 0;
  let dropped = 0;
  let droppedSize = 0;
  for (const it of items) {
    while ((bytes + it.w > MAX_BYTES || ring.length >= MAX_ITEMS) && ring.length) {
      const old = ring.shift()!;
      bytes -= old.w;
      dropped++;
      droppedSize += old.size;
    }
    ring.push(it);
    bytes += it.w;
  }
  return { dropped, droppedSize, kept: ring.length, replayJson: ring.reduce((n, it) => n + it.json, 0) };
}

// ── (c) about:blank, srcdoc and document.open()ed frames ────────────────────

/** A script that opens a socket to the server and registers surface `id`; the URL is the top page's (an about: document's own location names no server). */
const registerOn = (id: string) =>
  `var ws = new WebSocket(top.WS_URL); ws.onopen = function () { ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: '${id}', name: '${id}', description: '${id}', actions: [] }, timestamp: 1 } })); };`;

const FRAMES_PAGE = `<!doctype html><html><head><title>frames</title></head><body>
<script>window.WS_URL = location.origin.replace('http', 'ws') + '/ws'; ${registerOn('top-ws')}</script>
<iframe id="srcdoc" srcdoc="<script>${registerOn('srcdoc-ws').replace(/"/g, '&quot;')}</script>"></iframe>
<iframe id="blank"></iframe>
<iframe id="opened"></iframe>
<script>
  // An about:blank frame runs no script of its own: its parent writes one into it, as apps do.
  var blank = document.getElementById('blank');
  var opened = document.getElementById('opened');
  var blankScript = ${JSON.stringify(
    registerOn('blank-ws') +
      "var t = { onAction: function () { return function () {}; }, sendResult: function () {}, register: function () {} };" +
      "window.__OUI_DEVTOOLS_HOOK__ && window.__OUI_DEVTOOLS_HOOK__.attach(t, { label: 'blank direct' });" +
      "t.register({ surface: { id: 'blank-direct', name: 'b', description: 'b', actions: [] }, timestamp: 1 });" +
      "window.blankReady = true;",
  )};
  function fill() {
    var d = blank.contentDocument, s = d.createElement('script');
    s.textContent = blankScript;
    (d.head || d.documentElement).appendChild(s);
    // A request from this page to the frame: captured by the frame's own hook, as a client of that frame.
    blank.contentWindow.postMessage({ type: 'action:request', payload: { requestId: 'pm-blank', surfaceId: 'x', actionId: 'y', params: {}, timestamp: 1 } }, '*');
    var o = opened.contentDocument;
    o.open();
    o.write('<p>opened</p><script>' + ${JSON.stringify(registerOn('opened-ws'))} + '<\\/script>');
    o.close();
    document.title = 'frames ready';
  }
  addEventListener('load', fill);
</script>
</body></html>`;

const SURFACES = ['top-ws', 'srcdoc-ws', 'blank-ws', 'opened-ws', 'blank-direct'];

// ── (d) transports the direct hook must not disturb ─────────────────────────

/** The app's scenarios; `outcome` is all it can observe of itself, compared with and without the extension. */
const TRANSPORTS_PAGE = `<!doctype html><title>transports</title><script>
const log = [];
const hook = window.__OUI_DEVTOOLS_HOOK__;
function attach(t, label) {
  try {
    const detach = hook?.attach(t, { label });
    if (hook && typeof detach !== 'function') log.push(label + ': attach returned no function');
  } catch (e) {
    log.push(label + ' threw ' + e.message);
  }
}
function makeImpl() {
  const handlers = [];
  return {
    onAction(h) { handlers.push(h); return () => {}; },
    sendResult(r, cb) { log.push('result ' + r.requestId); if (cb) cb({ ok: true }); },
    register(reg) { log.push('register ' + reg.surface.id); },
    dispatch(req) { for (const h of handlers) h(req, () => log.push('receipt ' + req.requestId)); },
  };
}
function scenario(t, id, impl) {
  t.onAction((req) => t.sendResult({ requestId: req.requestId, success: true, data: { id }, timestamp: 2 }, (ack) => log.push('ack ' + ack.ok)));
  t.register({ surface: { id, name: id, description: id, actions: [{ id: 'go', description: 'go', input: { type: 'object' } }] }, timestamp: 1 });
  impl.dispatch({ requestId: id + '-r1', surfaceId: id, actionId: 'go', params: {}, timestamp: 1 });
}
const counts = { gets: 0, getterReads: 0, throwingReads: 0 };

// A Proxy whose get trap counts.
const implP = makeImpl();
const proxied = new Proxy(implP, { get(target, k, r) { counts.gets++; return Reflect.get(target, k, r); } });
attach(proxied, 'proxied transport');
scenario(proxied, 'proxied', implP);

// send and onAction behind getters with side effects.
const implG = makeImpl();
const gotten = {
  get onAction() { counts.getterReads++; return implG.onAction; },
  get sendResult() { counts.getterReads++; return implG.sendResult; },
  register(reg) { return implG.register(reg); },
};
attach(gotten, 'getter transport');
scenario(gotten, 'gotten', implG);

// A revoked Proxy.
const revocable = Proxy.revocable(makeImpl(), {});
revocable.revoke();
attach(revocable.proxy, 'revoked transport');

// A frozen transport: it works, it cannot be wrapped.
const implF = makeImpl();
const frozen = Object.freeze({ onAction: implF.onAction, sendResult: implF.sendResult, register: implF.register });
attach(frozen, 'frozen transport');
scenario(frozen, 'frosty', implF);

// A getter that throws: read by the app, it throws as it always did; the other methods are captured.
const implT = makeImpl();
const throwing = { get sendResult() { counts.throwingReads++; throw new Error('boom'); }, onAction: implT.onAction, register: implT.register };
attach(throwing, 'throwing transport');
throwing.register({ surface: { id: 'thrown', name: 't', description: 't', actions: [] }, timestamp: 1 });
try { throwing.sendResult({ requestId: 'x' }); } catch (e) { log.push('throwing: ' + e.message); }

window.outcome = { counts, log };
document.title = 'done';
</script>`;

// ── helpers ─────────────────────────────────────────────────────────────────

interface Row {
  kind: string;
  type: string;
  client: string;
  target: string;
  details: string;
}

/** Reads Timeline rows in the panel's page (Chromium's or Firefox's): an arrow, so its source runs there as it is. */
const readRows = (els: Element[]): Row[] =>
  els.map((el) => ({
    kind: el.getAttribute('data-client-kind') ?? '',
    type: el.getAttribute('data-type') ?? '',
    client: el.querySelector('.c-client')?.getAttribute('title') ?? '',
    target: (el.querySelector('.c-target') as HTMLElement | null)?.innerText ?? '',
    details: (el.querySelector('.c-details') as HTMLElement | null)?.innerText ?? '',
  }));

/** Every Timeline row in view (the panel is made tall enough for these sessions). */
async function rows(panel: Page): Promise<Row[]> {
  return panel.$$eval('.vlist [role=row]', readRows);
}

async function waitForRows(panel: Page, what: string, predicate: (rows: Row[]) => boolean, ms = 20_000): Promise<Row[]> {
  let last: Row[] = [];
  await until(
    async () => predicate((last = await rows(panel))),
    `${what}; last rows:\n${JSON.stringify(last.slice(-12), null, 1)}`,
    ms,
    100,
  ).catch((e: Error) => assert.fail(`${e.message}\nlast rows:\n${last.map((r) => `${r.kind} ${r.type} [${r.client}] ${r.details.slice(0, 160)}`).join('\n')}`));
  return last;
}

/** The page's JS heap after garbage collection. */
async function heap(cdp: CDPSession): Promise<number> {
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  return ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
}

/** The Surfaces view's client headings: each client's kind, its section's text, and its frame line. */
async function headings(panel: Page): Promise<Array<{ kind: string; text: string; frame: string | null }>> {
  return panel.$$eval('section.client-block', (els) =>
    els.map((el) => ({
      kind: el.getAttribute('data-client-kind') ?? '',
      text: (el as HTMLElement).innerText,
      frame: (el.querySelector('[data-testid=client-frame]') as HTMLElement | null)?.innerText.trim() ?? null,
    })),
  );
}

// ── Chromium ────────────────────────────────────────────────────────────────

describe('never silent, in Chromium', () => {
  let server: FixtureServer;
  let browser: Browser;
  let plain: Browser;

  before(async () => {
    server = await startFixtureServer({ '/big': BIG_PAGE, '/full': FULL_PAGE, '/frames': FRAMES_PAGE, '/transports': TRANSPORTS_PAGE });
    server.onConnection((ws) =>
      ws.on('message', (d) => {
        if (String(d).length < 100 && String(d) === 'send me big') {
          ws.send(BIG_IN_TEXT);
          ws.send(BIG_IN_BYTES);
        }
      }),
    );
    [browser, plain] = await Promise.all([launch({ rows: 'events', viewport: { width: 1400, height: 2000 } }), launch({ extension: false })]);
  });
  after(async () => {
    await Promise.all([browser?.close(), plain?.close()]);
    await server?.close();
  });

  test('(a) a 50 MB frame, text and binary, each way, a 50 MB postMessage and a 50 MB direct call: each a row with its size and head, counted', async () => {
    const app = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(app);
    await app.goto(`${server.url}/big`);
    await app.waitForFunction(() => document.title === 'open');
    const panel = await openPanelPage(browser, await tabIdOf(browser, app));
    await panel.setViewportSize({ width: 1400, height: 1200 });
    const errors: string[] = [];
    panel.on('pageerror', (e) => errors.push(e.message));
    // The panel listens: the registrations are shown.
    await waitForRows(panel, 'the registrations', (r) => r.some((x) => x.kind === 'websocket' && x.type === 'surface:register') && r.some((x) => x.kind === 'direct' && x.type === 'surface:register'));
    const heapBefore = await heap(cdp);
    await app.evaluate('bigText()');
    const sentAt = (await app.evaluate('window.sentAt')) as number;
    // The browser keeps the page's thread busy a while after a 50 MB send returns (as much without the extension):
    // the hook's batch goes when it is free.
    const freeAt = Date.now();
    const want: Array<[string, string]> = [
      ['websocket', 'frame over the capture cap: 50.0 MB, head: {"type":"observation:update","payload":{"surfaceId":"big","observationId":"o"'],
      ['websocket', 'frame over the capture cap: 50.0 MB, head: 7b 22 62 69 6e 00 00'],
      ['websocket', 'frame over the capture cap: 50.0 MB, head: {"type":"action:request","payload":{"requestId":"in-1"'],
      ['websocket', 'frame over the capture cap: 50.0 MB, head: 01 02 03 00 00'],
      ['direct', 'sendResult() over the capture cap: 50.0 MB, head: {"requestId":"d-1","success":true,"data":"zzzz'],
      ['postmessage', 'message over the capture cap: 50.0 MB, head: {"type":"action:result","payload":{"requestId":"pm-1"'],
    ];
    await waitForRows(panel, 'the 50 MB text frame', (r) => r.some((x) => x.kind === 'websocket' && x.details.startsWith(want[0]![1])), 60_000);
    const shownAt = Date.now();
    const restAt = Date.now();
    await app.evaluate('bigRest()');
    const found = await waitForRows(
      panel,
      'a row for each 50 MB frame, message and call',
      (r) => want.every(([kind, start]) => r.some((x) => x.kind === kind && x.type === 'other' && x.details.startsWith(start))),
      120_000, // a wait for a loaded machine, not a timing
    );
    const restShownAfter = Date.now() - restAt;
    // Each said once, never as an empty event: no direct result without a payload, no postMessage "not captured".
    for (const [kind, start] of want) assert.equal(found.filter((x) => x.kind === kind && x.details.startsWith(start)).length, 1, `${start}: one row`);
    assert.ok(!found.some((x) => x.type === 'action:result'), 'a result over the cap is not shown as a result with no payload');
    // The head ends the row in an ellipsis: there is more to the frame than what was kept.
    assert.ok(found.filter((x) => x.type === 'other').every((x) => x.details.endsWith('…')));
    // The status line counts them, with what was not kept.
    const overCap = panel.getByTestId('over-cap');
    await until(async () => (await overCap.count()) > 0 && (await overCap.innerText()) === `6 over the capture cap (${sizeText(6 * SIZE)} not kept)`, 'the over-cap count', SLOW_MS, 100);
    assert.equal(await panel.getByTestId('lost').count(), 0, 'nothing dropped');
    assert.equal(await panel.getByTestId('undelivered').count(), 0, 'nothing undelivered');
    assert.deepEqual(await app.evaluate('window.got.sort()'), [`blob ${SIZE}`, `text ${SIZE}`], 'the app received both of its frames, untouched');
    // The hook keeps no copy of what it counts as heads.
    const extra = ((await heap(cdp)) - heapBefore) / MB;
    const sendMs = (await app.evaluate('window.sendMs')) as number;
    // Against the same page without the extension: what the hook adds to sending a 50 MB text frame.
    const bare = await plain.context.newPage();
    await bare.goto(`${server.url}/big`);
    await bare.waitForFunction(() => document.title === 'open');
    await bare.evaluate('bigText()');
    const bareMs = (await bare.evaluate('window.sendMs')) as number;
    console.log(
      `50 MB frames: the text frame's row ${shownAt - sentAt} ms after its send returned, ${shownAt - freeAt} ms after the page's thread was free again; ` +
        `the other five (the app making and sending 250 MB) in ${restShownAfter} ms; ` +
        `ws.send of the 50 MB text ${sendMs.toFixed(0)} ms with the hook, ${bareMs.toFixed(0)} ms without; page heap +${extra.toFixed(1)} MB after GC`,
    );
    assert.ok(extra < 8, `the hook kept ${extra.toFixed(1)} MB of frames it shows as heads`);
    assert.deepEqual(errors, [], 'the panel threw nothing');
    await Promise.all([bare.close(), panel.close(), app.close()]);
  });

  test('(b) a panel opened late on a page that sent over 100 MB says exactly how many items and bytes its buffer dropped', async () => {
    const expected = fullExpectation();
    // The preconditions: over 100 MB sent, a replay past Chrome's 64 MiB message limit, and drops.
    assert.ok(FULL_FRAMES * FULL_UNITS + FULL_CAPPED * FULL_CAPPED_SIZE > 100 * MB);
    assert.ok(expected.replayJson > 64 * MB, `the replay is ${(expected.replayJson / MB).toFixed(1)} MB of JSON`);
    assert.ok(expected.dropped > 0);
    const started = Date.now();
    const app = await browser.context.newPage();
    await app.goto(`${server.url}/full`);
    await app.waitForFunction(() => document.title === 'sent', undefined, { timeout: 60_000 });
    const opened = Date.now();
    const panel = await openPanelPage(browser, await tabIdOf(browser, app));
    const errors: string[] = [];
    panel.on('pageerror', (e) => errors.push(e.message));
    const count = panel.getByTestId('event-count');
    const lost = panel.getByTestId('lost');
    const wantLost = `${expected.dropped} dropped by the page buffer (${sizeText(expected.droppedSize)})`;
    const wantCount = `${expected.kept} / ${expected.kept} events`;
    let shown = '';
    await until(
      async () => {
        shown = `${await count.innerText()} | ${(await lost.count()) ? await lost.innerText() : '(no lost count)'}`;
        return shown === `${wantCount} | ${wantLost}`;
      },
      `"${wantCount} | ${wantLost}" (the panel shows "${shown}")`,
      120_000, // a wait for a loaded machine, not a timing
      250,
    );
    console.log(`full buffer: ${wantLost}; every kept item shown ${Date.now() - opened} ms after the panel opened (${Date.now() - started} ms in all)`);
    // The frames it kept, over the cap, are rows that say so; nothing else is said missing.
    assert.equal(await panel.getByTestId('over-cap').innerText(), `${FULL_CAPPED} over the capture cap (${sizeText(FULL_CAPPED * FULL_CAPPED_SIZE)} not kept)`);
    assert.equal(await panel.getByTestId('undelivered').count(), 0);
    const last = await rows(panel);
    assert.equal(last.filter((r) => r.type === 'malformed' && r.details.startsWith('invalid JSON')).length, expected.kept - FULL_CAPPED, 'the newest frames under the cap');
    assert.equal(last.filter((r) => r.details.startsWith(`frame over the capture cap: ${sizeText(FULL_CAPPED_SIZE)}, head: {"type":"x-bulk"`)).length, FULL_CAPPED);
    assert.deepEqual(errors, [], 'the panel threw nothing');
    await Promise.all([panel.close(), app.close()]);
  });

  test('(c) clients in about:blank, srcdoc and document.open()ed frames carry their creator\'s origin and a frame URL that says what they are', async () => {
    const app = await browser.context.newPage();
    await app.goto(`${server.url}/frames`);
    await app.waitForFunction(() => document.title === 'frames ready');
    const panel = await openPanelPage(browser, await tabIdOf(browser, app));
    await waitForRows(
      panel,
      "every frame's registration and the request to the blank frame",
      (r) => SURFACES.every((id) => r.some((x) => x.type === 'surface:register' && x.target.includes(id))) && r.some((x) => x.kind === 'postmessage' && x.type === 'action:request'),
    );
    await panel.click('#tab-surfaces');
    const page = `${server.url}/frames`;
    const origin = server.url;
    let blocks: Awaited<ReturnType<typeof headings>> = [];
    const of = (id: string) => blocks.find((b) => b.text.includes(id));
    await until(async () => ((blocks = await headings(panel)), SURFACES.every((id) => of(id))), 'a heading per client', 10_000, 100);
    assert.equal(of('srcdoc-ws')!.frame, `· frame about:srcdoc (in ${page}) · origin ${origin}`);
    assert.equal(of('blank-ws')!.frame, `· frame about:blank (in ${page}) · origin ${origin}`);
    assert.equal(of('blank-direct')!.frame, `· frame about:blank (in ${page}) · origin ${origin}`);
    // document.open() gave the frame this page's URL: the frame says it is still an about:blank frame, in this page.
    assert.equal(of('opened-ws')!.frame, `· frame about:blank (in ${page}) · origin ${origin}`);
    // The postMessage client declares no surface, so Surfaces leaves it out: its heading is counted there, its frame said in the Timeline below.
    assert.ok(!blocks.some((b) => b.kind === 'postmessage'));
    // The page itself needs no frame line.
    assert.equal(of('top-ws')!.frame, null);
    // And the Timeline says it of each row's client.
    const timeline = await (await panel.click('#tab-timeline'), rows(panel));
    assert.ok(timeline.some((r) => r.kind === 'direct' && r.client === `blank direct · frame about:blank (in ${page}) · origin ${origin}`));
    assert.ok(
      timeline.some((r) => r.kind === 'postmessage' && r.client.endsWith(` · frame about:blank (in ${page}) · origin ${origin}`)),
      'the postMessage client the blank frame captured',
    );
    assert.ok(!timeline.some((r) => /\bnull\b/.test(r.client)), 'no client says "null"');
    await Promise.all([panel.close(), app.close()]);
  });

  test('(d) attach() on a Proxy, getters, a revoked Proxy, a frozen object and a throwing getter: nothing thrown, no getter run twice, capture where it can be, a word where it cannot', async () => {
    async function outcome(b: Browser): Promise<unknown> {
      const p = await b.context.newPage();
      await p.goto(`${server.url}/transports`);
      await p.waitForFunction(() => document.title === 'done');
      const o = await p.evaluate('window.outcome');
      await p.close();
      return o;
    }
    const app = await browser.context.newPage();
    await app.goto(`${server.url}/transports`);
    await app.waitForFunction(() => document.title === 'done');
    const hooked = (await app.evaluate('window.outcome')) as { counts: Record<string, number>; log: string[] };
    // The app's own behaviour, exactly as without the extension: each getter and trap run as often, the same calls and answers.
    assert.deepEqual(hooked, await outcome(plain));
    // One [[Get]] per property the app reads: onAction, sendResult, register on the Proxy; onAction and sendResult behind getters.
    assert.deepEqual(hooked.counts, { gets: 3, getterReads: 2, throwingReads: 1 });
    assert.ok(!hooked.log.some((l) => / threw |no function/.test(l)), `attach threw: ${hooked.log.join('; ')}`);
    assert.ok(hooked.log.includes('throwing: boom'));

    const panel = await openPanelPage(browser, await tabIdOf(browser, app));
    const has = (r: Row[], client: string, type: string, details = '') => r.some((x) => x.kind === 'direct' && x.client === client && x.type === type && x.details.startsWith(details));
    const found = await waitForRows(panel, 'each transport captured, or said not attachable', (r) =>
      ['proxied', 'gotten'].every((id) => {
        const label = id === 'proxied' ? 'proxied transport' : 'getter transport';
        return has(r, label, 'surface:register') && has(r, label, 'action:request') && has(r, label, 'action:result') && has(r, label, 'ack');
      }) &&
      has(r, 'revoked transport', 'error') &&
      has(r, 'frozen transport', 'error') &&
      has(r, 'throwing transport', 'surface:register'),
    );
    const detail = (client: string, type: string) => found.find((x) => x.client === client && x.type === type)?.details;
    assert.match(detail('revoked transport', 'error') ?? '', /^could not attach the transport: reading its methods threw Cannot perform 'ownKeys' on a proxy that has been revoked$/);
    assert.equal(detail('frozen transport', 'error'), 'could not attach the transport: it is frozen or sealed, so its methods (onAction, sendResult, register) cannot be wrapped in place');
    // What could not be attached records nothing else; what could, its open and its traffic.
    assert.deepEqual(found.filter((x) => x.client === 'frozen transport' || x.client === 'revoked transport').map((x) => x.type), ['error', 'error']);
    assert.ok(has(found, 'proxied transport', 'open') && has(found, 'getter transport', 'open') && has(found, 'throwing transport', 'open'));
    await Promise.all([panel.close(), app.close()]);
  });
});

// ── Firefox: (c) and (d) ────────────────────────────────────────────────────

describe('never silent, in Firefox: frames and the direct hook', () => {
  let ff: Firefox;
  let server: FixtureServer;

  before(async () => {
    server = await startFixtureServer({ '/frames': FRAMES_PAGE, '/transports': TRANSPORTS_PAGE });
    ff = await launchFirefox();
  });

  after(async () => {
    await ff?.close();
    await server?.close();
  });

  async function firefoxRows(panel: FirefoxPage): Promise<Row[]> {
    return panel.$$eval('.vlist [role=row]', readRows);
  }

  // Firefox ends a frame's extension scripts when its document is document.open()ed (the page's hook stays, its bridge
  // does not), so that frame reaches no panel there: only about:blank and srcdoc are asked of Firefox.
  test("(c) about:blank and srcdoc frames say their creator's origin and page", async () => {
    const page = await ff.browser.newPage();
    await page.goto(`${server.url}/frames`);
    await page.waitForFunction(() => document.title === 'frames ready');
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
    await panel.setViewport({ width: 1400, height: 1600 });
    await waitIn(panel, 'every registration', () => document.querySelectorAll('.vlist [role=row][data-type="surface:register"]').length >= 4, null, 30_000);
    await panel.click('#tab-surfaces');
    const url = `${server.url}/frames`;
    const blocks = await waitIn(
      panel,
      'a heading per client',
      (ids) => {
        const b = [...document.querySelectorAll('section.client-block')].map((el) => ({
          text: (el as HTMLElement).innerText,
          frame: (el.querySelector('[data-testid=client-frame]') as HTMLElement | null)?.innerText.trim() ?? null,
        }));
        return ids.every((id) => b.some((x) => x.text.includes(id))) ? b : null;
      },
      SURFACES.filter((id) => id !== 'opened-ws'),
    );
    const of = (id: string) => blocks.find((b) => b.text.includes(id))!.frame;
    assert.equal(of('srcdoc-ws'), `· frame about:srcdoc (in ${url}) · origin ${server.url}`);
    assert.equal(of('blank-ws'), `· frame about:blank (in ${url}) · origin ${server.url}`);
    assert.equal(of('blank-direct'), `· frame about:blank (in ${url}) · origin ${server.url}`);
    assert.equal(of('top-ws'), null);
    await panel.close();
    await page.close();
  });

  test('(d) attach() on hostile transports neither throws nor runs getters twice, and says what it could not attach', async () => {
    const page = await ff.browser.newPage();
    await page.goto(`${server.url}/transports`);
    await page.waitForFunction(() => document.title === 'done');
    const o = (await page.evaluate('window.outcome')) as { counts: Record<string, number>; log: string[] };
    // What the app sees without the extension, by the page's own arithmetic: one get per property it reads.
    assert.deepEqual(o.counts, { gets: 3, getterReads: 2, throwingReads: 1 });
    assert.deepEqual(o.log.filter((l) => / threw |no function/.test(l)), []);
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
    await panel.setViewport({ width: 1400, height: 1600 });
    let found: Row[] = [];
    await until(
      async () => {
        found = await firefoxRows(panel);
        const has = (client: string, type: string) => found.some((x) => x.client === client && x.type === type);
        return has('proxied transport', 'action:result') && has('getter transport', 'action:result') && has('revoked transport', 'error') && has('frozen transport', 'error') && has('throwing transport', 'surface:register');
      },
      'each transport captured or said not attachable',
      30_000,
      150,
    );
    assert.match(found.find((x) => x.client === 'revoked transport')!.details, /^could not attach the transport: reading its methods threw /);
    assert.match(found.find((x) => x.client === 'frozen transport')!.details, /^could not attach the transport: it is frozen or sealed/);
    await panel.close();
    await page.close();
  });
});
