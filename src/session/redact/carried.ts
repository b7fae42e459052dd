/**
 * What a redacted recording carries beside its events (additive members of
 * the session file, `redaction` and `verdicts`; `log._ouiRedaction` and
 * `log._ouiVerdicts` of a HAR):
 *
 *   redaction: { marker, redacted: [{ event, pointer, rule }], counts, rules, unredacted? }
 *   verdicts:  { judged: "before-redaction", findings: [{ rule, severity, section, party, message, client, events, t }] }
 *
 * and how a linter puts the findings back together (`reconcile`).
 */
import type { Finding, Party, Severity } from '../model/model-types.ts';
import { REDACTED, REDACTION_RULES, type Redaction, type RedactionRule } from './redactor.ts';

export interface RedactionInfo {
  /** What a redacted string became (a number became 0). */
  marker: string;
  /** Every value replaced: event id (or client key), pointer, rule. Never the value. */
  redacted: Redaction[];
  counts: Record<RedactionRule, number>;
  /** The user's pointers applied (the rules by name are always on, unless listed in `off`). */
  pointers: string[];
  off?: RedactionRule[];
  /** Exported on purpose without redaction: nothing was replaced, and the file says so. */
  unredacted?: true;
}

export type CarriedFinding = Pick<Finding, 'rule' | 'severity' | 'section' | 'party' | 'message' | 'client' | 'events' | 't'> & { experiment?: true };

export interface CarriedVerdicts {
  judged: 'before-redaction';
  findings: CarriedFinding[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';
const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);
const MAX_LIST = 2_000_000;

/** `redaction` as read from an untrusted file, or undefined. */
export function readRedactionInfo(v: unknown): RedactionInfo | undefined {
  if (!isObj(v)) return undefined;
  const rules = new Set<string>(REDACTION_RULES);
  const redacted: Redaction[] = [];
  if (Array.isArray(v.redacted))
    for (const r of v.redacted.slice(0, MAX_LIST)) {
      if (!isObj(r) || !str(r.pointer) || !str(r.rule) || !rules.has(r.rule)) continue;
      if (str(r.record)) redacted.push({ record: r.record, pointer: r.pointer, rule: r.rule as RedactionRule });
      else if (str(r.event)) redacted.push({ event: r.event, pointer: r.pointer, rule: r.rule as RedactionRule });
      else if (str(r.client)) redacted.push({ client: r.client, pointer: r.pointer, rule: r.rule as RedactionRule });
    }
  const counts = { pointer: 0, schema: 0, key: 0, card: 0, echo: 0 } as Record<RedactionRule, number>;
  for (const r of redacted) counts[r.rule]++;
  const out: RedactionInfo = {
    marker: str(v.marker) ? v.marker : REDACTED,
    redacted,
    counts,
    pointers: Array.isArray(v.pointers) ? v.pointers.filter(str) : [],
  };
  if (Array.isArray(v.off)) out.off = v.off.filter((r): r is RedactionRule => str(r) && rules.has(r));
  if (v.unredacted === true) out.unredacted = true;
  return out;
}

/** `verdicts` as read from an untrusted file, or undefined. */
export function readVerdicts(v: unknown): CarriedVerdicts | undefined {
  if (!isObj(v) || !Array.isArray(v.findings)) return undefined;
  const findings: CarriedFinding[] = [];
  for (const f of v.findings.slice(0, MAX_LIST)) {
    if (!isObj(f) || !str(f.rule) || !str(f.severity) || !SEVERITIES.has(f.severity) || !str(f.section) || (f.party !== 'client' && f.party !== 'runtime')) continue;
    if (!str(f.message) || !str(f.client) || !Array.isArray(f.events) || !f.events.every(str) || typeof f.t !== 'number') continue;
    findings.push({ rule: f.rule, severity: f.severity as Severity, section: f.section, party: f.party as Party, message: f.message, client: f.client, events: f.events as string[], t: f.t, ...(f.experiment === true ? { experiment: true as const } : {}) });
  }
  return { judged: 'before-redaction', findings };
}

/** The findings of the capture before redaction, as a file carries them: messages scrubbed of the secrets they might echo. */
export function carryFindings(findings: Iterable<Finding>, scrub: (text: string) => string): CarriedVerdicts {
  const out: CarriedFinding[] = [];
  for (const f of findings)
    out.push({ rule: f.rule, severity: f.severity, section: f.section, party: f.party, message: scrub(f.message), client: scrub(f.client), events: [...f.events], t: f.t, ...(f.experiment ? { experiment: true as const } : {}) });
  return { judged: 'before-redaction', findings: out };
}

/**
 * Rules whose verdict on one event compares a hash of values another event
 * carries (a surfaces hash over registered surfaces, knownSurfaces against
 * the sets held, argsHash over params): a redacted value anywhere before can
 * change them, so on a redacted file their verdicts are the carried ones.
 */
export function dependsOnOtherValues(rule: string): boolean {
  return /hash|known-surfaces/.test(rule);
}

const keyOf = (f: { rule: string; events: readonly string[] }) => `${f.rule}\u0000${f.events.join('\u0001')}`;

export interface Reconciled<F> {
  findings: Array<F | CarriedFinding>;
  /** Judged findings left out: artefacts of the redaction (not among the carried ones). */
  setAside: number;
  /** Carried findings put back: judged before redaction, not found again on the redacted values. */
  restored: number;
}

/**
 * A redacted file's findings: what the linter judges on the redacted events,
 * except where redaction can change a verdict. There (a finding on an event
 * whose values were redacted, or of a rule that compares hashes of values
 * carried elsewhere) the verdicts judged before redaction stand: a judged
 * finding not among them is an artefact of the marker and is set aside; a
 * carried one not judged again is put back. Everywhere else the values are
 * the ones judged before, so judging again gives the same findings, and
 * judging them (rather than copying the carried list) keeps `--spec`,
 * `--timers` and `--rule` meaningful on a redacted file.
 */
export function reconcile<F extends { rule: string; events: readonly string[]; t: number }>(judged: readonly F[], carried: CarriedVerdicts, redactedEvents: ReadonlySet<string>): Reconciled<F> {
  const touches = (f: { rule: string; events: readonly string[] }) => dependsOnOtherValues(f.rule) || f.events.some((e) => redactedEvents.has(e));
  const carriedKeys = new Set(carried.findings.map(keyOf));
  const judgedKeys = new Set(judged.map(keyOf));
  const findings: Array<F | CarriedFinding> = [];
  let setAside = 0;
  let restored = 0;
  for (const f of judged) {
    if (touches(f) && !carriedKeys.has(keyOf(f))) setAside++;
    else findings.push(f);
  }
  for (const c of carried.findings)
    if (touches(c) && !judgedKeys.has(keyOf(c))) {
      findings.push(c);
      restored++;
    }
  findings.sort((a, b) => a.t - b.t);
  return { findings, setAside, restored };
}

/**
 * The findings a redacted recording stands by, from the findings judged on
 * its (redacted) values: reconciled with the verdicts it carries, or, when it
 * carries none, without what was judged on a marker (left out rather than
 * reported falsely). One reading for every reader of a file: the CLI's lint
 * and the panel's Import. `note` says what was done, for the reader to show.
 */
export function redactedFileFindings(
  judged: readonly Finding[],
  redaction: RedactionInfo | undefined,
  verdicts: CarriedVerdicts | undefined,
  redactedEvents: Set<string> = new Set(),
): { findings: Finding[]; note?: string } {
  if (!redaction) return { findings: [...judged] };
  if (redaction.unredacted) return { findings: [...judged], note: 'exported unredacted on purpose: this recording may hold secrets' };
  for (const r of redaction.redacted) if (r.event !== undefined) redactedEvents.add(r.event);
  const replaced = `${redaction.redacted.length} ${redaction.redacted.length === 1 ? 'value' : 'values'} replaced by ${redaction.marker}`;
  if (verdicts) {
    const r = reconcile(judged, verdicts, redactedEvents);
    let n = 0;
    return {
      findings: r.findings.map((f) => ('id' in f ? f : { ...f, id: `carried-${++n}` })),
      note: `a redacted recording (${replaced}): findings on redacted events are the ones judged before redaction (${r.restored} put back, ${r.setAside} judged on the markers set aside)`,
    };
  }
  if (!redaction.redacted.length) return { findings: [...judged] };
  const kept = judged.filter((f) => !f.events.some((e) => redactedEvents.has(e)) && !dependsOnOtherValues(f.rule));
  const left = judged.length - kept.length;
  return {
    findings: kept,
    note: `a redacted recording (${replaced}) that carries no verdicts judged before redaction: ${left} ${left === 1 ? 'finding' : 'findings'} on redacted events or on hashes of their values left out (redact with the panel's Export or \`oui-devtools redact\` to carry them)`,
  };
}
