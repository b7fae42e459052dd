/**
 * A page cannot tell the hook from the browser: the same fingerprint of every
 * function and property the hook wraps (names, lengths, source text,
 * descriptors, constructability, constructor identity, thrown errors), with
 * and without the extension, side by side in real Chromium. And what the
 * hook records is what the browser did: a send on a closed socket is not
 * shown as sent, Blobs are read only by the app, forged message events and a
 * redefined frame tree do not become traffic.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { SLOW_MS } from '../support/wait.ts';

/** Runs in the page as text, so no build helper leaks into it. */
const FINGERPRINT = `(async () => {
  const out = {};
  const attempt = (f) => { try { const v = f(); return 'ok ' + (typeof v); } catch (e) { return (e && e.constructor && e.constructor.name) + ': ' + (e && e.message); } };
  const describeFn = (f) => ({
    name: f.name, length: f.length, source: Function.prototype.toString.call(f), string: String(f),
    prototype: typeof f.prototype, own: Object.getOwnPropertyNames(f).sort().join(','),
    construct: attempt(() => new f()), call: attempt(() => f()),
  });
  const descriptor = (o, k) => { const d = Object.getOwnPropertyDescriptor(o, k); return d && [typeof d.value, typeof d.get, d.writable, d.enumerable, d.configurable].join(); };
  const fns = {
    WebSocket: WebSocket, send: WebSocket.prototype.send, fetch: fetch,
    xhrOpen: XMLHttpRequest.prototype.open, xhrSend: XMLHttpRequest.prototype.send,
    toString: Function.prototype.toString, postMessage: window.postMessage,
  };
  for (const [k, f] of Object.entries(fns)) out[k] = describeFn(f);
  out.descriptors = [
    descriptor(window, 'WebSocket'), descriptor(window, 'fetch'), descriptor(WebSocket.prototype, 'send'),
    descriptor(WebSocket.prototype, 'constructor'), descriptor(XMLHttpRequest.prototype, 'open'),
    descriptor(XMLHttpRequest.prototype, 'send'), descriptor(Function.prototype, 'toString'),
    descriptor(window, 'parent'), descriptor(window, 'length'),
  ];
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  out.identity = [ws.constructor === WebSocket, WebSocket.prototype.constructor === WebSocket, ws instanceof WebSocket,
    Object.getPrototypeOf(ws) === WebSocket.prototype, WebSocket.prototype.send === ws.send,
    Function.prototype.toString.call(Function.prototype.toString)];
  out.errors = [
    attempt(() => new WebSocket()), attempt(() => WebSocket('ws://x')), attempt(() => new WebSocket('http://x')),
    attempt(() => WebSocket.prototype.send.call({}, 'x')), attempt(() => ws.send('early')),
    attempt(() => XMLHttpRequest.prototype.open.call({}, 'GET', '/')), attempt(() => XMLHttpRequest.prototype.send.call({})),
    attempt(() => Function.prototype.toString.call({})),
  ];
  // The window's own keys: the documented direct-call global is the one addition, nothing else.
  out.windowSymbols = Object.getOwnPropertySymbols(window).map(String).sort().join();
  out.windowNames = Object.getOwnPropertyNames(window).filter((n) => n !== '__OUI_DEVTOOLS_HOOK__').sort().join();
  out.fetchRejection = await fetch().then(() => 'resolved', (e) => e.constructor.name + ': ' + e.message);
  out.fetchThis = await fetch.call(undefined, '/x?a').then((r) => r.status, (e) => 'rejected ' + e.message);
  class Sub extends WebSocket { hello() { return 1; } }
  const sub = new Sub(location.origin.replace('http', 'ws') + '/ws');
  out.subclass = [sub instanceof Sub, sub instanceof WebSocket, sub.hello(), sub.constructor === Sub];
  ws.close(); sub.close();
  return out;
})()`;

describe('a hook no page can tell apart from the browser', () => {
  let server: FixtureServer;
  let withExt: Browser;
  let without: Browser;
  before(async () => {
    server = await startFixtureServer({
      '/': '<!doctype html><title>plain</title>',
      '/closed': `<!doctype html><title>closed</title><script>
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.binaryType = 'blob';
        window.blobReads = 0;
        const read = Blob.prototype.arrayBuffer;
        Blob.prototype.arrayBuffer = function () { window.blobReads++; return read.call(this); };
        ws.onmessage = (e) => { if (typeof e.data !== 'string') window.gotBlob = true; };
        ws.onopen = () => {
          ws.send('{"type":"surface:register","payload":{"surface":{"id":"s1","name":"S","description":"d","actions":[{"id":"go","description":"d","input":{"type":"object"}}]},"timestamp":1}}');
          ws.send('{"type":"x-sent-while-open","payload":{}}');
          setTimeout(() => {
            ws.close();
            ws.send('{"type":"x-sent-after-close","payload":{}}');
            ws.onclose = () => { ws.send('{"type":"x-sent-when-closed","payload":{}}'); document.title = 'done'; };
          }, 300);
        };
      </script>`,
    });
    server.onConnection((ws) => ws.send(Buffer.from([1, 2, 3])));
    [withExt, without] = await Promise.all([launch({ rows: 'events' }), launch({ extension: false })]);
  });
  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    await server?.close();
  });

  test('every wrapped function and property has the fingerprint of the native one', async () => {
    const prints = [];
    for (const b of [without, withExt]) {
      const p = await b.context.newPage();
      await p.goto(server.url);
      prints.push(await p.evaluate(FINGERPRINT));
      await p.close();
    }
    const [native, hooked] = prints as Array<Record<string, unknown>>;
    // Sanity: the fingerprint sees what it must (a native function's source, a real error).
    assert.match(String((native!.fetch as { source: string }).source), /^function fetch\(\) \{ \[native code\] \}$/);
    assert.match(String((native!.errors as string[])[4]), /CONNECTING/);
    for (const key of Object.keys(native!)) assert.deepEqual(hooked![key], native![key], key);
  });

  test('a send on a closing or closed socket is not shown as sent; the app alone reads its Blobs', async () => {
    const results = [];
    for (const b of [without, withExt]) {
      server.frames.length = 0;
      const app = await b.context.newPage();
      await app.goto(`${server.url}/closed`);
      await app.waitForFunction(() => document.title === 'done');
      results.push({ blobReads: await app.evaluate('window.blobReads'), gotBlob: await app.evaluate('window.gotBlob'), toServer: server.frames.filter((f) => f.dir === 'to-server').map((f) => f.data) });
      if (b === withExt) {
        const panel = await openPanelPage(b, await tabIdOf(b, app));
        // A witness: a frame the page sends after all of that; once the panel shows it, the sends on the closed socket would have shown before.
        await app.evaluate(`const w = new WebSocket(location.origin.replace('http', 'ws') + '/ws'); w.onopen = () => w.send('{"type":"x-witness","payload":{}}');`);
        await panel.waitForFunction(() => document.querySelector('.vlist')?.textContent?.includes('x-witness'), undefined, { timeout: SLOW_MS });
        const rows = await panel.locator('.vlist').innerText();
        assert.match(rows, /x-sent-while-open/);
        assert.doesNotMatch(rows, /sent-after-close|sent-when-closed/);
        await panel.close();
      }
      await app.close();
    }
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[0]!.toServer.slice(1), ['{"type":"x-sent-while-open","payload":{}}']);
    assert.equal(results[0]!.blobReads, 0, 'the app never read its Blob');
  });
});
