/**
 * The Timeline's filter box: the query grammar (src/query/parse.ts) with
 * completion as you type, as a combobox and its listbox (arrows move,
 * Enter or Tab take the highlighted item, Escape closes the list), the
 * first bad term said under the bar with its column, and the filters saved
 * for the page's origin one pick away.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Signal } from '@preact/signals';
import { complete, type Completion, type Completions, type KnownValues } from '../src/query/complete.ts';
import { EVENT_TYPES, errorText, parseQuery } from '../src/query/parse.ts';
import { eventType } from '../src/query/event-facts.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';
import { timelineFilter } from './keyboard.ts';
import type { PanelStore } from './store.ts';

const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed-out'];
const LISTBOX_ID = 'query-completions';
const ERROR_ID = 'query-error';

/** Types seen in a session, gathered once per event: a list grows at its end, so only what was added since is read. */
const seenTypes = new WeakMap<readonly WireEvent[], { upTo: number; types: Set<string> }>();

function typesOf(events: readonly WireEvent[]): string[] {
  let s = seenTypes.get(events);
  if (!s || s.upTo > events.length) seenTypes.set(events, (s = { upTo: 0, types: new Set(EVENT_TYPES) }));
  for (; s.upTo < events.length; s.upTo++) s.types.add(eventType(events[s.upTo]!));
  return [...s.types].sort();
}

/** What the session knows for each key's values. */
export function knownValues(store: PanelStore): KnownValues {
  const { recorder, model } = store.session.peek();
  const clients = new Set<string>();
  for (const c of recorder.clients.values()) clients.add(c.kind).add(c.key);
  const surfaces = new Set<string>();
  const actions = new Set<string>();
  for (const c of model.clients.values()) {
    for (const [id, s] of c.surfaces) {
      surfaces.add(id);
      for (const a of s.surface.actions ?? []) if (typeof a?.id === 'string') actions.add(a.id);
    }
    for (const r of c.requests.values()) actions.add(r.actionId);
  }
  return { types: typesOf(recorder.events), clients: [...clients].sort(), surfaces: [...surfaces].sort(), actions: [...actions].sort(), statuses: STATUSES };
}

const NO_ITEMS: Completions = { from: 0, to: 0, items: [] };
const NO_VALUES: KnownValues = { types: [], clients: [], surfaces: [], actions: [], statuses: [] };

export function QueryBox({ store, text, onChange }: { store: PanelStore; text: Signal<string>; onChange: (value: string) => void }) {
  const [list, setList] = useState<Completions>(NO_ITEMS);
  const [active, setActive] = useState(0);
  const caretAfter = useRef<number | null>(null);
  const value = text.value;
  const errors = parseQuery(value).errors;
  const open = list.items.length > 0;

  // The caret after an item was taken: set once the new value is rendered.
  useEffect(() => {
    const input = timelineFilter.current;
    if (input && caretAfter.current !== null && document.activeElement === input) input.setSelectionRange(caretAfter.current, caretAfter.current);
    caretAfter.current = null;
  });

  const suggest = (v: string, caret: number) => {
    // The session's values only for a key's value: a keystroke of plain text reads none of them.
    const word = v.slice(0, caret).split(/\s/).pop() ?? '';
    const next = complete(v, caret, word.includes(':') ? knownValues(store) : NO_VALUES);
    setList(next);
    setActive(0);
  };
  const close = () => setList(NO_ITEMS);
  const take = (item: Completion) => {
    const rest = value.slice(list.to);
    // A key waits for its value; a whole term gets the space the next one needs.
    const space = item.insert.endsWith(':') || rest.startsWith(' ') ? '' : ' ';
    const next = value.slice(0, list.from) + item.insert + space + rest;
    const caret = list.from + item.insert.length + space.length;
    caretAfter.current = caret;
    onChange(next);
    if (item.insert.endsWith(':')) suggest(next, caret);
    else close();
  };

  return (
    <span class="query-box">
      <input
        ref={timelineFilter}
        type="search"
        // ARIA 1.2's combobox: the input itself, its listbox beside it (preact's types want a <datalist> with the role).
        {...({ role: 'combobox' } as object)}
        placeholder="Filter: text, type: surface: status: dur:>500ms, /regex/, - negates"
        aria-label="Free-text filter"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={LISTBOX_ID}
        aria-activedescendant={open ? `${LISTBOX_ID}-${active}` : undefined}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length ? ERROR_ID : undefined}
        autocomplete="off"
        spellcheck={false}
        class={value ? 'active' : undefined}
        data-active={value ? 'true' : undefined}
        value={value}
        onInput={(e) => {
          const input = e.target as HTMLInputElement;
          onChange(input.value);
          suggest(input.value, input.selectionStart ?? input.value.length);
        }}
        onBlur={close}
        onKeyDown={(e) => {
          if (!open) {
            if (e.key === 'ArrowDown') {
              const input = e.target as HTMLInputElement;
              e.preventDefault();
              suggest(input.value, input.selectionStart ?? input.value.length);
            }
            return;
          }
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            const n = list.items.length;
            setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
          } else if (e.key === 'Enter' || e.key === 'Tab') {
            e.preventDefault();
            take(list.items[active] ?? list.items[0]!);
          } else if (e.key === 'Escape') {
            // Only the list closes: the panel's Escape (to the list below) is for the next one.
            e.preventDefault();
            e.stopPropagation();
            close();
          }
        }}
      />
      {open && (
        <ul class="query-completions" role="listbox" id={LISTBOX_ID} aria-label="Filter completions">
          {list.items.map((item, i) => (
            <li
              id={`${LISTBOX_ID}-${i}`}
              role="option"
              aria-selected={i === active}
              class={i === active ? 'active' : undefined}
              // Before the input's blur closes the list.
              onMouseDown={(e) => {
                e.preventDefault();
                take(item);
              }}
            >
              <span class="label">{item.label}</span>
              {item.detail && <span class="detail">{item.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}

/** The first bad term of the box, under the bar: the rest of the query still filters. */
export function QueryErrorLine({ text }: { text: Signal<string> }) {
  const value = text.value;
  const errors = parseQuery(value).errors;
  if (!errors.length) return null;
  return (
    <p class="query-error" id={ERROR_ID} role="alert" data-testid="query-error">
      {errorText(errors[0]!, value)}
      {errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''} — that term is left out.
    </p>
  );
}

/** Save the box's query for this origin, pick one saved, forget it. */
export function SavedFilterControls({ store, text, onChange, origin }: { store: PanelStore; text: Signal<string>; onChange: (value: string) => void; origin: string }) {
  const saved = store.savedFilters;
  useEffect(() => {
    if (origin !== saved.origin.peek()) void saved.load(origin);
  }, [origin, saved]);
  if (!origin) return null;
  const list = saved.list.value;
  const q = text.value.trim();
  const isSaved = q !== '' && list.includes(q);
  return (
    <span class="saved-filters" role="group" aria-label="Saved filters">
      <select aria-label="Saved filter" title={`Filters saved for ${origin}`} value="" onChange={(e) => onChange((e.target as HTMLSelectElement).value)} disabled={!list.length}>
        <option value="">{list.length ? `Saved (${list.length})` : 'None saved'}</option>
        {list.map((s) => (
          <option value={s}>{s}</option>
        ))}
      </select>
      {isSaved ? (
        <button title={`Forget this filter for ${origin}`} onClick={() => void saved.forget(q)}>
          Forget filter
        </button>
      ) : (
        <button title={`Save this filter for ${origin}`} disabled={!q} onClick={() => void saved.save(q)}>
          Save filter
        </button>
      )}
    </span>
  );
}
