/**
 * Observation state per client: the current value (the latest timestamp
 * wins, §7.4), a bounded history of changes as RFC 6902 patches with
 * readable lines, schema verdicts, the update rate over a sliding second,
 * and pull requests (`observation:request`) waiting for their answer.
 */
import { MAX_ON_CHANGE_RATE } from '../../protocol/index.ts';
import type { OUIObservation, OUISurface } from '../../protocol/index.ts';
import { SlidingWindow, pushBounded } from './bounded.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import { isObj, q, secs, type ClientTrack, type EventContext } from './client-track.ts';
import { errorsLine, validate } from './payload.ts';
import type { ObservationState } from './model-types.ts';
import { describeChange, initialChange } from '../diff/observation-diff.ts';
import { lostWithTransport, notReregistered } from './session-checks.ts';

/** Bursts of one observation reported before the rest go unreported. */
const MAX_BURSTS_REPORTED = 3;
/** Updates a rate window holds: a flood saturates the count rather than memory. */
const RATE_WINDOW_CAP = 1000;

type Frequency = ObservationState['updateFrequency'];

function frequencyOf(decl: OUIObservation | undefined): Frequency {
  const f = decl?.updateFrequency;
  return f === 'realtime' || f === 'polling' ? f : 'on-change';
}

function keyOf(surfaceId: string, observationId: string): string {
  return `${surfaceId}/${observationId}`;
}

export function declaredObservation(track: ClientTrack, surfaceId: string, observationId: string): OUIObservation | undefined {
  const surface = track.state.surfaces.get(surfaceId)?.surface;
  const list = surface && Array.isArray(surface.observations) ? surface.observations : [];
  return list.find((o) => isObj(o) && o.id === observationId);
}

/** After a (re)registration: drop states of observations the surface no longer declares, refresh frequencies. */
export function syncObservations(track: ClientTrack, surface: OUISurface): void {
  for (const [key, st] of track.state.observations) {
    if (st.surfaceId !== surface.id) continue;
    const decl = declaredObservation(track, surface.id, st.observationId);
    if (!decl) {
      track.state.observations.delete(key);
      track.observationMeta.delete(key);
    } else st.updateFrequency = frequencyOf(decl);
  }
}

/** Deregistration discards a surface's observation state (§7.2). */
export function discardObservations(track: ClientTrack, surfaceId: string): void {
  for (const [key, st] of track.state.observations) {
    if (st.surfaceId === surfaceId) {
      track.state.observations.delete(key);
      track.observationMeta.delete(key);
    }
  }
}

function stateFor(track: ClientTrack, key: string, surfaceId: string, observationId: string): ObservationState | undefined {
  let st = track.state.observations.get(key);
  if (st) return st;
  if (track.state.observations.size >= track.limits.maxObservations) {
    track.drop('observations');
    return undefined;
  }
  st = {
    surfaceId,
    observationId,
    updateFrequency: frequencyOf(declaredObservation(track, surfaceId, observationId)),
    current: undefined,
    updates: 0,
    rate: 0,
    history: [],
    droppedHistory: 0,
  };
  track.state.observations.set(key, st);
  track.observationMeta.set(key, { window: new SlidingWindow(1000, RATE_WINDOW_CAP), inBurst: false, bursts: 0 });
  return st;
}

interface UpdateInput {
  surfaceId: string;
  observationId: string;
  value: unknown;
  timestamp: number;
  /** Pushed as `observation:update` (counts towards the rate), or read from a result's snapshot. */
  pushed: boolean;
}

type ObservationRule = 'observation-unknown' | 'observation-invalid' | 'observation-out-of-order' | 'polling-pushed' | 'observation-rate';

function raise(c: EventContext, rule: ObservationRule, subject: string, message: string): void {
  c.track.log.raise({ rule, client: c.track.key, subject, message, events: [c.ev.id], t: c.ev.t });
}

export function applyObservation(c: EventContext, u: UpdateInput): void {
  const { track, ev } = c;
  const key = keyOf(u.surfaceId, u.observationId);
  const decl = declaredObservation(track, u.surfaceId, u.observationId);

  if (!decl && u.pushed && lostWithTransport(track, u.surfaceId)) {
    notReregistered(c, u.surfaceId, `pushed observation ${q(u.observationId)} of it`);
    return;
  }
  if (!decl && track.setComplete && u.pushed) {
    const where = track.state.surfaces.has(u.surfaceId) ? `surface ${q(u.surfaceId)} declares no observation ${q(u.observationId)}` : `surface ${q(u.surfaceId)} is not registered`;
    raise(c, 'observation-unknown', key, `observation:update for ${q(key)}: ${where}`);
    // A deregistered surface's observation state is discarded (§7.2): an update after it starts none.
    if (!track.state.surfaces.has(u.surfaceId)) return;
  }
  const st = stateFor(track, key, u.surfaceId, u.observationId);
  if (!st) return;
  const meta = track.observationMeta.get(key)!;

  if (u.pushed) {
    if (track.pulls.has(key)) answerPull(track, key);
    else if (st.updateFrequency === 'polling') {
      raise(c, 'polling-pushed', key, `${q(key)} is a polling observation, pushed without an observation:request`);
    }
  }

  const verdict = decl ? validate(u.value, decl.schema) : { valid: true, errors: [] };
  if (!verdict.valid) raise(c, 'observation-invalid', key, `value of ${q(key)} does not conform to its schema: ${errorsLine(verdict)}`);

  const outOfOrder = st.currentTimestamp !== undefined && u.timestamp < st.currentTimestamp;
  let change: { patch: ReturnType<typeof initialChange>['patch']; summary: string[] };
  if (outOfOrder) {
    change = { patch: [], summary: [`out of order: timestamp ${u.timestamp} is older than ${st.currentTimestamp}; the latest value stays`] };
    raise(c, 'observation-out-of-order', key, `update of ${q(key)} is ${secs(st.currentTimestamp! - u.timestamp)} older than the latest one; the runtime keeps the latest`);
  } else {
    change = st.updates === 0 && st.history.length === 0 ? initialChange(u.value) : describeChange(st.current, u.value);
    st.current = u.value;
    st.currentTimestamp = u.timestamp;
  }
  st.updates++;

  // Rate by the client's own timestamps: one long-polling POST delivers seconds of updates at one capture time.
  if (u.pushed && !outOfOrder) {
    st.rate = meta.window.add(u.timestamp);
    if (st.rate > MAX_ON_CHANGE_RATE && st.updateFrequency === 'on-change') {
      if (!meta.inBurst) {
        meta.inBurst = true;
        meta.bursts++;
        if (meta.bursts <= MAX_BURSTS_REPORTED) {
          raise(c, 'observation-rate', `${key}#${meta.bursts}`, `${q(key)} updated ${st.rate} times within 1 s (on-change updates SHOULD be batched to at most ${MAX_ON_CHANGE_RATE} a second)`);
        }
      }
    } else if (st.rate <= MAX_ON_CHANGE_RATE) meta.inBurst = false;
  }

  st.droppedHistory += pushBounded(
    st.history,
    {
      eventId: ev.id,
      t: ev.t,
      timestamp: u.timestamp,
      patch: change.patch,
      summary: change.summary,
      valid: verdict.valid,
      errors: verdict.errors,
      ...(outOfOrder ? { outOfOrder: true } : {}),
    },
    track.limits.maxHistory,
  );
}

export function onObservationUpdate(c: EventContext, p: Record<string, unknown>): void {
  if (typeof p.surfaceId !== 'string' || typeof p.observationId !== 'string') return;
  const timestamp = typeof p.timestamp === 'number' && Number.isFinite(p.timestamp) ? p.timestamp : c.ev.t;
  applyObservation(c, { surfaceId: p.surfaceId, observationId: p.observationId, value: p.value, timestamp, pushed: true });
}

/** A result's `observations` snapshot (§7.3.4): values that differ from the current ones become changes. */
export function onObservationSnapshot(c: EventContext, snapshot: unknown, timestamp: number): void {
  if (!isObj(snapshot)) return;
  for (const [surfaceId, values] of Object.entries(snapshot)) {
    if (!isObj(values)) continue;
    for (const [observationId, value] of Object.entries(values)) {
      const st = c.track.state.observations.get(keyOf(surfaceId, observationId));
      if (st && st.updates > 0 && jsonEqual(st.current, value)) continue;
      applyObservation(c, { surfaceId, observationId, value, timestamp, pushed: false });
    }
  }
}

export function onObservationRequest(c: EventContext, p: Record<string, unknown>): void {
  if (typeof p.surfaceId !== 'string' || typeof p.observationId !== 'string') return;
  const key = keyOf(p.surfaceId, p.observationId);
  // Pulls of one observation can overlap; each is answered by one update, in whatever order.
  c.track.pulls.set(key, (c.track.pulls.get(key) ?? 0) + 1);
  c.track.pullEvents.set(c.ev.id, key);
}

/** The client's acknowledgment of an `observation:request`: a refusal answers it (nothing to wait for). */
export function onPullAck(track: ClientTrack, requestEventId: string, ok: boolean): void {
  const key = track.pullEvents.get(requestEventId);
  if (key === undefined) return;
  track.pullEvents.delete(requestEventId);
  if (!ok) answerPull(track, key);
}

function answerPull(track: ClientTrack, key: string): void {
  const pending = track.pulls.get(key) ?? 0;
  if (pending > 1) track.pulls.set(key, pending - 1);
  else track.pulls.delete(key);
}
