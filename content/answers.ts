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

const KEEP_MS = 120_000;

export interface HeldAnswers {
  /** Cheap check for the hot path: false unless an injection is in flight. */
  readonly active: boolean;
  hold(markers: string[], scope: string): void;
  /** Whether `text`, sent on the client `scope`, answers an injected request. */
  matches(text: string, scope: string): boolean;
}

export function createHeldAnswers(natives: Natives): HeldAnswers {
  /** `${scope}\0${marker}` → until when it holds, on that client only. */
  const markers = new Map<string, { scope: string; until: number }>();
  const held = {
    active: false,
    hold(list: string[], scope: string) {
      const until = natives.now() + KEEP_MS;
      for (const m of list) if (typeof m === 'string' && m.length >= 6 && typeof scope === 'string') markers.set(`${scope}\u0000${m}`, { scope, until });
      held.active = markers.size > 0;
    },
    matches(text: string, scope: string): boolean {
      const now = natives.now();
      let found = false;
      for (const [key, h] of markers) {
        if (h.until < now) markers.delete(key);
        else if (!found && h.scope === scope && text.includes(key.slice(scope.length + 1))) found = true;
      }
      held.active = markers.size > 0;
      return found;
    },
  };
  return held;
}
