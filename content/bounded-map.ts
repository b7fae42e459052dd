/**
 * A map of at most `max` entries, oldest let go first, counting what it let
 * go: the taps' per-client tables (a page can make clients without end).
 * Uses the hook's own Map methods (primordials.ts).
 */
import { SafeMap, firstKey } from './primordials.ts';

export class BoundedMap<K, V> {
  private readonly map: Map<K, V> = new SafeMap();
  /** Entries let go to stay within `max`. */
  evicted = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    this.map.set(key, value);
    if (this.map.size > this.max) {
      this.map.delete(firstKey(this.map) as K);
      this.evicted++;
    }
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }
}
