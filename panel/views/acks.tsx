/** Receipts, result acknowledgments accepted or refused, trimmed re-sends and repeats, and how the client handled them. */
import type { AckKind, ClientState } from '../../src/session/model/model-types.ts';
import { SortToggle } from '../components/sort-toggle.tsx';
import { clock } from '../display-text.ts';
import { oldestFirst } from '../sort-order.ts';
import { inOrder } from '../view-order.ts';
import { PerClient } from './clients.tsx';
import { EventLink } from './event-detail.tsx';

const KIND: Record<AckKind, string> = {
  receipt: 'request receipt',
  'result-ack': 'result acknowledgment',
  'trimmed-resend': 'trimmed re-send',
  repeat: 'repeated request',
};

function requestLabel(c: ClientState, requestId: string | undefined): string {
  const r = requestId ? c.requests.get(requestId) : undefined;
  return r ? `${r.surfaceId} › ${r.actionId}` : '—';
}

/** `oldest` is read by the parent, never here: @preact/signals skips re-rendering a component that reads a signal when its props are the same objects, and `c` is the model's, changed in place. */
function ClientAcks({ c, oldest }: { c: ClientState; oldest: boolean }) {
  if (!c.acks.length) return <p class="muted">No acknowledgment, receipt, trimmed re-send or repeat yet.</p>;
  return (
    <table class="grid acks">
      <thead>
        <tr>
          <th>Time</th>
          <th>Kind</th>
          <th>Request</th>
          <th>Outcome</th>
          <th>Event</th>
        </tr>
      </thead>
      <tbody>
        {inOrder(c.acks, oldest).map((a) => (
          <tr key={`${a.kind}-${a.eventId}`} data-t={a.t} data-kind={a.kind} data-request-id={a.requestId} class={a.ok === false ? 'refused' : ''}>
            <td>{clock(a.t)}</td>
            <td>{KIND[a.kind]}</td>
            <td>
              {requestLabel(c, a.requestId)} <span class="muted mono">{a.requestId?.slice(0, 8) ?? ''}</span>
            </td>
            <td>
              {a.ok === true && 'accepted '}
              {a.ok === false && `refused: ${a.reason ?? '(no reason)'} `}
              {a.kind === 'trimmed-resend' ? `omitted ${a.omitted?.join(', ') ?? 'nothing'}, after a refusal: ${a.reason ?? '(no reason)'}` : a.handling}
            </td>
            <td>
              <EventLink id={a.eventId} label="event" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Acks() {
  return (
    <div class="view" data-testid="acks-view">
      <div class="filterbar">
        <SortToggle />
      </div>
      <PerClient empty="No client yet." nothing="No acknowledgment, receipt, trimmed re-send or repeat yet." hasContent={(c) => c.acks.length > 0} render={(c) => <ClientAcks c={c} oldest={oldestFirst.value} />} />
    </div>
  );
}
