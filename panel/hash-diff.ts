/**
 * Two hashes side by side, as a person compares them: each shortened to its
 * head and tail (`c353988a…802c1f`), with the characters where it differs
 * from the other kept and marked, so a difference in the middle is never
 * hidden by the shortening. Plain strings in, plain segments out: the view
 * renders them as text in spans.
 */

export const HEAD = 8;
export const TAIL = 6;
/** Unchanged characters kept on each side of a difference in the middle. */
export const CONTEXT = 2;
/** A run of characters shorter than this is shown, not elided: "…" would save nothing. */
const MIN_GAP = 4;

/** Positions of `a` whose character is not `b`'s at the same position (past `b`'s end, every position differs). */
export function differingPositions(a: string, b: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

export type HashSegment = { text: string; diff: boolean } | { gap: number };

/**
 * `value` shortened for showing beside `other` (undefined: nothing to compare
 * with): the head, the tail and each differing character with a little
 * context are kept, what lies between is a gap of that many characters.
 * A scheme prefix (`fnv1a64:`) is kept and not counted in the head.
 * Joining the kept texts in order, with the gaps filled back, gives `value`.
 */
export function hashSegments(value: string, other?: string, head = HEAD, tail = TAIL, context = CONTEXT): HashSegment[] {
  const diff = new Set(other === undefined ? [] : differingPositions(value, other));
  const keep = new Array<boolean>(value.length).fill(false);
  const prefix = /^[A-Za-z][\w-]*:/.exec(value)?.[0].length ?? 0;
  for (let i = 0; i < value.length; i++) if (i < prefix + head || i >= value.length - tail) keep[i] = true;
  for (const i of diff) for (let j = Math.max(0, i - context); j <= Math.min(value.length - 1, i + context); j++) keep[j] = true;
  const out: HashSegment[] = [];
  let i = 0;
  while (i < value.length) {
    if (!keep[i]) {
      let j = i;
      while (j < value.length && !keep[j]) j++;
      if (j - i < MIN_GAP) keep[i] = true;
      else {
        out.push({ gap: j - i });
        i = j;
        continue;
      }
    }
    const d = diff.has(i);
    const last = out[out.length - 1];
    if (last && 'text' in last && last.diff === d) last.text += value[i];
    else out.push({ text: value[i]!, diff: d });
    i++;
  }
  return out;
}

/** The shortened text of `hashSegments`: gaps as "…". */
export function shortText(segments: HashSegment[]): string {
  return segments.map((s) => ('gap' in s ? '…' : s.text)).join('');
}
