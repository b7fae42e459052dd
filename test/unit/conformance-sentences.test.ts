/**
 * The conformance matrix is checked against the spec texts, not only against
 * rules.ts: every normative sentence of ../shared/spec/ as of oui-spec 0.6.0
 * (test/support/spec-sentences.ts says which) has an entry in
 * docs/spec-sentences.json, which names the rows of docs/conformance.md that
 * cover it, or says why it is not normative. An entry naming a row the matrix
 * lacks fails, and so does an entry for a sentence the texts no longer have.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sharedDir } from '../support/shared-copy.ts';
import { extractSentences, normalise, releaseRange, reconstruct, splitSentences, type DiffInput } from '../support/spec-sentences.ts';

const root = new URL('../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

const SPEC_TEXT = /^\d{3}_.*\.txt$/;
/** The repository's copy of the spec texts (test/spec), which a CI clone without ../shared reads. */
const SPEC_COPY_DIR = fileURLToPath(new URL('../spec/', import.meta.url));
/** ../shared/spec beside the repository, the source of truth, where it exists. */
const sharedSpec = sharedDir('spec', (d) => readdirSync(d).some((f) => SPEC_TEXT.test(f)), process.env.OUI_SHARED_SPEC);

function specInputs(dir: string): DiffInput[] {
  return readdirSync(dir)
    .filter((f) => SPEC_TEXT.test(f))
    .sort()
    .map((name) => ({ name, text: readFileSync(`${dir}${name}`, 'utf8') }));
}

/** Row ids of a matrix-format table: the first cell of each row. */
function rowIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\| ([0-9A-Z][\w.]*-[a-z]) \|/.exec(line);
    if (m) ids.add(m[1]!);
  }
  return ids;
}

type Entry = string[] | string;
const mapping = JSON.parse(read('docs/spec-sentences.json')) as { sentences: Record<string, Entry> };
const matrixIds = rowIds(read('docs/conformance.md'));

// ------------------------------------------------------------------ the extractor on small diffs

const diff = (range: string, path: string, body: string) => `oui-spec ${range}\n\n${path}\n\n${body}`;
const keys = (inputs: DiffInput[]) => extractSentences(inputs).map((s) => s.key);

describe('spec-sentences: the extractor', () => {
  it('drops a removed line, keeps the added one, and keeps a lowercase keyword', () => {
    const text = diff(
      '0.4.1 → 0.6.0',
      'package/spec/S.md',
      ['@@ -1,3 +1,3 @@', ' # 1 Intro', '-The client MUST send oldField.', '+The client must send `newField`.', ' A plain sentence.', ''].join('\n'),
    );
    const ks = keys([{ name: 'a.txt', text }]);
    assert.deepEqual(ks, ['the client must send newfield.']);
  });

  it('matches keywords word-bounded and outside code spans', () => {
    const text = diff('0.4.1 → 0.6.0', 'package/spec/S.md', ['@@ -0,0 +1,3 @@', '+The mayor decides. The `required` array lists names.', '+', '+A runtime May retry. Fields are Optional here.', ''].join('\n'));
    assert.deepEqual(keys([{ name: 'a.txt', text }]), ['a runtime may retry.', 'fields are optional here.']);
  });

  it('keeps every type comment of a .d.ts, with or without a keyword', () => {
    const text = diff(
      '0.4.1 → 0.6.0',
      'package/dist/types.d.ts',
      ['@@ -0,0 +1,6 @@', '+/**', '+ * A snapshot of what a client holds. Sent on every result.', '+ */', '+interface Snap {', '+    /** The hash, always present. */', '+    hash?: string; // Lowercase hex', ''].join('\n'),
    );
    const ss = extractSentences([{ name: 'a.txt', text }]);
    assert.deepEqual(
      ss.map((s) => s.key),
      ['a snapshot of what a client holds.', 'sent on every result.', 'the hash, always present.', 'lowercase hex'],
    );
    assert.ok(ss.every((s) => s.kind === 'type-comment' && s.reasons.includes('type-comment')));
    assert.equal(ss[2]!.context, 'Snap.hash');
  });

  it('takes a table row as one unit, kept when it carries a keyword', () => {
    const text = diff(
      '0.4.1 → 0.6.0',
      'package/spec/S.md',
      ['@@ -1,4 +1,6 @@', ' | Field | Description |', ' | --- | --- |', ' | `a` | Plain. |', '+| `b` | MUST be set. Never empty. |', '+| `c` | Plain too. |', ' Tail.', ''].join('\n'),
    );
    const ss = extractSentences([{ name: 'a.txt', text }]);
    assert.deepEqual(
      ss.map((s) => [s.kind, s.key]),
      [['table-row', 'field: b; description: must be set. never empty.']],
    );
  });

  it('keeps a keywordless item of a list with a keyword item, and the rows a keyword sentence introduces', () => {
    const body = [
      '@@ -0,0 +1,12 @@',
      '+**Requirements:**',
      '+',
      '+- The payload is complete',
      '+- The id MUST match',
      '+',
      '+A result MAY carry:',
      '+',
      '+| Field | Description |',
      '+| --- | --- |',
      '+| `x` | The whole set |',
      '+',
      '+- An unrelated item',
      '',
    ].join('\n');
    const ss = extractSentences([{ name: 'a.txt', text: diff('0.4.1 → 0.6.0', 'package/spec/S.md', body) }]);
    assert.deepEqual(
      ss.map((s) => [s.key, s.reasons.join(',')]),
      [
        ['the payload is complete', 'keyword-list'],
        ['the id must match', 'keyword'],
        ['a result may carry:', 'keyword'],
        ['field: x; description: the whole set', 'keyword-intro'],
      ],
    );
  });

  it('applies diffs oldest release first: a later diff replaces what an earlier one added', () => {
    const older = diff('0.2.0 → 0.4.0', 'package/spec/S.md', ['@@ -1,2 +1,3 @@', ' # 7 Title', '+The client MUST do X.', ' End.', ''].join('\n'));
    const newer = diff('0.4.1 → 0.6.0', 'package/spec/S.md', ['@@ -2,1 +2,2 @@', '-The client MUST do X.', '+The client MUST do Y.', '+The runtime SHOULD do Z.', ''].join('\n'));
    const rfc = '# RFC 0114: Elsewhere\n\nEvery patch MUST be re-validated.\n';
    const ss = extractSentences([
      { name: '000_new.txt', text: newer },
      { name: '002_rfc.txt', text: rfc },
      { name: '001_old.txt', text: older },
    ]);
    assert.deepEqual(
      ss.map((s) => s.key),
      ['the client must do y.', 'the runtime should do z.'],
    );
    assert.deepEqual(ss[0]!.at, [{ file: '000_new.txt', line: 7, path: 'package/spec/S.md' }]);
    const [block] = reconstruct([{ name: '001_old.txt', text: older }, { name: '000_new.txt', text: newer }]);
    assert.deepEqual(
      block!.lines.map((l) => [l.no, l.text]),
      [
        [1, '# 7 Title'],
        [2, 'The client MUST do Y.'],
        [3, 'The runtime SHOULD do Z.'],
        [4, 'End.'],
      ],
    );
  });

  it('refuses diffs that disagree about a line both show', () => {
    const older = diff('0.2.0 → 0.4.0', 'package/spec/S.md', ['@@ -1,1 +1,2 @@', ' # 7 Title', '+The client MUST do X.', ''].join('\n'));
    const newer = diff('0.4.1 → 0.6.0', 'package/spec/S.md', ['@@ -2,1 +2,1 @@', '-The client MUST do W.', '+The client MUST do Y.', ''].join('\n'));
    assert.throws(() => reconstruct([{ name: 'o', text: older }, { name: 'n', text: newer }]), /removes old line 2/);
  });

  it('normalises keys and splits sentences without breaking at e.g. or inside code', () => {
    assert.equal(normalise('  The `surfacesHash`  **MUST**\n be _sent_.'), 'the surfaceshash must be sent.');
    assert.equal(normalise('`^[a-z][a-z0-9_]*[a-z0-9]$` snake_case'), '^[a-z][a-z0-9_]*[a-z0-9]$ snake_case');
    assert.deepEqual(splitSentences('Use ids (e.g. `a.b`). Then stop. `x. Y` stays.'), ['Use ids (e.g. `a.b`).', 'Then stop.', '`x. Y` stays.']);
    assert.equal(releaseRange('# RFC 0114: A2UI Surface Deltas'), null);
    assert.deepEqual(releaseRange('oui-spec 0.4.1 → 0.6.0\n'), { from: '0.4.1', to: '0.6.0' });
  });
});

// ------------------------------------------------------------------ the mapping against the spec texts

describe('docs/spec-sentences.json against the spec texts and docs/conformance.md', () => {
  const inputs = specInputs(sharedSpec ?? SPEC_COPY_DIR);
  const sentences = extractSentences(inputs);

  const entries = Object.entries(mapping.sentences);

  it('extracts from the oui-spec diffs only, and finds the sentences it must', () => {
    // The repository's copy is what a CI clone without ../shared reads: it must not drift.
    assert.deepEqual(specInputs(SPEC_COPY_DIR), inputs, 'test/spec differs from ../shared/spec');
    const ouiSpec = new Set(inputs.filter((i) => releaseRange(i.text)).map((i) => i.name));
    assert.ok(ouiSpec.size >= 2, 'the oui-spec diffs are there');
    for (const s of sentences) for (const a of s.at) assert.ok(ouiSpec.has(a.file), `${s.text} comes from ${a.file}, not an oui-spec diff`);
    assert.ok(sentences.length >= 250, `only ${sentences.length} sentences`);
    const have = new Set(sentences.map((s) => s.key));
    for (const k of [
      'the client must send surfaceshash.',
      'an agent runtime may send a request again when no answer has come, since a client can join late.',
      "its approval store issues a single-use grant when the user confirms, and the request that then reaches the tab carries approval: { approvalid, argshash }.",
      'the surface field contains the complete manifest (schema only, no handlers)',
      'field: surfaces; type: ouisurface[]; description: every surface active on the client after the action, when the runtime lacks them',
    ]) {
      assert.ok(have.has(k), `extracted: ${k}`);
    }
    // Text a later diff removed is not normative.
    assert.ok(!have.has('field: surfaces; type: ouisurface[]; description: every surface active on the client after the action'), 'the 0.4.0 row 0.6.0 replaced');
    assert.ok(!have.has('handler for incoming action requests (client side)'), 'the 0.4.1 comment 0.6.0 replaced');
    assert.ok(have.has('handler for incoming action requests (client side).'), 'the 0.6.0 comment');
  });

  it('has an entry for every extracted sentence', () => {
    const missing = sentences.filter((s) => !Object.hasOwn(mapping.sentences, s.key));
    assert.deepEqual(
      missing.map((s) => `${s.at[0]!.file}:${s.at[0]!.line} ${JSON.stringify(s.key)}`),
      [],
      'sentences with no entry in docs/spec-sentences.json',
    );
  });

  it('has no entry for a sentence the texts no longer have', () => {
    const have = new Set(sentences.map((s) => s.key));
    assert.deepEqual(
      entries.filter(([k]) => !have.has(k)).map(([k]) => k),
      [],
      'stale entries in docs/spec-sentences.json',
    );
  });

  it('gives every entry row ids, or "not-normative: <reason>"', () => {
    for (const [k, v] of entries) {
      if (typeof v === 'string') assert.match(v, /^not-normative: \S.{10,}$/, `entry ${JSON.stringify(k)}`);
      else {
        assert.ok(Array.isArray(v) && v.length > 0, `entry ${JSON.stringify(k)} names no row`);
        for (const id of v) assert.match(id, /^[0-9A-Z][\w.]*-[a-z]$/, `entry ${JSON.stringify(k)}: ${id}`);
        assert.equal(new Set(v).size, v.length, `entry ${JSON.stringify(k)} names a row twice`);
      }
    }
  });

  it('names only rows that docs/conformance.md has', () => {
    const named = new Set(entries.flatMap(([, v]) => (Array.isArray(v) ? v : [])));
    const absent = [...named].filter((id) => !matrixIds.has(id)).sort();
    assert.deepEqual(absent, [], 'row ids docs/conformance.md does not have');
  });
});
