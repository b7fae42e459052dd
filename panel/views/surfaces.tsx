/** What the agent can do on this page right now: each client's mounted surfaces, their actions and observations, and their lifecycle. */
import { signal } from '@preact/signals';
import { effectAccess, requiresApproval, type OUIAction, type OUISurface } from '../../src/protocol/index.ts';
import type { ClientState, SurfaceState } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { SchemaView } from '../components/schema-view.tsx';
import { anchorId, ViewIndex, type IndexGroup } from '../components/view-index.tsx';
import { clock, short } from '../display-text.ts';
import { matchesQuery } from '../view-order.ts';
import { ClientHeading, clientTitle, HiddenClients } from './clients.tsx';
import { AsOfBanner, useAsOfClients } from './as-of.tsx';
import { EventLink } from './event-detail.tsx';

/** The Surfaces view's filter: kept while the user visits other views. */
const query = signal('');

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

function SurfaceCard({ s, c, since, eventId, anchor }: { s: OUISurface; c: ClientState; since: number; eventId: string; anchor: string }) {
  const routes = s.activation?.routes;
  const obs = Array.isArray(s.observations) ? s.observations : [];
  return (
    <article class="surface" data-surface={s.id} id={anchor} tabIndex={-1} aria-label={`surface ${s.id}`}>
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

/** What a surface is found by in the filter: its id and its name, as text. */
function surfaceMatches(s: OUISurface, q: string): boolean {
  return matchesQuery(String(s.id), q) || (typeof s.name === 'string' && matchesQuery(s.name, q));
}

function ClientSurfaces({ c, index, mounted }: { c: ClientState; index: number; mounted: SurfaceState[] }) {
  return (
    <>
      {mounted.map((m) => (
        <SurfaceCard key={m.surface.id} s={m.surface} c={c} since={m.since} eventId={m.eventId} anchor={anchorId('surface', index, String(m.surface.id))} />
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
  const clients = useAsOfClients();
  const q = query.value;
  const shown = clients
    .map((c, index) => ({ c, index, mounted: [...c.surfaces.values()].filter((m) => surfaceMatches(m.surface, q)) }))
    .filter((x) => x.mounted.length > 0);
  const groups: IndexGroup[] = shown.map(({ c, index, mounted }) => ({
    key: c.client.key,
    title: clientTitle(c),
    entries: mounted.map((m) => ({ anchor: anchorId('surface', index, String(m.surface.id)), label: String(m.surface.id) })),
  }));
  return (
    <div class="view indexed surfaces" data-testid="surfaces-view">
      <ViewIndex label="Surfaces" groups={groups} query={query} placeholder="Filter by surface id" />
      <div class="indexed-body">
        <AsOfBanner />
        {!clients.length && <p class="empty">No client has registered a surface yet.</p>}
        {clients.length > 0 && !shown.length && <p class="empty">{q.trim() ? `No mounted surface matches "${q.trim()}".` : 'No surface mounted.'}</p>}
        {shown.map(({ c, index, mounted }) => (
          <section class="client-block" key={c.client.key} data-client-kind={c.client.kind}>
            <ClientHeading c={c} />
            <ClientSurfaces c={c} index={index} mounted={mounted} />
          </section>
        ))}
        <HiddenClients count={clients.length - shown.length} why={q.trim() ? 'with no matching surface' : 'with nothing to show'} />
      </div>
    </div>
  );
}
