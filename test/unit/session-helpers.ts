/**
 * A tiny builder of wire traffic for the session model tests: one client,
 * a clock, and OUI events that are conformant unless a test says otherwise
 * (results carry timestamp, surfacesHash and the mounted surfaces).
 */
import { surfacesHash } from '../../src/protocol/index.ts';
import type { OUISurface } from '../../src/protocol/index.ts';
import { SessionModel, replay, type SessionModelOptions } from '../../src/session/model/session-model.ts';
import type { Finding } from '../../src/session/model/model-types.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

export function makeClient(key: string): WireClient {
  return { key, kind: 'socket.io', label: key, origin: 'http://shop.test', frameUrl: 'http://shop.test/', frameId: 0, namespace: '/' };
}

export const T0 = 1_700_000_000_000;

let uuidSeq = 0;
/** A fresh UUID v4-shaped id. */
export function uuid(): string {
  uuidSeq++;
  const hex = uuidSeq.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

export function cartSurface(extra: Partial<OUISurface> = {}): OUISurface {
  return {
    id: 'cart',
    name: 'Cart',
    description: 'The shopping cart',
    actions: [
      {
        id: 'add_item',
        description: 'Add an item',
        effect: 'edit',
        input: {
          type: 'object',
          properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
          required: ['sku', 'qty'],
        },
        output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      },
      { id: 'clear_cart', description: 'Empty the cart', effect: 'edit', confirm: true, input: { type: 'object', properties: {} } },
      { id: 'place_order', description: 'Order', effect: 'transaction', input: { type: 'object', properties: { note: { type: 'string' } } } },
      { id: 'export_cart', description: 'Export', effect: 'job', async: true, input: { type: 'object', properties: {} } },
      { id: 'view_cart', description: 'Show the cart', effect: 'view', input: { type: 'object', properties: {} } },
    ],
    observations: [
      { id: 'items', description: 'Items', schema: { type: 'array', items: { type: 'object' } } },
      { id: 'total', description: 'Total', schema: { type: 'number' }, updateFrequency: 'on-change' },
      { id: 'cursor', description: 'Cursor', schema: { type: 'number' }, updateFrequency: 'realtime' },
      { id: 'stock', description: 'Stock', schema: { type: 'integer' }, updateFrequency: 'polling' },
    ],
    ...extra,
  };
}

export function catalogSurface(): OUISurface {
  return {
    id: 'catalog',
    name: 'Catalog',
    description: 'Products',
    actions: [{ id: 'search', description: 'Search', effect: 'view', input: { type: 'object', properties: { q: { type: 'string' } } } }],
  };
}

export class Traffic {
  t = T0;
  private seq = 0;
  readonly events: Array<{ ev: WireEvent; client: WireClient }> = [];
  /** What the client has mounted, as the helper's results report it. */
  mounted: OUISurface[] = [];

  constructor(readonly client: WireClient = makeClient('c1')) {}

  wait(ms: number): this {
    this.t += ms;
    return this;
  }

  raw(partial: Partial<WireEvent> & Pick<WireEvent, 'kind'>): WireEvent {
    const ev: WireEvent = { id: `h/${this.client.key}/${++this.seq}`, client: this.client.key, t: this.t, dir: 'out', size: 0, ...partial };
    this.events.push({ ev, client: this.client });
    return ev;
  }

  event(type: string, payload: unknown, dir: 'in' | 'out', extra: Partial<WireEvent> = {}): WireEvent {
    return this.raw({ kind: 'event', type, payload, dir, ...extra });
  }

  register(surface: OUISurface): WireEvent {
    this.mounted = [...this.mounted.filter((s) => s.id !== surface.id), surface];
    return this.event('surface:register', { surface, timestamp: this.t }, 'out');
  }

  deregister(surfaceId: string): WireEvent {
    this.mounted = this.mounted.filter((s) => s.id !== surfaceId);
    return this.event('surface:deregister', { surfaceId, timestamp: this.t }, 'out');
  }

  request(surfaceId: string, actionId: string, params: unknown = {}, extra: Record<string, unknown> = {}, wire: Partial<WireEvent> = {}): { ev: WireEvent; requestId: string } {
    const requestId = (extra.requestId as string | undefined) ?? uuid();
    const ev = this.event('action:request', { requestId, surfaceId, actionId, params, timestamp: this.t, ...extra }, 'in', { wantsAck: true, ...wire });
    return { ev, requestId };
  }

  /** A conformant result: surfacesHash of the mounted set, and the set itself, unless overridden or `omit`ted. */
  result(requestId: string, fields: Record<string, unknown> = { success: true }, omit: string[] = []): WireEvent {
    const payload: Record<string, unknown> = {
      requestId,
      timestamp: this.t,
      surfacesHash: surfacesHash(this.mounted),
      surfaces: this.mounted,
      ...fields,
    };
    for (const f of omit) delete payload[f];
    return this.event('action:result', payload, 'out', { wantsAck: true });
  }

  /** The client's receipt of a request (§7.3.7). */
  receipt(of: WireEvent, payload: unknown = { ok: true }): WireEvent {
    return this.raw({ kind: 'ack', dir: 'out', ackOf: of.id, payload });
  }

  /** The receiver's acknowledgment of a result (§7.3.6). */
  resultAck(of: WireEvent, payload: unknown = { ok: true }): WireEvent {
    return this.raw({ kind: 'ack', dir: 'in', ackOf: of.id, payload });
  }

  update(surfaceId: string, observationId: string, value: unknown, timestamp = this.t): WireEvent {
    return this.event('observation:update', { surfaceId, observationId, value, timestamp }, 'out');
  }

  open(type = 'open'): WireEvent {
    return this.raw({ kind: 'lifecycle', type, dir: 'in' });
  }

  close(type = 'socket.io disconnect'): WireEvent {
    return this.raw({ kind: 'lifecycle', type, dir: 'in' });
  }

  model(opts?: SessionModelOptions): SessionModel {
    return replay(this.events, opts);
  }
}

/** The rule ids of a model's findings. */
export function rules(model: SessionModel): string[] {
  return model.findings.map((f) => f.rule);
}

export function findingsOf(model: SessionModel, rule: string): Finding[] {
  return model.findings.filter((f) => f.rule === rule);
}

/** A client with the cart surface registered. */
/** A client whose connection the capture saw open (so it knows every registration), with the cart registered. */
export function withCart(client?: WireClient): Traffic {
  const tr = new Traffic(client);
  tr.open();
  tr.register(cartSurface());
  return tr;
}
