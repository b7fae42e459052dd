/** Per-client views show one client, or every client one after the other: never merged (§7.3.5). */
import type { ComponentChildren } from 'preact';
import type { ClientState } from '../../src/session/model/types.ts';
import { useModel } from '../store-context.ts';

export function clientTitle(c: ClientState): string {
  // A reconnection (§7.6.1) has the label of the connection it replaces: say which it is.
  return `${c.client.kind} · ${c.client.label}${c.client.replaces !== undefined ? ' · reconnection' : ''}`;
}

export function PerClient({ render, empty }: { render: (c: ClientState) => ComponentChildren; empty: string }) {
  const { model, selectedClient } = useModel();
  const list = [...model.clients.values()].filter((c) => !selectedClient.value || c.client.key === selectedClient.value);
  if (!list.length) return <p class="empty">{empty}</p>;
  return (
    <>
      {list.map((c) => (
        <section class="client-block" key={c.client.key} data-client-kind={c.client.kind}>
          <h2 class="client-title" title={c.client.replaces !== undefined ? `${c.client.key}, reconnection of ${c.client.replaces}` : c.client.key}>
            {clientTitle(c)}
          </h2>
          {render(c)}
        </section>
      ))}
    </>
  );
}
