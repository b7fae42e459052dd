/**
 * How the panel's document-style views order, group and shorten what they
 * show: one sort order (newest first unless asked otherwise), histories
 * collapsed to their newest entries, the main app client first, findings
 * grouped by rule, an observation's peak rate, a schema's alternatives, and
 * the characters where two hashes differ, each checked against a plain
 * oracle written here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { collapsed, groupFindings, inOrder, matchesQuery, orderClients, peakRate } from '../../panel/view-order.ts';
import { differingPositions, hashSegments, shortText, HEAD, TAIL } from '../../panel/hash-diff.ts';
import { describeType, literal } from '../../panel/components/schema-view.tsx';
import type { ClientState, Finding } from '../../src/session/model/model-types.ts';

describe('sort order', () => {
  it('lists newest first by default, oldest first when asked, without touching the model list', () => {
    const list = [1, 2, 3];
    assert.deepEqual(inOrder(list, false), [3, 2, 1]);
    assert.deepEqual(inOrder(list, true), [1, 2, 3]);
    assert.deepEqual(list, [1, 2, 3]);
  });
  it('collapses a history to its newest n, in the order shown, or shows all', () => {
    const h = [1, 2, 3, 4, 5, 6, 7, 8];
    assert.deepEqual(collapsed(h, 5, false, false), [8, 7, 6, 5, 4]);
    assert.deepEqual(collapsed(h, 5, true, false), [4, 5, 6, 7, 8]);
    assert.deepEqual(collapsed(h, 5, false, true), [8, 7, 6, 5, 4, 3, 2, 1]);
    assert.deepEqual(collapsed([1, 2], 5, false, false), [2, 1]);
  });
});

describe('clients', () => {
  const client = (key: string, surfaces: number) => ({ client: { key }, surfaces: new Map(Array.from({ length: surfaces }, (_, i) => [String(i), {}])) }) as unknown as ClientState;
  it('puts the client with the most mounted surfaces first, then keeps the order they were first seen', () => {
    const list = [client('assistant', 1), client('widget', 1), client('app', 5), client('idle', 0)];
    assert.deepEqual(
      orderClients(list).map((c) => c.client.key),
      ['app', 'assistant', 'widget', 'idle'],
    );
  });
});

describe('filter', () => {
  it('matches text, ignoring case: never as a pattern', () => {
    assert.ok(matchesQuery('cart/items', 'CART'));
    assert.ok(matchesQuery('cart/items', '  '));
    assert.ok(!matchesQuery('cart/items', 'c.rt'));
    assert.ok(matchesQuery('a.b(c', '.b('));
  });
});

describe('findings grouped by rule', () => {
  let n = 0;
  const f = (rule: string, severity: Finding['severity'], t: number): Finding => ({ id: `f${n++}`, rule, severity, t, section: '§x', party: 'client', message: rule, client: 'c', events: [] }) as unknown as Finding;
  it('gives one group per rule with its count, the worst first, then the most recent; findings in the shared order', () => {
    const list = [f('a', 'warning', 1), f('b', 'error', 2), f('a', 'warning', 3), f('c', 'warning', 9), f('a', 'warning', 5), f('d', 'critical', 0)];
    const groups = groupFindings(list);
    assert.deepEqual(
      groups.map((g) => [g.rule, g.findings.length, g.severity]),
      [
        ['d', 1, 'critical'],
        ['b', 1, 'error'],
        ['c', 1, 'warning'],
        ['a', 3, 'warning'],
      ],
    );
    assert.deepEqual(
      groups[3]!.findings.map((x) => x.t),
      [5, 3, 1],
    );
    assert.deepEqual(
      groupFindings(list, true)[3]!.findings.map((x) => x.t),
      [1, 3, 5],
    );
    assert.equal(groups.reduce((s, g) => s + g.findings.length, 0), list.length, 'every finding in exactly one group');
  });
});

describe('peak rate', () => {
  it('is the most updates within any one second, and does not depend on the last one', () => {
    assert.equal(peakRate([]), 0);
    assert.equal(peakRate([0]), 1);
    assert.equal(peakRate([0, 100, 200, 5000]), 3);
    assert.equal(peakRate([0, 999, 1000]), 2);
  });
  it('agrees with counting every window by brute force', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 40 }), (ts) => {
        const oracle = Math.max(0, ...ts.map((a) => ts.filter((b) => b >= a && b < a + 1000).length));
        assert.equal(peakRate(ts), oracle);
      }),
    );
  });
});

describe('hash difference', () => {
  const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
  /** Positions marked in `segments`, recovered by walking the kept text and the gaps. */
  function marked(segments: ReturnType<typeof hashSegments>): { positions: number[]; whole: string } {
    const positions: number[] = [];
    let whole = '';
    for (const s of segments) {
      if ('gap' in s) {
        whole += '?'.repeat(s.gap);
        continue;
      }
      for (const ch of s.text) {
        if (s.diff) positions.push(whole.length);
        whole += ch;
      }
    }
    return { positions, whole };
  }

  it('shortens a lone hash to its head and tail', () => {
    const h = 'c353988a5d6e0f1b2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f802c1f';
    assert.equal(shortText(hashSegments(h)), 'c353988a…802c1f');
  });

  it('marks exactly the characters that differ, even in the middle, and keeps every other kept character as it is', () => {
    fc.assert(
      fc.property(hex, fc.array(fc.integer({ min: 0, max: 63 }), { maxLength: 6 }), (a, flips) => {
        const chars = [...a];
        for (const i of flips) chars[i] = chars[i] === '0' ? '1' : '0';
        const b = chars.join('');
        const oracle: number[] = [];
        for (let i = 0; i < 64; i++) if (a[i] !== b[i]) oracle.push(i);
        assert.deepEqual(differingPositions(a, b), oracle);
        for (const [value, other] of [
          [a, b],
          [b, a],
        ] as const) {
          const { positions, whole } = marked(hashSegments(value, other));
          assert.deepEqual(positions, oracle, 'the marked positions are the differing ones');
          assert.equal(whole.length, value.length, 'kept text and gaps add up to the whole hash');
          for (let i = 0; i < whole.length; i++) if (whole[i] !== '?') assert.equal(whole[i], value[i]);
          for (let i = 0; i < HEAD; i++) assert.notEqual(whole[i], '?', 'the head is kept');
          for (let i = 64 - TAIL; i < 64; i++) assert.notEqual(whole[i], '?', 'the tail is kept');
        }
      }),
    );
  });

  it('keeps a scheme prefix beside the head, and shows a short run rather than eliding it', () => {
    assert.equal(shortText(hashSegments('fnv1a64:0123456789abcdef')), 'fnv1a64:0123456789abcdef');
    assert.equal(shortText(hashSegments('fnv1a64:0123456789abcdef0123456789')), 'fnv1a64:01234567…456789');
  });

  it('the review case: a last-character difference', () => {
    const a = 'c353988a00000000000000000000000000000000000000000000000000802c1f';
    const b = 'c353988a00000000000000000000000000000000000000000000000000802c10';
    assert.deepEqual(hashSegments(a, b), [{ text: 'c353988a', diff: false }, { gap: 50 }, { text: '802c1', diff: false }, { text: 'f', diff: true }]);
  });

  it('hashes of different lengths differ past the shorter one', () => {
    assert.deepEqual(differingPositions('abcd', 'ab'), [2, 3]);
  });
});

describe('schema text', () => {
  it('quotes strings: enums, constants and an empty default', () => {
    assert.equal(literal(''), '""');
    assert.equal(describeType({ type: 'string', enum: ['/', '/cart'] }), 'one of "/" | "/cart"');
    assert.equal(describeType({ type: 'string', default: '' }), 'string, default ""');
    assert.equal(describeType({ const: 'card' }), '= "card"');
    assert.equal(describeType({ const: true }), '= true');
  });
  it('names oneOf and anyOf with the number of their alternatives', () => {
    assert.equal(describeType({ oneOf: [{}, {}] }), 'exactly one of 2 alternatives');
    assert.equal(describeType({ anyOf: [{ type: 'string' }, { type: 'integer' }], default: 'short' }), 'any of 2 alternatives, default "short"');
  });
});
