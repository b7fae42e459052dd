/**
 * "As of event #N": the state the Surfaces, Observations, Hashes and
 * Approvals views show while an event is selected (src/session/model/as-of.ts),
 * the banner that says so with its way back to live, what changed since, and
 * for an `action:request` what the agent could see when it sent it.
 *
 * The views read their clients through `useAsOfClients`: the live model's
 * client states with what the moment changes (mounted surfaces, observation
 * values and history, hash and approval records up to the event) replaced.
 */
import { useEffect } from 'preact/hooks';
import type { ApprovalCheck, ClientState, ObservationState, SurfaceState } from '../../src/session/model/model-types.ts';
import { diffStates, requestSight, type StateAt } from '../../src/session/model/as-of.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import type { PanelStore } from '../store.ts';
import { useModel } from '../store-context.ts';
import { clock, short, typeLabel } from '../display-text.ts';
import { useShownClients } from './clients.tsx';
import { JsonTree } from '../components/json-tree.tsx';

export interface AsOf {
  ev: WireEvent;
  /** Position in the recorder's list: the "#N" shown is this + 1. */
  index: number;
  then: StateAt;
  now: StateAt;
  /** Position of an event in the list (undefined: not in it). */
  position(id: string): number | undefined;
}

/** Positions by event id, extended as the list grows, rebuilt when it is another list or its front moved. */
const positions = { events: null as readonly WireEvent[] | null, first: '', map: new Map<string, number>() };
function positionOf(events: readonly WireEvent[], id: string): number | undefined {
  if (positions.events !== events || positions.map.size > events.length || (events.length && events[0]!.id !== positions.first)) {
    positions.events = events;
    positions.first = events[0]?.id ?? '';
    positions.map = new Map();
  }
  for (let i = positions.map.size; i < events.length; i++) positions.map.set(events[i]!.id, i);
  return positions.map.get(id);
}

/** The moment the views show, or null for live. */
export function asOfState(store: PanelStore): AsOf | null {
  const id = store.asOf.value;
  const { recorder } = store;
  if (id === null) return null;
  const events = recorder.events;
  const index = positionOf(events, id);
  if (index === undefined) return null;
  const then = store.asOfIndex.stateAt(events, index);
  const now = store.asOfIndex.stateAt(events, events.length - 1);
  if (!then || !now) return null;
  return { ev: events[index]!, index, then, now, position: (x) => positionOf(events, x) };
}

export function useAsOf(): AsOf | null {
  return asOfState(useModel());
}

function upTo<T extends { eventId: string }>(list: readonly T[], at: AsOf): T[] {
  return list.filter((r) => {
    const p = at.position(r.eventId);
    return p !== undefined && p <= at.index;
  });
}

/** An approval as it stood then: its outcome is pending until the event that decided it. */
function approvalThen(c: ClientState, a: ApprovalCheck, at: AsOf): ApprovalCheck {
  if (a.outcome === 'pending') return a;
  const req = c.requests.get(a.requestId);
  // The first answer (an interim one says it started) or the runtime's resolution decided it.
  const decided = req?.results[0]?.eventId ?? req?.resolution?.eventId;
  const p = decided !== undefined ? at.position(decided) : undefined;
  return p !== undefined && p > at.index ? { ...a, outcome: 'pending' } : a;
}

/** One client as of the moment. */
function clientThen(c: ClientState, at: AsOf): ClientState {
  const then = at.then.clients.get(c.client.key);
  const surfaces = new Map<string, SurfaceState>();
  for (const [id, s] of then?.surfaces ?? []) surfaces.set(id, { surface: s.surface, since: s.since, eventId: s.eventId });
  const observations = new Map<string, ObservationState>();
  for (const [key, o] of then?.observations ?? []) {
    const live = c.observations.get(key);
    const history = live ? upTo(live.history, at) : [];
    observations.set(key, {
      surfaceId: o.surfaceId,
      observationId: o.observationId,
      updateFrequency: live?.updateFrequency ?? 'on-change',
      current: o.value,
      currentTimestamp: o.timestamp,
      updates: Math.max(1, history.length),
      rate: 0,
      history,
      droppedHistory: live?.droppedHistory ?? 0,
    });
  }
  return {
    ...c,
    surfaces,
    observations,
    lifecycle: upTo(c.lifecycle, at),
    hashes: upTo(c.hashes, at),
    surfaceSets: upTo(c.surfaceSets, at),
    approvals: upTo(c.approvals, at).map((a) => approvalThen(c, a, at)),
  };
}

/** The clients a per-client view shows, as of the selected event (live when none). */
export function useAsOfClients(): ClientState[] {
  const shown = useShownClients();
  const at = useAsOf();
  return at ? shown.map((c) => clientThen(c, at)) : shown;
}

/** Back to now; the selection stays (its detail stays open in the Timeline). */
function goLive(store: PanelStore): void {
  store.asOf.value = null;
}

/** In the event detail: show the four views as of this event (while on, selecting another event moves the moment). */
export function AsOfButton({ ev }: { ev: WireEvent }) {
  const store = useModel();
  const on = store.asOf.value === ev.id;
  return (
    <button
      class="as-of-here"
      data-testid="as-of-here"
      aria-pressed={on}
      title="Show Surfaces, Observations, Hashes and Approvals as they were right after this event"
      onClick={() => {
        store.asOf.value = on ? null : ev.id;
        if (!on) store.view.value = 'surfaces';
      }}
    >
      {on ? 'As of this event ✓' : 'As of this event'}
    </button>
  );
}

/** Escape in a view showing a moment goes back to live. */
function useEscapeToLive(store: PanelStore, on: boolean): void {
  useEffect(() => {
    if (!on) return;
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
      goLive(store);
    };
    document.addEventListener('keydown', key);
    return () => document.removeEventListener('keydown', key);
  }, [store, on]);
}

/** "As of event #N — Live", with what changed since and, for a request, what the agent could see. */
export function AsOfBanner() {
  const store = useModel();
  const at = useAsOf();
  useEscapeToLive(store, at !== null);
  if (!at) return null;
  const changes = diffStates(at.then, at.now);
  const sight = requestSight(store.asOfIndex, store.recorder.events, at.index);
  const label = (key: string) => store.recorder.clients.get(key)?.label ?? key;
  return (
    <section class="as-of" data-testid="as-of-banner" role="status">
      <div class="as-of-head">
        <b>
          As of event #{at.index + 1}
        </b>{' '}
        <span class="muted">
          ({typeLabel(at.ev)} at {clock(at.ev.t)})
        </span>
        <button class="as-of-live" data-testid="as-of-live" title="Show the state now (Escape)" onClick={() => goLive(store)}>
          Live
        </button>
      </div>
      {sight && (
        <div class="as-of-sight" data-testid="as-of-sight">
          <p>
            When the agent sent <code>{sight.surfaceId}</code> › <code>{sight.actionId}</code>:{' '}
            {sight.knownSurfaces === undefined
              ? 'its request carried no knownSurfaces.'
              : sight.held
                ? sight.gap.length
                  ? `the surfaces it held (knownSurfaces ${short(sight.knownSurfaces, 30)}) differed from the client's:`
                  : `it held the client's surfaces as they were (knownSurfaces ${short(sight.knownSurfaces, 30)}).`
                : `the capture never saw a set under its knownSurfaces ${short(sight.knownSurfaces, 30)}.`}
          </p>
          {sight.gap.length > 0 && (
            <ul class="summary" data-testid="as-of-gap">
              {sight.gap.map((l, i) => (
                <li key={i}>{l} (on the client, not in what the agent held)</li>
              ))}
            </ul>
          )}
          <p class="muted">
            Held: {sight.held ? sight.held.map((s) => s.id).join(', ') || 'none' : 'unknown'} · on the client: {sight.mounted.map((s) => s.id).join(', ') || 'none'}
          </p>
          {sight.observations.length > 0 && <JsonTree value={Object.fromEntries(sight.observations.map((o) => [`${o.surfaceId}/${o.observationId}`, o.value]))} label="observation values then" open={false} />}
        </div>
      )}
      <details class="as-of-diff" data-testid="as-of-diff">
        <summary>{changes.length ? `Changed since then (${changes.reduce((n, c) => n + c.surfaces.length + c.observations.length, 0)})` : 'Nothing changed since then'}</summary>
        {changes.map((c) => (
          <div key={c.client}>
            <b>{label(c.client)}</b>
            <ul class="summary">
              {c.surfaces.map((l, i) => (
                <li key={`s${i}`}>{l}</li>
              ))}
              {c.observations.map((o) => (
                <li key={o.key}>
                  <code>{o.key}</code>: {'then' in o ? short(JSON.stringify(o.then), 60) : 'none'} → {'now' in o ? short(JSON.stringify(o.now), 60) : 'gone'}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </details>
    </section>
  );
}
