/**
 * What the hook's bounded buffer let go of one client: runs of consecutive
 * sequence numbers, each with how many items it holds and their size. A
 * subscriber that resumes from a cursor is told exactly what it will never
 * get (the drops after its cursor), however long ago they happened, in a few
 * numbers per client: drops come oldest first, so a client's drops are one
 * run, or a few (a pinned item of the quiet ring dropped later than the items
 * after it).
 */
import type { DropReport } from '../src/capture/captured-items.ts';

/** Runs kept per client; past this the two oldest are merged (still exact for any cursor outside them). */
const MAX_RUNS = 8;

export interface DropLedger {
  /** Item `seq` of `size` (its payload's, as the panel measures it) was dropped. */
  add(seq: number, size: number): void;
  /** The drops after `cursor`, or undefined when there are none. */
  after(cursor: number): DropReport | undefined;
}

export function createDropLedger(): DropLedger {
  // Flat, four numbers a run: first seq, last seq, items, size.
  const runs: number[] = [];
  return {
    add(seq, size) {
      const n = runs.length;
      if (n && runs[n - 3] === seq - 1) {
        runs[n - 3] = seq;
        runs[n - 2]!++;
        runs[n - 1] = runs[n - 1]! + size;
        return;
      }
      // Index writes and loops (primordials.ts): a page's Array.prototype.push or splice is never called.
      runs[n] = seq;
      runs[n + 1] = seq;
      runs[n + 2] = 1;
      runs[n + 3] = size;
      if (runs.length > MAX_RUNS * 4) {
        // The two oldest become one run: its seqs need no longer be all dropped, which `after` allows for.
        const from = runs[0]! < runs[4]! ? runs[0]! : runs[4]!;
        const to = runs[1]! > runs[5]! ? runs[1]! : runs[5]!;
        const items = runs[2]! + runs[6]!;
        const size2 = runs[3]! + runs[7]!;
        runs[4] = from;
        runs[5] = to;
        runs[6] = items;
        runs[7] = size2;
        for (let i = 4; i < runs.length; i++) runs[i - 4] = runs[i]!;
        runs.length -= 4;
      }
    },
    after(cursor) {
      let items = 0;
      let size = 0;
      let from = Infinity;
      let to = 0;
      for (let i = 0; i < runs.length; i += 4) {
        const first = runs[i]!;
        const last = runs[i + 1]!;
        const count = runs[i + 2]!;
        const bytes = runs[i + 3]!;
        if (last <= cursor) continue;
        if (first > cursor) {
          items += count;
          size += bytes;
        } else {
          // A cursor inside a run (a subscriber that missed items in transit, then the buffer dropped them):
          // the items after it, and their share of the run's size.
          const span = last - first + 1;
          const part = count === span ? last - cursor : Math.round((count * (last - cursor)) / span);
          items += part;
          size += Math.round((bytes * part) / count);
        }
        from = Math.min(from, Math.max(first, cursor + 1));
        to = Math.max(to, last);
      }
      return items ? { items, size, from, to } : undefined;
    },
  };
}
