/** JSON pointers (RFC 6901): parsing, writing, reading a value at one. */

/** The segments of a pointer, or null when it is not one ('' is the whole value; others start with '/'). */
export function parsePointer(p: string): string[] | null {
  if (p === '') return [];
  if (!p.startsWith('/')) return null;
  const segs = p.slice(1).split('/');
  for (const s of segs) if (/~(?![01])/.test(s)) return null;
  return segs.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function formatPointer(segs: readonly (string | number)[]): string {
  let out = '';
  for (const s of segs) out += `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return out;
}

/** The value at the segments, or `undefined` where there is none. An array takes decimal indexes only (no leading zero, no "-"). */
export function valueAt(root: unknown, segs: readonly string[]): unknown {
  let v = root;
  for (const s of segs) {
    if (Array.isArray(v)) {
      if (!/^(0|[1-9]\d*)$/.test(s)) return undefined;
      v = v[Number(s)];
    } else if (v !== null && typeof v === 'object') {
      if (!Object.prototype.hasOwnProperty.call(v, s)) return undefined;
      v = (v as Record<string, unknown>)[s];
    } else return undefined;
  }
  return v;
}

/**
 * A copy of `root` with the value at `segs` replaced: only the containers on
 * the way are copied (copy on write), so the original is never changed.
 */
export function withValueAt(root: unknown, segs: readonly string[], value: unknown, i = 0): unknown {
  if (i === segs.length) return value;
  const s = segs[i]!;
  if (Array.isArray(root)) {
    const copy = root.slice();
    copy[Number(s)] = withValueAt(root[Number(s)], segs, value, i + 1);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(root as object)) Object.defineProperty(copy, k, { value: (root as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, s, { value: withValueAt((root as Record<string, unknown>)[s], segs, value, i + 1), enumerable: true, writable: true, configurable: true });
  return copy;
}
