/**
 * The browser functions a worker hook uses, taken before the worker's own
 * script runs (scope-natives.ts, as for the page): the same shape as the
 * page's, so the capture buffer and the taps run unchanged; what only a
 * window has (frames, window.postMessage) is inert.
 */
import type { Natives } from '../natives.ts';
import { scopeNatives } from '../scope-natives.ts';

export const workerNatives: Natives = {
  ...scopeNatives(),
  // A worker hook speaks only on its line: nothing is posted to the worker's own channel.
  postMessage: (() => {}) as Natives['postMessage'],
  parent: () => null,
  frameCount: () => 0,
};
