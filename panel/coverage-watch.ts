/**
 * The panel's view of the capture's edges: every frame's hook is asked, now
 * and then while the panel is open, what it knows of its child frames and its
 * page's workers; the rows (src/capture/coverage.ts) say which frames and
 * workers the capture sees and why it does not see the others. A frame that
 * stops answering (removed, navigated away) leaves the list after two rounds.
 */
import { computed, signal } from '@preact/signals';
import { computeCoverage, type Coverage, type FrameReport, type HookPlace, type Pairing } from '../src/capture/coverage.ts';
import { siteStateOf } from '../src/background/capture-sites.ts';
import type { WireClient } from '../src/session/wire/wire.ts';

/** How often hooks are asked: often enough that a frame added or enabled shows within seconds, rare enough to cost the page nothing. */
export const COVERAGE_POLL_MS = 2000;

interface Place {
  hook: string;
  path: string;
  report?: FrameReport;
  /** The round in which this hook last spoke. */
  round: number;
}

export class CoverageWatch {
  private readonly places = new Map<number, Place>();
  private round = 0;
  /** Bumped when what the rows are computed from changes. */
  private readonly version = signal(0);
  /** Host patterns granted to the extension (the site check refreshes them). */
  readonly granted = signal<readonly string[]>([]);
  /** The session's postMessage conversations, read when the rows are computed. */
  constructor(private readonly pairings: () => Iterable<WireClient>) {}

  /** Hears a hook's `state` (its place) or `coverage` (its report). */
  heard(frameId: number, hook: string, path: string | undefined, report?: FrameReport): void {
    const known = this.places.get(frameId);
    const place: Place = known && known.hook === hook ? known : { hook, path: path ?? report?.path ?? '', round: this.round };
    if (path !== undefined) place.path = path;
    if (report) {
      place.report = report;
      place.path = report.path;
    }
    place.round = this.round;
    this.places.set(frameId, place);
    this.version.value++;
  }

  /** A new round: hooks that did not answer the last two are gone. */
  nextRound(): void {
    this.round++;
    let changed = false;
    for (const [frameId, p] of this.places) {
      if (this.round - p.round > 2) {
        this.places.delete(frameId);
        changed = true;
      }
    }
    if (changed) this.version.value++;
  }

  /** The page navigated: what the old documents said no longer holds. */
  reset(): void {
    this.places.clear();
    this.version.value++;
  }

  /** Re-read after the session's clients changed (a half-captured conversation appears). */
  touch(): void {
    this.version.value++;
  }

  readonly coverage = computed<Coverage>(() => {
    void this.version.value;
    const granted = this.granted.value;
    const hooks: HookPlace[] = [...this.places].map(([frameId, p]) => ({ frameId, path: p.path, ...(p.report ? { report: p.report } : {}) }));
    const pairings: Pairing[] = [];
    for (const c of this.pairings()) {
      if (c.inject?.via === 'postmessage') pairings.push({ client: c.key, label: c.label, clientPath: c.inject.clientPath, peerPath: c.inject.peerPath });
    }
    return computeCoverage(hooks, (url) => siteStateOf(url, granted), pairings);
  });
}
