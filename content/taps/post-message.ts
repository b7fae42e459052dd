/**
 * OUI events carried by window.postMessage between this window and others (an
 * iframe client and its host, either side). Each frame's hook records what its
 * window receives, with the frame paths of both ends; both ends of a pairing
 * compute the same client key, so the panel sees one conversation even when
 * its two halves were captured in two frames.
 */
import { jsonPayload, type CaptureBuffer } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/types.ts';
import { isExtensionEventType, isProtocolEventType } from '../../src/protocol/types.ts';
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

export function tapPostMessage(buffer: CaptureBuffer): void {
  const clients = new Map<string, CapturedClient>();
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
        const self = framePath(window);
        const source = natives.messageSource(e);
        const origin = natives.messageOrigin(e);
        const peer = source && 'frames' in source ? framePath(source as Window) : `origin:${origin || 'unknown'}`;
        const key = `postmessage:${[self, peer].sort().join('<->')}`;
        let client = clients.get(key);
        if (!client) {
          client = buffer.addClient('postmessage', origin || 'null', key);
          clients.set(key, client);
        }
        const { text, ...copied } = jsonPayload(data);
        // Only answers are held, never the injected request on its way to the client.
        const type = (data as { type: string }).type;
        const held = buffer.held.active && type !== 'action:request' && type !== 'observation:request' && buffer.held.matches(text);
        buffer.record(client, 'frame', { dir: 'in', from: peer, to: self, ...copied, ...(held ? { held } : {}) });
        // An answer to an injected request stops here: the app's own runtime never asked for it.
        if (held) e.stopImmediatePropagation();
      } catch {
        // A message we cannot read is the app's business only.
      }
    },
    true,
  );
}
