/**
 * A HAR redacted as a file that travels: its values redacted (har.ts), the
 * list of what was replaced and the verdicts judged before redaction in its
 * `log` ahead of the entries (a linter reading the HAR as a stream knows
 * which records were redacted as it reaches them). The verdicts are the
 * ones the HAR carries when it was redacted before, else what lint judges of
 * it now: lint names a HAR's events by their place in the file, so only
 * lint's own findings can stand for them. `oui-devtools redact` and the
 * panel's HAR export both write it.
 */
import { stringifyJson } from '../../protocol/json-text.ts';
import { lintRecording } from '../lint/lint-stream.ts';
import { readRedactionInfo, readVerdicts, type RedactionInfo } from './carried.ts';
import { redactHar } from './har.ts';
import type { RedactOptions } from './redactor.ts';
import { mergeInfo, verdictsFor } from './session.ts';

export interface RedactedHarFile {
  text: string;
  info: RedactionInfo;
  /** The findings judged before redaction that the file carries. */
  carried: number;
}

/** `text` is the HAR as JSON text, `har` the same parsed. Throws lint's InputError / ScanError for a HAR lint cannot read. */
export async function redactHarFile(har: unknown, text: string, opts: RedactOptions): Promise<RedactedHarFile> {
  const log0 = ((har as { log?: unknown }).log ?? {}) as Record<string, unknown>;
  const carriedBefore = readVerdicts(log0._ouiVerdicts);
  const findings = carriedBefore ?? (await lintRecording([text])).findings;
  const r = redactHar(har, opts);
  const log = (r.har as { log: Record<string, unknown> }).log;
  const info = mergeInfo(readRedactionInfo(log0._ouiRedaction), r.info);
  const verdicts = verdictsFor(findings, r.scrub);
  const { entries, _ouiRedaction: _a, _ouiVerdicts: _b, ...rest } = log;
  (r.har as { log: unknown }).log = { ...rest, _ouiRedaction: info, _ouiVerdicts: verdicts, entries };
  return { text: String(stringifyJson(r.har)), info: r.info, carried: verdicts.findings.length };
}
