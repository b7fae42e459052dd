/**
 * How the panel holds up with a long session: 100,000 wire events imported
 * from a session file, then the time to show them, to filter them, to scroll
 * to the middle and to switch views. Figures, not assertions; written to
 * bench/panel-results.json.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '../test/support/browser.ts';
import { exportSession } from '../src/session/session-file.ts';
import type { WireClient, WireEvent } from '../src/session/wire.ts';

const EVENTS = 100_000;

function session(): string {
  const client: WireClient = { key: 'ws:bench', kind: 'websocket', label: 'ws://bench/', origin: 'http://bench', frameUrl: 'http://bench/', frameId: 0 };
  const events: WireEvent[] = [];
  let t = Date.now() - EVENTS * 10;
  const surface = { id: 'bench', name: 'Bench', description: 'A long session', actions: [{ id: 'go', description: 'Go', input: { type: 'object', properties: { n: { type: 'integer' } } } }], observations: [{ id: 'n', description: 'n', schema: { type: 'integer' } }] };
  events.push({ id: 'e0', client: client.key, t, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface, timestamp: Math.round(t) }, size: 300 });
  for (let i = 1; i < EVENTS; i++) {
    t += 10;
    if (i % 10 === 0) {
      const requestId = `req-${i}`;
      events.push({ id: `e${i}`, client: client.key, t, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId, surfaceId: 'bench', actionId: 'go', params: { n: i }, timestamp: Math.round(t) }, size: 120 });
    } else if (i % 10 === 1) {
      events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: `req-${i - 1}`, success: true, data: { n: i }, timestamp: Math.round(t), surfacesHash: 'fnv1a64:0000000000000000' }, size: 120 });
    } else {
      events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'bench', observationId: 'n', value: i, timestamp: Math.round(t) }, size: 90 });
    }
  }
  return JSON.stringify(exportSession([client], events));
}

const dir = mkdtempSync(join(tmpdir(), 'oui-bench-'));
const file = join(dir, 'session.json');
writeFileSync(file, session());

const b = await launch({ viewport: { width: 1400, height: 900 } });
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString(), events: EVENTS };
try {
  const p = await b.context.newPage();
  await p.goto(`chrome-extension://${b.extensionId}/panel.html`);
  const time = async (label: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    results[label] = Math.round(performance.now() - t0);
  };
  await time('importAndShowMs', async () => {
    const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.getByRole('button', { name: 'open a session file' }).click()]);
    await chooser.setFiles(file);
    await p.waitForFunction((n) => document.querySelector('[data-testid=event-count]')?.textContent?.includes(`/ ${n} events`), EVENTS, { timeout: 120_000 });
  });
  await time('filterMs', async () => {
    await p.fill('input[aria-label="Free-text filter"]', 'req-5000');
    await p.waitForFunction(() => /^\s*\d+ \//.test(document.querySelector('[data-testid=event-count]')?.textContent ?? '') && !document.querySelector('[data-testid=event-count]')?.textContent?.startsWith('100000'));
  });
  await p.fill('input[aria-label="Free-text filter"]', '');
  await time('scrollToMiddleMs', async () => {
    await p.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await p.waitForFunction(() => [...document.querySelectorAll('.vlist [role=row]')].some((r) => /req-|n = /.test((r as HTMLElement).innerText)));
  });
  for (const v of ['surfaces', 'observations', 'findings', 'timeline']) {
    await time(`switchTo_${v}Ms`, async () => {
      await p.click(`#tab-${v}`);
      await p.waitForSelector(`#tab-${v}[aria-selected=true]`);
    });
  }
  const renders: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await p.selectOption('select[aria-label=Type]', i % 2 ? '' : 'requests');
    await p.evaluate(() => new Promise(requestAnimationFrame));
    renders.push(performance.now() - t0);
  }
  results.reRenderAllMs = Math.round(renders.sort((a, c) => a - c)[2]!);
} finally {
  await b.close();
}
console.log(results);
writeFileSync(new URL('./panel-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
