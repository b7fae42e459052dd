/**
 * The independent oracle: conformant sessions generated from the OUI texts
 * (test/generator, written without reading the session model) must raise no
 * finding above info; every single mutation must raise a finding of its
 * section and party (and rule, when named) and no other error. Reproduce one
 * seed with: OUI_GEN_SEED=<seed> node --import tsx --test test/unit/conformance-generated.test.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConformant, metaLine, runMutation } from '../generator/sweep.ts';
import { MUTATIONS } from '../generator/mutations.ts';
import { TRANSPORTS } from '../generator/model.ts';
import { generateAbstract } from '../generator/generate.ts';
import { argsHash, surfacesHash } from '../generator/hashes.ts';
import { loadVectors } from '../support/vectors.ts';

const N = Number(process.env.OUI_GEN_SESSIONS ?? 150);
const ONE = process.env.OUI_GEN_SEED ? Number(process.env.OUI_GEN_SEED) : undefined;
const SEEDS = ONE !== undefined ? [ONE] : Array.from({ length: N }, (_, i) => i + 1);

function dump(seed: number): string {
  const s = generateAbstract(seed);
  const lines: string[] = [metaLine(s)];
  for (const c of s.clients) {
    for (const e of c.events.slice(0, 400)) {
      const tag = e.tag ? JSON.stringify({ ...e.tag, surfaces: undefined, observations: undefined }) : '';
      lines.push(`  ${c.name} +${(e.t - s.t0).toFixed(1)} ${e.dir} ${e.kind} ${e.type ?? ''} ${tag}${e.kind === 'ack' ? ' ' + JSON.stringify(e.payload) : ''}`);
    }
  }
  return lines.join('\n');
}

test("the oracle's own hashes (not the product's) agree with every published vector", () => {
  const surfaces = loadVectors<{ name: string; surfaces: string; surfacesHash: string }>('surfaces-hash-vectors.json');
  const args = loadVectors<{ name: string; params: string; argsHash: string }>('args-hash-vectors.json');
  assert.ok(surfaces.length > 0 && args.length > 0);
  for (const v of surfaces) assert.equal(surfacesHash(JSON.parse(v.surfaces)), v.surfacesHash, v.name);
  for (const v of args) assert.equal(argsHash(JSON.parse(v.params)), v.argsHash, v.name);
});

test(`conformant generated sessions raise nothing above info (${SEEDS.length} seeds, live and not)`, () => {
  const bad = SEEDS.flatMap((seed) => checkConformant(seed));
  if (bad.length) {
    const byRule = new Map<string, typeof bad>();
    for (const b of bad) byRule.set(`${b.finding.severity} ${b.finding.rule}`, [...(byRule.get(`${b.finding.severity} ${b.finding.rule}`) ?? []), b]);
    const report = [...byRule].map(([k, v]) => `${k}: ${v.length}× e.g. seed ${v[0]!.seed}${v[0]!.live ? ' (live)' : ''}: ${v[0]!.finding.message}\n    ${v[0]!.meta}`).join('\n');
    const first = bad.find((b) => b.finding.severity === 'error' || b.finding.severity === 'critical') ?? bad[0]!;
    if (process.env.OUI_GEN_DUMP) console.log(dump(first.seed));
    assert.fail(`false findings on conformant sessions:\n${report}\n(OUI_GEN_DUMP=1 to print the session of seed ${first.seed})`);
  }
});

for (const m of MUTATIONS) {
  test(`mutation: ${m.name} → ${m.expectRule ?? '(any rule)'} ${m.section} ${m.party}`, () => {
    const problems: string[] = [];
    let applied = 0;
    TRANSPORTS.forEach((t, i) => {
      const o = runMutation(m, t, (ONE ?? 1000) + i * 101);
      if (!o.applied) return;
      applied++;
      if (!o.caught) {
        problems.push(
          `${t} seed ${o.seed}: ${o.matching.length ? '' : `no finding of ${m.section}/${m.party}${m.expectRule ? '/' + m.expectRule : ''}; `}` +
            `${o.extra.length ? `other errors: ${o.extra.map((f) => `${f.rule}(${f.section}/${f.party})`).join(', ')}; ` : ''}` +
            `new findings: ${o.all.map((f) => `${f.severity} ${f.rule} ${f.section}/${f.party}: ${f.message}`).join(' | ') || 'none'}`,
        );
      }
    });
    if (!applied) assert.fail(`mutation never applied (no spot in the sessions tried)`);
    if (problems.length) assert.fail(`sentence: ${m.sentence}\n${problems.join('\n')}`);
  });
}
