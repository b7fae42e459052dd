/**
 * The panel's keyboard, as DevTools has it: the keys that move a list's
 * selection (Home, End, PageUp, PageDown and the arrows; with nothing
 * selected every key but Home goes to the newest row, the last, which is
 * where a live list's news is), the keys of a tab strip (Left and Right
 * wrap, Home and End; WAI-ARIA tabs), Ctrl+F (Cmd+F on macOS) for the
 * Timeline's filter, and the rule that focus never falls to the document
 * when what held it goes away. The index arithmetic is pure, for tests;
 * the rest is a few DOM lookups the panel's components share.
 */
import { createRef } from 'preact';

/** The row a key selects in a list of `length` rows from `index` (-1: none), `page` rows to a screen; null: the key is not a list key, or the list is empty. */
export function listIndexAfter(key: string, index: number, length: number, page: number): number | null {
  if (length <= 0) return null;
  const last = length - 1;
  const step = Math.max(1, page);
  const none = index < 0 || index > last;
  switch (key) {
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'ArrowDown':
      return none ? last : Math.min(last, index + 1);
    case 'ArrowUp':
      return none ? last : Math.max(0, index - 1);
    case 'PageDown':
      return none ? last : Math.min(last, index + step);
    case 'PageUp':
      return none ? last : Math.max(0, index - step);
    default:
      return null;
  }
}

/** Rows to a page: a screen of rows less one, so the row last seen stays in view (as DevTools' grids page). */
export function pageRows(viewHeight: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewHeight / rowHeight) - 1);
}

/** The tab a key activates in a strip of `count` tabs from `index`; null: not a tab strip key. Left and Right wrap round. */
export function tabIndexAfter(key: string, index: number, count: number): number | null {
  if (count <= 0) return null;
  const at = index < 0 || index >= count ? 0 : index;
  switch (key) {
    case 'ArrowRight':
      return (at + 1) % count;
    case 'ArrowLeft':
      return (at + count - 1) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

/** Whether a keydown is the find shortcut: Cmd+F on macOS, Ctrl+F elsewhere (with neither Alt nor Shift, which DevTools keeps for other commands). */
export function isFindKey(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>, mac: boolean): boolean {
  if (e.altKey || e.shiftKey || (e.key !== 'f' && e.key !== 'F')) return false;
  return mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
}

export function isMac(): boolean {
  const nav = globalThis.navigator as (Navigator & { userAgentData?: { platform?: string } }) | undefined;
  return /mac/i.test(nav?.userAgentData?.platform ?? nav?.platform ?? '');
}

/** The Timeline's free-text filter, for Ctrl+F. */
export const timelineFilter = createRef<HTMLInputElement>();

/** The list in the view on screen (a virtualised list marks itself `.vlist`). */
export function listInView(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[role=tabpanel] .vlist');
}

/**
 * Where focus goes when what held it went away (a link that opened another
 * event, a closed detail or popover, a switched view): the list on screen,
 * which keeps its selected row as the active one, else the selected view tab.
 */
export function focusFallback(): HTMLElement | null {
  return listInView() ?? document.querySelector<HTMLElement>('[role=tablist] [role=tab][aria-selected=true]');
}
