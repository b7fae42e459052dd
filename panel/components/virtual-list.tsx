/**
 * A list that renders only the rows in view, so a session of 100,000 events
 * scrolls like one of ten. Rows have a fixed height. It follows the newest
 * row while scrolled to the bottom, like the Network panel.
 *
 * A new list (a filter keystroke, a live batch) is rendered once, at the
 * place it will be shown: while following the newest row that is the bottom
 * of the new list, known from its length, not read back from the DOM (which
 * would lay out the rows of the old place first, then render and lay out
 * again). Rows should be cheap to render again with the same props (memoised):
 * scrolling by a row renders the list again.
 *
 * Keyboard, as DevTools' grids: with `onMove`, the arrows, Home, End, PageUp
 * and PageDown move the selection (panel/keyboard.ts; with nothing selected,
 * to the newest row) and scroll it into view. Focus stays on the list, its
 * selected row (the one rendered `aria-selected`) the active descendant: rows
 * are reused by position as the list scrolls, so a focused row element would
 * soon show another item.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { listIndexAfter, pageRows } from '../keyboard.ts';

/** What the list shows: an array, or anything read by index (the Timeline's matches). */
export interface Items<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

export interface VirtualListProps<T> {
  items: Items<T>;
  rowHeight: number;
  render: (item: T, index: number) => ComponentChildren;
  /** Index to keep in view (keyboard selection); -1 or none: nothing selected. */
  focusIndex?: number;
  /** Selects the row at an index: given, the list moves the selection by keyboard. */
  onMove?: (index: number) => void;
  /** Keys the list does not take itself. */
  onKeyDown?: (e: KeyboardEvent) => void;
  label: string;
}

/** Rows rendered beyond each edge: enough for a wheel step to show no gap, few enough that a new list lays out little more than the screen. */
const OVERSCAN = 4;

let lists = 0;

export function VirtualList<T>({ items, rowHeight, render, focusIndex, onMove, onKeyDown, label }: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const shown = useRef<HTMLDivElement>(null);
  const [activeId] = useState(() => `vlist-${++lists}-active`);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const stick = useRef(true);
  /** The content height and box height the bottom was last scrolled to, so a render that moves nothing writes nothing (a write lays out). */
  const pinned = useRef({ total: -1, height: -1 });

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const total = items.length * rowHeight;
  const bottom = Math.max(0, total - height);
  // Following the newest row, the window is the bottom of this list; otherwise where the user scrolled (the browser clamps it when the list shrank).
  const top = stick.current ? bottom : Math.min(scrollTop, bottom);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !stick.current) return;
    const p = pinned.current;
    if (p.total === total && p.height === height) return;
    p.total = total;
    p.height = height;
    // Past the end: the browser stops at the bottom.
    el.scrollTop = total;
  });

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || focusIndex === undefined || focusIndex < 0) return;
    const row = focusIndex * rowHeight;
    if (row < el.scrollTop) el.scrollTop = row;
    else if (row + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = row + rowHeight - el.clientHeight;
  }, [focusIndex]);

  // The selected row on screen carries the id the list names as its active descendant; a reused row loses it. Written here, not rendered: no second render.
  useLayoutEffect(() => {
    const win = shown.current;
    const el = box.current;
    if (!win || !el) return;
    let found = false;
    for (const row of win.children) {
      if (!found && row.getAttribute('aria-selected') === 'true') {
        found = true;
        if (row.id !== activeId) row.id = activeId;
      } else if (row.id === activeId) row.removeAttribute('id');
    }
    if (found) el.setAttribute('aria-activedescendant', activeId);
    else el.removeAttribute('aria-activedescendant');
  });

  const keyDown = (e: KeyboardEvent) => {
    const el = box.current;
    if (onMove && el && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      const next = listIndexAfter(e.key, focusIndex ?? -1, items.length, pageRows(el.clientHeight, rowHeight));
      if (next !== null) {
        e.preventDefault();
        onMove(next);
        return;
      }
    }
    onKeyDown?.(e);
  };

  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) rows.push(render(items.at(i)!, i));

  return (
    <div
      ref={box}
      class="vlist"
      role="grid"
      aria-label={label}
      aria-rowcount={items.length}
      tabIndex={0}
      onKeyDown={keyDown}
      onScroll={(e) => {
        const el = e.currentTarget as HTMLDivElement;
        const wasStuck = stick.current;
        stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
        // Still at the bottom (most often the scroll this list made itself): the window is already the bottom.
        if (wasStuck && stick.current) return;
        if (stick.current) pinned.current.total = -1;
        setScrollTop(el.scrollTop);
      }}
    >
      <div style={{ height: `${total}px`, position: 'relative' }}>
        <div ref={shown} style={{ position: 'absolute', top: `${first * rowHeight}px`, left: 0, right: 0 }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
