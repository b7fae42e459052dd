/**
 * WCAG 2.x contrast of what the panel shows, measured in the page: every
 * visible text node's colour against the background it is drawn on (the
 * backgrounds of its ancestors composited, translucent ones included), with
 * ancestors' opacity applied to the text. Disabled controls are left out, as
 * WCAG 1.4.3 leaves out inactive components.
 *
 * The math, from the WCAG 2.x definitions:
 * - relative luminance L = 0.2126 R + 0.7152 G + 0.0722 B, each channel
 *   linearised from sRGB: c/12.92 when c ≤ 0.04045, else ((c + 0.055) / 1.055)^2.4
 *   (c in 0..1; WCAG 2.0 printed 0.03928, a threshold no 8-bit value falls between);
 * - contrast ratio (L1 + 0.05) / (L2 + 0.05), L1 the lighter.
 *
 * It is a string of plain JavaScript, evaluated in the page as is (tsx would
 * add helpers to a function that the page does not have) and in Node by the
 * unit test of the math.
 */
export const WCAG_MATH = `
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const luminance = (rgb) => 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
  const ratio = (a, b) => { const x = luminance(a), y = luminance(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  /* Computed colours: rgb()/rgba(), or color(srgb r g b / a) from color-mix(). */
  const parse = (s) => {
    let m = /^rgba?\\(([^)]*)\\)$/.exec(s);
    if (m) { const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p[3] ?? 1]; }
    m = /^color\\(srgb ([^)]*)\\)$/.exec(s);
    if (m) { const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p[3] ?? 1]; }
    return null;
  };
  /* Alpha compositing of a colour with alpha a over an opaque one. */
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
`;

export interface ContrastMiss {
  text: string;
  ratio: number;
  fg: string;
  bg: string;
  where: string;
}

export interface ContrastReport {
  measured: number;
  min: number;
  misses: ContrastMiss[];
}

/** The page script: returns a ContrastReport for the document as it is shown now, misses below `threshold`. */
export function contrastScript(threshold: number): string {
  return `(() => {
    ${WCAG_MATH}
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
      }
      let bg = [255, 255, 255, 1];
      for (const l of layers.reverse()) bg = over(l, bg);
      return bg;
    };
    const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
    const where = (el) => { const parts = []; for (let e = el; e && parts.length < 4; e = e.parentElement) parts.unshift(e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '')); return parts.join(' > '); };
    const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const misses = [];
    let measured = 0, min = Infinity;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      const el = n.parentElement;
      if (!el || el.closest('select, option, :disabled, [aria-disabled="true"], [hidden]')) continue;
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const box = range.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const style = getComputedStyle(el);
      const fg = parse(style.color);
      if (!fg) { misses.push({ text: n.textContent.trim().slice(0, 40), ratio: 0, fg: style.color, bg: '?', where: where(el) }); continue; }
      const bg = background(el);
      const shown = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
      const r = ratio(shown, bg);
      measured++;
      min = Math.min(min, r);
      if (r < ${threshold}) misses.push({ text: n.textContent.trim().slice(0, 40), ratio: Math.round(r * 100) / 100, fg: hex(shown), bg: hex(bg), where: where(el) });
    }
    return { measured, min: Math.round(min * 100) / 100, misses };
  })()`;
}
