/**
 * What the page hook costs the app, measured in real Chromium side by side:
 * without any tap, with the cheapest honest tap (an init script that pushes
 * a timestamp and the data into an array: the floor any capture costs), and
 * with the extension. Scenarios: the app's WebSocket send loop, inbound
 * frames dispatched to its listener (synthetic, so only listener work is
 * timed), a burst of inbound frames from the server, a burst of OUI
 * postMessages, and direct-transport calls. The figure that matters is the
 * hook's cost per item against the tap's. Figures, not assertions; written
 * to bench/hook-results.json.
 */
import { writeFileSync } from 'node:fs';
import { launch, type Browser } from '../test/support/browser.ts';
import { startFixtureServer } from '../test/support/fixture-server.ts';

const FRAMES = 20_000;
const ROUNDS = 7;

const page = `<!doctype html><title>bench</title><script>
const frame = JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'bench', observationId: 'n', value: { items: [1, 2, 3], label: 'x'.repeat(120) }, timestamp: 1 } });
window.bench = {
  async send(n) {
    const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
    await new Promise((r) => (ws.onopen = r));
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ws.send(frame);
    const t = performance.now() - t0;
    ws.close();
    return t;
  },
  async dispatch(n) {
    const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
    await new Promise((r) => (ws.onopen = r));
    let got = 0;
    ws.onmessage = () => { got++; };
    const origin = location.origin.replace('http', 'ws');
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ws.dispatchEvent(new MessageEvent('message', { data: frame, origin }));
    const t = performance.now() - t0;
    ws.close();
    if (got !== n) throw new Error('lost events');
    return t;
  },
  async receive(n) {
    const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
    await new Promise((r) => (ws.onopen = r));
    let got = 0, first = 0;
    const done = new Promise((r) => (ws.onmessage = () => { if (!got++) first = performance.now(); if (got === n) r(performance.now() - first); }));
    ws.send('burst:' + n);
    const t = await done;
    ws.close();
    return t;
  },
  async postMessages(n) {
    let got = 0;
    const t0 = performance.now();
    const done = new Promise((r) => window.addEventListener('message', function on() { if (++got === n) { window.removeEventListener('message', on); r(performance.now() - t0); } }));
    const msg = JSON.parse(frame);
    for (let i = 0; i < n; i++) window.postMessage(msg, location.origin);
    return done;
  },
  direct(n) {
    const transport = { sendResult(r, ack) { if (ack) ack({ ok: true }); }, onAction(h) { return () => {}; } };
    window.__OUI_DEVTOOLS_HOOK__?.attach(transport, { label: 'bench' });
    const result = { requestId: 'r', success: true, data: { ok: 1, items: [1, 2, 3] }, timestamp: 1, surfacesHash: 'fnv1a64:0000000000000000' };
    const t0 = performance.now();
    for (let i = 0; i < n; i++) transport.sendResult(result, () => {});
    return performance.now() - t0;
  },
};
</script>`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(b: Browser, url: string): Promise<Record<string, number>> {
  const p = await b.context.newPage();
  await p.goto(url);
  const out: Record<string, number[]> = { send: [], dispatch: [], receive: [], postMessage: [], direct: [] };
  for (let i = 0; i < ROUNDS; i++) {
    out.send!.push(await p.evaluate((n) => (window as any).bench.send(n), FRAMES));
    out.dispatch!.push(await p.evaluate((n) => (window as any).bench.dispatch(n), FRAMES));
    out.receive!.push(await p.evaluate((n) => (window as any).bench.receive(n), FRAMES));
    out.postMessage!.push(await p.evaluate((n) => (window as any).bench.postMessages(n), FRAMES));
    out.direct!.push(await p.evaluate((n) => (window as any).bench.direct(n), FRAMES));
  }
  await p.close();
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
}

const server = await startFixtureServer({ '/': page });
server.onConnection((ws) => {
  ws.on('message', (d) => {
    const m = /^burst:(\d+)$/.exec(String(d));
    if (!m) return;
    const frame = JSON.stringify({ type: 'action:request', payload: { requestId: 'r', surfaceId: 'bench', actionId: 'go', params: { x: 'y'.repeat(120) }, timestamp: 1 } });
    for (let i = 0; i < Number(m[1]); i++) ws.send(frame);
  });
});

/** The cheapest honest tap: a timestamp and the data pushed into an array, nothing else. */
const CHEAPEST_TAP = `(() => {
  const log = []; window.__tapLog = log;
  const N = WebSocket, send = N.prototype.send;
  N.prototype.send = function (d) { log.push(performance.now(), d); return send.call(this, d); };
  window.WebSocket = new Proxy(N, { construct(t, a, nt) { const ws = Reflect.construct(t, a, nt); ws.addEventListener('message', (e) => log.push(performance.now(), e.data)); return ws; } });
  addEventListener('message', (e) => log.push(performance.now(), e.data), true);
  window.__OUI_DEVTOOLS_HOOK__ = { attach(t) { const sr = t.sendResult; t.sendResult = function (r, ack) { log.push(performance.now(), r); return sr.call(this, r, ack); }; } };
})();`;

const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString(), frames: FRAMES, rounds: ROUNDS };
for (const [name, extension, tap] of [['without', false, false], ['cheapestTap', false, true], ['with', true, false]] as const) {
  const b = await launch({ extension });
  try {
    if (tap) await b.context.addInitScript(CHEAPEST_TAP);
    results[name] = await measure(b, server.url);
  } finally {
    await b.close();
  }
}
await server.close();

const w = results.with as Record<string, number>;
const wo = results.without as Record<string, number>;
const tap = results.cheapestTap as Record<string, number>;
const labels: Record<string, string> = {
  send: `${FRAMES} ws.send() calls`,
  dispatch: `${FRAMES} inbound frames dispatched to the app's listener`,
  receive: `${FRAMES} inbound frames from the server to the app's listener`,
  postMessage: `${FRAMES} OUI postMessages delivered`,
  direct: `${FRAMES} direct sendResult() calls`,
};
const perItem = (_k: string, ms: number) => (ms * 1000) / FRAMES;
const overhead: Record<string, unknown> = {};
for (const k of Object.keys(labels)) {
  const hookCost = perItem(k, w[k]! - wo[k]!);
  const tapCost = perItem(k, tap[k]! - wo[k]!);
  overhead[k] = { hookUsPerItem: +hookCost.toFixed(3), tapUsPerItem: +tapCost.toFixed(3), hookOverTap: tapCost > 0 ? +(hookCost / tapCost).toFixed(2) : null };
  console.log(
    `${labels[k]}: without ${wo[k]!.toFixed(1)} ms | cheapest tap ${tap[k]!.toFixed(1)} ms (+${tapCost.toFixed(2)} us/item) | the hook ${w[k]!.toFixed(1)} ms (+${hookCost.toFixed(2)} us/item, ${tapCost > 0 ? `x${(hookCost / tapCost).toFixed(2)} the tap's cost` : 'tap cost below noise'})`,
  );
}
results.overhead = overhead;
writeFileSync(new URL('./hook-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
