/** Every request to an action that needs approval: the approval it carried, the argsHash recomputed from its params, expiry, outcome. */
import type { ApprovalCheck, ClientState } from '../../src/session/model/model-types.ts';
import { HashText } from '../components/hash-text.tsx';
import { SortToggle } from '../components/sort-toggle.tsx';
import { clock, short } from '../display-text.ts';
import { oldestFirst } from '../sort-order.ts';
import { inOrder } from '../view-order.ts';
import { PerClient } from './clients.tsx';
import { AsOfBanner, useAsOfClients } from './as-of.tsx';
import { EventLink } from './event-detail.tsx';
import { useModel } from '../store-context.ts';

/** A long id on one line, ellipsized, whole in its title and when copied (issue 20, item 7: long ids never wrap across lines). */
function OneLine({ text }: { text: string }) {
  return (
    <span class="one-line" title={text}>
      {text}
    </span>
  );
}

function verdict(a: ApprovalCheck): { text: string; cls: string } {
  if (!a.carried) return a.outcome === 'ran' ? { text: 'RAN WITHOUT APPROVAL', cls: 'critical' } : { text: 'no approval carried', cls: 'error' };
  if (!a.hashMatches) return a.outcome === 'ran' ? { text: 'RAN ON A WRONG argsHash', cls: 'critical' } : { text: 'argsHash does not match params', cls: 'error' };
  return { text: 'argsHash matches params', cls: 'ok' };
}

/** `oldest` is read by the parent, never here: @preact/signals skips re-rendering a component that reads a signal when its props are the same objects, and `c` is the model's, changed in place. */
function ClientApprovals({ c, oldest }: { c: ClientState; oldest: boolean }) {
  const { model } = useModel();
  if (!c.approvals.length) return <p class="muted">No request to an action that needs approval yet.</p>;
  return (
    <table class="grid approvals">
      <thead>
        <tr>
          <th>Time</th>
          <th>Action</th>
          <th>Why</th>
          <th>approvalId</th>
          <th>Carried argsHash</th>
          <th>Recomputed argsHash</th>
          <th>Expires</th>
          <th>Check</th>
          <th>Outcome</th>
        </tr>
      </thead>
      <tbody>
        {inOrder(c.approvals, oldest).map((a) => {
          const v = verdict(a);
          // Page data: a carried argsHash that is not a string is shown as text, not compared.
          const carried = typeof a.carried?.argsHash === 'string' ? a.carried.argsHash : undefined;
          const recomputed = a.recomputed.ok ? a.recomputed.hash : undefined;
          return (
            <tr key={a.eventId} data-t={a.t} class={`ap-${v.cls}`} data-outcome={a.outcome} data-check={v.cls} data-experiment={model.isExperiment(a.eventId) ? 'true' : undefined}>
              <td>{clock(a.t)}</td>
              <td>
                <EventLink id={a.eventId} label={`${a.surfaceId} › ${a.actionId}`} />
                {model.isExperiment(a.eventId) && (
                  <>
                    {' '}
                    <span class="badge experiment" title="Sent from this panel (injected or replayed): not the app's own traffic">
                      experiment
                    </span>
                  </>
                )}
              </td>
              <td>{a.effect === 'transaction' ? 'transaction' : a.confirm ? 'destructive write' : a.effect}</td>
              <td class="mono">{a.carried?.approvalId === undefined ? '—' : <OneLine text={String(a.carried.approvalId)} />}</td>
              <td class="mono carried-hash">{carried === undefined ? (a.carried?.argsHash === undefined ? '—' : short(a.carried.argsHash, 80)) : <HashText value={carried} other={recomputed} />}</td>
              <td class="mono recomputed-hash">{recomputed === undefined ? `cannot hash: ${a.recomputed.ok ? '' : a.recomputed.error}` : <HashText value={recomputed} other={carried} />}</td>
              <td>{a.expiresAt ? clock(a.expiresAt) : '—'}</td>
              <td class={`check ${v.cls}`}>{v.text}</td>
              <td>
                {a.outcome}
                {a.code ? ` (${a.code})` : ''}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function Approvals() {
  const list = useAsOfClients();
  return (
    <div class="view" data-testid="approvals-view">
      <div class="filterbar">
        <SortToggle />
      </div>
      <AsOfBanner />
      <PerClient list={list} empty="No client yet." nothing="No request to an action that needs approval yet." hasContent={(c) => c.approvals.length > 0} render={(c) => <ClientApprovals c={c} oldest={oldestFirst.value} />} />
    </div>
  );
}
