/**
 * What a comparison needs of one session that the model does not keep: every
 * surface the session ever declared (the model holds the mounted ones only,
 * and a surface that unmounted before the end is still part of the build),
 * and where each event is in the app's terms (surface, action, observation),
 * so a finding is matched across sessions by rule and place, never by event
 * id or request id (both differ in every recording).
 *
 * Fed the wire events in order, as the model is. Pure.
 */
import type { OUISurface } from '../../protocol/index.ts';
import { isRecord } from '../../protocol/json-object.ts';
import type { WireEvent } from '../wire/wire.ts';

/** Places remembered, oldest forgotten first past this (a finding's events are nearly always recent). */
const MAX_PLACES = 200_000;
/** Requests remembered per client for the place of their answers. */
const MAX_REQUESTS = 50_000;

export class SessionDigest {
  /** Every surface id declared in the session, by its latest declaration (any client). */
  readonly surfaces = new Map<string, OUISurface>();
  /** Event id → "surface", "surface.action" or "surface.observation". */
  private readonly places = new Map<string, string>();
  /** `${client} ${requestId}` → "surface.action". */
  private readonly requests = new Map<string, string>();

  apply(ev: WireEvent): void {
    if (!isRecord(ev)) return;
    // An acknowledgment is where what it acknowledges is.
    if (ev.kind === 'ack' && typeof ev.ackOf === 'string') {
      const of = this.places.get(ev.ackOf);
      if (of !== undefined) remember(this.places, ev.id, of, MAX_PLACES);
      return;
    }
    if (ev.kind !== 'event' || typeof ev.type !== 'string' || !isRecord(ev.payload)) return;
    const p = ev.payload;
    let place: string | undefined;
    switch (ev.type) {
      case 'surface:register':
        if (isRecord(p.surface) && typeof p.surface.id === 'string') {
          this.surfaces.set(p.surface.id, p.surface as unknown as OUISurface);
          place = p.surface.id;
        }
        break;
      case 'surface:deregister':
        if (typeof p.surfaceId === 'string') place = p.surfaceId;
        break;
      case 'action:request':
        if (typeof p.surfaceId === 'string' && typeof p.actionId === 'string') {
          place = `${p.surfaceId}.${p.actionId}`;
          if (typeof p.requestId === 'string') remember(this.requests, `${ev.client} ${p.requestId}`, place, MAX_REQUESTS);
        }
        break;
      case 'action:result':
        if (Array.isArray(p.surfaces)) for (const s of p.surfaces) if (isRecord(s) && typeof s.id === 'string') this.surfaces.set(s.id, s as unknown as OUISurface);
        if (typeof p.requestId === 'string') place = this.requests.get(`${ev.client} ${p.requestId}`);
        break;
      case 'observation:update':
      case 'observation:request':
        if (typeof p.surfaceId === 'string' && typeof p.observationId === 'string') place = `${p.surfaceId}.${p.observationId}`;
        break;
    }
    if (place !== undefined) remember(this.places, ev.id, place, MAX_PLACES);
  }

  /** Where an event is, in the app's terms; undefined for one that names no surface. */
  placeOf(eventId: string): string | undefined {
    return this.places.get(eventId);
  }
}

function remember(map: Map<string, string>, key: string, value: string, max: number): void {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}
