/**
 * The bar between a list and its detail, as DevTools' own split views have:
 * dragged with the mouse, or focused and moved with the arrow keys (Shift
 * for bigger steps, Home and End for the limits). It sizes the pane before
 * it through the `--split` custom property of its parent (a percentage of the
 * parent's width), so the view that places it keeps its own markup; the
 * position is the user's setting, kept across panel reloads.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

const STEP = 2;
const BIG_STEP = 10;

export interface SplitterProps {
  /** The settings key the position is kept under. */
  storageKey: string;
  /** What the separator resizes, for assistive technology. */
  label: string;
  /** Percent of the parent's width given to the pane before the splitter. */
  initial?: number;
  /**
   * Pixels the pane before the splitter gets at least by default, as far as
   * `max` allows (its position until the user moves it): a narrow panel's
   * list keeps room for what identifies a row. Read against the window's
   * width, which the split spans.
   */
  initialPx?: number;
  min?: number;
  max?: number;
}

const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/** localStorage, when the panel has it: a sandboxed or storage-less context just forgets the position. */
const settings = {
  get(key: string): string | null {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      localStorage.setItem(key, value);
    } catch {
      // Kept for this panel's life only.
    }
  },
};

export function Splitter({ storageKey, label, initial = 50, initialPx = 0, min = 20, max = 80 }: SplitterProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [pct, setPct] = useState(() => {
    const saved = Number(settings.get(storageKey));
    if (Number.isFinite(saved) && saved > 0) return clamp(saved, min, max);
    const width = typeof innerWidth === 'number' && innerWidth > 0 ? innerWidth : 0;
    return width ? clamp(Math.max(initial, Math.ceil((initialPx / width) * 100)), min, max) : initial;
  });
  const move = (v: number) => setPct(clamp(Math.round(v * 10) / 10, min, max));

  useEffect(() => {
    ref.current?.parentElement?.style.setProperty('--split', `${pct}%`);
    settings.set(storageKey, String(pct));
  }, [pct]);

  const onKeyDown = (e: KeyboardEvent) => {
    const step = e.shiftKey ? BIG_STEP : STEP;
    const to: Record<string, number> = { ArrowLeft: pct - step, ArrowUp: pct - step, ArrowRight: pct + step, ArrowDown: pct + step, Home: min, End: max };
    const next = to[e.key];
    if (next === undefined) return;
    e.preventDefault();
    move(next);
  };
  const onPointerDown = (e: PointerEvent) => {
    const bar = ref.current;
    const parent = bar?.parentElement;
    if (!bar || !parent || e.button !== 0) return;
    e.preventDefault();
    bar.focus();
    bar.setPointerCapture(e.pointerId);
    const box = parent.getBoundingClientRect();
    const at = (x: number) => move(((x - box.left) / box.width) * 100);
    const onMove = (ev: PointerEvent) => at(ev.clientX);
    const onUp = () => {
      bar.removeEventListener('pointermove', onMove);
      bar.removeEventListener('pointerup', onUp);
      bar.removeEventListener('pointercancel', onUp);
      bar.classList.remove('dragging');
    };
    bar.classList.add('dragging');
    bar.addEventListener('pointermove', onMove);
    bar.addEventListener('pointerup', onUp);
    bar.addEventListener('pointercancel', onUp);
  };
  return (
    <div
      ref={ref}
      class="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={Math.round(pct)}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      title="Drag, or focus and use the arrow keys, to resize"
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
    />
  );
}
