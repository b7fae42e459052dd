/**
 * An RFC 6902 applier written for tests only, independent of the library the
 * product diffs with. It treats every member name as data: `__proto__`,
 * `constructor` and `prototype` are set and read as own properties, as
 * JSON.parse makes them, never through the prototype chain.
 */
type Doc = unknown;
interface Op {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function segments(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`bad pointer ${pointer}`);
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function get(doc: Doc, path: string[]): Doc {
  let cur = doc;
  for (const s of path) {
    if (cur === null || typeof cur !== 'object' || !own(cur, s)) throw new Error(`no member ${s}`);
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

/** A deep copy that keeps every key an own property (structuredClone does too, but say so here). */
export function copyJson(v: Doc): Doc {
  if (Array.isArray(v)) return v.map(copyJson);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(o, k, copyJson((v as Record<string, unknown>)[k]));
    return o;
  }
  return v;
}

function add(doc: Doc, path: string[], value: Doc): Doc {
  if (!path.length) return value;
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new Error(`bad index ${last}`);
    parent.splice(i, 0, value);
  } else if (parent !== null && typeof parent === 'object') {
    setOwn(parent as Record<string, unknown>, last, value);
  } else throw new Error('add into a scalar');
  return doc;
}

function remove(doc: Doc, path: string[]): Doc {
  if (!path.length) throw new Error('remove of the root');
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw new Error(`bad index ${last}`);
    parent.splice(i, 1);
  } else if (parent !== null && typeof parent === 'object' && own(parent, last)) {
    delete (parent as Record<string, unknown>)[last];
  } else throw new Error(`no member ${last}`);
  return doc;
}

/** Applies `patch` to a copy of `doc`; throws on any operation RFC 6902 refuses. */
export function applyPatchOracle(doc: Doc, patch: readonly Op[]): Doc {
  let out = copyJson(doc);
  for (const op of patch) {
    const path = segments(op.path);
    switch (op.op) {
      case 'add':
        out = add(out, path, copyJson(op.value));
        break;
      case 'remove':
        out = remove(out, path);
        break;
      case 'replace':
        get(out, path);
        out = path.length ? add(remove(out, path), path, copyJson(op.value)) : copyJson(op.value);
        break;
      case 'move': {
        const from = segments(op.from ?? '');
        const v = get(out, from);
        out = add(remove(out, from), path, v);
        break;
      }
      case 'copy':
        out = add(out, path, copyJson(get(out, segments(op.from ?? ''))));
        break;
      case 'test':
        throw new Error('a patch never uses test (RFC 0114)');
      default:
        throw new Error(`unknown op ${op.op}`);
    }
  }
  return out;
}
