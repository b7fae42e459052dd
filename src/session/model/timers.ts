/**
 * The timers the spec leaves configurable. §7.5's table is the agent
 * runtime's ("Configurable: Yes"), and §7.3.7's re-answer interval is the
 * client's ("default 8 s"): the inspector judges traffic against the values
 * the user says the app's parties run with, the spec's defaults otherwise.
 * A deadline passed is information about the runtime's timer, never a fault
 * of the client (§7.5: "The surface MAY still complete the operation").
 */
import { ASYNC_ACK_TIMEOUT_MS, OBSERVATION_PULL_TIMEOUT_MS, REANSWER_INTERVAL_MS, SYNC_TIMEOUT_MS } from '../../protocol/index.ts';

export interface Timers {
  /** §7.5 "Synchronous action execution": the runtime's deadline for a sync action's result. */
  syncMs: number;
  /** §7.5 "Action acknowledgment (async)": the runtime's deadline for an async action's interim acknowledgment. */
  asyncAckMs: number;
  /** §7.5 "Observation pull request": the runtime's deadline for the update an observation:request asks for. */
  observationPullMs: number;
  /** §7.3.7 "re-answer interval (default 8 s)": the client's. */
  reanswerMs: number;
}

export const SPEC_TIMERS: Readonly<Timers> = Object.freeze({
  syncMs: SYNC_TIMEOUT_MS,
  asyncAckMs: ASYNC_ACK_TIMEOUT_MS,
  observationPullMs: OBSERVATION_PULL_TIMEOUT_MS,
  reanswerMs: REANSWER_INTERVAL_MS,
});

export const TIMER_KEYS = Object.freeze(Object.keys(SPEC_TIMERS) as Array<keyof Timers>);

/** Longest timer a setting may name: a day (a larger number is a typo, not a timer). */
const MAX_TIMER_MS = 86_400_000;

export function isTimerValue(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_TIMER_MS;
}

/** The spec's defaults with what `v` sets over them; members that are not a positive number of ms are ignored. */
export function resolveTimers(v: unknown): Timers {
  const out: Timers = { ...SPEC_TIMERS };
  if (typeof v !== 'object' || v === null) return out;
  for (const k of TIMER_KEYS) {
    const n = (v as Record<string, unknown>)[k];
    if (isTimerValue(n)) out[k] = n;
  }
  return out;
}
