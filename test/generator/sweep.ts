/**
 * The oracle's sweep: conformant sessions must raise no warning/error/critical
 * finding; each mutation must raise a finding of its section and party (and
 * rule, when named) and no other error/critical one.
 */
import { runCapture } from '../support/run-capture.ts';
import { generateAbstract, type GenerateOptions } from './generate.ts';
import { encodeSession } from './encode.ts';
import { MUTATIONS, type Mutation } from './mutations.ts';
import { Rng } from './rng.ts';
import { TRANSPORTS, type AbsSession, type Transport } from './model.ts';

export interface FindingLike {
  rule: string;
  severity: string;
  section: string;
  party: string;
  message: string;
}

const short = (f: FindingLike) => ({ rule: f.rule, severity: f.severity, section: f.section, party: f.party, message: f.message });
const key = (f: FindingLike) => `${f.rule}|${f.party}|${f.message}`;

export interface FalseFinding {
  seed: number;
  live: boolean;
  finding: FindingLike;
  meta: string;
}

export function checkConformant(seed: number, opts: GenerateOptions = {}): FalseFinding[] {
  const model = generateAbstract(seed, opts);
  const messages = encodeSession(model);
  const out: FalseFinding[] = [];
  for (const live of [false, true]) {
    // The timers the session's runtime runs with are the user's setting (§7.5: "Configurable: Yes").
    const r = runCapture(messages, { live, timers: model.timers });
    for (const f of r.findings) if (f.severity !== 'info') out.push({ seed, live, finding: short(f), meta: metaLine(model) });
  }
  return out;
}

export function metaLine(s: AbsSession): string {
  return JSON.stringify({ seed: s.seed, clients: s.clients.map((c) => `${c.name}:${c.transport}${c.lateStart ? ':late' : ''}`), timers: s.timers, notes: s.notes, readings: s.readings });
}

export interface MutationOutcome {
  mutation: string;
  transport: Transport;
  seed: number;
  caught: boolean;
  /** What fired of the mutation's section and party. */
  matching: FindingLike[];
  /** New error/critical findings of another section or party (and not companions). */
  extra: FindingLike[];
  all: FindingLike[];
  applied: boolean;
}

/** Apply `m` to sessions of `transport` from `seed` on until it applies; run it; compare with the unmutated run. */
export function runMutation(m: Mutation, transport: Transport, seed: number, tries = 12, genOpts: GenerateOptions = {}): MutationOutcome {
  for (let k = 0; k < tries; k++) {
    const sd = seed + k * 7919;
    const base = generateAbstract(sd, { transport, durationMs: 60_000, ...genOpts });
    const mutated = m.apply(base, new Rng(sd ^ 0x5eed));
    if (!mutated) continue;
    const before = new Set(runCapture(encodeSession(base), { timers: base.timers }).findings.map(key));
    const after = runCapture(encodeSession(mutated), { timers: mutated.timers }).findings.filter((f) => !before.has(key(f))).map(short);
    const matching = after.filter((f) => f.section === m.section && f.party === m.party && (!m.expectRule || f.rule === m.expectRule));
    const extra = after.filter((f) => (f.severity === 'error' || f.severity === 'critical') && !(f.section === m.section && f.party === m.party) && !(m.companions ?? []).includes(f.rule));
    return { mutation: m.name, transport, seed: sd, caught: matching.length > 0 && extra.length === 0, matching, extra, all: after, applied: true };
  }
  return { mutation: m.name, transport, seed, caught: false, matching: [], extra: [], all: [], applied: false };
}

export interface SweepResult {
  sessions: number;
  falseErrors: number;
  falseErrorSamples: FalseFinding[];
  mutations: number;
  caught: number;
  missed: Array<{ mutation: string; transport: string; seed: number; applied: boolean; got: FindingLike[]; extra: FindingLike[] }>;
}

export function sweep({ sessions, seedBase = 1, transports = TRANSPORTS }: { sessions: number; seedBase?: number; transports?: readonly Transport[] }): SweepResult {
  const falseFindings: FalseFinding[] = [];
  for (let i = 0; i < sessions; i++) falseFindings.push(...checkConformant(seedBase + i));
  const errs = falseFindings.filter((f) => f.finding.severity === 'error' || f.finding.severity === 'critical');
  let n = 0;
  let caught = 0;
  const missed: SweepResult['missed'] = [];
  for (const m of MUTATIONS) {
    for (const t of transports) {
      const o = runMutation(m, t, seedBase + n);
      n++;
      if (!o.applied) continue;
      if (o.caught) caught++;
      else missed.push({ mutation: m.name, transport: t, seed: o.seed, applied: o.applied, got: o.all, extra: o.extra });
    }
  }
  return { sessions, falseErrors: errs.length, falseErrorSamples: [...errs, ...falseFindings.filter((f) => !errs.includes(f))].slice(0, 20), mutations: n, caught, missed };
}
