/**
 * The as-of replay (src/session/model/as-of.ts) against the session model,
 * a separate implementation of the same rules (surfaces.ts, observations.ts):
 * on sessions of the spec-only generator (test/generator), the state after
 * event i by the index must be the model's after events 0..i (fed one by
 * one): each client's mounted surface ids and the current value of each
 * observation of a mounted surface.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSession } from '../generator/index.ts';
import { runCapture } from '../support/run-capture.ts';
import { SessionModel } from '../../src/session/model/session-model.ts';
import { AsOfIndex, type StateAt } from '../../src/session/model/as-of.ts';
import type { ClientState } from '../../src/session/model/model-types.ts';

function fromModel(clients: Map<string, ClientState>) {
  const out: Record<string, { surfaces: string[]; values: Record<string, unknown> }> = {};
  for (const [key, c] of clients) {
    const values: Record<string, unknown> = {};
    for (const [k, o] of c.observations) if (c.surfaces.has(o.surfaceId) && o.updates > 0) values[k] = o.current;
    if (c.surfaces.size || Object.keys(values).length) out[key] = { surfaces: [...c.surfaces.keys()].sort(), values };
  }
  return out;
}

function fromIndex(s: StateAt) {
  const out: Record<string, { surfaces: string[]; values: Record<string, unknown> }> = {};
  for (const [key, c] of s.clients) {
    const values: Record<string, unknown> = {};
    for (const [k, o] of c.observations) if (c.surfaces.has(o.surfaceId)) values[k] = o.value;
    if (c.surfaces.size || Object.keys(values).length) out[key] = { surfaces: [...c.surfaces.keys()].sort(), values };
  }
  return out;
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
  test(`generated session, seed ${seed}: the index agrees with the model after every event`, () => {
    const run = runCapture(generateSession(seed).messages);
    const events = run.events;
    assert.ok(events.length > 10);
    const byKey = new Map(run.clients.map((c) => [c.key, c]));
    const index = new AsOfIndex(7);
    const model = new SessionModel();
    let checked = 0;
    for (let i = 0; i < events.length; i++) {
      const client = byKey.get(events[i]!.client);
      if (!client) continue;
      model.apply(events[i]!, client);
      assert.deepEqual(fromIndex(index.stateAt(events, i)!), fromModel(model.clients), `after event #${i} (${events[i]!.type ?? events[i]!.kind})`);
      checked++;
    }
    assert.ok(checked > 10);
  });
}
