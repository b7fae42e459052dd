/**
 * Posting to the extension without losing items silently: a message Chrome
 * refuses (over its size limit) is split until it goes (splitRefused), and
 * an item that cannot go alone becomes a `skipped` with its size, which the
 * panel counts. The clients a message announces go first, on their own if
 * need be: the panel reads no item of a client it was never told of.
 */
import type { HookMessage } from '../src/messages.ts';
import { splitRefused } from './chunks.ts';

export interface PostPort {
  postMessage(message: unknown): void;
}

/**
 * Posts `message` on `port`, split as needed. Returns false when the port
 * went away mid-send (it says "disconnected", or `current` says it is no
 * longer the bridge's port): the rest is left to the panel's resubscription,
 * which replays from its cursors.
 */
export function postSplitting(port: PostPort, message: HookMessage, current: () => boolean): boolean {
  try {
    port.postMessage(message);
    return true;
  } catch (e) {
    if (!current() || /disconnected/i.test(String((e as Error)?.message))) return false;
    const parts = splitRefused(message);
    for (let i = 0; i < parts.length; i++) if (!postSplitting(port, parts[i]!, current)) return false;
    return true;
  }
}
