/**
 * The Sequence view at 100,000 events: four clients, each request answered
 * with a receipt, a result and the runtime's acknowledgment (some failed,
 * some refused, some re-sent, some still in flight). In Node: the layout
 * built from the model, and a window query of the span index. In real
 * Chromium with the built panel, the session imported: each zoom, pan and
 * brush step from the input to the canvas drawn (the view writes it on the
 * canvas, data-step-ms), and the brushed range listed in the Timeline.
 * Figures, not assertions (the target is ≤ 50 ms a step); written to
 * bench/sequence-results.json.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '../test/support/browser.ts';
import { exportSession } from '../src/session/wire/session-file.ts';
import { replay } from '../src/session/model/session-model.ts';
import { buildSequence } from '../src/session/sequence/spans.ts';
import { SpanIndex } from '../src/session/sequence/span-index.ts';
import { latencyTable } from '../src/session/sequence/latency.ts';
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';

const EVENTS = 100_000;
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

function traffic(): { clients: WireClient[]; events: WireEvent[] } {
  const clients: WireClient[] = [0, 1, 2, 3].map((k) => ({ key: `ws:bench${k}`, kind: 'websocket', label: `ws://bench/${k}`, origin: 'http://bench', frameUrl: 'http://bench/', frameId: 0 }));
  const surface = { id: 'bench', name: 'Bench', description: 'A long session', actions: ['go', 'get', 'put'].map((id) => ({ id, description: id, input: { type: 'object', properties: { n: { type: 'integer' } } } })) };
  const events: WireEvent[] = [];
  let t = Date.now() - EVENTS * 5;
  let seq = 0;
  const push = (c: WireClient, e: Omit<WireEvent, 'id' | 'client' | 't' | 'size'>, at = t) => {
    const ev = { id: `e${seq++}`, client: c.key, t: at, size: 100, ...e } as WireEvent;
    events.push(ev);
    return ev;
  };
  for (const c of clients) push(c, { dir: 'out', kind: 'event', type: 'surface:register', payload: { surface, timestamp: Math.round(t) } });
  let i = 0;
  while (events.length < EVENTS) {
    i++;
    const c = clients[i % 4]!;
    const requestId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const actionId = ['go', 'get', 'put'][i % 3]!;
    t += 5;
    const req = push(c, { dir: 'in', kind: 'event', type: 'action:request', wantsAck: true, payload: { requestId, surfaceId: 'bench', actionId, params: { n: i }, timestamp: Math.round(t) } });
    const took = 2 + ((i * 37) % 400);
    // Events are recorded in time order: the answers land later in the list, interleaved with other requests.
    const at = (d: number) => t + d;
    push(c, { dir: 'out', kind: 'ack', ackOf: req.id, payload: i % 97 === 0 ? { ok: false, reason: 'busy' } : { ok: true } }, at(1));
    if (i % 97 === 0) continue;
    if (i % 501 === 0) continue; // in flight
    const res = push(c, { dir: 'out', kind: 'event', type: 'action:result', wantsAck: true, payload: i % 53 === 0 ? { requestId, success: false, error: { code: 'CONFLICT', message: 'no' }, timestamp: Math.round(at(took)) } : { requestId, success: true, data: { n: i }, timestamp: Math.round(at(took)) } }, at(took));
    push(c, { dir: 'in', kind: 'ack', ackOf: res.id, payload: i % 89 === 0 ? { ok: false, reason: 'stale' } : { ok: true } }, at(took + 1));
  }
  events.sort((a, b) => a.t - b.t);
  // Exactly EVENTS: the last request's answers fall after the end, and it stays in flight.
  events.length = EVENTS;
  return { clients, events };
}

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
  const step = async (act: () => Promise<void>): Promise<{ ms: number; spans: number }> => {
    const before = await stepCount();
    await act();
    await p.waitForFunction((n) => Number((document.querySelector('.sequence canvas') as HTMLElement).dataset.steps ?? 0) > n, before, { timeout: 30_000 });
    return canvas.evaluate((el) => ({ ms: Number((el as HTMLElement).dataset.stepMs), spans: Number((el as HTMLElement).dataset.spansDrawn) }));
  };
  const summary = (xs: Array<{ ms: number; spans: number }>) => {
    const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
    return { steps: ms.length, p50Ms: round(ms[Math.ceil(ms.length / 2) - 1]!), p95Ms: round(ms[Math.ceil(ms.length * 0.95) - 1]!), maxMs: round(ms[ms.length - 1]!), spansDrawnMax: Math.max(...xs.map((x) => x.spans)) };
  };
  await canvas.focus();
  // Zoom in from the whole session to a few requests, and back out.
  const zoomSteps: Array<{ ms: number; spans: number }> = [];
  for (let k = 0; k < STEPS; k++) zoomSteps.push(await step(() => p.keyboard.press('+')));
  for (let k = 0; k < STEPS; k++) zoomSteps.push(await step(() => p.keyboard.press('-')));
  const box = (await canvas.boundingBox())!;
  const wheelSteps: Array<{ ms: number; spans: number }> = [];
  await p.mouse.move(box.x + box.width / 2, box.y + 20);
  for (let k = 0; k < STEPS; k++) wheelSteps.push(await step(() => p.mouse.wheel(0, k < STEPS / 2 ? -240 : 240)));
  const panSteps: Array<{ ms: number; spans: number }> = [];
  await canvas.focus();
  await p.keyboard.press('+');
  await p.keyboard.press('+');
  for (let k = 0; k < STEPS; k++) panSteps.push(await step(() => p.keyboard.press(k % 2 ? 'Shift+ArrowLeft' : 'Shift+ArrowRight')));
  await p.keyboard.press('0');
  /** Layouts built while zooming and panning: 0 means every step was the window alone. (The brush goes to the Timeline and back, which mounts the view again.) */
  const rebuilt = (await builds()) - builds0;
  const brushSteps: Array<{ ms: number; spans: number }> = [];
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
    // The brushed range listed: from "Show in Timeline" to the Timeline's count of the narrowed list.
    // A string, not a function: tsx would wrap a function's inner arrows in a helper the page does not have.
    listed.push(Number(await p.evaluate(LISTED)));
    await p.getByRole('button', { name: 'Clear the time range' }).click();
    await p.getByRole('tab', { name: 'Sequence', exact: true }).click();
    await canvas.waitFor();
  }
  listed.sort((a, b) => a - b);
  results.chromium = {
    zoomKeys: summary(zoomSteps),
    zoomWheel: summary(wheelSteps),
    pan: summary(panSteps),
    brush: summary(brushSteps),
    layoutsBuiltDuringSteps: rebuilt,
    brushListedInTimelineMsP50: round(listed[2]!),
    brushListedInTimelineMsMax: round(listed[listed.length - 1]!),
  };
  console.log('chromium', results.chromium);
} finally {
  await b.close();
}
writeFileSync(new URL('./sequence-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
