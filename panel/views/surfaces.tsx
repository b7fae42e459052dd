/** What the agent can do on this page right now: each client's mounted surfaces, their actions and observations, and their lifecycle. */
import { effectAccess, requiresApproval, type OUIAction, type OUISurface } from '../../src/protocol/index.ts';
import type { ClientState } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { SchemaView } from '../components/schema-view.tsx';
import { clock, short } from '../display-text.ts';
import { PerClient } from './clients.tsx';
import { EventLink } from './event-detail.tsx';

function ActionRow({ a }: { a: OUIAction }) {
  const access = effectAccess(a.effect);
  const approval = requiresApproval(a.effect, a.confirm === true);
  return (
    <li class="action" data-action={a.id}>
      <div class="action-head">
        <code class="id">{a.id}</code>
        {a.title && <span>{a.title}</span>}
        <span class={`badge effect`}>{a.effect ?? 'no effect (write)'}</span>
        <span class={`badge ${access}`}>{access}</span>
        {approval && <span class="badge approval" title="Runs only on the user's approval of the exact request">approval</span>}
        {a.confirm && <span class="badge confirm">destructive</span>}
        {a.async && <span class="badge async">async</span>}
      </div>
      <div class="desc">{short(a.description, 400)}</div>
      <SchemaView schema={a.input} label="input" />
      {a.output && <SchemaView schema={a.output} label="output" />}
    </li>
  );
}

function SurfaceCard({ s, c, since, eventId }: { s: OUISurface; c: ClientState; since: number; eventId: string }) {
  const routes = s.activation?.routes;
  const obs = Array.isArray(s.observations) ? s.observations : [];
  return (
    <article class="surface" data-surface={s.id}>
      <header>
        <h3>
          <code>{s.id}</code> {s.name} {s.version && <span class="muted">v{s.version}</span>}
        </h3>
        <span class="muted">
          mounted {clock(since)} <EventLink id={eventId} label="registration" />
        </span>
      </header>
      <p class="desc">{short(s.description, 600)}</p>
      {s.activation && (
        <p class="muted">
          activation: {routes ? `routes ${Array.isArray(routes) ? routes.join(', ') : routes}` : ''} {s.activation.entity ? `entity ${s.activation.entity.type}${s.activation.entity.id ? `:${s.activation.entity.id}` : ''}` : ''}{' '}
          {s.activation.condition ? `— ${short(s.activation.condition, 200)}` : ''}
        </p>
      )}
      <h4>Actions ({Array.isArray(s.actions) ? s.actions.length : 0})</h4>
      <ul class="actions">{Array.isArray(s.actions) && s.actions.map((a) => <ActionRow key={a.id} a={a} />)}</ul>
      {obs.length > 0 && (
        <>
          <h4>Observations ({obs.length})</h4>
          <ul class="observations">
            {obs.map((o) => {
              const state = c.observations.get(`${s.id}/${o.id}`);
              return (
                <li key={o.id} data-observation={o.id}>
                  <code class="id">{o.id}</code> <span class="badge">{o.updateFrequency ?? 'on-change'}</span> <span class="desc">{short(o.description, 300)}</span>
                  <div class="obs-value">
                    {state ? <JsonTree value={state.current} label="value" open={false} /> : <span class="muted">no value seen yet</span>}
                  </div>
                  <SchemaView schema={o.schema} label="schema" />
                </li>
              );
            })}
          </ul>
        </>
      )}
      {s.metadata && (
        <>
          <h4>Metadata</h4>
          <JsonTree value={s.metadata} open={false} />
        </>
      )}
    </article>
  );
}

function ClientSurfaces({ c }: { c: ClientState }) {
  const mounted = [...c.surfaces.values()];
  return (
    <>
      {mounted.length === 0 && <p class="muted">No surface mounted.</p>}
      {mounted.map((m) => (
        <SurfaceCard key={m.surface.id} s={m.surface} c={c} since={m.since} eventId={m.eventId} />
      ))}
      <details class="lifecycle">
        <summary>Lifecycle ({c.lifecycle.length})</summary>
        <ol>
          {c.lifecycle.map((l, i) => (
            <li key={i} class={`lc-${l.kind}`}>
              {clock(l.t)} <code>{l.surfaceId}</code> {l.kind} <EventLink id={l.eventId} label="event" />
            </li>
          ))}
        </ol>
      </details>
    </>
  );
}

export function Surfaces() {
  return (
    <div class="view surfaces" data-testid="surfaces-view">
      <PerClient empty="No client has registered a surface yet." render={(c) => <ClientSurfaces c={c} />} />
    </div>
  );
}
