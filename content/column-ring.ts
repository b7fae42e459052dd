/**
 * The capture log's storage: a ring of entries kept in columns (typed arrays
 * for the numbers, plain arrays for the data and its sink), so the hot path
 * allocates nothing per item. Entries are numbered from 0 since the start;
 * entry `g` is held while `oldest <= g < total`, at slot `slotOf(g)`. Bounded
 * by `capacity` entries and `maxBytes` of weight: making room drops the
 * oldest, each reported to `onDrop` before its slot is cleared.
 */
export class ColumnRing<Sink> {
  readonly time: Float64Array;
  readonly seq: Float64Array;
  /** The seq this entry answers (a direct call's acknowledgment), 0 for none. */
  readonly re: Float64Array;
  readonly weight: Float64Array;
  readonly data: unknown[];
  readonly sink: Array<Sink | undefined>;
  private first = 0;
  /** Entries held. */
  count = 0;
  /** Entries ever written. */
  total = 0;
  /** What the held entries weigh. */
  bytes = 0;

  constructor(
    readonly capacity: number,
    readonly maxBytes: number,
    private readonly onDrop: (slot: number, g: number) => void,
  ) {
    this.time = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.re = new Float64Array(capacity);
    this.weight = new Float64Array(capacity);
    this.data = new Array<unknown>(capacity).fill(undefined);
    this.sink = new Array<Sink | undefined>(capacity).fill(undefined);
  }

  /** The number of the oldest entry held. */
  get oldest(): number {
    return this.total - this.count;
  }

  /** The slot of entry `g`, or -1 when it is not held (dropped, or not written yet). */
  slotOf(g: number): number {
    return g < this.total - this.count || g >= this.total ? -1 : this.at(g);
  }

  /** The wrap: where entry `g` is (or goes, for g = total), unchecked. */
  private at(g: number): number {
    const i = this.first + (g - (this.total - this.count));
    return i >= this.capacity ? i - this.capacity : i;
  }

  /**
   * A slot for a new entry of weight `w` (its number is then `total - 1`),
   * after dropping the oldest until both bounds hold. The caller fills every
   * column of it.
   */
  add(w: number): number {
    if (this.count === this.capacity) this.dropOldest();
    while (this.bytes + w > this.maxBytes && this.count > 0) this.dropOldest();
    const i = this.at(this.total);
    this.count++;
    this.total++;
    this.bytes += w;
    this.weight[i] = w;
    return i;
  }

  /** An entry's weight changed (a Blob's bytes arrived). */
  grow(slot: number, delta: number): void {
    this.weight[slot] = this.weight[slot]! + delta;
    this.bytes += delta;
  }

  private dropOldest(): void {
    const o = this.first;
    this.onDrop(o, this.total - this.count);
    this.bytes -= this.weight[o]!;
    this.data[o] = undefined;
    this.sink[o] = undefined;
    this.first = o + 1 === this.capacity ? 0 : o + 1;
    this.count--;
  }
}
