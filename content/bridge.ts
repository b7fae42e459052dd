/**
 * The bridge: an isolated-world content script in every frame. It takes the
 * hook's private port, and relays between it and the background service
 * worker. It is idle (no port, no traffic) until a panel for this tab
 * subscribes; the background reaches it through tabs.sendMessage, which no
 * page can forge.
 *
 * Two things end a bridge's line to the extension while the page lives on:
 * - the back/forward cache: Chrome closes extension ports when the page is
 *   cached; on restore the bridge says so and the panel resubscribes;
 * - an extension reload or update: this bridge's context is invalidated, but
 *   its code keeps running and keeps the hook's port. The new service worker
 *   injects a new bridge, which runs in a new isolated world and cannot be
 *   handed that port unforgeably (anything posted on the window reaches page
 *   listeners first). So the old bridge stays the port's holder and relays for
 *   the new one over DOM events whose type names carry a per-install secret
 *   (`relay key`): a page script can neither listen to nor dispatch an event it
 *   cannot name, and the key never enters the page's world.
 */
import {
  HOOK_PORT_MARKER,
  itemsOfJson,
  PROTOCOL,
  readBridgeWelcome,
  readHookCommand,
  readHookMessage,
  type BridgeRequest,
  type HookCommand,
  type HookMessage,
  type RelayMessage,
} from '../src/messages.ts';
import { outwardPayload } from './payloads.ts';
import { postSplitting } from './post-split.ts';

/** Set (in this isolated world) by the service worker before it injects a bridge into an open page. */
const LATE_FLAG = '__ouiDevtoolsLateBridge';
const late = (globalThis as Record<string, unknown>)[LATE_FLAG] === true;

let hookPort: MessagePort | null = null;
let bgPort: chrome.runtime.Port | null = null;
/** Commands that arrived before the hook's port did. */
const early: HookCommand[] = [];
let relayKey: string | null = null;
/** Holder: a newer bridge relays through this one. Late bridge: the holder answered. */
let relaying = false;

const downType = (key: string) => `oui-devtools-down-${key}`;
const upType = (key: string) => `oui-devtools-up-${key}`;

/**
 * Takes the hook's port, then stops listening: a listener in this world would
 * make Chrome deserialize every later window message a second time.
 */
function takeHookPort(e: MessageEvent): void {
  const data = e.data as Record<string, unknown> | null;
  if (e.source !== window || !data || typeof data !== 'object' || !(HOOK_PORT_MARKER in data)) return;
  e.stopImmediatePropagation();
  if (hookPort || !e.ports[0]) return;
  removeEventListener('message', takeHookPort, true);
  hookPort = e.ports[0];
  hookPort.onmessage = (m) => {
    const message = readHookMessage(m.data);
    if (message) fromHook(message);
  };
  for (const m of early.splice(0)) hookPort.postMessage(m);
}
// Only at document_start is this listener ahead of every page listener; a bridge injected later never takes a port from the window.
if (!late) addEventListener('message', takeHookPort, true);

function fromHook(message: HookMessage): void {
  if (relaying && relayKey) {
    // Our own context is gone (the extension reloaded): the newer bridge carries it.
    dispatchEvent(new CustomEvent(upType(relayKey), { detail: message }));
    return;
  }
  toBackground(message);
}

function toHook(command: HookCommand): void {
  // Items as JSON text: the page's thread clones and posts one string per batch (ItemsJsonMessage).
  const message: HookCommand = command.type === 'subscribe' ? { ...command, json: true } : command;
  if (late) {
    if (relaying && relayKey) dispatchEvent(new CustomEvent(downType(relayKey), { detail: message }));
    // A panel's subscription can come before the worker's answer that names the holder.
    else if (!relayKey) early.push(message);
    return;
  }
  if (hookPort) hookPort.postMessage(message);
  else early.push(message);
}

function toBackground(hookMessage: HookMessage): void {
  // The hook's JSON text, parsed in this world: one string crossed from the page's world instead of a clone per item, and
  // Chrome's messaging takes the items as objects (it serialises a long string no faster than the objects it holds).
  const message = hookMessage.type === 'items:json' ? itemsOfJson(hookMessage) : hookMessage;
  if (!message) return;
  if (message.type === 'items') {
    for (const it of message.items) if (it?.payload) it.payload = outwardPayload(it.payload);
  }
  let port: chrome.runtime.Port;
  try {
    port = connect();
  } catch {
    // The extension was reloaded and nothing relays for us yet: a newer bridge will subscribe again.
    return;
  }
  post(port, message);
}

/** Posts, split as Chrome needs (post-split.ts); a port that went away mid-send is let go. */
function post(port: chrome.runtime.Port, message: HookMessage): void {
  if (!postSplitting(port, message, () => bgPort === port) && bgPort === port) bgPort = null;
}

function connect(): chrome.runtime.Port {
  if (bgPort) return bgPort;
  const port = chrome.runtime.connect({ name: 'capture' });
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError;
    // A port closed long ago (the page was in the back/forward cache), or ours dying while a newer bridge
    // relays through us (an extension reload), must not stop the current subscription.
    if (bgPort !== port || relaying) return;
    bgPort = null;
    // No panel to receive: stop live forwarding until the next subscription.
    toHook({ type: 'unsubscribe' });
  });
  port.onMessage.addListener((m) => {
    const command = readHookCommand(m);
    if (command) toHook(command);
  });
  bgPort = port;
  return port;
}

chrome.runtime.onMessage.addListener((message, sender) => {
  if (sender.id !== chrome.runtime.id) return;
  const command = readHookCommand(message);
  if (!command) return;
  if (command.type === 'subscribe') connect();
  toHook(command);
});

/** Holder side: a newer bridge speaks to the hook through us; what the hook says goes back to it. */
function serveRelay(key: string): void {
  addEventListener(downType(key), (e) => {
    const detail: unknown = (e as CustomEvent).detail;
    relaying = true;
    if ((detail as RelayMessage | null)?.type === 'relay:probe') {
      if (hookPort) dispatchEvent(new CustomEvent(upType(key), { detail: { type: 'relay:here' } satisfies RelayMessage }));
      return;
    }
    const m = readHookCommand(detail);
    if (!m) return;
    // The newer bridge has its own line to the worker; ours is dead or soon will be.
    bgPort = null;
    if (hookPort) hookPort.postMessage(m);
    else early.push(m);
  });
}

/** Late side: find the holder; without one, this page must be reloaded to be captured again. */
function attachToHolder(key: string): boolean {
  addEventListener(upType(key), (e) => {
    const detail: unknown = (e as CustomEvent).detail;
    if ((detail as RelayMessage | null)?.type === 'relay:here') {
      relaying = true;
      return;
    }
    const m = readHookMessage(detail);
    if (m) toBackground(m);
  });
  // Dispatch is synchronous: a holder in this frame has answered when it returns.
  dispatchEvent(new CustomEvent(downType(key), { detail: { type: 'relay:probe' } satisfies RelayMessage }));
  return relaying;
}

function tellBackground(request: BridgeRequest): Promise<unknown> {
  return chrome.runtime.sendMessage(request);
}

function hello(flags: { restored?: boolean; late?: boolean } = {}): void {
  tellBackground({ type: 'bridge:hello', v: PROTOCOL, ...flags }).then(
    (reply) => {
      const welcome = readBridgeWelcome(reply);
      if (welcome?.key !== undefined && !relayKey) {
        relayKey = welcome.key;
        if (late) {
          if (attachToHolder(relayKey)) for (const m of early.splice(0)) toHook(m);
          else void tellBackground({ type: 'bridge:stale' }).catch(() => {});
        } else serveRelay(relayKey);
      } else if (late && !relayKey) void tellBackground({ type: 'bridge:stale' }).catch(() => {});
      // Before the subscription: the tab's fault rules apply to this document's traffic from here on.
      if (welcome?.faults) toHook(welcome.faults);
      if (welcome?.subscribe) {
        connect();
        toHook(welcome.subscribe);
      }
    },
    () => {},
  );
}

// A new document in a watched tab starts forwarding at once: a panel that is
// open across a reload or navigation sees the new page from its first frame.
hello(late ? { late: true } : {});

// Restored from the back/forward cache: the port Chrome closed is gone. Stop
// live forwarding (a panel that starts afresh must get the replay before any
// live item) and ask the panel to subscribe again from its cursors.
addEventListener('pageshow', (e) => {
  if (!(e as PageTransitionEvent).persisted) return;
  const old = bgPort;
  bgPort = null;
  try {
    old?.disconnect();
  } catch {
    // Already closed by Chrome.
  }
  toHook({ type: 'unsubscribe' });
  hello({ restored: true });
});
