/**
 * The hook's copy of JS values (content/payloads.ts): what JSON reads of the
 * copy later is what it read of the value when it was captured, whatever the
 * app does to the value afterwards or has done to Object.prototype.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyValue } from '../../content/payloads.ts';

/** Changes every object and array inside `v` in place, as an app that keeps and edits the message would. */
function scribble(v: unknown): void {
  if (!v || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) scribble(x);
    v.push('later');
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) scribble(o[k]);
  o.addedLater = true;
}

describe('copyValue', () => {
  test('the copy serialises as the value did when it was copied, however the value changes after', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const before = JSON.stringify(v);
        const copied = copyValue(v);
        assert.ok(copied, 'plain JSON data is copied');
        scribble(v);
        assert.equal(JSON.stringify(copied.value), before);
        assert.ok(copied.weight >= 0);
      }),
      { numRuns: 500 },
    );
  });

  test('a "__proto__" key stays a key of the copy, and the copy keeps Object.prototype', () => {
    const v = JSON.parse('{"type":"x-evil","__proto__":{"polluted":true},"payload":{"__proto__":[1,2]}}') as Record<string, unknown>;
    const copied = copyValue(v)!;
    assert.equal(JSON.stringify(copied.value), JSON.stringify(v));
    const out = copied.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal((out as { polluted?: unknown }).polluted, undefined);
  });

  test('a setter a page put on Object.prototype is not called by the copy, and the key is kept', () => {
    let calls = 0;
    Object.defineProperty(Object.prototype, 'payload', {
      configurable: true,
      set() {
        calls++;
      },
    });
    try {
      const v = JSON.parse('{"type":"observation:update","payload":{"value":1}}') as unknown;
      const copied = copyValue(v)!;
      assert.equal(calls, 0);
      assert.equal(JSON.stringify(copied.value), '{"type":"observation:update","payload":{"value":1}}');
    } finally {
      delete (Object.prototype as { payload?: unknown }).payload;
    }
  });

  test('what is not plain data is left for JSON to read at once', () => {
    class Message {
      type = 'x-class';
    }
    const cyclic: Record<string, unknown> = { type: 'x-cycle' };
    cyclic.self = cyclic;
    for (const v of [{ at: new Date(0) }, new Message(), { f: () => 1 }, { n: 1n }, cyclic, new Map()]) assert.equal(copyValue(v), undefined, String(v));
  });
});
