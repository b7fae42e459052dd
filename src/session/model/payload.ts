/**
 * The protocol core as the model uses it: `parsePayload` reads every OUI
 * event (a guarded JSON copy, mistyped optional fields left out), and
 * `validateJson` gives schema verdicts. A schema the validator cannot use is
 * reported as unusable, not as a verdict on the value.
 */
import { parsePayload, validateJson, type Problem } from '../../protocol/index.ts';

export type PayloadProblem = Problem;

export type ReadPayload =
  | { ok: true; payload: Record<string, unknown>; problems: PayloadProblem[] }
  | { ok: false; extension: boolean; problems: PayloadProblem[] };

export function readPayload(type: string, payload: unknown): ReadPayload {
  const r = parsePayload(type, payload);
  if (!r.ok) return { ok: false, extension: r.extension !== undefined, problems: r.problems };
  return { ok: true, payload: r.event.payload as unknown as Record<string, unknown>, problems: r.problems };
}

export interface Verdict {
  valid: boolean;
  errors: Array<{ pointer: string; message: string }>;
  /** The schema could not be used: no verdict on the value. */
  unusable?: string;
}

const SCHEMA_ERROR = 'schema error:';

export function validate(value: unknown, schema: unknown): Verdict {
  if (schema === undefined) return { valid: true, errors: [], unusable: 'no schema' };
  const r = validateJson(value, schema);
  const broken = r.errors.find((e) => e.pointer === '' && e.message.startsWith(SCHEMA_ERROR));
  if (broken) return { valid: true, errors: [], unusable: broken.message };
  return { valid: r.valid, errors: r.errors.map((e) => ({ pointer: e.pointer, message: e.message })) };
}

/** The first errors of a verdict, in one line. */
export function errorsLine(v: Verdict, max = 3): string {
  const parts = v.errors.slice(0, max).map((e) => `${e.pointer || '/'} ${e.message}`);
  if (v.errors.length > max) parts.push(`${v.errors.length - max} more`);
  return parts.join('; ');
}
