/**
 * surfacesHash / sortedJson against slow, obviously-right references (BigInt
 * FNV-1a, a recursive sorted stringify), the byte-wise variants, and
 * JSON.stringify semantics.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageJson } from '../support/page-data.ts';
import {
  fnv1a64Bytes,
  fnv1a64Utf16,
  identifySurfacesHashVariant,
  sortedJson,
  surfacesHash,
  surfacesHashVariants,
} from '../../src/protocol/index.ts';

const MASK = (1n << 64n) - 1n;
const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;

function refFnvUnits(units: Iterable<number>): string {
  let h = OFFSET;
  for (const u of units) {
    h ^= BigInt(u);
    h = (h * PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

function* utf16Units(s: string): Generator<number> {
  for (let i = 0; i < s.length; i++) yield s.charCodeAt(i);
}
function* utf16leBytes(s: string): Generator<number> {
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    yield u & 0xff;
    yield u >> 8;
  }
}

/** Sorted JSON for JSON values, the slow and obvious way. */
function refSorted(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(refSorted).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + refSorted((v as Record<string, unknown>)[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const anyUnitString = fc.string({ unit: codeUnit });
const astralString = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\ud800', '\udfff', '"', '\\', '\n', '\u0000', '\u2028', '𝄞', '日') });

describe('FNV-1a 64 without BigInt', () => {
  it('matches the BigInt reference on known inputs', () => {
    assert.equal(fnv1a64Utf16(''), 'cbf29ce484222325');
    assert.equal(fnv1a64Utf16('a'), refFnvUnits([0x61]));
    // FNV-1a 64 of the byte "a" is the published af63dc4c8601ec8c.
    assert.equal(fnv1a64Bytes(new TextEncoder().encode('a')), 'af63dc4c8601ec8c');
    assert.equal(fnv1a64Bytes(new TextEncoder().encode('foobar')), '85944171f73967e8');
  });
  it('matches the BigInt reference on random strings (all code units, lone surrogates, astral)', () => {
    fc.assert(
      fc.property(fc.oneof(anyUnitString, astralString, fc.string({ unit: 'binary' })), (s) => {
        assert.equal(fnv1a64Utf16(s), refFnvUnits(utf16Units(s)));
      }),
      { numRuns: 1000 },
    );
  });
  it('matches the BigInt reference on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        assert.equal(fnv1a64Bytes(b), refFnvUnits(b));
      }),
      { numRuns: 500 },
    );
  });
});

describe('sortedJson', () => {
  it('sorts every object by UTF-16 code units', () => {
    assert.equal(sortedJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null }, '😀': 1, '\ufb01': 2 }), '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1,"😀":1,"ﬁ":2}');
    assert.equal(sortedJson({ '10': 1, '9': 2, '-1': 3 }), '{"-1":3,"10":1,"9":2}');
  });
  it('has JSON.stringify semantics for what JSON cannot carry', () => {
    const v = {
      u: undefined,
      f: () => 1,
      s: Symbol('x'),
      n: NaN,
      i: -Infinity,
      z: -0,
      arr: [undefined, () => 1, Symbol('y'), NaN],
      d: new Date(0),
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      custom: { toJSON: (key: string) => `key was ${key}` },
    };
    assert.equal(
      sortedJson(v),
      '{"arr":[null,null,null,null],"boxed":[3,"s",false],"custom":"key was custom","d":"1970-01-01T00:00:00.000Z","i":null,"n":null,"z":0}',
    );
    assert.equal(sortedJson('x\ud800'), JSON.stringify('x\ud800'));
    assert.equal(sortedJson(null), 'null');
  });
  it('throws TypeError like JSON.stringify on cycles and bigints, and on values with no JSON form', () => {
    const a: Record<string, unknown> = {};
    a.a = a;
    assert.throws(() => sortedJson(a), TypeError);
    assert.throws(() => surfacesHash(a), TypeError);
    assert.throws(() => sortedJson({ n: 1n }), TypeError);
    assert.throws(() => surfacesHash({ n: 1n }), TypeError);
    assert.throws(() => sortedJson(undefined), TypeError);
    assert.throws(() => surfacesHash(() => 1), TypeError);
    // a cycle below the depth where the hash walk starts looking
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 40; i++) cur = cur.n = {} as Record<string, unknown>;
    cur.back = deep;
    assert.throws(() => surfacesHash(deep), TypeError);
  });
  it('equals JSON.stringify for values whose keys are already sorted', () => {
    fc.assert(
      fc.property(pageJson({ maxDepth: 5 }), (v) => {
        const sorted: unknown = JSON.parse(refSorted(v));
        // JSON.parse keeps insertion order for non-index keys: compare with the reference instead.
        assert.equal(sortedJson(v), refSorted(v));
        assert.equal(sortedJson(sorted), refSorted(v));
      }),
      { numRuns: 500 },
    );
  });
});

describe('surfacesHash', () => {
  it('is fnv1a64: + FNV-1a over the UTF-16 code units of sortedJson (random values, any Unicode)', () => {
    fc.assert(
      fc.property(pageJson({ stringUnit: fc.oneof(codeUnit, fc.constantFrom('😀', '𝄞', 'é', '"', '\\')), maxDepth: 5 }), (v) => {
        const text = sortedJson(v);
        assert.equal(text, refSorted(v));
        assert.equal(surfacesHash(v), 'fnv1a64:' + refFnvUnits(utf16Units(text)));
      }),
      { numRuns: 500 },
    );
  });
  it('hashes strings that need escaping through their escaped form', () => {
    for (const s of ['"', '\\', '\n', '\u0000', 'a\ud800b', '😀', '\udc00\ud800', 'plain']) {
      const v = [{ [s]: s }];
      assert.equal(surfacesHash(v), 'fnv1a64:' + refFnvUnits(utf16Units(sortedJson(v))), JSON.stringify(s));
    }
  });
  it('follows toJSON and leaves out what JSON leaves out, like sortedJson', () => {
    const v = [{ id: 'a', d: new Date(5), skip: undefined, f: () => 1, n: NaN, custom: { toJSON: () => ({ z: 1, a: 2 }) } }];
    assert.equal(surfacesHash(v), 'fnv1a64:' + refFnvUnits(utf16Units(sortedJson(v))));
  });
  it('is independent of key order', () => {
    assert.equal(surfacesHash([{ a: 1, b: { c: 2, d: 3 } }]), surfacesHash([{ b: { d: 3, c: 2 }, a: 1 }]));
    assert.notEqual(surfacesHash([{ a: 1 }]), surfacesHash([{ a: 2 }]));
  });
  it('handles empty objects and arrays', () => {
    for (const v of [[], {}, [{}], [[]], { a: {} }, { a: [] }]) {
      assert.equal(surfacesHash(v), 'fnv1a64:' + refFnvUnits(utf16Units(JSON.stringify(v))));
    }
  });
});

describe('surfacesHashVariants and identifySurfacesHashVariant', () => {
  it('computes the UTF-8 and UTF-16LE byte variants', () => {
    fc.assert(
      fc.property(pageJson({ stringUnit: fc.oneof(codeUnit, fc.constantFrom('😀', 'é')), maxDepth: 4 }), (v) => {
        const text = sortedJson(v);
        const variants = surfacesHashVariants(v);
        assert.equal(variants.utf16, surfacesHash(v));
        assert.equal(variants.utf8, 'fnv1a64:' + refFnvUnits(new TextEncoder().encode(text)));
        assert.equal(variants.utf16le, 'fnv1a64:' + refFnvUnits(utf16leBytes(text)));
      }),
      { numRuns: 300 },
    );
  });
  it('tells which variant a client used', () => {
    const surfaces = [{ id: 'docs', name: 'Docs — “ü”', description: '😀', actions: [] }];
    const v = surfacesHashVariants(surfaces);
    assert.notEqual(v.utf16, v.utf8);
    assert.notEqual(v.utf16, v.utf16le);
    assert.equal(identifySurfacesHashVariant(surfaces, v.utf16), 'utf16');
    assert.equal(identifySurfacesHashVariant(surfaces, v.utf8), 'utf8');
    assert.equal(identifySurfacesHashVariant(surfaces, v.utf16le), 'utf16le');
    assert.equal(identifySurfacesHashVariant(surfaces, 'fnv1a64:0000000000000000'), null);
    assert.equal(identifySurfacesHashVariant(surfaces, v.utf16.toUpperCase()), null);
    assert.equal(identifySurfacesHashVariant(surfaces, 42), null);
    // unsorted JSON is not one of the variants
    const unsorted = 'fnv1a64:' + fnv1a64Utf16(JSON.stringify([{ b: 1, a: 2 }]));
    assert.equal(identifySurfacesHashVariant([{ b: 1, a: 2 }], unsorted), null);
  });
  it('never throws', () => {
    const a: unknown[] = [];
    a.push(a);
    assert.equal(identifySurfacesHashVariant(a, 'fnv1a64:0000000000000000'), null);
    assert.equal(identifySurfacesHashVariant(10n, 'fnv1a64:0000000000000000'), null);
  });
  it('ASCII-only surfaces hash the same in UTF-16 and UTF-8', () => {
    const v = surfacesHashVariants([{ id: 'x' }]);
    assert.equal(v.utf16, v.utf8);
  });
});
