/**
 * The state as of any event at 100,000 events (src/session/model/as-of.ts):
 * the checkpoints built once over the list, then questions about events
 * spread over it (each a copy of the checkpoint before it and a replay of at
 * most AS_OF_EVERY events), and an action:request's view (the set held under
 * its knownSurfaces against the client's surfaces then). For scale, the full
 * session model replayed to the last event once: what a replay without
 * checkpoints costs. Figures, not assertions; written to bench/as-of-results.json.
 */
import { writeFileSync } from 'node:fs';
import { AS_OF_EVERY, AsOfIndex, requestSight } from '../src/session/model/as-of.ts';
import { replay } from '../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';

const EVENTS = 100_000;
const QUESTIONS = 200;

const client: WireClient = { key: 'ws:bench', kind: 'websocket', label: 'ws://bench/', origin: 'http://bench', frameUrl: 'http://bench/', frameId: 0 };
const surface = (k: number) => ({ id: `s${k}`, name: 'Bench', description: 'A long session', actions: [{ id: 'go', description: 'Go', input: { type: 'object', properties: { n: { type: 'integer' } } } }], observations: [{ id: 'n', description: 'n', schema: { type: 'integer' } }] });
const events: WireEvent[] = [];
let t = 1_767_225_600_000;
for (let k = 0; k < 20; k++) events.push({ id: `e${events.length}`, client: client.key, t, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: surface(k), timestamp: t }, size: 300 });
for (let i = events.length; i < EVENTS; i++) {
  t += 10;
  const k = i % 20;
  if (i % 1000 === 500) events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'surface:deregister', payload: { surfaceId: `s${k}`, timestamp: t }, size: 60 });
  else if (i % 1000 === 501) events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: surface((i - 1) % 20), timestamp: t }, size: 300 });
  else if (i % 10 === 0) events.push({ id: `e${i}`, client: client.key, t, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: `req-${i}`, surfaceId: `s${k}`, actionId: 'go', params: { n: i }, timestamp: t, knownSurfaces: 'fnv1a64:0000000000000000' }, size: 120 });
  else if (i % 10 === 1) events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: `req-${i - 1}`, success: true, data: { n: i }, timestamp: t, surfacesHash: 'fnv1a64:0000000000000000' }, size: 120 });
  else events.push({ id: `e${i}`, client: client.key, t, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: `s${k}`, observationId: 'n', value: i, timestamp: t }, size: 90 });
}

const index = new AsOfIndex();
let s = performance.now();
index.sync(events);
const buildMs = performance.now() - s;

const times: number[] = [];
let seed = 7;
for (let q = 0; q < QUESTIONS; q++) {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  const at = seed % EVENTS;
  s = performance.now();
  index.stateAt(events, at);
  times.push(performance.now() - s);
}
times.sort((a, b) => a - b);
const sightTimes: number[] = [];
for (let at = 10_010; at < EVENTS; at += 9_990) {
  s = performance.now();
  requestSight(index, events, at - (at % 10));
  sightTimes.push(performance.now() - s);
}
sightTimes.sort((a, b) => a - b);

s = performance.now();
replay(events.map((ev) => ({ ev, client })));
const fullReplayMs = performance.now() - s;

const pct = (l: number[], p: number) => l[Math.max(0, Math.ceil((p / 100) * l.length) - 1)]!;
const results = {
  node: process.version,
  date: new Date().toISOString(),
  events: EVENTS,
  every: AS_OF_EVERY,
  buildMs: Math.round(buildMs),
  stateAtMs: { p50: +pct(times, 50).toFixed(2), p95: +pct(times, 95).toFixed(2), max: +times[times.length - 1]!.toFixed(2), questions: QUESTIONS },
  requestSightMs: { p50: +pct(sightTimes, 50).toFixed(2), max: +sightTimes[sightTimes.length - 1]!.toFixed(2) },
  fullModelReplayMs: Math.round(fullReplayMs),
};
writeFileSync(new URL('as-of-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log(results);
