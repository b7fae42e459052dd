/**
 * What this document's hook knows about the edges of its capture: the workers
 * the page started (captured or not, and why). Read only when a panel asks for
 * coverage; bounded, and what no longer fits is counted.
 */
import type { WorkerCoverage } from '../src/capture/types.ts';

const MAX_WORKERS = 200;
const workers: WorkerCoverage[] = [];
let workersDropped = 0;

/** Records a worker the page created; returns the record, which a tap may update later (e.g. once its hook said hello). */
export function noteWorker(w: WorkerCoverage): WorkerCoverage {
  if (workers.length >= MAX_WORKERS) {
    workers.shift();
    workersDropped++;
  }
  workers.push(w);
  return w;
}

export function workersSeen(): { workers: WorkerCoverage[]; dropped: number } {
  return { workers: workers.slice(), dropped: workersDropped };
}
