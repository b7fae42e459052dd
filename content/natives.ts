/**
 * The page hook's natives: those of any scope (scope-natives.ts), and what
 * only a window has (its postMessage, the frame tree's accessors), all taken
 * before any page script runs.
 */
import { getter, scopeNatives, uncurry } from './scope-natives.ts';

const postMessageNative = window.postMessage.bind(window);
// `parent` and `length` are [Replaceable]: a page can redefine them on its own window. These getters
// are the browser's, taken first; called on any window (cross-origin included) they read the real tree.
const parentOf = uncurry(getter(window, 'parent') as (this: never) => Window | null);
const lengthOf = uncurry(getter(window, 'length') as (this: never) => number);

export const natives = {
  ...scopeNatives(),
  postMessage: postMessageNative,
  parent(w: Window): Window | null {
    return parentOf ? parentOf(w) : w.parent;
  },
  frameCount(w: Window): number {
    return lengthOf ? lengthOf(w) : w.length;
  },
};

export type Natives = typeof natives;
