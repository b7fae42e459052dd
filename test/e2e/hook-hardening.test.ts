/**
 * The hook's threat model in the app's own frame (content/primordials.ts):
 * code of the app's that runs after the hook and replaces built-ins (Array,
 * Map, Set, WeakMap, WeakSet, String and RegExp methods, the array and
 * collection iterators, queueMicrotask) neither sees the hook's work nor
 * changes it. The replacements here log every call whose caller is the
 * hook's script (its frames are chrome-extension:// URLs) and pass every call
 * through. Capture of every transport stays complete, the app's own calls go
 * through its replacements as before, and none was called by the hook.
 *
 * And inbound WebSocket traffic is what the browser delivers: a MessageEvent
 * the page dispatches on its own socket reaches the app's listener but is
 * not recorded, while a real frame from the server after it is.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { until } from '../support/wait.ts';

const N = 12;

/** Runs in the app's frame, after the hook: replaces built-ins with loggers that pass every call through. */
const PATCH = `
  window.hookCalls = [];
  window.appCalls = 0;
  const split = String.prototype.split, includes = String.prototype.includes, apply = Reflect.apply;
  /** The hook's frame that called the replacement (its first non-native caller, when that is the hook's script), or ''. */
  function byHook() {
    const lines = apply(split, String(new Error().stack), ['\\n']);
    for (let i = 3; i < lines.length; i++) {
      if (apply(includes, lines[i], ['<anonymous>'])) continue;
      return apply(includes, lines[i], ['chrome-extension://']) ? lines[i] : '';
    }
    return '';
  }
  function watch(obj, name, label) {
    const f = obj[name];
    if (typeof f !== 'function') return;
    Object.defineProperty(obj, name, { configurable: true, writable: true, value: function (...a) {
      const at = byHook();
      if (at) hookCalls[hookCalls.length] = label + ' ' + at; else appCalls++;
      return apply(f, this, a);
    } });
  }
  for (const n of ['push', 'pop', 'shift', 'unshift', 'slice', 'splice', 'join', 'concat', 'includes', 'indexOf', 'map', 'filter', 'forEach', 'values', 'keys', 'entries']) watch(Array.prototype, n, 'Array#' + n);
  watch(Array.prototype, Symbol.iterator, 'Array#@@iterator');
  watch(Object.getPrototypeOf([][Symbol.iterator]()), 'next', 'ArrayIterator#next');
  for (const n of ['get', 'set', 'has', 'delete', 'forEach', 'keys', 'values', 'entries']) watch(Map.prototype, n, 'Map#' + n);
  watch(Map.prototype, Symbol.iterator, 'Map#@@iterator');
  watch(Object.getPrototypeOf(new Map().keys()), 'next', 'MapIterator#next');
  for (const n of ['add', 'has', 'delete', 'forEach', 'values']) watch(Set.prototype, n, 'Set#' + n);
  watch(Set.prototype, Symbol.iterator, 'Set#@@iterator');
  watch(Object.getPrototypeOf(new Set().values()), 'next', 'SetIterator#next');
  for (const n of ['get', 'set', 'has', 'delete']) watch(WeakMap.prototype, n, 'WeakMap#' + n);
  for (const n of ['add', 'has', 'delete']) watch(WeakSet.prototype, n, 'WeakSet#' + n);
  for (const n of ['slice', 'includes', 'indexOf', 'split', 'startsWith', 'charCodeAt']) watch(String.prototype, n, 'String#' + n);
  for (const n of ['exec', 'test']) watch(RegExp.prototype, n, 'RegExp#' + n);
  watch(window, 'queueMicrotask', 'queueMicrotask');
`;

const page = `<!doctype html><title>hardening</title><script>
  // Before the replacements: a stack taken in an app function the hook calls shows the hook's frames as chrome-extension:// URLs (the witness that the loggers can tell).
  window.witness = '';
  const transport = {
    sendResult(result, ack) { if (!window.witness) window.witness = new Error().stack; if (ack) ack({ ok: true }); },
    onAction(handler) { window.handler = handler; return () => {}; },
  };
  window.__OUI_DEVTOOLS_HOOK__.attach(transport, { label: 'hardened' });
  transport.sendResult({ requestId: 'direct-0', success: true, timestamp: 1 }, () => {});
  ${PATCH}
  window.appOwn = () => { const a = []; a.push(1, 2); const m = new Map(); m.set('k', [...a]); return m.get('k').join('+') + '/' + [...m.keys()].length; };
  window.run = async (from, to) => {
    const ws = window.ws ??= await new Promise((r) => { const s = new WebSocket(location.origin.replace('http', 'ws') + '/ws'); s.onopen = () => r(s); s.onmessage = (e) => { window.got = (window.got || 0) + 1; }; });
    for (let i = from; i < to; i++) {
      ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'hard', observationId: 'ws', value: i, timestamp: i } }));
      ws.send('{"tick":' + i + '}');
      window.postMessage({ type: 'observation:update', payload: { surfaceId: 'hard', observationId: 'pm', value: i, timestamp: i } }, location.origin);
      transport.sendResult({ requestId: 'direct-' + i, success: true, data: { i }, timestamp: i }, () => {});
    }
    ws.send('echo:' + from + ':' + to);
  };
  document.title = 'ready';
</script>`;

const forgery = `<!doctype html><title>forgery</title><script>
  window.heard = [];
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  ws.onmessage = (e) => window.heard.push(String(e.data));
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'forge', name: 'F', description: 'd', actions: [] }, timestamp: 1 } }));
    // Untrusted: dispatched by the page itself on its own socket.
    ws.dispatchEvent(new MessageEvent('message', { data: JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'forge', observationId: 'forged', value: 1, timestamp: 2 } }), origin: location.origin.replace('http', 'ws') }));
    ws.send('real-please');
  };
</script>`;

async function rows(panel: Page): Promise<string[]> {
  return panel.locator('.vlist [role=row]').allInnerTexts();
}

async function waitForRows(panel: Page, what: string, predicate: (rows: string[]) => boolean): Promise<string[]> {
  let last: string[] = [];
  await until(async () => predicate((last = await rows(panel))), what, 20_000, 100).catch((e: Error) =>
    assert.fail(`${e.message}; last ${last.length} rows:\n${last.slice(-12).join('\n')}`),
  );
  return last;
}

/** The numbers `n` of rows saying `<id> = n`. */
function numbered(list: string[], id: string): Set<number> {
  const out = new Set<number>();
  const re = new RegExp(`\\b${id} = (\\d+)`);
  for (const r of list) {
    const m = re.exec(r);
    if (m) out.add(Number(m[1]));
  }
  return out;
}

describe('the hook in an app frame that replaces built-ins', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({ '/': page, '/forgery': forgery });
    server.onConnection((ws) =>
      ws.on('message', (d) => {
        const text = String(d);
        const m = /^echo:(\d+):(\d+)$/.exec(text);
        if (m) for (let i = Number(m[1]); i < Number(m[2]); i++) ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'hard', observationId: 'in', value: i, timestamp: i } }));
        if (text === 'real-please') ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'forge', observationId: 'real', value: 2, timestamp: 3 } }));
      }),
    );
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 3000 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  test('capture stays complete, the app\'s own calls go through its replacements, and the hook calls none of them', async () => {
    const app = await b.context.newPage();
    await app.goto(server.url);
    await app.waitForFunction(() => document.title === 'ready');
    // The witness: the loggers can see the hook, since its frames are on the stack of what it calls.
    assert.match(String(await app.evaluate('window.witness')), /chrome-extension:\/\//, 'a hook frame is named by its extension URL');

    // Before a panel: captured into the buffer, replayed on subscribe.
    await app.evaluate(`run(0, ${N / 2})`);
    await app.waitForFunction((n) => (window as unknown as { got?: number }).got === n, N / 2);
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    await panel.setViewportSize({ width: 1400, height: 3000 });
    await waitForRows(panel, 'the replayed half', (r) => numbered(r, 'ws').size >= N / 2 && numbered(r, 'in').size >= N / 2);
    // With the panel live: flushed as it comes.
    await app.evaluate(`run(${N / 2}, ${N})`);
    // The direct results (one before the replacements, N after) and their acknowledgments.
    const results = (r: string[]) => r.filter((x) => /direct\s+↑\s+action:result/.test(x)).length;
    const acks = (r: string[]) => r.filter((x) => /direct\s+↓\s+ack/.test(x)).length;
    await waitForRows(panel, 'every frame of every transport', (r) => numbered(r, 'ws').size === N && numbered(r, 'pm').size === N && numbered(r, 'in').size === N && results(r) === N + 1 && acks(r) === N + 1);
    // The app's own calls are its replacements' as before, with the same results.
    const before = (await app.evaluate('window.appCalls')) as number;
    assert.equal(await app.evaluate('appOwn()'), '1+2/1');
    assert.ok(((await app.evaluate('window.appCalls')) as number) > before, 'the app\'s calls went through its replacements');
    assert.deepEqual(await app.evaluate('window.hookCalls'), [], 'the hook called none of the replaced built-ins');
    await app.close();
    await panel.close();
  });

  test('a MessageEvent the page dispatches on its own socket is not recorded; a real frame after it is', async () => {
    const app = await b.context.newPage();
    await app.goto(`${server.url}/forgery`);
    const panel = await openPanelPage(b, await tabIdOf(b, app));
    await panel.setViewportSize({ width: 1400, height: 1200 });
    // Positive witness first: the server's frame, sent after the forgery, is there.
    const list = await waitForRows(panel, 'the real frame', (r) => r.some((x) => /\breal = 2\b/.test(x)));
    assert.ok(list.some((x) => x.includes('surface:register')), 'the app\'s own send is captured');
    assert.ok(!list.some((x) => /\bforged\b/.test(x)), `the forged event is not a row:\n${list.join('\n')}`);
    // The app itself heard both, as without the hook.
    const heard = (await app.evaluate('window.heard')) as string[];
    assert.equal(heard.length, 2);
    assert.ok(heard[0]!.includes('forged') && heard[1]!.includes('real'));
    await app.close();
    await panel.close();
  });
});
