/**
 * The capture line end to end, without DOM or extension APIs: relayed hook
 * messages in, decoded wire events out, in a bounded list. The panel wraps it
 * in signals; tests and the importer use it as is.
 */
import { CaptureIntake } from './intake.ts';
import { WireDecoder } from './decoder.ts';
import type { WireClient, WireEvent } from './wire.ts';

export const MAX_EVENTS = 100_000;

export class Recorder {
  readonly intake = new CaptureIntake();
  private decoder: WireDecoder;
  readonly clients = new Map<string, WireClient>();
  events: WireEvent[] = [];
  /** Wire events dropped from the front of the list to stay within MAX_EVENTS. */
  evicted = 0;

  constructor(private readonly maxEvents = MAX_EVENTS) {
    this.decoder = new WireDecoder((c) => this.clients.set(c.key, c));
  }

  accept(frameId: number, message: unknown): WireEvent[] {
    const { clients, items } = this.intake.accept(frameId, message);
    for (const c of clients) this.decoder.addClient(c.client, c.hook, c.frameId);
    const fresh: WireEvent[] = [];
    for (const item of items) for (const ev of this.decoder.push(item)) fresh.push(ev);
    if (fresh.length) {
      for (const ev of fresh) this.events.push(ev);
      if (this.events.length > this.maxEvents) {
        const extra = this.events.length - this.maxEvents;
        this.events.splice(0, extra);
        this.evicted += extra;
      }
    }
    return fresh;
  }

  clear(): void {
    this.evicted = 0;
    this.events = [];
  }
}
