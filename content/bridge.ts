/**
 * The bridge: an isolated-world content script in every frame. It takes the
 * hook's private port, and relays between it and the background service
 * worker. It is idle (no port, no traffic) until a panel for this tab
 * subscribes; the background reaches it through tabs.sendMessage, which no
 * page can forge.
 */
import { HOOK_PORT_MARKER, type CapturedItem, type CapturedPayload } from '../src/capture/types.ts';
import { bytesToBase64 } from '../src/protocol/socketio.ts';

let hookPort: MessagePort | null = null;
let bgPort: chrome.runtime.Port | null = null;
/** Commands that arrived before the hook's port did. */
const early: unknown[] = [];

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
  hookPort.onmessage = (m) => toBackground(m.data);
  for (const m of early.splice(0)) hookPort.postMessage(m);
}
addEventListener('message', takeHookPort, true);

function toHook(message: unknown): void {
  if (hookPort) hookPort.postMessage(message);
  else early.push(message);
}

function outward(payload: CapturedPayload | undefined): CapturedPayload | undefined {
  return payload && typeof payload === 'object' && 'bytes' in payload && payload.bytes instanceof Uint8Array ? { base64: bytesToBase64(payload.bytes) } : payload;
}

function toBackground(message: unknown): void {
  const m = message as { type?: string; items?: CapturedItem[] };
  if (m?.type === 'items' && Array.isArray(m.items)) {
    for (const it of m.items) if (it.payload) it.payload = outward(it.payload);
  }
  const port = connect();
  try {
    port.postMessage(message);
  } catch {
    // The worker went away mid-send; the panel's resubscription replays from its cursors.
    bgPort = null;
  }
}

function connect(): chrome.runtime.Port {
  if (bgPort) return bgPort;
  const port = chrome.runtime.connect({ name: 'capture' });
  port.onDisconnect.addListener(() => {
    if (bgPort === port) bgPort = null;
    // No panel to receive: stop live forwarding until the next subscription.
    toHook({ type: 'unsubscribe' });
  });
  port.onMessage.addListener((m) => toHook(m));
  bgPort = port;
  return port;
}

chrome.runtime.onMessage.addListener((message, sender) => {
  if (sender.id !== chrome.runtime.id || !message || typeof message !== 'object') return;
  const m = message as { type?: string };
  if (m.type === 'subscribe') {
    connect();
    toHook(message);
  } else if (m.type === 'unsubscribe') {
    toHook(message);
  } else if (typeof m.type === 'string' && m.type.startsWith('hook:')) {
    toHook(message);
  }
});

// A new document in a watched tab starts forwarding at once: a panel that is
// open across a reload or navigation sees the new page from its first frame.
chrome.runtime.sendMessage({ type: 'hello' }).then(
  (reply: unknown) => {
    if ((reply as { type?: unknown } | null)?.type === 'subscribe') {
      connect();
      toHook(reply);
    }
  },
  () => {},
);
