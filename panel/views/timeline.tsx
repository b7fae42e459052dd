/**
 * Every exchange and event, newest last, like the Network panel: by default
 * one row per request (panel/exchanges.ts) carrying its status, duration and,
 * for a failed answer, its error code and message, expandable (▸, →/←, a
 * click) to its raw events; "All events" shows every event as a row, results
 * and acknowledgments with the request they answer. A filter bar narrows by
 * type, status and a query, shows which filters are on
 * and clears them all at once. Its box speaks the query grammar
 * (src/query/parse.ts, panel/query-box.tsx: `surface:cart status:failed
 * dur:>500ms -is:experiment /re2/`), with completion and filters saved per
 * origin; the Type and Status pickers combine with it, as the Network
 * panel's type buttons combine with its filter box. The list is the store's `timeline` (a
 * computed over the session and the bar's signals,
 * panel/incremental-filter.ts), so rendering reads it and does no filtering
 * of its own.
 */
import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Signal } from '@preact/signals';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import type { RequestState } from '../../src/session/model/model-types.ts';
import { VirtualList } from '../components/virtual-list.tsx';
import { Splitter } from '../components/splitter.tsx';
import { QueryBox, QueryErrorLine, SavedFilterControls } from '../query-box.tsx';
import { pageOrigin } from './scenarios.tsx';
import { clock, field, ms, short, typeLabel, type Category } from '../display-text.ts';
import { targetOf } from '../search-text.ts';
import { failureText, isFailure } from '../event-request.ts';
import type { Exchange, RowKind } from '../exchanges.ts';
import { StoreContext, useStore } from '../store-context.ts';
import type { PanelStore, RowsMode, Session } from '../store.ts';
import { EventDetail } from './event-detail.tsx';
import { frameOf } from './clients.tsx';
import { TimeWindowChip } from './sequence.tsx';

const CATEGORIES: Category[] = ['requests', 'results', 'registrations', 'observations', 'acks', 'extensions', 'lifecycle', 'malformed', 'other'];
const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed-out'];
const ROW = 20;

/**
 * Beside the detail, the list's default width in a narrow panel (docked to
 * the side): enough for Surface › action and Status whole on the demo's and
 * most apps' names ("notifications › mark_read"), the detail keeping the rest.
 */
const LIST_MIN_PX = 340;
const LIST_MAX_PCT = 80;

/** Longest slice of idle time taken at once: a keystroke that comes during one waits for it to end. */
const IDLE_SLICE_MS = 6;

/** However busy a live stream keeps the page, preparation gets a slice at least this often. */
const IDLE_AT_LEAST_EVERY_MS = 250;

/**
 * Searchable text is built in idle time after events arrive, so the first
 * keystroke does not pay for it; in short slices, however much idle time the
 * browser offers (up to 50 ms), so typing never waits long behind it. One
 * idle loop at a time, kept across renders: a live stream renders every
 * frame, and restarting the loop on each render would starve it.
 */
function usePreparation(store: PanelStore): void {
  const pending = useRef<number | null>(null);
  useEffect(() => {
    if (pending.current !== null || typeof requestIdleCallback !== 'function') return;
    const step = (deadline: IdleDeadline) => {
      const until = performance.now() + IDLE_SLICE_MS;
      const slice = { timeRemaining: () => Math.min(deadline.didTimeout ? Infinity : deadline.timeRemaining(), until - performance.now()) };
      pending.current = store.prepareSearch(slice) ? requestIdleCallback(step, { timeout: IDLE_AT_LEAST_EVERY_MS }) : null;
    };
    pending.current = requestIdleCallback(step, { timeout: IDLE_AT_LEAST_EVERY_MS });
  });
  useEffect(
    () => () => {
      if (pending.current !== null) cancelIdleCallback(pending.current);
    },
    [],
  );
}

function details(ev: WireEvent, req: RequestState | undefined): string {
  const p = ev.payload as Record<string, unknown> | null | undefined;
  if (ev.kind === 'ack') return `${ev.dir === 'out' ? 'receipt' : 'ack'} ${short(ev.payload, 80)}${ev.note ? ` — ${ev.note}` : ''}`;
  if (ev.kind === 'lifecycle' || ev.kind === 'malformed') return `${ev.note ?? ''} ${ev.raw ? short(ev.raw, 80) : ''}`.trim();
  if (!p || typeof p !== 'object') return ev.note ?? short(ev.payload, 100);
  switch (ev.type) {
    case 'action:request':
      return `${short(p.params, 100)}${p.approval ? ' 🔒' : ''}`;
    case 'action:result': {
      const interim = p.interim === true ? `interim ${typeof p.progress === 'number' ? `${p.progress}% ` : ''}` : '';
      const e = p.error as { code?: unknown; message?: unknown } | undefined;
      const outcome = p.success === true ? 'success' : p.success === false ? `error ${short(e?.code)}${typeof e?.message === 'string' ? `: ${short(e.message, 200)}` : ''}` : '';
      const trimmed = p.delivery ? ' trimmed' : '';
      return `${interim}${outcome}${trimmed} ${req ? `← ${req.actionId}` : ''}`;
    }
    case 'surface:register': {
      const s = p.surface as { actions?: unknown[]; observations?: unknown[] } | undefined;
      return `${Array.isArray(s?.actions) ? s.actions.length : 0} actions, ${Array.isArray(s?.observations) ? s.observations.length : 0} observations`;
    }
    case 'observation:update':
      return `${field(ev, 'observationId') ?? ''} = ${short(p.value, 100)}`;
    default:
      return short(p, 120);
  }
}

/** An exchange's row: its failure (code and message) when its answer failed, else its params. */
function exchangeDetails(ev: WireEvent, req: RequestState | undefined): string {
  const failure = req && failureText(req);
  if (failure) return failure;
  return details(ev, req);
}

/** What an exchange's row holds, for its tooltip: "request, receipt ok, result error ACTION_DENIED, ack accepted". */
function exchangeParts(req: RequestState | undefined, size: number): string {
  if (!req) return `${size} events`;
  const parts = [req.sends.length > 1 ? `${req.sends.length} sends` : 'request'];
  for (const r of req.receipts) parts.push(`receipt ${r.ok ? 'ok' : 'refused'}`);
  for (const r of req.results) {
    parts.push(`${r.result.interim ? 'interim result' : 'result'} ${r.result.success ? 'success' : `error ${r.result.error?.code ?? ''}`}`.trim());
    if (r.ack) parts.push(`ack ${r.ack.ok ? 'accepted' : 'refused'}`);
  }
  return `${size} events: ${parts.join(', ')}`;
}

interface RowProps {
  ev: WireEvent;
  kind: RowKind;
  exchange: Exchange | undefined;
  expanded: boolean;
  size: number;
  index: number;
  selected: boolean;
  /** The session as published: a row shows its request's status and duration, which a batch may change. */
  session: Session;
}

/**
 * One event. Rendered again only when its props change: a keystroke or a
 * scroll that keeps a row in view costs nothing for it.
 */
class Row extends Component<RowProps> {
  static override contextType = StoreContext;
  declare context: PanelStore;

  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      next.ev !== p.ev ||
      next.kind !== p.kind ||
      next.expanded !== p.expanded ||
      next.size !== p.size ||
      next.index !== p.index ||
      next.selected !== p.selected ||
      next.session !== p.session
    );
  }

  override render({ ev, kind, exchange, expanded, size, index, selected }: RowProps) {
    const store = this.context;
    const { model, recorder, selectedEvent } = store;
    const req = store.requestOf(ev);
    const client = recorder.clients.get(ev.client);
    const isRequest = ev.type === 'action:request';
    // The user's own experiment: the injected request itself, or what answers it.
    const experiment = ev.injected === true || model.isExperiment(ev.id);
    const type = typeLabel(ev);
    const isExchange = kind === 'exchange';
    // Tinted: an exchange whose answer failed (or never came), and in "All events" its request and result.
    const failed = isFailure(req) && (isExchange || (kind === 'event' && (isRequest || ev.type === 'action:result')));
    const detailText = isExchange ? exchangeDetails(ev, req) : details(ev, req);
    // An event with no surface or action (an x- extension, a lifecycle event) names its type there, for a list too narrow for Type.
    const target = targetOf(ev, req);
    return (
      <div
        role="row"
        aria-selected={selected}
        aria-expanded={isExchange ? expanded : undefined}
        aria-level={kind === 'member' ? 2 : undefined}
        class={`row k-${ev.kind} r-${kind} ${selected ? 'selected' : ''} ${index % 2 ? 'odd' : ''} ${experiment ? 'experiment' : ''} ${failed ? 'failed' : ''}`}
        data-experiment={experiment ? 'true' : undefined}
        data-faulted={ev.faulted}
        data-type={type}
        data-id={ev.id}
        data-row={kind}
        data-exchange={exchange && `${exchange.client} ${exchange.requestId}`}
        data-status={failed || isExchange ? req?.status : undefined}
        data-client-kind={client?.kind}
        data-via={ev.via}
        title={isExchange ? exchangeParts(req, size) : undefined}
        onClick={() => (selectedEvent.value = ev.id)}
      >
        {isExchange ? (
          <span
            class="c-twisty"
            role="button"
            aria-label={`${expanded ? 'Collapse' : 'Expand'} exchange${req ? ` ${req.surfaceId} › ${req.actionId}` : ''}`}
            title={expanded ? 'Hide its events (←)' : `Show its ${size} events (→)`}
            onClick={(e) => {
              e.stopPropagation();
              store.toggleExchange(exchange!.key);
            }}
          >
            {expanded ? '▾' : '▸'}
          </span>
        ) : (
          <span class="c-twisty" aria-hidden="true">
            {kind === 'member' ? '↳' : ''}
          </span>
        )}
        <span class="c-time">{clock(ev.t)}</span>
        <span class="c-client" title={client ? `${client.label}${frameOf(client) ? ` · ${frameOf(client)}` : ''}` : undefined}>{client?.kind ?? '?'}</span>
        <span class="c-dir" title={ev.dir === 'out' ? 'from the client' : 'to the client'}>{ev.dir === 'out' ? '↑' : '↓'}</span>
        <span class="c-type">
          {type}
          {ev.faulted ? ` (faulted by you: ${ev.fault ?? 'changed'})` : experiment ? ' (experiment)' : ''}
        </span>
        <span class="c-target">{target || <span class="type-fallback">{type}</span>}</span>
        <span class={`c-status s-${req?.status ?? ''}`}>{req && (isExchange || isRequest || ev.type === 'action:result') ? req.status : ''}</span>
        <span class="c-dur">{req && (isExchange || isRequest) ? ms(req.durationMs) : ''}</span>
        <span class="c-details" title={failed || detailText.length > 40 ? detailText : undefined}>
          {detailText}
        </span>
      </div>
    );
  }
}

/** Marks a filter control that narrows the list: an accent border and tint (panel.css `.filterbar .active`). */
function active(on: boolean): { class?: string; 'data-active'?: 'true' } {
  return on ? { class: 'active', 'data-active': 'true' } : {};
}

/** Sets a filter signal from a control; the word on the last opened event no longer applies. */
function setter<T>(store: PanelStore, sig: Signal<T>) {
  return (value: T) => {
    store.ui.timeline.note.value = null;
    sig.value = value;
  };
}

/** Rows or events, as the Network panel groups a request's frames under it. */
function RowsToggle({ mode, set }: { mode: Signal<RowsMode>; set: (mode: RowsMode) => void }) {
  return (
    <span class="rows-toggle" role="group" aria-label="Rows">
      <button aria-pressed={mode.value === 'exchanges'} title="One row per request with its receipt, result and acknowledgments (→ shows them)" onClick={() => set('exchanges')}>
        Exchanges
      </button>
      <button aria-pressed={mode.value === 'events'} title="Every event its own row" onClick={() => set('events')}>
        All events
      </button>
    </span>
  );
}

/**
 * Focuses the row of an event once it is rendered (it may first have to be
 * scrolled to), after a link was followed: the list takes focus with that
 * row, selected, as its active descendant (components/virtual-list.tsx).
 */
function useRowFocus(store: PanelStore, listBox: { current: HTMLDivElement | null }): void {
  const request = store.ui.timeline.focus.value;
  useEffect(() => {
    if (!request) return;
    let frames = 0;
    let handle = 0;
    const attempt = () => {
      const root = listBox.current;
      const vlist = root?.querySelector<HTMLElement>('.vlist');
      const row = vlist?.querySelector<HTMLElement>(`[role=row][aria-selected=true][data-id="${CSS.escape(request.id)}"]`);
      if (vlist && row) {
        vlist.focus({ preventScroll: true });
        if (store.ui.timeline.focus.peek() === request) store.ui.timeline.focus.value = null;
        return;
      }
      // Not rendered: scroll to it (the list renders the rows in view), and look again next frame.
      const ev = store.session.peek().recorder.byId.get(request.id);
      const index = ev ? store.timeline.peek().rows.indexOf(ev) : -1;
      if (vlist && index >= 0) vlist.scrollTop = Math.max(0, index * ROW - vlist.clientHeight / 2);
      if (++frames < 30) handle = requestAnimationFrame(attempt);
      // Not in the list at all: focus stays with the list, never the document.
      else vlist?.focus();
    };
    handle = requestAnimationFrame(attempt);
    return () => cancelAnimationFrame(handle);
  }, [request]);
}

export function Timeline() {
  const store = useStore();
  const { selectedEvent, selectedClient } = store;
  const session = store.session.value;
  const { category, status: statusFilter, text, rows: rowsMode, note } = store.ui.timeline;
  const { matches, rows: list, end, mode, testedLast, testedTotal } = store.timeline.value;
  usePreparation(store);
  const listBox = useRef<HTMLDivElement>(null);
  useRowFocus(store, listBox);
  const sel = selectedEvent.value;
  const selected = sel ? session.recorder.byId.get(sel) : undefined;
  const selIndex = selected ? list.indexOf(selected) : -1;
  const exchanges = rowsMode.value === 'exchanges';
  /** Moves the selection to row `i` (focus stays on the list, the selected row its active descendant). */
  const select = (i: number) => {
    const row = list.at(i);
    if (row) selectedEvent.value = row.ev.id;
  };
  return (
    <div class="timeline">
      <div class="filterbar" role="search">
        <QueryBox store={store} text={text} onChange={setter(store, text)} />
        <select aria-label="Type" {...active(!!category.value)} value={category.value} onChange={(e) => setter(store, category)((e.target as HTMLSelectElement).value as Category | '')}>
          <option value="">All OUI</option>
          {CATEGORIES.map((c) => (
            <option value={c}>{c}</option>
          ))}
        </select>
        <select aria-label="Status" {...active(!!statusFilter.value)} value={statusFilter.value} onChange={(e) => setter(store, statusFilter)((e.target as HTMLSelectElement).value)}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        {selectedClient.value && (
          <span class="active client-filter" data-active="true" title="The toolbar's client picker narrows every view">
            one client
          </span>
        )}
        <TimeWindowChip />
        <SavedFilterControls store={store} text={text} onChange={setter(store, text)} origin={pageOrigin(store)} />
        <button class="clear-filters" disabled={!store.filtersActive.value} title="Reset every filter: type, status, the query and client" onClick={() => store.clearFilters()}>
          Clear filters
        </button>
        <RowsToggle mode={rowsMode} set={(m) => store.setRows(m)} />
        <span class="count">
          {exchanges && <span data-testid="row-count">{list.length} rows · </span>}
          <span data-testid="event-count" data-filter-mode={mode} data-filter-tested={testedLast} data-filter-tested-total={testedTotal}>
            {matches.length} / {end} events
          </span>
        </span>
      </div>
      <QueryErrorLine text={text} />
      {note.value && (
        <p class="timeline-note" role="status" data-testid="timeline-note">
          {note.value}{' '}
          <button class="icon" aria-label="Dismiss" onClick={() => (note.value = null)}>
            ✕
          </button>
        </p>
      )}
      <div class={`split ${selected ? 'with-detail' : ''}`}>
        <div class="list-pane" ref={listBox}>
          <div class="row head" role="row">
            <span class="c-twisty" />
            <span class="c-time">Time</span>
            <span class="c-client">Client</span>
            <span class="c-dir" />
            <span class="c-type">Type</span>
            <span class="c-target">Surface › action</span>
            <span class="c-status">Status</span>
            <span class="c-dur">Duration</span>
            <span class="c-details">Details</span>
          </div>
          <VirtualList
            items={list}
            rowHeight={ROW}
            label={exchanges ? 'Exchanges and events' : 'Events'}
            focusIndex={selIndex}
            // Unkeyed: the rows on screen are reused by position, so a keystroke that changes the whole list rewrites their text
            // rather than removing and building ~50 rows; a row whose props stay the same is not rendered again.
            render={(row, i) => (
              <Row ev={row.ev} kind={row.kind} exchange={row.exchange} expanded={row.expanded === true} size={row.size ?? 1} index={i} selected={row.ev.id === sel} session={session} />
            )}
            // Arrows, Home, End, PageUp, PageDown (panel/keyboard.ts): with nothing selected, to the newest row.
            onMove={select}
            onKeyDown={(e) => {
              const row = selIndex >= 0 ? list.at(selIndex) : undefined;
              if (e.key === 'ArrowRight' && row?.kind === 'exchange') {
                // Opens the exchange; on an open one, goes to its first event.
                e.preventDefault();
                if (!row.expanded) store.toggleExchange(row.exchange!.key, true);
                else select(selIndex + 1);
              } else if (e.key === 'ArrowLeft' && row?.kind === 'exchange' && row.expanded) {
                e.preventDefault();
                store.toggleExchange(row.exchange!.key, false);
              } else if (e.key === 'ArrowLeft' && row?.kind === 'member') {
                // Back to its exchange's row.
                e.preventDefault();
                for (let k = selIndex - 1; k >= 0; k--) {
                  if (list.at(k)?.kind === 'exchange') {
                    select(k);
                    break;
                  }
                }
              } else if (e.key === 'Escape' && selected) {
                // The panel's Escape, not DevTools' too (it would open its console drawer): with nothing selected, DevTools has it.
                e.stopPropagation();
                selectedEvent.value = null;
              }
            }}
          />
        </div>
        {selected && <Splitter storageKey="oui.timeline.split" label="Resize the event list" initialPx={LIST_MIN_PX} max={LIST_MAX_PCT} />}
        {selected && <EventDetail ev={selected} />}
      </div>
    </div>
  );
}
