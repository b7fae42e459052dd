/** Per observation: the current value as a tree, its history as readable diffs, schema verdicts and its peak update rate. */
import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import type { ClientState, ObservationState } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { SortToggle } from '../components/sort-toggle.tsx';
import { anchorId, ViewIndex, type IndexGroup } from '../components/view-index.tsx';
import { clock } from '../display-text.ts';
import { oldestFirst } from '../sort-order.ts';
import { collapsed, matchesQuery, peakRate } from '../view-order.ts';
import { ClientHeading, clientTitle, HiddenClients } from './clients.tsx';
import { AsOfBanner, useAsOfClients } from './as-of.tsx';
import { EventLink } from './event-detail.tsx';

/** Entries of a history shown until the user asks for all of them. */
export const COLLAPSED_HISTORY = 5;

/** The Observations view's filter: kept while the user visits other views. */
const query = signal('');

const keyOf = (o: ObservationState) => `${o.surfaceId}/${o.observationId}`;

/** `oldest` is read by the parent, never here: @preact/signals skips re-rendering a component that reads a signal when its props are the same objects, and `o` is the model's, changed in place. */
/**
 * `updates` is there to be compared: the model changes `o` in place, and a
 * component that reads signals is redrawn only when a prop or a signal it
 * read changed (@preact/signals), so without it a card kept its first value.
 */
function ObservationCard({ o, anchor, oldest }: { o: ObservationState; anchor: string; oldest: boolean; updates: number }) {
  const [all, setAll] = useState(false);
  const invalid = o.history.filter((h) => !h.valid).length;
  const first = o.droppedHistory + 1;
  const entries = collapsed(
    o.history.map((h, i) => ({ h, n: first + i })),
    COLLAPSED_HISTORY,
    oldest,
    all,
  );
  const peak = Math.max(o.rate, peakRate(o.history.map((h) => h.t)));
  return (
    <article class="observation" data-observation={keyOf(o)} id={anchor} tabIndex={-1} aria-label={`observation ${o.surfaceId} › ${o.observationId}`}>
      <header>
        <h3>
          <code>{o.surfaceId}</code> › <code>{o.observationId}</code>
        </h3>
        <span class="badge">{o.updateFrequency}</span>
        <span class="muted">
          {o.updates} {o.updates === 1 ? 'update' : 'updates'}{' '}
          <span class="obs-rate" title="The most updates seen within one second of traffic (of the history kept)">
            · peak {peak}/s
          </span>{' '}
          {invalid > 0 && <span class="warn">· {invalid} not matching the schema</span>}
        </span>
      </header>
      <JsonTree value={o.current} label="value" />
      <details open>
        <summary>
          History ({o.history.length}
          {o.droppedHistory ? `, ${o.droppedHistory} older dropped` : ''})
        </summary>
        <ol class="history">
          {entries.map(({ h, n }) => (
            <li key={h.eventId} data-t={h.t} value={n} class={h.valid ? '' : 'invalid'}>
              <span class="muted">{clock(h.t)}</span> <EventLink id={h.eventId} label="update" />
              {h.outOfOrder && <span class="warn"> out of order</span>}
              {!h.valid && <span class="warn"> schema: {h.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}</span>}
              <ul class="summary">
                {h.summary.map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
        {o.history.length > COLLAPSED_HISTORY && (
          <button class="link history-toggle" onClick={() => setAll(!all)}>
            {all ? `Show the last ${COLLAPSED_HISTORY}` : `Show all ${o.history.length}`}
          </button>
        )}
      </details>
    </article>
  );
}

export function Observations() {
  const clients = useAsOfClients();
  const q = query.value;
  const shown = clients
    .map((c: ClientState, index) => ({ c, index, list: [...c.observations.values()].filter((o) => matchesQuery(keyOf(o), q) || matchesQuery(`${o.surfaceId} › ${o.observationId}`, q)) }))
    .filter((x) => x.list.length > 0);
  const groups: IndexGroup[] = shown.map(({ c, index, list }) => ({
    key: c.client.key,
    title: clientTitle(c),
    entries: list.map((o) => ({ anchor: anchorId('observation', index, keyOf(o)), label: `${o.surfaceId} › ${o.observationId}` })),
  }));
  return (
    <div class="view indexed observations" data-testid="observations-view">
      <ViewIndex label="Observations" groups={groups} query={query} placeholder="Filter by id" />
      <div class="indexed-body">
        <div class="filterbar">
          <SortToggle />
        </div>
        <AsOfBanner />
        {!clients.length && <p class="empty">No client yet.</p>}
        {clients.length > 0 && !shown.length && <p class="empty">{q.trim() ? `No observation matches "${q.trim()}".` : 'No observation update yet.'}</p>}
        {shown.map(({ c, index, list }) => (
          <section class="client-block" key={c.client.key} data-client-kind={c.client.kind}>
            <ClientHeading c={c} />
            {list.map((o) => (
              <ObservationCard key={keyOf(o)} o={o} anchor={anchorId('observation', index, keyOf(o))} oldest={oldestFirst.value} updates={o.updates} />
            ))}
          </section>
        ))}
        <HiddenClients count={clients.length - shown.length} why={q.trim() ? 'with no matching observation' : 'with nothing to show'} />
      </div>
    </div>
  );
}
