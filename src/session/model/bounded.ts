/**
 * Bounded containers: a capture can run for hours, so every list and index
 * the model keeps has a cap, and what falls off is counted, never silent.
 */

/** Appends to a list capped at `max`, dropping the oldest; returns how many were dropped. */
export function pushBounded<T>(list: T[], item: T, max: number): number {
  list.push(item);
  if (list.length <= max) return 0;
  const extra = list.length - max;
  list.splice(0, extra);
  return extra;
}

/** A Map that forgets its oldest entries beyond `max`. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get size(): number {
    return this.map.size;
  }
  get(k: K): V | undefined {
    return this.map.get(k);
  }
  has(k: K): boolean {
    return this.map.has(k);
  }
  delete(k: K): boolean {
    return this.map.delete(k);
  }
  /** Sets `k`; returns the entry evicted to make room, if one was. */
  set(k: K, v: V): [K, V] | undefined {
    if (this.map.has(k)) this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size <= this.max) return undefined;
    const first = this.map.entries().next().value as [K, V];
    this.map.delete(first[0]);
    return first;
  }
  values(): IterableIterator<V> {
    return this.map.values();
  }
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}

/** Times of recent events in a sliding window, capped: a flood saturates the count instead of growing memory. */
export class SlidingWindow {
  private times: number[] = [];
  private head = 0;
  constructor(
    private readonly spanMs: number,
    private readonly cap: number,
  ) {}

  /** Adds `t` and returns how many events fall within the window ending at `t`. */
  add(t: number): number {
    this.times.push(t);
    const from = t - this.spanMs;
    while (this.head < this.times.length && !(this.times[this.head]! > from)) this.head++;
    if (this.times.length - this.head > this.cap) this.head = this.times.length - this.cap;
    if (this.head > 1024) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }
}
