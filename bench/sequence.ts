import { writeFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { launch } from '../test/support/browser.ts';
import { exportSession } from '../src/session/wire/session-file.ts';
import { replay } from '../src/session/model/session-model.ts';
import { buildSequence } from '../src/session/sequence/spans.ts';
import { SpanIndex } from '../src/session/sequence/span-index.ts';
import { latencyTable } from '../src/session/sequence/latency.ts';
import { traffic } from './sequence-traffic.ts';
import { liveTicks, type LiveFigures } from './sequence-live.ts';

/** In the page: from "Show in Timeline" to the Timeline counting the narrowed list, ms. */
const LISTED = `new Promise((resolve) => {
  const t0 = performance.now();
  const done = () => {
    const el = document.querySelector('[data-testid=event-count]');
    const m = /(\\d+) \\/ (\\d+) events/.exec(el ? el.textContent : '');
    if (m && Number(m[1]) < Number(m[2])) return resolve(performance.now() - t0);
    requestAnimationFrame(done);
  };
  [...document.querySelectorAll('button')].find((x) => x.textContent === 'Show in Timeline').click();
  requestAnimationFrame(done);
})`;
const STEPS = 12;
/** The 1-minute load average now, and a figure with the load before and after it was taken. */
const load = () => round(loadavg()[0]!, 1);

const { clients, events } = traffic();
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString(), events: events.length, loadAverage: loadavg().map((n) => round(n)) };

// ── Node: the layout and the index ───────────────────────────────────────────
{
  const byClient = new Map(clients.map((c) => [c.key, c]));
  const model = replay(events.map((ev) => ({ ev, client: byClient.get(ev.client)! })));
  const byId = new Map(events.map((e) => [e.id, e]));
  const now = events[events.length - 1]!.t;
  const builds: number[] = [];
  const buildCpu: number[] = [];
  let layout = buildSequence(model, (id) => byId.get(id), now);
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    layout = buildSequence(model, (id) => byId.get(id), now);
    const c1 = process.cpuUsage(c0);
    builds.push(performance.now() - t0);
    // CPU time too: on a shared machine the wall clock says as much about the neighbours.
    buildCpu.push((c1.user + c1.system) / 1000);
  }
  buildCpu.sort((a, b) => a - b);
  const t0 = performance.now();
  const index = new SpanIndex(layout.spans);
  const indexMs = performance.now() - t0;
  const t1 = performance.now();
  latencyTable(layout.spans);
  const latencyMs = performance.now() - t1;
  const queries: number[] = [];
  const span = layout.t1 - layout.t0;
  for (let k = 0; k < 200; k++) {
    const width = span / 2 ** (k % 12);
    const from = layout.t0 + ((k * 7919) % 1000) / 1000 * (span - width);
    const q0 = performance.now();
    let n = 0;
    index.visit(from, from + width, () => void n++);
    queries.push(performance.now() - q0);
  }
  queries.sort((a, b) => a - b);
  builds.sort((a, b) => a - b);
  const liveNode = liveTicks();
  results.liveNode = { ...liveNode, load: load() };
  console.log('live layout, Node', results.liveNode);
  results.layout = { spans: layout.spans.length, lanes: layout.lanes.length, buildMsMedian: round(builds[2]!), buildCpuMsMedian: round(buildCpu[2]!), indexMs: round(indexMs), latencyTableMs: round(latencyMs), windowQueryMsP50: round(queries[100]!, 3), windowQueryMsMax: round(queries[queries.length - 1]!, 3) };
  console.log("layout", results.layout);
}

function round(n: number, digits = 2): number {
  return Number(n.toFixed(digits));
}

// ── Chromium: the built panel ────────────────────────────────────────────────
const dir = mkdtempSync(join(tmpdir(), 'oui-bench-seq-'));
const file = join(dir, 'session.json');
writeFileSync(file, JSON.stringify(exportSession(clients, events)));
const b = await launch({ viewport: { width: 1400, height: 900 } });
try {
  // The live layout in a Chromium page: bench/sequence-live.ts bundled, fed the same traffic tick by tick.
  const bundle = await build({ entryPoints: [fileURLToPath(new URL('./sequence-live.ts', import.meta.url))], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'chrome120' });
  const lp = await b.context.newPage();
  await lp.goto('about:blank');
  await lp.addScriptTag({ content: bundle.outputFiles[0]!.text });
  const loadBefore = load();
  const liveChromium = (await lp.evaluate('liveTicks(250)')) as LiveFigures;
  results.liveChromium = { ...liveChromium, load: [loadBefore, load()] };
  console.log('live layout, Chromium', results.liveChromium);
  await lp.close();

  const p = await b.context.newPage();
  await p.goto(`chrome-extension://${b.extensionId}/panel.html`);
  const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.getByRole('button', { name: 'open a session file' }).click()]);
  await chooser.setFiles(file);
  await p.waitForFunction((n) => document.querySelector('[data-testid=event-count]')?.textContent?.includes(`/ ${n} events`), events.length, { timeout: 180_000 });
  const open0 = performance.now();
  await p.getByRole('tab', { name: 'Sequence', exact: true }).click();
  const canvas = p.getByRole('img', { name: /^Spans of/ });
  await canvas.waitFor({ timeout: 120_000 });
  await p.waitForFunction(() => Number((document.querySelector('.sequence canvas') as HTMLElement | null)?.dataset.spansDrawn ?? 0) > 0, undefined, { timeout: 120_000 });
  results.openViewMs = Math.round(performance.now() - open0);
  const stepCount = () => canvas.evaluate((el) => Number((el as HTMLElement).dataset.steps ?? 0));
  /** Runs `act`, waits for the step's draw, returns its input-to-drawn time and the spans the draw read. */
  const builds = () => canvas.evaluate((el) => Number((el as HTMLElement).dataset.builds ?? 0));
  const builds0 = await builds();
  // The panel's main-thread CPU time (CDP ThreadTime): what a step asks of the machine, whatever the load.
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Performance.enable');
  const threadMs = async () => (((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
  const step = async (act: () => Promise<void>): Promise<{ ms: number; spans: number; drawMs: number; cpuMs: number }> => {
    const before = await stepCount();
    const cpu0 = await threadMs();
    await act();
    await p.waitForFunction((n) => Number((document.querySelector('.sequence canvas') as HTMLElement).dataset.steps ?? 0) > n, before, { timeout: 30_000, polling: 5 });
    const cpuMs = (await threadMs()) - cpu0;
    return { cpuMs, ...(await canvas.evaluate((el) => ({ ms: Number((el as HTMLElement).dataset.stepMs), spans: Number((el as HTMLElement).dataset.spansDrawn), drawMs: Number((el as HTMLElement).dataset.drawMs) }))) };
  };
  const summary = (xs: Array<{ ms: number; spans: number; drawMs: number; cpuMs: number }>, loads: number[]) => {
    const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
    const draw = xs.map((x) => x.drawMs).sort((a, b) => a - b);
    const cpu = xs.map((x) => x.cpuMs).sort((a, b) => a - b);
    return { cpuP50Ms: round(cpu[Math.ceil(cpu.length / 2) - 1]!), cpuP95Ms: round(cpu[Math.ceil(cpu.length * 0.95) - 1]!), drawP50Ms: round(draw[Math.ceil(draw.length / 2) - 1]!), drawMaxMs: round(draw[draw.length - 1]!), steps: ms.length, p50Ms: round(ms[Math.ceil(ms.length / 2) - 1]!), p95Ms: round(ms[Math.ceil(ms.length * 0.95) - 1]!), maxMs: round(ms[ms.length - 1]!), spansDrawnMax: Math.max(...xs.map((x) => x.spans)), load: [Math.min(...loads), Math.max(...loads)] };
  };
  const loads: Record<string, number[]> = { zoomKeys: [], zoomWheel: [], pan: [], brush: [] };
  await canvas.focus();
  // Zoom in from the whole session to a few requests, and back out.
  const zoomSteps: Array<{ ms: number; spans: number; drawMs: number; cpuMs: number }> = [];
  for (let k = 0; k < STEPS; k++) zoomSteps.push(await step(() => p.keyboard.press('+'))), loads.zoomKeys!.push(load());
  for (let k = 0; k < STEPS; k++) zoomSteps.push(await step(() => p.keyboard.press('-'))), loads.zoomKeys!.push(load());
  const box = (await canvas.boundingBox())!;
  const wheelSteps: Array<{ ms: number; spans: number; drawMs: number; cpuMs: number }> = [];
  await p.mouse.move(box.x + box.width / 2, box.y + 20);
  for (let k = 0; k < STEPS; k++) wheelSteps.push(await step(() => p.mouse.wheel(0, k < STEPS / 2 ? -240 : 240))), loads.zoomWheel!.push(load());
  const panSteps: Array<{ ms: number; spans: number; drawMs: number; cpuMs: number }> = [];
  await canvas.focus();
  await p.keyboard.press('+');
  await p.keyboard.press('+');
  for (let k = 0; k < STEPS; k++) panSteps.push(await step(() => p.keyboard.press(k % 2 ? 'Shift+ArrowLeft' : 'Shift+ArrowRight'))), loads.pan!.push(load());
  await p.keyboard.press('0');
  /** Layouts built while zooming and panning: 0 means every step was the window alone. (The brush goes to the Timeline and back, which mounts the view again.) */
  const rebuilt = (await builds()) - builds0;
  const brushSteps: Array<{ ms: number; spans: number; drawMs: number; cpuMs: number }> = [];
  const listed: number[] = [];
  for (let k = 0; k < 5; k++) {
    const x0 = box.x + box.width * (0.1 + k * 0.15);
    brushSteps.push(
      await step(async () => {
        await p.mouse.move(x0, box.y + 10);
        await p.mouse.down();
        await p.mouse.move(x0 + box.width * 0.05, box.y + 14, { steps: 3 });
        await p.mouse.move(x0 + box.width * 0.1, box.y + 14, { steps: 3 });
        await p.mouse.up();
      }),
    );
    loads.brush!.push(load());
    // The brushed range listed: from "Show in Timeline" to the Timeline's count of the narrowed list.
    // A string, not a function: tsx would wrap a function's inner arrows in a helper the page does not have.
    listed.push(Number(await p.evaluate(LISTED)));
    await p.getByRole('button', { name: 'Clear the time range' }).click();
    await p.getByRole('tab', { name: 'Sequence', exact: true }).click();
    await canvas.waitFor();
  }
  listed.sort((a, b) => a - b);
  results.chromium = {
    zoomKeys: summary(zoomSteps, loads.zoomKeys!),
    zoomWheel: summary(wheelSteps, loads.zoomWheel!),
    pan: summary(panSteps, loads.pan!),
    brush: summary(brushSteps, loads.brush!),
    layoutsBuiltDuringSteps: rebuilt,
    brushListedInTimelineMsP50: round(listed[2]!),
    brushListedInTimelineMsMax: round(listed[listed.length - 1]!),
  };
  console.log('chromium', results.chromium);
} finally {
  await b.close();
}
writeFileSync(new URL('./sequence-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
