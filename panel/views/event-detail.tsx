/**
 * The selected event: for an event of a request, the line the user came
 * for first (its status, and for a failed answer its code and message);
 * its payload as a tree (a failed result's `error` open), its raw frame, the
 * exchange it belongs to and what the inspector found in it. `EventLink`
 * names an event anywhere in the panel and opens it in the Timeline.
 */
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { CopyButton, JsonTree } from '../components/json-tree.tsx';
import { TabStrip } from '../components/tab-strip.tsx';
import { bytes, clock, ms, typeLabel } from '../display-text.ts';
import { useModel, useStore } from '../store-context.ts';
import type { DetailTab } from '../store.ts';
import { answerOf, failureText, requestSummary } from '../event-request.ts';
import { FindingLine } from './findings.tsx';
import { Replay } from './replay.tsx';
import { AsOfButton } from './as-of.tsx';

/** A link to an event: opens it in the Timeline, selected, in view and focused (panel/store.ts `openEvent`), from any view. */
export function EventLink({ id, label }: { id: string; label?: string }) {
  const store = useStore();
  const ev = store.recorder.byId.get(id);
  return (
    <button class="link" data-event-link={id} onClick={() => store.openEvent(id)} title={`Open in the Timeline (${id})`}>
      {label ?? (ev ? `${typeLabel(ev)} at ${clock(ev.t)}` : `${id} (no longer in the list)`)}
    </button>
  );
}

function Exchange({ ev }: { ev: WireEvent }) {
  const req = useModel().requestOf(ev);
  if (!req) return <p class="muted">This event is not part of a request.</p>;
  const failure = failureText(req);
  return (
    <div class="exchange">
      <p>
        <b>{req.surfaceId} › {req.actionId}</b> <span class={`s-${req.status}`}>{req.status}</span> {ms(req.durationMs)}
        {failure && <span class="s-failed"> · {failure}</span>}
      </p>
      <ul>
        {req.sends.map((s, i) => (
          <li key={s.eventId}>
            {i === 0 ? 'request' : `repeat ${i}`} <EventLink id={s.eventId} /> {s.injected ? '(experiment)' : ''}
          </li>
        ))}
        {req.receipts.map((r) => (
          <li key={r.eventId}>
            receipt {r.ok ? 'ok' : `refused: ${r.reason ?? ''}`} <EventLink id={r.eventId} />
          </li>
        ))}
        {req.results.map((r) => (
          <li key={r.eventId}>
            {r.result.interim ? 'interim result' : 'result'} {r.result.success ? 'success' : `error ${r.result.error?.code ?? ''}${r.result.error?.message ? `: ${r.result.error.message}` : ''}`}
            {r.result.delivery ? ` trimmed (omitted ${r.result.delivery.omitted.join(', ')})` : ''} <EventLink id={r.eventId} />
            {r.ack && (
              <>
                {' '}
                → {r.ack.ok ? 'accepted' : `refused: ${r.ack.reason ?? ''}`} <EventLink id={r.ack.eventId} />
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** This event's conversation is seen from one side only: says which frame hides the other, and opens Coverage. */
function HalfCaptured({ client }: { client: string }) {
  const store = useModel();
  const half = store.coverage.coverage.value.halves.find((h) => h.client === client);
  if (!half) return null;
  return (
    <p class="warn" data-testid="half-captured">
      Only one side of this conversation is captured: {half.missing} cannot be seen, because frame <span class="mono">{half.missingPath}</span> is not captured.{' '}
      <button class="link" onClick={() => (store.view.value = 'coverage')}>
        Coverage
      </button>
    </p>
  );
}

export function EventDetail({ ev }: { ev: WireEvent }) {
  const store = useModel();
  const { model, recorder, selectedEvent, ui } = store;
  const req = store.requestOf(ev);
  const answer = req && answerOf(req);
  const tab = ui.detailTab;
  const client = recorder.clients.get(ev.client);
  const findings = model.findings.filter((f) => f.events.includes(ev.id));
  const current: DetailTab = tab.value?.eventId === ev.id ? tab.value.tab : 'payload';
  return (
    <aside class="detail" aria-label="Event detail" data-testid="event-detail">
      <header>
        <b>{typeLabel(ev)}</b>
        <span class="muted">
          {ev.dir === 'out' ? 'from' : 'to'} {client?.kind} {client?.label} · {clock(ev.t)} · {bytes(ev.size)}{ev.via ? ` · over ${ev.via}` : ''}
        </span>
        <CopyButton value={ev.payload} />
        <AsOfButton ev={ev} />
        <button class="icon" aria-label="Close detail" onClick={() => (selectedEvent.value = null)}>
          ✕
        </button>
      </header>
      {req && (
        <p class={`request-summary s-${req.status}`} data-testid="request-summary" data-status={req.status}>
          <b>
            {req.surfaceId} › {req.actionId}
          </b>{' '}
          {requestSummary(req)}
          {answer && answer.eventId !== ev.id && !answer.success && (
            <>
              {' '}
              <EventLink id={answer.eventId} label="answer" />
            </>
          )}
        </p>
      )}
      {ev.faulted && (
        <p class="experiment-note" data-testid="faulted-note">
          Faulted by you: {ev.fault ?? 'changed'} by fault rule {ev.faulted} (Faults view). The app's peer did not send or receive it as shown; its findings are kept with your experiments.
        </p>
      )}
      {(ev.injected || model.isExperiment(ev.id)) && !ev.faulted && (
        <p class="experiment-note" data-testid="experiment-note">
          {ev.injected ? 'Experiment: sent from this panel (injected or replayed)' : 'Experiment: answers a request sent from this panel'}, not the app's own traffic. Its findings are left out of the app's counts unless shown.
        </p>
      )}
      <HalfCaptured client={ev.client} />
      {ev.type === 'action:request' && <Replay ev={ev} />}
      {findings.length > 0 && (
        <ul class="findings-inline">
          {findings.map((f) => (
            <FindingLine key={f.id} finding={f} />
          ))}
        </ul>
      )}
      <TabStrip
        class="subtabs"
        label="Event detail tabs"
        controls="detail-body"
        selected={current}
        onSelect={(t) => (tab.value = { eventId: ev.id, tab: t })}
        tabs={(['payload', 'raw', 'exchange'] as const).map((t) => ({ id: t, label: t, domId: `detail-tab-${t}` }))}
      />
      <div class="detail-body" id="detail-body" role="tabpanel" aria-labelledby={`detail-tab-${current}`}>
        {current === 'payload' && <JsonTree value={ev.payload} openKeys={ev.type === 'action:result' ? ['error'] : undefined} />}
        {current === 'raw' && <pre class="raw">{ev.raw ?? '(no raw text: binary, direct call or over the capture cap)'}</pre>}
        {current === 'exchange' && <Exchange ev={ev} />}
      </div>
    </aside>
  );
}
