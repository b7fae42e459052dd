/**
 * The protocol core as the model uses it: `parsePayload` reads every OUI
 * event (a guarded JSON copy, mistyped optional fields left out), and
 * `validateJson` gives schema verdicts. A schema the validator cannot use is
 * reported as unusable, not as a verdict on the value; so is a schema whose
 * copy was cut at the parser's depth cap. A value whose copy was cut gets
 * the verdicts its copy proves and no other (the event's own problem says
 * where it was cut).
 */
import { MAX_CLONE_DEPTH, TRUNCATED_DEPTH, TRUNCATED_SIZE, isIncomplete, parsePayload, validateJson, type Problem, type SchemaError } from '../../protocol/index.ts';

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
  // A schema cut at the parser's depth cap is not the one declared (its registration says it was cut).
  if (isIncomplete(schema)) return { valid: true, errors: [], unusable: `the schema is nested more than ${MAX_CLONE_DEPTH} levels deep (or too large) to use` };
  const r = validateJson(value, schema);
  const broken = r.errors.find((e) => e.pointer === '' && e.message.startsWith(SCHEMA_ERROR));
  if (broken) return { valid: true, errors: [], unusable: broken.message };
  if (!isIncomplete(value)) return { valid: r.valid, errors: r.errors.map((e) => ({ pointer: e.pointer, message: e.message })) };
  // A value whose copy was cut (its event says so): what the copy proves wrong stands; the rest gets no verdict either way.
  const proven = r.errors.filter((e) => provenOnCopy(value, e));
  if (proven.length) return { valid: false, errors: proven.map((e) => ({ pointer: e.pointer, message: e.message })) };
  return { valid: true, errors: [], unusable: `the value is nested more than ${MAX_CLONE_DEPTH} levels deep (or too large) to check whole` };
}

/** Keywords that judge a value by its own kind and member names, which a cut copy keeps. */
const SHAPE_KEYWORDS = new Set(['type', 'required', 'minProperties', 'maxProperties', 'dependentRequired']);

/**
 * Whether a schema error on a cut copy holds for the value as sent: it is
 * about a scalar that was sent (not a cut marker), about a container copied
 * whole, or about what a cut container still shows of itself (its kind, its
 * member names).
 */
function provenOnCopy(copy: unknown, e: SchemaError): boolean {
  let v: unknown = copy;
  if (e.pointer !== '') {
    for (const raw of e.pointer.slice(1).split('/')) {
      if (v === null || typeof v !== 'object') return false;
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (!Object.prototype.hasOwnProperty.call(v, seg)) return false;
      v = (v as Record<string, unknown>)[seg];
    }
  }
  if (v === TRUNCATED_DEPTH || v === TRUNCATED_SIZE) return false;
  return !isIncomplete(v) || (e.keyword !== undefined && SHAPE_KEYWORDS.has(e.keyword));
}

/** The first errors of a verdict, in one line. */
export function errorsLine(v: Verdict, max = 3): string {
  const parts = v.errors.slice(0, max).map((e) => `${e.pointer || '/'} ${e.message}`);
  if (v.errors.length > max) parts.push(`${v.errors.length - max} more`);
  return parts.join('; ');
}
