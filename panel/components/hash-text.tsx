/**
 * A long hash shortened to its head and tail (`c353988a…802c1f`), its full
 * value in the title, and, beside another hash it should equal, the
 * characters where the two differ marked (kept even from the middle).
 */
import { hashSegments } from '../hash-diff.ts';

export function HashText({ value, other }: { value: string; other?: string | undefined }) {
  const differs = other !== undefined && other !== value;
  const segments = hashSegments(value, differs ? other : undefined);
  return (
    <span class={`hash${differs ? ' hash-differs' : ''}`} title={value} data-hash={value}>
      {segments.map((s, i) =>
        'gap' in s ? (
          <span key={i} class="hash-gap" data-gap={s.gap} title={`${s.gap} characters`}>
            …
          </span>
        ) : s.diff ? (
          <span key={i} class="hash-diff">
            {s.text}
          </span>
        ) : (
          s.text
        ),
      )}
    </span>
  );
}
