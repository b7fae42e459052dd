/**
 * The live layout at 100,000 events, tick by tick: the bench's traffic fed
 * to a real session model in ticks of `tickMs` of capture time (what the
 * panel takes in between two updates), each tick's events told to the
 * layout and the layout brought up to date. Runs in Node and, bundled, in
 * a Chromium page (bench/sequence.ts). For scale, a whole layout (what
 * each tick cost before the layout was live) over the same model.
 */
import { traffic, EVENTS } from './sequence-traffic.ts';
import { SessionModel } from '../src/session/model/session-model.ts';
import { LiveSequence } from '../src/session/sequence/live.ts';
import { buildSequence } from '../src/session/sequence/spans.ts';
import { SpanIndex } from '../src/session/sequence/span-index.ts';
import { latencyTable } from '../src/session/sequence/latency.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';

export interface LiveFigures {
  events: number;
  tickMs: number;
  /** Ticks measured: those after the session passed `measureFrom` events. */
  ticks: number;
  eventsPerTickMedian: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Spans laid out again in a tick, at most; rows placed again, at most. */
  relaidMax: number;
  rowsPlacedMax: number;
  spans: number;
  /** In Node: the process's CPU time per tick (user and system), p50 and p95: what a tick asks of the machine, whatever its load. */
  cpuP50Ms?: number;
  cpuP95Ms?: number;
  /** Whole layouts the live one made (1: the first). */
  rebuilds: number;
  /** A whole layout, index and latency table at the end, median of 5. */
  wholeLayoutMs: number;
  /** The live layout equals the whole one at the end (span count, bounds). */
  agrees: boolean;
}

const nearestRank = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number) => Number(n.toFixed(3));

export function liveTicks(tickMs = 250, measureFrom = EVENTS * 0.8): LiveFigures {
  const { clients, events } = traffic();
  const byClient = new Map(clients.map((c) => [c.key, c]));
  const byId = new Map<string, WireEvent>();
  const eventOf = (id: string) => byId.get(id);
  const model = new SessionModel();
  const live = new LiveSequence(model, eventOf);
  live.update(events[0]!.t);
  const ms: number[] = [];
  const cpu: number[] = [];
  const cpuUsage = (globalThis as { process?: { cpuUsage(prev?: { user: number; system: number }): { user: number; system: number } } }).process?.cpuUsage;
  const sizes: number[] = [];
  let relaidMax = 0;
  let rowsPlacedMax = 0;
  let i = 0;
  let now = events[0]!.t;
  while (i < events.length) {
    now = events[i]!.t + tickMs;
    const from = i;
    while (i < events.length && events[i]!.t < now) {
      const ev = events[i++]!;
      byId.set(ev.id, ev);
      model.apply(ev, byClient.get(ev.client)!);
    }
    model.tick(now);
    const c0 = cpuUsage?.();
    const t0 = performance.now();
    for (let k = from; k < i; k++) live.touch(events[k]);
    live.update(now);
    const took = performance.now() - t0;
    const c1 = c0 && cpuUsage?.(c0);
    if (i >= measureFrom) {
      ms.push(took);
      if (c1) cpu.push((c1.user + c1.system) / 1000);
      sizes.push(i - from);
      relaidMax = Math.max(relaidMax, live.stats.lastRelaid);
      rowsPlacedMax = Math.max(rowsPlacedMax, live.stats.lastRowsPlaced);
    }
  }
  const whole: number[] = [];
  let layout = buildSequence(model, eventOf, now);
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    layout = buildSequence(model, eventOf, now);
    new SpanIndex(layout.spans);
    latencyTable(layout.spans);
    whole.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  sizes.sort((a, b) => a - b);
  whole.sort((a, b) => a - b);
  return {
    events: events.length,
    tickMs,
    ticks: ms.length,
    eventsPerTickMedian: nearestRank(sizes, 50),
    p50Ms: round(nearestRank(ms, 50)),
    p95Ms: round(nearestRank(ms, 95)),
    maxMs: round(ms[ms.length - 1]!),
    ...(cpu.length ? { cpuP50Ms: round(nearestRank(cpu, 50)), cpuP95Ms: round(nearestRank(cpu, 95)) } : {}),
    relaidMax,
    rowsPlacedMax,
    spans: live.index.size,
    rebuilds: live.stats.rebuilds,
    wholeLayoutMs: round(whole[2]!),
    agrees: layout.spans.length === live.index.size && layout.t0 === live.t0 && layout.t1 === live.t1,
  };
}

(globalThis as { liveTicks?: typeof liveTicks }).liveTicks = liveTicks;
