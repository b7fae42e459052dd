/**
 * What merging costs the panel (src/session/model/merge.ts): a 100,000-event
 * session from two frames fed live in batches, the same session imported
 * (merged, then finished), and one rebuild of the model at 100,000 events
 * (what a late event before the reorder window costs). Figures, not
 * assertions; written to bench/merge-results.json.
 *
 *   node --import tsx bench/merge.ts
 */
import { writeFileSync } from 'node:fs';
import { ModelFeed } from '../src/session/model/merge.ts';
import { SessionModel } from '../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';

const EVENTS = 100_000;
const BATCH = 50;

const client: WireClient = { key: 'postmessage:top<->top/0', kind: 'postmessage', label: 'widget', origin: 'http://bench', frameUrl: 'http://bench/', frameId: 0 };
const clientOf = (key: string) => (key === client.key ? client : undefined);
const surface = {
  id: 'bench',
  name: 'Bench',
  description: 'A long session',
  actions: [{ id: 'go', description: 'Go', input: { type: 'object', properties: { n: { type: 'integer' } } } }],
  observations: [{ id: 'n', description: 'n', schema: { type: 'integer' } }],
};

/** Requests captured in the iframe (F), answers and updates in the host (H), whose clock runs 0.3 ms behind. */
function session(): { F: WireEvent[]; H: WireEvent[] } {
  const F: WireEvent[] = [];
  const H: WireEvent[] = [];
  let t = Date.now() - EVENTS * 10;
  H.push({ id: 'H/c1/1', client: client.key, t, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface, timestamp: Math.round(t) }, size: 300 });
  for (let i = 1; i < EVENTS; i++) {
    t += 10;
    if (i % 10 === 0) {
      F.push({ id: `F/c1/${F.length + 1}`, client: client.key, t, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: `req-${i}`, surfaceId: 'bench', actionId: 'go', params: { n: i }, timestamp: Math.round(t) }, size: 120 });
    } else if (i % 10 === 1) {
      H.push({ id: `H/c1/${H.length + 1}`, client: client.key, t: t - 9.7, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: `req-${i - 1}`, success: true, data: { n: i }, timestamp: Math.round(t) }, size: 120 });
    } else {
      H.push({ id: `H/c1/${H.length + 1}`, client: client.key, t, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'bench', observationId: 'n', value: i, timestamp: Math.round(t) }, size: 90 });
    }
  }
  return { F, H };
}

function ms(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return Math.round(performance.now() - t0);
}

const { F, H } = session();
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString(), events: EVENTS };

// Live: each frame's batches in turn, the host's first (its answers are stamped before their requests), 16 ms apart.
{
  const feed = new ModelFeed(clientOf);
  let now = 0;
  const fb = Math.max(1, Math.round((BATCH * F.length) / (F.length + H.length)));
  const hb = BATCH - fb;
  let f = 0;
  let h = 0;
  results.liveMs = ms(() => {
    while (f < F.length || h < H.length) {
      now += 16;
      feed.add(H.slice(h, (h += hb)), now);
      feed.add(F.slice(f, (f += fb)), now);
      if (now % 1000 < 16) feed.tick(now);
    }
    feed.release(now + 1000);
  });
  results.liveRebuilds = feed.stats.rebuilds;
  results.livePending = [...feed.model.clients.get(client.key)!.requests.values()].filter((r) => r.status === 'pending').length;
}

// Plain model, same events in canonical order: what the merge adds on top of the model itself.
{
  const all = [...F, ...H].sort((a, b) => a.t - b.t);
  const model = new SessionModel();
  results.modelOnlyMs = ms(() => {
    for (const ev of all) model.apply(ev, client);
  });
}

// Import: everything at once, then finished.
{
  const feed = new ModelFeed(clientOf);
  results.importMs = ms(() => {
    feed.add([...H, ...F], 0);
    feed.finish();
  });
}

// One rebuild at 100,000 events: a late event before everything applied.
{
  const feed = new ModelFeed(clientOf);
  feed.add([...H, ...F], 0);
  feed.release(Infinity);
  const late: WireEvent = { id: 'L/c1/1', client: client.key, t: H[1]!.t, dir: 'in', kind: 'event', type: 'observation:request', payload: { surfaceId: 'bench', observationId: 'n', timestamp: 0 }, size: 10 };
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    feed.add([{ ...late, id: `L/c1/${i + 1}` }], 1);
    runs.push(Math.round(feed.stats.lastRebuildMs));
  }
  results.rebuildAt100kMs = runs;
}

writeFileSync(new URL('./merge-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log(results);
