import { useState } from 'preact/hooks';
import { connected, reconnects, recorder, version } from './live.ts';
import type { WireEvent } from '../src/session/wire.ts';

function time(t: number): string {
  const d = new Date(t);
  return `${d.toLocaleTimeString(undefined, { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function summary(ev: WireEvent): string {
  const p = ev.payload as Record<string, unknown> | undefined;
  if (ev.kind === 'ack') return `ack ${JSON.stringify(ev.payload) ?? ''}`.slice(0, 200);
  if (!p || typeof p !== 'object') return ev.note ?? '';
  const parts: string[] = [];
  for (const k of ['surfaceId', 'actionId', 'observationId', 'requestId'] as const) if (typeof p[k] === 'string') parts.push(`${k}=${p[k] as string}`);
  const surface = p.surface as { id?: unknown } | undefined;
  if (surface && typeof surface.id === 'string') parts.push(`surface=${surface.id}`);
  if (typeof p.success === 'boolean') parts.push(p.success ? 'success' : 'failed');
  if ('value' in p) parts.push(`value=${(JSON.stringify(p.value) ?? '').slice(0, 80)}`);
  return parts.join(' ');
}

export function App({ tabId }: { tabId: number | null }) {
  void version.value;
  const [client, setClient] = useState<string>('');
  if (tabId === null) return <div class="empty">No tab to inspect: open this panel in DevTools, or as panel.html?tabId=N.</div>;
  const clients = [...recorder.clients.values()];
  const events = recorder.events.filter((e) => (client ? e.client === client : true) && e.kind !== 'other');
  const lost = recorder.intake.totalLost();
  return (
    <div class="shell">
      <header class="toolbar">
        <span
          class={connected.value ? 'dot on' : 'dot'}
          data-testid="connection"
          data-reconnects={reconnects.value}
          title={`${connected.value ? 'connected' : 'reconnecting'}; reconnected ${reconnects.value} times`}
        />
        <select aria-label="Client" value={client} onChange={(e) => setClient((e.target as HTMLSelectElement).value)}>
          <option value="">All clients ({clients.length})</option>
          {clients.map((c) => (
            <option value={c.key}>
              {c.kind}: {c.label}
            </option>
          ))}
        </select>
        <span class="count" data-testid="event-count">{events.length} events</span>
        {lost > 0 && <span class="warn" data-testid="lost">{lost} dropped by the page buffer before the panel read them</span>}
        {recorder.evicted > 0 && <span class="warn">{recorder.evicted} oldest events dropped from the panel</span>}
      </header>
      <table class="events" data-testid="events">
        <thead>
          <tr><th>Time</th><th>Client</th><th></th><th>Type</th><th>Details</th></tr>
        </thead>
        <tbody>
          {events.slice(-2000).map((ev) => (
            <tr key={ev.id} class={`k-${ev.kind}`} data-type={ev.type ?? ev.kind} data-client-kind={recorder.clients.get(ev.client)?.kind}>
              <td>{time(ev.t)}</td>
              <td>{recorder.clients.get(ev.client)?.kind}</td>
              <td>{ev.dir === 'out' ? '↑' : '↓'}</td>
              <td>{ev.kind === 'event' ? ev.type : ev.kind === 'lifecycle' ? ev.type : ev.kind}</td>
              <td>{summary(ev)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
