/**
 * Answers to injected requests, kept from the app's real agent runtime (the
 * panel's default): the runtime never asked, so a result it receives would
 * only confuse it. The panel names markers (the injected requestId, a
 * Socket.IO ack id it chose); any frame carrying one is captured as usual but
 * not delivered to the runtime, for a while after the injection.
 */
import type { Natives } from './natives.ts';

const KEEP_MS = 120_000;

export interface HeldAnswers {
  /** Cheap check for the hot path: false unless an injection is in flight. */
  readonly active: boolean;
  hold(markers: string[]): void;
  matches(text: string): boolean;
}

export function createHeldAnswers(natives: Natives): HeldAnswers {
  const markers = new Map<string, number>();
  const held = {
    active: false,
    hold(list: string[]) {
      const until = natives.now() + KEEP_MS;
      for (const m of list) if (typeof m === 'string' && m.length >= 6) markers.set(m, until);
      held.active = markers.size > 0;
    },
    matches(text: string): boolean {
      const now = natives.now();
      for (const [m, until] of markers) {
        if (until < now) markers.delete(m);
        else if (text.includes(m)) return true;
      }
      held.active = markers.size > 0;
      return false;
    },
  };
  return held;
}
