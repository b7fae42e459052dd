/**
 * Replay a captured request: a fresh id by default, the same id to see the
 * client's repeat handling, or edited in the composer. It says before sending
 * when the surface is not mounted now (the request can still be sent on
 * purpose), shows the client's answer next to the buttons, and selects the
 * new request's row in the Timeline once it is captured, as DevTools' Replay
 * XHR does.
 */
import { useEffect } from 'preact/hooks';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { safeJson } from '../copy.ts';
import { notMountedReason, surfaceChoices, type ComposerState } from '../composer.ts';
import { useStore } from '../store-context.ts';
import { answerLine } from './inject-history.tsx';

/** The last replay's answer, in one line: "Replayed as 5ecf07dd · success", "… · error SURFACE_UNAVAILABLE: …", "… · not delivered: …". */
function useLastReplay(ev: WireEvent): { line: string; ok: boolean | null } | null {
  const store = useStore();
  const { model } = store;
  const replayed = store.injector.replayed.value;
  const record = replayed ? store.injector.injections.value.find((r) => r.id === replayed.id) : undefined;
  const state = record ? model.clients.get(record.client)?.requests.get(record.request.requestId) : undefined;
  const send = state?.sends.filter((s) => s.injected).at(-1);
  const sent = send?.eventId;
  // Once captured, the new request is selected, unless the user went elsewhere meanwhile (another row, another view).
  useEffect(() => {
    if (!replayed || replayed.selected || !sent) return;
    store.injector.replayed.value = { ...replayed, selected: true };
    if (store.selectedEvent.peek() === replayed.from) store.openEvent(sent);
  }, [replayed, sent, store]);
  useEffect(
    () => () => {
      const pending = store.injector.replayed.peek();
      if (pending && !pending.selected) store.injector.replayed.value = { ...pending, selected: true };
    },
    [store],
  );
  if (!replayed || !record || (replayed.from !== ev.id && sent !== ev.id)) return null;
  // Not captured yet: no answer of the original stands in for the replay's.
  const { line, final } = send ? answerLine(state, send.t) : { line: '', final: undefined };
  const what = final ? line : record.status === 'failed' ? `not delivered: ${record.error ?? ''}` : line || record.status;
  return { line: `Replayed as ${record.request.requestId.slice(0, 8)} · ${what}`, ok: final ? final.success : record.status === 'failed' ? false : null };
}

export function Replay({ ev }: { ev: WireEvent }) {
  const p = ev.payload as { requestId?: unknown; surfaceId?: unknown; actionId?: unknown; params?: unknown; approval?: { approvalId?: unknown } } | null;
  const store = useStore();
  const { model, recorder } = store;
  const client = recorder.clients.get(ev.client);
  const answer = useLastReplay(ev);
  if (!p || typeof p.surfaceId !== 'string' || typeof p.actionId !== 'string' || !client) return null;
  const notMounted = notMountedReason(model, recorder, client.key, p.surfaceId);
  const base: Partial<ComposerState> = {
    client: client.key,
    // Named as text in the composer when no other client has the surface.
    clientAuto: surfaceChoices(model, recorder.clients.keys()).find((x) => x.id === p.surfaceId)?.clients.length === 1,
    surfaceId: p.surfaceId,
    actionId: p.actionId,
    paramsText: safeJson(p.params ?? {}),
    replayOf: ev.id,
    ...(typeof p.approval?.approvalId === 'string' ? { approvalId: p.approval.approvalId } : {}),
    approvalMode: p.approval ? 'matching' : 'none',
  };
  const send = (sameId: boolean) => {
    store.sendComposed({ ...store.ui.composer.peek(), wantReceipt: true, letThrough: false, ...base, ...(sameId && typeof p.requestId === 'string' ? { requestId: p.requestId } : { requestId: undefined }) } as ComposerState);
    const record = store.injector.injections.peek()[0];
    if (record?.replayOf === ev.id) store.injector.noteReplay(record.id, ev.id);
  };
  const anyway = notMounted ? ' anyway (not mounted)' : '';
  return (
    <div class="replay" role="group" aria-label="Replay">
      {notMounted && (
        <p class="warn" data-testid="replay-not-mounted">
          {notMounted}: a replay is expected to fail with SURFACE_UNAVAILABLE.
        </p>
      )}
      <button onClick={() => send(false)} title="Send it again with a fresh requestId">
        Replay{anyway}
      </button>
      <button onClick={() => send(true)} title="Send it again with the same requestId, to see how the client handles a repeat (§7.3.7)">
        Replay same id{anyway}
      </button>
      <button onClick={() => store.openComposer(base)} title="Open in the composer to edit the params first">
        Edit and send…
      </button>
      <span role="status" aria-live="polite" data-testid="replay-answer" class={answer?.ok === true ? 'ok' : answer?.ok === false ? 'warn' : 'muted'}>
        {answer?.line ?? ''}
      </span>
    </div>
  );
}
