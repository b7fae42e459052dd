/**
 * The request an event belongs to (its own, the one a result answers, the one
 * an ack acknowledges), as the Timeline and the event detail both show it.
 */
import type { RequestState } from '../src/session/model/types.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';
import { model, recorder } from './state.ts';
import { requestIdOf, type FilterLookup } from './timeline-filter.ts';

// Read at call time: the recorder and the model are replaced on import, clear and rebuilds.
export const lookup: FilterLookup = {
  request: (client, id) => model.clients.get(client)?.requests.get(id),
  event: (id) => recorder.byId.get(id),
};

export function requestOf(ev: WireEvent): RequestState | undefined {
  const id = requestIdOf(ev, lookup);
  return id ? model.clients.get(ev.client)?.requests.get(id) : undefined;
}
