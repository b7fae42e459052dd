/**
 * A list that renders only the rows in view, so a session of 100,000 events
 * scrolls like one of ten. Rows have a fixed height. It follows the newest
 * row while scrolled to the bottom, like the Network panel.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  render: (item: T, index: number) => ComponentChildren;
  /** Index to keep in view (keyboard selection). */
  focusIndex?: number;
  onKeyDown?: (e: KeyboardEvent) => void;
  label: string;
}

const OVERSCAN = 10;

export function VirtualList<T>({ items, rowHeight, render, focusIndex, onKeyDown, label }: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const stick = useRef(true);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) {
      el.scrollTop = el.scrollHeight;
      setScrollTop(el.scrollTop);
    }
  }, [items.length]);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || focusIndex === undefined || focusIndex < 0) return;
    const top = focusIndex * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
  }, [focusIndex]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) rows.push(render(items[i]!, i));

  return (
    <div
      ref={box}
      class="vlist"
      role="grid"
      aria-label={label}
      aria-rowcount={items.length}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onScroll={(e) => {
        const el = e.currentTarget as HTMLDivElement;
        stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
        setScrollTop(el.scrollTop);
      }}
    >
      <div style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
        <div style={{ position: 'absolute', top: `${first * rowHeight}px`, left: 0, right: 0 }}>{rows}</div>
      </div>
    </div>
  );
}
