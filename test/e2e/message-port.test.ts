/**
 * OUI over MessagePorts, in real Chromium with the built extension: a host
 * page on 127.0.0.1 makes a MessageChannel and hands port2 to a widget
 * iframe (same origin, then another origin on `localhost`); the widget (the
 * OUI client) registers, answers a request and sends a burst of
 * observations over the port. The host posts its request through a
 * `postMessage` borrowed from a fresh same-origin iframe (already removed),
 * and in the second run the widget does the same for its answers.
 *
 * Read from the panel's own session (its Export): one client for the
 * conversation whose two ends two frames' hooks captured, every message
 * once, in order, with its direction; what each app received is exactly
 * what the other sent, in order, though the apps change what they get.
 * A second channel, whose far end the widget holds but never starts, gets
 * two messages through the borrowed postMessage: the panel shows them (only
 * the sender's hook can have recorded them), and the widget gets them only
 * when it starts the port, in order. A WebSocket `send` borrowed the same way
 * is captured on the socket's client.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { firefoxTabId, launchFirefox, openFirefoxPanel, waitIn, type Firefox } from '../support/firefox.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { until } from '../support/wait.ts';
import type { SessionFile } from '../../src/session/wire/session-file.ts';

const SURFACE = { id: 'notes', name: 'Notes', description: 'Notes', actions: [{ id: 'add_note', description: 'Add a note', input: { type: 'object', properties: { text: { type: 'string' } } } }] };
const OBSERVATIONS = 20;

const WIDGET = `<!doctype html><title>widget</title><body><script>
  window.received = [];
  window.sent = [];
  window.quietGot = [];
  const copy = (v) => JSON.parse(JSON.stringify(v));
  let post = MessagePort.prototype.postMessage;
  if (location.search.includes('borrow')) {
    const f = document.body.appendChild(document.createElement('iframe'));
    post = f.contentWindow.MessagePort.prototype.postMessage;
    f.remove();
  }
  addEventListener('message', (e) => {
    if (e.data && e.data.kind === 'quiet-port') {
      // Kept, listened to, never started: nothing may arrive until the app starts it.
      window.quietPort = e.ports[0];
      window.quietPort.addEventListener('message', (m) => window.quietGot.push(copy(m.data)));
      return;
    }
    if (!e.data || e.data.kind !== 'oui-port') return;
    const port = e.ports[0];
    const send = (m) => { window.sent.push(copy(m)); post.call(port, m); };
    port.onmessage = (m) => {
      window.received.push(copy(m.data));
      const d = m.data;
      if (d.kind === 'inner-port') {
        // A port carried over this one: another conversation.
        const inner = m.ports[0];
        inner.onmessage = (x) => {
          if (x.data.type === 'action:request') inner.postMessage({ type: 'action:result', payload: { requestId: x.data.payload.requestId, success: true, timestamp: 5 } });
        };
        inner.postMessage({ type: 'surface:register', payload: { surface: { id: 'inner', name: 'Inner', description: 'Carried over a port', actions: [{ id: 'go', description: 'Go' }] }, timestamp: 3 } });
        return;
      }
      if (d.type !== 'action:request') return;
      // The app changes what it got: the capture keeps what arrived.
      d.payload.params.text = 'changed by the widget';
      send({ type: 'action:result', payload: { requestId: d.payload.requestId, success: true, data: { saved: true }, timestamp: Date.now() } });
      for (let i = 0; i < ${OBSERVATIONS}; i++) send({ type: 'observation:update', payload: { surfaceId: 'notes', observationId: 'count', value: i, timestamp: Date.now() } });
    };
    send({ type: 'surface:register', payload: { surface: ${JSON.stringify(SURFACE)}, timestamp: Date.now() } });
  });
</script>`;

const HOST = `<!doctype html><title>host</title><body><script>
  window.received = [];
  window.sent = [];
  window.innerGot = [];
  window.workerGot = [];
  const copy = (v) => JSON.parse(JSON.stringify(v));
  const check = () => {
    if (window.received.length === ${OBSERVATIONS + 2} && window.innerGot.length === 2 && window.workerGot.length === 1) document.title = 'done';
  };
  /** A worker that makes a channel and hands the page its port2: the worker is the runtime, the page the client. */
  function workerMain() {
    const ch = new MessageChannel();
    ch.port1.onmessage = (e) => {
      if (e.data.type === 'surface:register') ch.port1.postMessage({ type: 'action:request', payload: { requestId: 'req-worker', surfaceId: 'worker-side', actionId: 'go', params: {}, timestamp: 6 } });
    };
    postMessage({ kind: 'worker-port' }, [ch.port2]);
  }
  const worker = new Worker(URL.createObjectURL(new Blob(['(' + workerMain + ')()'], { type: 'text/javascript' })));
  worker.onmessage = (e) => {
    const port = e.ports[0];
    port.onmessage = (x) => {
      window.workerGot.push(copy(x.data));
      port.postMessage({ type: 'action:result', payload: { requestId: x.data.payload.requestId, success: true, timestamp: 8 } });
      check();
    };
    port.postMessage({ type: 'surface:register', payload: { surface: { id: 'worker-side', name: 'Worker side', description: 'Its runtime is in a worker', actions: [{ id: 'go', description: 'Go' }] }, timestamp: 7 } });
  };
  /** A function of a fresh same-origin iframe's realm, the iframe already gone. */
  function borrow(get) {
    const f = document.body.appendChild(document.createElement('iframe'));
    const fn = get(f.contentWindow);
    f.remove();
    return fn;
  }
  const post = borrow((w) => w.MessagePort.prototype.postMessage);
  const send = borrow((w) => w.WebSocket.prototype.send);
  const widget = document.createElement('iframe');
  widget.src = new URLSearchParams(location.search).get('widget');
  widget.addEventListener('load', () => {
    const main = new MessageChannel();
    main.port1.onmessage = (e) => {
      window.received.push(copy(e.data));
      const m = e.data;
      if (m.type === 'surface:register') {
        const request = { type: 'action:request', payload: { requestId: 'req-0001', surfaceId: 'notes', actionId: 'add_note', params: { text: 'from the runtime' }, timestamp: Date.now() } };
        window.sent.push(copy(request));
        post.call(main.port1, request);
      }
      check();
    };
    const quiet = new MessageChannel();
    window.quietSent = [
      { type: 'surface:register', payload: { surface: { id: 'quiet', name: 'Quiet', description: 'Never started', actions: [] }, timestamp: 1 } },
      { type: 'observation:update', payload: { surfaceId: 'quiet', observationId: 'q', value: 'only the sender saw this', timestamp: 2 } },
    ];
    for (const m of window.quietSent) post.call(quiet.port1, m);
    widget.contentWindow.postMessage({ kind: 'quiet-port' }, '*', [quiet.port2]);
    widget.contentWindow.postMessage({ kind: 'oui-port' }, '*', [main.port2]);
    const inner = new MessageChannel();
    inner.port1.onmessage = (e) => {
      window.innerGot.push(copy(e.data));
      if (e.data.type === 'surface:register') inner.port1.postMessage({ type: 'action:request', payload: { requestId: 'req-inner', surfaceId: 'inner', actionId: 'go', params: {}, timestamp: 4 } });
      check();
    };
    const carrier = { kind: 'inner-port' };
    window.sent.push(copy(carrier));
    main.port1.postMessage(carrier, [inner.port2]);
    const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
    ws.onopen = () => send.call(ws, JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'socket', name: 'Socket', description: 'Over a borrowed send', actions: [] }, timestamp: 3 } }));
  });
  document.body.appendChild(widget);
</script>`;

/** The panel's session as its Export writes it. */
async function exported(panel: Page): Promise<SessionFile> {
  // Export opens the redaction preview first (docs/redaction.md): its Export redacted downloads.
  await panel.getByRole('button', { name: 'Export', exact: true }).click();
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('export-redacted').click()]);
  return JSON.parse(readFileSync((await download.path())!, 'utf8')) as SessionFile;
}

/** Exports until `cond` holds of the session; returns it. */
async function sessionWhen(panel: Page, what: string, cond: (s: SessionFile) => boolean): Promise<SessionFile> {
  let last: SessionFile | undefined;
  await until(async () => cond((last = await exported(panel))), what, 20_000, 300).catch((e: Error) => {
    throw new Error(`${e.message}\n${last ? last.events.map((ev) => `${ev.client} ${ev.dir} ${ev.type ?? ev.kind}`).join('\n') : ''}`);
  });
  return last!;
}

const surfaceOf = (ev: { payload?: unknown }) => (ev.payload as { surface?: { id?: string } } | undefined)?.surface?.id;

describe('OUI over MessagePorts', () => {
  let host: FixtureServer;
  let other: FixtureServer;
  let b: Browser;
  before(async () => {
    other = await startFixtureServer({ '/widget': WIDGET });
    host = await startFixtureServer({ '/': HOST, '/widget': WIDGET });
    b = await launch({ rows: 'events' });
  });
  after(async () => {
    await b?.close();
    await Promise.all([host?.close(), other?.close()]);
  });

  for (const run of [
    { name: 'a same-origin widget', widget: () => `${host.url}/widget` },
    { name: 'a widget of another origin (localhost) that posts through a borrowed postMessage too', widget: () => `${other.url.replace('127.0.0.1', 'localhost')}/widget?borrow` },
  ]) {
    test(`${run.name}: one client, every message once, in order, with its direction; the apps get what was sent`, async () => {
      const app = await b.context.newPage();
      await app.goto(`${host.url}/?widget=${encodeURIComponent(run.widget())}`);
      await app.waitForFunction(() => document.title === 'done');
      const widget = app.frames().find((f) => f.url().includes('/widget'))!;
      const panel = await openPanelPage(b, await tabIdOf(b, app));

      const s = await sessionWhen(panel, 'every conversation, the quiet port and the socket in the panel', (f) => {
        const events = f.events.filter((e) => e.kind === 'event');
        const answered = (id: string) => events.some((e) => e.type === 'action:result' && (e.payload as { requestId?: string }).requestId === id);
        return events.filter((e) => e.type === 'observation:update' && (e.payload as { surfaceId?: string }).surfaceId === 'notes').length >= OBSERVATIONS && events.some((e) => surfaceOf(e) === 'quiet') && events.some((e) => surfaceOf(e) === 'socket') && answered('req-inner') && answered('req-worker');
      });

      // One client for the conversation, though two frames' hooks captured its two ends.
      const register = s.events.find((e) => surfaceOf(e) === 'notes')!;
      const client = s.clients.find((c) => c.key === register.client)!;
      assert.equal(client.kind, 'postmessage');
      assert.equal(client.port, true);
      assert.match(client.label, /^MessagePort top ↔ top\/\d+$/);
      const conversation = s.events.filter((e) => e.client === client.key);
      const ours = s.events.filter((e) => {
        const p = e.payload as { surfaceId?: string; requestId?: string } | undefined;
        return e.kind === 'event' && (surfaceOf(e) === 'notes' || p?.surfaceId === 'notes' || p?.requestId === 'req-0001');
      });
      assert.deepEqual(ours, conversation, 'none of its messages under another client, nothing else under it');
      assert.deepEqual(
        conversation.map((e) => [e.type, e.dir]),
        [
          ['surface:register', 'out'],
          ['action:request', 'in'],
          ['action:result', 'out'],
          ...Array.from({ length: OBSERVATIONS }, () => ['observation:update', 'out']),
        ],
        'each message once, in order, the widget being the client',
      );
      assert.deepEqual(
        conversation.filter((e) => e.type === 'observation:update').map((e) => (e.payload as { value: number }).value),
        Array.from({ length: OBSERVATIONS }, (_, i) => i),
      );
      assert.equal((conversation[1]!.payload as { params: { text: string } }).params.text, 'from the runtime', 'the request as it was sent, not as the widget changed it');

      // What each app got is what the other sent, in order.
      const hostSent = await app.evaluate('window.sent');
      const hostGot = await app.evaluate('window.received');
      const widgetSent = await widget.evaluate('window.sent');
      const widgetGot = await widget.evaluate('window.received');
      assert.deepEqual(widgetGot, hostSent);
      assert.deepEqual(hostGot, widgetSent);
      assert.equal((widgetSent as unknown[]).length, OBSERVATIONS + 2);

      // A port carried over a port, and a port a worker made and handed over (its runtime in the worker: the page's side records both directions).
      for (const [surface, requestId, label] of [
        ['inner', 'req-inner', /^MessagePort top ↔ top\/\d+$/],
        ['worker-side', 'req-worker', /^MessagePort top$/],
      ] as const) {
        const reg = s.events.find((e) => surfaceOf(e) === surface)!;
        const of = s.events.filter((e) => e.client === reg.client);
        assert.deepEqual(
          of.map((e) => [e.type, e.dir, (e.payload as { requestId?: string }).requestId ?? surfaceOf(e)]),
          [
            ['surface:register', 'out', surface],
            ['action:request', 'in', requestId],
            ['action:result', 'out', requestId],
          ],
          surface,
        );
        assert.match(s.clients.find((c) => c.key === reg.client)!.label, label, surface);
      }

      // The quiet port: shown (posted through the borrowed postMessage, recorded by the sender's hook alone) and still never delivered.
      const quiet = s.events.filter((e) => surfaceOf(e) === 'quiet' || (e.payload as { surfaceId?: string } | undefined)?.surfaceId === 'quiet');
      assert.deepEqual(quiet.map((e) => [e.type, e.dir]), [['surface:register', 'out'], ['observation:update', 'out']]);
      assert.notEqual(quiet[0]!.client, client.key, 'another conversation, another client');
      assert.deepEqual(await widget.evaluate('window.quietGot'), [], 'the hook never started the port');
      await widget.evaluate('window.quietPort.start()');
      await widget.waitForFunction(() => (window as unknown as { quietGot: unknown[] }).quietGot.length === 2);
      assert.deepEqual(await widget.evaluate('window.quietGot'), await app.evaluate('window.quietSent'), 'delivered once started, unchanged and in order');

      // The panel offers no injection it cannot deliver: it says why, and Send stays disabled.
      await panel.getByRole('tab', { name: 'Inject' }).click();
      await panel.getByRole('combobox', { name: 'Inject into client' }).selectOption(client.key);
      await panel.getByRole('combobox', { name: 'Surface', exact: true }).selectOption('notes');
      await panel.getByRole('combobox', { name: 'Action', exact: true }).selectOption('add_note');
      await panel.getByText(/MessagePort conversation/).waitFor();
      assert.equal(await panel.getByRole('button', { name: /^Send/ }).isDisabled(), true);

      // The socket: a send borrowed from another realm is captured on the socket's own client.
      const socket = s.events.find((e) => surfaceOf(e) === 'socket')!;
      assert.equal(socket.dir, 'out');
      assert.equal(s.clients.find((c) => c.key === socket.client)?.kind, 'websocket');
      assert.ok(host.frames.some((f) => f.dir === 'to-server' && f.data.includes('"id":"socket"')), 'the server got the frame');
      await app.close();
      await panel.close();
    });
  }
});

/** What a page can read of the functions the port tap wraps; run in the page as text, so no build helper leaks into it. */
const FINGERPRINT = `(() => {
  const attempt = (f) => { try { const v = f(); return 'ok ' + (typeof v); } catch (e) { return (e && e.constructor && e.constructor.name) + ': ' + (e && e.message); } };
  const describeFn = (f) => ({ name: f.name, length: f.length, source: Function.prototype.toString.call(f), string: String(f), prototype: typeof f.prototype, own: Object.getOwnPropertyNames(f).sort().join() });
  const descriptor = (o, k) => { const d = Object.getOwnPropertyDescriptor(o, k); return d && [typeof d.value, typeof d.get, d.writable, d.enumerable, d.configurable].join(); };
  const ch = new MessageChannel();
  class Sub extends MessageChannel { hello() { return 1; } }
  const sub = new Sub();
  return {
    MessageChannel: describeFn(MessageChannel),
    postMessage: describeFn(MessagePort.prototype.postMessage),
    ports: describeFn(Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'ports').get),
    descriptors: [descriptor(window, 'MessageChannel'), descriptor(MessagePort.prototype, 'postMessage'), descriptor(MessageChannel.prototype, 'constructor'), descriptor(MessageEvent.prototype, 'ports')],
    identity: [ch.constructor === MessageChannel, ch instanceof MessageChannel, Object.getPrototypeOf(ch) === MessageChannel.prototype, ch.port1.postMessage === MessagePort.prototype.postMessage, sub instanceof Sub, sub.hello(), sub.port1 instanceof MessagePort],
    errors: [
      attempt(() => MessageChannel()), attempt(() => MessagePort.prototype.postMessage.call({}, 1)), attempt(() => ch.port1.postMessage()),
      attempt(() => ch.port1.postMessage(() => 1)), attempt(() => ch.port1.postMessage({ type: 'surface:register', f: () => 1 })), attempt(() => ch.port1.postMessage(1, [ch.port1])),
      attempt(() => Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'ports').get.call({})), String(new MessageEvent('message', { ports: [ch.port2] }).ports.length),
    ],
    windowNames: Object.getOwnPropertyNames(window).filter((n) => n !== '__OUI_DEVTOOLS_HOOK__').sort().join(),
    // Across realms: a fresh iframe's functions read by this frame's toString, and the other way round.
    crossRealm: (() => {
      const f = document.body.appendChild(document.createElement('iframe'));
      const w = f.contentWindow;
      const borrowed = [w.MessagePort.prototype.postMessage, w.WebSocket.prototype.send, w.MessageChannel];
      const theirToString = w.Function.prototype.toString;
      const out = [MessagePort.prototype.postMessage, WebSocket.prototype.send, MessageChannel].map((fn) => theirToString.call(fn));
      f.remove();
      return out.concat(borrowed.map((fn) => Function.prototype.toString.call(fn)));
    })(),
  };
})()`;

describe('the port tap is invisible', () => {
  let server: FixtureServer;
  let withExt: Browser;
  let without: Browser;
  before(async () => {
    server = await startFixtureServer({ '/': '<!doctype html><title>plain</title><body>' });
    [withExt, without] = await Promise.all([launch({ rows: 'events' }), launch({ extension: false })]);
  });
  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    await server?.close();
  });

  test('MessageChannel and MessagePort.prototype.postMessage have the fingerprint of the native ones, read from this realm or from another', async () => {
    const prints = [];
    for (const browser of [without, withExt]) {
      const p = await browser.context.newPage();
      await p.goto(server.url);
      prints.push(await p.evaluate(FINGERPRINT));
      await p.close();
    }
    const [native, hooked] = prints as Array<Record<string, unknown>>;
    // Sanity: the fingerprint sees what it must (a native source, a real error).
    assert.match(String((native!.postMessage as { source: string }).source), /^function postMessage\(\) \{ \[native code\] \}$/);
    assert.match(String((native!.errors as string[])[3]), /could not be cloned/);
    for (const key of Object.keys(native!)) assert.deepEqual(hooked![key], native![key], key);
  });
});

describe('OUI over MessagePorts in Firefox', () => {
  let host: FixtureServer;
  let other: FixtureServer;
  let ff: Firefox;
  before(async () => {
    other = await startFixtureServer({ '/widget': WIDGET });
    host = await startFixtureServer({ '/': HOST });
    ff = await launchFirefox();
  });
  after(async () => {
    await ff?.close();
    await Promise.all([host?.close(), other?.close()]);
  });

  test('a widget of another origin: the conversation is one client in the panel, each message once with its direction', async () => {
    const app = await ff.browser.newPage();
    await app.goto(`${host.url}/?widget=${encodeURIComponent(`${other.url.replace('127.0.0.1', 'localhost')}/widget?borrow`)}`);
    await waitIn(app, 'the conversation', () => document.title === 'done', null);
    const panel = await openFirefoxPanel(ff, await firefoxTabId(ff, app), { rows: 'events' });
    // Tall enough that the conversation's rows are all in view (the list is virtualised).
    await panel.setViewport({ width: 1280, height: 1600 });
    const rows = () =>
      panel.$$eval('.vlist [role=row]', (els) =>
        els.map((el) => ({
          type: el.getAttribute('data-type') ?? '',
          kind: el.getAttribute('data-client-kind') ?? '',
          client: el.querySelector('.c-client')?.getAttribute('title') ?? '',
          dir: el.querySelector('.c-dir')?.getAttribute('title') ?? '',
          text: (el as HTMLElement).innerText,
        })),
      );
    // Only the conversation's rows: every one names its surface (a result through its request).
    await waitIn(panel, 'the filter', () => !!document.querySelector('input[aria-label="Free-text filter"]'), null);
    await panel.$eval('input[aria-label="Free-text filter"]', (el) => {
      (el as HTMLInputElement).value = 'notes';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const expected = OBSERVATIONS + 3;
    await waitIn(panel, 'the conversation in the panel', (n) => document.querySelectorAll('.vlist [role=row]').length >= n, expected);
    const shown = (await rows()).filter((r) => r.kind === 'postmessage');
    assert.deepEqual(
      shown.map((r) => [r.type, r.dir]),
      [
        ['surface:register', 'from the client'],
        ['action:request', 'to the client'],
        ['action:result', 'from the client'],
        ...Array.from({ length: OBSERVATIONS }, () => ['observation:update', 'from the client']),
      ],
    );
    assert.equal(new Set(shown.map((r) => r.client)).size, 1, 'one client');
    assert.match(shown[0]!.client, /^MessagePort top ↔ top\/\d+$/);
    await panel.close();
    await app.close();
  });
});
