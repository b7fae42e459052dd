/**
 * An audit of the stand-in runtime against the spec's runtime rules (issue 21):
 * re-sends, TIMEOUT, SURFACE_UNAVAILABLE, knownSurfaces, approvals and
 * reconnection. Each test names the section and quotes the sentence its
 * expectation comes from (the spec texts: 000_… for §7.3.4's hash rules,
 * §7.3.6 and §7.3.7; 001_… for §7.2, §7.5 and §7.6.1; the approval types of
 * 000_…). Hashes are checked with the demo's independent implementation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StandIn, type StandInOutput } from '../../src/runtime/stand-in.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { argsHashSync as independentArgsHash } from '../demo/independent/args-hash-node.ts';

/** A plain-WebSocket client: its transport carries no receipt, so only an answer can stop the re-sends. */
const WS: WireClient = { key: 'w1', kind: 'websocket', label: 'notif', origin: 'http://a.test', frameUrl: 'http://a.test/', frameId: 0, inject: { via: 'websocket', frameId: 0, hook: 'h', client: 'w1' } };
const CART = { id: 'cart', name: 'Cart', description: 'd', actions: [{ id: 'add', description: 'a', input: { type: 'object' } }, { id: 'pay', description: 'p', effect: 'transaction', input: { type: 'object' } }] };
const HELP = { id: 'help', name: 'Help', description: 'h', actions: [{ id: 'open', description: 'o', input: { type: 'object' } }] };
const H1 = 'fnv1a64:00000000000000a1';

let n = 0;
function ev(over: Partial<WireEvent>): WireEvent {
  return { id: `s${++n}`, client: WS.key, t: n, dir: 'out', kind: 'event', size: 1, ...over };
}
const register = (surface: unknown) => ev({ type: 'surface:register', payload: { surface, timestamp: 1 } });
const delivered = (o: Extract<StandInOutput, { kind: 'request' }>) => ev({ dir: 'in', type: 'action:request', payload: o.request, injected: true });
const result = (requestId: string, extra: Record<string, unknown> = {}) => ev({ type: 'action:result', payload: { requestId, success: true, timestamp: 1, ...extra } });
const requests = (outs: StandInOutput[]) => outs.filter((o): o is Extract<StandInOutput, { kind: 'request' }> => o.kind === 'request');
const doneOf = (outs: StandInOutput[]) => outs.find((o): o is Extract<StandInOutput, { kind: 'done' }> => o.kind === 'done');

function fresh(opts: ConstructorParameters<typeof StandIn>[1] = {}): StandIn {
  const s = new StandIn(WS, opts);
  s.observe([register(CART), register(HELP)], 0);
  return s;
}

/** Ticks at each wake the stand-in asks for, up to `until`: every output, with the time it came. */
function run(s: StandIn, until: number): Array<{ at: number; out: StandInOutput }> {
  const seen: Array<{ at: number; out: StandInOutput }> = [];
  for (let at = s.nextWake(); at !== undefined && at <= until; at = s.nextWake()) {
    for (const out of s.tick(at)) seen.push({ at, out });
  }
  return seen;
}

describe('§7.3.7 Receipts and Repeated Requests', () => {
  it('"An agent runtime may send a request again when no answer has come" … "SHOULD back off between sends while it holds none": each wait longer than the one before, each copy the same request', () => {
    const s = fresh({ resend: { firstMs: 100, max: 3 }, timers: { syncMs: 10_000 } });
    const first = requests(s.call({ surfaceId: 'cart', actionId: 'add', params: { q: 1 } }, 0).outputs)[0]!;
    s.observe([delivered(first)], 1);
    const sends = run(s, 9_999).filter((x) => x.out.kind === 'request');
    assert.equal(sends.length, 3, 'three re-sends, then none (max)');
    const times = [0, ...sends.map((x) => x.at)];
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i]! > gaps[i - 1]!, `backs off: ${gaps.join(', ')} ms`);
    for (const x of sends) assert.deepEqual((x.out as { request: unknown }).request, first.request, '"Each copy of a request": the same requestId and body');
  });

  it('"… when no answer has come": once a result came, even one it refused (§7.3.6, the trimmed re-send is on its way), no copy goes again', () => {
    const s = fresh({ resend: { firstMs: 100, max: 5 }, timers: { syncMs: 10_000 }, refuse: (r) => (r.delivery ? null : 'too large') });
    const first = requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs)[0]!;
    // The refused result comes before the first re-send is due; the trimmed one is slow (the client is busy).
    s.observe([delivered(first), result(first.request.requestId, { data: 'x'.repeat(10) })], 50);
    const later = run(s, 5_000);
    assert.deepEqual(later.filter((x) => x.out.kind === 'request'), [], 'no re-send after an answer');
    // The positive witness: the call is still open and ends with the trimmed re-send.
    const end = doneOf(s.observe([result(first.request.requestId, { delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] } })], 6_000));
    assert.equal(end?.outcome.status, 'answered');
    assert.equal(end?.outcome.sends, 1);
  });
});

describe('§7.5 Timeouts', () => {
  it('"MUST generate a synthetic action:result with success: false and error code TIMEOUT" at "Synchronous action execution 30,000 ms" by default; "MUST NOT retry automatically"', () => {
    const s = fresh();
    const { callId, outputs } = s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0);
    const req = requests(outputs)[0]!;
    s.observe([delivered(req)], 1);
    const seen = run(s, 30_000);
    const done = seen.find((x) => x.out.kind === 'done')!;
    assert.equal(done.at, 30_000, 'the default deadline of a synchronous action');
    const o = (done.out as Extract<StandInOutput, { kind: 'done' }>).outcome;
    assert.equal(o.status, 'timeout');
    assert.deepEqual({ requestId: o.result.requestId, success: o.result.success, code: o.result.error?.code }, { requestId: req.request.requestId, success: false, code: 'TIMEOUT' });
    assert.equal(s.outcome(callId) === 'pending', false);
    // Nothing more, however long the clock runs: no retry, no re-send.
    assert.equal(s.nextWake(), undefined);
    assert.deepEqual(s.tick(1_000_000), []);
  });

  it('"late results SHOULD be silently discarded by the runtime": a late result\'s surfaces are not taken either', () => {
    const s = fresh({ resend: false, timers: { syncMs: 100 } });
    const req = requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs)[0]!;
    s.observe([delivered(req)], 1);
    assert.equal(doneOf(s.tick(100))?.outcome.status, 'timeout');
    s.observe([result(req.request.requestId, { surfacesHash: H1, surfaces: [CART, HELP] })], 200);
    assert.deepEqual(s.discarded, [req.request.requestId], 'the late result was seen, and discarded');
    assert.equal(s.held.has(H1), false);
    assert.equal(requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 300).outputs)[0]!.request.knownSurfaces, undefined);
  });
});

describe('§7.3.4 The Client\'s State After an Action (surfacesHash, knownSurfaces)', () => {
  it('"A runtime that holds the client\'s surfaces SHOULD send it" (knownSurfaces, §7.3.1)', () => {
    const s = fresh();
    const a = requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs)[0]!;
    s.observe([delivered(a), result(a.request.requestId, { surfacesHash: H1, surfaces: [CART, HELP] })], 1);
    assert.equal(requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 2).outputs)[0]!.request.knownSurfaces, H1);
  });

  it('a refused result was not received (§7.3.6): its surfaces are not held, so after the trimmed re-send "If it holds none under that hash, it MUST treat the client\'s surfaces as unknown, and send no knownSurfaces"', () => {
    const s = fresh({ refuse: (r) => (r.delivery ? null : 'too large') });
    const a = requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs)[0]!;
    s.observe([delivered(a), result(a.request.requestId, { surfacesHash: H1, surfaces: [CART, HELP] })], 1);
    const end = doneOf(s.observe([result(a.request.requestId, { surfacesHash: H1, delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] } })], 2));
    assert.equal(end?.outcome.status, 'answered', 'the trimmed re-send ended the call');
    assert.equal(s.held.has(H1), false);
    assert.equal(requests(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 3).outputs)[0]!.request.knownSurfaces, undefined);
  });
});

describe('§7.2 Surface Registration and Deregistration; §7.6.1 Transport-Level Errors', () => {
  it('"Any pending action requests targeting this surface MUST be resolved with error code SURFACE_UNAVAILABLE"; requests to other surfaces go on; "MUST remove the surface\'s actions"', () => {
    const s = fresh({ resend: false });
    const toCart = s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0);
    const toHelp = s.call({ surfaceId: 'help', actionId: 'open', params: {} }, 0);
    const outs = s.observe([ev({ type: 'surface:deregister', payload: { surfaceId: 'cart', timestamp: 5 } })], 5);
    const done = doneOf(outs)!;
    assert.equal(done.callId, toCart.callId);
    assert.equal(done.outcome.result.error?.code, 'SURFACE_UNAVAILABLE');
    assert.equal(done.outcome.result.requestId, requests(toCart.outputs)[0]!.request.requestId);
    assert.equal(s.outcome(toHelp.callId), 'pending');
    assert.deepEqual([...s.registry.keys()], ['help']);
  });

  it('"If a surface with the same id is already registered, the new registration MUST replace the old one"', () => {
    const s = fresh();
    s.observe([register({ ...CART, name: 'Cart v2' })], 1);
    assert.equal(s.registry.get('cart')?.name, 'Cart v2');
  });

  it('"All registered surfaces MUST be considered deregistered"; "All pending action requests MUST be resolved with error code SURFACE_UNAVAILABLE"; "On reconnection, surfaces MUST re-register"', () => {
    const s = fresh({ resend: false });
    const a = s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0);
    const b = s.call({ surfaceId: 'help', actionId: 'open', params: {} }, 0);
    const outs = s.observe([ev({ kind: 'lifecycle', type: 'close', dir: 'in' })], 3);
    const ended = outs.filter((o): o is Extract<StandInOutput, { kind: 'done' }> => o.kind === 'done');
    assert.deepEqual(ended.map((o) => o.callId).sort(), [a.callId, b.callId].sort());
    for (const o of ended) assert.deepEqual([o.outcome.status, o.outcome.result.error?.code], ['unavailable', 'SURFACE_UNAVAILABLE']);
    assert.equal(s.registry.size, 0);
    assert.equal(s.lost, true);
    s.observe([register(CART)], 4);
    assert.equal(s.lost, false);
    assert.deepEqual([...s.registry.keys()], ['cart'], 'only what re-registered');
  });
});

describe('approvals (000_…: "Its approval store issues a single-use grant when the user confirms … bound to the exact request")', () => {
  it('"argsHash(params) of the request the user approved": the request carries exactly the params confirmed, even when the caller changes its object before the grant', () => {
    const s = fresh();
    const params: Record<string, unknown> = { amount: 12, to: 'acme' };
    const { outputs } = s.call({ surfaceId: 'cart', actionId: 'pay', params, approve: true }, 0);
    const ask = outputs.find((o): o is Extract<StandInOutput, { kind: 'event' }> => o.kind === 'event')!;
    const asked = ask.payload as { approvalId: string; argsHash: string; params: unknown };
    assert.equal(asked.argsHash, independentArgsHash({ amount: 12, to: 'acme' }));
    // The form changes while the tab's user reads the confirmation.
    params.amount = 9_999;
    const sent = requests(s.observe([ev({ type: 'x-approval:granted', payload: { approvalId: asked.approvalId, argsHash: asked.argsHash } })], 1))[0]!;
    assert.deepEqual(sent.request.params, { amount: 12, to: 'acme' });
    assert.equal(sent.request.approval?.argsHash, independentArgsHash(sent.request.params));
    assert.equal(sent.request.approval?.approvalId, asked.approvalId);
  });

  it('single use: each approved call asks for a grant of its own, never reusing one on its own', () => {
    const s = fresh();
    const ids = [0, 1].map((i) => {
      const ask = s.call({ surfaceId: 'cart', actionId: 'pay', params: { amount: 1 }, approve: true }, i).outputs.find((o) => o.kind === 'event') as Extract<StandInOutput, { kind: 'event' }>;
      return (ask.payload as { approvalId: string }).approvalId;
    });
    assert.notEqual(ids[0], ids[1]);
  });

  it('a grant for other params is not used: the call ends unsent', () => {
    const s = fresh();
    const { callId, outputs } = s.call({ surfaceId: 'cart', actionId: 'pay', params: { amount: 1 }, approve: true }, 0);
    const asked = (outputs.find((o) => o.kind === 'event') as Extract<StandInOutput, { kind: 'event' }>).payload as { approvalId: string };
    const outs = s.observe([ev({ type: 'x-approval:granted', payload: { approvalId: asked.approvalId, argsHash: independentArgsHash({ amount: 2 }) } })], 1);
    assert.deepEqual(requests(outs), []);
    assert.equal((s.outcome(callId) as { status: string }).status, 'not-sent');
  });
});

describe('§7.3.6 on a direct transport (the transport interface: "sendResult(result, onAcknowledged?)" … "accepted, or refused with its reason")', () => {
  const DIRECT: WireClient = { key: 'd1', kind: 'direct', label: 'help', origin: 'http://a.test', frameUrl: 'http://a.test/', frameId: 3, inject: { via: 'direct', frameId: 3, hook: 'h9', client: 'd7' } };

  it('the stand-in\'s requests leave the acknowledgment of their results to it (selfAck), and its refusal goes to the held result\'s onAcknowledged by the seq it was captured with', async () => {
    const { WireIds, planOutput } = await import('../../src/runtime/stand-in-wire.ts');
    const s = new StandIn(DIRECT, { refuse: (r) => (r.delivery ? null : 'too large') });
    const ids = new WireIds('t');
    const req = requests(s.call({ surfaceId: 'help', actionId: 'open', params: {} }, 0).outputs)[0]!;
    const plan = planOutput(DIRECT, req, ids);
    assert.ok(plan.ok);
    assert.equal((plan.commands[0]!.command as { selfAck?: boolean }).selfAck, true);
    // The hook's capture of the client's sendResult: seq 42 of its client d7, asking for an acknowledgment.
    const captured: WireEvent = { id: 'h9/d7/42', client: 'd1', t: 1, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: req.request.requestId, success: true, timestamp: 1 }, wantsAck: true, size: 1 };
    const ack = s.observe([captured], 1).find((o) => o.kind === 'ack')!;
    const out = planOutput(DIRECT, ack, ids);
    assert.ok(out.ok);
    const command = out.commands[0]!.command as { type: string; target: unknown; request?: unknown; resultAck?: unknown };
    assert.equal(out.commands[0]!.frameId, 3);
    assert.equal(command.type, 'hook:inject');
    assert.equal(command.request, undefined, 'no request: the handlers are not called');
    // OUIAcknowledgment types a refusal { ok: false, reason }; §7.3.6 words it { ok: false, error }: both are there.
    assert.deepEqual(command.resultAck, { seq: 42, value: { ok: false, reason: 'too large', error: 'too large' } });
  });
});
