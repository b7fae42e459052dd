/**
 * Every published vector (../shared/vectors, copied in test/vectors): args hash, refusals,
 * surfaces hash.
 *
 * Which vectors: ../shared/vectors where it exists beside the repository, else the
 * repository's copy. The copy is checked in two ways, said apart:
 * - its own integrity, always: each file's SHA-256 against the list below, taken
 *   from the published files when they were copied (a clean CI clone, with no
 *   ../shared, gets this check and only this one);
 * - byte for byte against ../shared/vectors, only where that folder exists (the
 *   test says so when it does not, instead of comparing the copy with itself).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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
import { COPY_DIR, loadVectors, sharedVectorsDir } from '../support/vectors.ts';

/** SHA-256 of each published vector file, as copied into test/vectors (sha256sum ../shared/vectors/*.json). */
const PUBLISHED_SHA256: Record<string, string> = {
  'args-hash-reject-vectors.json': '05099ec77e951068c37b7a27f35589be1e050e0a43e13df04ef073f0e6df2bff',
  'args-hash-vectors.json': '8798857bcad1d69748c388ab8cbed6d3e5daeb9b0ce7a1d35eba24f7a44ca48b',
  'surfaces-hash-vectors.json': '08f2d50ad06f77f8d54acd22dbe470a4245bed04050d0c054c8435ab1f073cb3',
};
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('the repository\'s copy of the vectors (test/vectors)', () => {
  it('is intact: each file has the SHA-256 of the published file it copies', () => {
    for (const [name, sum] of Object.entries(PUBLISHED_SHA256)) assert.equal(sha256(`${COPY_DIR}${name}`), sum, `test/vectors/${name} was changed after it was copied`);
  });
  const shared = sharedVectorsDir();
  it(shared ? 'equals ../shared/vectors byte for byte' : 'equals ../shared/vectors: not checked, ../shared/vectors is not beside this clone (only the checksums above are)', (t) => {
    if (!shared) {
      t.diagnostic('../shared/vectors not found (set OUI_SHARED_VECTORS to check against it)');
      return;
    }
    for (const name of Object.keys(PUBLISHED_SHA256)) {
      assert.equal(sha256(`${shared}${name}`), PUBLISHED_SHA256[name], `../shared/vectors/${name} changed since it was copied: copy it again and update PUBLISHED_SHA256`);
      assert.equal(sha256(`${COPY_DIR}${name}`), sha256(`${shared}${name}`), `test/vectors/${name} differs from ../shared/vectors/${name}`);
    }
  });
});

function vectors<T>(name: string): T[] {
  return loadVectors<T>(name);
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
