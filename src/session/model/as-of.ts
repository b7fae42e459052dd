/**
 * The state as of any event: each client's mounted surfaces and observation
 * values right after that event, the sets the runtime held under each hash
 * by then, and what the agent could see when it sent an `action:request`
 * (the surfaces held under its `knownSurfaces` against the client's surfaces
 * at that moment).
 *
 * A light replay of only what these need (registrations, deregistrations,
 * reported sets, transport loss, observation values), with the model's
 * meaning (surfaces.ts, observations.ts): a checkpoint of the whole state
 * every `every` events, taken once as the list grows, so a question about
 * event N replays at most `every` events from the checkpoint before it.
 * Replaying the full model instead costs seconds at 100,000 events
 * (bench/as-of.ts). Pure: no DOM.
 */
import type { OUISurface } from '../../protocol/index.ts';
import { isRecord } from '../../protocol/json-object.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { diffSurfaceSets } from '../diff/surface-diff.ts';
import type { WireEvent } from '../wire/wire.ts';
import { safeSurfacesHash } from './surfaces.ts';

/** Lifecycle names that mean the transport is gone (§7.6.1), as the model reads them. */
const TRANSPORT_LOST = new Set(['close', 'engine close', 'socket.io disconnect']);
/** Events between checkpoints. */
export const AS_OF_EVERY = 2_000;
/** Held sets remembered per client (distinct hashes). */
const MAX_HELD = 1_000;

export interface SurfaceAt {
  surface: OUISurface;
  since: number;
  eventId: string;
}

export interface ObservationAt {
  surfaceId: string;
  observationId: string;
  value: unknown;
  /** The update's own timestamp (the latest wins, §7.4). */
  timestamp: number;
  eventId: string;
  t: number;
}

export interface ClientAt {
  /** Mounted, by surface id, in registration order. */
  surfaces: Map<string, SurfaceAt>;
  /** By `surfaceId/observationId`. */
  observations: Map<string, ObservationAt>;
}

export interface StateAt {
  /** Position of the event in the list; the state is right after it. */
  index: number;
  eventId: string;
  t: number;
  clients: Map<string, ClientAt>;
}

interface Held {
  surfaces: OUISurface[];
  /** The first event (position) the set was held from. */
  index: number;
}

interface Checkpoint {
  /** Events applied: the state is right after event `applied - 1`. */
  applied: number;
  clients: Map<string, ClientAt>;
}

function copyClients(clients: Map<string, ClientAt>): Map<string, ClientAt> {
  const out = new Map<string, ClientAt>();
  for (const [k, c] of clients) out.set(k, { surfaces: new Map(c.surfaces), observations: new Map(c.observations) });
  return out;
}

function clientOf(clients: Map<string, ClientAt>, key: string): ClientAt {
  let c = clients.get(key);
  if (!c) clients.set(key, (c = { surfaces: new Map(), observations: new Map() }));
  return c;
}

function dropObservations(c: ClientAt, keep: (surfaceId: string, observationId: string) => boolean): void {
  for (const [k, o] of c.observations) if (!keep(o.surfaceId, o.observationId)) c.observations.delete(k);
}

function declares(s: OUISurface | undefined, observationId: string): boolean {
  return !!s && Array.isArray(s.observations) && s.observations.some((o) => isRecord(o) && o.id === observationId);
}

export class AsOfIndex {
  private checkpoints: Checkpoint[] = [];
  /** The running state at `applied` events. */
  private live = new Map<string, ClientAt>();
  private applied = 0;
  /** Per client, sets by hash, with the event they were first held from. */
  private held = new Map<string, Map<string, Held>>();
  /** The first event's id when the index was built: another means the list was cleared or its front dropped. */
  private firstId: string | undefined;

  constructor(private readonly every = AS_OF_EVERY) {}

  /** Takes in what was appended to `events` since the last call (the list as the recorder keeps it, in order). */
  sync(events: readonly WireEvent[]): void {
    if (events.length < this.applied || (this.applied > 0 && events[0]?.id !== this.firstId)) this.reset();
    if (this.applied === 0) this.firstId = events[0]?.id;
    while (this.applied < events.length) {
      if (this.applied % this.every === 0) this.checkpoints.push({ applied: this.applied, clients: copyClients(this.live) });
      this.step(this.live, events[this.applied]!, this.applied, true);
      this.applied++;
    }
  }

  private reset(): void {
    this.checkpoints = [];
    this.live = new Map();
    this.applied = 0;
    this.held = new Map();
    this.firstId = undefined;
  }

  /** The state right after event `index` of `events`. */
  stateAt(events: readonly WireEvent[], index: number): StateAt | undefined {
    this.sync(events);
    if (index < 0 || index >= events.length) return undefined;
    const target = index + 1;
    let cp: Checkpoint | undefined;
    for (let lo = 0, hi = this.checkpoints.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (this.checkpoints[mid]!.applied <= target) {
        cp = this.checkpoints[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const clients = target === this.applied ? copyClients(this.live) : copyClients(cp!.clients);
    if (target !== this.applied) for (let i = cp!.applied; i < target; i++) this.step(clients, events[i]!, i, false);
    const ev = events[index]!;
    return { index, eventId: ev.id, t: ev.t, clients };
  }

  /** The set a client's runtime held under `hash` once event `index` was applied (§7.3.4), when the capture saw it. */
  heldAt(client: string, hash: string, index: number): OUISurface[] | undefined {
    const h = this.held.get(client)?.get(hash);
    return h && h.index <= index ? h.surfaces : undefined;
  }

  private hold(client: string, surfaces: OUISurface[], index: number): void {
    let map = this.held.get(client);
    if (!map) this.held.set(client, (map = new Map()));
    // A registered set has no order of its own; its hash is taken over the client's own array, in the orders clients keep (surfaces.ts).
    const orders = [surfaces, [...surfaces].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))];
    for (const order of orders) {
      const h = safeSurfacesHash(order);
      if (map.has(h)) continue;
      map.set(h, { surfaces: order, index });
      if (map.size > MAX_HELD) map.delete(map.keys().next().value as string);
    }
  }

  /** Applies one event to `clients`; `record` when building (the held sets are recorded once). */
  private step(clients: Map<string, ClientAt>, ev: WireEvent, index: number, record: boolean): void {
    if (!isRecord(ev) || typeof ev.client !== 'string') return;
    if (ev.kind === 'lifecycle') {
      if (typeof ev.type === 'string' && TRANSPORT_LOST.has(ev.type)) {
        const c = clients.get(ev.client);
        if (c) {
          c.surfaces.clear();
          c.observations.clear();
        }
      }
      return;
    }
    if (ev.kind !== 'event' || typeof ev.type !== 'string' || !isRecord(ev.payload)) return;
    const p = ev.payload;
    switch (ev.type) {
      case 'surface:register': {
        const s = p.surface;
        if (!isRecord(s) || typeof s.id !== 'string') return;
        const c = clientOf(clients, ev.client);
        c.surfaces.delete(s.id);
        c.surfaces.set(s.id, { surface: s as unknown as OUISurface, since: ev.t, eventId: ev.id });
        dropObservations(c, (sid, oid) => sid !== s.id || declares(s as unknown as OUISurface, oid));
        if (record) this.hold(ev.client, [...c.surfaces.values()].map((x) => x.surface), index);
        return;
      }
      case 'surface:deregister': {
        const id = p.surfaceId;
        const c = clients.get(ev.client);
        if (typeof id !== 'string' || !c || !c.surfaces.delete(id)) return;
        dropObservations(c, (sid) => sid !== id);
        return;
      }
      case 'action:result': {
        const c = clientOf(clients, ev.client);
        if (Array.isArray(p.surfaces)) {
          // The client's whole set after the action (§7.3.4), authoritative (§7.3.5).
          const next = new Map<string, SurfaceAt>();
          for (const s of p.surfaces) {
            if (!isRecord(s) || typeof s.id !== 'string') continue;
            const old = c.surfaces.get(s.id);
            next.set(s.id, old && jsonEqual(old.surface, s) ? old : { surface: s as unknown as OUISurface, since: ev.t, eventId: ev.id });
          }
          c.surfaces = next;
          dropObservations(c, (sid, oid) => declares(next.get(sid)?.surface, oid));
          if (record) this.hold(ev.client, p.surfaces.filter((s): s is OUISurface => isRecord(s) && typeof s.id === 'string'), index);
        }
        if (isRecord(p.observations)) {
          const ts = typeof p.timestamp === 'number' ? p.timestamp : ev.t;
          for (const [sid, values] of Object.entries(p.observations)) {
            if (!isRecord(values)) continue;
            for (const [oid, value] of Object.entries(values)) setValue(c, sid, oid, value, ts, ev);
          }
        }
        return;
      }
      case 'observation:update': {
        if (typeof p.surfaceId !== 'string' || typeof p.observationId !== 'string') return;
        const c = clientOf(clients, ev.client);
        // A deregistered surface's observation state is discarded (§7.2): an update for a surface not mounted starts none once the client has a set.
        if (c.surfaces.size && !c.surfaces.has(p.surfaceId)) return;
        setValue(c, p.surfaceId, p.observationId, p.value, typeof p.timestamp === 'number' && Number.isFinite(p.timestamp) ? p.timestamp : ev.t, ev);
        return;
      }
    }
  }
}

function setValue(c: ClientAt, surfaceId: string, observationId: string, value: unknown, timestamp: number, ev: WireEvent): void {
  const key = `${surfaceId}/${observationId}`;
  const old = c.observations.get(key);
  // The latest timestamp wins (§7.4): an older update leaves the value as it was.
  if (old && timestamp < old.timestamp) return;
  c.observations.set(key, { surfaceId, observationId, value, timestamp, eventId: ev.id, t: ev.t });
}

export interface ClientChange {
  client: string;
  /** From then to now: "added surface checkout", "removed action clear_cart from surface cart". */
  surfaces: string[];
  /** Observations whose value differs, or that exist on one side only. */
  observations: Array<{ key: string; then?: unknown; now?: unknown }>;
}

/** What changed from `then` to `now`, per client (clients with no change left out). */
export function diffStates(then: StateAt, now: StateAt): ClientChange[] {
  const out: ClientChange[] = [];
  const keys = new Set([...then.clients.keys(), ...now.clients.keys()]);
  for (const client of keys) {
    const a = then.clients.get(client);
    const b = now.clients.get(client);
    const sa = a ? [...a.surfaces.values()].map((s) => s.surface) : [];
    const sb = b ? [...b.surfaces.values()].map((s) => s.surface) : [];
    const surfaces = diffSurfaceSets(sa, sb).summary;
    const observations: ClientChange['observations'] = [];
    const okeys = new Set([...(a?.observations.keys() ?? []), ...(b?.observations.keys() ?? [])]);
    for (const key of okeys) {
      const x = a?.observations.get(key);
      const y = b?.observations.get(key);
      if (x && y && jsonEqual(x.value, y.value)) continue;
      observations.push({ key, ...(x ? { then: x.value } : {}), ...(y ? { now: y.value } : {}) });
    }
    if (surfaces.length || observations.length) out.push({ client, surfaces, observations });
  }
  return out;
}

export interface RequestSight {
  requestId: string;
  client: string;
  surfaceId: string;
  actionId: string;
  knownSurfaces?: string;
  /** The set held under knownSurfaces when the request was sent; undefined when it carried none or the capture never saw that set. */
  held?: OUISurface[];
  /** The client's surfaces at that moment. */
  mounted: OUISurface[];
  /** From what the agent held to what the client had: empty when they agree. */
  gap: string[];
  /** The client's observation values at that moment. */
  observations: ObservationAt[];
}

/** For an `action:request` at `index`: what the agent could see when it sent it. Undefined for any other event. */
export function requestSight(index: AsOfIndex, events: readonly WireEvent[], at: number): RequestSight | undefined {
  const ev = events[at];
  if (!ev || ev.kind !== 'event' || ev.type !== 'action:request' || !isRecord(ev.payload)) return undefined;
  const p = ev.payload;
  const state = index.stateAt(events, at);
  if (!state) return undefined;
  const c = state.clients.get(ev.client);
  const mounted = c ? [...c.surfaces.values()].map((s) => s.surface) : [];
  const known = typeof p.knownSurfaces === 'string' ? p.knownSurfaces : undefined;
  const held = known !== undefined ? index.heldAt(ev.client, known, at) : undefined;
  return {
    requestId: typeof p.requestId === 'string' ? p.requestId : '',
    client: ev.client,
    surfaceId: typeof p.surfaceId === 'string' ? p.surfaceId : '',
    actionId: typeof p.actionId === 'string' ? p.actionId : '',
    ...(known !== undefined ? { knownSurfaces: known } : {}),
    ...(held ? { held } : {}),
    mounted,
    gap: held ? diffSurfaceSets(held, mounted).summary : [],
    observations: c ? [...c.observations.values()] : [],
  };
}
