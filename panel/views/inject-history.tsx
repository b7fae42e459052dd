/**
 * The experiments sent into the page, newest first: delivery, and the
 * client's answer, which opens up to its data or error. Derived from the
 * capture's injected requests (so it survives a panel reload), with this
 * panel's word on what it sent that the capture does not show.
 */
import type { OUIActionResult } from '../../src/protocol/index.ts';
import type { RequestState } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { clock, short } from '../display-text.ts';
import { injectionHistory } from '../injector.ts';
import { useModel } from '../store-context.ts';

/**
 * The client's final answer, in one line: "success", "error CODE: message",
 * or where the request stands. `since`: the answer to a send at that time (a
 * same-id replay is not answered by the original's result).
 */
export function answerLine(state: RequestState | undefined, since?: number): { line: string; final?: OUIActionResult } {
  const final = state?.results.filter((x) => !x.result.interim && (since === undefined || x.t >= since)).at(-1)?.result;
  if (final) return { line: final.success ? 'success' : `error ${final.error?.code ?? ''}: ${short(final.error?.message, 80)}`, final };
  if (since !== undefined && state?.sends[0] && state.sends[0].t < since) {
    return { line: state.receipts.some((r) => r.t >= since) ? 'receipt only (no second answer)' : 'no answer yet' };
  }
  return { line: state?.status ?? '' };
}

/** The answer opened up in its history row: the data, or the error's code, message and details. */
function AnswerBody({ result, id }: { result: OUIActionResult; id: string }) {
  return (
    <div class="answer-body" id={id} role="region" aria-label="Answer">
      {result.success ? (
        result.data === undefined ? (
          <p class="muted">no data</p>
        ) : (
          <JsonTree value={result.data} />
        )
      ) : (
        <dl>
          <dt>code</dt>
          <dd class="mono">{String(result.error?.code ?? '(none)')}</dd>
          <dt>message</dt>
          <dd>{String(result.error?.message ?? '(none)')}</dd>
          {result.error?.details !== undefined && (
            <>
              <dt>details</dt>
              <dd>
                <JsonTree value={result.error.details} />
              </dd>
            </>
          )}
        </dl>
      )}
    </div>
  );
}

export function InjectHistory() {
  const store = useModel();
  const { model, recorder, ui } = store;
  const expanded = ui.expanded;
  const toggle = (id: string) => {
    const next = new Set(expanded.value);
    if (!next.delete(id)) next.add(id);
    expanded.value = next;
  };
  const list = injectionHistory(model, recorder, store.injector.injections.value);
  if (!list.length) return <p class="muted">No experiment sent yet.</p>;
  return (
    <table class="grid history" data-testid="inject-history">
      <thead>
        <tr>
          <th>Time</th>
          <th>Request</th>
          <th>Delivery</th>
          <th>Client's answer</th>
        </tr>
      </thead>
      <tbody>
        {list.map((r) => {
          const state = model.clients.get(r.client)?.requests.get(r.requestId);
          const sentAt = r.eventId ? state?.sends.find((s) => s.eventId === r.eventId)?.t : undefined;
          const { line: answer, final } = answerLine(state, sentAt);
          const open = expanded.value.has(r.key);
          const answerId = `inj-${r.key.replace(/[^A-Za-z0-9_-]/g, '_')}-answer`;
          return (
            <tr key={r.key} data-status={r.status} data-request-id={r.requestId}>
              <td>{clock(r.t)}</td>
              <td>
                {r.eventId ? (
                  <button class="link" onClick={() => store.openEvent(r.eventId!)}>
                    {r.surfaceId} › {r.actionId}
                  </button>
                ) : (
                  `${r.surfaceId} › ${r.actionId}`
                )}{' '}
                <span class="muted mono">{r.requestId.slice(0, 8)}</span>
                {r.replay && <span class="muted"> replay</span>}
              </td>
              <td class={r.status === 'failed' ? 'warn' : ''}>
                {r.status}
                {r.error ? `: ${r.error}` : ''}
                {r.kept ? ' · answer kept from the runtime' : ''}
              </td>
              <td class="answer">
                {final ? (
                  <>
                    <button class="link disclosure" aria-expanded={open} aria-controls={answerId} onClick={() => toggle(r.key)}>
                      <span aria-hidden="true">{open ? '▾' : '▸'} </span>
                      <span data-testid="inject-answer" class={final.success ? 'ok' : 'warn'}>
                        {answer}
                      </span>
                    </button>
                    {open && <AnswerBody result={final} id={answerId} />}
                  </>
                ) : (
                  <span data-testid="inject-answer">{answer}</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
