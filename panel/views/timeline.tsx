/**
 * Every event, newest last, like the Network panel: requests show their
 * status and duration, results and acknowledgments the request they answer.
 * A filter bar narrows by type, surface, action, status and free text; the
 * list is the store's `timeline` (a computed over the session and the bar's
 * signals, panel/incremental-filter.ts), so rendering reads it and does no
 * filtering of its own.
 */
import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import type { RequestState } from '../../src/session/model/model-types.ts';
import { VirtualList } from '../components/virtual-list.tsx';
import { Splitter } from '../components/splitter.tsx';
import { timelineFilter } from '../keyboard.ts';
import { clock, field, ms, short, typeLabel, type Category } from '../display-text.ts';
import { targetOf } from '../search-text.ts';
import { StoreContext, useStore } from '../store-context.ts';
import type { PanelStore, Session } from '../store.ts';
import { EventDetail } from './event-detail.tsx';
import { frameOf } from './clients.tsx';

const CATEGORIES: Category[] = ['requests', 'results', 'registrations', 'observations', 'acks', 'extensions', 'lifecycle', 'malformed', 'other'];
const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed-out'];
const ROW = 20;

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
      const outcome = p.success === true ? 'success' : p.success === false ? `error ${short((p.error as { code?: unknown })?.code)}` : '';
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

interface RowProps {
  ev: WireEvent;
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
    return next.ev !== p.ev || next.index !== p.index || next.selected !== p.selected || next.session !== p.session;
  }

  override render({ ev, index, selected }: RowProps) {
    const store = this.context;
    const { model, recorder, selectedEvent } = store;
    const req = store.requestOf(ev);
    const client = recorder.clients.get(ev.client);
    const isRequest = ev.type === 'action:request';
    // The user's own experiment: the injected request itself, or what answers it.
    const experiment = ev.injected === true || model.isExperiment(ev.id);
    const type = typeLabel(ev);
    return (
      <div
        role="row"
        aria-selected={selected}
        class={`row k-${ev.kind} ${selected ? 'selected' : ''} ${index % 2 ? 'odd' : ''} ${experiment ? 'experiment' : ''}`}
        data-experiment={experiment ? 'true' : undefined}
        data-type={type}
        data-id={ev.id}
        data-client-kind={client?.kind}
        data-via={ev.via}
        onClick={() => (selectedEvent.value = ev.id)}
      >
        <span class="c-time">{clock(ev.t)}</span>
        <span class="c-client" title={client ? `${client.label}${frameOf(client) ? ` · ${frameOf(client)}` : ''}` : undefined}>{client?.kind ?? '?'}</span>
        <span class="c-dir" title={ev.dir === 'out' ? 'from the client' : 'to the client'}>{ev.dir === 'out' ? '↑' : '↓'}</span>
        <span class="c-type">
          {type}
          {experiment ? ' (experiment)' : ''}
        </span>
        <span class="c-target">{targetOf(ev, req)}</span>
        <span class={`c-status s-${req?.status ?? ''}`}>{req && (isRequest || ev.type === 'action:result') ? req.status : ''}</span>
        <span class="c-dur">{req && isRequest ? ms(req.durationMs) : ''}</span>
        <span class="c-details">{details(ev, req)}</span>
      </div>
    );
  }
}

export function Timeline() {
  const store = useStore();
  const { selectedEvent } = store;
  const session = store.session.value;
  const { category, surface: surfaceFilter, action: actionFilter, status: statusFilter, text } = store.ui.timeline;
  const { matches: list, end, mode, testedLast, testedTotal } = store.timeline.value;
  usePreparation(store);
  const sel = selectedEvent.value;
  const selected = sel ? session.recorder.byId.get(sel) : undefined;
  const selIndex = selected ? list.indexOf(selected) : -1;
  return (
    <div class="timeline">
      <div class="filterbar" role="search">
        <input ref={timelineFilter} type="search" placeholder="Filter" aria-label="Free-text filter" value={text.value} onInput={(e) => (text.value = (e.target as HTMLInputElement).value)} />
        <select aria-label="Type" value={category.value} onChange={(e) => (category.value = (e.target as HTMLSelectElement).value as Category | '')}>
          <option value="">All OUI</option>
          {CATEGORIES.map((c) => (
            <option value={c}>{c}</option>
          ))}
        </select>
        <input placeholder="surface" aria-label="Surface" value={surfaceFilter.value} onInput={(e) => (surfaceFilter.value = (e.target as HTMLInputElement).value)} />
        <input placeholder="action" aria-label="Action" value={actionFilter.value} onInput={(e) => (actionFilter.value = (e.target as HTMLInputElement).value)} />
        <select aria-label="Status" value={statusFilter.value} onChange={(e) => (statusFilter.value = (e.target as HTMLSelectElement).value)}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <span class="count" data-testid="event-count" data-filter-mode={mode} data-filter-tested={testedLast} data-filter-tested-total={testedTotal}>
          {list.length} / {end} events
        </span>
      </div>
      <div class={`split ${selected ? 'with-detail' : ''}`}>
        <div class="list-pane">
          <div class="row head" role="row">
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
            label="Events"
            focusIndex={selIndex}
            // Unkeyed: the rows on screen are reused by position, so a keystroke that changes the whole list rewrites their text
            // rather than removing and building ~50 rows; a row whose props stay the same is not rendered again.
            render={(ev, i) => <Row ev={ev} index={i} selected={ev.id === sel} session={session} />}
            // Arrows, Home, End, PageUp, PageDown (panel/keyboard.ts): with nothing selected, to the newest row.
            onMove={(i) => {
              const ev = list.at(i);
              if (ev) selectedEvent.value = ev.id;
            }}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                selectedEvent.value = null;
              }
            }}
          />
        </div>
        {selected && <Splitter storageKey="oui.timeline.split" label="Resize the event list" />}
        {selected && <EventDetail ev={selected} />}
      </div>
    </div>
  );
}
