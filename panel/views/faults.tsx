/**
 * The Faults view: the user's fault rules on the live connection (issue 21,
 * item 1), and the banner every view shows while any is on, as DevTools
 * shows throttling. A rule picks events (direction, type, surface and action
 * from what the capture knows, client, transport) and one fault; the list
 * turns rules off and on, removes them, clears them all.
 */
import { useState } from 'preact/hooks';
import { useModel, useStore } from '../store-context.ts';
import { EXPIRE_MS, STALE_HASH, describeRule, faultScope, type Fault, type FaultDirection, type FaultKind, type FaultRule, type FaultTransport } from '../../src/runtime/faults.ts';

/** Each fault as the picker names it. */
const FAULTS: Array<{ id: string; label: string }> = [
  { id: 'drop', label: 'Drop' },
  { id: 'delay', label: 'Delay' },
  { id: 'duplicate', label: 'Duplicate' },
  { id: 'reorder', label: 'Reorder (hold one until the next)' },
  { id: 'refuse-result', label: 'Refuse the result' },
  { id: 'drop-answer', label: "Drop the client's answer" },
  { id: 'withhold-ack', label: 'Withhold acknowledgments' },
  { id: 'delay-ack', label: 'Delay acknowledgments' },
  { id: 'disconnect', label: 'Disconnect the transport' },
  { id: 'stale-known-surfaces', label: 'Send stale knownSurfaces' },
  { id: 'approval:args-hash', label: "Alter the approval's argsHash" },
  { id: 'approval:reuse', label: 'Reuse the approval' },
  { id: 'approval:expire', label: 'Expire the approval (deliver late)' },
];

const TYPES = ['action:request', 'action:result', 'surface:register', 'surface:deregister', 'observation:update', 'observation:request', 'ack'];
const TRANSPORTS: Array<{ id: FaultTransport; label: string }> = [
  { id: 'websocket', label: 'WebSocket (plain JSON)' },
  { id: 'socket.io', label: 'Socket.IO' },
  { id: 'postmessage', label: 'postMessage' },
  { id: 'direct', label: 'direct calls' },
];

interface Form {
  direction: '' | FaultDirection;
  type: string;
  surfaceId: string;
  actionId: string;
  client: string;
  transport: '' | FaultTransport;
  fault: string;
  ms: string;
  error: string;
  code: string;
  reason: string;
  knownSurfaces: string;
  probability: string;
  maxCount: string;
}

const EMPTY: Form = { direction: '', type: '', surfaceId: '', actionId: '', client: '', transport: '', fault: 'drop', ms: '1000', error: 'refused by a fault rule', code: '4000', reason: 'fault rule', knownSurfaces: STALE_HASH, probability: '1', maxCount: '' };

function faultOf(f: Form): Fault {
  const ms = Number(f.ms);
  switch (f.fault) {
    case 'delay':
    case 'delay-ack':
      return { kind: f.fault, ms };
    case 'refuse-result':
      return { kind: 'refuse-result', error: f.error };
    case 'disconnect':
      return { kind: 'disconnect', code: Number(f.code), reason: f.reason };
    case 'stale-known-surfaces':
      return { kind: 'stale-known-surfaces', knownSurfaces: f.knownSurfaces };
    case 'approval:args-hash':
    case 'approval:reuse':
      return { kind: 'approval', change: f.fault === 'approval:reuse' ? 'reuse' : 'args-hash' };
    case 'approval:expire':
      return { kind: 'approval', change: 'expire', ms };
    default:
      return { kind: f.fault as Exclude<FaultKind, 'delay' | 'delay-ack' | 'refuse-result' | 'disconnect' | 'stale-known-surfaces' | 'approval'> } as Fault;
  }
}

/** "Faults active: 2 rules — Clear", above every view while any rule can fault. */
export function FaultsBanner() {
  const { faults, view } = useStore();
  const n = faults.active.value.length;
  if (n === 0) return null;
  return (
    <div class="faults-banner" role="status" data-testid="faults-banner">
      <span>
        ⚠ Faults active: {n} {n === 1 ? 'rule' : 'rules'}
      </span>{' '}
      —{' '}
      <button class="link" onClick={() => faults.clear()}>
        Clear
      </button>{' '}
      {view.value !== 'faults' && (
        <button class="link" onClick={() => (view.value = 'faults')}>
          Show
        </button>
      )}
    </div>
  );
}

export function Faults() {
  const store = useModel();
  const { faults, recorder, model } = store;
  const [form, setForm] = useState<Form>(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });

  // Surfaces and actions as the capture knows them, of every client.
  const surfaces = new Map<string, Set<string>>();
  for (const c of model.clients.values()) {
    for (const [id, s] of c.surfaces) {
      const actions = surfaces.get(id) ?? new Set<string>();
      for (const a of s.surface.actions ?? []) actions.add(a.id);
      surfaces.set(id, actions);
    }
  }
  // Clients a rule can name: those whose connection the hook can tell (a socket, a direct transport).
  const clients = [...recorder.clients.values()].filter((c) => c.inject && c.inject.via !== 'postmessage');
  const chosen = faultOf(form);
  const scope = faultScope(chosen);
  const needsMs = form.fault === 'delay' || form.fault === 'delay-ack' || form.fault === 'approval:expire';

  // How many events each rule faulted, as the capture shows them.
  const counts = new Map<string, number>();
  for (const ev of recorder.events) if (ev.faulted) counts.set(ev.faulted, (counts.get(ev.faulted) ?? 0) + 1);

  const add = (e: Event) => {
    e.preventDefault();
    const match: FaultRule['match'] = {};
    if (form.direction) match.direction = form.direction;
    if (form.type) match.type = form.type;
    if (form.surfaceId) match.surfaceId = form.surfaceId;
    if (form.actionId) match.actionId = form.actionId;
    if (form.client) match.client = form.client;
    if (form.transport) match.transport = form.transport;
    const rule: Omit<FaultRule, 'id'> = { match, fault: chosen };
    const p = Number(form.probability);
    if (form.probability !== '' && p !== 1) rule.probability = p;
    if (form.maxCount !== '') rule.maxCount = Number(form.maxCount);
    const added = faults.add(rule);
    setError(added ? null : 'This rule is not well formed: check its numbers (a delay in ms, a close code 1000 or 3000–4999, a probability from 0 to 1).');
  };

  const rules = faults.rules.value;
  return (
    <section class="faults-view" aria-label="Fault rules">
      <form class="fault-form" onSubmit={add}>
        <fieldset>
          <legend>Which events</legend>
          <label>
            Direction{' '}
            <select aria-label="Direction" value={form.direction} onChange={(e) => set({ direction: (e.target as HTMLSelectElement).value as Form['direction'] })}>
              <option value="">either</option>
              <option value="to-client">to the client (runtime → app)</option>
              <option value="from-client">from the client (app → runtime)</option>
            </select>
          </label>{' '}
          <label>
            Event type{' '}
            <select aria-label="Event type" value={form.type} onChange={(e) => set({ type: (e.target as HTMLSelectElement).value })}>
              <option value="">every OUI event</option>
              {TYPES.map((t) => (
                <option value={t}>{t === 'ack' ? 'ack (acknowledgments, receipts)' : t}</option>
              ))}
            </select>
          </label>{' '}
          <label>
            Surface{' '}
            <select aria-label="Surface" value={form.surfaceId} onChange={(e) => set({ surfaceId: (e.target as HTMLSelectElement).value, actionId: '' })}>
              <option value="">any</option>
              {[...surfaces.keys()].sort().map((id) => (
                <option value={id}>{id}</option>
              ))}
            </select>
          </label>{' '}
          <label>
            Action{' '}
            <select aria-label="Action" value={form.actionId} onChange={(e) => set({ actionId: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {[...(form.surfaceId ? (surfaces.get(form.surfaceId) ?? []) : new Set([...surfaces.values()].flatMap((s) => [...s])))].sort().map((id) => (
                <option value={id}>{id}</option>
              ))}
            </select>
          </label>{' '}
          <label>
            Transport{' '}
            <select aria-label="Transport" value={form.transport} onChange={(e) => set({ transport: (e.target as HTMLSelectElement).value as Form['transport'] })}>
              <option value="">any</option>
              {TRANSPORTS.map((t) => (
                <option value={t.id}>{t.label}</option>
              ))}
            </select>
          </label>{' '}
          <label>
            Client{' '}
            <select aria-label="Client" value={form.client} onChange={(e) => set({ client: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {clients.map((c) => {
                const t = c.inject as { hook: string; client: string };
                return <option value={`${t.hook}/${t.client}`}>{`${c.kind}: ${c.label}`}</option>;
              })}
            </select>
          </label>
        </fieldset>
        <fieldset>
          <legend>The fault</legend>
          <label>
            Fault{' '}
            <select
              aria-label="Fault"
              value={form.fault}
              onChange={(e) => {
                const fault = (e.target as HTMLSelectElement).value;
                set({ fault, ms: fault === 'approval:expire' ? String(EXPIRE_MS) : form.fault === 'approval:expire' ? EMPTY.ms : form.ms });
              }}
            >
              {FAULTS.map((f) => (
                <option value={f.id}>{f.label}</option>
              ))}
            </select>
          </label>{' '}
          {needsMs && (
            <label>
              {form.fault === 'approval:expire' ? 'Late by (ms)' : 'Delay (ms)'}{' '}
              <input aria-label={form.fault === 'approval:expire' ? 'Late by (ms)' : 'Delay (ms)'} type="number" min="0" max="600000" value={form.ms} onInput={(e) => set({ ms: (e.target as HTMLInputElement).value })} />
            </label>
          )}
          {form.fault === 'refuse-result' && (
            <label>
              Error{' '}
              <input aria-label="Error" type="text" value={form.error} onInput={(e) => set({ error: (e.target as HTMLInputElement).value })} />
            </label>
          )}
          {form.fault === 'disconnect' && (
            <>
              <label>
                Close code{' '}
                <input aria-label="Close code" type="number" min="1000" max="4999" value={form.code} onInput={(e) => set({ code: (e.target as HTMLInputElement).value })} />
              </label>{' '}
              <label>
                Close reason{' '}
                <input aria-label="Close reason" type="text" value={form.reason} onInput={(e) => set({ reason: (e.target as HTMLInputElement).value })} />
              </label>
            </>
          )}
          {form.fault === 'stale-known-surfaces' && (
            <label>
              knownSurfaces{' '}
              <input aria-label="knownSurfaces" type="text" value={form.knownSurfaces} onInput={(e) => set({ knownSurfaces: (e.target as HTMLInputElement).value })} />
            </label>
          )}{' '}
          <label>
            Probability{' '}
            <input aria-label="Probability" type="number" min="0" max="1" step="0.05" value={form.probability} onInput={(e) => set({ probability: (e.target as HTMLInputElement).value })} />
          </label>{' '}
          <label>
            At most (times){' '}
            <input aria-label="At most (times)" type="number" min="0" placeholder="no limit" value={form.maxCount} onInput={(e) => set({ maxCount: (e.target as HTMLInputElement).value })} />
          </label>
          <p class="muted" data-testid="fault-scope">
            {[
              scope.direction && `Applies to events ${scope.direction === 'to-client' ? 'to the client' : 'from the client'}`,
              scope.type && `of type ${scope.type}`,
              scope.transports && `over ${scope.transports.join(' or ')}`,
            ]
              .filter(Boolean)
              .join(' ') || 'Applies to every event the rule matches.'}
          </p>
        </fieldset>
        <button type="submit">Add rule</button>
        {error && (
          <p class="warn" role="alert">
            {error}
          </p>
        )}
      </form>
      <div class="fault-seed">
        <label>
          Seed{' '}
          <input
            aria-label="Seed"
            type="number"
            min="0"
            max="4294967295"
            value={faults.seed.value}
            title="The same seed and the same traffic fault the same events"
            onChange={(e) => faults.setSeed(Number((e.target as HTMLInputElement).value))}
          />
        </label>{' '}
        {rules.length > 0 && <button onClick={() => faults.clear()}>Clear all rules</button>}{' '}
        <span class="muted" data-testid="faults-applied" data-frames={faults.applied.value}>
          {faults.active.value.length > 0 ? `applied in ${faults.applied.value} ${faults.applied.value === 1 ? 'frame' : 'frames'}` : ''}
        </span>
      </div>
      {rules.length === 0 ? (
        <p class="muted">No fault rules. Traffic passes as the app and its runtime send it.</p>
      ) : (
        <table class="fault-rules" aria-label="Rules">
          <thead>
            <tr>
              <th>On</th>
              <th>Rule</th>
              <th>Faulted</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.id} data-rule={r.id}>
                <td>
                  <input type="checkbox" aria-label={`Rule ${r.id} on`} checked={r.enabled !== false} onChange={(e) => faults.setEnabled(r.id, (e.target as HTMLInputElement).checked)} />
                </td>
                <td>
                  <code>{r.id}</code> {describeRule(r)}
                </td>
                <td data-testid="faulted-count">{counts.get(r.id) ?? 0}</td>
                <td>
                  <button aria-label={`Remove rule ${r.id}`} onClick={() => faults.remove(r.id)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
