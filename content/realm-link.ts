/**
 * Same-origin frames of a tab can lend each other their functions: a page
 * may call a fresh about:blank frame's `WebSocket.prototype.send` or
 * `MessagePort.prototype.postMessage` on a socket or port of its own (to get
 * a function no script of its has wrapped). The hook runs in that frame too
 * (Chromium runs it as the frame is created, before the page can reach it),
 * but that frame's hook has never seen the socket: the socket's own hook has.
 *
 * So hooks of same-origin frames link up when a hook starts: the new hook
 * hands its parent's hook a handle and gets one back, through a DOM event on
 * the parent's window that the parent hook's first listener stops, so no
 * page listener sees it. A wrapper that meets an object of another realm
 * asks the linked hooks (parent first, then children, a few links deep) to
 * do the call as its own wrapper would: the call still happens once, with
 * the app's arguments, and is recorded by the hook that knows the object.
 *
 * What a page could do with a handle (it can dispatch the event itself) is
 * what it can do already: call `send` or `postMessage` on its own objects.
 * Each link is held weakly where it points down (a removed frame is not kept
 * alive by its parent's hook) and the search is bounded.
 */
import { getter } from './scope-natives.ts';
const LINK_EVENT = 'oui-devtools-realm-link';
const MAX_CHILDREN = 64;
const MAX_DEPTH = 8;

// Taken when the hook is evaluated, before any page script.
const apply = Reflect.apply;
const addListener = EventTarget.prototype.addEventListener;
const dispatch = EventTarget.prototype.dispatchEvent;
const stopImmediate = Event.prototype.stopImmediatePropagation;
const NativeCustomEvent = CustomEvent;
const detailGetter = Object.getOwnPropertyDescriptor(CustomEvent.prototype, 'detail')?.get;
const parentGetter = getter(window, 'parent');
const NativeWeakRef = typeof WeakRef === 'function' ? WeakRef : undefined;
const derefNative = NativeWeakRef?.prototype.deref;
const deref = <T extends object>(ref: WeakRef<T>): T | undefined => (derefNative ? (apply(derefNative, ref, []) as T | undefined) : undefined);

/** What one hook does for another: `op` on `target`, if this hook knows the target. */
export type RealmOp = (target: object, args: ArrayLike<unknown>) => { value: unknown } | undefined;

interface Link {
  run(op: string, target: object, args: ArrayLike<unknown>, from: Link | undefined, depth: number): { value: unknown } | undefined;
}

const ops: Record<string, RealmOp> = Object.create(null) as Record<string, RealmOp>;
let parentLink: Link | undefined;
const children: Array<WeakRef<Link>> = [];
let connected = false;

function isLink(x: unknown): x is Link {
  return typeof x === 'object' && x !== null && typeof (x as { run?: unknown }).run === 'function';
}

const self: Link = {
  run(op, target, args, from, depth) {
    const here = ops[op];
    if (here) {
      const done = here(target, args);
      if (done) return done;
    }
    if (depth >= MAX_DEPTH) return undefined;
    return ask(op, target, args, from, depth + 1);
  },
};

function ask(op: string, target: object, args: ArrayLike<unknown>, from: Link | undefined, depth: number): { value: unknown } | undefined {
  if (parentLink && parentLink !== from) {
    const done = parentLink.run(op, target, args, self, depth);
    if (done) return done;
  }
  for (let i = 0; i < children.length; i++) {
    const child = deref(children[i]!);
    if (!child || child === from) continue;
    const done = child.run(op, target, args, self, depth);
    if (done) return done;
  }
  return undefined;
}

/** Registers what this hook does for the others (and for itself) under `op`. */
export function provideRealmOp(op: string, fn: RealmOp): void {
  ops[op] = fn;
}

/**
 * `op` on an object this hook has never seen, done by the linked hook that
 * knows it; undefined when none does (the caller then calls the browser's
 * function itself, unrecorded). A link that throws is one that cannot help.
 */
export function foreignRealmOp(op: string, target: object, args: ArrayLike<unknown>): { value: unknown } | undefined {
  if (!parentLink && children.length === 0) return undefined;
  return ask(op, target, args, undefined, 1);
}

function onLink(e: Event): void {
  try {
    apply(stopImmediate, e, []);
    const box: unknown = detailGetter ? apply(detailGetter, e, []) : (e as CustomEvent).detail;
    if (!box || typeof box !== 'object') return;
    const child = (box as { child?: unknown }).child;
    if (isLink(child) && child !== self && NativeWeakRef) {
      // Index writes only: a page that patched Array.prototype sees nothing of the hook's own array.
      let n = 0;
      for (let i = 0; i < children.length; i++) {
        const c = children[i]!;
        if (deref(c)) children[n++] = c;
      }
      children.length = n;
      if (n >= MAX_CHILDREN) {
        for (let i = 1; i < n; i++) children[i - 1] = children[i]!;
        children.length = n - 1;
      }
      children[children.length] = new NativeWeakRef(child);
    }
    (box as { link?: Link }).link = self;
  } catch {
    // A link that cannot be made leaves each hook on its own.
  }
}

/**
 * Listens for the hooks of this frame's children, and links to the parent
 * frame's hook when the parent is same-origin and hooked. Once per document,
 * at the hook's start.
 */
export function connectRealms(): void {
  if (connected || typeof window === 'undefined') return;
  connected = true;
  try {
    apply(addListener, window, [LINK_EVENT, onLink, true]);
  } catch {
    return;
  }
  try {
    const parent = (parentGetter ? apply(parentGetter, window, []) : window.parent) as Window | null;
    if (!parent || parent === window) return;
    const box: { child: Link; link?: unknown } = { child: self };
    // Cross-origin: dispatchEvent is not reachable and throws; nothing is linked.
    apply(dispatch, parent, [new NativeCustomEvent(LINK_EVENT, { detail: box })]);
    if (isLink(box.link)) parentLink = box.link;
  } catch {
    // No same-origin parent, or no hook there.
  }
}
