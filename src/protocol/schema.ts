/**
 * JSON Schema validation of params (§4.1 `input`), results (`output`) and
 * observation values (§5.1 `schema`), with @cfworker/json-schema: no eval,
 * no `new Function`, so it runs under the MV3 extension CSP.
 *
 * Draft: 2020-12 by default (the OUI `JSONSchema` subset reads the same in
 * draft 7 and 2020-12, and 2020-12 is what current tooling emits). A schema
 * that names its draft in `$schema` (draft-04, draft-07, 2019-09, 2020-12) is
 * validated as that draft.
 *
 * Never throws: a malformed schema (an invalid `pattern`, an unresolvable
 * `$ref`, a cycle, …) comes back as one error at pointer '' whose message
 * starts with "schema error:". Validators are cached per schema object
 * (WeakMap); the schema is copied before cfworker sees it, since cfworker
 * annotates the schema objects it is given.
 *
 * Patterns run in linear time (RE2, see linear-regexp.ts): a page's
 * catastrophic `pattern` cannot freeze the panel. A schema whose pattern RE2
 * cannot express (lookaround, backreferences) is refused as a schema error,
 * never run by the backtracking engine.
 *
 * Pure: no DOM, no extension API, no Node APIs.
 */

import { Validator, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { linearRegExpError, withLinearRegExp } from './linear-regexp.ts';
import { escapePointerSegment } from './canonical.ts';

export interface SchemaError {
  /** JSON pointer (RFC 6901) into the validated value; '' is the value itself. */
  pointer: string;
  message: string;
  /** The schema keyword that failed, when there is one. */
  keyword?: string;
}

export interface SchemaValidation {
  valid: boolean;
  errors: SchemaError[];
}

export const DEFAULT_SCHEMA_DRAFT: SchemaDraft = '2020-12';

type Cached = { validator: Validator; root: unknown } | { error: string };

const cache = new WeakMap<object, Cached>();

function messageOf(e: unknown): string {
  try {
    if (e instanceof RangeError) return 'nested too deeply';
    if (e instanceof Error) return (String(e.message).split('\n')[0] ?? '').split('  ')[0] ?? '';
    return String(e);
  } catch {
    return 'unprintable error';
  }
}

function draftOf(schema: unknown): SchemaDraft {
  if (typeof schema !== 'object' || schema === null) return DEFAULT_SCHEMA_DRAFT;
  const s = (schema as { $schema?: unknown }).$schema;
  if (typeof s !== 'string') return DEFAULT_SCHEMA_DRAFT;
  if (s.includes('draft-04')) return '4';
  if (s.includes('draft-07') || s.includes('draft-06')) return '7';
  if (s.includes('2019-09')) return '2019-09';
  return DEFAULT_SCHEMA_DRAFT;
}

/**
 * `format` is an annotation, not an assertion, unless a vocabulary says
 * otherwise (2019-09 and 2020-12; draft 7 leaves it to the implementation):
 * a value another validator accepts must not be a finding here because
 * cfworker's email or URI check is stricter. So formats are left out of the
 * private copy before it is compiled. Bounded, like every walk of page data.
 */
function dropFormats(schema: unknown): void {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: schema, depth: 0 }];
  let visited = 0;
  while (stack.length > 0 && visited++ < 100_000) {
    const { v, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null || depth > 256) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push({ v: x, depth: depth + 1 });
      continue;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.format === 'string') delete o.format;
    for (const k of Object.keys(o)) if (!DATA_KEYWORDS.has(k)) stack.push({ v: o[k], depth: depth + 1 });
  }
}

function build(schema: unknown): Cached {
  try {
    if (typeof schema === 'boolean') return { validator: new Validator(schema, DEFAULT_SCHEMA_DRAFT, false), root: schema };
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return { error: `a schema must be an object or a boolean (got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema})` };
    }
    // A private copy: cfworker defines properties on the schema objects it walks.
    const copy = JSON.parse(JSON.stringify(schema)) as Schema;
    dropFormats(copy);
    const [badPattern] = patternProblems(copy, 1);
    if (badPattern) return { error: badPattern.message };
    return { validator: new Validator(copy, draftOf(copy), false), root: copy };
  } catch (e) {
    return { error: messageOf(e) };
  }
}

/** Keywords whose values are data, not schemas: never searched for patterns. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/** A `pattern` or `patternProperties` name that cannot run here, and whether it is an ECMA-262 regular expression all the same. */
export interface PatternProblem {
  /** JSON pointer into the schema. */
  path: string;
  message: string;
  /**
   * It compiles as ECMA-262 (with or without unicode mode), as JSON Schema
   * asks, but cannot run in linear time (a lookaround, a backreference): the
   * schema is valid, this validator just cannot check it.
   */
  ecma: boolean;
}

/**
 * Every `pattern` and `patternProperties` name that cannot run here, up to
 * `max`, found up front (cfworker would only throw on the first string it
 * tests). `const`, `enum`, `default` and examples are data, not schema.
 * Bounded walk.
 */
export function patternProblems(schema: unknown, max = 5, base = ''): PatternProblem[] {
  const out: PatternProblem[] = [];
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: schema, path: base, depth: 0 }];
  let visited = 0;
  while (stack.length > 0 && visited++ < 50_000 && out.length < max) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null || depth > 256) continue;
    if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, path: `${path}/${i}`, depth: depth + 1 }));
      continue;
    }
    for (const k of Object.keys(v)) {
      const c = (v as Record<string, unknown>)[k];
      const at = `${path}/${escapePointerSegment(k)}`;
      if (k === 'pattern' && typeof c === 'string') {
        const p = patternProblem(c, at, `pattern at ${at}`);
        if (p) out.push(p);
      } else if (k === 'patternProperties' && typeof c === 'object' && c !== null && !Array.isArray(c)) {
        for (const name of Object.keys(c)) {
          const p = patternProblem(name, `${at}/${escapePointerSegment(name)}`, `patternProperties name at ${at}`);
          if (p) out.push(p);
        }
      }
      if (!DATA_KEYWORDS.has(k) && typeof c === 'object' && c !== null) stack.push({ v: c, path: at, depth: depth + 1 });
    }
  }
  return out;
}

function patternProblem(source: string, path: string, what: string): PatternProblem | null {
  try {
    new RegExp(source, 'u');
  } catch (e) {
    return { path, message: `invalid ${what}: ${messageOf(e)}`, ecma: compiles(source) };
  }
  const linear = linearRegExpError(source);
  return linear ? { path, message: `invalid ${what}: ${JSON.stringify(source)} cannot run in linear time (${linear}); not checked`, ecma: true } : null;
}

/** Whether `source` compiles as an ECMA-262 regular expression without unicode mode. */
function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function getValidator(schema: unknown): Cached {
  if (typeof schema !== 'object' || schema === null) return build(schema);
  let c: Cached | undefined;
  try {
    c = cache.get(schema);
  } catch {
    c = undefined;
  }
  if (c === undefined) {
    c = build(schema);
    try {
      cache.set(schema, c);
    } catch {
      /* not cacheable: fine */
    }
  }
  return c;
}

/** `#/a%20b/0` (cfworker's URI-fragment form) → `/a b/0`. */
function toPointer(fragment: string): string {
  let p = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep it encoded */
  }
  return p;
}

function lastSegment(pointer: string): string {
  const i = pointer.lastIndexOf('/');
  const seg = i === -1 ? pointer : pointer.slice(i + 1);
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Walks a pointer (keyword location) through the schema copy; undefined across $refs. */
function schemaAt(root: unknown, keywordLocation: string): unknown {
  const p = toPointer(keywordLocation);
  if (p === '') return root;
  let cur: unknown = root;
  for (const raw of p.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** Keywords whose error only says "something below failed": dropped when what failed below is listed. */
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  'if',
  'dependentSchemas',
  'dependencies',
]);

/** Keywords whose error sums up alternatives: kept, and the alternatives' own errors dropped. */
const SUMMARIES = new Set(['anyOf', 'oneOf', 'propertyNames']);

const PROPERTY_WRAPPERS = new Set(['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties']);

function clean(msg: string): string {
  let m = msg.trim();
  if (m.endsWith('.')) m = m.slice(0, -1);
  m = m.replace(/^Instance\b/, 'value');
  return m.charAt(0).toLowerCase() + m.slice(1);
}

function lastNumber(msg: string): string | undefined {
  const all = msg.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi);
  return all ? all[all.length - 1] : undefined;
}

/** A readable message for one cfworker output unit. */
function readable(u: OutputUnit, root: unknown, falseContext: OutputUnit | null): string {
  const msg = String(u.error ?? '');
  let m: RegExpMatchArray | null;
  switch (u.keyword) {
    case 'false': {
      if (falseContext && PROPERTY_WRAPPERS.has(falseContext.keyword)) {
        return `property "${lastSegment(toPointer(u.instanceLocation))}" is not allowed`;
      }
      if (falseContext) return `item ${lastSegment(toPointer(u.instanceLocation))} is not allowed`;
      return 'no value is allowed here (the schema is false)';
    }
    case 'type':
      if ((m = msg.match(/^Instance type "(.*)" is invalid\. Expected "(.*)"\.$/))) {
        return `expected ${m[2]!.split('", "').join(' or ')}, got ${m[1]}`;
      }
      break;
    case 'required':
      if ((m = msg.match(/required property "(.*)"/))) return `missing required property "${m[1]}"`;
      break;
    case 'const':
      if ((m = msg.match(/^Instance does not match (.*)\.$/))) return `must be ${m[1]}`;
      break;
    case 'enum':
      if ((m = msg.match(/^Instance does not match any of (.*)\.$/))) return `must be one of ${m[1]}`;
      break;
    case 'not':
      return 'must not match the "not" schema';
    case 'anyOf':
      return 'matches none of the "anyOf" alternatives';
    case 'oneOf':
      if ((m = msg.match(/\((\d+) matches\)/))) return `must match exactly one "oneOf" alternative (matches ${m[1]})`;
      break;
    case 'propertyNames':
      if ((m = msg.match(/^Property name "(.*)" does not match schema\.$/))) return `property name "${m[1]}" is not allowed by "propertyNames"`;
      break;
    case 'minProperties':
      return `must have at least ${lastNumber(msg)} properties`;
    case 'maxProperties':
      return `must have at most ${lastNumber(msg)} properties`;
    case 'dependentRequired':
    case 'dependencies':
      if ((m = msg.match(/^Instance has "(.*)" but does not have "(.*)"\.$/))) return `property "${m[1]}" requires property "${m[2]}"`;
      break;
    case 'minItems':
      if ((m = msg.match(/\((\d+) < (\d+)\)/))) return `must have at least ${m[2]} items (has ${m[1]})`;
      break;
    case 'maxItems':
      if ((m = msg.match(/\((\d+) > (\d+)\)/))) return `must have at most ${m[2]} items (has ${m[1]})`;
      break;
    case 'minLength':
      if ((m = msg.match(/\((\d+) < (\d+)\)/))) return `must be at least ${m[2]} characters long (is ${m[1]})`;
      break;
    case 'maxLength':
      if ((m = msg.match(/\((\d+) > (\d+)\)/))) return `must be at most ${m[2]} characters long (is ${m[1]})`;
      break;
    case 'uniqueItems':
      if ((m = msg.match(/indexes (\d+) and (\d+)/))) return `items ${m[1]} and ${m[2]} are equal (uniqueItems)`;
      break;
    case 'minimum':
      return `must be ${/or equal to/.test(msg) ? '>' : '>='} ${lastNumber(msg)}`;
    case 'maximum':
      return `must be ${/or equal to/.test(msg) ? '<' : '<='} ${lastNumber(msg)}`;
    case 'exclusiveMinimum':
      return `must be > ${lastNumber(msg)}`;
    case 'exclusiveMaximum':
      return `must be < ${lastNumber(msg)}`;
    case 'multipleOf':
      return `must be a multiple of ${lastNumber(msg)}`;
    case 'pattern': {
      const pat = schemaAt(root, u.keywordLocation);
      return typeof pat === 'string' ? `does not match the pattern ${JSON.stringify(pat)}` : 'does not match the pattern';
    }
    case 'format':
      if ((m = msg.match(/format "(.*)"/))) return `is not a valid "${m[1]}"`;
      break;
    case 'contains':
      return 'contains no item matching the "contains" schema';
    default:
      break;
  }
  return clean(msg);
}

/** cfworker's output → pointer + message, wrappers that only say "below failed" dropped. */
function simplify(units: readonly OutputUnit[], root: unknown): SchemaError[] {
  const out: SchemaError[] = [];
  const seen = new Set<string>();
  const push = (pointer: string, message: string, keyword: string): void => {
    if (keyword === 'false' && ctxKeyword) keyword = ctxKeyword;
    const key = pointer + '\u0000' + message;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ pointer, message, keyword });
  };
  let falseContext: OutputUnit | null = null;
  let ctxKeyword: string | null = null;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    const ctx = falseContext;
    ctxKeyword = ctx ? ctx.keyword : null;
    falseContext = null;
    if (SUMMARIES.has(u.keyword)) {
      push(toPointer(u.instanceLocation), readable(u, root, null), u.keyword);
      const prefix = u.keywordLocation + '/';
      while (i + 1 < units.length) {
        const n = units[i + 1]!;
        const inside =
          n.keywordLocation.startsWith(prefix) ||
          (n.keyword === 'false' && n.instanceLocation.startsWith(u.instanceLocation));
        if (!inside) break;
        i++;
      }
      continue;
    }
    if (WRAPPERS.has(u.keyword)) {
      const n = units[i + 1];
      if (n && (n.keywordLocation.startsWith(u.keywordLocation + '/') || n.keyword === 'false')) {
        if (n.keyword === 'false') falseContext = u;
        continue;
      }
    }
    push(toPointer(u.instanceLocation), readable(u, root, ctx), u.keyword);
  }
  return out;
}

/**
 * Validates a JSON value against a JSON Schema. Never throws: a schema that
 * cannot be used gives `{ valid: false, errors: [{ pointer: '', message:
 * 'schema error: …' }] }`.
 */
export function validateJson(value: unknown, schema: unknown): SchemaValidation {
  const c = getValidator(schema);
  if ('error' in c) return { valid: false, errors: [{ pointer: '', message: `schema error: ${c.error}` }] };
  if (value === undefined) return { valid: false, errors: [{ pointer: '', message: 'no value (undefined is not JSON)' }] };
  let result: { valid: boolean; errors: OutputUnit[] };
  try {
    result = withLinearRegExp(() => c.validator.validate(value));
  } catch (e) {
    const m = messageOf(e);
    if (/^Instances of ".*" type are not supported/.test(m)) {
      return { valid: false, errors: [{ pointer: '', message: `the value is not JSON: ${m}` }] };
    }
    return { valid: false, errors: [{ pointer: '', message: `schema error: ${m}` }] };
  }
  if (result.valid) return { valid: true, errors: [] };
  try {
    const errors = simplify(result.errors, c.root);
    return { valid: false, errors: errors.length ? errors : [{ pointer: '', message: 'does not match the schema' }] };
  } catch (e) {
    return { valid: false, errors: [{ pointer: '', message: `does not match the schema (${messageOf(e)})` }] };
  }
}

/** Whether a schema can be used at all (compiles, refs resolve at build). Never throws. */
export function checkSchema(schema: unknown): string | null {
  const c = getValidator(schema);
  return 'error' in c ? c.error : null;
}
