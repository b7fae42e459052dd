/**
 * OUI events carried by window.postMessage between this window and others (an
 * iframe client and its host, either side). Each frame's hook records what its
 * window receives, with the frame paths of both ends; both ends of a pairing
 * compute the same client key, so the panel sees one conversation even when
 * its two halves were captured in two frames.
 */
import { jsonPayload, type CaptureBuffer, type Sink } from '../capture-buffer.ts';
import { pairingKey, type CapturedClient } from '../../src/capture/types.ts';
import { OUI_PROTOCOL_EVENT_TYPES, sentToClient } from '../../src/protocol/types.ts';
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

/** OUI event types, as a table read without calling anything a page may have replaced (Array.prototype.includes). */
const OUI_TYPES: Record<string, true> = Object.create(null);
for (const t of OUI_PROTOCOL_EVENT_TYPES) OUI_TYPES[t] = true;

export function isOUIType(type: unknown): type is string {
  // Extension event types start with `x-` (isExtensionEventType).
  return typeof type === 'string' && (OUI_TYPES[type] === true || (type[0] === 'x' && type[1] === '-'));
}

/**
 * A frame's place in the tab changes only when frames are added, removed or
 * moved: paths are kept this long rather than walked on every message (each
 * step of the walk crosses windows, which costs more than the capture).
 */
const PATH_TTL_MS = 250;

/** What a peer's messages share while the frame tree stays: the two paths, the client and the sink. */
interface Peer {
  at: number;
  self: string;
  path: string;
  client: CapturedClient;
  key: string;
  sink: Sink;
}

/** Returns the window message handler, which the hook installs (hook.ts) as the one listener shared by the taps that read window messages. */
export function tapPostMessage(buffer: CaptureBuffer): (event: Event) => void {
  const clients = new Map<string, CapturedClient>();
  let selfPath = '';
  let selfAt = -Infinity;
  /** By source window; by origin for sources that are no window. */
  const peers = new WeakMap<object, Peer>();
  const origins = new Map<string, Peer>();

  function self(now: number): string {
    if (now - selfAt > PATH_TTL_MS) {
      selfPath = framePath(window);
      selfAt = now;
    }
    return selfPath;
  }

  function peerFor(source: MessageEventSource | null, e: MessageEvent, now: number): Peer {
    const isWindow = source !== null && 'frames' in source;
    const origin = isWindow ? '' : natives.messageOrigin(e) || 'unknown';
    let known = isWindow ? peers.get(source) : origins.get(origin);
    if (known && now - known.at <= PATH_TTL_MS) return known;
    const me = self(now);
    const path = isWindow ? framePath(source as Window) : `origin:${origin}`;
    if (known && known.self === me && known.path === path) {
      known.at = now;
      return known;
    }
    const key = pairingKey(me, path);
    let client = clients.get(key);
    if (!client) {
      client = buffer.addClient('postmessage', natives.messageOrigin(e) || 'null', key);
      clients.set(key, client);
    }
    known = { at: now, self: me, path, client, key, sink: buffer.sink(client, 'in', { from: path, to: me }) };
    if (isWindow) peers.set(source, known);
    else origins.set(origin, known);
    return known;
  }

  return (event) => {
    try {
      const e = event as MessageEvent;
      // A page can dispatch any MessageEvent it likes; only the browser's (and the injector's own) are traffic.
      if (!e.isTrusted && !buffer.isInjecting()) return;
      const data: unknown = natives.messageData(e);
      if (!data || typeof data !== 'object' || !isOUIType((data as { type?: unknown }).type)) return;
      const now = natives.now();
      const peer = peerFor(natives.messageSource(e), e, now);
      // Only answers are held, never the injected request on its way to the client.
      if (!buffer.held.active || sentToClient((data as { type: string }).type)) {
        // The hot path: the data copied now (the app may change it later), serialised when the panel reads it.
        buffer.value(peer.sink, data, undefined, now);
        return;
      }
      const copied = jsonPayload(data);
      const held = buffer.held.matches(copied.text, peer.key);
      const item = buffer.record(peer.client, 'frame', { dir: 'in', from: peer.path, to: peer.self, payload: copied.payload });
      if (copied.size !== undefined) item.size = copied.size;
      if (held) {
        item.held = true;
        // An answer to an injected request stops here: the app's own runtime never asked for it.
        e.stopImmediatePropagation();
      }
    } catch {
      // A message we cannot read is the app's business only.
    }
  };
}
