/**
 * What the page hook costs the app, measured in real Chromium side by side:
 * without any tap, with the cheapest honest tap (an init script that pushes
 * a timestamp and the data into an array: the floor any capture costs), and
 * with the extension. Scenarios: the app's WebSocket send loop, a burst of
 * inbound frames from the server, a burst of OUI postMessages, and
 * direct-transport calls. (Inbound frames are timed from a real server:
 * both taps record only trusted events, so a synthetic MessageEvent would
 * time a listener that records nothing.) The figure that matters is the
 * hook's cost per item against the tap's. Figures, not assertions; written
 * to bench/hook-results.json.
 *
 * Fairness on a shared, noisy machine: the three browsers are open at once
 * and every round runs each scenario in all of them back to back, in an
 * order that rotates from round to round, so a burst of load elsewhere hits
 * all three alike. Costs are taken per round (with minus without, tap minus
 * without: paired), and the medians of those are reported with their
 * quartiles. Within a round, each browser runs a scenario a few times and
 * the fastest run counts (REPEATS). A first warm-up round is not counted.
 *
 * HOOK_BENCH_ROUNDS sets the number of counted rounds (default 15),
 * HOOK_BENCH_SCENARIOS a subset of the scenarios (then nothing is written);
 * HOOK_BENCH_BASELINE=<dir> adds a fourth browser with another build of the
 * extension (e.g. a copy of dist/chrome from before a change), measured the
 * same way, to compare two hooks under the same load.
 */
import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { launch, chromiumPath, CHROMIUM_FLAGS } from '../test/support/browser.ts';
import { startFixtureServer } from '../test/support/fixture-server.ts';
import { buildId, load, withRun } from './run-history.ts';

const FRAMES = 20_000;
const ROUNDS = Number(process.env.HOOK_BENCH_ROUNDS) || 15;
/**
 * Runs of a scenario per round in each browser, of which the fastest counts:
 * a run the machine's other load preempted is slower, never faster. The
 * server burst takes seconds and runs once.
 */
const REPEATS: Record<string, number> = { send: 5, receive: 1, postMessage: 5, direct: 5 };
const BASELINE = process.env.HOOK_BENCH_BASELINE;

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

const SCENARIOS = {
  send: 'send',
  receive: 'receive',
  postMessage: 'postMessages',
  direct: 'direct',
} as const;
type Scenario = keyof typeof SCENARIOS;
/** HOOK_BENCH_SCENARIOS=postMessage,receive runs only those (and writes no results file: the docs show full runs). */
const ONLY = process.env.HOOK_BENCH_SCENARIOS?.split(',');
const NAMES = (Object.keys(SCENARIOS) as Scenario[]).filter((k) => !ONLY || ONLY.includes(k));

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}
const median = (xs: number[]) => quantile(xs, 0.5);

const loadBefore = load();
const server = await startFixtureServer({ '/': page });
/** Frames the server has received from pages: a measurement is over only once the server has all it was sent. */
let received = 0;
server.onConnection((ws) => {
  ws.on('message', (d) => {
    received++;
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

interface Config {
  name: string;
  page: Page;
  cdp: CDPSession;
  close(): Promise<void>;
}

/** Another build of the extension (HOOK_BENCH_BASELINE), launched as test/support/browser.ts launches dist/chrome. */
async function launchBuild(dir: string): Promise<{ page: Page; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'oui-devtools-bench-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [...CHROMIUM_FLAGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
  if (!context.serviceWorkers().length) await context.waitForEvent('serviceworker', { timeout: 60_000 });
  return {
    page: await context.newPage(),
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= 2) throw e;
    }
  }
}

const configs: Config[] = [];
async function add(name: string, opened: { page: Page; close(): Promise<void> }): Promise<void> {
  const cdp = await opened.page.context().newCDPSession(opened.page);
  await cdp.send('Performance.enable');
  configs.push({ name, cdp, ...opened });
}
for (const [name, extension, tap] of [['without', false, false], ['cheapestTap', false, true], ['with', true, false]] as const) {
  const b = await withRetry(() => launch({ extension }));
  if (tap) await b.context.addInitScript(CHEAPEST_TAP);
  await add(name, { page: await b.context.newPage(), close: () => b.close() });
}
if (BASELINE) await add('baseline', await withRetry(() => launchBuild(BASELINE)));
for (const c of configs) await c.page.goto(server.url);

/** The renderer's CPU time so far, in ms: its main thread's, and all its threads' (GC helpers included). */
async function cpu(c: Config): Promise<{ thread: number; process: number }> {
  const { metrics } = (await c.cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  const get = (n: string) => (metrics.find((m) => m.name === n)?.value ?? NaN) * 1000;
  return { thread: get('ThreadTime'), process: get('ProcessTime') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function settle(expectAtServer: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (received < expectAtServer && Date.now() < until) await sleep(5);
  await sleep(20);
}

type Series = Record<string, Record<Scenario, number[]>>;
const blank = (): Series => Object.fromEntries(configs.map((c) => [c.name, Object.fromEntries(NAMES.map((k) => [k, []]))])) as unknown as Series;
/** Per config, scenario and round: wall time in the page, the main thread's CPU time, the renderer's CPU time (ms). */
const times = blank();
const threadTimes = blank();
const processTimes = blank();

for (let round = 0; round <= ROUNDS; round++) {
  for (const k of NAMES) {
    for (let j = 0; j < configs.length; j++) {
      const c = configs[(round + j) % configs.length]!;
      const expect = received + (k === 'receive' ? 1 : 0);
      const before = await cpu(c);
      let ms = Infinity;
      for (let rep = 0; rep < REPEATS[k]!; rep++) {
        const atServer = received + (k === 'send' ? FRAMES : 0);
        ms = Math.min(ms, await c.page.evaluate(([fn, n]) => (window as any).bench[fn](n), [SCENARIOS[k], FRAMES] as const));
        // The next run starts once the server has what this one sent.
        if (k === 'send') await settle(atServer);
      }
      const after = await cpu(c);
      if (round > 0) {
        times[c.name]![k].push(ms);
        threadTimes[c.name]![k].push((after.thread - before.thread) / REPEATS[k]!);
        processTimes[c.name]![k].push((after.process - before.process) / REPEATS[k]!);
      }
      await settle(expect);
      server.frames.length = 0;
    }
  }
  if (round > 0) process.stderr.write(`round ${round}/${ROUNDS}\r`);
}
process.stderr.write('\n');
for (const c of configs) await c.close();
await server.close();

const labels: Record<Scenario, string> = {
  send: `${FRAMES} ws.send() calls`,
  receive: `${FRAMES} inbound frames from the server to the app's listener`,
  postMessage: `${FRAMES} OUI postMessages delivered`,
  direct: `${FRAMES} direct sendResult() calls`,
};

/** Per-item cost in µs of `name` over `without`, per round (paired). */
function costs(series: Series, name: string, k: Scenario): number[] {
  const wo = series.without![k];
  return series[name]![k].map((ms, i) => ((ms - wo[i]!) * 1000) / FRAMES);
}
const r3 = (x: number) => +x.toFixed(3);

function compare(series: Series, k: Scenario): Record<string, unknown> {
  const tap = costs(series, 'cheapestTap', k);
  const hook = costs(series, 'with', k);
  const tapCost = median(tap);
  const hookCost = median(hook);
  const entry: Record<string, unknown> = {
    hookUsPerItem: r3(hookCost),
    tapUsPerItem: r3(tapCost),
    hookOverTap: tapCost > 0 ? +(hookCost / tapCost).toFixed(2) : null,
    hookUsQuartiles: [r3(quantile(hook, 0.25)), r3(quantile(hook, 0.75))],
    tapUsQuartiles: [r3(quantile(tap, 0.25)), r3(quantile(tap, 0.75))],
  };
  if (BASELINE) {
    const base = median(costs(series, 'baseline', k));
    entry.baselineUsPerItem = r3(base);
    entry.baselineOverTap = tapCost > 0 ? +(base / tapCost).toFixed(2) : null;
  }
  return entry;
}

const results: Record<string, unknown> = {
  node: process.version,
  date: new Date().toISOString(),
  frames: FRAMES,
  rounds: ROUNDS,
  method:
    'the browsers open at once, each round runs every scenario in all of them back to back in a rotating order; costs paired per round (minus the browser without any tap; in each round the fastest of a few runs per browser: send 5, receive 1, postMessage 5, direct 5), medians with quartiles. overhead: wall time in the page (performance.now); overheadCpu: the renderer main thread\'s CPU time (CDP ThreadTime, mean of the runs), overheadRendererCpu: the whole renderer\'s (ProcessTime, coarse)',
};
for (const c of configs) results[c.name] = Object.fromEntries(NAMES.map((k) => [k, r3(median(times[c.name]![k]))]));
const overhead: Record<string, unknown> = {};
const overheadCpu: Record<string, unknown> = {};
const overheadProcessCpu: Record<string, unknown> = {};
const fmt = (e: Record<string, unknown>) => {
  const [h1, h3] = e.hookUsQuartiles as number[];
  const [t1, t3] = e.tapUsQuartiles as number[];
  return `tap +${(e.tapUsPerItem as number).toFixed(3)} us/item [${t1}..${t3}], hook +${(e.hookUsPerItem as number).toFixed(3)} [${h1}..${h3}]: x${e.hookOverTap}${BASELINE ? ` (baseline +${e.baselineUsPerItem}: x${e.baselineOverTap})` : ''}`;
};
for (const k of NAMES) {
  overhead[k] = compare(times, k);
  overheadCpu[k] = compare(threadTimes, k);
  overheadProcessCpu[k] = compare(processTimes, k);
  console.log(`${labels[k]} (without: ${median(times.without![k]).toFixed(1)} ms)`);
  console.log(`  wall        ${fmt(overhead[k] as Record<string, unknown>)}`);
  console.log(`  main thread ${fmt(overheadCpu[k] as Record<string, unknown>)}`);
  console.log(`  renderer    ${fmt(overheadProcessCpu[k] as Record<string, unknown>)}`);
}
results.overhead = overhead;
results.overheadCpu = overheadCpu;
results.overheadRendererCpu = overheadProcessCpu;
if (BASELINE) results.baselineBuild = BASELINE;
results.loadavg = { before: loadBefore, after: load() };
const file = new URL('./hook-results.json', import.meta.url);
const run: Record<string, unknown> = { date: results.date, rounds: ROUNDS, loadavg: results.loadavg };
for (const k of NAMES) {
  const o = overhead[k] as Record<string, number | null>;
  const c = overheadCpu[k] as Record<string, number | null>;
  run[k] = { hookUs: o.hookUsPerItem, tapUs: o.tapUsPerItem, hookOverTap: o.hookOverTap, cpuHookUs: c.hookUsPerItem, cpuTapUs: c.tapUsPerItem, cpuHookOverTap: c.hookOverTap };
}
results.runs = withRun(file, buildId(), run);
if (!ONLY) writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
