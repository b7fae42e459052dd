/**
 * The Runtime view: the panel in the agent runtime's seat (issue 21, item 2).
 * Per client, Take over (the app's runtime is held back from it while the
 * panel's stand-in answers) or, with no runtime at all, Serve a URL pattern
 * from the virtual server inside the page. Requests go as the stand-in from
 * the Inject view's composer (its pickers and schema form, its own state);
 * an action that needs approval first shows the exact params and their
 * argsHash, and the approval issued for them is listed, to be reused on
 * purpose. The stand-in's state: the surfaces it holds by hash, the
 * `knownSurfaces` it will send, its requests with their re-sends, answers
 * and acknowledgments, each linked to its exchange in the Timeline.
 */
import { EventLink } from './event-detail.tsx';
import { useEffect, useRef, useState } from 'preact/hooks';
import { requiresApproval, validateJson, type OUIAction } from '../../src/protocol/index.ts';
import { whyNotInjectable } from '../../src/session/wire/injection.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import type { PanelStore } from '../store.ts';
import { useModel, useStore } from '../store-context.ts';
import { composerClient, hashOf, lastKnownSurface, parseParams, surfaceChoices, type ComposerState } from '../composer.ts';
import { clock, short } from '../display-text.ts';
import { isServed, type CallRow, type IssuedApproval } from '../stand-in.ts';
import { ParamsEditors, Pickers, clientOption } from './inject.tsx';

type Update = (patch: Partial<ComposerState>) => void;

/** "The panel is the runtime of 1 client — Give back — Show", above every view while a takeover is on, as the Faults banner is. */
export function StandInBanner() {
  const { standIn, view, recorder } = useModel();
  const taken = standIn.taken.value;
  if (taken.size === 0) return null;
  // A client the capture no longer has (the page navigated): its connection is gone, and so is what the rule held back.
  const names = [...taken.keys()].map((k) => {
    const c = recorder.clients.get(k);
    return c ? `${c.kind}: ${c.label}` : `${k} (closed)`;
  });
  return (
    <div class="faults-banner" role="status" data-testid="stand-in-banner">
      <span>
        ⚠ Stand-in runtime: the app's runtime is held back from {names.join(', ')}
      </span>{' '}
      —{' '}
      <button class="link" onClick={() => standIn.giveBackAll()}>
        Give back
      </button>{' '}
      {view.value !== 'runtime' && (
        <button class="link" onClick={() => (view.value = 'runtime')}>
          Show
        </button>
      )}
    </div>
  );
}

function seatOf(client: WireClient, taken: boolean): string {
  if (isServed(client)) return 'stand-in (virtual server, no runtime)';
  return taken ? "stand-in (the app's runtime is held back)" : "the app's runtime";
}

function Clients() {
  const store = useModel();
  const { recorder, model, standIn } = store;
  const taken = standIn.taken.value;
  const all = [...recorder.clients.values()];
  // A connection a reconnection replaced (§7.6.1) is gone: its successor is listed.
  const replaced = new Set(all.map((c) => c.replaces).filter((k): k is string => k !== undefined));
  const clients = all.filter((c) => !replaced.has(c.key) && (c.inject || model.clients.get(c.key)?.surfaces.size));
  if (!clients.length) return <p class="muted">No OUI client in this tab yet.</p>;
  return (
    <table class="fault-rules" aria-label="Clients and their runtime">
      <thead>
        <tr>
          <th>Client</th>
          <th>Runtime seat</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {clients.map((c) => {
          const on = taken.has(c.key);
          const why = whyNotInjectable(c);
          return (
            <tr key={c.key} data-client={c.key} data-seat={isServed(c) ? 'served' : on ? 'stand-in' : 'runtime'} data-rule-client={taken.get(c.key)?.match.client}>
              <td>{clientOption(model, c)}</td>
              <td>{seatOf(c, on)}</td>
              <td>
                {isServed(c) ? null : on ? (
                  <button aria-label={`Give back ${c.kind}: ${c.label}`} onClick={() => standIn.giveBack(c.key)}>
                    Give back
                  </button>
                ) : (
                  <button aria-label={`Take over ${c.kind}: ${c.label}`} disabled={!!why} title={why ?? "Hold the app's runtime back from this client; the panel answers as its runtime"} onClick={() => {
                      const no = standIn.takeOver(c);
                      if (no) store.notice.value = `Cannot take over ${c.kind}: ${c.label}: ${no}`;
                    }}
                  >
                    Take over
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The exact params and their argsHash, before an approval is issued for them. */
function ConfirmApproval({ action, params, onConfirm, onCancel }: { action: OUIAction; params: Record<string, unknown>; onConfirm: () => void; onCancel: () => void }) {
  const hash = hashOf(params);
  const confirm = useRef<HTMLButtonElement>(null);
  // Below the form, where the send row was clicked: brought into view, its button focused (Enter approves, as in a dialog).
  useEffect(() => {
    confirm.current?.scrollIntoView({ block: 'nearest' });
    confirm.current?.focus();
  }, []);
  return (
    <div class="approval-block" role="dialog" aria-label="Confirm approval" data-testid="confirm-approval">
      <p>
        <b>{action.id}</b> ({action.effect === 'transaction' ? 'transaction' : 'destructive write'}) runs only on a single-use approval for exactly these params:
      </p>
      <pre class="mono" data-testid="approval-params">
        {JSON.stringify(params, null, 2)}
      </pre>
      <p class="mono">argsHash = {hash.ok ? hash.hash : `cannot hash: ${hash.error}`}</p>
      <p class="muted">The stand-in issues an approvalId for this argsHash and asks the tab for the user's grant (x-approval:ask); the request goes once the tab grants it.</p>
      <button ref={confirm} class="primary" disabled={!hash.ok} onClick={onConfirm}>
        Approve and send
      </button>{' '}
      <button onClick={onCancel}>Cancel</button>
    </div>
  );
}

function Composer() {
  const store = useModel();
  const { model, recorder, standIn } = store;
  const c = standIn.composer.value;
  const update: Update = (patch) => (standIn.composer.value = { ...standIn.composer.value, ...patch });
  const [confirm, setConfirm] = useState(false);
  const choices = surfaceChoices(model, [...recorder.clients.keys()]);
  const client = composerClient(c, recorder, model);
  const surface = client ? lastKnownSurface(model, recorder, client.key, c.surfaceId) : undefined;
  const action = surface?.actions?.find((a) => a.id === c.actionId);
  const parsed = parseParams(c.paramsText);
  const validation = parsed.ok && action ? validateJson(parsed.value, action.input) : null;
  const blocked = client ? whyNotInjectable(client) : 'no client chosen';
  const needsApproval = action ? requiresApproval(action.effect, action.confirm === true) : false;
  const params = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value) ? (parsed.value as Record<string, unknown>) : null;
  const send = (approve: boolean) => {
    if (!client || !params) return;
    setConfirm(false);
    void standIn.call(client, { surfaceId: c.surfaceId, actionId: c.actionId, params, ...(approve ? { approve: true as const } : {}) });
  };
  const taken = client ? standIn.taken.value.has(client.key) || isServed(client) : false;
  return (
    <div class="composer">
      <Pickers c={c} choices={choices} client={client} surface={surface} update={(p) => (setConfirm(false), update(p))} />
      {action && (
        <>
          <p class="desc">{short(action.description, 300)}</p>
          <ParamsEditors c={c} action={action} parsed={parsed} validation={validation} update={update} />
        </>
      )}
      {client && !taken && <p class="muted">The app's runtime still has this client's seat: the stand-in's answers are kept from it, but it may send its own requests. Take over to hold it back.</p>}
      {blocked && client && <p class="warn">{blocked}</p>}
      {confirm && action && params && <ConfirmApproval action={action} params={params} onConfirm={() => send(true)} onCancel={() => setConfirm(false)} />}
      {client && c.surfaceId && c.actionId && !confirm && (
        <div class="send-row">
          {!params && <span class="warn">Params must be a JSON object.</span>}
          <button class="primary" disabled={!params || !!blocked} onClick={() => (needsApproval ? setConfirm(true) : send(false))}>
            {needsApproval ? 'Review approval…' : 'Send as stand-in'}
          </button>
        </div>
      )}
    </div>
  );
}

/** What the stand-in of the composer's client holds: surfaces by hash, the knownSurfaces it will send. */
function StandInState() {
  const { standIn, recorder, model } = useModel();
  void standIn.version.value;
  const client = composerClient(standIn.composer.value, recorder, model);
  const s = client ? standIn.peek(client.key) : undefined;
  if (!client) return null;
  if (!s)
    return (
      <p class="muted" data-testid="stand-in-state">
        No stand-in for {client.kind}: {client.label} yet: one starts with its first request.
      </p>
    );
  const known = s.knownSurfaces();
  return (
    <div data-testid="stand-in-state">
      <p>
        Stand-in of <b>{client.kind}</b>: {client.label}. It will send <code>knownSurfaces</code>: <code data-testid="known-surfaces">{known ?? 'none'}</code>
        {known === undefined && <span class="muted"> (it holds no surfaces under the client's last surfacesHash{s.lastHash ? ` ${s.lastHash}` : ''})</span>}
        {s.lost && <span class="warn"> · transport lost</span>}
      </p>
      <p>
        Registered now: {[...s.registry.keys()].join(', ') || 'none'}
      </p>
      {s.held.size > 0 && (
        <table class="fault-rules" aria-label="Surfaces held by hash">
          <thead>
            <tr>
              <th>surfacesHash</th>
              <th>Surfaces</th>
            </tr>
          </thead>
          <tbody>
            {[...s.held].map(([hash, list]) => (
              <tr key={hash}>
                <td class="mono">
                  {hash}
                  {hash === s.lastHash ? ' (last)' : ''}
                </td>
                <td>{list.map((x) => x.id).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function answerOf(r: CallRow): string {
  if (r.state === 'failed') return `not delivered: ${r.error}`;
  if (r.state === 'approval') return "waiting for the tab's approval";
  if (!r.outcome) return r.sends > 1 ? `pending (sent ${r.sends} times)` : 'pending';
  const o = r.outcome;
  const res = o.result;
  const body = res.success ? `success${res.data !== undefined ? ` ${short(JSON.stringify(res.data), 120)}` : ''}` : `error ${res.error?.code ?? ''}${res.error?.message ? `: ${short(res.error.message, 160)}` : ''}`;
  const delivery = (res as { delivery?: { trimmed?: unknown; omitted?: unknown } }).delivery;
  const trimmed = delivery?.trimmed === true ? ` (re-sent trimmed${Array.isArray(delivery.omitted) ? `, without ${delivery.omitted.join(', ')}` : ''})` : '';
  return o.status === 'answered' ? body + trimmed : `${o.status}: ${body}`;
}

/** Plain WebSocket and postMessage carry no acknowledgment of a result (only Socket.IO's ack and a direct transport's callback do). */
function noAcks(client: WireClient | undefined): boolean {
  return client?.kind === 'websocket' || client?.kind === 'postmessage';
}

/** The request event of a call, to open its exchange. */
function requestEvent(store: PanelStore, r: CallRow): string | undefined {
  if (r.outcome?.eventIds.length) return r.outcome.eventIds[0];
  return r.requestId ? store.model.clients.get(r.client)?.requests.get(r.requestId)?.sends[0]?.eventId : undefined;
}

function Calls() {
  const store = useModel();
  const rows = store.standIn.calls.value;
  if (!rows.length) return <p class="muted">The stand-in sent no request yet.</p>;
  return (
    <table class="fault-rules" aria-label="Stand-in requests" data-testid="stand-in-calls">
      <thead>
        <tr>
          <th>Time</th>
          <th>Surface › action</th>
          <th>Sends</th>
          <th>Answer</th>
          <th>Acknowledgments</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const ev = requestEvent(store, r);
          return (
            <tr key={r.callId} data-request-id={r.requestId ?? ''} data-state={r.outcome?.status ?? r.state}>
              <td class="nowrap">{clock(r.t)}</td>
              <td>
                {r.surfaceId} › {r.actionId}
                {r.approvalId && <div class="muted mono">approval {short(r.approvalId, 13)}{r.reused ? ' (reused)' : ''}</div>}
              </td>
              <td title="1 + re-sends while neither a receipt nor an answer came (§7.3.7)">{r.sends}</td>
              <td data-testid="stand-in-answer">{answerOf(r)}</td>
              <td>{r.acks.join('; ') || (noAcks(store.recorder.clients.get(r.client)) ? 'none: the transport carries no acknowledgment of a result' : '—')}</td>
              <td>
                {ev && <EventLink id={ev} label="Show exchange" />}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Approvals() {
  const { standIn, recorder } = useModel();
  const list = standIn.approvals.value;
  if (!list.length) return null;
  const reuse = (a: IssuedApproval) => {
    const client = recorder.clients.get(a.client);
    if (client) void standIn.call(client, { surfaceId: a.surfaceId, actionId: a.actionId, params: a.params, approve: { approvalId: a.approvalId } });
  };
  return (
    <>
      <h3>Approvals issued</h3>
      <table class="fault-rules" aria-label="Approvals issued">
        <thead>
          <tr>
            <th>approvalId</th>
            <th>argsHash</th>
            <th>For</th>
            <th>State</th>
            <th>Uses</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((a) => (
            <tr key={a.approvalId} data-approval-id={a.approvalId}>
              <td class="mono">{a.approvalId}</td>
              <td class="mono">{a.argsHash}</td>
              <td>
                {a.surfaceId} › {a.actionId} <code>{short(JSON.stringify(a.params), 80)}</code>
              </td>
              <td>{a.state === 'refused' ? `refused: ${a.why}` : a.state === 'asked' ? 'asked of the tab' : 'granted, sent'}</td>
              <td>{a.uses}</td>
              <td>
                {a.state === 'granted' && (
                  <button title="A grant is single-use: the app must refuse a second request under it" onClick={() => reuse(a)}>
                    Send again with this approval
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Serve() {
  const { standIn, recorder, model } = useModel();
  const [pattern, setPattern] = useState('');
  const served = standIn.served.value;
  const connections = [...recorder.clients.values()].filter(isServed);
  return (
    <section aria-label="Virtual server" class="serve">
      <h3>Serve (no runtime)</h3>
      <p class="muted">
        The page's WebSocket and Socket.IO connections to this URL are answered inside the page and never reach the network: the panel is their only runtime. An exact URL, or a glob on host and path (
        <code>ws://localhost:*/socket.io/*</code>). Takes effect for connections opened from now on: reload the page. postMessage: the panel plays the host frame, direct: it calls the handlers (Send as stand-in on those clients).
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          standIn.serve(pattern);
        }}
      >
        <label>
          URL pattern <input type="text" size={48} value={pattern} placeholder="ws://127.0.0.1:5173/socket.io/*" onInput={(e) => setPattern((e.target as HTMLInputElement).value)} />
        </label>{' '}
        <button type="submit" disabled={!pattern.trim()}>
          Serve
        </button>
      </form>
      {served.length > 0 && (
        <ul aria-label="Served URL patterns">
          {served.map((s) => (
            <li key={s.pattern}>
              <code>{s.pattern}</code> — {s.state === 'failed' ? `failed: ${s.error}` : s.state === 'on' ? 'served' : 'starting…'}{' '}
              <button aria-label={`Stop serving ${s.pattern}`} onClick={() => standIn.stopServing(s.pattern)}>
                Stop
              </button>
            </li>
          ))}
        </ul>
      )}
      {connections.length > 0 && (
        <>
          <h3>Connections to the virtual server</h3>
          <ul aria-label="Connections to the virtual server">
            {connections.map((c) => (
              <li key={c.key}>{clientOption(model, c)}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function Runtime() {
  const { source } = useStore();
  if (source.value === 'import') return <p class="empty">The stand-in runtime needs a live page: go back to live.</p>;
  return (
    <div class="view inject runtime" data-testid="runtime-view">
      <h3>Clients</h3>
      <Clients />
      <h3>Send as the stand-in</h3>
      <Composer />
      <StandInState />
      <h3>Stand-in requests</h3>
      <Calls />
      <Approvals />
      <Serve />
    </div>
  );
}
