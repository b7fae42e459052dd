/**
 * The hook and the decoder read the same frames the same way (contract.ts):
 * every frame the decoder reads as an OUI event is one the quiet ring's
 * `showsOui` keeps (so its socket is promoted), in JSON and Socket.IO text,
 * `x-` extension types included; and the hook's Socket.IO ack for a held
 * answer is what the real codec reads as the ack of that event.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CapturedItem } from '../../src/capture/captured-items.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { SocketIODecoder, encodeSocketIOEvent, readOUIFromSocketIO } from '../../src/protocol/socketio.ts';
import { FakeHook } from '../support/capture-items.ts';
import { showsOui } from '../../content/quiet-ring.ts';
import { socketIoResultAck } from '../../content/socketio-ack.ts';

const REQ = { requestId: 'r-1', surfaceId: 'cart', actionId: 'add', params: {}, timestamp: 2 };
const FRAMES: Array<[string, string]> = [
  ['json request', JSON.stringify({ type: 'action:request', payload: REQ })],
  ['json register', JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'cart', name: 'C', description: 'd', actions: [] }, timestamp: 1 } })],
  ['json observation', JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'cart', observationId: 'n', value: 1, timestamp: 1 } })],
  ['json x- only', JSON.stringify({ type: 'x-approval:ask', payload: { id: 1 } })],
  ['json x- with spaces', '{ "type" : "x-vendor", "payload": {} }'],
  ['socket.io event', encodeSocketIOEvent({ name: 'action:result', args: [{ requestId: 'r-1', success: true, timestamp: 3 }] })],
  ['socket.io x- in a namespace', encodeSocketIOEvent({ namespace: '/oui', name: 'x-agent:typing', args: [{}], ackId: 4 })],
  ['non-OUI json', JSON.stringify({ type: 'chat', text: 'an action: go' })],
  ['non-OUI socket.io', encodeSocketIOEvent({ name: 'tick', args: [1] })],
  ['engine.io ping', '2'],
  ['plain text', 'hello x-ray'],
];

function decodedAsOui(text: string): boolean {
  const hook = new FakeHook('h');
  const sio = /^\d/.test(text);
  const ws = hook.client('websocket', sio ? 'ws://app.test/socket.io/?EIO=4&transport=websocket' : 'ws://app.test/agent');
  const decoder = new WireDecoder();
  decoder.addClient(ws, hook.hook, 0);
  const events = [...decoder.push(hook.item(ws, 'open'))];
  // A Socket.IO socket is read as one after its Engine.IO handshake, as a real one always starts.
  if (sio) events.push(...decoder.push(hook.frame(ws, 'in', '0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}')));
  events.push(...decoder.push(hook.frame(ws, 'in', text)));
  return events.some((e) => e.kind === 'event');
}

function shown(text: string): boolean {
  const item: CapturedItem = { hook: 'h', client: 'c1', seq: 2, t: 1, kind: 'frame', dir: 'in', payload: { text } };
  return showsOui(item);
}

describe('the hook and the decoder on the same frames', () => {
  it('every frame the decoder reads as an OUI event is one showsOui keeps', () => {
    let oui = 0;
    for (const [name, text] of FRAMES) {
      const decoded = decodedAsOui(text);
      if (decoded) oui++;
      if (decoded) assert.ok(shown(text), `${name}: the decoder reads OUI, the quiet ring would not promote it`);
    }
    assert.ok(oui >= 7, `the witness: ${oui} of the frames are OUI to the decoder`);
  });

  it('frames that are OUI to neither stay quiet', () => {
    for (const name of ['non-OUI json', 'non-OUI socket.io', 'engine.io ping']) {
      const text = FRAMES.find(([n]) => n === name)![1];
      assert.equal(decodedAsOui(text), false, name);
      assert.equal(shown(text), false, name);
    }
  });
});

describe('the Socket.IO ack of a held answer', () => {
  const codecAckOf = (frame: string) => {
    const [p] = new SocketIODecoder().pushFrame(frame);
    const m = p ? readOUIFromSocketIO(p) : null;
    return m?.kind === 'event' && m.type === 'action:result' && m.ackId !== undefined ? { ns: m.namespace, id: m.ackId } : undefined;
  };
  const RES = { requestId: 'r-1', success: true, timestamp: 3 };
  const cases = [
    encodeSocketIOEvent({ name: 'action:result', args: [RES], ackId: 17 }),
    encodeSocketIOEvent({ namespace: '/oui', name: 'action:result', args: [RES], ackId: 3 }),
    encodeSocketIOEvent({ name: 'action:result', args: [RES] }),
    encodeSocketIOEvent({ name: 'observation:update', args: [{ note: '"action:result"' }], ackId: 5 }),
    encodeSocketIOEvent({ name: 'action:request', args: [REQ], ackId: 6 }),
    '{"type":"action:result","payload":{}}',
  ];

  it('is made exactly for the frames the codec reads as an action:result asking for an ack, with its namespace and id', () => {
    let acked = 0;
    for (const frame of cases) {
      const want = codecAckOf(frame);
      const ack = socketIoResultAck(frame);
      assert.equal(ack !== undefined, want !== undefined, frame);
      if (!ack || !want) continue;
      acked++;
      const [p] = new SocketIODecoder().pushFrame(ack);
      assert.equal(p?.type, 'ack', ack);
      assert.equal(p?.ackId, want.id);
      assert.equal(p?.namespace, want.ns);
      assert.deepEqual(p?.args, [{ ok: true }]);
    }
    assert.equal(acked, 2, 'the witness: two frames want an ack');
  });
});
