/**
 * A comparison side from a recording (clients and events, as a session file
 * holds them): the panel's import path (ModelFeed in canonical order, ticked
 * at its end, finished) with a digest fed the same events. Pure.
 */
import { ModelFeed } from '../model/merge.ts';
import type { SessionModelOptions } from '../model/session-model.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';
import type { CompareSide } from './compare.ts';
import { SessionDigest } from './digest.ts';

export function sideOfRecording(clients: Iterable<WireClient>, events: readonly WireEvent[], model?: SessionModelOptions): CompareSide {
  const byKey = new Map<string, WireClient>();
  for (const c of clients) byKey.set(c.key, c);
  const feed = new ModelFeed((key) => byKey.get(key), { ...(model ? { model } : {}) });
  feed.add(events, 0);
  feed.finish();
  return sideOfModel(feed.model, events);
}

/** A side from a model and the events it was fed (a live session: the store's recorder and model). */
export function sideOfModel(model: Pick<CompareSide, 'clients' | 'findings'>, events: Iterable<WireEvent>): CompareSide {
  const digest = new SessionDigest();
  for (const ev of events) digest.apply(ev);
  return { clients: model.clients, findings: model.findings, digest };
}
