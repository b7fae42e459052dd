/**
 * Browser functions taken before any page script runs, so that an app that
 * later wraps timers, ports or window.postMessage (fake timers, zone.js,
 * analytics) neither sees nor changes the hook's own work.
 */
const setTimeoutNative = window.setTimeout.bind(window);
const postMessageNative = window.postMessage.bind(window);
const portPostMessage = MessagePort.prototype.postMessage;
const addListener = EventTarget.prototype.addEventListener;
const nowBase = performance.timeOrigin;
const perfNow = performance.now.bind(performance);
const randomValues = crypto.getRandomValues.bind(crypto);

export const natives = {
  setTimeout: setTimeoutNative,
  postMessage: postMessageNative,
  portPost(port: MessagePort, message: unknown): void {
    portPostMessage.call(port, message);
  },
  listen(target: EventTarget, type: string, fn: (e: Event) => void, capture = false): void {
    addListener.call(target, type, fn as EventListener, capture);
  },
  now(): number {
    return nowBase + perfNow();
  },
  randomId(): string {
    const b = new Uint32Array(2);
    randomValues(b);
    return b[0]!.toString(36) + b[1]!.toString(36);
  },
};

export type Natives = typeof natives;
