/**
 * The Playwright fixture's bridge (oui-devtools/playwright): what
 * content/bridge.ts is for the extension, without the extension. It runs in
 * the page's own world, from the fixture's init script, just before the page
 * hook (content/hook.ts) in the same script, so its listener is the first to
 * see the message that hands the hook's private port over, and takes it.
 *
 * It subscribes at once (a test wants everything from the first frame) and
 * forwards every batch the hook sends, as JSON text, to a binding the fixture
 * exposed on the browser context (`OUI_FIXTURE_BINDING`): the test's Node
 * process decodes it with the same recorder and model as the panel.
 *
 * It runs in every frame Playwright gives init scripts to: the top frame,
 * same- and cross-origin iframes, popups and new pages.
 */
import { HOOK_PORT_MARKER, readHookMessage, type SubscribeCommand } from '../src/messages.ts';
import { outwardPayload } from './payloads.ts';

/** Also in src/playwright/binding.ts: the name of the binding on every frame's window. */
const OUI_FIXTURE_BINDING = '__ouiDevtoolsPlaywrightCapture';

// Taken before any page script can replace them.
const stringify = JSON.stringify;
const addListener = EventTarget.prototype.addEventListener;
const removeListener = EventTarget.prototype.removeEventListener;
const setTimeoutNative = window.setTimeout.bind(window);
const promiseThen = Promise.prototype.then;
const stopImmediate = Event.prototype.stopImmediatePropagation;
const portPost = MessagePort.prototype.postMessage;

type Binding = (text: string) => Promise<unknown>;
let binding: Binding | null = null;
/** Batches waiting for the binding (it may be installed a moment after this script ran). */
const queue: string[] = [];
let retry = false;
let tries = 0;

function drain(): void {
  retry = false;
  if (!binding) {
    const b = (window as unknown as Record<string, unknown>)[OUI_FIXTURE_BINDING];
    if (typeof b === 'function') binding = b as Binding;
  }
  if (!binding) {
    // About 30 s of polling: a frame whose binding never comes (the context is closing) gives up quietly.
    if (tries++ < 1500 && !retry) {
      retry = true;
      setTimeoutNative(drain, 20);
    }
    return;
  }
  for (const text of queue.splice(0)) {
    try {
      const p = binding(text);
      // A page or context closing rejects the call; that must not reach the app as an unhandled rejection.
      if (p && typeof p === 'object') Reflect.apply(promiseThen, p, [undefined, () => {}]);
    } catch {
      // The binding is gone with its page.
    }
  }
}

function forward(message: unknown): void {
  const m = readHookMessage(message);
  if (!m) return;
  if (m.type === 'items') for (const it of m.items) if (it?.payload) it.payload = outwardPayload(it.payload);
  let text: string;
  try {
    text = stringify(m);
  } catch {
    return;
  }
  queue.push(text);
  drain();
}

function takeHookPort(e: Event): void {
  const me = e as MessageEvent;
  const data = me.data as Record<string, unknown> | null;
  if (me.source !== window || !data || typeof data !== 'object' || !(HOOK_PORT_MARKER in data)) return;
  Reflect.apply(stopImmediate, e, []);
  const port = me.ports[0];
  if (!port) return;
  Reflect.apply(removeListener, window, ['message', takeHookPort, true]);
  port.onmessage = (m) => forward(m.data);
  const subscribe: SubscribeCommand = { type: 'subscribe', cursors: {} };
  Reflect.apply(portPost, port, [subscribe]);
}

if (!Object.getOwnPropertyDescriptor(window, '__OUI_DEVTOOLS_HOOK__')) {
  Reflect.apply(addListener, window, ['message', takeHookPort, true]);
}
