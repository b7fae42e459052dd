/**
 * Builds CapturedItems and hook messages the way a page hook does (see
 * content/capture-buffer.ts): clients numbered per hook, gap-free
 * per-client sequence numbers from 1, a monotonic clock.
 */
import type { CapturedClient, CapturedItem, CapturedKind, TransportKind } from '../../src/capture/captured-items.ts';
import type { ItemsMessage } from '../../src/messages.ts';

export const T0 = 1_700_000_000_000;

export class FakeHook {
  private nextClient = 1;
  private seqs = new Map<string, number>();
  readonly clients = new Map<string, CapturedClient>();

  constructor(
    readonly hook: string,
    readonly clock: { t: number } = { t: T0 },
    readonly origin = 'http://app.test',
    readonly frameUrl = 'http://app.test/',
  ) {}

  client(kind: TransportKind, url: string, key?: string): CapturedClient {
    const c: CapturedClient = { id: `c${this.nextClient++}`, kind, url, origin: this.origin, frameUrl: this.frameUrl, ...(key ? { key } : {}) };
    this.clients.set(c.id, c);
    return c;
  }

  /** The next item of `client`: next seq, clock advanced by 1 ms. */
  item(client: CapturedClient, kind: CapturedKind, fields: Partial<CapturedItem> = {}): CapturedItem {
    const seq = (this.seqs.get(client.id) ?? 0) + 1;
    this.seqs.set(client.id, seq);
    this.clock.t += 1;
    return { ...fields, hook: this.hook, client: client.id, seq, t: this.clock.t, kind };
  }

  /** A text frame. */
  frame(client: CapturedClient, dir: 'in' | 'out', text: string, fields: Partial<CapturedItem> = {}): CapturedItem {
    return this.item(client, 'frame', { dir, payload: { text }, ...fields });
  }

  /** A JSON value as the direct and postMessage taps copy it. */
  json(client: CapturedClient, dir: 'in' | 'out', value: unknown, fields: Partial<CapturedItem> = {}): CapturedItem {
    return this.frame(client, dir, JSON.stringify(value), fields);
  }

  /** An `items` message carrying `items` and announcing their clients. */
  message(items: CapturedItem[], clients: CapturedClient[] = this.clientsOf(items)): ItemsMessage {
    return { type: 'items', hook: this.hook, items, clients };
  }

  private clientsOf(items: CapturedItem[]): CapturedClient[] {
    const ids = new Set(items.map((i) => i.client));
    return [...ids].map((id) => this.clients.get(id)).filter((c): c is CapturedClient => c !== undefined);
  }
}
