/**
 * The virtual server's pure parts: which URLs a serve pattern names
 * (content/virtual/pattern.ts), and the Engine.IO / Socket.IO session
 * (content/virtual/engine.ts), whose every packet is read back with the
 * protocol's own libraries, engine.io-parser and socket.io-parser (the ones
 * a real server and client use), never with the code under test.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePacket, decodePayload, encodePayload } from 'engine.io-parser';
import { Decoder, Encoder, PacketType } from 'socket.io-parser';
import { glob, matchesServe, normalizePattern } from '../../content/virtual/pattern.ts';
import { EngineSession, MAX_PAYLOAD, PING_INTERVAL, PING_TIMEOUT, sidOf, type PollAnswer, type WsLink } from '../../content/virtual/engine.ts';
import { createRouter } from '../../src/background/router.ts';
import { PROTOCOL, readFromPanel, readHookCommand } from '../../src/messages.ts';
import { FakePort } from '../support/fake-port.ts';

describe('serve patterns', () => {
  const cases: Array<[string, string, boolean]> = [
    ['ws://127.0.0.1:5173/ws-json', 'ws://127.0.0.1:5173/ws-json', true],
    ['ws://127.0.0.1:5173/ws-json', 'ws://127.0.0.1:5173/ws-json?token=1', true],
    ['ws://127.0.0.1:5173/ws-json', 'ws://127.0.0.1:5173/ws-json2', false],
    ['ws://127.0.0.1:5173/ws-json', 'ws://127.0.0.1:5174/ws-json', false],
    // One pattern for both phases of a Socket.IO endpoint: the scheme and the query never count.
    ['http://127.0.0.1:5173/socket.io/', 'ws://127.0.0.1:5173/socket.io/?EIO=4&transport=websocket&sid=abc', true],
    ['http://127.0.0.1:5173/socket.io/', 'http://127.0.0.1:5173/socket.io/?EIO=4&transport=polling&t=x', true],
    ['*:5173/socket.io/', 'https://LocalHost:5173/socket.io/?EIO=4', true],
    ['*.example.com/ws', 'wss://a.example.com/ws', true],
    ['*.example.com/ws', 'wss://a.b.example.com/ws', true],
    ['127.0.0.1:5173/**', 'ws://127.0.0.1:5173/a/b/c', true],
    ['127.0.0.1:5173/*', 'ws://127.0.0.1:5173/a/b/c', false],
    ['127.0.0.1:5173/*/c', 'ws://127.0.0.1:5173/a/c', true],
    ['/ws-json', 'wss://x.test/ws-json', true],
    ['/ws-json', 'wss://x.test/ws-json/more', false],
    ['/WS-json', 'wss://x.test/ws-json', false],
    ['ws://a.test/**', 'blob:http://a.test/1', false],
    ['', 'ws://a.test/', false],
  ];
  for (const [pattern, url, want] of cases) {
    test(`${JSON.stringify(pattern)} ${want ? 'serves' : 'does not serve'} ${url}`, () => assert.equal(matchesServe(pattern, url), want));
  }

  test('normalized as compared: no scheme, query, fragment or trailing slash; the host in lower case', () => {
    assert.equal(normalizePattern('  WS://Api.Test:80/Path/?q=1#x '), 'api.test:80/Path');
    assert.equal(normalizePattern('/'), '/');
  });

  test('a hostile glob costs at most |pattern|·|text| steps', () => {
    const t0 = performance.now();
    assert.equal(glob('*a*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(200)), false);
    assert.equal(glob('**a**a**a**a**a**a**a**b', 'a/'.repeat(200)), false);
    assert.ok(performance.now() - t0 < 2000);
  });
});

/** A session with timers it can run by hand and links that record what they were sent. */
function harness() {
  const timers: Array<{ fn: () => void; ms: number; cleared: boolean }> = [];
  let n = 0;
  const env = {
    setTimeout: (fn: () => void, ms: number) => {
      const t = { fn, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimeout: (h: unknown) => {
      (h as { cleared: boolean }).cleared = true;
    },
    randomId: () => `id${++n}`,
  };
  const ended: string[] = [];
  const link = (): WsLink & { sent: string[]; closed?: [number, string] } => {
    const l: WsLink & { sent: string[]; closed?: [number, string] } = {
      sent: [],
      send: (t) => void l.sent.push(t),
      close: (code, reason) => void (l.closed = [code, reason]),
    };
    return l;
  };
  const opts = (autoAck = true) => ({ autoAck: () => autoAck, ended: (s: EngineSession) => void ended.push(s.sid) });
  return { env, timers, ended, link, opts };
}

const sio = (text: string) => {
  const d = new Decoder();
  let out: unknown;
  d.on('decoded', (p: unknown) => (out = p));
  d.add(text);
  return out as { type: number; nsp: string; id?: number; data?: unknown };
};
const sioEncode = (packet: object) => new Encoder().encode(packet as never)[0] as string;
const payload = (body: string) => decodePayload(body) as Array<{ type: string; data?: string }>;

describe('Engine.IO / Socket.IO session', () => {
  test('WebSocket only: the open packet has the fields the protocol names, no upgrades', () => {
    const h = harness();
    const ws = h.link();
    const s = new EngineSession(h.env, h.opts(), ws);
    const open = decodePacket(ws.sent[0]!);
    assert.equal(open.type, 'open');
    const hs = JSON.parse(open.data as string);
    assert.deepEqual(hs, { sid: s.sid, upgrades: [], pingInterval: PING_INTERVAL, pingTimeout: PING_TIMEOUT, maxPayload: MAX_PAYLOAD });
    assert.equal(s.upgraded, true);
  });

  test('namespace connect, an event that asks for an ack, one that does not, a disconnect', () => {
    const h = harness();
    const ws = h.link();
    const s = new EngineSession(h.env, h.opts(), ws);
    ws.sent.length = 0;
    s.wsMessage(ws, `4${sioEncode({ type: PacketType.CONNECT, nsp: '/oui' })}`);
    const connect = sio(decodePacket(ws.sent[0]!).data as string);
    assert.equal(connect.type, PacketType.CONNECT);
    assert.equal(connect.nsp, '/oui');
    assert.equal(typeof (connect.data as { sid: unknown }).sid, 'string');

    s.wsMessage(ws, `4${sioEncode({ type: PacketType.EVENT, nsp: '/oui', id: 17, data: ['action:result', { requestId: 'r1', success: true, timestamp: 1 }] })}`);
    const ack = sio(decodePacket(ws.sent[1]!).data as string);
    assert.deepEqual({ type: ack.type, nsp: ack.nsp, id: ack.id, data: ack.data }, { type: PacketType.ACK, nsp: '/oui', id: 17, data: [{ ok: true }] });

    s.wsMessage(ws, `4${sioEncode({ type: PacketType.EVENT, nsp: '/oui', data: ['surface:register', { surface: { id: 's' }, timestamp: 1 }] })}`);
    assert.equal(ws.sent.length, 2, 'no ack asked, none sent');

    s.wsMessage(ws, `4${sioEncode({ type: PacketType.DISCONNECT, nsp: '/oui' })}`);
    s.wsMessage(ws, `4${sioEncode({ type: PacketType.EVENT, nsp: '/oui', id: 18, data: ['action:result', {}] })}`);
    assert.equal(ws.sent.length, 2, 'a namespace that left is not acknowledged');
  });

  test('the default namespace, and autoAck off', () => {
    const h = harness();
    const ws = h.link();
    const s = new EngineSession(h.env, h.opts(false), ws);
    s.wsMessage(ws, `4${sioEncode({ type: PacketType.CONNECT, nsp: '/' })}`);
    assert.equal(sio(decodePacket(ws.sent[1]!).data as string).nsp, '/');
    s.wsMessage(ws, `4${sioEncode({ type: PacketType.EVENT, nsp: '/', id: 1, data: ['action:result', {}] })}`);
    assert.equal(ws.sent.length, 2, 'autoAck off: the other end acknowledges');
  });

  test('long-polling: handshake, a POST of two packets, a held GET answered at once, what waits next in one payload', () => {
    const h = harness();
    const s = new EngineSession(h.env, h.opts());
    const hs = decodePacket(s.handshake());
    assert.deepEqual(JSON.parse(hs.data as string).upgrades, ['websocket']);
    const answers: PollAnswer[] = [];
    s.get((a) => answers.push(a));
    assert.equal(answers.length, 0, 'nothing to say: the GET is held');
    let body = '';
    encodePayload(
      [
        { type: 'message', data: sioEncode({ type: PacketType.CONNECT, nsp: '/oui' }) },
        { type: 'message', data: sioEncode({ type: PacketType.EVENT, nsp: '/oui', id: 3, data: ['action:result', {}] }) },
      ],
      (p: string) => (body = p),
    );
    assert.deepEqual(s.post(body), { status: 200, body: 'ok' });
    // The held GET goes with the first reply, as a server writes to a waiting poll at once; the next GET has the rest.
    assert.equal(answers.length, 1);
    const first = payload(answers[0]!.body);
    assert.deepEqual(first.map((p) => p.type), ['message']);
    assert.equal(sio(first[0]!.data!).type, PacketType.CONNECT);
    s.write('4' + sioEncode({ type: PacketType.EVENT, nsp: '/oui', data: ['action:request', { requestId: 'r' }] }));
    s.get((a) => answers.push(a));
    const rest = payload(answers[1]!.body);
    assert.deepEqual(rest.map((p) => p.type), ['message', 'message'], 'what waited, in one payload');
    assert.equal(sio(rest[0]!.data!).id, 3);
    assert.deepEqual(sio(rest[1]!.data!).data, ['action:request', { requestId: 'r' }]);
  });

  test('the upgrade: probe answered, the held GET released with a noop, later packets on the WebSocket', () => {
    const h = harness();
    const s = new EngineSession(h.env, h.opts());
    const polls: PollAnswer[] = [];
    s.get((a) => polls.push(a));
    const ws = h.link();
    assert.equal(sidOf(`ws://h/socket.io/?EIO=4&transport=websocket&sid=${s.sid}`), s.sid);
    s.attach(ws);
    s.wsMessage(ws, '2probe');
    assert.deepEqual(ws.sent, ['3probe']);
    assert.equal(decodePacket(polls[0]!.body).type, 'noop');
    // A GET while it upgrades comes back at once (the client pauses polling only when its GET is back).
    s.get((a) => polls.push(a));
    assert.equal(decodePacket(polls[1]!.body).type, 'noop');
    s.wsMessage(ws, '5');
    assert.equal(s.upgraded, true);
    s.wsMessage(ws, `4${sioEncode({ type: PacketType.CONNECT, nsp: '/oui' })}`);
    assert.equal(sio(decodePacket(ws.sent[1]!).data as string).type, PacketType.CONNECT);
  });

  test('pings every pingInterval; close ends the session and stops them', () => {
    const h = harness();
    const ws = h.link();
    const s = new EngineSession(h.env, h.opts(), ws);
    assert.equal(h.timers[0]!.ms, PING_INTERVAL);
    h.timers[0]!.fn();
    assert.equal(decodePacket(ws.sent.at(-1)!).type, 'ping');
    s.wsMessage(ws, '3');
    s.wsMessage(ws, '1');
    assert.deepEqual(h.ended, [s.sid]);
    assert.equal(h.timers.at(-1)!.cleared, true);
    assert.deepEqual(s.post('40'), { status: 400, body: '{"code":1,"message":"Session ID unknown"}' });
  });
});

describe('hook:serve on its way: messages and the background', () => {
  const ORIGIN = 'chrome-extension://abcdefghijklmnop';

  test('read by the guards: a pattern and a switch, autoAck only when boolean, a frame when named', () => {
    assert.deepEqual(readHookCommand({ type: 'hook:serve', id: 's', pattern: '/ws', on: true, autoAck: 'no' }), { type: 'hook:serve', id: 's', pattern: '/ws', on: true });
    assert.deepEqual(readHookCommand({ type: 'hook:serve', id: 's', pattern: '/ws', on: false, autoAck: false }), { type: 'hook:serve', id: 's', pattern: '/ws', on: false, autoAck: false });
    assert.equal(readHookCommand({ type: 'hook:serve', id: 's', pattern: 3, on: true }), null);
    assert.equal(readHookCommand({ type: 'hook:serve', id: 's', pattern: '/ws', on: 'yes' }), null);
    assert.deepEqual(readFromPanel({ type: 'hook:serve', id: 's', pattern: '/ws', on: true, frameId: 3 }), { type: 'hook:serve', id: 's', pattern: '/ws', on: true, frameId: 3 });
  });

  test('the background sends it to every frame of the panel\'s tab (or the one named), and turns serving off with the last panel', () => {
    const calls: Array<{ tabId: number; message: unknown; frameId: number | undefined }> = [];
    const router = createRouter({ extensionOrigin: ORIGIN, sendToTab: async (tabId, message, frameId) => {
        calls.push({ tabId, message, frameId });
        return true;
      },
    });
    const panel = () => {
      const p = new FakePort('panel', { url: `${ORIGIN}/panel.html`, id: 'abcdefghijklmnop' });
      router.connect(p);
      p.send({ type: 'panel:hello', v: PROTOCOL, tabId: 7 });
      return p;
    };
    const a = panel();
    const b = panel();
    a.send({ type: 'hook:serve', id: 's1', pattern: '/ws-json', on: true });
    b.send({ type: 'hook:serve', id: 's2', pattern: '/socket.io/', on: true, frameId: 2 });
    assert.deepEqual(calls, [
      { tabId: 7, message: { type: 'hook:serve', id: 's1', pattern: '/ws-json', on: true }, frameId: undefined },
      { tabId: 7, message: { type: 'hook:serve', id: 's2', pattern: '/socket.io/', on: true }, frameId: 2 },
    ]);
    calls.length = 0;
    a.close();
    assert.equal(calls.length, 0, 'another panel still answers for the tab');
    b.close();
    assert.deepEqual(
      calls.filter((c) => (c.message as { type: string }).type === 'hook:serve'),
      [{ tabId: 7, message: { type: 'hook:serve', id: 'serve-off', pattern: '', on: false }, frameId: undefined }],
    );
  });
});
