/**
 * What a page pays while the OUI panel is open and live, side by side in one
 * run: a page that receives a burst of 6,000 inbound OUI frames over its
 * WebSocket, in a browser without the extension and in one with the
 * extension whose panel is open on that tab (the panel page, the same code
 * DevTools hosts, so DevTools' own cost is not counted). Per round, both
 * pages reload and take the burst back to back (order alternating); the
 * figures are medians over the rounds of:
 *   - the ratio of the wall time from the request to the last frame;
 *   - the difference of the longest main-thread stall (the longest gap
 *     between animation frames during the burst).
 * Figures, not assertions; written to bench/devtools-open-results.json.
 *
 * DEVTOOLS_BENCH_ROUNDS sets the rounds (default 9). DEVTOOLS_BENCH_BASELINE=<dir>
 * adds a side with another build of the extension (a copy of dist/chrome from
 * before a change) and its panel page, against the same browser without the
 * extension, to compare two builds under the same load; DEVTOOLS_BENCH_PANEL_ONLY=1
 * leaves out the real DevTools pair. Either writes no results file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { buildId, withRun } from './run-history.ts';
import { CHROMIUM_FLAGS, chromiumPath, launch, openDevtoolsPanel, openPanelPage, tabIdOf, type Browser } from '../test/support/browser.ts';
import { startFixtureServer } from '../test/support/fixture-server.ts';

const FRAMES = 6_000;
const ROUNDS = Number(process.env.DEVTOOLS_BENCH_ROUNDS) || 9;
const BASELINE = process.env.DEVTOOLS_BENCH_BASELINE;
const PANEL_ONLY = process.env.DEVTOOLS_BENCH_PANEL_ONLY === '1';

const page = `<!doctype html><title>stream</title><script>
window.stream = async (n) => {
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  await new Promise((r) => (ws.onopen = r));
  let got = 0, longest = 0, last = performance.now(), watching = true;
  const tick = (now) => { longest = Math.max(longest, now - last); last = now; if (watching) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const t0 = performance.now();
  ws.send('burst:' + n);
  const kept = [];
  await new Promise((r) => (ws.onmessage = (e) => { kept.push(JSON.parse(e.data).payload.requestId); if (++got === n) r(); }));
  const wall = performance.now() - t0;
  // The stall that ends the burst counts too: one more frame after the last message.
  await new Promise((r) => requestAnimationFrame((now) => { longest = Math.max(longest, now - last); r(); }));
  watching = false;
  ws.close();
  return { wall, stall: longest, kept: kept.length };
};
</script>`;

const server = await startFixtureServer({ '/': page });
server.onConnection((ws) => {
  ws.on('message', (d) => {
    const m = /^burst:(\d+)$/.exec(String(d));
    if (!m) return;
    for (let i = 0; i < Number(m[1]); i++) {
      ws.send(JSON.stringify({ type: 'action:request', payload: { requestId: `r-${i}`, surfaceId: 'bench', actionId: 'go', params: { x: 'y'.repeat(120) }, timestamp: Date.now() } }));
    }
  });
});
interface Side {
  name: string;
  b: Browser;
  app: Page;
  /** Where the panel runs, to check it was live. */
  panel: Page | import('playwright-core').Frame | null;
}

/** A browser and its page: with or without the extension, with the panel as a page, or with real DevTools open on the tab. */
async function open(name: string, extension: boolean, devtools: boolean): Promise<Side> {
  const b = await launch({ extension, devtools, viewport: { width: 1200, height: 800 } });
  const app = await b.context.newPage();
  await app.goto(server.url);
  let panel: Side['panel'] = null;
  if (extension && devtools) panel = await openDevtoolsPanel(b);
  else if (extension) panel = await openPanelPage(b, await tabIdOf(b, app));
  if (panel) await panel.waitForSelector('[data-testid=connection].on');
  await app.bringToFront();
  return { name, b, app, panel };
}

/** Another build of the extension (DEVTOOLS_BENCH_BASELINE) with its panel page open on the app's tab, launched as test/support/browser.ts launches dist/chrome. */
async function openBuild(name: string, dir: string): Promise<Side> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'oui-devtools-bench-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1200, height: 800 },
    args: [...CHROMIUM_FLAGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 60_000 }));
  const b: Browser = {
    context,
    extensionId: new URL(worker.url()).host,
    worker,
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  const app = await context.newPage();
  await app.goto(server.url);
  const panel = await openPanelPage(b, await tabIdOf(b, app));
  await panel.waitForSelector('[data-testid=connection].on');
  await app.bringToFront();
  return { name, b, app, panel };
}

/** The CPU time (ms) of the page's main thread so far (CDP ThreadTime): what the hook and the bridge take from the app, whatever the machine's load. */
const cdps = new Map<Page, import('playwright-core').CDPSession>();
async function threadTime(p: Page): Promise<number> {
  let cdp = cdps.get(p);
  if (!cdp) {
    cdp = await p.context().newCDPSession(p);
    await cdp.send('Performance.enable');
    cdps.set(p, cdp);
  }
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  return (metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
}

function trigger(p: Page): Promise<{ wall: number; stall: number; kept: number }> {
  return p.evaluate((n) => (window as unknown as { stream(n: number): Promise<{ wall: number; stall: number; kept: number }> }).stream(n), FRAMES);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  return s[Math.floor(i)]! + (s[Math.ceil(i)]! - s[Math.floor(i)]!) * (i - Math.floor(i));
};
const median = (xs: number[]) => quantile(xs, 0.5);

/** Pairs measured side by side: the extension's cost with its panel as a page, and with real DevTools open on both sides. */
const loadBefore = loadavg();
// After the launches: a stale dist/ is rebuilt by the first one.
let build = '';
const without = await open('without the extension', false, false);
const PAIRS: Array<readonly [string, Side, Side]> = [['panel page', await open('with the panel page', true, false), without]];
if (BASELINE) PAIRS.push(['baseline build, panel page', await openBuild('the baseline build with its panel page', BASELINE), without]);
if (!PANEL_ONLY) PAIRS.push(['real DevTools', await open('with DevTools on the OUI panel', true, true), await open('DevTools open, without the extension', false, true)]);
build = buildId();
const sides = [...new Set(PAIRS.flatMap(([, w, wo]) => [w, wo]))];
const series = new Map<string, { ratios: number[]; stalls: number[]; threadRatios: number[]; raw: unknown[] }>(
  PAIRS.map(([name]) => [name, { ratios: [], stalls: [], threadRatios: [], raw: [] }]),
);

for (let round = 0; round <= ROUNDS; round++) {
  // Every side takes its burst in turn, in an order that rotates, so a burst of load elsewhere hits all alike.
  const got = new Map<Side, { wall: number; stall: number; kept: number; thread: number }>();
  for (let j = 0; j < sides.length; j++) {
    const side = sides[(round + j) % sides.length]!;
    await side.app.bringToFront();
    const thread0 = await threadTime(side.app);
    const r = await trigger(side.app);
    const thread = (await threadTime(side.app)) - thread0;
    got.set(side, { ...r, thread });
  }
  for (const [name, w, wo] of PAIRS) {
    const a = got.get(w)!;
    const z = got.get(wo)!;
    if (a.kept !== FRAMES || z.kept !== FRAMES) throw new Error('a page lost frames');
    if (round === 0) continue; // warm-up
    const s = series.get(name)!;
    s.ratios.push(a.wall / z.wall);
    s.stalls.push(a.stall - z.stall);
    if (a.thread > 0 && z.thread > 0) s.threadRatios.push(a.thread / z.thread);
    s.raw.push({ with: { wall: +a.wall.toFixed(1), stall: +a.stall.toFixed(1), thread: +a.thread.toFixed(1) }, without: { wall: +z.wall.toFixed(1), stall: +z.stall.toFixed(1), thread: +z.thread.toFixed(1) } });
  }
  if (round > 0) process.stderr.write(`round ${round}/${ROUNDS}\r`);
}
process.stderr.write('\n');
// The panels really were live all along.
const live = await Promise.all(PAIRS.map(([, w]) => w.panel!.evaluate(() => document.querySelector('[data-testid=connection]')?.classList.contains('on') ?? false)));
for (const s of sides) await s.b.close();
await server.close();

const summary = (xs: number[], digits: number) => ({ median: +median(xs).toFixed(digits), quartiles: [+quantile(xs, 0.25).toFixed(digits), +quantile(xs, 0.75).toFixed(digits)] });
const results: Record<string, unknown> = {
  node: process.version,
  date: new Date().toISOString(),
  frames: FRAMES,
  rounds: ROUNDS,
  method:
    'browsers side by side: with the extension and its panel open and live on the tab, and without the extension; once with the panel as a page, once with real DevTools open on both sides (on the OUI panel, and without the extension). Each round every page takes a burst of inbound OUI frames in a rotating order; wall = request to last frame in the page; stall = the longest gap between animation frames during the burst. Medians over rounds (first round not counted), with quartiles',
  goal: 'wall ratio <= 1.2, stall delta <= +50 ms',
  panelsLive: live,
  /** The machine's load average (1, 5, 15 min) before and after the run: the figures are side by side, but a loaded machine spreads them. */
  loadavg: { before: loadBefore.map((x) => +x.toFixed(2)), after: loadavg().map((x) => +x.toFixed(2)) },
};
for (const [name] of PAIRS) {
  const s = series.get(name)!;
  const r = { wallRatio: summary(s.ratios, 2), stallDeltaMs: summary(s.stalls, 1), pageThreadRatio: summary(s.threadRatios, 2), raw: s.raw };
  results[name] = r;
  console.log(`${FRAMES} inbound frames, ${name}: x${r.wallRatio.median} [${r.wallRatio.quartiles.join('..')}], longest stall ${r.stallDeltaMs.median >= 0 ? '+' : ''}${r.stallDeltaMs.median} ms [${r.stallDeltaMs.quartiles.join('..')}], page main thread's CPU x${r.pageThreadRatio.median} [${r.pageThreadRatio.quartiles.join('..')}]`);
}
const file = new URL('./devtools-open-results.json', import.meta.url);
const run: Record<string, unknown> = { date: results.date, rounds: ROUNDS, loadavg: results.loadavg };
for (const [name] of PAIRS) {
  const r = results[name] as Record<string, { median: number } | undefined>;
  run[name] = { wallRatio: r.wallRatio?.median, stallDeltaMs: r.stallDeltaMs?.median, pageThreadRatio: r.pageThreadRatio?.median };
}
results.runs = withRun(file, build, run);
if (!BASELINE && !PANEL_ONLY) writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
