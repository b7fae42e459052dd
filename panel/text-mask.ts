/**
 * A signature of a text, so the Timeline's free-text filter can skip a text
 * that cannot hold the needle without scanning it. The costly keystroke is
 * the one whose needle most events lack: each of them is read to its end
 * (100,000 payloads of ~150 characters), where one look at a few words of
 * its signature says "not here" for all but a few percent of them.
 *
 * Two parts, 640 bits in all:
 * - the pairs of adjacent code units, hashed into 512 bits, two bits a pair
 *   (a Bloom filter: ~27% of the bits are set for a 150-character JSON
 *   payload, so a pair the text lacks passes for ~7% of texts);
 * - which ASCII characters the text holds, one bit each, exactly: a needle of
 *   one ASCII character is answered by its bit alone.
 *
 * Sound by construction: every character and every pair of adjacent code
 * units in the needle is one in any text that holds it, so a text whose
 * signature lacks one of the needle's bits cannot hold the needle. Both
 * sides are lower-cased before they come here.
 */

const PAIR_WORDS = 16;
/** 32-bit words per signature: the pairs', then 4 for the 128 ASCII characters. */
export const MASK_WORDS = PAIR_WORDS + 4;

function addChar(c: number, masks: Uint32Array, at: number): void {
  if (c < 128) masks[at + PAIR_WORDS + (c >>> 5)]! |= 1 << (c & 31);
}

/** Adds the characters and pairs of `text` to the signature at masks[at..at + MASK_WORDS). */
export function addText(text: string, masks: Uint32Array, at: number): void {
  if (!text) return;
  let prev = text.charCodeAt(0);
  addChar(prev, masks, at);
  for (let j = 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    addChar(c, masks, at);
    // Fibonacci hashing of the pair; the top 9 bits and the 9 below them are its two bits.
    const x = Math.imul((prev << 16) | c, 0x9e3779b1);
    const a = x >>> 23;
    const b = (x >>> 14) & 511;
    masks[at + (a >>> 5)]! |= 1 << (a & 31);
    masks[at + (b >>> 5)]! |= 1 << (b & 31);
    prev = c;
  }
}

/**
 * What a text's signature must have to hold `needle`: [word, bits] pairs
 * flattened, only the words with a bit; undefined when nothing can be ruled
 * out (one character outside ASCII).
 */
export function needleBits(needle: string): Int32Array | undefined {
  const m = new Uint32Array(MASK_WORDS);
  addText(needle, m, 0);
  const out: number[] = [];
  for (let w = 0; w < MASK_WORDS; w++) if (m[w]) out.push(w, m[w]! | 0);
  return out.length ? Int32Array.from(out) : undefined;
}

/** Whether the signature answers for `needle` alone: a text holds it exactly when its signature has the needle's bits (then one [word, bit]). */
export function signatureDecides(needle: string): boolean {
  return needle.length === 1 && needle.charCodeAt(0) < 128;
}

/** Whether the text whose signature is at masks[at..] may hold the needle of `bits`. */
export function mayHold(masks: Uint32Array, at: number, bits: Int32Array): boolean {
  for (let k = 0; k < bits.length; k += 2) if (bits[k + 1]! & ~masks[at + bits[k]!]!) return false;
  return true;
}
