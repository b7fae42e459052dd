/**
 * Every published vector (../shared/vectors, copied in test/vectors): args hash, refusals,
 * surfaces hash.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CanonicalJsonError,
  argsHash,
  argsHashSync,
  canonicalJson,
  canonicalJsonByBuilder,
  findDuplicateMemberNames,
  sortedJson,
  surfacesHash,
  surfacesHashVariants,
  identifySurfacesHashVariant,
} from '../../src/protocol/index.ts';
import { COPY_DIR, loadVectors } from '../support/vectors.ts';

function vectors<T>(name: string): T[] {
  const published = loadVectors<T>(name);
  // The repository's copy is what a CI clone without ../shared tests against: it must not drift.
  assert.deepEqual(JSON.parse(readFileSync(`${COPY_DIR}${name}`, 'utf8')), published, `test/vectors/${name} differs from the published vectors`);
  return published;
}

interface ArgsVector {
  name: string;
  params: string;
  canonical: string;
  argsHash: string;
}
interface RejectVector {
  name: string;
  params: string;
  reason: string;
}
interface SurfacesVector {
  name: string;
  surfaces: string;
  sortedJson: string;
  surfacesHash: string;
}

const argsVectors = vectors<ArgsVector>('args-hash-vectors.json');
const rejectVectors = vectors<RejectVector>('args-hash-reject-vectors.json');
const surfacesVectors = vectors<SurfacesVector>('surfaces-hash-vectors.json');

describe('args-hash vectors', () => {
  it('are all there', () => {
    assert.ok(argsVectors.length >= 40, `only ${argsVectors.length} vectors`);
  });
  for (const v of argsVectors) {
    it(v.name, async () => {
      const params: unknown = JSON.parse(v.params);
      assert.equal(canonicalJson(params), v.canonical);
      assert.equal(canonicalJsonByBuilder(params), v.canonical);
      assert.equal(argsHashSync(params), v.argsHash);
      assert.equal(await argsHash(params), v.argsHash);
    });
  }
});

describe('args-hash reject vectors', () => {
  for (const v of rejectVectors) {
    if (v.name === 'duplicate-member-names') {
      it(`${v.name}: JSON.parse keeps the last member; the text scanner flags it`, () => {
        const parsed: unknown = JSON.parse(v.params);
        assert.equal(canonicalJson(parsed), '{"a":2}');
        assert.equal(argsHashSync(parsed), argsHashSync({ a: 2 }));
        assert.deepEqual(findDuplicateMemberNames(v.params), ['/a']);
      });
      continue;
    }
    it(`${v.name} (${v.reason})`, async () => {
      const parsed: unknown = JSON.parse(v.params);
      assert.throws(() => canonicalJson(parsed), CanonicalJsonError);
      assert.throws(() => canonicalJsonByBuilder(parsed), CanonicalJsonError);
      assert.throws(() => argsHashSync(parsed), CanonicalJsonError);
      await assert.rejects(argsHash(parsed), CanonicalJsonError);
      assert.deepEqual(findDuplicateMemberNames(v.params), []);
    });
  }
  it('name the refused member in the error path', () => {
    const byName = new Map(rejectVectors.map((v) => [v.name, v]));
    const err = (name: string): CanonicalJsonError => {
      try {
        canonicalJson(JSON.parse(byName.get(name)!.params));
      } catch (e) {
        return e as CanonicalJsonError;
      }
      throw new Error('accepted');
    };
    assert.equal(err('lone-high-surrogate-in-value').path, '/s');
    assert.equal(err('lone-high-surrogate-in-value').refusal, 'lone-surrogate');
    assert.equal(err('lone-surrogate-in-key').path, '/\udfff');
    assert.match(err('lone-surrogate-in-key').message, /member name with a lone surrogate at \/\\udfff/);
    assert.equal(err('number-overflow-positive').refusal, 'non-finite-number');
    assert.equal(err('number-overflow-negative').path, '/n');
  });
});

describe('surfaces-hash vectors', () => {
  it('are all there', () => {
    assert.ok(surfacesVectors.length >= 10, `only ${surfacesVectors.length} vectors`);
  });
  for (const v of surfacesVectors) {
    it(v.name, () => {
      const surfaces: unknown = JSON.parse(v.surfaces);
      assert.equal(sortedJson(surfaces), v.sortedJson);
      assert.equal(surfacesHash(surfaces), v.surfacesHash);
      const variants = surfacesHashVariants(surfaces);
      assert.equal(variants.utf16, v.surfacesHash);
      assert.equal(identifySurfacesHashVariant(surfaces, v.surfacesHash), 'utf16');
    });
  }
});
