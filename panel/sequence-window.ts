/**
 * The sequence view's brush: a time range that narrows the Timeline. It is
 * one more criterion next to the query box and the pickers (the grammar has
 * no time key): applied to the filter's matches, cleared with the others.
 */
import { Matches } from './incremental-filter.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';

export interface TimeWindow {
  from: number;
  to: number;
}

let seq = 0;

/** The matches whose time lies in `w` (inclusive), as a list the Timeline folds like any other. */
export function withinWindow(matches: Matches, source: { events: readonly WireEvent[]; evicted: number }, w: TimeWindow): Matches {
  const places = new Float64Array(matches.length);
  let n = 0;
  for (let i = 0; i < matches.length; i++) {
    const ev = matches.at(i)!;
    if (ev.t >= w.from && ev.t <= w.to) places[n++] = matches.placeAt(i);
  }
  // A new generation each time: the exchanges' fold never goes on from a list the range cut.
  return new Matches(source.events, source.evicted, places, 0, n, -++seq);
}
