/**
 * RFC 8785 (JCS) canonical JSON, for the demo's args hash: written from the
 * spec text (types in ../shared/spec/000_…txt, "The RFC 8785 canonical form of
 * a JSON value"), not from the product. The serialisation itself is the
 * `canonicalize` package (the RFC authors' reference algorithm): members
 * sorted by UTF-16 code units, ECMAScript number and string forms. What the
 * spec refuses and `canonicalize` would let through or turn into something
 * else (a bigint, a function, a symbol, a class instance, `undefined` outside
 * an object member) is refused here first; lone surrogates and non-finite
 * numbers `canonicalize` refuses itself.
 *
 * No import from src/: the demo is an independent client.
 */
import canonicalize from 'canonicalize';

export class NotIJsonError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`not I-JSON at ${path || '/'}: ${what}`);
    this.name = 'NotIJsonError';
  }
}

function refuseNonJson(value: unknown, path: string, inMember: boolean): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotIJsonError(path, `${value} is not a JSON number`);
    return;
  }
  if (value === undefined) {
    if (inMember) return; // left out, as JSON.stringify leaves it out on the wire
    throw new NotIJsonError(path, 'undefined');
  }
  if (typeof value !== 'object') throw new NotIJsonError(path, `a ${typeof value}`);
  if (Array.isArray(value)) {
    value.forEach((v, i) => refuseNonJson(v, `${path}/${i}`, false));
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new NotIJsonError(path, 'a class instance');
  for (const [k, v] of Object.entries(value)) refuseNonJson(v, `${path}/${k}`, true);
}

/** The canonical JSON text of `value`; throws on anything JSON cannot carry. */
export function canonicalJson(value: unknown): string {
  refuseNonJson(value, '', false);
  const text = canonicalize(value);
  if (typeof text !== 'string') throw new NotIJsonError('', 'no JSON text');
  return text;
}
