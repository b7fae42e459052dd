/**
 * The composer: pick a surface (the client too, when more than one has it)
 * and an action; fill params with a form generated from the action's input
 * schema or as raw JSON, validated as you type; add an approval (right, wrong
 * or none) for an action that needs one; send it into the live page. A
 * surface that unmounts stays chosen, said to be not mounted and why, and can
 * still be sent to on purpose. Below: the requests saved for this origin, and
 * the experiments sent into the page.
 */
import { requiresApproval, validateJson, type OUIAction, type OUISurface } from '../../src/protocol/index.ts';
import { whyNotInjectable } from '../../src/session/wire/injection.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { SchemaForm, initialValue } from '../components/schema-form.tsx';
import { short } from '../display-text.ts';
import { composerClient, hashOf, lastKnownSurface, notMountedReason, parseParams, surfaceChoices, type ComposerState, type SurfaceChoice } from '../composer.ts';
import { useModel, useStore } from '../store-context.ts';
import { InjectHistory } from './inject-history.tsx';
import { SavedRequests } from './saved-requests.tsx';

type Update = (patch: Partial<ComposerState>) => void;
type Parsed = ReturnType<typeof parseParams>;
type Validation = ReturnType<typeof validateJson>;

/** A client as the composer offers it: transport, where, and the surfaces it has mounted, so two clients of one page tell apart. */
export function clientOption(model: SessionModel, client: WireClient): string {
  const ids = [...(model.clients.get(client.key)?.surfaces.keys() ?? [])];
  const shown = ids.slice(0, 4).join(', ') + (ids.length > 4 ? ` +${ids.length - 4} more` : '');
  return `${client.kind}: ${client.label} — ${ids.length === 0 ? 'no surfaces' : `${ids.length === 1 ? 'surface' : 'surfaces'} ${shown}`}`;
}

/**
 * The surface (of any client), then the client: picking a surface only one
 * client has chooses that client and names it as text, with no picker; of
 * several, or a client picked by hand, the picker stays. A surface known from
 * earlier but not mounted now is listed greyed out, and stays chosen when it
 * unmounts.
 */
export function Pickers({ c, choices, client, surface, update }: { c: ComposerState; choices: SurfaceChoice[]; client: WireClient | undefined; surface: OUISurface | undefined; update: Update }) {
  const { model, recorder } = useModel();
  const injectable = [...recorder.clients.values()].filter((cl) => model.clients.get(cl.key)?.surfaces.size || model.clients.get(cl.key)?.lifecycle.length);
  const choice = choices.find((x) => x.id === c.surfaceId);
  // The clients with the chosen surface (mounted, or else known): the only one is named as text.
  const candidates = choice ? injectable.filter((cl) => choice.clients.includes(cl.key)) : injectable;
  const pickClient = (client: string) =>
    update({ client, clientAuto: false, ...(choice && !choice.clients.includes(client) ? { surfaceId: '', actionId: '' } : {}) });
  const pickSurface = (surfaceId: string) => {
    const next = choices.find((x) => x.id === surfaceId);
    if (!next || next.clients.includes(c.client)) return update({ surfaceId, actionId: '' });
    // The only client with the surface is chosen for the user; of several, the user picks.
    update({ surfaceId, actionId: '', ...(next.clients.length === 1 ? { client: next.clients[0]!, clientAuto: true } : { client: '', clientAuto: false }) });
  };
  const pickAction = (actionId: string) => {
    const a = surface?.actions?.find((x) => x.id === actionId);
    update({ actionId, paramsText: JSON.stringify(a ? (initialValue(a.input) ?? {}) : {}, null, 2), requestId: undefined, replayOf: undefined });
  };
  // A surface chosen from a client's list (Edit and send, a saved request) that the list no longer offers: kept, as not mounted.
  const listed = choice || !c.surfaceId ? choices : [...choices, { id: c.surfaceId, mounted: false, clients: client ? [client.key] : [] }];
  return (
    <div class="pickers">
      <label>
        Surface{' '}
        <select aria-label="Surface" value={c.surfaceId} onChange={(e) => pickSurface((e.target as HTMLSelectElement).value)}>
          <option value="">—</option>
          {listed.map((s) => (
            <option value={s.id} class={s.mounted ? '' : 'unmounted'} data-mounted={s.mounted ? 'true' : 'false'}>
              {s.mounted ? s.id : `${s.id} — not mounted now`}
            </option>
          ))}
        </select>
      </label>
      {c.clientAuto && choice && candidates.length === 1 && client ? (
        <span class="chosen-client" data-testid="chosen-client" title="The only client with this surface">
          Client <b>{client.kind}</b>: {client.label}
        </span>
      ) : (
        <label>
          Inject into client{' '}
          <select aria-label="Inject into client" value={c.client} onChange={(e) => pickClient((e.target as HTMLSelectElement).value)}>
            <option value="">— choose —</option>
            {injectable.map((cl) => (
              <option value={cl.key}>{clientOption(model, cl)}</option>
            ))}
          </select>
        </label>
      )}
      <label>
        Action{' '}
        <select aria-label="Action" value={c.actionId} onChange={(e) => pickAction((e.target as HTMLSelectElement).value)}>
          <option value="">—</option>
          {(surface?.actions ?? []).map((a) => (
            <option value={a.id}>
              {a.id} ({a.effect ?? 'write'})
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** The params, as a form generated from the input schema and as JSON, with the schema's verdict as you type. */
export function ParamsEditors({ c, action, parsed, validation, update }: { c: ComposerState; action: OUIAction; parsed: Parsed; validation: Validation | null; update: Update }) {
  return (
    <div class="editors">
      <div class="form-pane">
        <h3>Form</h3>
        {parsed.ok ? (
          <SchemaForm schema={action.input} value={parsed.value} errors={validation && !validation.valid ? validation.errors : []} onChange={(v) => update({ paramsText: JSON.stringify(v ?? {}, null, 2) })} />
        ) : (
          <p class="muted">Fix the JSON to use the form.</p>
        )}
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
  );
}

/** For a destructive write or a transaction: the approval to send, matching the params' argsHash or not, or none. */
function ApprovalBlock({ c, action, update }: { c: ComposerState; action: OUIAction; update: Update }) {
  const parsed = parseParams(c.paramsText);
  const hash = parsed.ok ? hashOf(parsed.value) : null;
  return (
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
  );
}

/** What the Send button says: plain "Send", or "Send anyway (…)" naming what is wrong with sending now. */
export function sendLabel(notMounted: boolean, invalid: boolean): string {
  const why = [notMounted && 'not mounted', invalid && 'invalid params'].filter(Boolean);
  return why.length ? `Send anyway (${why.join(', ')})` : 'Send';
}

function SendRow({ c, parsed, validation, blocked, notMounted, update }: { c: ComposerState; parsed: Parsed; validation: Validation | null; blocked: string | null; notMounted: boolean; update: Update }) {
  const store = useStore();
  const invalid = validation !== null && !validation.valid;
  return (
    <div class="send-row">
      <label>
        <input type="checkbox" checked={c.wantReceipt} onChange={(e) => update({ wantReceipt: (e.target as HTMLInputElement).checked })} /> ask for a receipt
      </label>
      <label title="By default the client's answer is captured but kept from the app's own agent runtime, which never asked for it.">
        <input type="checkbox" checked={c.letThrough} onChange={(e) => update({ letThrough: (e.target as HTMLInputElement).checked })} /> let the answer reach the app's runtime
      </label>
      <button class="primary" disabled={!parsed.ok || !!blocked} onClick={() => store.sendComposed(store.ui.composer.value)}>
        {sendLabel(notMounted, invalid)}
      </button>
    </div>
  );
}

export function Inject() {
  const { model, recorder, source, ui } = useModel();
  const composer = ui.composer;
  const c = composer.value;
  const update: Update = (patch) => (composer.value = { ...composer.value, ...patch });
  if (source.value === 'import') return <p class="empty">Injection needs a live page: go back to live to inject.</p>;
  const clientKeys = [...recorder.clients.keys()];
  const choices = surfaceChoices(model, clientKeys);
  const client = composerClient(c, recorder, model);
  // The surface as mounted now, or as last seen: one that unmounted keeps its actions, form and JSON.
  const surface = client ? lastKnownSurface(model, recorder, client.key, c.surfaceId) : undefined;
  const notMounted = client && c.surfaceId ? notMountedReason(model, recorder, client.key, c.surfaceId) : null;
  const action: OUIAction | undefined = surface?.actions?.find((a) => a.id === c.actionId);
  const blocked = client ? whyNotInjectable(client) : null;
  const parsed = parseParams(c.paramsText);
  const validation = parsed.ok && action ? validateJson(parsed.value, action.input) : null;

  return (
    <div class="view inject" data-testid="inject-view">
      <div class="composer">
        <Pickers c={c} choices={choices} client={client} surface={surface} update={update} />
        {notMounted && (
          <p class="warn" data-testid="not-mounted" role="status">
            {notMounted}. A request sent now is expected to fail with SURFACE_UNAVAILABLE.
          </p>
        )}
        {client && c.surfaceId && !surface && c.actionId && (
          <p class="muted">This surface's definition is no longer in the capture: edit the params as JSON.</p>
        )}
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
            <ParamsEditors c={c} action={action} parsed={parsed} validation={validation} update={update} />
            {requiresApproval(action.effect, action.confirm === true) && <ApprovalBlock c={c} action={action} update={update} />}
          </>
        )}
        {(action || (client && c.surfaceId && c.actionId)) && <SendRow c={c} parsed={parsed} validation={validation} blocked={client ? blocked : 'no client chosen'} notMounted={notMounted !== null} update={update} />}
      </div>
      {client && (
        <SavedRequests
          origin={client.origin}
          onLoad={(s) => update({ surfaceId: s.surfaceId, actionId: s.actionId, paramsText: typeof s.params === 'string' ? s.params : JSON.stringify(s.params, null, 2), requestId: undefined })}
        />
      )}
      <h3>Experiments</h3>
      <InjectHistory />
    </div>
  );
}
