/**
 * OUI events carried by window.postMessage between this window and others (an
 * iframe client and its host, either side). Each frame's hook records what its
 * window receives, with the frame paths of both ends; both ends of a pairing
 * compute the same client key, so the panel sees one conversation even when
 * its two halves were captured in two frames.
 */
import { jsonPayload, type CaptureBuffer } from '../capture-buffer.ts';
import { pairingKey, type CapturedClient } from '../../src/capture/types.ts';
import { isExtensionEventType, isProtocolEventType, sentToClient } from '../../src/protocol/types.ts';
import { natives } from '../natives.ts';


/**
 * 'top', 'top/1', 'top/1/0': a window's place in its tab, readable across
 * origins. Walked with the browser's own accessors (a page can redefine
 * `parent` and `length` on its window, never these getters or indexed frames).
 */
export function framePath(w: Window): string {
  const parts: number[] = [];
  let cur = w;
  for (let depth = 0; depth < 64; depth++) {
    const parent = natives.parent(cur);
    if (!parent || parent === cur) break;
    let index = -1;
    const n = natives.frameCount(parent);
    for (let i = 0; i < n; i++) {
      if (parent[i] === cur) {
        index = i;
        break;
      }
    }
    parts.unshift(index);
    cur = parent;
  }
  return ['top', ...parts].join('/');
}

/** The window at a frame path of this tab, or null. */
export function windowAt(path: string): Window | null {
  const parts = path.split('/');
  if (parts[0] !== 'top') return null;
  let w: Window = window.top ?? window;
  for (const p of parts.slice(1)) {
    const next = w[Number(p)];
    if (!next) return null;
    w = next;
  }
  return w;
}

function isOUIType(type: unknown): type is string {
  return isProtocolEventType(type) || isExtensionEventType(type);
}

/**
 * A frame's place in the tab changes only when frames are added, removed or
 * moved: paths are kept this long rather than walked on every message (each
 * step of the walk crosses windows, which costs more than the capture).
 */
const PATH_TTL_MS = 250;

export function tapPostMessage(buffer: CaptureBuffer): void {
  const clients = new Map<string, CapturedClient>();
  let selfPath = '';
  let selfAt = -Infinity;
  const peerPaths = new WeakMap<object, { path: string; at: number }>();

  function pathOf(w: Window, now: number): string {
    if (w === window) {
      if (now - selfAt > PATH_TTL_MS) {
        selfPath = framePath(window);
        selfAt = now;
      }
      return selfPath;
    }
    let known = peerPaths.get(w);
    if (!known || now - known.at > PATH_TTL_MS) {
      known = { path: framePath(w), at: now };
      peerPaths.set(w, known);
    }
    return known.path;
  }

  buffer.natives.listen(
    window,
    'message',
    (event) => {
      try {
        const e = event as MessageEvent;
        // A page can dispatch any MessageEvent it likes; only the browser's (and the injector's own) are traffic.
        if (!e.isTrusted && !buffer.isInjecting()) return;
        const data: unknown = natives.messageData(e);
        if (!data || typeof data !== 'object' || !isOUIType((data as { type?: unknown }).type)) return;
        const now = natives.now();
        const self = pathOf(window, now);
        const source = natives.messageSource(e);
        const peer = source && 'frames' in source ? pathOf(source as Window, now) : `origin:${natives.messageOrigin(e) || 'unknown'}`;
        const key = pairingKey(self, peer);
        let client = clients.get(key);
        if (!client) {
          client = buffer.addClient('postmessage', natives.messageOrigin(e) || 'null', key);
          clients.set(key, client);
        }
        const copied = jsonPayload(data);
        // Only answers are held, never the injected request on its way to the client.
        const type = (data as { type: string }).type;
        const held = buffer.held.active && !sentToClient(type) && buffer.held.matches(copied.text, key);
        const item = buffer.record(client, 'frame', { dir: 'in', from: peer, to: self, payload: copied.payload });
        if (copied.size !== undefined) item.size = copied.size;
        if (held) {
          item.held = true;
          // An answer to an injected request stops here: the app's own runtime never asked for it.
          e.stopImmediatePropagation();
        }
      } catch {
        // A message we cannot read is the app's business only.
      }
    },
    true,
  );
}
