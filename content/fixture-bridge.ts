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
 *
 * Settling (the fixture's `settle()`, before every verdict) is a handshake,
 * not a wait: the fixture dispatches an event of a type only it and this
 * script know (`FLUSH_EVENT`, made secret per browser context: the fixture
 * replaces the placeholder in the init script), carrying a fresh id. The
 * bridge asks the hook for `hook:flush`; the hook sends everything it holds,
 * then `flushed` with that id, on its private port, so after those items;
 * the bridge hands the marker to the binding after them, and answers the
 * fixture's event once the binding call for the marker returned, that is,
 * once the test's process has taken it in. Nothing new is on the page's
 * window: the binding, which a page can call with anything already, is the
 * only channel out; a page that does not patch the globals the fixture's
 * evaluate uses never sees the event type or an id.
 *
 * Commands (the fixture's stand-in runtime, `oui.call`, and its fault rules)
 * go the same way, on a second secret event type (`COMMAND_EVENT`) sent to
 * the frame that holds the client: its detail carries the command as JSON
 * text, read with `readHookCommand` as the extension's bridge reads the
 * panel's, and gets a promise of the hook's answer (an injection's
 * `answer`, or 'sent' for a command the hook does not answer).
 */
import { HOOK_PORT_MARKER, readHookCommand, readHookMessage, type FlushCommand, type SubscribeCommand } from '../src/messages.ts';
import { outwardPayload } from './payloads.ts';
import { FIXTURE_BINDING } from '../src/capture/contract.ts';

/** The name of the binding on every frame's window, which the fixture exposes (contract.ts). */
const OUI_FIXTURE_BINDING = FIXTURE_BINDING;
/** The flush request's event type; src/playwright/binding.ts names the placeholder, which the fixture replaces with a secret per context. */
const FLUSH_EVENT = '__OUI_FIXTURE_FLUSH_EVENT__';
/** The command event's type; replaced with a secret per context as the flush event's is. */
const COMMAND_EVENT = '__OUI_FIXTURE_COMMAND_EVENT__';
/** How long an injection waits for the hook's answer. */
const ANSWER_MS = 5000;
/** Tasks to wait for the hook's port, when the hook installed but its port message has not been read yet. */
const PORT_TRIES = 50;

// Taken before any page script can replace them.
const stringify = JSON.stringify;
const parse = JSON.parse;
const addListener = EventTarget.prototype.addEventListener;
const removeListener = EventTarget.prototype.removeEventListener;
const setTimeoutNative = window.setTimeout.bind(window);
const promiseThen = Promise.prototype.then;
const stopImmediate = Event.prototype.stopImmediatePropagation;
const portPost = MessagePort.prototype.postMessage;
const PromiseNative = Promise;
const ownDescriptor = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;
const detailGetter = ownDescriptor(CustomEvent.prototype, 'detail')?.get;

/** The answer a flush request gets: the marker went through the binding, did not (the page or context is closing), or no hook took it. */
type FlushAnswer = 'flushed' | 'lost' | 'no-hook';
type Done = (answer: FlushAnswer) => void;

type Binding = (text: string) => Promise<unknown>;
let binding: Binding | null = null;
/** Batches waiting for the binding (it may be installed a moment after this script ran); a marker with whom to tell when it went. */
const queue: Array<{ text: string; done?: Done }> = [];
let retry = false;
let tries = 0;
/** The hook's private port, once it handed it over. */
let hookPort: MessagePort | null = null;
/** What the fixture hears back for a command. */
type CommandAnswer = { ok: true } | { ok: false; error: string } | 'sent' | 'no-hook' | 'refused';
/** Injections sent to the hook, by command id, until its answer comes (no prototype, as below). */
const answers: Record<string, (a: CommandAnswer) => void> = Object.create(null) as Record<string, (a: CommandAnswer) => void>;
/** Flush requests sent to the hook, by id, until its marker comes back (no prototype: nothing a page patches is read). */
const flushes: Record<string, Done> = Object.create(null) as Record<string, Done>;

function retried(): void {
  retry = false;
  drain();
}

function drain(): void {
  if (!binding) {
    const b = (window as unknown as Record<string, unknown>)[OUI_FIXTURE_BINDING];
    if (typeof b === 'function') binding = b as Binding;
  }
  if (!binding) {
    // About 30 s of polling: a frame whose binding never comes (the context is closing) gives up quietly.
    if (retry) return;
    if (tries < 1500) {
      tries++;
      retry = true;
      setTimeoutNative(retried, 20);
      return;
    }
    // No binding came: a flush waiting on its marker is answered, never left hanging (the batches stay, should it come after all).
    for (let i = queue.length - 1; i >= 0; i--) {
      const done = queue[i]!.done;
      if (done) {
        queue.splice(i, 1);
        done('lost');
      }
    }
    return;
  }
  const out = queue.splice(0);
  for (let i = 0; i < out.length; i++) {
    const { text, done } = out[i]!;
    try {
      const p = binding(text);
      // A page or context closing rejects the call; that must not reach the app as an unhandled rejection.
      // The marker's call returns once the test's process has taken it in: then the flush is answered.
      if (p && typeof p === 'object') Reflect.apply(promiseThen, p, [done ? () => done('flushed') : undefined, done ? () => done('lost') : () => {}]);
      else done?.('flushed');
    } catch {
      // The binding is gone with its page.
      done?.('lost');
    }
  }
}

function forward(message: unknown): void {
  const m = readHookMessage(message);
  if (!m) return;
  let done: Done | undefined;
  if (m.type === 'answer') {
    // The hook's word on one of the fixture's commands: to that command's promise, not to the capture.
    const answer = answers[m.id];
    if (!answer) return;
    delete answers[m.id];
    answer(m.ok ? { ok: true } : { ok: false, error: m.error ?? 'not delivered' });
    return;
  }
  if (m.type === 'flushed') {
    // Only a marker this bridge asked for goes out, once.
    done = flushes[m.id];
    if (!done) return;
    delete flushes[m.id];
  }
  if (m.type === 'items') for (const it of m.items) if (it?.payload) it.payload = outwardPayload(it.payload);
  let text: string;
  try {
    text = stringify(m);
  } catch {
    done?.('lost');
    return;
  }
  queue.push(done ? { text, done } : { text });
  drain();
}

/** Asks the hook to flush; `done` is told when its marker went through the binding, or why not. */
function requestFlush(id: string, done: Done, attempt: number): void {
  try {
    if (!binding && typeof (window as unknown as Record<string, unknown>)[OUI_FIXTURE_BINDING] !== 'function') {
      // The fixture asks through the context that installed the binding: without it here, no marker can come back. Said at once.
      done('lost');
      return;
    }
    if (!hookPort) {
      // The hook hands its port over by a window message posted as it installed: a task or so away.
      if (ownDescriptor(window, '__OUI_DEVTOOLS_HOOK__') && attempt < PORT_TRIES) setTimeoutNative(() => requestFlush(id, done, attempt + 1), 1);
      else done('no-hook');
      return;
    }
    flushes[id] = done;
    const command: FlushCommand = { type: 'hook:flush', id };
    Reflect.apply(portPost, hookPort, [command]);
  } catch {
    delete flushes[id];
    done('no-hook');
  }
}

/** The fixture's flush request: its event's detail gets a promise of the answer. */
function onFlushRequest(e: Event): void {
  Reflect.apply(stopImmediate, e, []);
  try {
    const detail: unknown = detailGetter ? Reflect.apply(detailGetter, e, []) : (e as CustomEvent).detail;
    if (!detail || typeof detail !== 'object') return;
    const id = (detail as { id?: unknown }).id;
    if (typeof id !== 'string' || !id) return;
    // An own property: a setter a page put on Object.prototype never sees the answer.
    defineProperty(detail, 'answer', { value: new PromiseNative<FlushAnswer>((resolve) => requestFlush(id, resolve, 0)), writable: true, enumerable: true, configurable: true });
  } catch {
    // The request goes unanswered: the fixture reads that as no hook, and says so.
  }
}

/** Hands one command to the hook, once its port is here. */
function sendCommand(text: string, done: (a: CommandAnswer) => void, attempt: number): void {
  try {
    if (!hookPort) {
      if (ownDescriptor(window, '__OUI_DEVTOOLS_HOOK__') && attempt < PORT_TRIES) setTimeoutNative(() => sendCommand(text, done, attempt + 1), 1);
      else done('no-hook');
      return;
    }
    const command = readHookCommand(parse(text));
    if (!command || command.type === 'subscribe' || command.type === 'unsubscribe' || command.type === 'hook:flush') {
      done('refused');
      return;
    }
    if (command.type === 'hook:inject') {
      const id = command.id;
      answers[id] = done;
      // A hook answers at once; one that never does (another build) must not leave the fixture's evaluate hanging.
      setTimeoutNative(() => {
        const waiting = answers[id];
        if (!waiting) return;
        delete answers[id];
        waiting({ ok: false, error: 'the hook did not answer' });
      }, ANSWER_MS);
    }
    Reflect.apply(portPost, hookPort, [command]);
    if (command.type !== 'hook:inject') done('sent');
  } catch {
    done('refused');
  }
}

/** The fixture's command: its event's detail carries it as JSON text and gets a promise of the answer. */
function onCommand(e: Event): void {
  Reflect.apply(stopImmediate, e, []);
  try {
    const detail: unknown = detailGetter ? Reflect.apply(detailGetter, e, []) : (e as CustomEvent).detail;
    if (!detail || typeof detail !== 'object') return;
    const text = (detail as { command?: unknown }).command;
    if (typeof text !== 'string') return;
    defineProperty(detail, 'answer', { value: new PromiseNative<CommandAnswer>((resolve) => sendCommand(text, resolve, 0)), writable: true, enumerable: true, configurable: true });
  } catch {
    // Unanswered: the fixture reads that as no hook.
  }
}

function takeHookPort(e: Event): void {
  const me = e as MessageEvent;
  const data = me.data as Record<string, unknown> | null;
  if (me.source !== window || !data || typeof data !== 'object' || !(HOOK_PORT_MARKER in data)) return;
  Reflect.apply(stopImmediate, e, []);
  const port = me.ports[0];
  if (!port) return;
  Reflect.apply(removeListener, window, ['message', takeHookPort, true]);
  hookPort = port;
  port.onmessage = (m) => forward(m.data);
  const subscribe: SubscribeCommand = { type: 'subscribe', cursors: {} };
  Reflect.apply(portPost, port, [subscribe]);
}

if (!Object.getOwnPropertyDescriptor(window, '__OUI_DEVTOOLS_HOOK__')) {
  Reflect.apply(addListener, window, ['message', takeHookPort, true]);
  Reflect.apply(addListener, window, [FLUSH_EVENT, onFlushRequest, true]);
  Reflect.apply(addListener, window, [COMMAND_EVENT, onCommand, true]);
}
