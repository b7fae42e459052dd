/**
 * docs/conformance.md and the rule table agree: every rule has a row, every
 * row's rules exist, and a rule's section, party and release are its row's.
 * Every rule a row names has a triggering and a non-triggering scenario in
 * session-rules.test.ts, which runs them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RULES, SPEC_VERSIONS, ruleById } from '../../src/session/model/rules.ts';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/conformance.md', root), 'utf8');
const scenarios = readFileSync(new URL('test/unit/session-rules.test.ts', root), 'utf8');

interface Row {
  id: string;
  section: string;
  keyword: string;
  sentence: string;
  binds: string;
  since: string;
  rules: string[];
  evidence: string;
  line: number;
}

/** Cells of a Markdown table line; `\|` is a pipe inside a cell. */
function cells(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

function parse(text: string): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((line, i) => {
    if (!/^\| [0-9A-Z][\w.]*-[a-z] \|/.test(line)) return;
    const c = cells(line);
    assert.equal(c.length, 8, `line ${i + 1} has ${c.length} cells: ${line}`);
    const [id, section, keyword, sentence, binds, since, rule, evidence] = c as [string, string, string, string, string, string, string, string];
    const rules = rule === '—' ? [] : rule.split(',').map((r) => r.trim().replace(/^`|`$/g, ''));
    rows.push({ id, section, keyword, sentence, binds, since, rules, evidence, line: i + 1 });
  });
  return rows;
}

const rows = parse(doc);

describe('the conformance matrix (docs/conformance.md)', () => {
  it('has rows, each with a unique id, a section, a sentence, a party and a release', () => {
    assert.ok(rows.length >= 100, `only ${rows.length} rows`);
    const ids = rows.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'row ids are unique');
    for (const r of rows) {
      assert.ok(r.section && r.sentence && r.keyword, `row ${r.id}`);
      assert.match(r.binds, /^(client|runtime)$/, `row ${r.id} binds ${r.binds}`);
      assert.ok((SPEC_VERSIONS as readonly string[]).includes(r.since), `row ${r.id} since ${r.since}`);
    }
  });

  it('every rule of the table has a row', () => {
    const named = new Set(rows.flatMap((r) => r.rules));
    const missing = RULES.filter((r) => !named.has(r.id)).map((r) => r.id);
    assert.deepEqual(missing, [], 'rules with no row in docs/conformance.md');
  });

  it('every rule a row names exists', () => {
    const unknown = rows.flatMap((r) => r.rules.filter((id) => !ruleById(id)).map((id) => `${r.id}: ${id}`));
    assert.deepEqual(unknown, []);
  });

  it("a rule cites its row's section, binds its row's party, and came with its row's release", () => {
    const wrong: string[] = [];
    for (const r of rows) {
      for (const id of r.rules) {
        const rule = ruleById(id);
        if (!rule) continue;
        if (rule.section !== r.section) wrong.push(`${id} cites ${rule.section}, row ${r.id} is ${r.section}`);
        if (rule.party !== r.binds) wrong.push(`${id} binds the ${rule.party}, row ${r.id} the ${r.binds}`);
        if (rule.since !== r.since) wrong.push(`${id} since ${rule.since}, row ${r.id} since ${r.since}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('a row with rules names their triggering and non-triggering tests; a row without says why traffic cannot show it', () => {
    for (const r of rows) {
      if (!r.rules.length) {
        assert.ok(r.evidence.length > 20, `row ${r.id} says why no rule checks it`);
        continue;
      }
      for (const id of r.rules) {
        assert.ok(r.evidence.includes(`raises ${id}`) && r.evidence.includes(`clean traffic raises no ${id}`), `row ${r.id} names the tests of ${id}`);
        // The scenario those tests run: session-rules.test.ts keys its scenarios by rule id, with trigger and clean traffic.
        const at = scenarios.indexOf(`'${id}': {`);
        assert.ok(at >= 0, `session-rules.test.ts has a scenario for ${id}`);
        const body = scenarios.slice(at, at + 4000);
        assert.match(body, /trigger:/, id);
        assert.match(body, /clean:/, id);
      }
    }
  });

  it('the parser fails on a rule with no row, a missing rule and a wrong section', () => {
    const some = parse(doc).filter((r) => r.rules.length);
    // Drop one rule's rows: the table has a rule with no row.
    const dropped = some[0]!.rules[0]!;
    const without = parse(doc.split('\n').filter((l) => !l.includes(`\`${dropped}\``)).join('\n'));
    assert.ok(!new Set(without.flatMap((r) => r.rules)).has(dropped));
    // A row that names a rule that does not exist, and one with another section.
    const line = doc.split('\n')[some[0]!.line - 1]!;
    const [bad] = parse(line.replace(`\`${dropped}\``, '`no-such-rule`'));
    assert.equal(ruleById(bad!.rules[0]!), undefined);
    const [moved] = parse(line.replace(`| ${some[0]!.section} |`, '| §99 |'));
    assert.notEqual(ruleById(dropped)!.section, moved!.section);
  });
});
