/**
 * The capture line end to end, without DOM or extension APIs: relayed hook
 * messages in, decoded wire events out, in a bounded list in the canonical
 * order (order.ts), the order the model is fed in. The panel wraps it in
 * signals; tests and the importer use it as is.
 */
import { CaptureIntake } from './intake.ts';
import { WireDecoder } from './decoder.ts';
import type { WireClient, WireEvent } from './wire.ts';
import { isWorkerHook } from '../../capture/captured-items.ts';
import { omittedOf } from './capped.ts';
import { MAX_EVENTS, SourceClocks, insertAt, insertPlaced, type Placed } from './order.ts';

export { MAX_EVENTS };

export class Recorder {
  /** Set when a page's hook speaks another capture protocol than this panel: the version it named (0: none). */
  otherProtocol?: number;
  readonly intake = new CaptureIntake();
  private decoder: WireDecoder;
  readonly clients = new Map<string, WireClient>();
  /** In canonical order: `placed[i].ev === events[i]`. */
  events: WireEvent[] = [];
  private placed: Placed[] = [];
  private clocks = new SourceClocks();
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

  /** Wire events from elsewhere (an imported session), each source's in its own order. */
  add(fresh: WireEvent[]): void {
    if (!fresh.length) return;
    for (const ev of fresh) {
      if (ev === null || typeof ev !== 'object') continue;
      const p = this.clocks.place(ev, 0);
      const at = insertPlaced(this.placed, p);
      insertAt(this.events, at, ev);
      this.byId.set(ev.id, ev);
    }
    if (this.events.length > this.maxEvents) {
      const extra = this.events.length - this.maxEvents;
      this.placed.splice(0, extra);
      for (const ev of this.events.splice(0, extra)) this.byId.delete(ev.id);
      this.evicted += extra;
    }
  }

  clear(): void {
    this.evicted = 0;
    this.events = [];
    this.placed = [];
    this.clocks = new SourceClocks();
    this.byId.clear();
    this.overCap = 0;
    this.overCapSize = 0;
  }
}
