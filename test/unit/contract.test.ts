/**
 * The cross-boundary strings of src/capture/contract.ts, checked against the
 * sides that read them: the text test the page hook keeps quiet sockets by
 * never says no to a frame the decoder reads as OUI, and event ids come apart
 * into what they were made of.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eventId, inSource, isOuiType, looksLikeOuiText, parseEventId } from '../../src/capture/contract.ts';
import { OUI_PROTOCOL_EVENT_TYPES, isExtensionEventType, isProtocolEventType } from '../../src/protocol/oui-types.ts';
import { encodeSocketIOEvent } from '../../src/protocol/index.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import { FakeHook } from '../support/capture-items.ts';

/** JSON text of `value` with some characters of its strings written as `\uXXXX`, as a JSON writer may (the decoder reads them all the same). */
function escaped(value: unknown, which: readonly boolean[]): string {
  let k = 0;
  return JSON.stringify(value).replace(/"((?:[^"\\]|\\.)*)"/g, (_, body: string) => {
    let out = '';
    for (const ch of body) out += which[k++ % Math.max(1, which.length)] && /[a-z:-]/.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch;
    return `"${out}"`;
  });
}

const anyType = fc.oneof(fc.constantFrom(...OUI_PROTOCOL_EVENT_TYPES), fc.string({ maxLength: 8 }).map((s) => `x-${s}`), fc.string({ maxLength: 12 }));

describe('contract', () => {
  it('isOuiType is the protocol module’s judgement, the one the model and the validator use', () => {
    fc.assert(
      fc.property(fc.oneof(anyType, fc.anything()), (t) => assert.equal(isOuiType(t), isProtocolEventType(t) || isExtensionEventType(t))),
      { numRuns: 500 },
    );
    assert.equal(isOuiType('x-'), true);
  });

  it('looksLikeOuiText says yes to every frame the decoder reads as an OUI event, unless its type is spelled with JSON escapes (fast-check)', () => {
    fc.assert(
      fc.property(anyType, fc.array(fc.boolean(), { maxLength: 6 }), (type, which) => {
        const hook = new FakeHook('h');
        const ws = hook.client('websocket', 'wss://app.test/plain');
        const text = escaped({ type, payload: { n: 1 } }, which);
        const decoder = new WireDecoder();
        decoder.addClient(ws, 'h', 0);
        const [ev] = decoder.push(hook.frame(ws, 'in', text));
        assert.equal(ev!.kind === 'event', isOuiType(type), text);
        // The type written as is (its key may be escaped): the text test must see it.
        if (ev!.kind === 'event' && text.includes(JSON.stringify(type))) assert.equal(looksLikeOuiText(text), true, text);
      }),
      { numRuns: 500 },
    );
    // Socket.IO: the event name is the JSON array's first string.
    for (const name of ['action:request', 'x-approval:ask']) {
      const text = encodeSocketIOEvent({ namespace: '/oui', name, args: [{}] });
      assert.equal(looksLikeOuiText(text), true, text);
    }
  });

  it('event ids come apart into their hook, client and source; other ids do not', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9-]{1,8}$/), fc.stringMatching(/^[a-z0-9]{1,6}$/), fc.nat(), fc.nat(3), (hook, client, seq, part) => {
        const id = eventId(hook, client, seq, part);
        const p = parseEventId(id)!;
        assert.deepEqual([p.hook, p.client, p.source], [hook, client, `${hook}/${client}`]);
        assert.equal(p.seq, part === 0 ? String(seq) : `${seq}.${part}`);
        assert.equal(inSource(id, p.source), true);
        assert.equal(inSource(id, `${hook}/${client}x`), false);
      }),
    );
    for (const other of ['a', 'a/b', '/a/b', '']) assert.equal(parseEventId(other), undefined, other);
  });
});
