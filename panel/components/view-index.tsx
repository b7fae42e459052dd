/**
 * The index beside a long per-client view (Surfaces, Observations): a filter
 * box, then each client with its sections as links. A link scrolls its
 * section into view and focuses it, as an outline in a document viewer does.
 * Labels are page data: rendered as text.
 */
import type { Signal } from '@preact/signals';

export interface IndexEntry {
  /** The id of the section the link goes to. */
  anchor: string;
  label: string;
}

export interface IndexGroup {
  key: string;
  title: string;
  entries: IndexEntry[];
}

/** An element id for a section of a view: unique per view, client (by position) and item. */
export function anchorId(view: string, clientIndex: number, item: string): string {
  return `${view}-${clientIndex}-${item}`;
}

export function jumpTo(anchor: string): void {
  const el = document.getElementById(anchor);
  if (!el) return;
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
}

export function ViewIndex({ label, groups, query, placeholder }: { label: string; groups: IndexGroup[]; query: Signal<string>; placeholder: string }) {
  return (
    <nav class="view-index" aria-label={`${label} index`}>
      <input
        type="search"
        aria-label={`Filter ${label.toLowerCase()}`}
        placeholder={placeholder}
        value={query.value}
        onInput={(e) => (query.value = (e.target as HTMLInputElement).value)}
      />
      {groups.map((g) => (
        <div class="index-group" key={g.key}>
          <div class="index-client muted" title={g.key}>
            {g.title}
          </div>
          <ul>
            {g.entries.map((e) => (
              <li key={e.anchor}>
                <a
                  href={`#${e.anchor}`}
                  onClick={(ev) => {
                    ev.preventDefault();
                    jumpTo(e.anchor);
                  }}
                >
                  {e.label}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
