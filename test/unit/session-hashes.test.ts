/**
 * surfacesHash verdicts (§7.3.4): reported against recomputed, the byte
 * variants a non-conformant client uses, and the runtime's view when a
 * result carries no surfaces.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { surfacesHash, surfacesHashVariants } from '../../src/protocol/index.ts';
import { hashVerdict } from '../../src/session/model/hashes.ts';
import { Traffic, cartSurface, catalogSurface, findingsOf, rules, withCart } from './session-helpers.ts';

const accented = () => ({ ...cartSurface(), description: 'Le panier — café' });
const none = () => undefined;

describe('hashVerdict', () => {
  const set = [accented()];
  const v = surfacesHashVariants(set);

  it('matches, names byte variants, mismatches', () => {
    assert.deepEqual(hashVerdict(v.utf16, set, none, undefined), { verdict: 'match', recomputed: v.utf16 });
    assert.deepEqual(hashVerdict(v.utf8, set, none, undefined), { verdict: 'utf8-variant', recomputed: v.utf16, expected: v.utf16 });
    assert.deepEqual(hashVerdict(v.utf16le, set, none, undefined), { verdict: 'utf16le-variant', recomputed: v.utf16, expected: v.utf16 });
    assert.equal(hashVerdict(surfacesHash([]), set, none, undefined).verdict, 'mismatch');
  });

  it('missing and bad format still show the recomputed hash when surfaces came', () => {
    assert.deepEqual(hashVerdict(undefined, set, none, undefined), { verdict: 'missing', recomputed: v.utf16 });
    assert.deepEqual(hashVerdict('fnv1a64:ABCDEF0123456789', set, none, undefined), { verdict: 'bad-format', recomputed: v.utf16 });
    assert.deepEqual(hashVerdict(42, undefined, none, undefined), { verdict: 'bad-format' });
  });

  it('without surfaces: what the runtime holds under the hash, else the mounted set, else unverifiable', () => {
    assert.deepEqual(hashVerdict(v.utf16, undefined, (h) => (h === v.utf16 ? set : undefined), undefined), { verdict: 'match', recomputed: v.utf16 });
    assert.equal(hashVerdict(v.utf16, undefined, none, set).verdict, 'match');
    assert.equal(hashVerdict(v.utf8, undefined, none, set).verdict, 'utf8-variant');
    assert.equal(hashVerdict(surfacesHash([]), undefined, none, set).verdict, 'mismatch');
    // The runtime says it holds that hash: the inspector cannot prove otherwise.
    assert.equal(hashVerdict(surfacesHash([]), undefined, none, set, surfacesHash([])).verdict, 'unverifiable');
    assert.equal(hashVerdict(v.utf16, undefined, none, undefined).verdict, 'unverifiable');
  });
});

describe('hash records in the model', () => {
  it('a UTF-8 client: every result recorded as utf8-variant, one finding that says so', () => {
    const tr = new Traffic();
    tr.register(accented());
    for (let i = 0; i < 3; i++) {
      const { requestId } = tr.request('cart', 'view_cart');
      tr.result(requestId, { success: true, surfacesHash: surfacesHashVariants(tr.mounted).utf8 });
    }
    const m = tr.model();
    const c = m.clients.get('c1')!;
    assert.deepEqual(c.hashes.map((h) => h.verdict), ['utf8-variant', 'utf8-variant', 'utf8-variant']);
    assert.equal(c.hashes[0]!.recomputed, surfacesHash(tr.mounted));
    assert.equal(c.hashes[0]!.carriedSurfaces, true);
    const found = findingsOf(m, 'hash-byte-variant');
    assert.equal(found.length, 1);
    assert.match(found[0]!.message, /the client hashed UTF-8 bytes, not UTF-16 code units/);
  });

  it('an ASCII-only set hashes the same every way: a match', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true, surfacesHash: surfacesHashVariants(tr.mounted).utf8 });
    assert.deepEqual(tr.model().clients.get('c1')!.hashes.map((h) => h.verdict), ['match']);
  });

  it('a result without surfaces is checked against the set registered or reported under its hash', () => {
    const tr = withCart();
    const known = surfacesHash(tr.mounted);
    const a = tr.request('cart', 'view_cart', {}, { knownSurfaces: known });
    tr.result(a.requestId, { success: true }, ['surfaces']);
    // The client navigates: reports catalog, then answers the next request without surfaces.
    const b = tr.request('cart', 'view_cart', {}, { knownSurfaces: known });
    tr.mounted = [catalogSurface()];
    tr.result(b.requestId, { success: true });
    const next = surfacesHash(tr.mounted);
    const d = tr.request('catalog', 'search', {}, { knownSurfaces: next });
    tr.result(d.requestId, { success: true }, ['surfaces']);
    const m = tr.model();
    const hashes = m.clients.get('c1')!.hashes;
    assert.deepEqual(hashes.map((h) => [h.verdict, h.carriedSurfaces, h.knownSurfaces]), [
      ['match', false, known],
      ['match', true, known],
      ['match', false, next],
    ]);
    assert.deepEqual(rules(m), []);
  });

  it('an async final compares with its interim acknowledgment, not knownSurfaces', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'export_cart');
    tr.result(requestId, { success: true, interim: true, progress: 0 });
    tr.result(requestId, { success: true, interim: false, data: {} }, ['surfaces']);
    assert.deepEqual(rules(tr.model()), []);

    const tr2 = withCart();
    const r2 = tr2.request('cart', 'export_cart', {}, { knownSurfaces: surfacesHash(tr2.mounted) });
    tr2.result(r2.requestId, { success: true, interim: true, progress: 0 }, ['surfaces']);
    tr2.mounted = [catalogSurface()];
    tr2.result(r2.requestId, { success: true, interim: false, data: {} }, ['surfaces']);
    const m = tr2.model();
    const [f] = findingsOf(m, 'surfaces-missing');
    assert.match(f!.message, /differs from its interim acknowledgment's surfacesHash/);
  });

  it('a missing hash is recorded as missing, with the recomputed one', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart');
    tr.result(requestId, { success: true }, ['surfacesHash']);
    const [h] = tr.model().clients.get('c1')!.hashes;
    assert.equal(h!.verdict, 'missing');
    assert.equal(h!.recomputed, surfacesHash(tr.mounted));
    assert.equal(h!.reported, undefined);
  });

  it('a hash the client never registered nor reported, without surfaces: a warning', () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash(tr.mounted) });
    tr.result(requestId, { success: true, surfacesHash: surfacesHash([catalogSurface()]) }, ['surfaces']);
    const m = tr.model();
    const [f] = findingsOf(m, 'hash-mismatch');
    assert.equal(f!.severity, 'warning');
    assert.ok(rules(m).includes('surfaces-missing'));
  });
});
