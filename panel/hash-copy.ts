/**
 * A shortened hash (`c353988a…802c1f`, components/hash-text.tsx) copies as
 * its whole value: what is pasted elsewhere must be the hash, not the
 * abbreviation the panel shows.
 */
export function copyHashesWhole(doc: Document): void {
  doc.addEventListener('copy', (e) => {
    const sel = doc.getSelection();
    if (!sel || sel.rangeCount === 0 || !e.clipboardData) return;
    const at = sel.getRangeAt(0).commonAncestorContainer;
    const el = (at instanceof Element ? at : at.parentElement)?.closest('[data-hash]');
    const full = el?.getAttribute('data-hash');
    if (!full) return;
    e.preventDefault();
    e.clipboardData.setData('text/plain', full);
  });
}
