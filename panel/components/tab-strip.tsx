/**
 * A strip of tabs with one Tab stop (WAI-ARIA tabs, a roving tabindex): the
 * selected tab takes focus from Tab; Left and Right move to the tab beside
 * it (wrapping round), Home and End to the first and last, activating it as
 * they go, as DevTools' own tab strips do. Used by the panel's views and the
 * event detail's subtabs.
 */
import type { ComponentChildren } from 'preact';
import { tabIndexAfter } from '../keyboard.ts';

export interface TabSpec<T extends string> {
  id: T;
  label: ComponentChildren;
  /** The tab button's element id (a tabpanel names it in aria-labelledby). */
  domId: string;
}

export interface TabStripProps<T extends string> {
  tabs: ReadonlyArray<TabSpec<T>>;
  selected: T;
  onSelect: (id: T) => void;
  /** The strip's accessible name. */
  label: string;
  class?: string;
  /** The id of the tabpanel the tabs control. */
  controls?: string;
}

export function TabStrip<T extends string>({ tabs, selected, onSelect, label, class: cls, controls }: TabStripProps<T>) {
  const at = tabs.findIndex((t) => t.id === selected);
  // The one Tab stop: the selected tab, or the first when none is.
  const stop = at < 0 ? 0 : at;
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const next = tabIndexAfter(e.key, at, tabs.length);
    if (next === null) return;
    e.preventDefault();
    const tab = tabs[next]!;
    onSelect(tab.id);
    // The button stays the same element while the strip renders again: focus it now.
    (e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role=tab]')[next]?.focus();
  };
  return (
    <nav class={cls} role="tablist" aria-label={label} onKeyDown={onKeyDown}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          type="button"
          id={t.domId}
          role="tab"
          aria-selected={t.id === selected}
          aria-controls={controls}
          tabIndex={i === stop ? 0 : -1}
          onClick={() => onSelect(t.id)}
        >
          {t.label}
        </button>
      ))}
    </nav>
  );
}
