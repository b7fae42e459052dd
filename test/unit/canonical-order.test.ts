/**
 * One order for the Timeline, the model and the linter: the same capture from
 * two frames' hooks, whose clocks disagree and step back, delivered in
 * batches out of order, gives the recorder's list (what the Timeline shows),
 * the model feed's order and the CLI engine's order as one order, and the
 * findings of each are those of a model fed in that order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { ModelFeed } from '../../src/session/model/merge.ts';
import { SessionModel } from '../../src/session/model/session-model.ts';
import { LintEngine } from '../../src/session/lint/engine.ts';
import { SESSION_FORMAT, SESSION_VERSION } from '../../src/session/wire/session-file.ts';
import type { Finding } from '../../src/session/model/model-types.ts';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook, T0 } from '../support/capture-items.ts';

const PAIRING = 'postmessage:top<->top/0';
const RIDS = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
const SURFACE = {
  id: 'cart',
  name: 'Cart',
  description: 'The cart',
  actions: [{ id: 'add', description: 'Add', effect: 'edit', input: { type: 'object' } }],
  observations: [{ id: 'total', description: 'Total', schema: { type: 'number' } }],
};

type Step =
  | { op: 'register' }
  | { op: 'request'; rid: number }
  | { op: 'result'; rid: number }
  | { op: 'update'; value: number }
  | { op: 'agent'; bad: boolean };

interface Scenario {
  steps: Array<{ s: Step; gap: number; back: 'top' | 'sub' | null }>;
  /** The iframe's clock behind the top frame's, ms (0: the same clock, so times tie). */
  skew: number;
}

/**
 * Three sources over two hooks: the top frame's hook records what the host
 * receives from the widget (registration, results, updates) and an agent
 * WebSocket of its own; the iframe's hook records the requests the widget
 * receives. `back`: that hook's clock steps back 5 ms (an NTP correction).
 */
function capture({ steps, skew }: Scenario): { top: FakeHook; sub: FakeHook; items: { top: CapturedItem[]; sub: CapturedItem[] } } {
  const top = new FakeHook('top');
  const sub = new FakeHook('sub');
  const pmTop = top.client('postmessage', 'http://app.test', PAIRING);
  const agent = top.client('websocket', 'ws://app.test/agent');
  const pmSub = sub.client('postmessage', 'http://app.test', PAIRING);
  const items = { top: [] as CapturedItem[], sub: [] as CapturedItem[] };
  const offset = { top: 0, sub: -skew };
  let tt = T0;
  const put = (hook: 'top' | 'sub', c: CapturedClient, value: unknown, fields: Partial<CapturedItem>) => {
    const h = hook === 'top' ? top : sub;
    items[hook].push({ ...h.json(c, 'in', value, fields), t: tt + offset[hook] });
  };
  const toHost = { from: 'top/0', to: 'top' };
  const toWidget = { from: 'top', to: 'top/0' };
  for (const { s, gap, back } of steps) {
    tt += gap;
    if (back) offset[back] -= 5;
    const ts = Math.round(tt);
    switch (s.op) {
      case 'register':
        put('top', pmTop, { type: 'surface:register', payload: { surface: SURFACE, timestamp: ts } }, toHost);
        break;
      case 'request':
        put('sub', pmSub, { type: 'action:request', payload: { requestId: RIDS[s.rid], surfaceId: 'cart', actionId: 'add', params: {}, timestamp: ts } }, toWidget);
        break;
      case 'result':
        put('top', pmTop, { type: 'action:result', payload: { requestId: RIDS[s.rid], success: true, data: {}, timestamp: ts } }, toHost);
        break;
      case 'update':
        put('top', pmTop, { type: 'observation:update', payload: { surfaceId: 'cart', observationId: 'total', value: s.value, timestamp: ts } }, toHost);
        break;
      case 'agent':
        put('top', agent, s.bad ? { type: 'action:request', payload: { requestId: 'not-a-uuid' } } : { type: 'x-agent:hello', payload: {} }, { dir: 'out' });
        break;
    }
  }
  return { top, sub, items };
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  steps: fc.array(
    fc.record({
      s: fc.oneof(
        fc.constant<Step>({ op: 'register' }),
        { weight: 3, arbitrary: fc.record({ op: fc.constant('request' as const), rid: fc.nat(RIDS.length - 1) }) },
        { weight: 3, arbitrary: fc.record({ op: fc.constant('result' as const), rid: fc.nat(RIDS.length - 1) }) },
        fc.record({ op: fc.constant('update' as const), value: fc.integer({ min: -5, max: 5 }) }),
        fc.record({ op: fc.constant('agent' as const), bad: fc.boolean() }),
      ),
      // Often 0: events of different sources at the same time.
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 })),
      back: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, fc.constantFrom('top' as const, 'sub' as const)),
    }),
    { minLength: 1, maxLength: 30 },
  ),
  skew: fc.constantFrom(0, 3, 7),
});

/** Batches as they reach the panel: each hook's items in its order, in batches of 1 to 4, the hooks' batches interleaved any way. */
const arrival = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 4 })), { maxLength: 80 });

type Batch = { frameId: number; hook: FakeHook; items: CapturedItem[] };

function batches(c: ReturnType<typeof capture>, picks: Array<[boolean, number]>): Batch[] {
  const at = { top: 0, sub: 0 };
  const out: Batch[] = [];
  const take = (which: 'top' | 'sub', n: number) => {
    const list = c.items[which];
    if (at[which] >= list.length) return;
    out.push({ frameId: which === 'top' ? 0 : 2, hook: c[which], items: list.slice(at[which], (at[which] += n)) });
  };
  for (const [sub, n] of picks) take(sub ? 'sub' : 'top', n);
  take('top', Infinity);
  take('sub', Infinity);
  return out;
}

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
/** What a finding says, without the locations only the CLI adds. */
const said = (fs: readonly Finding[]): string => JSON.stringify(fs.map(({ locations: _, ...f }: Finding & { locations?: unknown }) => f));

function run(sc: Scenario, picks: Array<[boolean, number]>) {
  const b = batches(capture(sc), picks);
  // The recorder, as the panel runs it live: batch by batch.
  const rec = new Recorder();
  const arrived: WireEvent[][] = b.map(({ frameId, hook, items }) => rec.accept(frameId, hook.message(items)));
  const all = arrived.flat();
  const clientOf = (key: string) => rec.clients.get(key);

  // The feed given the recording whole (an import): its order is the order it applies in.
  const feedOrder: string[] = [];
  const feed = new ModelFeed(clientOf, { onApply: (p) => feedOrder.push(p.ev.id) });
  for (const fresh of arrived) feed.add(fresh, 0);
  feed.finish();

  // The feed live: batches 16 ms apart on the panel's clock, released by its window, re-evaluated when late.
  const live = new ModelFeed(clientOf);
  arrived.forEach((fresh, i) => live.add(fresh, i * 16));
  live.finish();

  // The CLI, reading the same events in arrival order from a session file.
  const cliOrder: string[] = [];
  const engine = new LintEngine({ onApply: (ev) => cliOrder.push(ev.id) });
  engine.top('format', SESSION_FORMAT);
  engine.top('version', SESSION_VERSION);
  [...rec.clients.values()].forEach((c, i) => engine.sessionClient(json(c), i));
  all.forEach((ev, i) => engine.sessionEvent(json(ev), i, i + 1));
  const report = engine.finish();

  // The reference: a model fed the recorder's list in its order, ticked at the last capture time, finished.
  const model = new SessionModel();
  for (const ev of rec.events) model.apply(ev, rec.clients.get(ev.client)!);
  if (all.length) model.tick(Math.max(...all.map((e) => e.t)));
  model.finish();

  return { rec, all, feedOrder, feed, live, cliOrder, report, model };
}

describe('one canonical order for the Timeline, the model and the CLI', () => {
  it('a fixed capture: ties broken by source, a clock that steps back kept in its own order, the same everywhere', () => {
    // top/c1 (widget → host), top/c2 (agent), sub/c1 (host → widget); the iframe's clock 3 ms behind.
    const sc: Scenario = {
      skew: 3,
      steps: [
        { s: { op: 'register' }, gap: 0, back: null }, // top/c1/1 at 0
        { s: { op: 'request', rid: 0 }, gap: 3, back: null }, // sub/c1/1 at 0: ties with top/c1/1
        { s: { op: 'agent', bad: true }, gap: 0, back: null }, // top/c2/1 at 3: a request the agent should never send, malformed
        { s: { op: 'result', rid: 0 }, gap: 1, back: null }, // top/c1/2 at 4
        { s: { op: 'request', rid: 1 }, gap: 1, back: 'sub' }, // sub/c1/2 stamped 5 - 3 - 5 = -3, before its own sub/c1/1: placed at 0, its source's latest
        { s: { op: 'result', rid: 2 }, gap: 1, back: null }, // top/c1/3 at 6: a result for no request
      ],
    };
    // The top frame's batches first, the iframe's last.
    const r = run(sc, [[false, 10]]);
    const ids = r.rec.events.map((e) => e.id);
    assert.deepEqual(ids, ['sub/c1/1', 'sub/c1/2', 'top/c1/1', 'top/c2/1', 'top/c1/2', 'top/c1/3']);
    assert.deepEqual(r.feedOrder, ids);
    assert.deepEqual(r.cliOrder, ids);
    // A sort by raw capture time would have put sub/c1/2 (stamped -3) first, and top/c1/1 before sub/c1/1 (it arrived first).
    assert.deepEqual(
      r.rec.events.map((e) => e.t - T0),
      [0, -3, 0, 3, 4, 6],
    );
    assert.deepEqual(
      r.model.findings.map((f) => [f.rule, f.events[0]]),
      [...Array(4).fill(['payload-problem', 'top/c2/1']), ['event-ignored', 'top/c2/1'], ['hash-missing', 'top/c1/2'], ['result-unknown-request', 'top/c1/3']],
    );
    assert.equal(said(r.feed.model.findings), said(r.model.findings));
    assert.equal(said(r.report.findings), said(r.model.findings));
  });

  it('any capture, in any batches: recorder, feed and CLI give one order, and the findings of a model fed in it (fast-check)', () => {
    fc.assert(
      fc.property(scenario, arrival, (sc, picks) => {
        const r = run(sc, picks);
        const ids = r.rec.events.map((e) => e.id);
        assert.equal(ids.length, r.all.length);
        assert.deepEqual(r.feedOrder, ids, 'the feed applies in the recorder order');
        assert.deepEqual(r.cliOrder, ids, 'the CLI applies in the recorder order');
        assert.equal(r.model.internalErrors, 0, r.model.lastInternalError);
        const expected = said(r.model.findings);
        assert.equal(said(r.feed.model.findings), expected, 'feed findings');
        assert.equal(said(r.live.model.findings), expected, 'live feed findings');
        assert.equal(said(r.report.findings), expected, 'CLI findings');
      }),
      { numRuns: Number(process.env.ORDER_FC_RUNS ?? 200) },
    );
  });
});
