/**
 * The request an event belongs to: its own `requestId`, or for an ack the
 * one of the event it acknowledges. The ack's answer is kept per instance
 * once found, so it stays the same after the acknowledged event is evicted
 * from the recorder (and out of its by-id lookup).
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { field } from './display-text.ts';

export class RequestIds {
  /** '' when the acknowledged event has no request. */
  private readonly ofAck = new WeakMap<WireEvent, string>();

  constructor(private readonly eventById: (id: string) => WireEvent | undefined) {}

  of(ev: WireEvent): string | undefined {
    const id = field(ev, 'requestId');
    if (id || ev.kind !== 'ack' || !ev.ackOf) return id || undefined;
    const known = this.ofAck.get(ev);
    if (known !== undefined) return known || undefined;
    const target = this.eventById(ev.ackOf);
    if (!target) return undefined;
    const found = field(target, 'requestId') ?? '';
    this.ofAck.set(ev, found);
    return found || undefined;
  }
}
