/**
 * Waiting on conditions, never on fixed sleeps: one event, or a condition
 * polled until it holds, each with a deadline that fails the test by name.
 */

/** A deadline for conditions on a browser, the extension and a panel, sized for a loaded 2-core machine: a wait, not a timing. */
export const SLOW_MS = 60_000;

/** The next `ev` of `emitter`, with its arguments; rejects after `ms` naming `what`. */
export function once<T extends unknown[]>(emitter: { once(ev: string, fn: (...a: T) => void): unknown }, ev: string, what = ev, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms);
    emitter.once(ev, (...a: T) => {
      clearTimeout(timer);
      resolve(a);
    });
  });
}

/** Resolves once `cond` holds; throws after `ms` naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000, everyMs = 2): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
