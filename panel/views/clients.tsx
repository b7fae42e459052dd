/** Per-client views show one client, or every client one after the other: never merged (§7.3.5). */
import type { ComponentChildren } from 'preact';
import type { ClientState } from '../../src/session/model/model-types.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import { useModel } from '../store-context.ts';
import { orderClients } from '../view-order.ts';

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

/** The clients a per-client view shows, in its order: the one picked in the toolbar, or all of them, the main app client first. */
export function useShownClients(): ClientState[] {
  const { model, selectedClient } = useModel();
  return orderClients([...model.clients.values()].filter((c) => !selectedClient.value || c.client.key === selectedClient.value));
}

export function ClientHeading({ c }: { c: ClientState }) {
  return (
    <h2 class="client-title" title={c.client.replaces !== undefined ? `${c.client.key}, reconnection of ${c.client.replaces}` : c.client.key}>
      {clientTitle(c)}
      {frameOf(c.client) && (
        <span class="muted client-frame" data-testid="client-frame">
          {' '}
          · {frameOf(c.client)}
        </span>
      )}
    </h2>
  );
}

/** "2 clients with nothing to show", for the clients a view leaves out. */
export function HiddenClients({ count, why = 'with nothing to show' }: { count: number; why?: string }) {
  if (!count) return null;
  return (
    <p class="muted hidden-clients" data-testid="hidden-clients">
      {count} {count === 1 ? 'client' : 'clients'} {why}
    </p>
  );
}

/**
 * Each shown client's block, the main app client first. A client for which
 * `hasContent` is false is left out, and counted at the end.
 */
export function PerClient({
  render,
  empty,
  hasContent,
  nothing = 'Nothing to show yet.',
  list: given,
}: {
  render: (c: ClientState) => ComponentChildren;
  /** Said when there is no client. */
  empty: string;
  hasContent?: (c: ClientState) => boolean;
  /** Said when no client has anything to show. */
  nothing?: string;
  /** The clients to show, when not the shown clients as they are now (a view as of an event). */
  list?: ClientState[];
}) {
  const shown0 = useShownClients();
  const list = given ?? shown0;
  if (!list.length) return <p class="empty">{empty}</p>;
  const shown = hasContent ? list.filter(hasContent) : list;
  return (
    <>
      {shown.map((c) => (
        <section class="client-block" key={c.client.key} data-client-kind={c.client.kind}>
          <ClientHeading c={c} />
          {render(c)}
        </section>
      ))}
      {!shown.length && <p class="empty">{nothing}</p>}
      <HiddenClients count={list.length - shown.length} />
    </>
  );
}
