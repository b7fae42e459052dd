/**
 * Answers to injected requests, kept from the app's real agent runtime (the
 * panel's default): the runtime never asked, so a result it receives would
 * only confuse it. The panel names markers (the injected requestId, a
 * Socket.IO ack id it chose) and the one client they hold for (a socket, a
 * postMessage pairing, a direct transport); a frame of that client carrying
 * one is captured as usual but not delivered to the runtime, for a while
 * after the injection. The same marker on another client is not touched.
 */
import type { Natives } from './natives.ts';
import { SafeMap, includes } from './primordials.ts';

/** How long after the injection a marker holds. */
export const KEEP_MS = 120_000;
/** Shorter markers are refused: a short string would match ordinary traffic. */
export const MIN_MARKER = 6;

export interface HeldAnswers {
  /** Cheap check for the hot path: false unless an injection is in flight. */
  readonly active: boolean;
  /** `selfAck`: the requester (a stand-in runtime) acknowledges these answers itself; the hook does not accept them for it. */
  hold(markers: string[], scope: string, selfAck?: boolean): void;
  /** Whether `text`, sent on the client `scope`, answers an injected request. */
  matches(text: string, scope: string): boolean;
  /** Whether the held answer `text` on `scope` is one its requester acknowledges itself. */
  selfAcked(text: string, scope: string): boolean;
}

export function createHeldAnswers(natives: Natives): HeldAnswers {
  /** `${scope}\0${marker}` → until when it holds, on that client only. */
  const markers: Map<string, { scope: string; marker: string; until: number; selfAck: boolean }> = new SafeMap();
  const held = {
    active: false,
    hold(list: string[], scope: string, selfAck = false) {
      const until = natives.now() + KEEP_MS;
      if (typeof scope !== 'string') return;
      for (let i = 0; i < list.length; i++) {
        const m = list[i];
        if (typeof m === 'string' && m.length >= MIN_MARKER) markers.set(`${scope}\u0000${m}`, { scope, marker: m, until, selfAck: selfAck === true });
      }
      held.active = markers.size > 0;
    },
    matches(text: string, scope: string): boolean {
      const now = natives.now();
      let found = false;
      // Deleting the current entry inside forEach is allowed: iteration goes on with the next.
      markers.forEach((h, key) => {
        if (h.until < now) markers.delete(key);
        else if (!found && h.scope === scope && includes(text, h.marker)) found = true;
      });
      held.active = markers.size > 0;
      return found;
    },
    selfAcked(text: string, scope: string): boolean {
      let found = false;
      markers.forEach((h) => {
        if (!found && h.selfAck && h.scope === scope && includes(text, h.marker)) found = true;
      });
      return found;
    },
  };
  return held;
}
