/**
 * planInjection: what the page hook is asked to deliver, per transport, as
 * the client's own runtime would send it, and which answers it holds back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectTarget } from '../../src/capture/captured-items.ts';
import type { OUIActionRequest } from '../../src/protocol/index.ts';
import { SocketIODecoder, decodeEnginePacket, encodeSocketIOAck, readOUIFromSocketIO } from '../../src/protocol/index.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { INJECT_ACK_BASE, newRequestId, planInjection, whyNotInjectable, type InjectionOptions } from '../../src/session/wire/injection.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';

const REQ: OUIActionRequest = { requestId: '6f1c0d2e-1b2a-4c3d-8e9f-0a1b2c3d4e5f', surfaceId: 'cart', actionId: 'add_item', params: { sku: 'a', qty: 1 }, timestamp: 1_700_000_000_000 };
const ACK_ID = INJECT_ACK_BASE + 7;
const opts = (over: Partial<InjectionOptions> = {}): InjectionOptions => ({ id: 'inj-1', wantReceipt: true, letThrough: false, ackId: ACK_ID, ...over });

const WS_TARGET: InjectTarget = { via: 'websocket', frameId: 3, hook: 'h', client: 'c1' };
const base = { label: 'x', origin: 'http://app.test', frameUrl: 'http://app.test/', frameId: 3 };
const sio = (namespace: string | undefined, inject: InjectTarget | null = WS_TARGET): WireClient => ({ key: `sio${namespace}`, kind: 'socket.io', ...base, ...(namespace !== undefined ? { namespace } : {}), ...(inject ? { inject } : {}) });

/** Decodes an injected Socket.IO frame as the client's Socket.IO stack will. */
function decodeFrame(frame: string) {
  const packet = decodeEnginePacket(frame);
  assert.equal(packet.type, 'message');
  const packets = new SocketIODecoder().push(packet);
  assert.equal(packets.length, 1);
  return packets[0]!;
}

function planOk(client: WireClient, o: InjectionOptions) {
  const plan = planInjection(client, REQ, o);
  assert.ok(plan.ok, plan.ok ? '' : plan.error);
  return plan;
}

describe('planInjection: Socket.IO', () => {
  it('is a Socket.IO EVENT on the client namespace with the ack id of a wanted receipt', () => {
    const plan = planOk(sio('/oui'), opts());
    assert.equal(plan.command.type, 'hook:inject');
    assert.equal(plan.command.id, 'inj-1');
    assert.deepEqual(plan.command.target, WS_TARGET);
    assert.equal(plan.frameId, 3);
    const p = decodeFrame(plan.command.frame!);
    assert.deepEqual(p, { type: 'event', namespace: '/oui', name: 'action:request', args: [REQ], ackId: ACK_ID });
    assert.deepEqual(readOUIFromSocketIO(p), { kind: 'event', type: 'action:request', payload: REQ, namespace: '/oui', extraArgs: 0, ackId: ACK_ID });
  });

  it('holds the answers: the requestId and the ack marker of the receipt', () => {
    const plan = planOk(sio('/oui'), opts());
    assert.deepEqual(plan.command.hold, [REQ.requestId, `3/oui,${ACK_ID}[`]);
    // The marker matches the receipt the client will send, and not the request itself nor another ack id.
    const receipt = encodeSocketIOAck({ namespace: '/oui', ackId: ACK_ID, args: [{ received: true }] });
    assert.ok(receipt.includes(plan.command.hold[1]!), 'receipt carries the marker');
    assert.equal(plan.command.frame!.includes(plan.command.hold[1]!), false);
    assert.equal(encodeSocketIOAck({ namespace: '/oui', ackId: ACK_ID * 10 + 1, args: [] }).includes(plan.command.hold[1]!), false);
    assert.equal(encodeSocketIOAck({ namespace: '/other', ackId: ACK_ID, args: [] }).includes(plan.command.hold[1]!), false);
  });

  it('on the main namespace, neither the frame nor the marker name it', () => {
    for (const ns of ['/', undefined]) {
      const plan = planOk(sio(ns), opts());
      assert.ok(plan.command.frame!.startsWith(`42${ACK_ID}[`), plan.command.frame);
      assert.equal(decodeFrame(plan.command.frame!).namespace, '/');
      assert.deepEqual(plan.command.hold, [REQ.requestId, `3${ACK_ID}[`]);
      assert.ok(encodeSocketIOAck({ ackId: ACK_ID, args: [] }).includes(plan.command.hold[1]!), 'main-namespace receipt carries the marker');
    }
  });

  it('asks for no ack without a wanted receipt', () => {
    const plan = planOk(sio('/oui'), opts({ wantReceipt: false }));
    const p = decodeFrame(plan.command.frame!);
    assert.equal(p.ackId, undefined);
    assert.deepEqual(p.args, [REQ]);
    assert.deepEqual(plan.command.hold, [REQ.requestId]);
  });

  it('holds nothing when the answers may reach the app runtime', () => {
    const plan = planOk(sio('/oui'), opts({ letThrough: true }));
    assert.deepEqual(plan.command.hold, []);
    assert.equal(decodeFrame(plan.command.frame!).ackId, ACK_ID, 'the receipt is still asked for');
  });

  it('refuses a namespace it cannot encode, with a reason', () => {
    const plan = planInjection(sio('oui'), REQ, opts());
    assert.equal(plan.ok, false);
    assert.match(plan.ok ? '' : plan.error, /cannot encode: invalid namespace/);
  });

  it('rides only the WebSocket of a Socket.IO client', () => {
    const plan = planInjection(sio('/oui', { via: 'direct', frameId: 1, hook: 'h', client: 'c9' }), REQ, opts());
    assert.equal(plan.ok, false);
    assert.match(plan.ok ? '' : plan.error, /through its WebSocket/);
  });

  it('decodes back through the wire decoder as the injected request, and pairs the held receipt', () => {
    const hook = new FakeHook('h');
    const ws = hook.client('websocket', 'wss://app.test/socket.io/?EIO=4&transport=websocket&sid=S');
    const decoder = new WireDecoder();
    decoder.addClient(ws, 'h', 0);
    decoder.push(hook.frame(ws, 'out', '40/oui,'));
    const client = decoder.allClients()[0]!;
    assert.deepEqual(client.inject, { via: 'websocket', frameId: 0, hook: 'h', client: ws.id });
    const plan = planOk(client, opts());
    const [req] = decoder.push(hook.frame(ws, 'in', plan.command.frame!, { injected: true }));
    assert.deepEqual([req!.type, req!.payload, req!.injected, req!.wantsAck], ['action:request', REQ, true, true]);
    const [receipt] = decoder.push(hook.frame(ws, 'out', encodeSocketIOAck({ namespace: '/oui', ackId: ACK_ID, args: [{ received: true }] }), { held: true }));
    assert.deepEqual([receipt!.kind, receipt!.ackOf, receipt!.held], ['ack', req!.id, true]);
  });
});

describe('planInjection: other transports', () => {
  it('plain WebSocket: a JSON action:request frame', () => {
    const plan = planOk({ key: 'ws', kind: 'websocket', ...base, inject: WS_TARGET }, opts());
    assert.deepEqual(JSON.parse(plan.command.frame!), { type: 'action:request', payload: REQ });
    assert.equal(plan.frameId, 3);
    assert.deepEqual(plan.command.hold, [REQ.requestId], 'no ack marker: plain JSON has no ack ids');
    assert.equal(plan.command.message, undefined);
    assert.deepEqual(planOk({ key: 'ws', kind: 'websocket', ...base, inject: WS_TARGET }, opts({ letThrough: true })).command.hold, []);
  });

  it("postMessage: the message to the client's frame only, the hold to the peer's frame only", () => {
    const target: InjectTarget = { via: 'postmessage', clientPath: 'top/0', peerPath: 'top', frameId: 7, peerFrameId: 0 };
    const plan = planOk({ key: 'pm', kind: 'postmessage', ...base, inject: target }, opts());
    assert.deepEqual(plan.command.message, { type: 'action:request', payload: REQ });
    assert.equal(plan.frameId, 7);
    assert.equal(plan.command.frame, undefined);
    assert.deepEqual(plan.command.target, target);
    assert.deepEqual(plan.command.hold, [], 'the client frame holds nothing: the answer arrives in the peer frame');
    assert.deepEqual(plan.hold, { frameId: 0, command: { type: 'hook:hold', id: opts().id, scope: 'postmessage:top<->top/0', hold: [REQ.requestId] } });
    assert.ok(!JSON.stringify(plan.hold).includes('params'), 'the peer frame learns no params');
    // Let through: nothing to hold.
    assert.equal(planOk({ key: 'pm', kind: 'postmessage', ...base, inject: target }, opts({ letThrough: true })).hold, undefined);
    // The peer frame has no hook the panel heard from: nothing can hold there, the request still goes.
    const noPeer = planOk({ key: 'pm', kind: 'postmessage', ...base, inject: { ...target, peerFrameId: undefined } as InjectTarget }, opts());
    assert.equal(noPeer.hold, undefined);
    assert.equal(noPeer.frameId, 7);
  });

  it("postMessage: never broadcast; not injectable until the client's frame is known", () => {
    const plan = planInjection({ key: 'pm', kind: 'postmessage', ...base, inject: { via: 'postmessage', clientPath: 'top/0', peerPath: 'top' } }, REQ, opts());
    assert.equal(plan.ok, false);
    assert.match(plan.ok ? '' : plan.error, /client's frame/);
  });

  it('direct: the request object, the receipt wish and the frame', () => {
    const target: InjectTarget = { via: 'direct', frameId: 5, hook: 'h', client: 'c2' };
    for (const wantReceipt of [true, false]) {
      const plan = planOk({ key: 'd', kind: 'direct', ...base, inject: target }, opts({ wantReceipt }));
      assert.deepEqual(plan.command.request, REQ);
      assert.equal(plan.command.wantReceipt, wantReceipt);
      assert.equal(plan.frameId, 5);
      assert.equal(plan.command.frame, undefined);
      assert.equal(plan.command.message, undefined);
      assert.deepEqual(plan.command.hold, [REQ.requestId]);
    }
  });

  it('refuses a client without a target, saying why', () => {
    const cases: Array<[WireClient, RegExp]> = [
      [sio('/oui', null), /not upgraded to WebSocket/],
      [{ key: 'pm', kind: 'postmessage', ...base }, /which frame of this pairing is the client/],
      [{ key: 'ws', kind: 'websocket', ...base }, /no open transport/],
      [{ key: 'd', kind: 'direct', ...base }, /no open transport/],
      [{ key: 'p', kind: 'polling', ...base }, /no open transport/],
    ];
    for (const [client, why] of cases) {
      const plan = planInjection(client, REQ, opts());
      assert.equal(plan.ok, false, client.key);
      assert.match(plan.ok ? '' : plan.error, why);
      assert.match(whyNotInjectable(client) ?? '', why);
    }
    assert.equal(whyNotInjectable(sio('/oui')), null);
  });

  it('newRequestId gives distinct UUID v4s', () => {
    const a = newRequestId();
    const b = newRequestId();
    assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a, b);
  });
});
