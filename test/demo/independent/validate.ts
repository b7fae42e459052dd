/**
 * JSON Schema validation of params (§4.1 `input`, §7.3.1 "the surface MUST
 * validate upon receipt") and results (`output`), with Ajv: an implementation
 * independent of the product's (@cfworker/json-schema). Ajv compiles
 * validators to code with `new Function`; the demo page is a test page served
 * without a Content-Security-Policy (test/demo/server.ts), so that is allowed
 * here. The extension itself never loads this.
 *
 * Draft 2020-12 unless the schema names draft-07 (or -06) in `$schema`.
 * `format` is an annotation (2020-12), not checked. Validators are cached
 * per schema object. Never throws: an uncompilable schema is one error.
 */
import Ajv2020Import from 'ajv/dist/2020.js';
import AjvImport from 'ajv';

export interface ValidationError {
  /** JSON pointer (RFC 6901) into the value; '' is the value itself. */
  pointer: string;
  message: string;
  keyword?: string;
}
export interface Validation {
  valid: boolean;
  errors: ValidationError[];
}

type AjvLike = { compile(schema: object): ValidateFn };
type ValidateFn = ((value: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string; keyword: string; params?: Record<string, unknown> }> | null };
type AjvCtor = new (opts: object) => AjvLike;

// ajv is CommonJS with `exports.default`; bundlers and Node disagree on which one a default import is.
const ctor = (m: unknown): AjvCtor => ((m as { default?: unknown }).default ?? m) as AjvCtor;
const options = { allErrors: true, strict: false, validateFormats: false };
let draft2020: AjvLike | undefined;
let draft7: AjvLike | undefined;

const cache = new WeakMap<object, ValidateFn | { error: string }>();

function compile(schema: object): ValidateFn | { error: string } {
  const hit = cache.get(schema);
  if (hit) return hit;
  const named = (schema as { $schema?: unknown }).$schema;
  const old = typeof named === 'string' && /draft-0[67]/.test(named);
  let out: ValidateFn | { error: string };
  try {
    const ajv = old ? (draft7 ??= new (ctor(AjvImport))(options)) : (draft2020 ??= new (ctor(Ajv2020Import))(options));
    out = ajv.compile(schema);
  } catch (e) {
    out = { error: e instanceof Error ? e.message : String(e) };
  }
  cache.set(schema, out);
  return out;
}

/** Compile a schema ahead of its first use (a client does it when a surface is defined), so validating on receipt is quick. */
export function precompile(schema: unknown): void {
  if (typeof schema === 'object' && schema !== null) compile(schema);
}

export function validate(value: unknown, schema: unknown): Validation {
  if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
  if (typeof schema !== 'object' || schema === null) return { valid: false, errors: [{ pointer: '', message: 'schema error: not a schema' }] };
  if (value === undefined) return { valid: false, errors: [{ pointer: '', message: 'no value (undefined is not JSON)' }] };
  const fn = compile(schema);
  if ('error' in fn) return { valid: false, errors: [{ pointer: '', message: `schema error: ${fn.error}` }] };
  if (fn(value)) return { valid: true, errors: [] };
  const errors = (fn.errors ?? []).map((e) => {
    const allowed = e.keyword === 'enum' ? e.params?.allowedValues : undefined;
    const message = Array.isArray(allowed) ? `must be one of ${JSON.stringify(allowed)}` : (e.message ?? e.keyword);
    return { pointer: e.instancePath, message, keyword: e.keyword };
  });
  return { valid: false, errors: errors.length ? errors : [{ pointer: '', message: 'does not match the schema' }] };
}
