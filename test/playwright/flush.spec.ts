/**
 * The matcher never judges a partial capture: what a page sends right before
 * the verdict (in the main frame and in a cross-origin iframe, in a burst
 * larger than one batch of the hook) is in it, because settling is a flush
 * handshake with every frame's hook, not a wait. No sleeps here: every wait
 * is on a condition. And frames that cannot answer (no hook, detached,
 * navigating) neither hang the settling nor go unreported.
 */
import { test, expect } from 'oui-devtools/playwright';
import type { Frame, Page } from '@playwright/test';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

/** Each frame: one WebSocket client that registers a conformant surface, then sends what the test asks, synchronously. */
const client = (name: string) => `<script>
window.ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: '${name}', name: '${name}', description: 'A surface', actions: [{ id: 'go', description: 'Go', input: { type: 'object' } }] }, timestamp: 1 } }));
  window.ready = true;
};
/** n frames of the app's own (not OUI) tagged with round, ~3 kB each, then an optional last OUI frame: all in this task. */
window.burst = (round, n, last, busyMs) => {
  const pad = 'x'.repeat(3000);
  for (let i = 0; i < n; i++) ws.send(JSON.stringify({ type: 'app:tick', payload: { round, i, pad } }));
  if (last) ws.send(JSON.stringify(last));
  // An app busy right after sending (its next task runs this long): the hook's batch timer waits behind it.
  if (busyMs) setTimeout(() => { const end = performance.now() + busyMs; while (performance.now() < end); }, 0);
  return n + (last ? 1 : 0);
};
</script>`;

const MAIN = `<!doctype html><title>flush</title>${client('main')}<iframe id="w"></iframe><script>
document.getElementById('w').src = location.origin.replace('127.0.0.1', 'localhost') + '/frame.html';
</script>`;
const FRAME = `<!doctype html><title>frame</title>${client('widget')}`;
/** A frame in which no script runs: no hook can answer there. */
const SANDBOXED = `<!doctype html><title>sandboxed</title>${client('host')}<iframe sandbox srcdoc="<p>no scripts here</p>"></iframe>`;
/** An iframe that keeps reloading itself, and one the test removes. */
const RESTLESS = `<!doctype html><title>restless</title>${client('host')}<iframe id="r" src="/reloading.html"></iframe><iframe id="d" src="/frame.html"></iframe>`;
const RELOADING = `<!doctype html><title>reloading</title>${client('reloading')}<script>ws.addEventListener('open', () => setTimeout(() => location.reload(), 5));</script>`;

let server: FixtureServer;
test.beforeAll(async () => {
  server = await startFixtureServer({ '/flush.html': MAIN, '/frame.html': FRAME, '/sandboxed.html': SANDBOXED, '/restless.html': RESTLESS, '/reloading.html': RELOADING });
});
test.afterAll(async () => {
  await server?.close();
});

type Burst = (round: string, n: number, last?: unknown, busyMs?: number) => number;
const burst = (f: Page | Frame, round: string, n: number, last?: unknown, busyMs = 0) =>
  f.evaluate(([r, k, l, b]) => (window as unknown as { burst: Burst }).burst(r as string, k as number, l, b as number), [round, n, last ?? null, busyMs] as const);

/** Items of `round` per client URL's frame, as the capture has them now (no settling: the caller did). */
function perFrame(events: Array<{ client: string; payload?: unknown; raw?: string }>, clients: Array<{ key: string; frameUrl?: string }>, round: string): Record<string, number> {
  const where = new Map(clients.map((c) => [c.key, new URL(c.frameUrl ?? 'about:blank').pathname]));
  const out: Record<string, number> = {};
  const tagged = `{"type":"app:tick","payload":{"round":${JSON.stringify(round)},`;
  for (const e of events) {
    if ((e.payload as { round?: unknown } | undefined)?.round !== round && !e.raw?.startsWith(tagged)) continue;
    const at = where.get(e.client) ?? '?';
    out[at] = (out[at] ?? 0) + 1;
  }
  return out;
}

test('items sent right before the verdict are in it: main frame, cross-origin iframe, bursts over one batch', async ({ page, oui }) => {
  await page.goto(`${server.url}/flush.html`);
  const frame = page.frames().find((f) => f.url().endsWith('/frame.html'))!;
  expect(frame, 'the widget iframe').toBeTruthy();
  expect(new URL(frame.url()).origin).not.toBe(new URL(page.url()).origin);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  await frame.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);

  // 600 frames of ~3 kB per frame per round: more than one of the hook's batches (4 MiB bounds), sent in one task each.
  const N = 600;
  // Round 3: each frame's app then keeps its thread for 200 ms, longer than any fixed wait for the hook's next batch would be.
  for (let round = 1; round <= 3; round++) {
    const tag = `r${round}`;
    const busy = round === 3 ? 200 : 0;
    await Promise.all([burst(page, tag, N, null, busy), burst(frame, tag, N, null, busy)]);
    // At once: the snapshot is read after the handshake, with nothing waited for in between.
    const [events, clients] = [await oui.events(), await oui.clients()];
    expect(perFrame(events, clients, tag), `round ${round}`).toEqual({ '/flush.html': N, '/frame.html': N });
  }
  const report = await oui.settle();
  expect(report.unflushed).toEqual([]);
  expect(report.flushed).toBe(report.frames);
  expect(report.behind + report.waiting).toBe(0);

  // The conformant traffic so far has no finding; the matcher's own settling sees every frame of it.
  await burst(page, 'ok', 50);
  await expect(oui).toHaveNoFindings({ min: 'warning' });

  // A violation as the very last item of a burst, in each frame, then the verdict at once.
  await burst(page, 'bad', N, { type: 'action:result', payload: { requestId: 'req-nobody-sent', success: true, data: {}, timestamp: 2 } });
  await burst(frame, 'bad', N, { type: 'surface:register', payload: { surface: { id: 'Bad Surface!', name: 'Bad', description: 'An invalid id', actions: [{ id: 'go', description: 'Go', input: { type: 'object' } }] }, timestamp: 3 } });
  await expect(oui).not.toHaveNoFindings({ min: 'warning' });
  const rules = (await oui.findings({ min: 'warning' })).map((f) => f.rule);
  expect(rules).toContain('result-unknown-request');
  expect(rules).toContain('surface-id');
  const file = await oui.sessionFile();
  expect(perFrame(file.events, file.clients, 'bad')).toEqual({ '/flush.html': N, '/frame.html': N });
});

test('a frame no hook runs in is counted, not waited for', async ({ page, oui }) => {
  await page.goto(`${server.url}/sandboxed.html`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  await burst(page, 'last', 10);
  const report = await oui.settle();
  expect(report.frames).toBe(2);
  expect(report.flushed).toBe(1);
  expect(report.noHook).toBe(1);
  expect(report.unflushed).toEqual([]);
  expect(perFrame(await oui.events(), await oui.clients(), 'last')).toEqual({ '/sandboxed.html': 10 });
});

test('frames that navigate or go away mid-flush neither hang the settling nor go unreported', async ({ page, oui }) => {
  await page.goto(`${server.url}/restless.html`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  for (let i = 0; i < 5; i++) {
    await burst(page, `s${i}`, 20);
    const report = await oui.settle();
    // Every frame is accounted for: flushed, without a hook, or reported as not flushed, with why.
    expect(report.flushed + report.noHook + report.unflushed.length).toBe(report.frames);
    for (const f of report.unflushed) expect(['detached', 'closed', 'navigated', 'lost', 'no-marker']).toContain(f.reason);
    expect(perFrame(await oui.events(), await oui.clients(), `s${i}`)).toEqual({ '/restless.html': 20 });
  }
  // Removed while being flushed.
  const [report] = await Promise.all([oui.settle(), page.evaluate(() => document.getElementById('d')!.remove())]);
  expect(report.flushed + report.noHook + report.unflushed.length).toBe(report.frames);
  // A closed page is not asked at all.
  await page.close();
  expect((await oui.settle()).frames).toBe(0);
});
