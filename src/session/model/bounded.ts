/**
 * Bounded containers: a capture can run for hours, so every list and index
 * the model keeps has a cap, and what falls off is counted, never silent.
 */

/** Appends to a list capped at `max`, dropping the oldest; returns how many were dropped. */
export function pushBounded<T>(list: T[], item: T, max: number): number {
  list.push(item);
  if (list.length <= max) return 0;
  const extra = list.length - max;
  // A full list drops one item a push: shift() moves the array's start in place, where splice(0, 1)
  // copies what it removes and the rest (tens of microseconds at a few thousand items).
  if (extra === 1) list.shift();
  else list.splice(0, extra);
  return extra;
}

/**
 * The oldest key of a Map or Set, read from an iterator kept between calls.
 * A fresh `keys().next()` walks over every slot deleted since the table was
 * last rehashed, so evicting the oldest key one at a time from a full table
 * gets slower as it churns; a kept iterator only moves forward. Correct as
 * long as every key it returns is deleted before the next call (what comes
 * before the cursor is then all deleted, and a re-inserted key goes to the
 * end): the answer is the first live key, as `keys().next()` gives.
 */
export class OldestKey<K> {
  private it: Iterator<K> | undefined;
  constructor(private readonly table: { keys(): Iterator<K> }) {}

  /** The first key in insertion order, or undefined when the table is empty. */
  next(): K | undefined {
    let r = this.it?.next();
    if (!r || r.done) {
      // Iterators end for good once they reach the end: start again from the table's first key.
      this.it = this.table.keys();
      r = this.it.next();
      if (r.done) {
        this.it = undefined;
        return undefined;
      }
    }
    return r.value;
  }
}

/** A Map that forgets its oldest entries beyond `max`. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  /** Made at the first eviction: most maps (a request's repeats) never fill. */
  private oldest: OldestKey<K> | undefined;
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
    const k0 = (this.oldest ??= new OldestKey<K>(this.map)).next() as K;
    const first: [K, V] = [k0, this.map.get(k0) as V];
    this.map.delete(k0);
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
