/** Per observation: the current value as a tree, its history as readable diffs, schema verdicts and update rate. */
import type { ClientState } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { clock } from '../display-text.ts';
import { PerClient } from './clients.tsx';
import { EventLink } from './event-detail.tsx';

const SHOWN_HISTORY = 50;

function ClientObservations({ c }: { c: ClientState }) {
  const list = [...c.observations.values()];
  if (!list.length) return <p class="muted">No observation update yet.</p>;
  return (
    <>
      {list.map((o) => {
        const invalid = o.history.filter((h) => !h.valid).length;
        return (
          <article class="observation" key={`${o.surfaceId}/${o.observationId}`} data-observation={`${o.surfaceId}/${o.observationId}`}>
            <header>
              <h3>
                <code>{o.surfaceId}</code> › <code>{o.observationId}</code>
              </h3>
              <span class="badge">{o.updateFrequency}</span>
              <span class="muted">
                {o.updates} updates · {o.rate}/s {invalid > 0 && <span class="warn">· {invalid} not matching the schema</span>}
              </span>
            </header>
            <JsonTree value={o.current} label="value" />
            <details open>
              <summary>History ({o.history.length}{o.droppedHistory ? `, ${o.droppedHistory} older dropped` : ''})</summary>
              <ol class="history" reversed>
                {o.history
                  .slice(-SHOWN_HISTORY)
                  .reverse()
                  .map((h) => (
                    <li key={h.eventId} class={h.valid ? '' : 'invalid'}>
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
            </details>
          </article>
        );
      })}
    </>
  );
}

export function Observations() {
  return (
    <div class="view" data-testid="observations-view">
      <PerClient empty="No client yet." render={(c) => <ClientObservations c={c} />} />
    </div>
  );
}
