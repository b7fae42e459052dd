/**
 * The built-in collections and string/array methods the hook uses after the
 * page's code has run, taken when the hook is evaluated (document_start,
 * before any page script). Invariant: nothing the hook does on a live path
 * (a send, a message, a flush, a subscription, a held answer) looks a method
 * up on a prototype the page can replace, or runs the iterator protocol. A
 * page that later wraps Map, Set, WeakMap, Array or String methods, or the
 * array and collection iterators (polyfills, zone.js, analytics, test fakes),
 * neither sees the hook's data nor changes what it records.
 *
 * The Safe* classes are the engine's own classes with the prototype methods
 * copied onto a prototype only the hook holds (Node.js core's primordials do
 * the same). Iterate them with `forEach` (internal, no iterator objects) or
 * `firstKey`, never with for…of or spread.
 */
const { apply, defineProperty, getOwnPropertyDescriptor, ownKeys, getPrototypeOf } = Reflect;

function makeSafe<T extends abstract new (...args: never[]) => object>(base: { prototype: object }, safe: T): T {
  const from = base.prototype;
  const to = safe.prototype as object;
  const keys = ownKeys(from);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k === 'constructor') continue;
    const d = getOwnPropertyDescriptor(from, k);
    if (d) defineProperty(to, k, d);
  }
  return safe;
}

export const SafeMap = makeSafe(Map, class SafeMap<K, V> extends Map<K, V> {});
export const SafeSet = makeSafe(Set, class SafeSet<T> extends Set<T> {});
export const SafeWeakMap = makeSafe(WeakMap, class SafeWeakMap<K extends object, V> extends WeakMap<K, V> {});
export const SafeWeakSet = makeSafe(WeakSet, class SafeWeakSet<T extends object> extends WeakSet<T> {});
export type SafeMap<K, V> = Map<K, V>;
export type SafeSet<T> = Set<T>;

const mapKeys = Map.prototype.keys;
const mapIteratorNext = (getPrototypeOf(new Map().keys()) as { next: () => IteratorResult<unknown> }).next;

/** The oldest key of a Map (insertion order), through the engine's own iterator. */
export function firstKey<K>(map: Map<K, unknown>): K | undefined {
  const it = apply(mapKeys, map, []) as Iterator<K>;
  return (apply(mapIteratorNext, it, []) as IteratorResult<K>).value as K | undefined;
}

const stringSlice = String.prototype.slice;
const stringIndexOf = String.prototype.indexOf;
const regexpExec = RegExp.prototype.exec;
const arraySlice = Array.prototype.slice;

export const slice = (s: string, start: number, end?: number): string => apply(stringSlice, s, end === undefined ? [start] : [start, end]) as string;
export const indexOf = (s: string, search: string, from = 0): number => apply(stringIndexOf, s, [search, from]) as number;
export const startsWith = (s: string, prefix: string): boolean => s.length >= prefix.length && (apply(stringSlice, s, [0, prefix.length]) as string) === prefix;
export const includes = (s: string, search: string): boolean => (apply(stringIndexOf, s, [search, 0]) as number) !== -1;
/** `re.exec(s)` by the engine's own exec (RegExp.prototype.test would look `exec` up on the prototype). */
export const exec = (re: RegExp, s: string): RegExpExecArray | null => apply(regexpExec, re, [s]) as RegExpExecArray | null;
/** A copy of an array-like (arguments), by the engine's own slice. */
export const toArray = <T>(list: ArrayLike<T>): T[] => apply(arraySlice, list, []) as T[];

/** Appends by index: Array.prototype.push is the page's to replace. */
export function append<T>(list: T[], item: T): void {
  list[list.length] = item;
}

const queueMicrotaskNative = typeof queueMicrotask === 'function' ? queueMicrotask : undefined;
const promiseThen = Promise.prototype.then;
const resolved = Promise.resolve();
/** A microtask, by the functions the hook took (queueMicrotask, or the engine's then). */
export function microtask(fn: () => void): void {
  if (queueMicrotaskNative) apply(queueMicrotaskNative, globalThis, [fn]);
  else apply(promiseThen, resolved, [fn]);
}
