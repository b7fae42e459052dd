/**
 * The stand-in runtime against the spec's text, event by event. Each
 * expectation quotes the sentence it comes from; hashes are checked with the
 * demo's independent implementation (test/demo/independent/), not the
 * product's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StandIn, RESEND_FIRST_MS, socketIOAckId, type StandInOutput } from '../../src/runtime/stand-in.ts';
import { WireIds, planOutput } from '../../src/runtime/stand-in-wire.ts';
import { StandInDriver, type DriverTimers } from '../../src/runtime/stand-in-driver.ts';
import type { HoldCommand, InjectCommand } from '../../src/messages.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { argsHashSync as independentArgsHash } from '../demo/independent/args-hash-node.ts';
import { Decoder as SocketIOParser, PacketType, type Packet } from 'socket.io-parser';

const CLIENT: WireClient = { key: 'c1', kind: 'socket.io', label: 'shop', origin: 'http://a.test', frameUrl: 'http://a.test/', frameId: 0, namespace: '/oui', inject: { via: 'websocket', frameId: 0, hook: 'h', client: 'w1' } };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SURFACE = { id: 'cart', name: 'Cart', description: 'd', actions: [{ id: 'add', description: 'a', input: { type: 'object' } }, { id: 'export', description: 'e', async: true, input: { type: 'object' } }] };

let n = 0;
function ev(over: Partial<WireEvent>): WireEvent {
  return { id: `e${++n}`, client: 'c1', t: n, dir: 'out', kind: 'event', size: 1, ...over };
}
const register = () => ev({ type: 'surface:register', payload: { surface: SURFACE, timestamp: 1 } });
/** The stand-in's request, as the hook captures it once delivered. */
const delivered = (o: StandInOutput) => ev({ dir: 'in', type: 'action:request', payload: (o as { request: unknown }).request, injected: true, wantsAck: true });
const result = (requestId: string, extra: Record<string, unknown> = {}) => ev({ type: 'action:result', payload: { requestId, success: true, timestamp: 1, ...extra }, wantsAck: true, raw: `42/oui,5["action:result",{"requestId":"${requestId}"}]` });
const requestOf = (outs: StandInOutput[]) => outs.find((o) => o.kind === 'request') as Extract<StandInOutput, { kind: 'request' }>;
const doneOf = (outs: StandInOutput[]) => outs.find((o) => o.kind === 'done') as Extract<StandInOutput, { kind: 'done' }> | undefined;

function fresh(opts: ConstructorParameters<typeof StandIn>[1] = {}): StandIn {
  const s = new StandIn(CLIENT, opts);
  s.observe([register()], 0);
  return s;
}

describe('stand-in: requests (§7.3.1, §7.3.4)', () => {
  it('"requestId MUST be a globally unique string. UUID v4 is RECOMMENDED."', () => {
    const s = fresh();
    const a = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    const b = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    assert.match(a.request.requestId, UUID_V4);
    assert.notEqual(a.request.requestId, b.request.requestId);
  });

  it('"If it holds none under that hash, it MUST … send no knownSurfaces until it has them again"; with them it sends the hash', () => {
    const s = fresh();
    const first = s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs;
    assert.equal(requestOf(first).request.knownSurfaces, undefined, 'nothing held yet');
    s.observe([delivered(requestOf(first)), result(requestOf(first).request.requestId, { surfacesHash: 'fnv1a64:00000000000000aa', surfaces: [SURFACE] })], 10);
    const second = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 20).outputs);
    assert.equal(second.request.knownSurfaces, 'fnv1a64:00000000000000aa');
    // A result without surfaces under a hash it does not hold: the surfaces are unknown now.
    s.observe([delivered(second), result(second.request.requestId, { surfacesHash: 'fnv1a64:00000000000000bb' })], 30);
    assert.equal(requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 40).outputs).request.knownSurfaces, undefined);
  });

  it('"A runtime that receives a result without surfaces MUST keep the surfaces it holds under that surfacesHash"', () => {
    const s = fresh();
    const a = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    s.observe([delivered(a), result(a.request.requestId, { surfacesHash: 'fnv1a64:00000000000000aa', surfaces: [SURFACE] })], 1);
    const b = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 2).outputs);
    s.observe([delivered(b), result(b.request.requestId, { surfacesHash: 'fnv1a64:00000000000000aa' })], 3);
    assert.equal(requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 4).outputs).request.knownSurfaces, 'fnv1a64:00000000000000aa');
  });
});

describe('stand-in: results (§7.3.2, §7.3.3, §7.3.6)', () => {
  it('acknowledges each result of its own requests that asks for it, and ends the call with the final result', () => {
    const s = fresh();
    const { callId, outputs } = s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0);
    const req = requestOf(outputs);
    const r = result(req.request.requestId, { data: { ok: 1 } });
    const outs = s.observe([delivered(req), r], 5);
    assert.deepEqual(outs.find((o) => o.kind === 'ack'), { kind: 'ack', of: r, value: { ok: true } });
    const done = doneOf(outs)!;
    assert.equal(done.callId, callId);
    assert.equal(done.outcome.status, 'answered');
    assert.deepEqual(done.outcome.result.data, { ok: 1 });
    assert.ok(done.outcome.eventIds.includes(r.id));
  });

  it('results to requests it did not send (the real runtime’s) are not its to acknowledge', () => {
    const s = fresh();
    assert.deepEqual(s.observe([result('someone-else')], 1), []);
  });

  it('"one immediate acknowledgment result, then one final result": an interim result does not end the call', () => {
    const s = fresh();
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'export', params: {} }, 0).outputs);
    const interim = s.observe([delivered(req), result(req.request.requestId, { interim: true })], 1);
    assert.equal(doneOf(interim), undefined);
    const final = s.observe([result(req.request.requestId, { interim: false, data: 'file' })], 2);
    assert.equal(doneOf(final)?.outcome.result.data, 'file');
  });

  it('"A receiver that refuses a result SHOULD acknowledge it as refused, with a reason"; the trimmed re-send ends the call', () => {
    const s = fresh({ refuse: (r) => (r.delivery ? null : 'too large') });
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    const big = result(req.request.requestId, { surfaces: [SURFACE] });
    const first = s.observe([delivered(req), big], 1);
    assert.deepEqual(first.find((o) => o.kind === 'ack'), { kind: 'ack', of: big, value: { ok: false, error: 'too large' } });
    assert.equal(doneOf(first), undefined);
    const trimmed = s.observe([result(req.request.requestId, { delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] } })], 2);
    const done = doneOf(trimmed)!;
    assert.equal(done.outcome.status, 'answered');
    assert.deepEqual(done.outcome.refused, ['too large']);
  });
});

describe('stand-in: timers and repeats (§7.5, §7.3.7)', () => {
  it('"the agent runtime MUST generate a synthetic action:result with success: false and error code TIMEOUT"; "late results SHOULD be silently discarded"', () => {
    const s = fresh({ timers: { syncMs: 1000 }, resend: false });
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    s.observe([delivered(req)], 1);
    assert.equal(s.nextWake(), 1000);
    assert.deepEqual(s.tick(999), []);
    const done = doneOf(s.tick(1000))!;
    assert.equal(done.outcome.status, 'timeout');
    assert.equal(done.outcome.result.success, false);
    assert.equal(done.outcome.result.error?.code, 'TIMEOUT');
    const late = s.observe([result(req.request.requestId)], 2000);
    assert.equal(doneOf(late), undefined, 'no second outcome');
    assert.deepEqual(s.discarded, [req.request.requestId]);
  });

  it('"Action acknowledgment (async) 5,000 ms": an async action without its interim result times out at the acknowledgment deadline', () => {
    const s = fresh({ resend: false });
    requestOf(s.call({ surfaceId: 'cart', actionId: 'export', params: {} }, 0).outputs);
    assert.equal(s.nextWake(), 5000);
  });

  it('"An agent runtime may send a request again when no answer has come" — the same request, backing off; not once it holds a receipt', () => {
    const s = fresh({ timers: { syncMs: 60_000 } });
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    s.observe([delivered(req)], 1);
    const again = requestOf(s.tick(RESEND_FIRST_MS));
    assert.equal(again.repeat, true);
    assert.deepEqual(again.request, req.request, 'the same copy');
    // "SHOULD back off between sends": the next wait is longer than the first.
    assert.ok(s.nextWake()! - RESEND_FIRST_MS > RESEND_FIRST_MS);
    // "A sender that holds a receipt SHOULD wait for the answer rather than send the request again."
    const sent = delivered(again);
    s.observe([sent, ev({ kind: 'ack', ackOf: sent.id, payload: { ok: true } })], RESEND_FIRST_MS + 1);
    assert.equal(s.tick(10 * RESEND_FIRST_MS).filter((o) => o.kind === 'request').length, 0);
  });
});

describe('stand-in: deregistration and transport loss (§7.2, §7.6.1)', () => {
  it('"pending requests to that surface resolve SURFACE_UNAVAILABLE"', () => {
    const s = fresh();
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    const done = doneOf(s.observe([delivered(req), ev({ type: 'surface:deregister', payload: { surfaceId: 'cart', timestamp: 2 } })], 2))!;
    assert.equal(done.outcome.status, 'unavailable');
    assert.equal(done.outcome.result.error?.code, 'SURFACE_UNAVAILABLE');
  });

  it('"All pending action requests MUST be resolved with error code SURFACE_UNAVAILABLE" when the transport is lost', () => {
    const s = fresh();
    const req = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).outputs);
    const done = doneOf(s.observe([delivered(req), ev({ kind: 'lifecycle', type: 'close' })], 2))!;
    assert.equal(done.outcome.result.error?.code, 'SURFACE_UNAVAILABLE');
    assert.equal(s.registry.size, 0, '"All registered surfaces MUST be considered deregistered"');
  });
});

describe('stand-in: approvals', () => {
  it('asks the tab, then sends approval { approvalId, argsHash } with argsHash over exactly the params (independent SHA-256 of JCS)', () => {
    const s = fresh();
    const params = { reason: 'start_over', n: 1.5, nested: { b: 1, a: [true, null] } };
    const { outputs } = s.call({ surfaceId: 'cart', actionId: 'add', params, approve: true }, 0);
    const ask = outputs.find((o) => o.kind === 'event') as Extract<StandInOutput, { kind: 'event' }>;
    assert.equal(ask.type, 'x-approval:ask');
    const approvalId = (ask.payload as { approvalId: string }).approvalId;
    assert.equal(requestOf(outputs), undefined, 'nothing is sent before the user approves');
    const granted = s.observe([ev({ type: 'x-approval:granted', payload: { approvalId, argsHash: independentArgsHash(params), expiresAt: 99 } })], 5);
    const req = requestOf(granted);
    assert.deepEqual(req.request.approval, { approvalId, argsHash: independentArgsHash(params) });
  });

  it('a denial ends the call unsent', () => {
    const s = fresh();
    const { outputs } = s.call({ surfaceId: 'cart', actionId: 'add', params: {}, approve: true }, 0);
    const approvalId = ((outputs[0] as { payload: { approvalId: string } }).payload).approvalId;
    const done = doneOf(s.observe([ev({ type: 'x-approval:denied', payload: { approvalId, reason: 'no' } })], 1))!;
    assert.equal(done.outcome.status, 'not-sent');
  });
});

describe('stand-in on the wire', () => {
  it('a request to a Socket.IO client is an EVENT on its namespace with an ack id for the receipt (§7.3.7), its answer held by requestId', () => {
    const s = fresh();
    const out = requestOf(s.call({ surfaceId: 'cart', actionId: 'add', params: { x: 1 } }, 0).outputs);
    const plan = planOutput(CLIENT, out, new WireIds('t'));
    assert.ok(plan.ok);
    const cmd = plan.commands[0]!.command as { frame: string; hold: string[] };
    // Read by socket.io-parser (the library the client's stack uses), after the Engine.IO message type '4'.
    assert.equal(cmd.frame[0], '4');
    let packet: Packet | undefined;
    const parser = new SocketIOParser();
    parser.on('decoded', (p: Packet) => {
      packet = p;
    });
    parser.add(cmd.frame.slice(1));
    assert.equal(packet!.nsp, '/oui');
    assert.equal(packet!.type, PacketType.EVENT);
    assert.ok(Number.isInteger(packet!.id));
    assert.deepEqual(packet!.data, ['action:request', out.request]);
    assert.ok(cmd.hold.includes(out.request.requestId));
  });

  it('reads the ack id of a Socket.IO EVENT frame', () => {
    assert.equal(socketIOAckId('42/oui,17["action:result",{}]'), 17);
    assert.equal(socketIOAckId('4217["action:result",{}]'), 17);
    // As the decoder keeps it in a wire event's raw: the Socket.IO packet, without Engine.IO's message type.
    assert.equal(socketIOAckId('2/oui,0["action:result",{}]'), 0);
    assert.equal(socketIOAckId('2["action:result",{}]'), undefined);
    assert.equal(socketIOAckId('42/oui,["x"]'), undefined);
  });
});

describe('stand-in driver', () => {
  /** A clock and timers the test moves by hand. */
  function clock(): DriverTimers & { advance(ms: number): void } {
    let now = 0;
    let due: { at: number; fn: () => void } | null = null;
    return {
      now: () => now,
      set: (fn, ms) => (due = { at: now + ms, fn }),
      clear: (h) => {
        if (h === due) due = null;
      },
      advance(ms) {
        now += ms;
        const d = due;
        if (d && d.at <= now) {
          due = null;
          d.fn();
        }
      },
    };
  }

  it('a call resolves with the client\'s final result once its events arrive; the request went to the client\'s frame', async () => {
    const sent: Array<{ command: InjectCommand | HoldCommand; frameId: number }> = [];
    const s = fresh();
    const d = new StandInDriver(s, { client: () => CLIENT, send: async (command, frameId) => (sent.push({ command, frameId }), null) }, new WireIds('t'), clock());
    const p = d.call({ surfaceId: 'cart', actionId: 'add', params: {} });
    await Promise.resolve();
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.frameId, 0);
    const requestId = s.requestIdOf([...(s as unknown as { calls: Map<string, unknown> }).calls.keys()][0]!)!;
    d.observe([result(requestId, { data: 7 })]);
    const outcome = await p;
    assert.equal(outcome.result.data, 7);
  });

  it('a request the hook could not deliver rejects the call with why; the timer makes TIMEOUT results', async () => {
    const s = fresh({ resend: false, timers: { syncMs: 100 } });
    const t = clock();
    const failing = new StandInDriver(s, { client: () => CLIENT, send: async () => 'the socket is no longer open' }, new WireIds('t'), t);
    await assert.rejects(failing.call({ surfaceId: 'cart', actionId: 'add', params: {} }), /could not be delivered to c1: the socket is no longer open/);
    const s2 = fresh({ resend: false, timers: { syncMs: 100 } });
    const d = new StandInDriver(s2, { client: () => CLIENT, send: async () => null }, new WireIds('t'), t);
    const p = d.call({ surfaceId: 'cart', actionId: 'add', params: {} });
    t.advance(100);
    assert.equal((await p).status, 'timeout');
  });
});

describe('stand-in: bounded', () => {
  it('keeps at most MAX_ENDED_CALLS ended calls, the newest', async () => {
    const { MAX_ENDED_CALLS } = await import('../../src/runtime/stand-in.ts');
    const s = fresh({ resend: false, timers: { syncMs: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDED_CALLS + 5; i++) {
      ids.push(s.call({ surfaceId: 'cart', actionId: 'add', params: {} }, 0).callId);
      s.tick(1);
    }
    assert.equal(s.outcome(ids[0]!), undefined, 'the oldest was let go');
    assert.equal((s.outcome(ids.at(-1)!) as { status: string }).status, 'timeout');
  });
});
