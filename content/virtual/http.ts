/**
 * Answers an Engine.IO long-polling request inside the page, for a URL the
 * virtual server serves: an XMLHttpRequest that was opened (by the browser's
 * own `open`, so its headers, timeout and credentials behave) but never sent,
 * or a `fetch` that never leaves the page.
 *
 * An XMLHttpRequest is answered as the browser finishes one: `readyState` 4,
 * `status`, `responseText`/`response`, then `readystatechange`, `load` and
 * `loadend`, on a later task. Those attributes become own properties of that
 * one request (the browser's getters read its internal state, which never
 * changes since it was never sent). One aborted before its answer (the
 * client closing) is left as the abort left it.
 */
import type { PollAnswer } from './engine.ts';
import { getter, uncurry } from '../scope-natives.ts';

const NativeEvent = Event;
const NativeProgressEvent = typeof ProgressEvent === 'function' ? ProgressEvent : undefined;
const NativeResponse = typeof Response === 'function' ? Response : undefined;
const NativePromise = Promise;
const dispatch = EventTarget.prototype.dispatchEvent;
const xhrProto = typeof XMLHttpRequest === 'function' ? XMLHttpRequest.prototype : undefined;
const nativeReadyState = uncurry(getter(xhrProto, 'readyState') as (this: never) => number);
const nativeResponseType = uncurry(getter(xhrProto, 'responseType') as (this: never) => string);
const { apply, defineProperty } = Reflect;
const OPENED = 1;

/** Whether the body is a long-polling POST's (engine.io-client sends a GET with no body at all). */
export function isPost(body: unknown): boolean {
  return body !== undefined && body !== null;
}

export function answerXhr(setTimeout: (fn: () => void, ms: number) => unknown, xhr: XMLHttpRequest, url: string, ask: (respond: (a: PollAnswer) => void) => void): void {
  ask((a) => {
    setTimeout(() => {
      try {
        // Aborted (or opened again) since: the browser already said what it says to that.
        if (nativeReadyState && nativeReadyState(xhr) !== OPENED) return;
        const type = nativeResponseType ? nativeResponseType(xhr) : '';
        const own = (name: string, value: unknown) => defineProperty(xhr, name, { get: () => value, enumerable: true, configurable: true });
        own('readyState', 4);
        own('status', a.status);
        own('statusText', a.status === 200 ? 'OK' : 'Bad Request');
        own('responseURL', url);
        own('responseText', a.body);
        own('response', type === '' || type === 'text' ? a.body : null);
        apply(dispatch, xhr, [new NativeEvent('readystatechange')]);
        const progress = (t: string) => (NativeProgressEvent ? new NativeProgressEvent(t, { lengthComputable: true, loaded: a.body.length, total: a.body.length }) : new NativeEvent(t));
        apply(dispatch, xhr, [progress('load')]);
        apply(dispatch, xhr, [progress('loadend')]);
      } catch {
        // What the app's handlers throw is theirs: the browser reports it, the hook goes on.
      }
    }, 0);
  });
}

export function answerFetch(ask: (respond: (a: PollAnswer) => void) => void): Promise<Response> {
  return new NativePromise<Response>((resolve, reject) => {
    ask((a) => {
      if (!NativeResponse) return reject(new TypeError('Failed to fetch'));
      resolve(new NativeResponse(a.body, { status: a.status, headers: { 'content-type': 'text/plain; charset=UTF-8' } }));
    });
  });
}
