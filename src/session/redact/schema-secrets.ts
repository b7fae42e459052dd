/**
 * Where a schema declares secrets: the places of the values it describes
 * whose subschema says `writeOnly: true` (JSON Schema: the value is sent,
 * never read back: passwords, tokens) or `format: "password"` (OpenAPI, and
 * what form builders emit for password fields).
 *
 * Followed through what the validator (src/protocol/schema.ts, cfworker)
 * follows: `properties`, `patternProperties` and `additionalProperties`,
 * `items` / `prefixItems` (and draft-07's array form of `items`,
 * `additionalItems`), `allOf` / `anyOf` / `oneOf`, `if` / `then` / `else`,
 * `dependentSchemas`, and local `$ref`s ("#/$defs/…", "#/definitions/…",
 * any "#/…" pointer into the same schema). A `$ref` to another document
 * cannot be followed and is ignored; cycles are followed once.
 *
 * A path is the list of segments from the value's root, `*` standing for any
 * member name or array index (a schema under `additionalProperties` or
 * `items` covers them all). Redacting what any branch of `oneOf` marks is
 * the safe reading: a value is redacted when some branch would call it secret.
 */
import { parsePointer, valueAt } from './pointer.ts';

export const ANY = '*';
export type SecretPath = readonly string[];

const MAX_DEPTH = 64;
const MAX_PATHS = 1_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function isSecretSchema(s: Obj): boolean {
  return s.writeOnly === true || s.format === 'password';
}

/** The paths of a schema's secret values, or [] (never throws). */
export function secretPaths(schema: unknown): SecretPath[] {
  const out: SecretPath[] = [];
  const seen = new Set<string>();
  const walk = (s: unknown, path: string[], depth: number, refs: Set<unknown>): void => {
    if (!isObj(s) || depth > MAX_DEPTH || out.length >= MAX_PATHS) return;
    if (isSecretSchema(s)) {
      const key = path.join('\u0000');
      if (!seen.has(key)) {
        seen.add(key);
        out.push(path.slice());
      }
      // Everything under a secret is secret: nothing deeper to find.
      return;
    }
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
      const segs = parsePointer(decodeURIComponent(s.$ref.slice(1)));
      const target = segs ? valueAt(schema, segs) : undefined;
      if (target !== undefined && !refs.has(target)) {
        const next = new Set(refs);
        next.add(target);
        walk(target, path, depth + 1, next);
      }
    }
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) walk(v, [...path, k], depth + 1, refs);
    if (isObj(s.patternProperties)) for (const v of Object.values(s.patternProperties)) walk(v, [...path, ANY], depth + 1, refs);
    walk(s.additionalProperties, [...path, ANY], depth + 1, refs);
    if (Array.isArray(s.prefixItems)) s.prefixItems.forEach((v, i) => walk(v, [...path, String(i)], depth + 1, refs));
    if (Array.isArray(s.items)) s.items.forEach((v, i) => walk(v, [...path, String(i)], depth + 1, refs));
    else walk(s.items, [...path, ANY], depth + 1, refs);
    walk(s.additionalItems, [...path, ANY], depth + 1, refs);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) for (const v of s[k] as unknown[]) walk(v, path, depth + 1, refs);
    for (const k of ['if', 'then', 'else', 'not'] as const) if (k !== 'not') walk(s[k], path, depth + 1, refs);
    if (isObj(s.dependentSchemas)) for (const v of Object.values(s.dependentSchemas)) walk(v, path, depth + 1, refs);
  };
  try {
    walk(schema, [], 0, new Set([schema]));
  } catch {
    // A schema too odd to walk declares no secret we can find.
  }
  return out;
}

/** The places in `value` a path reaches, as segment lists (`*` expanded to the members and indexes there). */
export function expandPath(value: unknown, path: SecretPath): string[][] {
  let at: Array<{ v: unknown; segs: string[] }> = [{ v: value, segs: [] }];
  for (const seg of path) {
    const next: Array<{ v: unknown; segs: string[] }> = [];
    for (const { v, segs } of at) {
      if (Array.isArray(v)) {
        if (seg === ANY) v.forEach((x, i) => next.push({ v: x, segs: [...segs, String(i)] }));
        else if (/^(0|[1-9]\d*)$/.test(seg) && Number(seg) < v.length) next.push({ v: v[Number(seg)], segs: [...segs, seg] });
      } else if (isObj(v)) {
        if (seg === ANY) for (const k of Object.keys(v)) next.push({ v: v[k], segs: [...segs, k] });
        else if (Object.prototype.hasOwnProperty.call(v, seg)) next.push({ v: v[seg], segs: [...segs, seg] });
      }
    }
    at = next;
    if (!at.length) break;
  }
  return at.map((a) => a.segs);
}
