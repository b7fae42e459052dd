/** Plain readings of a wire event's payload, shared by the views, the query and the CLI. Strings only, never page objects. */
import type { WireEvent } from './wire.ts';

/** A string member of the event's payload, or undefined. */
export function stringField(ev: WireEvent, name: string): string | undefined {
  const p = ev.payload as Record<string, unknown> | null | undefined;
  if (!p || typeof p !== 'object') return undefined;
  const v = p[name];
  return typeof v === 'string' ? v : undefined;
}

/** The surface an event names: its `surfaceId`, or the surface it registers. */
export function eventSurface(ev: WireEvent): string | undefined {
  const direct = stringField(ev, 'surfaceId');
  if (direct) return direct;
  const s = (ev.payload as { surface?: { id?: unknown } } | null)?.surface;
  return s && typeof s.id === 'string' ? s.id : undefined;
}

/** The type the Timeline shows: the OUI event type, or what kind of record it is. */
export function eventType(ev: WireEvent): string {
  if (ev.kind === 'event') return ev.type ?? 'event';
  if (ev.kind === 'lifecycle') return ev.type ?? 'lifecycle';
  if (ev.kind === 'ack') return 'ack';
  if (ev.kind === 'malformed') return 'malformed';
  return ev.type ?? 'other';
}

/** The Timeline's type groups (its Type picker, `type:` of the filter grammar). */
export type Category = 'requests' | 'results' | 'registrations' | 'observations' | 'acks' | 'extensions' | 'lifecycle' | 'malformed' | 'other';

export function categoryOf(ev: WireEvent): Category {
  if (ev.kind === 'ack') return 'acks';
  if (ev.kind === 'lifecycle') return 'lifecycle';
  if (ev.kind === 'malformed') return 'malformed';
  if (ev.kind === 'other') return 'other';
  const t = ev.type ?? '';
  if (t === 'action:request') return 'requests';
  if (t === 'action:result') return 'results';
  if (t.startsWith('surface:')) return 'registrations';
  if (t.startsWith('observation:')) return 'observations';
  return 'extensions';
}
