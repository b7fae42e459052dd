/**
 * OUI events carried by window.postMessage between this window and others (an
 * iframe client and its host, either side). Each frame's hook records what its
 * window receives, with the frame paths of both ends; both ends of a pairing
 * compute the same client key, so the panel sees one conversation even when
 * its two halves were captured in two frames.
 */
import { jsonPayload, type CaptureBuffer, type Sink } from '../capture-buffer.ts';
import { pairingKey, type CapturedClient } from '../../src/capture/captured-items.ts';
import { sentToClient } from '../../src/protocol/oui-types.ts';
import { isOuiType } from '../../src/capture/contract.ts';
import { natives } from '../natives.ts';
import { BoundedMap } from '../bounded-map.ts';
import { SafeWeakMap, indexOf, slice } from '../primordials.ts';
import { faultsOn, hookFaults } from '../faults.ts';

const NativeMessageEvent = MessageEvent;
const dispatchNative = EventTarget.prototype.dispatchEvent;
const applyNative = Reflect.apply;
const stopImmediateNative = Event.prototype.stopImmediatePropagation;

/**
 * 'top', 'top/1', 'top/1/0': a window's place in its tab, readable across
 * origins. Walked with the browser's own accessors (a page can redefine
 * `parent` and `length` on its window, never these getters or indexed frames).
 */
export function framePath(w: Window): string {
  // Built from the window up, by string concatenation (no array methods: primordials.ts).
  let path = '';
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
    path = `/${index}${path}`;
    cur = parent;
  }
  return `top${path}`;
}

/** The window at a frame path of this tab, or null. */
export function windowAt(path: string): Window | null {
  if (slice(path, 0, 3) !== 'top' || (path.length > 3 && path[3] !== '/')) return null;
  let w: Window = window.top ?? window;
  // Each step between slashes, read with the hook's own string methods (primordials.ts).
  for (let at = 4; path.length > 3 && at <= path.length; ) {
    let end = indexOf(path, '/', at);
    if (end === -1) end = path.length;
    const next = w[Number(slice(path, at, end))];
    if (!next) return null;
    w = next;
    at = end + 1;
  }
  return w;
}

/** Pairings (and non-window sources) a window keeps a client and a path for; beyond, the oldest is let go. */
export const MAX_PAIRINGS = 256;

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
export function tapPostMessage(buffer: CaptureBuffer): ((event: Event) => void) & { readonly evicted: () => number } {
  /** The client of each pairing key. A pairing let go gets a new client, with the same key, when it speaks again (the panel joins them by key). */
  const clients = new BoundedMap<string, CapturedClient>(MAX_PAIRINGS);
  let selfPath = '';
  let selfAt = -Infinity;
  /** By source window; by origin for sources that are no window. */
  const peers: WeakMap<object, Peer> = new SafeWeakMap();
  const origins = new BoundedMap<string, Peer>(MAX_PAIRINGS);

  function self(now: number): string {
    if (now - selfAt > PATH_TTL_MS) {
      selfPath = framePath(window);
      selfAt = now;
    }
    return selfPath;
  }

  function peerFor(source: MessageEventSource | null, e: MessageEvent, now: number): Peer {
    // A window seen within the TTL first: `peers` holds only windows, and asking a WindowProxy for `frames` costs more than the lookup.
    let known = source !== null ? peers.get(source) : undefined;
    if (known && now - known.at <= PATH_TTL_MS) return known;
    const isWindow = source !== null && 'frames' in source;
    const origin = isWindow ? '' : natives.messageOrigin(e) || 'unknown';
    if (!isWindow) known = origins.get(origin);
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

  const onMessage = (event: Event): void => {
    try {
      const e = event as MessageEvent;
      // A page can dispatch any MessageEvent it likes; only the browser's (and the injector's own) are traffic.
      if (!e.isTrusted && !buffer.isInjecting()) return;
      const data: unknown = natives.messageData(e);
      if (!data || typeof data !== 'object' || !isOuiType((data as { type?: unknown }).type)) return;
      const now = natives.now();
      const peer = peerFor(natives.messageSource(e), e, now);
      // The hook's listener is the window's first: a faulted message stops here, before any of the app's.
      if (faultsOn && !buffer.isInjecting() && faultMessage(e, data as { type: string; payload?: unknown }, peer)) {
        applyNative(stopImmediateNative, e, []);
        return;
      }
      // Only answers are held, never the injected request on its way to the client.
      if (!buffer.heldAnswers.active || sentToClient((data as { type: string }).type)) {
        // The hot path: the data copied now (the app may change it later), serialised when the panel reads it.
        buffer.value(peer.sink, data, undefined, now);
        return;
      }
      const copied = jsonPayload(data);
      const held = buffer.heldAnswers.matches(copied.text, peer.key);
      const item = buffer.record(peer.client, 'frame', { dir: 'in', from: peer.path, to: peer.self, payload: copied.payload });
      if (copied.size !== undefined) item.size = copied.size;
      if (held) {
        item.held = true;
        // An answer to an injected request stops here: the app's own runtime never asked for it.
        applyNative(stopImmediateNative, e, []);
      }
    } catch {
      // A message we cannot read is the app's business only.
    }
  };
  /** A message handed to the fault rules: true when a rule took it. Both directions arrive here (this window receives them); late ones are dispatched again here. */
  function faultMessage(e: MessageEvent, data: { type: string; payload?: unknown }, peer: Peer): boolean {
    try {
      const f = hookFaults;
      if (!f?.active) return false;
      const origin = natives.messageOrigin(e);
      const source = natives.messageSource(e);
      const redeliver = (d: unknown, mark: { rule: string; did: string }) =>
        buffer.faulting(mark, () => applyNative(dispatchNative, window, [new NativeMessageEvent('message', { data: d, origin, source })]));
      return f.handle({
        direction: sentToClient(data.type) || data.type === 'x-approval:ask' || data.type === 'x-host:welcome' ? 'to-client' : 'from-client',
        transport: 'postmessage',
        client: `${buffer.hook}/${peer.client.id}`,
        clientKey: peer.key,
        ev: { type: data.type, payload: data.payload },
        encode: (payload) => ({ ...data, payload }),
        carrier: {
          record: (d, mark) => buffer.faulting(mark, () => buffer.value(peer.sink, d)),
          // Delivered here again, as the injector does; recorded by this listener with the mark.
          deliver: (d, mark) => redeliver(d, mark ?? { rule: '', did: 'delivered' }),
        },
        original: data,
        receivedHere: true,
      });
    } catch {
      return false;
    }
  }
  return Object.assign(onMessage, { evicted: () => clients.evicted + origins.evicted });
}
