/**
 * The capture line end to end, without DOM or extension APIs: relayed hook
 * messages in, decoded wire events out, in a bounded list. The panel wraps it
 * in signals; tests and the importer use it as is.
 */
import { CaptureIntake } from './intake.ts';
import { WireDecoder } from './decoder.ts';
import type { WireClient, WireEvent } from './wire.ts';
import { isWorkerHook } from '../../capture/types.ts';
import { omittedOf } from './capped.ts';

export const MAX_EVENTS = 100_000;

export class Recorder {
  /** Set when a page's hook speaks another capture protocol than this panel: the version it named (0: none). */
  otherProtocol?: number;
  readonly intake = new CaptureIntake();
  private decoder: WireDecoder;
  readonly clients = new Map<string, WireClient>();
  events: WireEvent[] = [];
  readonly byId = new Map<string, WireEvent>();
  /** Wire events dropped from the front of the list to stay within the limit. */
  evicted = 0;
  /** Items the hook kept only the head of (over the capture cap), and their original sizes summed: each is also an event that says so. */
  overCap = 0;
  overCapSize = 0;
  /** Hook instances seen in the top frame: a new one means the page navigated or reloaded. */
  private topHooks = new Set<string>();

  constructor(
    private readonly maxEvents = MAX_EVENTS,
    private readonly onNavigate: () => void = () => {},
  ) {
    this.decoder = new WireDecoder((c) => this.clients.set(c.key, c));
  }

  accept(frameId: number, message: unknown): WireEvent[] {
    const hook = (message as { hook?: unknown } | null)?.hook;
    // A worker's hook speaks through its page's frame beside the page's own: another source, never a new document.
    if (frameId === 0 && typeof hook === 'string' && !isWorkerHook(hook) && !this.topHooks.has(hook)) {
      if (this.topHooks.size > 0) this.onNavigate();
      this.topHooks.add(hook);
    }
    const { clients, items, frame, otherProtocol } = this.intake.accept(frameId, message);
    if (otherProtocol !== undefined) this.otherProtocol = otherProtocol;
    if (frame) this.decoder.frameAt(frame.path, frame.frameId);
    for (const c of clients) this.decoder.addClient(c.client, c.hook, c.frameId);
    const fresh: WireEvent[] = [];
    for (const item of items) {
      if (omittedOf(item) && typeof item.size === 'number' && item.size > 0) {
        this.overCap++;
        this.overCapSize += item.size;
      }
      for (const ev of this.decoder.push(item)) fresh.push(ev);
    }
    this.add(fresh);
    return fresh;
  }

  /** Wire events from elsewhere (an imported session). */
  add(fresh: WireEvent[]): void {
    if (!fresh.length) return;
    for (const ev of fresh) {
      this.insertByTime(ev);
      this.byId.set(ev.id, ev);
    }
    if (this.events.length > this.maxEvents) {
      const extra = this.events.length - this.maxEvents;
      for (const ev of this.events.splice(0, extra)) this.byId.delete(ev.id);
      this.evicted += extra;
    }
  }

  /**
   * Newest last, by capture time: batches from different frames (an iframe's
   * hook, a replay after reconnecting) can arrive after later events.
   */
  private insertByTime(ev: WireEvent): void {
    const list = this.events;
    if (!list.length || list[list.length - 1]!.t <= ev.t) {
      list.push(ev);
      return;
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.t <= ev.t) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, ev);
  }

  clear(): void {
    this.evicted = 0;
    this.events = [];
    this.byId.clear();
    this.overCap = 0;
    this.overCapSize = 0;
  }
}
