/**
 * The demo's own protocol helpers (test/demo/independent), written from the
 * spec text with other libraries than the product's, held to the published
 * vectors: both ../shared/vectors (where it exists) and the repository's copy
 * in test/vectors, each read on its own. Then a differential check against
 * the product on generated values, so that when the two disagree one of them
 * is named wrong here, before an e2e verdict on demo traffic hides it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { argsHash, canonicalJson, effectAccess, NotIJsonError, requiresApproval, sortedJson, surfacesHash, validate } from '../demo/independent/index.ts';
import { argsHashSync } from '../demo/independent/args-hash-node.ts';
import * as product from '../../src/protocol/index.ts';
import { pageJson } from '../support/page-data.ts';
import { COPY_DIR, sharedVectorsDir } from '../support/vectors.ts';
import { cartSurface, catalogSurface, checkoutSurface, couponSurface, helpSurface, notificationsSurface, ordersSurface, shopNavSurface } from '../demo/app/surfaces.ts';

interface ArgsVector { name: string; params: string; canonical: string; argsHash: string }
interface RejectVector { name: string; params: string; reason: string }
interface SurfacesVector { name: string; surfaces: string; sortedJson: string; surfacesHash: string }

const sources: Array<[string, string]> = [['test/vectors (the repository copy)', COPY_DIR]];
const shared = sharedVectorsDir();
if (shared) sources.push(['../shared/vectors', shared]);

for (const [label, dir] of sources) {
  const read = <T>(name: string): T[] => JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as T[];
  const argsVectors = read<ArgsVector>('args-hash-vectors.json');
  const rejectVectors = read<RejectVector>('args-hash-reject-vectors.json');
  const surfacesVectors = read<SurfacesVector>('surfaces-hash-vectors.json');

  describe(`the demo's independent helpers against ${label}`, () => {
    it('has vectors to check', () => {
      assert.ok(argsVectors.length >= 40, `${argsVectors.length} args vectors`);
      assert.ok(rejectVectors.length >= 6, `${rejectVectors.length} reject vectors`);
      assert.ok(surfacesVectors.length >= 10, `${surfacesVectors.length} surfaces vectors`);
    });
    it('canonical JSON and argsHash (Web Crypto and node:crypto) match every args vector', async () => {
      for (const v of argsVectors) {
        const params: unknown = JSON.parse(v.params);
        assert.equal(canonicalJson(params), v.canonical, v.name);
        assert.equal(await argsHash(params), v.argsHash, v.name);
        assert.equal(argsHashSync(params), v.argsHash, v.name);
      }
    });
    it('refuses every reject vector that JSON.parse can show it', async () => {
      let refused = 0;
      for (const v of rejectVectors) {
        const parsed: unknown = JSON.parse(v.params);
        if (v.name === 'duplicate-member-names') {
          // JSON.parse keeps the last member: only raw text can show the duplicate (vectors README)
          assert.equal(canonicalJson(parsed), '{"a":2}');
          continue;
        }
        assert.throws(() => canonicalJson(parsed), Error, v.name);
        assert.throws(() => argsHashSync(parsed), Error, v.name);
        await assert.rejects(argsHash(parsed), Error, v.name);
        refused++;
      }
      assert.equal(refused, rejectVectors.length - 1);
    });
    it('sorted JSON and surfacesHash match every surfaces vector', () => {
      for (const v of surfacesVectors) {
        const surfaces: unknown = JSON.parse(v.surfaces);
        assert.equal(sortedJson(surfaces), v.sortedJson, v.name);
        assert.equal(surfacesHash(surfaces), v.surfacesHash, v.name);
      }
    });
  });
}

describe('the demo\'s canonical JSON refuses what the spec says JSON cannot carry', () => {
  for (const [what, value] of [
    ['a bigint', { n: 1n }],
    ['a function', { f: () => 1 }],
    ['a symbol', [Symbol('s')]],
    ['a class instance', { d: new Date(0) }],
    ['undefined in an array', [undefined]],
    ['undefined itself', undefined],
    ['NaN', { n: NaN }],
  ] as Array<[string, unknown]>) {
    it(what, () => assert.throws(() => canonicalJson(value), NotIJsonError));
  }
  it('and leaves out an object member whose value is undefined, as the wire does', () => {
    assert.equal(canonicalJson({ b: undefined, a: 1 }), '{"a":1}');
  });
  it('sorts integer-like member names by code units, not as numbers', () => {
    assert.equal(sortedJson({ 9: 'a', 10: 'b' }), '{"10":"b","9":"a"}');
    assert.equal(canonicalJson({ 9: 'a', 10: 'b' }), '{"10":"b","9":"a"}');
  });
});

describe('approvals from the spec text', () => {
  it('a transaction always; a write only when destructive; a read never', () => {
    const table: Array<[string | undefined, boolean, boolean]> = [
      ['transaction', false, true],
      ['transaction', true, true],
      ['edit', false, false],
      ['edit', true, true],
      ['mutate', true, true],
      ['job', true, true],
      ['file', true, true],
      [undefined, true, true],
      [undefined, false, false],
      ['view', true, false],
      ['selection', true, false],
      ['navigate', true, false],
      ['open', true, false],
    ];
    for (const [effect, destructive, expected] of table) {
      assert.equal(requiresApproval(effect, destructive), expected, `${effect} destructive=${destructive}`);
      assert.equal(product.requiresApproval(effect as product.OUIEffectKind | undefined, destructive), expected, `product: ${effect} destructive=${destructive}`);
    }
    assert.equal(effectAccess(undefined), 'write');
  });
});

const demoSurfaces = [shopNavSurface, catalogSurface, cartSurface, checkoutSurface, ordersSurface, notificationsSurface, couponSurface, helpSurface];

describe('validation with Ajv on the demo\'s own schemas', () => {
  it('compiles every input and output schema the demo declares', () => {
    let n = 0;
    for (const s of demoSurfaces) {
      for (const a of s.actions) {
        for (const schema of [a.input, a.output]) {
          if (schema === undefined) continue;
          const r = validate(Symbol.for('probe') as unknown, schema);
          assert.ok(!r.errors.some((e) => e.message.startsWith('schema error')), `${s.id}/${a.id}: ${JSON.stringify(r.errors)}`);
          n++;
        }
      }
    }
    assert.ok(n >= 20, `${n} schemas`);
  });
  it('accepts good params and names the pointer of bad ones', () => {
    const add = catalogSurface.actions.find((a) => a.id === 'add_to_cart')!;
    assert.deepEqual(validate({ productId: 'mug-classic', quantity: 1 }, add.input), { valid: true, errors: [] });
    assert.equal(validate({ productId: 'mug-classic', quantity: 1, extra: 1 }, add.input).valid, false, 'additionalProperties: false');
    const bad = validate({ productId: 'mug-classic', quantity: 'lots' }, add.input);
    assert.equal(bad.valid, false);
    assert.ok(bad.errors.some((e) => e.pointer === '/quantity'), JSON.stringify(bad.errors));
    assert.equal(validate(undefined, add.input).valid, false);
    const coupon = couponSurface.actions.find((a) => a.id === 'apply_coupon')!;
    assert.equal(validate({ code: 'save10' }, coupon.input).valid, false, 'pattern ^[A-Z0-9]{4,12}$');
    assert.equal(validate({ code: 'SAVE10' }, coupon.input).valid, true);
  });
  it('agrees with the product on whether generated params are valid, for every demo input', () => {
    const inputs = demoSurfaces.flatMap((s) => s.actions.map((a) => [`${s.id}/${a.id}`, a.input] as const));
    fc.assert(
      fc.property(fc.constantFrom(...inputs), pageJson(), ([id, schema], value) => {
        assert.equal(validate(value, schema).valid, product.validateJson(value, schema).valid, id);
      }),
      { numRuns: 300 },
    );
  });
});

describe('differential against the product', () => {
  it('canonical JSON, argsHash and surfacesHash agree on generated JSON', async () => {
    await fc.assert(
      fc.asyncProperty(pageJson(), async (value) => {
        let mine: string | Error;
        let theirs: string | Error;
        try { mine = canonicalJson(value); } catch (e) { mine = e as Error; }
        try { theirs = product.canonicalJson(value); } catch (e) { theirs = e as Error; }
        assert.equal(mine instanceof Error, theirs instanceof Error, `one refused, the other did not: ${String(mine)} / ${String(theirs)}`);
        if (typeof mine === 'string') {
          assert.equal(mine, theirs);
          assert.equal(argsHashSync(value), product.argsHashSync(value));
          assert.equal(await argsHash(value), product.argsHashSync(value));
        }
        assert.equal(surfacesHash(value), product.surfacesHash(value));
      }),
      { numRuns: 300 },
    );
  });
  it('the demo\'s surfaces hash the same', () => {
    assert.equal(surfacesHash(demoSurfaces), product.surfacesHash(demoSurfaces));
    assert.notEqual(surfacesHash(demoSurfaces), surfacesHash(demoSurfaces.slice(1)));
  });
});
