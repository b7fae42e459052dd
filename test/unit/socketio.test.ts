/** Hand-written and property-based cases for the Engine.IO / Socket.IO codec. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageJson } from '../support/page-data.ts';
import { Decoder as OfficialDecoder, Encoder as OfficialEncoder, PacketType } from 'socket.io-parser';
import {
  SocketIODecoder,
  base64ToBytes,
  bytesToBase64,
  decodeEngineFrame,
  decodeEnginePacket,
  decodePollingPayload,
  encodeEnginePacket,
  encodePollingPayload,
  encodeSocketIOAck,
  encodeSocketIOEvent,
  encodeSocketIOFrames,
  looksLikeEngineIO,
  looksLikeSocketIO,
  parseEngineHandshake,
  parseEngineUrl,
  readOUIFromSocketIO,
  type EnginePacket,
  type SocketIOPacket,
} from '../../src/protocol/index.ts';

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

/** Decodes socket.io frames (text without the leading engine `4`, or bytes) with a fresh decoder. */
function sio(...frames: Array<string | Uint8Array>): SocketIOPacket[] {
  const d = new SocketIODecoder();
  const out: SocketIOPacket[] = [];
  for (const f of frames) out.push(...d.push(typeof f === 'string' ? { type: 'message', data: f } : { type: 'message', data: f }));
  return out;
}

function one(...frames: Array<string | Uint8Array>): SocketIOPacket {
  const out = sio(...frames);
  assert.equal(out.length, 1, JSON.stringify(out));
  return out[0]!;
}

function isError(p: SocketIOPacket | undefined, reason?: RegExp): void {
  assert.ok(p, 'a packet');
  assert.equal(p.type, 'error', JSON.stringify(p));
  assert.equal(typeof p.reason, 'string');
  assert.equal(typeof p.raw, 'string');
  if (reason) assert.match(p.reason!, reason);
}

describe('base64', () => {
  test('matches Buffer on assorted sizes', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 300, 12287, 12288, 12289, 65537]) {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) & 255;
      const s = bytesToBase64(b);
      assert.equal(s, b.toString('base64'));
      assert.deepEqual(Buffer.from(base64ToBytes(s)!), b);
    }
  });
  test('round trips random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (u) => {
        assert.deepEqual(base64ToBytes(bytesToBase64(u)), u);
      }),
    );
  });
  test('accepts unpadded and url-safe, rejects malformed', () => {
    assert.deepEqual(base64ToBytes('AQI'), bytes(1, 2));
    assert.deepEqual(base64ToBytes('-_8'), bytes(0xfb, 0xff));
    for (const bad of ['A', 'AB=C', 'A===', '====x', 'é', 'AQI=A', 'AQ=', 'ab cd']) assert.equal(base64ToBytes(bad), null, bad);
  });
});

describe('Engine.IO packets', () => {
  test('every packet type', () => {
    assert.deepEqual(decodeEnginePacket('0{"sid":"abc"}'), { type: 'open', data: '{"sid":"abc"}' });
    assert.deepEqual(decodeEnginePacket('1'), { type: 'close' });
    assert.deepEqual(decodeEnginePacket('2'), { type: 'ping' });
    assert.deepEqual(decodeEnginePacket('2probe'), { type: 'ping', data: 'probe' });
    assert.deepEqual(decodeEnginePacket('3probe'), { type: 'pong', data: 'probe' });
    assert.deepEqual(decodeEnginePacket('4hello'), { type: 'message', data: 'hello' });
    assert.deepEqual(decodeEnginePacket('4'), { type: 'message' });
    assert.deepEqual(decodeEnginePacket('5'), { type: 'upgrade' });
    assert.deepEqual(decodeEnginePacket('6'), { type: 'noop' });
    assert.deepEqual(decodeEnginePacket('bAQI='), { type: 'message', data: bytes(1, 2) });
    assert.deepEqual(decodeEnginePacket('b'), { type: 'message', data: bytes() });
    assert.deepEqual(decodeEnginePacket(bytes(1, 2, 3)), { type: 'message', data: bytes(1, 2, 3) });
    assert.deepEqual(decodeEnginePacket(bytes(1, 2).buffer as ArrayBuffer), { type: 'message', data: bytes(1, 2) });
  });
  test('undecodable input is an error packet, never a throw', () => {
    for (const bad of ['', '7', '9x', 'x', '{"type":"a"}', 'b!!!', '\x1e', 'ok']) {
      const p = decodeEnginePacket(bad);
      assert.equal(p.type, 'error', bad);
      assert.equal(typeof p.reason, 'string');
    }
    for (const bad of [null, undefined, 42, {}, []] as unknown[]) {
      assert.equal(decodeEnginePacket(bad as string).type, 'error');
    }
  });
  test('captured frames as the hook records them', () => {
    assert.deepEqual(decodeEngineFrame({ text: '42["a"]' }), { type: 'message', data: '2["a"]' });
    assert.deepEqual(decodeEngineFrame({ base64: 'AQI=' }), { type: 'message', data: bytes(1, 2) });
    assert.equal(decodeEngineFrame({ base64: '%%' }).type, 'error');
    assert.equal(decodeEngineFrame({ omitted: true }).type, 'error');
  });
  test('polling payloads', () => {
    assert.deepEqual(decodePollingPayload(''), []);
    assert.deepEqual(decodePollingPayload('42["a"]\x1e2\x1ebAQI='), [
      { type: 'message', data: '2["a"]' },
      { type: 'ping' },
      { type: 'message', data: bytes(1, 2) },
    ]);
    assert.equal(decodePollingPayload('ok')[0]!.type, 'error');
    const trailing = decodePollingPayload('6\x1e');
    assert.equal(trailing[0]!.type, 'noop');
    assert.equal(trailing[1]!.type, 'error');
    const capped = decodePollingPayload('6\x1e6\x1e6\x1e6', { maxPackets: 2 });
    assert.equal(capped.length, 3);
    assert.match(capped[2]!.reason!, /too many/);
    assert.match(decodePollingPayload('4'.repeat(100), { maxBodyLength: 10 })[0]!.reason!, /too long/);
    assert.equal(decodePollingPayload(null as unknown as string)[0]!.type, 'error');
  });
  test('encode round trips', () => {
    const packets: EnginePacket[] = [
      { type: 'open', data: '{"sid":"x"}' },
      { type: 'message', data: '2["a",{"é":"😀"}]' },
      { type: 'message', data: bytes(0, 255, 7) },
      { type: 'ping' },
      { type: 'noop' },
    ];
    assert.deepEqual(decodePollingPayload(encodePollingPayload(packets)), packets);
    for (const p of packets) assert.deepEqual(decodeEnginePacket(encodeEnginePacket(p)), p);
    assert.throws(() => encodeEnginePacket({ type: 'error' }), TypeError);
    assert.throws(() => encodeEnginePacket({ type: 'ping', data: bytes(1) }), TypeError);
  });
  test('handshake', () => {
    const open = decodeEnginePacket('0{"sid":"s1","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}');
    assert.deepEqual(parseEngineHandshake(open), {
      sid: 's1',
      upgrades: ['websocket'],
      pingInterval: 25000,
      pingTimeout: 20000,
      maxPayload: 1000000,
    });
    assert.equal(parseEngineHandshake(decodeEnginePacket('0{bad')), null);
    assert.equal(parseEngineHandshake(decodeEnginePacket('0[]')), null);
    assert.equal(parseEngineHandshake(decodeEnginePacket('4{"sid":"x"}')), null);
  });
});

describe('Engine.IO detection', () => {
  test('parseEngineUrl', () => {
    assert.deepEqual(parseEngineUrl('/socket.io/?EIO=4&transport=polling&t=PQx1'), { eio: 4, transport: 'polling', path: '/socket.io/' });
    assert.deepEqual(parseEngineUrl('wss://example.com/socket.io/?EIO=4&transport=websocket&sid=abc-_123'), {
      eio: 4,
      transport: 'websocket',
      sid: 'abc-_123',
      path: '/socket.io/',
    });
    assert.deepEqual(parseEngineUrl('https://h:8443/custom/rt/?transport=polling&EIO=3&sid=z'), {
      eio: 3,
      transport: 'polling',
      sid: 'z',
      path: '/custom/rt/',
    });
    for (const bad of ['', '/socket.io/', '/socket.io/?EIO=4', '/socket.io/?transport=polling', '/?EIO=x&transport=polling', 'http://[', '/?EIO=4&transport=web%20socket']) {
      assert.equal(parseEngineUrl(bad), null, bad);
    }
    assert.equal(parseEngineUrl(undefined as unknown as string), null);
  });
  test('looksLikeEngineIO / looksLikeSocketIO', () => {
    for (const yes of ['0{"sid":"a","upgrades":[]}', '2', '3probe', '42["a"]', '40/oui,', '5', '6', '40\x1e42["a"]\x1ebAQI=', 'bAQI=', '4hello']) {
      assert.ok(looksLikeEngineIO(yes), yes);
    }
    for (const no of ['', '{"type":"x"}', 'hello', '0{"foo":1}', '2ping', '55', '7', '42\x1e', 'b!!', 'ok']) {
      assert.ok(!looksLikeEngineIO(no), no);
    }
    for (const yes of ['40', '40/oui,', '42["a"]', '4317[1]', '451-["a",{}]', '44{"message":"x"}', '44"x"']) assert.ok(looksLikeSocketIO(yes), yes);
    for (const no of ['4', '4hello', '47', '2', '42x', 'x42', '']) assert.ok(!looksLikeSocketIO(no), no);
  });
});

describe('Socket.IO decoding', () => {
  test('CONNECT', () => {
    assert.deepEqual(one('0'), { type: 'connect', namespace: '/' });
    assert.deepEqual(one('0{"token":"x"}'), { type: 'connect', namespace: '/', data: { token: 'x' } });
    assert.deepEqual(one('0/oui,'), { type: 'connect', namespace: '/oui' });
    assert.deepEqual(one('0/oui,{"sid":"abc","pid":"p"}'), { type: 'connect', namespace: '/oui', data: { sid: 'abc', pid: 'p' } });
  });
  test('DISCONNECT', () => {
    assert.deepEqual(one('1'), { type: 'disconnect', namespace: '/' });
    assert.deepEqual(one('1/oui,'), { type: 'disconnect', namespace: '/oui' });
    assert.deepEqual(one('1/oui'), { type: 'disconnect', namespace: '/oui' });
  });
  test('EVENT', () => {
    assert.deepEqual(one('2["surface:register",{"a":1}]'), { type: 'event', namespace: '/', name: 'surface:register', args: [{ a: 1 }] });
    assert.deepEqual(one('2/oui,17["action:request",{"a":1},2,"x"]'), {
      type: 'event',
      namespace: '/oui',
      name: 'action:request',
      args: [{ a: 1 }, 2, 'x'],
      ackId: 17,
    });
    assert.deepEqual(one('20["x"]'), { type: 'event', namespace: '/', name: 'x', args: [], ackId: 0 });
    assert.deepEqual(one('2[7,"numeric name"]'), { type: 'event', namespace: '/', name: '7', args: ['numeric name'] });
    assert.deepEqual(one('2/a/b-c_d,["x"]'), { type: 'event', namespace: '/a/b-c_d', name: 'x', args: [] });
  });
  test('ACK', () => {
    assert.deepEqual(one('3/oui,17[{"ok":true}]'), { type: 'ack', namespace: '/oui', ackId: 17, args: [{ ok: true }] });
    assert.deepEqual(one('30[]'), { type: 'ack', namespace: '/', ackId: 0, args: [] });
  });
  test('CONNECT_ERROR', () => {
    assert.deepEqual(one('4{"message":"Not authorized","data":{"code":1}}'), {
      type: 'connect_error',
      namespace: '/',
      data: { message: 'Not authorized', data: { code: 1 } },
    });
    assert.deepEqual(one('4/oui,"Invalid namespace"'), { type: 'connect_error', namespace: '/oui', data: 'Invalid namespace' });
  });
  test('BINARY_EVENT / BINARY_ACK reassemble attachments as base64', () => {
    const d = new SocketIODecoder();
    assert.deepEqual(d.push({ type: 'message', data: '52-/oui,5["up",{"_placeholder":true,"num":1},[{"_placeholder":true,"num":0}]]' }), []);
    assert.equal(d.awaitingAttachments, 2);
    assert.deepEqual(d.push({ type: 'message', data: bytes(1, 2, 3) }), []);
    assert.deepEqual(d.push({ type: 'message', data: bytes() }), [
      {
        type: 'event',
        namespace: '/oui',
        name: 'up',
        ackId: 5,
        binary: true,
        args: [{ binary: '', size: 0 }, [{ binary: 'AQID', size: 3 }]],
      },
    ]);
    assert.equal(d.awaitingAttachments, 0);
    assert.deepEqual(d.push({ type: 'message', data: '61-4[{"_placeholder":true,"num":0},"x"]' }), []);
    assert.deepEqual(d.pushFrame(bytes(255)), [{ type: 'ack', namespace: '/', ackId: 4, binary: true, args: [{ binary: '/w==', size: 1 }, 'x'] }]);
    // A placeholder used twice yields two independent objects.
    const twice = sio('51-["t",{"_placeholder":true,"num":0},{"_placeholder":true,"num":0}]', bytes(9));
    assert.deepEqual(twice[0]!.args, [{ binary: 'CQ==', size: 1 }, { binary: 'CQ==', size: 1 }]);
    assert.notEqual(twice[0]!.args![0], twice[0]!.args![1]);
    // Placeholders in a non-binary EVENT are left alone.
    assert.deepEqual(one('2["t",{"_placeholder":true,"num":0}]').args, [{ _placeholder: true, num: 0 }]);
  });
  test('attachments over polling (b + base64) and via pushPollingBody', () => {
    const d = new SocketIODecoder();
    assert.deepEqual(d.pushPollingBody('451-["b",{"_placeholder":true,"num":0}]\x1ebAQI=\x1e42["after"]'), [
      { type: 'event', namespace: '/', name: 'b', binary: true, args: [{ binary: 'AQI=', size: 2 }] },
      { type: 'event', namespace: '/', name: 'after', args: [] },
    ]);
  });
  test('non-message Engine.IO packets are ignored; engine errors are reported', () => {
    const d = new SocketIODecoder();
    for (const t of ['open', 'ping', 'pong', 'upgrade', 'noop', 'close'] as const) assert.deepEqual(d.push({ type: t, data: 'x' }), []);
    isError(d.push(decodeEnginePacket('zzz'))[0], /Engine\.IO/);
  });
  test('binary packet interrupted by text, by close, by end', () => {
    const head = '51-["a",{"_placeholder":true,"num":0}]';
    const byText = sio(head, '2["b"]');
    isError(byText[0], /incomplete binary packet/);
    assert.deepEqual(byText[1], { type: 'event', namespace: '/', name: 'b', args: [] });
    const d = new SocketIODecoder();
    d.push({ type: 'message', data: head });
    isError(d.push({ type: 'close' })[0], /incomplete/);
    assert.deepEqual(d.end(), []);
    d.push({ type: 'message', data: head });
    isError(d.end()[0], /incomplete/);
    assert.deepEqual(d.pushFrame('42["c"]'), [{ type: 'event', namespace: '/', name: 'c', args: [] }]);
  });
  test('malformed packets become errors with a reason and never throw', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /empty/],
      ['7', /unknown Socket\.IO packet type/],
      ['x', /unknown/],
      ['garbage!', /unknown/],
      ['2', /EVENT payload must be an array/],
      ['2[', /invalid JSON/],
      ['2["a",{"b":', /invalid JSON/],
      ['2{"a":1}', /must be an array/],
      ['2[]', /without a name/],
      ['2[null]', /without a name/],
      ['2["connect"]', /reserved/],
      ['2["disconnect",1]', /reserved/],
      ['3[1]', /ACK without an ack id/],
      ['3/x,5{}', /must be an array/],
      ['299999999999999999999["a"]', /ack id out of range/],
      ['29007199254740993["a"]', /ack id out of range/],
      ['2/oui,12345678901234567890123["a"]', /ack id out of range/],
      ['2/oui,17x', /invalid JSON/],
      ['2/oui,-1["a"]', /invalid JSON/],
      ['5-["a"]', /illegal attachment count/],
      ['50-["a"]', /zero attachments/],
      ['5abc-["a"]', /illegal attachment count/],
      ['51["a"]', /without attachment count/],
      ['5999999999999999-["a"]', /without attachment count|too many/],
      ['512345-["a"]', /too many attachments/],
      ['51-{"a":1}', /must be an array/],
      ['1{"a":1}', /DISCONNECT takes no payload/],
      ['0[1]', /CONNECT payload must be an object/],
      ['0"x"', /CONNECT payload must be an object/],
      ['012', /ack id on a packet that takes none/],
      ['4', /CONNECT_ERROR payload/],
      ['4[1]', /CONNECT_ERROR payload/],
      ['2' + '['.repeat(200_000), /invalid JSON|EVENT/],
    ];
    for (const [input, reason] of cases) {
      const out = sio(input);
      assert.equal(out.length, 1, `${input.slice(0, 40)} -> ${JSON.stringify(out).slice(0, 200)}`);
      isError(out[0], reason);
    }
    // Attachments count without the binaries, then the stream ends.
    isError(sio('51-["a",{"_placeholder":true,"num":0}]', '2["b"]')[0], /expected 1 attachment\(s\), got 0/);
    // Placeholder out of range, or malformed.
    isError(sio('51-["a",{"_placeholder":true,"num":5}]', bytes(1))[0], /illegal attachment placeholder/);
    isError(sio('51-["a",{"_placeholder":true,"num":"0"}]', bytes(1))[0], /illegal attachment placeholder/);
    isError(sio('51-["a",{"_placeholder":true}]', bytes(1))[0], /illegal attachment placeholder/);
    // Binary frame with nothing waiting.
    isError(sio(bytes(1, 2))[0], /unexpected binary/);
    // An empty Engine.IO message.
    isError(new SocketIODecoder().push({ type: 'message' })[0], /empty/);
    // Not packets at all.
    isError(new SocketIODecoder().push(null as unknown as EnginePacket)[0]);
    isError(new SocketIODecoder().push({ type: 'message', data: 42 } as unknown as EnginePacket)[0]);
  });
  test('huge numbers and odd JSON values decode without loss of control', () => {
    assert.deepEqual(one('2["n",1e400,-1e400,12345678901234567890,1e-400]').args, [Infinity, -Infinity, 12345678901234567890, 0]);
    assert.deepEqual(one('2["u","\\ud800","\\u0000"]').args, ['\ud800', '\u0000']);
  });
  test('limits', () => {
    const d = new SocketIODecoder({ maxAttachments: 2, maxMessageLength: 50, maxAttachmentBytes: 4, maxRawLength: 10 });
    isError(d.pushFrame('453-["a"]')[0], /too many attachments \(3 > 2\)/);
    const long = d.pushFrame('42["' + 'x'.repeat(100) + '"]')[0]!;
    isError(long, /too long/);
    assert.ok(long.raw!.length < 40, long.raw);
    d.pushFrame('451-["a",{"_placeholder":true,"num":0}]');
    isError(d.pushFrame(new Uint8Array(5))[0], /attachments too large/);
    assert.equal(d.awaitingAttachments, 0);
  });
  test('deeply nested binary payloads are reassembled without recursion', () => {
    const depth = 100_000;
    const text = '51-["deep",' + '['.repeat(depth) + '{"_placeholder":true,"num":0}' + ']'.repeat(depth) + ']';
    const out = sio(text, bytes(1));
    assert.equal(out.length, 1);
    assert.equal(out[0]!.type, 'event');
    let v: unknown = out[0]!.args![0];
    for (let i = 0; i < depth; i++) v = (v as unknown[])[0];
    assert.deepEqual(v, { binary: 'AQ==', size: 1 });
  });
  test('__proto__ keys do not pollute prototypes', () => {
    const out = one('51-["p",{"__proto__":{"_placeholder":true,"num":0},"x":{"__proto__":{"polluted":true}}}]', bytes(1));
    assert.equal(out.type, 'event');
    const arg = out.args![0] as Record<string, unknown>;
    assert.ok(Object.prototype.hasOwnProperty.call(arg, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(arg, '__proto__')!.value, { binary: 'AQ==', size: 1 });
    assert.equal(Object.getPrototypeOf(arg), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).binary, undefined);
  });
  test('random input never throws and always yields well-formed packets', () => {
    const types = new Set(['connect', 'disconnect', 'event', 'ack', 'connect_error', 'error']);
    const frame = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: fc.constantFrom(...'0123456789-/,[]{}"_:placeholdernum1true'.split('')), maxLength: 40 }).map((s) => '4' + s),
      pageJson().map((v) => '4' + fc.sample(fc.constantFrom('0', '1', '2', '3', '4', '51-', '62-', '2/x,3', '3/x,3'), 1)[0] + JSON.stringify(v)),
      fc.uint8Array({ maxLength: 8 }),
      fc.constant('451-["a",{"_placeholder":true,"num":0}]'),
    );
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 12 }), (frames) => {
        const d = new SocketIODecoder();
        const out: SocketIOPacket[] = [];
        for (const f of frames) {
          const eps = typeof f === 'string' ? decodePollingPayload(f) : [decodeEnginePacket(f)];
          for (const ep of eps) out.push(...d.push(ep));
        }
        out.push(...d.end());
        for (const p of out) {
          assert.ok(types.has(p.type));
          assert.equal(typeof p.namespace, 'string');
          if (p.type === 'error') assert.equal(typeof p.reason, 'string');
          if (p.type === 'event') assert.equal(typeof p.name, 'string');
          if (p.type === 'ack') assert.ok(Number.isSafeInteger(p.ackId));
          assert.deepEqual(structuredClone(p), p);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('Socket.IO encoding', () => {
  test('exact frames', () => {
    assert.equal(encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [{ a: 1 }], ackId: 17 }), '42/oui,17["action:request",{"a":1}]');
    assert.equal(encodeSocketIOEvent({ name: 'x', args: [1, 'b'] }), '42["x",1,"b"]');
    assert.equal(encodeSocketIOEvent({ namespace: '/', name: 'x', ackId: 0 }), '420["x"]');
    assert.equal(encodeSocketIOAck({ namespace: '/oui', ackId: 17, args: [{ ok: true }] }), '43/oui,17[{"ok":true}]');
    assert.equal(encodeSocketIOAck({ ackId: 5 }), '435[]');
  });
  test('invalid input throws TypeError', () => {
    assert.throws(() => encodeSocketIOEvent({ namespace: 'oui', name: 'x' }), TypeError);
    assert.throws(() => encodeSocketIOEvent({ namespace: '/a,b', name: 'x' }), TypeError);
    assert.throws(() => encodeSocketIOEvent({ name: '' }), TypeError);
    assert.throws(() => encodeSocketIOEvent({ name: 'x', ackId: -1 }), TypeError);
    assert.throws(() => encodeSocketIOEvent({ name: 'x', ackId: 1.5 }), TypeError);
    assert.throws(() => encodeSocketIOEvent({ name: 'x', args: [bytes(1)] }), TypeError);
    assert.throws(() => encodeSocketIOAck({ ackId: undefined as unknown as number }), TypeError);
    assert.throws(() => encodeSocketIOAck({ ackId: 2 ** 60 }), TypeError);
  });
  test('round trips through the decoder', () => {
    const name = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener'].includes(s));
    const ns = fc.oneof(fc.constant('/'), fc.string({ maxLength: 10 }).filter((s) => !s.includes(',')).map((s) => '/' + s));
    const ackId = fc.option(fc.nat(), { nil: undefined });
    fc.assert(
      fc.property(ns, name, fc.array(pageJson(), { maxLength: 4 }), ackId, (namespace, n, args, id) => {
        const frame = encodeSocketIOEvent({ namespace, name: n, args, ackId: id });
        const [p, ...rest] = new SocketIODecoder().pushFrame(frame);
        assert.equal(rest.length, 0);
        const expected: SocketIOPacket = { type: 'event', namespace, name: n, args: JSON.parse(JSON.stringify(args)) };
        if (id !== undefined) expected.ackId = id;
        assert.deepEqual(p, expected);
        assert.deepEqual(readOUIFromSocketIO(p!), {
          kind: 'event',
          type: n,
          payload: expected.args![0],
          namespace,
          extraArgs: Math.max(0, args.length - 1),
          ...(id !== undefined ? { ackId: id } : {}),
        });
      }),
    );
    fc.assert(
      fc.property(ns, fc.array(pageJson(), { maxLength: 4 }), fc.nat(), (namespace, args, id) => {
        const [p] = new SocketIODecoder().pushFrame(encodeSocketIOAck({ namespace, ackId: id, args }));
        assert.deepEqual(p, { type: 'ack', namespace, ackId: id, args: JSON.parse(JSON.stringify(args)) });
      }),
    );
  });
  test('binary frames round trip', () => {
    const frames = encodeSocketIOFrames({ kind: 'event', namespace: '/oui', name: 'bin', ackId: 3, args: [{ a: bytes(1, 2) }, bytes(3).buffer, 'x'] });
    assert.equal(frames[0], '452-/oui,3["bin",{"a":{"_placeholder":true,"num":0}},{"_placeholder":true,"num":1},"x"]');
    assert.equal(frames.length, 3);
    const d = new SocketIODecoder();
    const out = frames.flatMap((f) => d.pushFrame(f));
    assert.deepEqual(out, [
      { type: 'event', namespace: '/oui', name: 'bin', ackId: 3, binary: true, args: [{ a: { binary: 'AQI=', size: 2 } }, { binary: 'Aw==', size: 1 }, 'x'] },
    ]);
    const ack = encodeSocketIOFrames({ kind: 'ack', ackId: 9, args: [bytes(7)] });
    assert.equal(ack[0], '461-9[{"_placeholder":true,"num":0}]');
    assert.deepEqual(new SocketIODecoder().pushPollingBody(encodePollingPayload(ack.map((f) => decodeEnginePacket(f)))), [
      { type: 'ack', namespace: '/', ackId: 9, binary: true, args: [{ binary: 'Bw==', size: 1 }] },
    ]);
    assert.deepEqual(encodeSocketIOFrames({ kind: 'event', name: 'plain', args: [1] }), ['42["plain",1]']);
  });
  test('agrees with the official socket.io-parser both ways', () => {
    const enc = new OfficialEncoder();
    const packets = [
      { type: PacketType.CONNECT, nsp: '/oui', data: { token: 't' } },
      { type: PacketType.CONNECT, nsp: '/' },
      { type: PacketType.DISCONNECT, nsp: '/oui' },
      { type: PacketType.EVENT, nsp: '/oui', id: 12, data: ['action:request', { a: 'é😀' }, 2] },
      { type: PacketType.ACK, nsp: '/', id: 3, data: [null, 'ok'] },
      { type: PacketType.CONNECT_ERROR, nsp: '/oui', data: { message: 'no' } },
      { type: PacketType.EVENT, nsp: '/b', id: 1, data: ['bin', Buffer.from([1, 2]), { x: Buffer.from([3]) }] },
      { type: PacketType.ACK, nsp: '/b', id: 2, data: [Buffer.from('z')] },
    ];
    const d = new SocketIODecoder();
    const ours = packets.flatMap((p) => enc.encode(p as never).flatMap((f: string | Buffer) => d.pushFrame(typeof f === 'string' ? '4' + f : new Uint8Array(f))));
    assert.deepEqual(ours, [
      { type: 'connect', namespace: '/oui', data: { token: 't' } },
      { type: 'connect', namespace: '/' },
      { type: 'disconnect', namespace: '/oui' },
      { type: 'event', namespace: '/oui', ackId: 12, name: 'action:request', args: [{ a: 'é😀' }, 2] },
      { type: 'ack', namespace: '/', ackId: 3, args: [null, 'ok'] },
      { type: 'connect_error', namespace: '/oui', data: { message: 'no' } },
      { type: 'event', namespace: '/b', ackId: 1, name: 'bin', binary: true, args: [{ binary: 'AQI=', size: 2 }, { x: { binary: 'Aw==', size: 1 } }] },
      { type: 'ack', namespace: '/b', ackId: 2, binary: true, args: [{ binary: 'eg==', size: 1 }] },
    ]);

    // Our frames decode with the official decoder.
    const official = new OfficialDecoder();
    const got: unknown[] = [];
    official.on('decoded', (p: unknown) => got.push(p));
    const frames = [
      encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [{ a: 1 }], ackId: 17 }),
      encodeSocketIOAck({ namespace: '/oui', ackId: 17, args: [{ ok: true }] }),
      ...encodeSocketIOFrames({ kind: 'event', name: 'b', args: [bytes(5, 6)] }),
    ];
    for (const f of frames) official.add(typeof f === 'string' ? f.slice(1) : Buffer.from(f));
    assert.deepEqual(got, [
      { type: PacketType.EVENT, nsp: '/oui', id: 17, data: ['action:request', { a: 1 }] },
      { type: PacketType.ACK, nsp: '/oui', id: 17, data: [{ ok: true }] },
      { type: PacketType.EVENT, nsp: '/', data: ['b', Buffer.from([5, 6])] },
    ]);
  });
});

describe('readOUIFromSocketIO', () => {
  test('events, acks and the rest', () => {
    assert.deepEqual(readOUIFromSocketIO({ type: 'event', namespace: '/oui', name: 'action:request', args: [{ a: 1 }, 'extra'], ackId: 4 }), {
      kind: 'event',
      type: 'action:request',
      payload: { a: 1 },
      ackId: 4,
      namespace: '/oui',
      extraArgs: 1,
    });
    assert.deepEqual(readOUIFromSocketIO({ type: 'event', namespace: '/', name: 'x-thing', args: [] }), {
      kind: 'event',
      type: 'x-thing',
      payload: undefined,
      namespace: '/',
      extraArgs: 0,
    });
    assert.deepEqual(readOUIFromSocketIO({ type: 'ack', namespace: '/oui', ackId: 4, args: [{ ok: true }] }), {
      kind: 'ack',
      ackId: 4,
      args: [{ ok: true }],
      namespace: '/oui',
    });
    assert.equal(readOUIFromSocketIO({ type: 'connect', namespace: '/' }), null);
    assert.equal(readOUIFromSocketIO({ type: 'error', namespace: '/', reason: 'x', raw: '' }), null);
    assert.equal(readOUIFromSocketIO(null as unknown as SocketIOPacket), null);
  });
});
