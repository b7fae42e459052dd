/**
 * What the Timeline's free text is searched in: "type surface › action raw
 * note", lower-cased, as two parts. The head (type and target, ending in a
 * space) is cheap and follows the request a result or ack borrows its target
 * from; the body (the raw frame, or the payload's JSON cut at 2,000
 * characters, and the note) is what costs, so it is built once per event and
 * kept by this instance.
 *
 * Invariants:
 * - `head + body` is the searchable text; a needle may run across the seam,
 *   which `holds` checks without joining them (a joined string is two-byte
 *   whenever the head has "›", and searching it is about twice as slow as
 *   searching the mostly one-byte body alone).
 * - Lower-casing the parts apart is lower-casing them joined: the space
 *   between them is no context any case mapping reads across.
 */
import type { WireEvent } from '../src/session/wire/wire.ts';
import { field, short, surfaceOf, typeLabel } from './display-text.ts';

/** What the head reads of a request; the model's RequestState has it. */
export interface RequestFacts {
  readonly status: string;
  readonly surfaceId: string;
  readonly actionId: string;
  /** From the first send to the final result (a `dur:` term reads it). */
  readonly durationMs?: number;
}

/** "surface › action" as the Timeline shows it; results and acks borrow both from their request. */
export function targetOf(ev: WireEvent, req: RequestFacts | undefined): string {
  const isRequest = ev.type === 'action:request';
  return [surfaceOf(ev) ?? req?.surfaceId, field(ev, 'actionId') ?? field(ev, 'observationId') ?? (isRequest ? '' : req?.actionId)].filter(Boolean).join(' › ');
}

/** Whether the head of `ev` reads its request's surface or action. */
export function headBorrows(ev: WireEvent): boolean {
  return surfaceOf(ev) === undefined || (field(ev, 'actionId') === undefined && field(ev, 'observationId') === undefined && ev.type !== 'action:request');
}

/** The lower-cased head: type and target, then a space. */
export function headOf(ev: WireEvent, req: RequestFacts | undefined): string {
  return `${typeLabel(ev)} ${targetOf(ev, req)} `.toLowerCase();
}

/** A lower-cased needle, with the ways it can run from a head's end into a body. */
export interface Needle {
  readonly text: string;
  /** [head's end, body's start] pairs; a head ends in a space, so only splits after a space. */
  readonly splits: ReadonlyArray<readonly [string, string]>;
}

export function needleOf(text: string): Needle {
  const splits: Array<[string, string]> = [];
  for (let k = 1; k < text.length; k++) if (text[k - 1] === ' ') splits.push([text.slice(0, k), text.slice(k)]);
  return { text, splits };
}

/** Whether `head + body` holds the needle. */
export function holds(head: string, body: string, n: Needle): boolean {
  if (body.includes(n.text) || head.includes(n.text)) return true;
  for (const [end, start] of n.splits) if (head.endsWith(end) && body.startsWith(start)) return true;
  return false;
}

/** The lower-cased bodies of events, each built once. */
export class SearchBodies {
  private readonly built = new WeakMap<WireEvent, string>();

  of(ev: WireEvent): string {
    let body = this.built.get(ev);
    if (body === undefined) {
      body = `${ev.raw ?? short(ev.payload, 2000)} ${ev.note ?? ''}`.toLowerCase();
      this.built.set(ev, body);
    }
    return body;
  }

  has(ev: WireEvent): boolean {
    return this.built.has(ev);
  }
}

/**
 * A signature of each row's text, so a search skips the texts that cannot
 * hold the needle without reading them: 100,000 texts are strings scattered
 * over the heap, and reading each one to its end is bound by memory, where
 * one look at a word or two of a contiguous row is not. 640 bits a row:
 * - the pairs of adjacent code units, hashed into 512 bits, two bits a pair
 *   (a Bloom filter: ~27% of the bits are set for a 150-character JSON
 *   payload, so a pair the text lacks passes for ~7% of texts);
 * - which ASCII characters the text holds, one bit each, exactly: a needle of
 *   one ASCII character is answered by its bit alone.
 * Sound by construction: every character and adjacent pair of a needle is
 * one of any text that holds it, so a text whose signature lacks one of the
 * needle's bits cannot hold it. Both sides are lower-cased.
 */
const PAIR_WORDS = 16;
/** 32-bit words a row: the pairs', then 4 for the 128 ASCII characters. */
const WORDS = PAIR_WORDS + 4;

function addText(text: string, rows: Uint32Array, at: number): void {
  let prev = -1;
  for (let j = 0; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c < 128) rows[at + PAIR_WORDS + (c >>> 5)]! |= 1 << (c & 31);
    if (prev >= 0) {
      // Fibonacci hashing of the pair; the top 9 bits and the 9 below them are its two bits.
      const x = Math.imul((prev << 16) | c, 0x9e3779b1);
      const a = x >>> 23;
      const b = (x >>> 14) & 511;
      rows[at + (a >>> 5)]! |= 1 << (a & 31);
      rows[at + (b >>> 5)]! |= 1 << (b & 31);
    }
    prev = c;
  }
}

/** What a row's signature must have to hold a needle: [word, bits] pairs, only words with a bit; empty when nothing can be ruled out. */
export function needleBits(needle: string): Int32Array {
  const m = new Uint32Array(WORDS);
  addText(needle, m, 0);
  const out: number[] = [];
  for (let w = 0; w < WORDS; w++) if (m[w]) out.push(w, m[w]! | 0);
  return Int32Array.from(out);
}

/** Whether the bits alone answer for `needle`: one ASCII character, whose bit is exact. */
export function bitsDecide(needle: string): boolean {
  return needle.length === 1 && needle.charCodeAt(0) < 128;
}

/** The signatures of rows 0..n (row i of `head + body`), contiguous; rows dropped from the front are reclaimed before the array grows. */
export class Signatures {
  private rows = new Uint32Array(0);
  /** Row 0's place, in rows. */
  private base = 0;
  private count = 0;

  /** Signs row `i` (the next row, or one signed before) with `head` then `body`. */
  sign(i: number, head: string, body: string): void {
    if (i >= this.count) {
      this.room(i + 1);
      this.count = i + 1;
    }
    const at = (this.base + i) * WORDS;
    const rows = this.rows;
    rows.fill(0, at, at + WORDS);
    addText(head, rows, at);
    addText(body, rows, at);
    // The pair across the seam, for a needle that runs from one into the other.
    if (head && body) addText(head[head.length - 1]! + body[0]!, rows, at);
  }

  /** Whether row i may hold the needle of `bits`: false means it cannot. */
  mayHold(i: number, bits: Int32Array): boolean {
    const rows = this.rows;
    const at = (this.base + i) * WORDS;
    for (let k = 0; k < bits.length; k += 2) if (bits[k + 1]! & ~rows[at + bits[k]!]!) return false;
    return true;
  }

  dropFront(n: number): void {
    n = Math.min(n, this.count);
    this.base += n;
    this.count -= n;
  }

  clear(): void {
    this.base = 0;
    this.count = 0;
  }

  /** Room for `n` rows from `base`. */
  private room(n: number): void {
    if ((this.base + n) * WORDS <= this.rows.length) return;
    if (this.base > 0) {
      this.rows.copyWithin(0, this.base * WORDS, (this.base + this.count) * WORDS);
      this.base = 0;
    }
    if (n * WORDS > this.rows.length) {
      // A quarter to spare: a full live list evicts as it appends, and each time the spare runs out the rows move down once.
      const grown = new Uint32Array(Math.max(1024, n + (n >> 2)) * WORDS);
      grown.set(this.rows.subarray(0, this.count * WORDS));
      this.rows = grown;
    }
  }
}
