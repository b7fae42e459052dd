/**
 * Structural equality of decoded JSON values: object member order does not
 * matter, array order does. Any depth: the first RECURSIVE_DEPTH levels are
 * compared by recursion (the usual value, at the usual cost), what lies
 * deeper by a walk with an explicit stack, so hostile nesting cannot
 * overflow the stack and a deep value is compared exactly (not "different
 * because deep", which would read as a change that never happened). A cycle
 * counts as different.
 */
const RECURSIVE_DEPTH = 200;

export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // JSON has no -0: 0 and -0 are one number on the wire.
    return typeof a === 'number' && typeof b === 'number' && a === b;
  }
  if (depth > RECURSIVE_DEPTH) return deepEqual(a, b);
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

/** One pair of containers being compared: the members of `x` still to compare against `y`'s. */
interface Pair {
  x: object;
  y: object;
  /** Array: null; object: the member names of `x` to compare. */
  keys: string[] | null;
  next: number;
  /** Entered in the path set (one level in CYCLE_STRIDE is). */
  tracked: boolean;
}

/** Containers are looked up on the path at every level but entered one level in this many: a cycle is still caught, a few levels later. */
const CYCLE_STRIDE = 64;

/** Scalars equal as JSON, or both containers (compared by the caller); false for anything else. */
function sameScalar(a: unknown, b: unknown): boolean {
  return Object.is(a, b) || (typeof a === 'number' && typeof b === 'number' && a === b);
}

function isContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

/**
 * Opens a pair of containers: false when their shapes (kind, length, member
 * names) already differ; otherwise pushes it to compare member by member.
 */
function open(stack: Pair[], onPath: Set<object>, x: object, y: object): boolean {
  // A value that contains itself never ends: as different (the recursive walk gave the same once past its cap).
  if (onPath.has(x) || onPath.has(y)) return false;
  const arr = Array.isArray(x);
  if (arr !== Array.isArray(y)) return false;
  const tracked = stack.length % CYCLE_STRIDE === 0;
  if (arr) {
    if ((x as unknown[]).length !== (y as unknown[]).length) return false;
    stack.push({ x, y, keys: null, next: 0, tracked });
  } else {
    const ox = x as Record<string, unknown>;
    const oy = y as Record<string, unknown>;
    const kx = Object.keys(ox).filter((k) => ox[k] !== undefined);
    let ny = 0;
    for (const k of Object.keys(oy)) if (oy[k] !== undefined) ny++;
    if (kx.length !== ny) return false;
    stack.push({ x, y, keys: kx, next: 0, tracked });
  }
  if (tracked) {
    onPath.add(x);
    onPath.add(y);
  }
  return true;
}

function close(stack: Pair[], onPath: Set<object>): void {
  const p = stack.pop()!;
  if (!p.tracked) return;
  onPath.delete(p.x);
  onPath.delete(p.y);
}

/** `jsonEqual` of two containers, with an explicit stack. */
function deepEqual(a: object, b: object): boolean {
  const stack: Pair[] = [];
  const onPath = new Set<object>();
  if (!open(stack, onPath, a, b)) return false;
  while (stack.length > 0) {
    const p = stack[stack.length - 1]!;
    let u: unknown;
    let v: unknown;
    if (p.keys === null) {
      const x = p.x as unknown[];
      if (p.next >= x.length) {
        close(stack, onPath);
        continue;
      }
      const i = p.next++;
      u = x[i];
      v = (p.y as unknown[])[i];
    } else {
      if (p.next >= p.keys.length) {
        close(stack, onPath);
        continue;
      }
      const k = p.keys[p.next++]!;
      if (!Object.prototype.hasOwnProperty.call(p.y, k)) return false;
      u = (p.x as Record<string, unknown>)[k];
      v = (p.y as Record<string, unknown>)[k];
    }
    if (sameScalar(u, v)) continue;
    if (!isContainer(u) || !isContainer(v)) return false;
    if (!open(stack, onPath, u, v)) return false;
  }
  return true;
}
