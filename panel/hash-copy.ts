import { scrubForCopy } from './copy.ts';

/**
 * A shortened hash (`c353988a…802c1f`, components/hash-text.tsx) copies as
 * its whole value: what is pasted elsewhere must be the hash, not the
 * abbreviation the panel shows. Every other selection the user copies
 * (Ctrl+C on page data) is scrubbed of the session's secrets, as the Copy
 * buttons are.
 */
export function copyHashesWhole(doc: Document): void {
  doc.addEventListener('copy', (e) => {
    const sel = doc.getSelection();
    if (!sel || sel.rangeCount === 0 || !e.clipboardData) return;
    // A text field copies its own selection (what the user typed, or copyText's scrubbed text): left as the browser does it.
    const field = e.target instanceof Element ? e.target.closest('input, textarea') : null;
    if (field) return;
    const at = sel.getRangeAt(0).commonAncestorContainer;
    const el = (at instanceof Element ? at : at.parentElement)?.closest('[data-hash]');
    const full = el?.getAttribute('data-hash');
    e.preventDefault();
    // Any other selection copies as selected, scrubbed of the session's secrets like every Copy (redaction.ts).
    e.clipboardData.setData('text/plain', scrubForCopy(full ?? sel.toString()));
  });
}
