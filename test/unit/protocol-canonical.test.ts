/**
 * canonicalJson (RFC 8785): refusals with clear messages and pointers, the
 * fast path and the builder path agree, and both agree with the
 * `canonicalize` npm package on valid JSON values. findDuplicateMemberNames.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { pageAnything, pageJson, pageKey } from '../support/page-data.ts';
import canonicalize from 'canonicalize';
import {
  CanonicalJsonError,
  argsHash,
  argsHashSync,
  canonicalJson,
  canonicalJsonByBuilder,
  findDuplicateMemberNames,
  type CanonicalRefusal,
} from '../../src/protocol/index.ts';

function refusal(value: unknown): CanonicalJsonError {
  let fast: CanonicalJsonError | undefined;
  let slow: CanonicalJsonError | undefined;
  try {
    canonicalJson(value);
  } catch (e) {
    assert.ok(e instanceof CanonicalJsonError, `not a CanonicalJsonError: ${String(e)}`);
    fast = e;
  }
  try {
    canonicalJsonByBuilder(value);
  } catch (e) {
    assert.ok(e instanceof CanonicalJsonError, `builder: not a CanonicalJsonError: ${String(e)}`);
    slow = e;
  }
  assert.ok(fast, 'canonicalJson accepted it');
  assert.ok(slow, 'canonicalJsonByBuilder accepted it');
  assert.equal(fast.path, slow.path);
  assert.equal(fast.refusal, slow.refusal);
  return fast;
}

function assertRefuses(value: unknown, kind: CanonicalRefusal, path: string, message: RegExp): void {
  const e = refusal(value);
  assert.equal(e.refusal, kind, e.message);
  assert.equal(e.path, path, e.message);
  assert.match(e.message, message);
  assert.equal(e.name, 'CanonicalJsonError');
}

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

describe('canonicalJson: the canonical form', () => {
  it('sorts members by UTF-16 code units, not code points', () => {
    // U+1F600 (surrogates D83D DE00) sorts before U+FB01 by code units, after it by code points.
    const v = { '\ufb01': 1, '\ud83d\ude00': 2, a: 3, B: 4, '': 5 };
    assert.equal(canonicalJson(v), '{"":5,"B":4,"a":3,"😀":2,"ﬁ":1}');
  });
  it('writes numbers in the ECMAScript form', () => {
    assert.equal(canonicalJson([-0, 0, 1e21, 1e-7, 0.1, 123456789012345680000, 5e-324, -1.5]), '[0,0,1e+21,1e-7,0.1,123456789012345680000,5e-324,-1.5]');
  });
  it('escapes strings as JSON.stringify does', () => {
    const s = '\u0000\u001f"\\/\b\f\n\r\t\u007f\u2028é😀';
    assert.equal(canonicalJson(s), JSON.stringify(s));
  });
  it('leaves out object members whose value is undefined', () => {
    assert.equal(canonicalJson({ b: undefined, a: 1, c: { d: undefined } }), '{"a":1,"c":{}}');
  });
  it('keeps array-index member names in code-unit order (builder path)', () => {
    const v = { '10': 'a', '9': 'b', '-1': 'c', b: 'd', '0': 'e' };
    assert.equal(canonicalJson(v), '{"-1":"c","0":"e","10":"a","9":"b","b":"d"}');
    assert.equal(canonicalJson({ '1': { '2': 1, '10': 2 } }), '{"1":{"10":2,"2":1}}');
  });
  it('keeps __proto__ members as data', () => {
    const v: unknown = JSON.parse('{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
    assert.equal(canonicalJson(v), '{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
    assert.equal(canonicalJsonByBuilder(v), '{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
  });
  it('accepts null-prototype objects', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.b = 1;
    o.a = [true, null];
    assert.equal(canonicalJson(o), '{"a":[true,null],"b":1}');
  });
  it('walks shared (non-cyclic) references twice', () => {
    const shared = { z: 1 };
    assert.equal(canonicalJson({ a: shared, b: [shared, shared] }), '{"a":{"z":1},"b":[{"z":1},{"z":1}]}');
  });
  it('handles a 1000-deep value', () => {
    let v: unknown = 1;
    for (let i = 0; i < 1000; i++) v = i % 2 ? [v] : { k: v };
    const out = canonicalJson(v);
    assert.equal(out, JSON.stringify(v));
  });
  it('argsHash is SHA-256 of the UTF-8 canonical form', async () => {
    const p = { b: 'é😀', a: [1, 2.5, null] };
    const want = createHash('sha256').update(canonicalJson(p), 'utf8').digest('hex');
    assert.equal(argsHashSync(p), want);
    assert.equal(await argsHash(p), want);
    const big = { rows: Array.from({ length: 3000 }, (_, i) => ({ i, s: `row ${i} — ü` })) };
    const wantBig = createHash('sha256').update(canonicalJson(big), 'utf8').digest('hex');
    assert.equal(await argsHash(big), wantBig, 'WebCrypto path');
    assert.equal(argsHashSync(big), wantBig);
  });
});

describe('canonicalJson: refusals', () => {
  it('NaN and infinities', () => {
    assertRefuses({ a: [1, NaN] }, 'non-finite-number', '/a/1', /non-finite number NaN at \/a\/1/);
    assertRefuses(Infinity, 'non-finite-number', '', /Infinity at \(root\)/);
    assertRefuses({ x: -Infinity }, 'non-finite-number', '/x', /-Infinity/);
  });
  it('bigint', () => {
    assertRefuses({ n: 10n }, 'bigint', '/n', /bigint at \/n/);
  });
  it('functions, anywhere, including a toJSON member', () => {
    assertRefuses({ f() {} }, 'function', '/f', /function/);
    assertRefuses([() => 1], 'function', '/0', /function/);
    assertRefuses({ a: 1, toJSON: () => ({ b: 2 }) }, 'function', '/toJSON', /function \(toJSON\)/);
  });
  it('symbols', () => {
    assertRefuses({ s: Symbol('x') }, 'symbol', '/s', /symbol/);
    assertRefuses(Symbol.iterator, 'symbol', '', /symbol/);
  });
  it('class instances: Date, Map, Set, boxed primitives, typed arrays, user classes, Array subclasses', () => {
    assertRefuses({ d: new Date(0) }, 'class-instance', '/d', /instance of Date at \/d/);
    assertRefuses({ m: new Map() }, 'class-instance', '/m', /Map/);
    assertRefuses([new Set([1])], 'class-instance', '/0', /Set/);
    assertRefuses({ s: new String('x') }, 'class-instance', '/s', /String/);
    assertRefuses({ n: new Number(1) }, 'class-instance', '/n', /Number/);
    assertRefuses({ u: new Uint8Array(2) }, 'class-instance', '/u', /Uint8Array/);
    assertRefuses({ p: new Point(1, 2) }, 'class-instance', '/p', /instance of Point/);
    class MyArray extends Array<number> {}
    assertRefuses({ a: MyArray.from([1]) }, 'class-instance', '/a', /MyArray/);
    assertRefuses(/x/, 'class-instance', '', /RegExp/);
  });
  it('is not fooled by toJSON on a class instance', () => {
    class Sneaky {
      toJSON(): unknown {
        return { fine: true };
      }
    }
    assertRefuses({ s: new Sneaky() }, 'class-instance', '/s', /Sneaky/);
    // JSON.stringify (and the canonicalize package) would have called toJSON:
    assert.equal(canonicalize({ s: new Sneaky() }), '{"s":{"fine":true}}');
  });
  it('lone surrogates in values and member names', () => {
    assertRefuses({ a: 'x\ud800' }, 'lone-surrogate', '/a', /a string with a lone surrogate at \/a/);
    assertRefuses(['\udc00x'], 'lone-surrogate', '/0', /lone surrogate/);
    assertRefuses({ ['k\udbff']: 1 }, 'lone-surrogate', '/k\udbff', /member name with a lone surrogate at \/k\\udbff/);
    assertRefuses('\ude00\ud83d', 'lone-surrogate', '', /lone surrogate/);
  });
  it('undefined outside an object member', () => {
    assertRefuses(undefined, 'undefined', '', /undefined outside an object member at \(root\)/);
    assertRefuses({ a: [1, undefined] }, 'undefined', '/a/1', /undefined in an array at \/a\/1/);
    // eslint-disable-next-line no-sparse-arrays
    assertRefuses([1, , 3], 'undefined', '/1', /undefined in an array/);
  });
  it('cycles', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    assertRefuses(a, 'cycle', '/self', /a cycle \(a value that contains itself\) at \/self/);
    const arr: unknown[] = [];
    arr.push({ back: arr });
    assertRefuses({ arr }, 'cycle', '/arr/0/back', /cycle/);
    // a cycle deeper than the linear-scan window
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 50; i++) {
      const next: Record<string, unknown> = {};
      cur.n = next;
      cur = next;
    }
    cur.loop = deep;
    const e = refusal(deep);
    assert.equal(e.refusal, 'cycle');
    assert.equal(e.path, '/n'.repeat(50) + '/loop');
  });
  it('escapes pointer segments', () => {
    assertRefuses({ 'a/b': { 'c~d': NaN } }, 'non-finite-number', '/a~1b/c~0d', /\/a~1b\/c~0d/);
  });
  it('getters that throw and throwing Proxies become clear errors', () => {
    const g = {
      get bad(): never {
        throw new Error('nope');
      },
    };
    assertRefuses({ g }, 'unreadable', '/g/bad', /could not be read \(nope\)/);
    const p = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    assertRefuses({ p }, 'unreadable', '/p', /trap/);
  });
  it('deeper than the stack: the canonical form all the same (issue 18), not a refusal or a crash', () => {
    let v: unknown = { b: 0, a: NaN };
    for (let i = 0; i < 200_000; i++) v = [v];
    // What canonical JSON refuses is still refused, with its pointer, at any depth.
    const e = refusal(v);
    assert.equal(e.refusal, 'non-finite-number');
    assert.equal(e.path, '/0'.repeat(200_000) + '/a');
    v = { b: 0, a: 1 };
    for (let i = 0; i < 200_000; i++) v = i % 2 ? { z: v, '10': 1 } : [v];
    const text = canonicalJson(v);
    assert.equal(text, '{"10":1,"z":['.repeat(100_000) + '{"a":1,"b":0}' + ']}'.repeat(100_000));
    assert.equal(canonicalJsonByBuilder(v), text);
  });
});

const jsonArb = pageJson({ stringUnit: 'binary', maxDepth: 6 });
const jsonArbAscii = pageJson({ maxDepth: 6 });
const objectsWithIndexKeys = fc.dictionary(
  fc.oneof(fc.constantFrom('0', '1', '2', '10', '9', '-1', 'a', 'B', '$', '01', '4294967295', '4294967294'), pageKey),
  pageJson({ maxDepth: 2 }),
);

describe('canonicalJson agrees with the canonicalize package', () => {
  it('on random JSON values (any Unicode)', () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        assert.equal(canonicalJson(v), canonicalize(v));
      }),
      { numRuns: 500 },
    );
  });
  it('on random JSON values (ASCII) and after a JSON round trip', () => {
    fc.assert(
      fc.property(jsonArbAscii, (v) => {
        const parsed: unknown = JSON.parse(JSON.stringify(v));
        assert.equal(canonicalJson(parsed), canonicalize(parsed));
      }),
      { numRuns: 300 },
    );
  });
  it('on objects with array-index member names', () => {
    fc.assert(
      fc.property(objectsWithIndexKeys, (v) => {
        assert.equal(canonicalJson(v), canonicalize(v));
        assert.equal(canonicalJsonByBuilder(v), canonicalize(v));
      }),
      { numRuns: 300 },
    );
  });
  it('the fast path and the builder path always agree', () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        assert.equal(canonicalJson(v), canonicalJsonByBuilder(v));
      }),
      { numRuns: 300 },
    );
  });
  it('on random numbers, including -0 and the extremes', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        assert.equal(canonicalJson([n]), canonicalize([n]));
      }),
      { numRuns: 1000 },
    );
  });
  it('argsHashSync equals SHA-256 of canonicalize', () => {
    fc.assert(
      fc.property(fc.dictionary(pageKey, jsonArb), (params) => {
        const want = createHash('sha256').update(canonicalize(params) as string, 'utf8').digest('hex');
        assert.equal(argsHashSync(params), want);
      }),
      { numRuns: 200 },
    );
  });
  it('never throws anything but CanonicalJsonError', () => {
    fc.assert(
      fc.property(
        pageAnything({ withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withTypedArray: true, withObjectString: true, withUnicodeString: true }),
        (v) => {
          try {
            canonicalJson(v);
          } catch (e) {
            assert.ok(e instanceof CanonicalJsonError, String(e));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('findDuplicateMemberNames', () => {
  it('finds duplicates with their pointers, at any depth', () => {
    assert.deepEqual(findDuplicateMemberNames('{"a":1,"a":2}'), ['/a']);
    assert.deepEqual(findDuplicateMemberNames('{"x":[{"b":1,"c":2,"b":3}],"y":{"z/~":1,"z/~":2}}'), ['/x/0/b', '/y/z~1~0']);
    assert.deepEqual(findDuplicateMemberNames('[1,{"k":{},"k":[]},{"k":1}]'), ['/1/k']);
  });
  it('compares names after unescaping', () => {
    assert.deepEqual(findDuplicateMemberNames('{"a":1,"\\u0061":2}'), ['/a']);
    assert.deepEqual(findDuplicateMemberNames('{"\\"q":1,"\\u0022q":2}'), ['/"q']);
  });
  it('lists a name once per object however often it repeats', () => {
    assert.deepEqual(findDuplicateMemberNames('{"a":1,"a":2,"a":3}'), ['/a']);
  });
  it('finds none in ordinary JSON', () => {
    assert.deepEqual(findDuplicateMemberNames('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}'), []);
    assert.deepEqual(findDuplicateMemberNames(' [ ] '), []);
    assert.deepEqual(findDuplicateMemberNames('"{\\"a\\":1,\\"a\\":2}"'), []);
  });
  it('is total: broken text, non-strings, huge nesting', () => {
    for (const t of ['', '{', '{"a":1,"a"', '{"a" 1}', '[[[[', '{"a":1,"a":2', 'nul', '{"a":"\\x"}', '}}}', '{"a":1,}'] as const) {
      assert.doesNotThrow(() => findDuplicateMemberNames(t));
    }
    assert.deepEqual(findDuplicateMemberNames('{"a":1,"a":2'), ['/a']);
    assert.deepEqual(findDuplicateMemberNames(42), []);
    assert.deepEqual(findDuplicateMemberNames(null), []);
    const deep = '['.repeat(100_000) + '{"d":1,"d":2}' + ']'.repeat(100_000);
    assert.deepEqual(findDuplicateMemberNames(deep), ['/0'.repeat(100_000) + '/d']);
  });
  it('never throws on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (t) => {
        assert.ok(Array.isArray(findDuplicateMemberNames(t)));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(jsonArb, (v) => {
        assert.deepEqual(findDuplicateMemberNames(JSON.stringify(v)), []);
      }),
      { numRuns: 300 },
    );
  });
});
