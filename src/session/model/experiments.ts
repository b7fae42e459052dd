/**
 * The user's own experiments: requests the panel injected or replayed, and
 * everything that answers them (results, receipts, acknowledgments of those).
 * What they show is real behaviour of the client, but the app never did it:
 * a request sent without approval on purpose is no bug of the app's. The
 * session model asks this index, when it raises a finding, whether the
 * events behind it are part of an experiment, and marks the finding so.
 *
 * Answers are found by request id and capture time, not by arrival: a result
 * may be applied before its request (two frames' batches race), and a
 * same-id replay (§7.3.7) makes the original's id an experiment only from the
 * replay on. Bounded: a long session forgets its oldest experiments.
 */
import { BoundedMap } from './bounded.ts';

const MAX_ENTRIES = 20_000;

export class Experiments {
  /** Injected events, by event id. */
  private readonly injected = new BoundedMap<string, true>(MAX_ENTRIES);
  /** `${client}\u0000${requestId}` → capture time of its first injected send, and whether the app's runtime sent that id too. */
  private readonly requests = new BoundedMap<string, { injectedFrom?: number; appSent: boolean }>(MAX_ENTRIES);
  /** Result event id → its client, request id and capture time. */
  private readonly results = new BoundedMap<string, { client: string; requestId: string; t: number }>(MAX_ENTRIES);
  /** Acknowledgment event id → the event it acknowledges. */
  private readonly acks = new BoundedMap<string, string>(MAX_ENTRIES);

  /** An event the panel's injector produced. */
  noteInjected(eventId: string): void {
    this.injected.set(eventId, true);
  }

  /** An `action:request`: an injected one makes its id an experiment (from `t` on, when the app's runtime sent that id too). */
  noteRequest(client: string, requestId: string, t: number, injected: boolean): void {
    const k = key(client, requestId);
    const known = this.requests.get(k) ?? { appSent: false };
    if (!injected) known.appSent = true;
    else if (known.injectedFrom === undefined || t < known.injectedFrom) known.injectedFrom = t;
    this.requests.set(k, known);
  }

  /** An `action:result` of `client`, whatever it answers. */
  noteResult(client: string, eventId: string, requestId: string, t: number): void {
    this.results.set(eventId, { client, requestId, t });
  }

  /** An acknowledgment (a receipt, a result's acceptance or refusal) of `of`. */
  noteAck(eventId: string, of: string): void {
    this.acks.set(eventId, of);
  }

  /** Whether the event is an experiment: injected, answering an injected request, or acknowledging either. */
  isExperiment(eventId: string): boolean {
    // Acks of acks do not exist; the bound only guards against a cycle in hostile ids.
    for (let id: string | undefined = eventId, hops = 0; id !== undefined && hops < 4; id = this.acks.get(id), hops++) {
      if (this.injected.has(id)) return true;
      const result = this.results.get(id);
      if (result) {
        // An id only the panel used: every answer is the experiment's, whatever two frames' clocks say.
        const req = this.requests.get(key(result.client, result.requestId));
        if (req?.injectedFrom !== undefined && (!req.appSent || result.t >= req.injectedFrom)) return true;
      }
    }
    return false;
  }

  /** Whether any of the events is an experiment. */
  anyExperiment(eventIds: readonly string[]): boolean {
    return eventIds.some((id) => typeof id === 'string' && this.isExperiment(id));
  }
}

function key(client: string, requestId: string): string {
  return `${client}\u0000${requestId}`;
}
