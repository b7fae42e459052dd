/**
 * Redacting a whole recording: a session file (what the panel's Export and
 * the fixture's attachment write) or the events and clients a HAR export
 * takes. Two passes: the first learns every secret value, so that an echo of
 * one before the event that carries it is found too; the second writes.
 */
import type { Finding } from '../model/model-types.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';
import { exportSession, type SessionFile } from '../wire/session-file.ts';
import { carryFindings, type CarriedVerdicts, type RedactionInfo } from './carried.ts';
import { REDACTED, Redactor, type RedactOptions } from './redactor.ts';

export interface Redacted {
  clients: WireClient[];
  events: WireEvent[];
  info: RedactionInfo;
  /** Scrubs a text of every secret the recording holds (messages, copies). */
  scrub: (text: string) => string;
  redactor: Redactor;
}

export function redactRecording(clients: Iterable<WireClient>, events: Iterable<WireEvent>, opts: RedactOptions = {}): Redacted {
  const cs = [...clients];
  const es = [...events];
  const first = new Redactor(opts);
  for (const c of cs) first.client(c);
  for (const e of es) first.event(e);
  const r = new Redactor(opts, first.secrets);
  const outClients = cs.map((c) => r.client(c));
  const outEvents = es.map((e) => r.event(e));
  return { clients: outClients, events: outEvents, info: infoOf(r, opts), scrub: (t) => r.scrub(t), redactor: r };
}

export function infoOf(r: Redactor, opts: RedactOptions): RedactionInfo {
  return {
    marker: REDACTED,
    redacted: r.redactions,
    counts: { ...r.counts },
    pointers: (opts.pointers ?? []).map((p) => (p.origin ? `${p.origin}=${p.pointer}` : p.pointer)),
    ...(opts.off?.length ? { off: [...opts.off] } : {}),
  };
}

/** The verdicts a redacted file carries: the findings judged on the values before redaction (carried as they came when the input carried some already). */
export function verdictsFor(findings: Iterable<Finding> | CarriedVerdicts, scrub: (t: string) => string): CarriedVerdicts {
  if (!(Symbol.iterator in (findings as object))) {
    const v = findings as CarriedVerdicts;
    return { judged: 'before-redaction', findings: v.findings.map((f) => ({ ...f, message: scrub(f.message), client: scrub(f.client) })) };
  }
  return carryFindings(findings as Iterable<Finding>, scrub);
}

/** Merges the list of a file redacted before with this pass's (a redacted file redacted again, with more pointers). */
export function mergeInfo(before: RedactionInfo | undefined, now: RedactionInfo): RedactionInfo {
  if (!before || before.unredacted) return now;
  const redacted = [...before.redacted, ...now.redacted];
  const counts = { ...before.counts };
  for (const [k, n] of Object.entries(now.counts)) counts[k as keyof typeof counts] += n;
  return { ...now, redacted, counts, pointers: [...new Set([...before.pointers, ...now.pointers])] };
}

/**
 * A session file redacted whole (what the Playwright fixture attaches): its
 * events and clients redacted, the list, and the verdicts judged before.
 */
export function redactSessionFile(file: SessionFile, findings: Iterable<Finding>, opts: RedactOptions = {}): SessionFile {
  const r = redactRecording(file.clients, file.events, opts);
  const out = exportSession(r.clients, r.events, new Date(), { redaction: mergeInfo(file.redaction, r.info), verdicts: verdictsFor(file.verdicts ?? findings, r.scrub) });
  if (file.exportedAt) out.exportedAt = file.exportedAt;
  return out;
}

/** A session file exported unredacted on purpose: it says so (`redaction.unredacted`). */
export function unredactedSessionFile(file: SessionFile): SessionFile {
  const out = exportSession(file.clients, file.events, new Date(), { redaction: { marker: REDACTED, redacted: [], counts: { pointer: 0, schema: 0, key: 0, card: 0, echo: 0 }, pointers: [], unredacted: true }, ...(file.verdicts ? { verdicts: file.verdicts } : {}) });
  if (file.exportedAt) out.exportedAt = file.exportedAt;
  return out;
}
