/**
 * The rules against the independent oracle, at scale: conformant sessions
 * generated from the spec texts alone (test/generator) run through the one
 * model the panel, the lint and the fixture share, and every single mutation
 * of the catalogue on every transport over several rounds of seeds. Figures,
 * not assertions; written to bench/conformance-results.json.
 *
 *   node --import tsx bench/conformance.ts [--sessions 1500] [--rounds 4]
 *
 * Goals: 0 false errors (error or critical on a conformant session), 0
 * warnings there either, and every applied mutation caught at its section on
 * its party with no other error.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkConformant, runMutation, type FalseFinding } from '../test/generator/sweep.ts';
import { MUTATIONS } from '../test/generator/mutations.ts';
import { TRANSPORTS } from '../test/generator/model.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

const SESSIONS = arg('sessions', 1500);
/** Seeds far from the unit test's (1…30, 1000…), so the bench sees sessions the tests never did. */
const SEED_BASE = 100_000;
const ROUNDS = arg('rounds', 4);

const t0 = performance.now();
const falseFindings: FalseFinding[] = [];
for (let i = 0; i < SESSIONS; i++) falseFindings.push(...checkConformant(SEED_BASE + i));
const sessionsMs = Math.round(performance.now() - t0);
const falseErrors = falseFindings.filter((f) => f.finding.severity === 'error' || f.finding.severity === 'critical');

const t1 = performance.now();
let applied = 0;
let caught = 0;
let notApplied = 0;
const missed: Array<{ mutation: string; transport: string; seed: number; got: string[]; extra: string[] }> = [];
const perMutation: Record<string, { applied: number; caught: number }> = {};
for (let round = 0; round < ROUNDS; round++) {
  MUTATIONS.forEach((m, mi) => {
    TRANSPORTS.forEach((t, ti) => {
      const o = runMutation(m, t, SEED_BASE + 7 * (round * 10_000 + mi * 101 + ti));
      const tally = (perMutation[m.name] ??= { applied: 0, caught: 0 });
      if (!o.applied) {
        notApplied++;
        return;
      }
      applied++;
      tally.applied++;
      if (o.caught) {
        caught++;
        tally.caught++;
      } else {
        missed.push({
          mutation: m.name,
          transport: t,
          seed: o.seed,
          got: o.matching.map((f) => `${f.rule} ${f.section}/${f.party}`),
          extra: o.extra.map((f) => `${f.severity} ${f.rule} ${f.section}/${f.party}: ${f.message}`),
        });
      }
    });
  });
}
const mutationsMs = Math.round(performance.now() - t1);

const results = {
  date: new Date().toISOString(),
  sessions: SESSIONS,
  sessionRuns: SESSIONS * 2,
  falseErrors: falseErrors.length,
  falseWarningsOrInfoAboveInfo: falseFindings.length - falseErrors.length,
  falseSamples: falseFindings.slice(0, 10).map((f) => ({ seed: f.seed, live: f.live, rule: f.finding.rule, severity: f.finding.severity, message: f.finding.message })),
  mutationKinds: MUTATIONS.length,
  transports: TRANSPORTS.length,
  rounds: ROUNDS,
  mutationsApplied: applied,
  mutationsCaught: caught,
  mutationsNotApplicable: notApplied,
  missed: missed.slice(0, 30),
  perMutation,
  ms: { sessions: sessionsMs, mutations: mutationsMs },
};
const out = fileURLToPath(new URL('./conformance-results.json', import.meta.url));
writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
console.log(
  `conformance sweep: ${SESSIONS} generated sessions (×2: live and replayed) in ${(sessionsMs / 1000).toFixed(1)} s: ` +
    `${falseErrors.length} false errors, ${results.falseWarningsOrInfoAboveInfo} false warnings; ` +
    `${caught}/${applied} mutations caught (${MUTATIONS.length} kinds × ${TRANSPORTS.length} transports × ${ROUNDS} rounds, ${notApplied} found no spot) in ${(mutationsMs / 1000).toFixed(1)} s`,
);
for (const m of missed.slice(0, 10)) console.log(`  missed: ${m.mutation} on ${m.transport} (seed ${m.seed}): ${m.extra.join('; ') || 'no finding of its section/party'}`);
