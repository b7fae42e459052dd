/**
 * Wraps the browser functions the hook taps so that no page can tell them
 * from the browser's own: some real code checks (bot detection, framework
 * feature tests) `fetch.name`, `send.length`, whether a function is a
 * constructor, its property descriptor, or its source text.
 *
 * A Proxy over the native function keeps its name, length, prototype,
 * constructability and own keys exactly; the property keeps the native
 * descriptor; and Function.prototype.toString answers for a wrapper what it
 * answers for the native it wraps (itself included). What a Proxy cannot hide
 * is the hook's frame in a stack trace of an error thrown through it; the
 * README says so.
 */
import { foreignRealmOp, provideRealmOp } from './realm-link.ts';

const nativeToString = Function.prototype.toString;
const FunctionProto = Function.prototype;
const protoOf = Object.getPrototypeOf;
const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;

/** Wrapper → the native it stands for. */
const wrapped = new WeakMap<object, object>();

/**
 * The native that a wrapper of another same-origin frame's hook stands for
 * (a page can hand a fresh iframe's `send` to this frame's toString, or this
 * frame's `send` to the iframe's): that hook knows it (realm-link.ts).
 * Functions of this realm are never asked about.
 */
function foreignNative(fn: Function): object | undefined {
  try {
    if (protoOf(fn) === FunctionProto) return undefined;
    const done = foreignRealmOp('disguise.native', fn, []);
    return typeof done?.value === 'function' ? done.value : undefined;
  } catch {
    return undefined;
  }
}

const toStringProxy = new Proxy(nativeToString, {
  apply(target, thisArg, args) {
    let native = typeof thisArg === 'function' ? wrapped.get(thisArg) : undefined;
    // A wrapper over another wrapper (a tap over a worker hook's URL keeper) answers for the native under both.
    for (let next = native && wrapped.get(native); next; next = wrapped.get(next)) native = next;
    if (!native && typeof thisArg === 'function') native = foreignNative(thisArg);
    return apply(target, native ?? thisArg, args);
  },
});
wrapped.set(toStringProxy, nativeToString);
provideRealmOp('disguise.native', (fn) => {
  const native = wrapped.get(fn);
  return native ? { value: native } : undefined;
});
let toStringInstalled = false;

function installToString(): void {
  if (toStringInstalled) return;
  toStringInstalled = true;
  const d = getOwnPropertyDescriptor(Function.prototype, 'toString');
  if (d && d.configurable) defineProperty(Function.prototype, 'toString', { ...d, value: toStringProxy });
}

/** `native`, called through `apply` instead; what `apply` does beyond the native is the hook's business only. */
export function disguise<F extends (...args: never[]) => unknown>(native: F, handler: (target: F, thisArg: unknown, args: unknown[]) => unknown): F {
  installToString();
  const proxy = new Proxy(native, { apply: handler as ProxyHandler<F>['apply'] });
  wrapped.set(proxy, native);
  return proxy;
}

/**
 * `wrapper` standing for `native` without a Proxy (a Proxy's apply trap costs
 * every call an arguments array): for the hot methods (WebSocket send). The
 * caller makes `wrapper` a method definition of the native's name and
 * parameter count, so that name, length, own keys and constructability are the
 * native's; toString answers the native's source.
 */
export function disguiseMethod<F extends (...args: never[]) => unknown>(native: F, wrapper: F): F {
  installToString();
  wrapped.set(wrapper, native);
  return wrapper;
}

/** A constructor wrapped the same way (WebSocket), whose instances still name it as their constructor. */
export function disguiseConstructor<C extends abstract new (...args: never[]) => unknown>(native: C, construct: (target: C, args: unknown[], newTarget: Function) => object): C {
  installToString();
  const proxy = new Proxy(native, { construct: construct as ProxyHandler<C>['construct'] });
  wrapped.set(proxy, native);
  // `new WebSocket(u).constructor === WebSocket` must stay true now that the global is the proxy.
  const proto = (native as unknown as { prototype?: object }).prototype;
  const d = proto ? getOwnPropertyDescriptor(proto, 'constructor') : undefined;
  if (proto && d && d.configurable) defineProperty(proto, 'constructor', { ...d, value: proxy });
  return proxy;
}

/** Replaces `obj[name]` by `value`, keeping the property's descriptor as the browser made it. */
export function replaceProperty(obj: object, name: string, value: unknown): void {
  const d = getOwnPropertyDescriptor(obj, name);
  if (!d) return;
  defineProperty(obj, name, { ...d, value });
}

/** The object of `obj`'s prototype chain that holds `name` itself: a window holds `fetch`, Chromium's workers hold it on WorkerGlobalScope.prototype. */
export function ownerOf(obj: object, name: string): object {
  for (let o: object | null = obj; o; o = Object.getPrototypeOf(o) as object | null) if (getOwnPropertyDescriptor(o, name)) return o;
  return obj;
}
