/**
 * The fixture's `ouiOptions.timers`: the timers the app's runtime and
 * clients run with (§7.5, §7.3.7), passed to the session model as the
 * panel's Timers setting and the linter's flags are.
 */
import { isTimerValue, TIMER_KEYS, type Timers } from '../session/model/timers.ts';

/** `ouiOptions.timers`, checked: a timer that is not one is a mistake in the test's setup, said in one line, never ignored. */
export function fixtureTimers(v: unknown): Partial<Timers> | undefined {
  if (v === undefined) return undefined;
  const where = 'oui-devtools/playwright: ouiOptions.timers';
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where} must be an object of ${TIMER_KEYS.join(', ')} to milliseconds`);
  const out: Partial<Timers> = {};
  for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
    if (!(TIMER_KEYS as readonly string[]).includes(k)) throw new Error(`${where}: unknown timer ${JSON.stringify(k)} (known: ${TIMER_KEYS.join(', ')})`);
    if (n === undefined) continue;
    if (!isTimerValue(n)) throw new Error(`${where}.${k} must be a number of milliseconds, more than 0 and at most a day (got ${JSON.stringify(n)})`);
    out[k as keyof Timers] = n;
  }
  return out;
}
