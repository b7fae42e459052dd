/**
 * The composer: pick a client, a surface and an action; fill params with a
 * form generated from the action's input schema or as raw JSON, validated as
 * you type; add an approval (right, wrong or none) for an action that needs
 * one; send it into the live page. Below: what was injected, and the requests
 * saved for this origin.
 */
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { argsHashSync, requiresApproval, validateJson, type OUIAction, type OUIActionResult, type OUISurface } from '../../src/protocol/index.ts';
import { whyNotInjectable } from '../../src/session/wire/injection.ts';
import type { RequestState } from '../../src/session/model/types.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { SchemaForm, initialValue } from '../components/schema-form.tsx';
import { clock, short } from '../format.ts';
import { deleteSaved, injectRequest, injections, loadSaved, saveRequest, type SavedRequest } from '../injector.ts';
import { connection, model, recorder, selectedEvent, source, version, view } from '../state.ts';

export type ApprovalMode = 'matching' | 'wrong' | 'none';

export interface ComposerState {
  client: string;
  surfaceId: string;
  actionId: string;
  paramsText: string;
  /** Set for a replay with the same id. */
  requestId?: string;
  approvalId: string;
  approvalMode: ApprovalMode;
  wantReceipt: boolean;
  letThrough: boolean;
  replayOf?: string;
}

const fresh = (): ComposerState => ({
  client: '',
  surfaceId: '',
  actionId: '',
  paramsText: '{}',
  approvalId: crypto.randomUUID(),
  approvalMode: 'matching',
  wantReceipt: true,
  letThrough: false,
});

export const composer = signal<ComposerState>(fresh());

function update(patch: Partial<ComposerState>): void {
  composer.value = { ...composer.value, ...patch };
}

/** Opens the composer on a captured request (Edit and send). */
export function openComposer(prefill: Partial<ComposerState>): void {
  composer.value = { ...fresh(), ...prefill };
  view.value = 'inject';
}

function parseParams(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

function hashOf(params: unknown): { ok: true; hash: string } | { ok: false; error: string } {
  try {
    return { ok: true, hash: argsHashSync(params) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** A hash that is well-formed but not the params' own: the last hex digit flipped. */
function wrongHash(hash: string): string {
  const last = hash.at(-1) === '0' ? '1' : '0';
  return hash.slice(0, -1) + last;
}

/** Sends what the composer holds. Exported for Replay, which sends without opening the composer. */
export function sendComposed(state: ComposerState): void {
  const client = recorder.clients.get(state.client);
  if (!client) return;
  const parsed = parseParams(state.paramsText);
  if (!parsed.ok) return;
  const surface = model.clients.get(client.key)?.surfaces.get(state.surfaceId)?.surface;
  const action = surface?.actions?.find((a) => a.id === state.actionId);
  const needsApproval = action ? requiresApproval(action.effect, action.confirm === true) : false;
  const hash = hashOf(parsed.value);
  let approval: { approvalId: string; argsHash: string } | undefined;
  if (needsApproval && state.approvalMode !== 'none' && hash.ok) {
    approval = { approvalId: state.approvalId, argsHash: state.approvalMode === 'wrong' ? wrongHash(hash.hash) : hash.hash };
  }
  injectRequest(
    connection,
    client,
    { surfaceId: state.surfaceId, actionId: state.actionId, params: parsed.value, ...(state.requestId ? { requestId: state.requestId } : {}), ...(approval ? { approval } : {}) },
    { wantReceipt: state.wantReceipt, letThrough: state.letThrough, ...(state.replayOf ? { replayOf: state.replayOf } : {}) },
  );
}

function Saved({ origin, onLoad }: { origin: string; onLoad: (s: SavedRequest) => void }) {
  const [list, setList] = useState<SavedRequest[]>([]);
  const [name, setName] = useState('');
  const c = composer.value;
  useEffect(() => {
    if (origin) loadSaved(origin).then(setList, () => setList([]));
  }, [origin]);
  if (!origin) return null;
  return (
    <section class="saved">
      <h3>Saved for {origin}</h3>
      <div class="row-inline">
        <input aria-label="Name to save as" placeholder="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button
          disabled={!name || !c.actionId}
          onClick={async () => {
            const parsed = parseParams(c.paramsText);
            setList(await saveRequest(origin, { name, surfaceId: c.surfaceId, actionId: c.actionId, params: parsed.ok ? parsed.value : c.paramsText, savedAt: Date.now() }));
            setName('');
          }}
        >
          Save request
        </button>
      </div>
      <ul>
        {list.map((s) => (
          <li key={s.name}>
            <button class="link" onClick={() => onLoad(s)}>
              {s.name}
            </button>{' '}
            <span class="muted">
              {s.surfaceId} › {s.actionId} {short(s.params, 60)}
            </span>{' '}
            <button class="icon" aria-label={`Delete ${s.name}`} onClick={async () => setList(await deleteSaved(origin, s.name))}>
              ✕
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A client as the composer offers it: transport, where, and the surfaces it has mounted, so two clients of one page tell apart. */
export function clientOption(client: WireClient): string {
  const ids = [...(model.clients.get(client.key)?.surfaces.keys() ?? [])];
  const shown = ids.slice(0, 4).join(', ') + (ids.length > 4 ? ` +${ids.length - 4} more` : '');
  return `${client.kind}: ${client.label} — ${ids.length === 0 ? 'no surfaces' : `${ids.length === 1 ? 'surface' : 'surfaces'} ${shown}`}`;
}

/** The client's final answer, in one line: "success", "error CODE: message", or where the request stands. */
function answerLine(state: RequestState | undefined): { line: string; final?: OUIActionResult } {
  const final = state?.results.filter((x) => !x.result.interim).at(-1)?.result;
  if (final) return { line: final.success ? 'success' : `error ${final.error?.code ?? ''}: ${short(final.error?.message, 80)}`, final };
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

const expanded = signal<ReadonlySet<string>>(new Set());

function toggle(id: string): void {
  const next = new Set(expanded.value);
  if (!next.delete(id)) next.add(id);
  expanded.value = next;
}

function History() {
  // Model state is mutated in place: read the version so this re-renders with it.
  void version.value;
  const list = injections.value;
  if (!list.length) return <p class="muted">Nothing injected yet.</p>;
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
          const state = model.clients.get(r.client)?.requests.get(r.request.requestId);
          const { line: answer, final } = answerLine(state);
          const open = expanded.value.has(r.id);
          const firstSend = state?.sends.find((s) => s.injected)?.eventId ?? state?.sends[0]?.eventId;
          return (
            <tr key={r.id} data-status={r.status} data-request-id={r.request.requestId}>
              <td>{clock(r.t)}</td>
              <td>
                {firstSend ? (
                  <button class="link" onClick={() => ((selectedEvent.value = firstSend), (view.value = 'timeline'))}>
                    {r.request.surfaceId} › {r.request.actionId}
                  </button>
                ) : (
                  `${r.request.surfaceId} › ${r.request.actionId}`
                )}{' '}
                <span class="muted mono">{r.request.requestId.slice(0, 8)}</span>
                {r.replayOf && <span class="muted"> replay</span>}
              </td>
              <td class={r.status === 'failed' ? 'warn' : ''}>
                {r.status}
                {r.error ? `: ${r.error}` : ''}
                {r.letThrough ? '' : ' · answer kept from the runtime'}
              </td>
              <td class="answer">
                {final ? (
                  <>
                    <button class="link disclosure" aria-expanded={open} aria-controls={`${r.id}-answer`} onClick={() => toggle(r.id)}>
                      <span aria-hidden="true">{open ? '▾' : '▸'} </span>
                      <span data-testid="inject-answer" class={final.success ? 'ok' : 'warn'}>
                        {answer}
                      </span>
                    </button>
                    {open && <AnswerBody result={final} id={`${r.id}-answer`} />}
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

export function Inject() {
  void version.value;
  const c = composer.value;
  if (source.value === 'import') return <p class="empty">Injection needs a live page: go back to live to inject.</p>;
  const clients = [...recorder.clients.values()].filter((cl) => model.clients.get(cl.key)?.surfaces.size);
  const client = recorder.clients.get(c.client);
  const clientState = model.clients.get(c.client);
  const surfaces: OUISurface[] = clientState ? [...clientState.surfaces.values()].map((s) => s.surface) : [];
  const surface = surfaces.find((s) => s.id === c.surfaceId);
  const action: OUIAction | undefined = surface?.actions?.find((a) => a.id === c.actionId);
  const parsed = parseParams(c.paramsText);
  const validation = parsed.ok && action ? validateJson(parsed.value, action.input) : null;
  const needsApproval = action ? requiresApproval(action.effect, action.confirm === true) : false;
  const hash = parsed.ok ? hashOf(parsed.value) : null;
  const blocked = client ? whyNotInjectable(client) : null;

  const setParams = (v: unknown) => update({ paramsText: JSON.stringify(v ?? {}, null, 2) });
  const pickAction = (surfaceId: string, actionId: string) => {
    const a = surfaces.find((s) => s.id === surfaceId)?.actions?.find((x) => x.id === actionId);
    update({ surfaceId, actionId, paramsText: JSON.stringify(a ? (initialValue(a.input) ?? {}) : {}, null, 2), requestId: undefined, replayOf: undefined });
  };

  return (
    <div class="view inject" data-testid="inject-view">
      <div class="composer">
        <div class="pickers">
          <label>
            Inject into client{' '}
            <select aria-label="Inject into client" value={c.client} onChange={(e) => update({ client: (e.target as HTMLSelectElement).value, surfaceId: '', actionId: '' })}>
              <option value="">— choose —</option>
              {clients.map((cl) => (
                <option value={cl.key}>{clientOption(cl)}</option>
              ))}
            </select>
          </label>
          <label>
            Surface{' '}
            <select aria-label="Surface" value={c.surfaceId} onChange={(e) => update({ surfaceId: (e.target as HTMLSelectElement).value, actionId: '' })}>
              <option value="">—</option>
              {surfaces.map((s) => (
                <option value={s.id}>{s.id}</option>
              ))}
            </select>
          </label>
          <label>
            Action{' '}
            <select aria-label="Action" value={c.actionId} onChange={(e) => pickAction(c.surfaceId, (e.target as HTMLSelectElement).value)}>
              <option value="">—</option>
              {(surface?.actions ?? []).map((a) => (
                <option value={a.id}>
                  {a.id} ({a.effect ?? 'write'})
                </option>
              ))}
            </select>
          </label>
        </div>
        {blocked && <p class="warn">{blocked}</p>}
        {c.requestId && (
          <p class="notice-inline">
            Replaying with the same requestId <code>{c.requestId}</code>: shows how the client handles a repeat (§7.3.7).{' '}
            <button class="link" onClick={() => update({ requestId: undefined })}>
              use a fresh id
            </button>
          </p>
        )}
        {action && (
          <>
            <p class="desc">{short(action.description, 300)}</p>
            <div class="editors">
              <div class="form-pane">
                <h3>Form</h3>
                {parsed.ok ? <SchemaForm schema={action.input} value={parsed.value} onChange={setParams} /> : <p class="muted">Fix the JSON to use the form.</p>}
              </div>
              <div class="json-pane">
                <h3>JSON</h3>
                <textarea aria-label="Params JSON" spellcheck={false} value={c.paramsText} onInput={(e) => update({ paramsText: (e.target as HTMLTextAreaElement).value })} />
                <div class="validation" data-testid="validation" aria-live="polite">
                  {!parsed.ok && <p class="warn">Not JSON: {parsed.error}</p>}
                  {validation && validation.valid && <p class="ok">Params match the input schema.</p>}
                  {validation && !validation.valid && (
                    <ul class="warn">
                      {validation.errors.map((e) => (
                        <li>
                          <code>{e.pointer || '/'}</code> {e.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
              </div>
            </div>
            {needsApproval && (
              <fieldset class="approval-block" data-testid="approval-block">
                <legend>Approval ({action.effect === 'transaction' ? 'transaction' : 'destructive write'})</legend>
                <label>
                  approvalId <input aria-label="approvalId" value={c.approvalId} onInput={(e) => update({ approvalId: (e.target as HTMLInputElement).value })} />
                </label>
                <p class="mono">argsHash(params) = {hash ? (hash.ok ? hash.hash : `cannot hash: ${hash.error}`) : '—'}</p>
                <label>
                  <input type="radio" name="approval-mode" checked={c.approvalMode === 'matching'} onChange={() => update({ approvalMode: 'matching' })} /> send the matching argsHash
                </label>
                <label>
                  <input type="radio" name="approval-mode" checked={c.approvalMode === 'wrong'} onChange={() => update({ approvalMode: 'wrong' })} /> send a wrong argsHash
                </label>
                <label>
                  <input type="radio" name="approval-mode" checked={c.approvalMode === 'none'} onChange={() => update({ approvalMode: 'none' })} /> send no approval
                </label>
                <p class="muted">The client must run this only on a grant its user issued for exactly these params; an injected approvalId has none, so expect a refusal unless the page holds that grant.</p>
              </fieldset>
            )}
            <div class="send-row">
              <label>
                <input type="checkbox" checked={c.wantReceipt} onChange={(e) => update({ wantReceipt: (e.target as HTMLInputElement).checked })} /> ask for a receipt
              </label>
              <label title="By default the client's answer is captured but kept from the app's own agent runtime, which never asked for it.">
                <input type="checkbox" checked={c.letThrough} onChange={(e) => update({ letThrough: (e.target as HTMLInputElement).checked })} /> let the answer reach the app's runtime
              </label>
              <button class="primary" disabled={!parsed.ok || !!blocked} onClick={() => sendComposed(composer.value)}>
                {validation && !validation.valid ? 'Send anyway (invalid params)' : 'Send'}
              </button>
            </div>
          </>
        )}
      </div>
      {client && (
        <Saved
          origin={client.origin}
          onLoad={(s) => update({ surfaceId: s.surfaceId, actionId: s.actionId, paramsText: typeof s.params === 'string' ? s.params : JSON.stringify(s.params, null, 2), requestId: undefined })}
        />
      )}
      <h3>Injected</h3>
      <History />
    </div>
  );
}
