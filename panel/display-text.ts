/** Small text helpers shared by the views. Everything returns plain strings: page data is rendered as text only. */
import { jsonPrefix } from '../src/protocol/json-text.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';

/**
 * What `toLocaleTimeString(undefined, { hour12: false })` says, from one
 * formatter made once: that call builds a new one each time (about a
 * millisecond), which a list of rows paid per row. A constant, not a cache:
 * nothing in this module changes after it is loaded.
 */
const TIME_OF_DAY = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: 'numeric', second: 'numeric', hour12: false });

export function clock(t: number): string {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return 'Invalid Date.NaN';
  return `${TIME_OF_DAY.format(d)}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

export function ms(n: number | undefined): string {
  if (n === undefined) return '';
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

export function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function short(value: unknown, max = 120): string {
  let s: string;
  try {
    // The start of the JSON text only, at any depth: a 100,000-deep payload is previewed, not written whole (nor String()ed, which recurses too).
    s = typeof value === 'string' ? value : (jsonPrefix(value, max + 1) ?? String(value));
  } catch {
    try {
      s = String(value);
    } catch {
      s = Array.isArray(value) ? '[…]' : '{…}';
    }
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export { stringField as field, eventSurface as surfaceOf, eventType as typeLabel } from '../src/session/wire/event-fields.ts';

export { categoryOf, type Category } from '../src/session/wire/event-fields.ts';
