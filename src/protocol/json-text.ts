/**
 * JSON text of a value of any depth.
 *
 * `JSON.stringify` recurses, so a value nested some thousands of levels deep
 * throws "Maximum call stack size exceeded" (Firefox: "too much recursion"),
 * although `JSON.parse` read it without trouble: a page can send
 * `[[[[…100,000 levels…]]]]` in one WebSocket frame. `stringifyJson` writes
 * exactly what `JSON.stringify(value, null, space)` writes, for any depth:
 * the native writer first (so a value it can write costs what it always did,
 * byte for byte), and only when it runs out of stack, a walk with an explicit
 * stack of its own. That walk still offers each subtree of its first levels
 * to the native writer, so one deep event in a large session costs little
 * more than the deep event itself.
 *
 * The same walk, with `sorted`, writes every object's members by their names'
 * UTF-16 code units: the text `surfacesHash` hashes (hashes.ts).
 *
 * Pure: no DOM, no Node APIs.
 */

/** Deeper than this, the walk gives up (RangeError, as `JSON.stringify` does): only a getter that makes a new object on every read gets here. */
export const MAX_JSON_DEPTH = 1 << 22;

/**
 * Cycles: every container is looked up among the containers on the path, but
 * only one level in CYCLE_STRIDE is entered there. A cycle repeats its
 * containers every few levels, so it is still caught (at most this many
 * levels later), and a chain 100,000 levels deep pays a Set entry per 64
 * levels instead of one per level.
 */
const CYCLE_STRIDE = 64;

/** Subtrees whose container is at most this deep, and has at most this many members, are tried with the native writer first. */
const NATIVE_TRY_DEPTH = 8;
const NATIVE_TRY_MEMBERS = 256;

/**
 * Whether `e` is the engine running out of stack (V8 and JavaScriptCore:
 * RangeError "Maximum call stack size exceeded"; SpiderMonkey: InternalError
 * "too much recursion"). No regular expression: this runs where the stack
 * ran out, and V8 aborts the process when compiling one fails there.
 */
export function isStackOverflow(e: unknown): boolean {
  try {
    if (!(e instanceof Error)) return false;
    const m = String(e.message);
    if (e instanceof RangeError) return m.indexOf('call stack') >= 0 || m.indexOf('recursion') >= 0;
    return e.name === 'InternalError' && m.indexOf('recursion') >= 0;
  } catch {
    // Reading the message overflowed too: it is one.
    return true;
  }
}

/** `JSON.stringify`'s `space`: up to 10 spaces, or the first 10 characters of a string. */
function gapOf(space: number | string | undefined): string {
  if (typeof space === 'number') return ' '.repeat(Math.max(0, Math.min(10, Math.floor(space))));
  if (typeof space === 'string') return space.slice(0, 10);
  return '';
}

/**
 * `JSON.stringify(value, null, space)`, for a value of any depth: the same
 * text, `undefined` where it gives `undefined`, the same TypeError for a
 * cycle or a bigint.
 */
export function stringifyJson(value: unknown, space?: number | string): string | undefined {
  try {
    // One argument when there is no space: V8's fastest path.
    return space === undefined ? JSON.stringify(value) : JSON.stringify(value, null, space);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
  }
  return writeJson(value, { gap: gapOf(space), sorted: false });
}

export interface WriteOptions {
  /** Indentation per level ('' for none). */
  gap: string;
  /** Members of every object in UTF-16 code unit order of their names, not in their own order. */
  sorted: boolean;
  /** Stop once the text is this long: what is written so far (at least `limit` code units, unless the whole text is shorter) is returned. */
  limit?: number;
  /** Hand shallow subtrees to the native writer (default); false walks everything (tests hold the walk to JSON.stringify with it). */
  native?: boolean;
}

/**
 * The beginning of `JSON.stringify(value)`: at least its first `max` code
 * units (the whole text when it is no longer), for a one-line preview of a
 * value of any depth without writing all of it. `undefined` where
 * JSON.stringify gives `undefined`.
 */
export function jsonPrefix(value: unknown, max: number): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
  }
  return writeJson(value, { gap: '', sorted: false, limit: max });
}

const hasOwn = Object.prototype.hasOwnProperty;

/** JSON.stringify's SerializeJSONProperty preamble: toJSON (given the key), then boxed primitives unwrapped. */
function prepare(v: unknown, key: string): unknown {
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean) return v.valueOf();
    if (typeof BigInt === 'function' && v instanceof BigInt) return v.valueOf();
  }
  return v;
}

/** What JSON leaves out of an object (and writes as null in an array). */
function noJsonForm(v: unknown): boolean {
  const t = typeof v;
  return t === 'undefined' || t === 'function' || t === 'symbol';
}

/**
 * Whether the native writer, given `v` alone, writes what it writes of `v`
 * inside its holder: a plain object or array without a toJSON of its own
 * (the only thing a holder changes is the key a toJSON is called with).
 */
function nativeSafe(v: object, clean: boolean): boolean {
  if (!clean) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === Array.prototype || proto === null) && !hasOwn.call(v, 'toJSON');
}

/**
 * The explicit-stack walk behind `stringifyJson` and the sorted JSON of the
 * surfaces hash (see the module comment). `undefined` for a top-level value
 * that has no JSON form. The stack is kept in parallel arrays (a frame per
 * level would be 100,000 objects for the garbage collector).
 */
export function writeJson(root: unknown, opts: WriteOptions): string | undefined {
  const { gap, sorted } = opts;
  const limit = opts.limit ?? Infinity;
  const clean =
    opts.native !== false &&
    !sorted &&
    (Object.prototype as { toJSON?: unknown }).toJSON === undefined &&
    (Array.prototype as { toJSON?: unknown }).toJSON === undefined;
  // The containers being written, one per level: the container, its member names (objects) or null (arrays),
  // how many members it has, the next one to write, and whether one was written.
  const values: object[] = [];
  const names: Array<string[] | null> = [];
  const lengths: number[] = [];
  const next: number[] = [];
  const written: boolean[] = [];
  /** `gap` repeated d times, at d (only with a gap). */
  const indents: string[] = [''];
  const onPath = new Set<object>();
  let depth = 0;
  let out = '';

  const indent = (d: number): string => {
    while (indents.length <= d) indents.push(indents[indents.length - 1]! + gap);
    return indents[d]!;
  };

  /** Writes a prepared value that has a JSON form: a scalar at once, a container by opening a level. */
  const write = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        out += JSON.stringify(v);
        return;
      case 'number':
        out += v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null';
        return;
      case 'boolean':
        out += v ? 'true' : 'false';
        return;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
    }
    if (v === null) {
      out += 'null';
      return;
    }
    const o = v as object;
    const array = Array.isArray(o);
    let keys: string[] | null = null;
    if (!array) {
      keys = Object.keys(o);
      if (sorted) keys.sort();
    }
    const size = array ? (o as unknown[]).length : keys!.length;
    // A long list is not tried whole (a failed try costs a pass over it): its members are, one by one.
    if (depth > 0 && depth <= NATIVE_TRY_DEPTH && size <= NATIVE_TRY_MEMBERS && nativeSafe(o, clean)) {
      let text: string | undefined;
      try {
        text = JSON.stringify(o, null, gap);
      } catch (e) {
        if (!isStackOverflow(e)) throw e;
      }
      if (text !== undefined) {
        // JSON text has no raw line breaks but the ones indentation adds: each moves in by this level's indentation.
        out += gap ? text.split('\n').join('\n' + indent(depth)) : text;
        return;
      }
    }
    if (onPath.has(o)) throw new TypeError('Converting circular structure to JSON');
    if (depth >= MAX_JSON_DEPTH) throw new RangeError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
    if (depth % CYCLE_STRIDE === 0) onPath.add(o);
    values[depth] = o;
    names[depth] = keys;
    lengths[depth] = size;
    next[depth] = 0;
    written[depth] = false;
    depth++;
    out += array ? '[' : '{';
  };

  const top = prepare(root, '');
  if (noJsonForm(top)) return undefined;
  write(top);
  while (depth > 0) {
    if (out.length >= limit) return out;
    const d = depth - 1;
    const o = values[d]!;
    const keys = names[d]!;
    const i = next[d]!;
    if (i >= lengths[d]!) {
      if (gap && written[d]) out += '\n' + indent(d);
      out += keys === null ? ']' : '}';
      if (d % CYCLE_STRIDE === 0) onPath.delete(o);
      values[d] = undefined as unknown as object;
      names[d] = null;
      depth--;
      continue;
    }
    next[d] = i + 1;
    if (keys === null) {
      const v = prepare((o as unknown[])[i], '' + i);
      if (written[d]) out += ',';
      else written[d] = true;
      if (gap) out += '\n' + indent(depth);
      if (noJsonForm(v)) out += 'null';
      else write(v);
    } else {
      const k = keys[i]!;
      const v = prepare((o as Record<string, unknown>)[k], k);
      if (noJsonForm(v)) continue;
      if (written[d]) out += ',';
      else written[d] = true;
      if (gap) out += '\n' + indent(depth);
      out += JSON.stringify(k) + (gap ? ': ' : ':');
      write(v);
    }
  }
  return out;
}
