/** Per-client views show one client, or every client one after the other: never merged (§7.3.5). */
import type { ComponentChildren } from 'preact';
import type { ClientState } from '../../src/session/model/model-types.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { useModel } from '../store-context.ts';

export function clientTitle(c: ClientState): string {
  // A reconnection (§7.6.1) has the label of the connection it replaces: say which it is.
  return `${c.client.kind} · ${c.client.label}${c.client.replaces !== undefined ? ' · reconnection' : ''}`;
}

/**
 * Where a client was captured, when it is not the page itself: a child frame,
 * or an about:blank, srcdoc or document.open()ed document (whose URL the hook
 * gives as `about:blank (in http://host/page)`), with its origin.
 */
export function frameOf(c: Pick<WireClient, 'frameId' | 'frameUrl' | 'origin'>): string | undefined {
  if (typeof c.frameUrl !== 'string' || (c.frameId === 0 && !c.frameUrl.startsWith('about:'))) return undefined;
  return `frame ${c.frameUrl || '(unknown)'} · origin ${c.origin || '(unknown)'}`;
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
            {frameOf(c.client) && (
              <span class="muted client-frame" data-testid="client-frame">
                {' '}
                · {frameOf(c.client)}
              </span>
            )}
          </h2>
          {render(c)}
        </section>
      ))}
    </>
  );
}
