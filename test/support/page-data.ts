/**
 * Generators of what a page can send: JSON values and anything at all whose
 * object keys include the names that reach the prototype chain. JSON.parse
 * makes `__proto__` an own property, so page data carries such keys, and a
 * property test must meet them on every run, not when a seed happens to draw
 * them (fast-check's strings only sometimes do).
 */
import fc from 'fast-check';

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** An object key: often one of PROTOTYPE_KEYS, else any string. */
export const pageKey: fc.Arbitrary<string> = fc.oneof({ arbitrary: fc.constantFrom(...PROTOTYPE_KEYS), weight: 1 }, { arbitrary: fc.string(), weight: 2 });

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** An object made as JSON.parse makes it: every key an own, enumerable data property. */
function ownObject(entries: Array<[string, Json]>): { [k: string]: Json } {
  const o: { [k: string]: Json } = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

export interface PageJsonOptions {
  maxDepth?: number;
  stringUnit?: fc.StringConstraints['unit'];
}

/** Any JSON value, as JSON.parse would produce it, with PROTOTYPE_KEYS among its keys. */
export function pageJson(opts: PageJsonOptions = {}): fc.Arbitrary<Json> {
  const maxDepth = opts.maxDepth ?? 4;
  const str = fc.string(opts.stringUnit ? { unit: opts.stringUnit } : {});
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
      str,
      fc.array(tie('value'), { maxLength: 5 }),
      fc.array(fc.tuple(pageKey, tie('value')), { maxLength: 5 }).map(ownObject),
    ),
  }));
  return value;
}

/** An object with PROTOTYPE_KEYS among its keys, of page JSON values. */
export function pageObject(opts: PageJsonOptions = {}): fc.Arbitrary<{ [k: string]: Json }> {
  return fc.array(fc.tuple(pageKey, pageJson(opts)), { maxLength: 6 }).map(ownObject);
}

/** Anything at all (fast-check's `anything`), its object keys drawn from pageKey. */
export function pageAnything(constraints: fc.ObjectConstraints = {}): fc.Arbitrary<unknown> {
  return fc.anything({ ...constraints, key: pageKey });
}

/** True when `v` holds one of PROTOTYPE_KEYS as an own key somewhere: lets a test count that it met them. */
export function hasPrototypeKey(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object' || depth > 50) return false;
  for (const k of Object.keys(v)) {
    if ((PROTOTYPE_KEYS as readonly string[]).includes(k)) return true;
    if (hasPrototypeKey((v as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}
