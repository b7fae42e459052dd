/**
 * A client's mounted surfaces: registrations, deregistrations, the sets
 * results report, transport loss; and the surface-set changes between
 * consecutive sets. What a manifest alone can get wrong (ids, at least one
 * action, unique member ids) the parser reports.
 */
import { isIncomplete, surfacesHash } from '../../protocol/index.ts';
import type { OUISurface } from '../../protocol/index.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { isObj, q, type ClientTrack, type EventContext } from './client-track.ts';
import type { LifecycleKind, SurfaceState } from './model-types.ts';
import { resolveUnavailable } from './requests.ts';
import { discardObservations, syncObservations } from './observations.ts';
import { diffSurfaceSets } from '../diff/surface-diff.ts';
import { declaredVersion } from './rules.ts';
import { clearUnheld } from './session-checks.ts';

/** surfacesHash that never throws: decoded JSON always hashes, anything else is named. */
export function safeSurfacesHash(surfaces: unknown): string {
  try {
    return surfacesHash(surfaces);
  } catch {
    return 'unhashable';
  }
}

function lifecycle(c: EventContext, surfaceId: string, kind: LifecycleKind): void {
  c.track.push('lifecycle', { t: c.ev.t, eventId: c.ev.id, surfaceId, kind });
}

/**
 * Remembers the mounted set under its hash, as the runtime holds it (§7.3.4),
 * and as what the client's next surfacesHash must be. `source` is what gave
 * the runtime the set: 'register', or the result event that carried it.
 * A registered set has no order of its own, and the client hashes its own
 * array: so it is remembered in the orders clients keep (first registration,
 * latest registration last, by id).
 */
export function rememberSet(track: ClientTrack, surfaces: OUISurface[], registered: boolean, source: string): void {
  const orders = [surfaces];
  if (registered) {
    const byId = new Map(surfaces.map((s) => [s.id, s]));
    orders.push([...track.registrationOrder.keys()].map((id) => byId.get(id)).filter((s): s is OUISurface => s !== undefined));
    orders.push([...surfaces].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  }
  const hashes: string[] = [];
  for (const order of orders) {
    const h = safeSurfacesHash(order);
    if (hashes.includes(h)) continue;
    hashes.push(h);
    track.setsByHash.set(h, order);
  }
  for (const h of hashes) {
    const sources = track.heldBy.get(h) ?? [];
    if (!sources.includes(source)) sources.push(source);
    track.heldBy.set(h, sources.length > 4 ? sources.slice(-4) : sources);
  }
  track.setHashes = hashes;
}

/** Records the change from `before` to the mounted set now, when there is one. */
function recordSetChange(c: EventContext, before: OUISurface[], registered: boolean): void {
  const after = c.track.mountedSurfaces();
  const { patch, summary } = diffSurfaceSets(before, after);
  if (registered) rememberSet(c.track, c.track.wireSurfaces(), true, 'register');
  if (!patch.length) return;
  c.track.push('surfaceSets', {
    eventId: c.ev.id,
    t: c.ev.t,
    before: safeSurfacesHash(before),
    after: safeSurfacesHash(after),
    patch,
    summary,
  });
}

export function onRegister(c: EventContext, payload: Record<string, unknown>): void {
  const surface = payload.surface;
  if (!isObj(surface) || typeof surface.id !== 'string') return;
  const { track, ev } = c;
  const before = track.mountedSurfaces();
  const replaced = track.state.surfaces.has(surface.id);
  if (replaced) track.replacedAt.set(surface.id, ev.t);
  track.lost.delete(surface.id);
  track.registrationOrder.delete(surface.id);
  track.registrationOrder.set(surface.id, true);
  const sent = isObj(c.raw) ? c.raw.surface : undefined;
  track.state.surfaces.set(surface.id, {
    surface: surface as unknown as OUISurface,
    since: ev.t,
    eventId: ev.id,
    registered: true,
    ...(sent !== undefined && !jsonEqual(sent, surface) ? { sent } : {}),
  });
  const declared = declaredVersion(surface.metadata);
  if (declared) track.state.declaredVersion = declared;
  lifecycle(c, surface.id, replaced ? 'replaced' : 'registered');
  syncObservations(track, surface as unknown as OUISurface);
  // Registering again is how a client comes back after a lost transport (§7.6.1).
  track.closed = undefined;
  // The runtime has this surface now: it holds the client's surfaces again (§7.3.4).
  clearUnheld(track);
  recordSetChange(c, before, true);
}

export function onDeregister(c: EventContext, payload: Record<string, unknown>): void {
  const id = payload.surfaceId;
  if (typeof id !== 'string') return;
  const { track, ev } = c;
  if (!track.state.surfaces.has(id)) {
    // A capture that began after the registration has nothing to compare with; a surface it saw leave, or a whole set, has.
    if (!track.setComplete && !track.removedAt.has(id)) return;
    track.log.raise({
      rule: 'deregister-unknown',
      client: track.key,
      subject: id,
      message: `surface:deregister for ${q(id)}, which is not registered on this client`,
      events: [ev.id],
      t: ev.t,
    });
    return;
  }
  const before = track.mountedSurfaces();
  track.state.surfaces.delete(id);
  track.registrationOrder.delete(id);
  track.removedAt.set(id, ev.t);
  lifecycle(c, id, 'deregistered');
  discardObservations(track, id);
  resolveUnavailable(c, (s) => s.surfaceId === id, `surface ${id} deregistered`);
  recordSetChange(c, before, true);
}

/**
 * A result's `surfaces`: the client's whole set after the action (§7.3.4),
 * authoritative for it (§7.3.5). `sent` is the same list as the client sent
 * it (the parser's copy keeps every surface at its index).
 */
export function onReported(c: EventContext, surfaces: unknown[], sent: unknown[] = surfaces): void {
  const { track, ev } = c;
  const next = new Map<string, SurfaceState>();
  for (let i = 0; i < surfaces.length; i++) {
    const s = surfaces[i];
    // A duplicate id is a finding of its own (from the parser); the last one is what the set holds.
    if (!isObj(s) || typeof s.id !== 'string') continue;
    const old = track.state.surfaces.get(s.id);
    const wire = sent[i];
    const same = old !== undefined && sameSurface(old, s, wire);
    const fresh: SurfaceState = { surface: s as unknown as OUISurface, since: ev.t, eventId: ev.id, ...(wire !== s && !jsonEqual(wire, s) ? { sent: wire } : {}) };
    next.set(s.id, same ? old : fresh);
    if (!same) lifecycle(c, s.id, 'reported');
  }
  const before = track.mountedSurfaces();
  for (const id of track.state.surfaces.keys()) {
    if (!next.has(id)) {
      lifecycle(c, id, 'deregistered');
      discardObservations(track, id);
      track.removedAt.set(id, ev.t);
    }
  }
  track.state.surfaces.clear();
  track.registrationOrder.clear();
  for (const [id, s] of next) {
    track.state.surfaces.set(id, s);
    track.registrationOrder.set(id, true);
    syncObservations(track, s.surface);
  }
  track.setComplete = true;
  rememberSet(track, sent as OUISurface[], false, ev.id);
  recordSetChange(c, before, false);
}

/**
 * Whether a reported surface is the one mounted. Copies cut at the parser's
 * depth cap are cut at their own depth from their event (a registration's
 * surface one level up from a result's), so they are compared as sent.
 */
function sameSurface(old: SurfaceState, copy: unknown, wire: unknown): boolean {
  if (!isIncomplete(old.surface) && !isIncomplete(copy)) return jsonEqual(old.surface, copy);
  return jsonEqual(old.sent ?? old.surface, wire);
}

/** Transport lost (§7.6.1): every surface deregistered, pending requests SURFACE_UNAVAILABLE. */
export function onTransportLost(c: EventContext, what: string): void {
  const { track, ev } = c;
  const before = track.mountedSurfaces();
  for (const [id, s] of track.state.surfaces) {
    lifecycle(c, id, 'cleared');
    discardObservations(track, id);
    // A surface the client only reported in results (a snapshot client, §7.3.5) never registered, so it has nothing to register again.
    if (s.registered) track.lost.set(id, ev.id);
  }
  track.state.surfaces.clear();
  track.registrationOrder.clear();
  track.closed = { t: ev.t, eventId: ev.id };
  resolveUnavailable(c, () => true, `transport lost (${what})`);
  recordSetChange(c, before, false);
}

/**
 * The same list, with each surface equal to a mounted one replaced by the
 * mounted object: a client that reports its whole set with every result
 * would otherwise keep a copy of it per result in memory.
 */
export function internSurfaces(track: ClientTrack, list: unknown[]): unknown[] {
  return list.map((s) => {
    if (!isObj(s) || typeof s.id !== 'string') return s;
    const held = track.state.surfaces.get(s.id)?.surface;
    return held !== undefined && held !== (s as unknown) && jsonEqual(held, s) ? held : s;
  });
}
