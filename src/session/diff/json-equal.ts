/**
 * Structural equality of decoded JSON values: object member order does not
 * matter, array order does. The depth is capped, so hostile nesting
 * cannot overflow the stack; past the cap values count as different.
 */
const MAX_DEPTH = 200;

export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // JSON has no -0: 0 and -0 are one number on the wire.
    return typeof a === 'number' && typeof b === 'number' && a === b;
  }
  if (depth > MAX_DEPTH) return false;
  const arr = Array.isArray(a);
  if (arr !== Array.isArray(b)) return false;
  if (arr) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i], depth + 1)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  const ky = Object.keys(y).filter((k) => y[k] !== undefined);
  if (kx.length !== ky.length) return false;
  for (const k of kx) {
    if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
    if (!jsonEqual(x[k], y[k], depth + 1)) return false;
  }
  return true;
}
