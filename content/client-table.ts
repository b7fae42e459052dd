/**
 * The hook's clients and their counters, bounded: at most MAX_CLIENTS are
 * announced to a panel; a client the limit lets go keeps its counters (its
 * drops are still reported, its seqs never restart) until MAX_CLIENTS newer
 * clients have been let go too, and is then forgotten, its counters with it:
 * what it records from then on is not kept, and `forgotten` counts those
 * clients. Memory is bounded by 2 × MAX_CLIENTS states however many
 * clients a page makes.
 */
import type { CapturedClient } from '../src/capture/captured-items.ts';
import { createDropLedger, type DropLedger } from './drop-ledger.ts';
import { SafeMap, firstKey } from './primordials.ts';

export const MAX_CLIENTS = 2_000;

/** What the buffer knows of a client: its counters, kept off the hot path's maps. */
export interface ClientState {
  readonly client: CapturedClient;
  seq: number;
  dropped: number;
  /** Shown OUI traffic (or made only for it): its items go to the ring; the others' to the quiet ring. */
  oui: boolean;
  /** Let go by the client limit: no longer announced; its items are recorded as the quiet ring's. */
  gone?: boolean;
  /** What was dropped, by seq, once anything was. */
  ledger?: DropLedger;
}

export function noteDrop(st: ClientState, seq: number, size: number): void {
  st.dropped++;
  (st.ledger ??= createDropLedger()).add(seq, size);
}

export class ClientTable {
  /** Announced clients, oldest first. */
  readonly clients: Map<string, CapturedClient> = new SafeMap();
  /** Every client not yet forgotten (announced ones, then those let go), oldest first. */
  readonly states: Map<string, ClientState> = new SafeMap();
  /** Clients whose counters were let go. */
  forgotten = 0;

  constructor(
    private readonly maxClients = MAX_CLIENTS,
    /** A client was let go (no longer announced). */
    private readonly onEvict?: (id: string) => void,
  ) {}

  add(client: CapturedClient, oui: boolean): ClientState {
    const st: ClientState = { client, seq: 0, dropped: 0, oui };
    this.clients.set(client.id, client);
    this.states.set(client.id, st);
    if (this.clients.size > this.maxClients) {
      const oldest = firstKey(this.clients)!;
      this.clients.delete(oldest);
      this.onEvict?.(oldest);
      const old = this.states.get(oldest);
      if (old) {
        old.oui = false;
        old.gone = true;
        old.dropped++;
      }
    }
    // The states of announced clients are the newest maxClients: beyond twice that, the oldest is a let-go one.
    if (this.states.size > 2 * this.maxClients) {
      const oldest = firstKey(this.states)!;
      this.states.delete(oldest);
      this.forgotten++;
    }
    return st;
  }

  /** The client's state; undefined once it was forgotten. */
  stateOf(client: CapturedClient): ClientState | undefined {
    return this.states.get(client.id);
  }

  client(id: string): CapturedClient | undefined {
    return this.clients.get(id);
  }

  /** The announced clients, oldest first. */
  list(): CapturedClient[] {
    const out: CapturedClient[] = [];
    this.clients.forEach((c) => {
      out[out.length] = c;
    });
    return out;
  }
}
