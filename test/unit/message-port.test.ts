/**
 * MessagePort conversations, the pure parts: the key both ends compute, who
 * is the client, the direction of each message, the echo filter (a message
 * recorded where it was posted and where it arrived is shown once, in
 * whichever order the two records reach the panel), and the decoder's client
 * for the records of two hooks (frames) that hold the two ends.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CapturedClient, CapturedItem } from '../../src/capture/captured-items.ts';
import { PORT_KEY_PREFIX, clientEndFrom, namesConversation, portConversationKey, portDirection, senderOf } from '../../src/capture/message-port.ts';
import { PortEchoes, MAX_UNMATCHED } from '../../src/session/wire/port-echoes.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { whyNotInjectable } from '../../src/session/wire/injection.ts';
import { exportSession, parseSessionFile } from '../../src/session/wire/session-file.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';

const REGISTER = { type: 'surface:register', payload: { surface: { id: 'notes', name: 'Notes', description: 'Notes', actions: [] }, timestamp: 1 } };
const REQUEST = { type: 'action:request', payload: { requestId: 'r-1', surfaceId: 'notes', actionId: 'add', params: { text: 'a' }, timestamp: 2 } };
const RESULT = { type: 'action:result', payload: { requestId: 'r-1', success: true, timestamp: 3 } };

describe('the conversation key', () => {
  it('is the same for the same text, and differs for any other text', () => {
    const key = portConversationKey(JSON.stringify(REGISTER));
    assert.ok(key.startsWith(PORT_KEY_PREFIX));
    assert.equal(portConversationKey(JSON.stringify(structuredClone(REGISTER))), key, 'what the other end receives is a clone: the same JSON');
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => (a === b) === (portConversationKey(a) === portConversationKey(b))),
      { numRuns: 2000 },
    );
  });

  it('reads a long message only up to its first 65,536 characters, with its length', () => {
    const long = 'a'.repeat(200_000);
    assert.equal(portConversationKey(long), portConversationKey(long.slice(0, 199_999) + 'b'), 'past the hashed head, only the length tells');
    assert.notEqual(portConversationKey(long), portConversationKey(long + 'a'));
  });
});

describe('who is the client', () => {
  it('reads the sender from the type: requests come from the runtime, the rest of the protocol from the client, extensions say nothing', () => {
    assert.equal(senderOf('action:request'), 'runtime');
    assert.equal(senderOf('observation:request'), 'runtime');
    for (const t of ['surface:register', 'surface:deregister', 'action:result', 'observation:update']) {
      assert.equal(senderOf(t), 'client', t);
      assert.ok(namesConversation(t), t);
    }
    assert.equal(senderOf('x-widget:hello'), undefined);
    assert.ok(!namesConversation('action:request'));
    assert.ok(!namesConversation('x-widget:hello'));
  });

  it('learns the client end from a typed message and gives every later message its direction by the ends', () => {
    assert.equal(clientEndFrom(2, 'surface:register'), 2);
    assert.equal(clientEndFrom(1, 'action:request'), 2);
    assert.equal(clientEndFrom(1, 'x-a'), undefined);
    // Known: by the ends, whatever the type says (a runtime that sends a registration is still the runtime).
    assert.equal(portDirection(2, 2, 'x-a'), 'out');
    assert.equal(portDirection(2, 1, 'x-a'), 'in');
    assert.equal(portDirection(2, 1, 'surface:register'), 'in');
    // Unknown: by the type; an extension type is `in`.
    assert.equal(portDirection(undefined, 1, 'surface:register'), 'out');
    assert.equal(portDirection(undefined, 1, 'action:request'), 'in');
    assert.equal(portDirection(undefined, 1, 'x-a'), 'in');
  });
});

describe('the echo filter', () => {
  const K = 'port:k';

  it('shows a message once, whichever of its two records arrives first', () => {
    const e = new PortEchoes();
    assert.equal(e.isEcho(K, 'out', 'postMessage', 'A'), false);
    assert.equal(e.isEcho(K, 'out', 'message', 'A'), true);
    assert.equal(e.isEcho(K, 'in', 'message', 'B'), false);
    assert.equal(e.isEcho(K, 'in', 'postMessage', 'B'), true);
  });

  it('shows a message posted twice with the same text twice', () => {
    const e = new PortEchoes();
    const shown = ['postMessage', 'postMessage', 'message', 'message'].map((side) => !e.isEcho(K, 'out', side as 'message', 'A'));
    assert.deepEqual(shown, [true, true, false, false]);
  });

  it('keeps directions and conversations apart', () => {
    const e = new PortEchoes();
    assert.equal(e.isEcho(K, 'out', 'postMessage', 'A'), false);
    assert.equal(e.isEcho(K, 'in', 'message', 'A'), false, 'the other direction');
    assert.equal(e.isEcho('port:other', 'out', 'message', 'A'), false, 'another conversation');
  });

  it('shows a message only one end recorded (posted through an unwrapped function, or never delivered), and forgets records passed over', () => {
    const e = new PortEchoes();
    // The receiver saw A, B, C; the sender's record of A is missing (borrowed postMessage).
    for (const t of ['A', 'B', 'C']) assert.equal(e.isEcho(K, 'out', 'message', t), false);
    assert.equal(e.isEcho(K, 'out', 'postMessage', 'B'), true);
    assert.equal(e.isEcho(K, 'out', 'postMessage', 'C'), true);
    // A later A posted again is a new message: the unmatched A was passed over and forgotten.
    assert.equal(e.isEcho(K, 'out', 'postMessage', 'A'), false);
  });

  it('matches any interleaving of the two ordered streams to one showing per message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('A', 'B', 'C'), { maxLength: 30 }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (texts, order) => {
          // Both ends recorded every message; their records reach the panel interleaved in any order.
          const e = new PortEchoes();
          let s = 0;
          let r = 0;
          let shown = 0;
          for (let i = 0; s < texts.length || r < texts.length; i++) {
            const takeSent = r >= texts.length || (s < texts.length && (order[i % Math.max(1, order.length)] ?? true));
            const text = takeSent ? texts[s++]! : texts[r++]!;
            if (!e.isEcho(K, 'out', takeSent ? 'postMessage' : 'message', text)) shown++;
          }
          return shown === texts.length;
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is bounded', () => {
    const e = new PortEchoes();
    for (let i = 0; i < MAX_UNMATCHED + 10; i++) e.isEcho(K, 'out', 'postMessage', `m${i}`);
    assert.equal(e.isEcho(K, 'out', 'message', 'm0'), false, 'the oldest unmatched record was forgotten');
    assert.equal(e.isEcho(K, 'out', 'message', `m${MAX_UNMATCHED + 9}`), true);
  });
});

/** A port conversation's client as a hook makes it. */
function portClient(hook: FakeHook, key: string, port: { at: string; from?: string }): CapturedClient {
  const c = hook.client('postmessage', 'MessagePort', key);
  c.port = port;
  return c;
}

const rec = (hook: FakeHook, c: CapturedClient, dir: 'in' | 'out', method: 'postMessage' | 'message', value: unknown): CapturedItem => hook.json(c, dir, value, { method });

describe('the decoder', () => {
  it('shows the two ends of a conversation, held by two frames, as one client, each message once with its direction', () => {
    const key = portConversationKey(JSON.stringify(REGISTER));
    const host = new FakeHook('host');
    const widget = new FakeHook('widget', host.clock, 'http://widget.test', 'http://widget.test/');
    const h = portClient(host, key, { at: 'top' });
    const w = portClient(widget, key, { at: 'top/0', from: 'top' });
    // The widget is the client: it posts the registration and the result, the host posts the request.
    const hostItems = [rec(host, h, 'out', 'message', REGISTER), rec(host, h, 'in', 'postMessage', REQUEST), rec(host, h, 'out', 'message', RESULT)];
    const widgetItems = [rec(widget, w, 'out', 'postMessage', REGISTER), rec(widget, w, 'in', 'message', REQUEST), rec(widget, w, 'out', 'postMessage', RESULT)];
    // Two hooks' batches, in either order.
    for (const items of [[...hostItems, ...widgetItems], [...widgetItems, ...hostItems], [hostItems[0]!, widgetItems[0]!, widgetItems[1]!, hostItems[1]!, widgetItems[2]!, hostItems[2]!]]) {
      const decoder = new WireDecoder();
      decoder.addClient(h, 'host', 0);
      decoder.addClient(w, 'widget', 3);
      const events: WireEvent[] = items.flatMap((it) => decoder.push(it));
      assert.deepEqual(
        events.map((e) => [e.client, e.type, e.dir]),
        [
          [key, 'surface:register', 'out'],
          [key, 'action:request', 'in'],
          [key, 'action:result', 'out'],
        ],
      );
      const clients = decoder.allClients();
      assert.equal(clients.length, 1);
      assert.equal(clients[0]!.label, 'MessagePort top ↔ top/0');
      assert.equal(clients[0]!.port, true);
      assert.match(whyNotInjectable(clients[0]!) ?? '', /MessagePort/);
      assert.equal(clients[0]!.inject, undefined);
    }
  });

  it('never lets a port client take a window pairing\'s or another client\'s key', () => {
    const hook = new FakeHook('h');
    const c = portClient(hook, 'postmessage:top<->top/0', { at: 'top' });
    const decoder = new WireDecoder();
    decoder.addClient(c, 'h', 0);
    const [ev] = decoder.push(rec(hook, c, 'out', 'postMessage', REGISTER));
    assert.equal(ev!.client, `port:h/${c.id}`);
  });

  it('keeps the MessagePort mark through a session file', () => {
    const hook = new FakeHook('h');
    const c = portClient(hook, portConversationKey('x'), { at: 'top' });
    const decoder = new WireDecoder();
    decoder.addClient(c, 'h', 0);
    const events = decoder.push(rec(hook, c, 'out', 'postMessage', REGISTER));
    const read = parseSessionFile(JSON.stringify(exportSession(decoder.allClients(), events)));
    assert.ok(read.ok);
    assert.equal(read.ok && read.file.clients[0]!.port, true);
    assert.match(whyNotInjectable(read.ok ? read.file.clients[0]! : decoder.allClients()[0]!) ?? '', /MessagePort/);
  });
});
