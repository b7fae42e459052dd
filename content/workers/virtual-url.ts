/**
 * A captured worker runs from a blob: script, so the browser gives it the
 * blob's URL: `self.location` would name it, and every relative URL the
 * worker's script resolves against its global's base (fetch('data.json'),
 * importScripts('lib.js'), new WebSocket('/ws'), new Worker('next.js')) would
 * fail. The worker hook gives it back its own URL, before the worker's
 * script runs:
 * - WorkerLocation's getters and toString answer, for the worker's one
 *   location object, what they answer in the worker started from its own URL;
 * - the worker's functions that take a URL resolve a relative one against
 *   it first, and pass anything else on as it is (an absolute URL, a Request,
 *   a URL object, something the browser refuses).
 *
 * Each is a disguised wrapper over the browser's own function (its name,
 * length, toString and descriptor), which calls what stood there before it
 * (a tap of the hook's, or the browser's own). Taken at load, before the
 * taps and the worker's script run.
 */
import { disguise, disguiseConstructor, ownerOf, replaceProperty } from '../disguise.ts';

const G = globalThis as unknown as Record<string, unknown>;
const { apply, construct } = Reflect;
const { getOwnPropertyDescriptor, defineProperty, getPrototypeOf } = Object;
const isArray = Array.isArray;
const NativeString = String;
const NativeURL = URL;
const accessor = (proto: object | undefined, name: string) => (proto ? getOwnPropertyDescriptor(proto, name)?.get : undefined);
const hrefOf = accessor(URL.prototype, 'href')!;
const requestUrl = accessor((G.Request as { prototype?: object } | undefined)?.prototype, 'url');

type Fn = (...args: never[]) => unknown;
type Ctor = abstract new (...args: never[]) => unknown;

/** The browser's own, as it stood before any tap (taken when this module loads). */
const originals = {
  importScripts: G.importScripts as Fn | undefined,
  fetch: G.fetch as Fn | undefined,
  Request: G.Request as Ctor | undefined,
  WebSocket: G.WebSocket as Ctor | undefined,
  EventSource: G.EventSource as Ctor | undefined,
  WebTransport: G.WebTransport as Ctor | undefined,
  WebSocketStream: G.WebSocketStream as Ctor | undefined,
  open: (G.XMLHttpRequest as { prototype?: { open?: Fn } } | undefined)?.prototype?.open,
  redirect: (G.Response as { redirect?: Fn } | undefined)?.redirect,
};
const cacheProto = (G.Cache as { prototype?: Record<string, Fn> } | undefined)?.prototype;
const cacheStorageProto = (G.CacheStorage as { prototype?: Record<string, Fn> } | undefined)?.prototype;
const CACHE_METHODS = ['match', 'matchAll', 'add', 'put', 'delete', 'keys'] as const;
const cacheOriginals: Record<string, Fn | undefined> = {};
for (const m of CACHE_METHODS) cacheOriginals[m] = cacheProto?.[m];
const cacheAddAll = cacheProto?.addAll;
const cacheStorageMatch = cacheStorageProto?.match;


function brand(getter: Function | undefined, x: object): boolean {
  if (!getter) return false;
  try {
    apply(getter, x, []);
    return true;
  } catch {
    return false;
  }
}

/** `x` with a relative URL resolved against `base`; anything else as it is. It converts `x` to a string once, as the browser would. */
export function rebased(x: unknown, base: string): unknown {
  let s: string;
  if (typeof x === 'string') s = x;
  else if (typeof x === 'symbol') return x;
  else if (x !== null && (typeof x === 'object' || typeof x === 'function')) {
    if (brand(requestUrl, x) || brand(hrefOf, x)) return x;
    try {
      s = `${x as unknown as string}`;
    } catch {
      return x;
    }
  } else s = NativeString(x);
  try {
    new NativeURL(s);
    return s;
  } catch {
    // Relative: resolved below.
  }
  try {
    return apply(hrefOf, new NativeURL(s, base), []) as string;
  } catch {
    return s;
  }
}

function rebaseArgs(args: unknown[], at: number | 'all', base: string): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) out[i] = at === 'all' || at === i ? rebased(args[i], base) : args[i];
  return out;
}

/** `self.location` answers for `url` (the worker's own URL), for the worker's one location object. */
export function keepLocation(url: string): void {
  const WorkerLocation = G.WorkerLocation as { prototype?: object } | undefined;
  const proto = WorkerLocation?.prototype;
  const real = G.location;
  if (!proto || !real) return;
  const u = new NativeURL(url);
  const values: Record<string, string> = {};
  const names = ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  for (const name of names) {
    const g = accessor(NativeURL.prototype, name);
    if (!g) return;
    values[name] = apply(g, u, []) as string;
  }
  // Everything read first: then each getter is replaced, with nothing left that can fail half way.
  const replaced: Array<[string, PropertyDescriptor]> = [];
  for (const name of names) {
    const d = getOwnPropertyDescriptor(proto, name);
    if (!d || !d.get || !d.configurable) continue;
    const value = values[name]!;
    replaced.push([name, { ...d, get: disguise(d.get as () => unknown, (target, thisArg, args) => (thisArg === real ? value : apply(target, thisArg, args))) }]);
  }
  const ts = getOwnPropertyDescriptor(proto, 'toString');
  if (ts && typeof ts.value === 'function' && ts.configurable) {
    const href = values.href!;
    replaced.push(['toString', { ...ts, value: disguise(ts.value as () => string, (target, thisArg, args) => (thisArg === real ? href : apply(target, thisArg, args))) }]);
  }
  for (const [name, d] of replaced) defineProperty(proto, name, d);
}

/** The worker's functions that take a URL resolve a relative one against `base`. */
export function rebaseRelative(base: string): void {
  const fn = (name: 'importScripts' | 'fetch', at: number | 'all') => {
    const native = originals[name];
    const current = G[name] as Fn | undefined;
    if (typeof native !== 'function' || typeof current !== 'function') return;
    // Where the browser defines it: the global itself, or (Chromium) WorkerGlobalScope.prototype.
    replaceProperty(ownerOf(G, name), name, disguise(native, (_t, thisArg, args) => apply(current, thisArg, rebaseArgs(args, at, base))));
  };
  const ctor = (name: 'Request' | 'WebSocket' | 'EventSource' | 'WebTransport' | 'WebSocketStream') => {
    const native = originals[name];
    const current = G[name] as Ctor | undefined;
    if (typeof native !== 'function' || typeof current !== 'function') return;
    replaceProperty(G, name, disguiseConstructor(native, (_t, args, newTarget) => construct(current as Function, rebaseArgs(args, 0, base), newTarget) as object));
  };
  const method = (proto: object | undefined, name: string, native: Fn | undefined, map: (args: unknown[]) => unknown[]) => {
    const current = proto ? ((proto as Record<string, unknown>)[name] as Fn | undefined) : undefined;
    if (!proto || typeof native !== 'function' || typeof current !== 'function') return;
    replaceProperty(proto, name, disguise(native, (_t, thisArg, args) => apply(current, thisArg, map(args))));
  };
  fn('importScripts', 'all');
  fn('fetch', 0);
  for (const name of ['Request', 'WebSocket', 'EventSource', 'WebTransport', 'WebSocketStream'] as const) ctor(name);
  method((G.XMLHttpRequest as { prototype?: object } | undefined)?.prototype, 'open', originals.open, (a) => rebaseArgs(a, 1, base));
  method(G.Response as object | undefined, 'redirect', originals.redirect, (a) => rebaseArgs(a, 0, base));
  for (const m of CACHE_METHODS) method(cacheProto, m, cacheOriginals[m], (a) => rebaseArgs(a, 0, base));
  method(cacheProto, 'addAll', cacheAddAll, (a) => {
    const out = rebaseArgs(a, -1, base);
    const list = a[0];
    if (isArray(list)) {
      const each: unknown[] = [];
      for (let i = 0; i < list.length; i++) each[i] = rebased(list[i], base);
      out[0] = each;
    }
    return out;
  });
  method(cacheStorageProto, 'match', cacheStorageMatch, (a) => rebaseArgs(a, 0, base));
}
