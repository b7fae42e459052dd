/**
 * The last runs of a bench, kept in its results file: one run on a shared,
 * loaded machine says little, so the page reports the median over the last
 * runs (scripts/bench-docs.mjs), each with the machine's load average and
 * the build it measured (others' changes to the bundles change it too, so
 * runs are not split by it: the page names it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DIST } from '../test/support/browser.ts';

/** Runs kept. */
const KEEP = 5;

/** The built extension's scripts, hashed: runs of the same build go together. */
export function buildId(): string {
  const h = createHash('sha256');
  for (const f of ['hook.js', 'bridge.js', 'background.js', 'panel.js']) {
    const path = `${DIST}/${f}`;
    if (existsSync(path)) h.update(readFileSync(path));
  }
  return h.digest('hex').slice(0, 12);
}

export const load = (): number[] => loadavg().map((x) => +x.toFixed(2));

/** The runs so far (from the previous results file), with `run` added, the oldest let go beyond KEEP. */
export function withRun<T extends object>(resultsFile: URL, build: string, run: T): Array<T & { build: string }> {
  let previous: Array<T & { build: string }> = [];
  try {
    const old = JSON.parse(readFileSync(resultsFile, 'utf8')) as { runs?: Array<T & { build: string }> };
    previous = old.runs ?? [];
  } catch {
    // No previous results.
  }
  return [...previous, { ...run, build }].slice(-KEEP);
}
