/**
 * Routing rules of the background, free of chrome.* so they can be tested:
 * - a `capture` port from a content script belongs to `sender.tab.id`, which
 *   the page cannot choose; its messages reach that tab's panels only;
 * - a `panel` port must come from an extension page; it names the tab it
 *   inspects once, and its commands go to that tab only.
 */
export interface PortLike {
  name: string;
  sender?: { tab?: { id?: number }; frameId?: number; url?: string; id?: string; documentId?: string };
  postMessage(message: unknown): void;
  onMessage: { addListener(fn: (message: unknown) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
  disconnect(): void;
}

export interface RouterDeps {
  sendToTab(tabId: number, message: unknown, frameId?: number): Promise<boolean>;
  extensionOrigin: string;
}

const CAPTURE_TYPES = new Set(['items', 'state', 'answer']);

export function createRouter(deps: RouterDeps) {
  const panels = new Map<number, Set<PortLike>>();

  function fromExtension(url: string | undefined): boolean {
    return typeof url === 'string' && (url === deps.extensionOrigin || url.startsWith(`${deps.extensionOrigin}/`));
  }

  function connectCapture(port: PortLike): void {
    const tabId = port.sender?.tab?.id;
    if (typeof tabId !== 'number' || tabId < 0) return port.disconnect();
    const frameId = port.sender?.frameId ?? 0;
    port.onMessage.addListener((message) => {
      const type = (message as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !CAPTURE_TYPES.has(type)) return;
      for (const panel of panels.get(tabId) ?? []) {
        try {
          panel.postMessage({ type: 'capture', frameId, message });
        } catch {
          // A panel that closed mid-send is removed on its disconnect.
        }
      }
    });
  }

  function connectPanel(port: PortLike): void {
    if (!fromExtension(port.sender?.url)) return port.disconnect();
    let tabId: number | null = null;
    port.onMessage.addListener((message) => {
      const m = message as { type?: unknown; tabId?: unknown; cursors?: unknown; frameId?: unknown } | null;
      if (!m || typeof m !== 'object') return;
      if (m.type === 'hello' && tabId === null && Number.isInteger(m.tabId)) {
        tabId = m.tabId as number;
        if (!panels.has(tabId)) panels.set(tabId, new Set());
        panels.get(tabId)!.add(port);
      } else if (tabId !== null && m.type === 'subscribe') {
        const cursors = m.cursors && typeof m.cursors === 'object' ? m.cursors : {};
        void deps.sendToTab(tabId, { type: 'subscribe', cursors });
      } else if (tabId !== null && typeof m.type === 'string' && m.type.startsWith('hook:')) {
        const frameId = Number.isInteger(m.frameId) ? (m.frameId as number) : undefined;
        void deps.sendToTab(tabId, m, frameId);
      }
    });
    port.onDisconnect.addListener(() => {
      if (tabId === null) return;
      const set = panels.get(tabId);
      set?.delete(port);
      if (set && set.size === 0) {
        panels.delete(tabId);
        void deps.sendToTab(tabId, { type: 'unsubscribe' });
      }
    });
  }

  return {
    connect(port: PortLike): void {
      if (port.name === 'capture') connectCapture(port);
      else if (port.name === 'panel') connectPanel(port);
      else port.disconnect();
    },
    /** A bridge in a newly loaded document asks whether a panel watches its tab. */
    hello(message: unknown, sender: PortLike['sender']): unknown {
      const tabId = sender?.tab?.id;
      if ((message as { type?: unknown } | null)?.type !== 'hello' || typeof tabId !== 'number') return null;
      return panels.has(tabId) ? { type: 'subscribe', cursors: {} } : null;
    },
    watched(tabId: number): boolean {
      return panels.has(tabId);
    },
  };
}
