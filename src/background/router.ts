/**
 * Routing rules of the background, free of chrome.* so they can be tested:
 * - a `capture` port from a content script belongs to `sender.tab.id`, which
 *   the page cannot choose; its messages reach that tab's panels only;
 * - a `panel` port must come from an extension page; it names the tab it
 *   inspects once, and its commands go to that tab only.
 */
import { PROTOCOL, readBridgeRequest, readFromPanel, readHookMessage, type BridgeWelcome, type FaultsCommand, type HookCommand, type ToPanel } from '../messages.ts';

export interface PortLike {
  name: string;
  sender?: { tab?: { id?: number }; frameId?: number; url?: string; id?: string; documentId?: string };
  postMessage(message: unknown): void;
  onMessage: { addListener(fn: (message: unknown) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
  disconnect(): void;
}

export interface RouterDeps {
  sendToTab(tabId: number, message: HookCommand, frameId?: number): Promise<boolean>;
  extensionOrigin: string;
  /**
   * Tabs whose page outlived an extension reload or update with no way to
   * capture it again: kept beyond a worker stop, so a panel opened later
   * still says so.
   */
  staleTabs?: {
    mark(tabId: number): void;
    clear(tabId: number): void;
    has(tabId: number): Promise<boolean>;
  };
}

export const STALE_LINE = 'The extension was reloaded or updated after this page loaded: reload the page to capture again.';
const versionLine = (v: number) => `This panel speaks message protocol ${v}, the extension ${PROTOCOL}: close and reopen DevTools.`;

export function createRouter(deps: RouterDeps) {
  const panels = new Map<number, Set<PortLike>>();
  /**
   * Tabs marked stale by this worker: the storage write behind `staleTabs.mark`
   * is asynchronous, and a panel that says hello between the mark and the
   * write must still be told.
   */
  const staleHere = new Set<number>();
  /** Each watched tab's fault rules (the last `hook:faults` a panel sent), for documents that load after it. */
  const faults = new Map<number, FaultsCommand>();
  /** Tabs whose panel turned the virtual server on: turned off with the tab's last panel. */
  const serving = new Set<number>();
  function markStale(tabId: number): void {
    staleHere.add(tabId);
    deps.staleTabs?.mark(tabId);
    toPanels(tabId, { type: 'stale', line: STALE_LINE });
  }

  function toPanels(tabId: number, message: ToPanel): void {
    for (const panel of panels.get(tabId) ?? []) {
      try {
        panel.postMessage(message);
      } catch {
        // A panel that closed mid-send is removed on its disconnect.
      }
    }
  }

  function fromExtension(url: string | undefined): boolean {
    return typeof url === 'string' && (url === deps.extensionOrigin || url.startsWith(`${deps.extensionOrigin}/`));
  }

  function connectCapture(port: PortLike): void {
    const tabId = port.sender?.tab?.id;
    if (typeof tabId !== 'number' || tabId < 0) return port.disconnect();
    const frameId = port.sender?.frameId ?? 0;
    port.onMessage.addListener((data) => {
      const message = readHookMessage(data);
      if (message) toPanels(tabId, { type: 'capture', frameId, message });
    });
  }

  function connectPanel(port: PortLike): void {
    if (!fromExtension(port.sender?.url)) return port.disconnect();
    let tabId: number | null = null;
    port.onMessage.addListener((data) => {
      const m = readFromPanel(data);
      if (!m) return;
      if (m.type === 'panel:hello') {
        if (tabId !== null) return;
        if (m.v !== PROTOCOL) {
          port.postMessage({ type: 'stale', line: versionLine(m.v) } satisfies ToPanel);
          return;
        }
        tabId = m.tabId;
        if (!panels.has(tabId)) panels.set(tabId, new Set());
        panels.get(tabId)!.add(port);
        const id = tabId;
        const tell = () => port.postMessage({ type: 'stale', line: STALE_LINE } satisfies ToPanel);
        if (staleHere.has(id)) tell();
        else void deps.staleTabs?.has(id).then((stale) => stale && tell(), () => {});
      } else if (tabId === null) {
        return;
      } else if (m.type === 'subscribe' || m.type === 'hook:coverage') {
        void deps.sendToTab(tabId, m);
      } else if (m.type === 'hook:faults') {
        // Every frame: a rule may match a client in any of them.
        if (m.rules.length) faults.set(tabId, m);
        else faults.delete(tabId);
        void deps.sendToTab(tabId, m);
      } else if (m.type === 'hook:serve') {
        // A serve rule is a URL pattern only: every frame's hook takes it, unless one frame is named.
        const { frameId, ...command } = m;
        if (m.on) serving.add(tabId);
        void deps.sendToTab(tabId, command, frameId);
      } else {
        // An injection or a hold names one frame; sent to every frame, a third-party frame's hook would read it.
        const { frameId, ...command } = m;
        if (frameId !== undefined) void deps.sendToTab(tabId, command, frameId);
      }
    });
    port.onDisconnect.addListener(() => {
      if (tabId === null) return;
      const set = panels.get(tabId);
      set?.delete(port);
      if (set && set.size === 0) {
        panels.delete(tabId);
        void deps.sendToTab(tabId, { type: 'unsubscribe' });
        // Faults are on only while a panel shows them (as DevTools' throttling ends with DevTools).
        if (faults.delete(tabId)) void deps.sendToTab(tabId, { type: 'hook:faults', rules: [], seed: 0 });
        // So is the virtual server: with no panel to answer for it, the app's connections go to the network again.
        if (serving.delete(tabId)) void deps.sendToTab(tabId, { type: 'hook:serve', id: 'serve-off', pattern: '', on: false });
      }
    });
  }

  return {
    connect(port: PortLike): void {
      if (port.name === 'capture') connectCapture(port);
      else if (port.name === 'panel') connectPanel(port);
      else port.disconnect();
    },
    /**
     * A bridge in a newly loaded document asks whether a panel watches its tab.
     * A bridge whose page came back from the back/forward cache (`restored`)
     * gets no subscription: the panels decide how to resume, from their cursors.
     */
    hello(message: unknown, sender: PortLike['sender']): BridgeWelcome | null {
      const tabId = sender?.tab?.id;
      const m = readBridgeRequest(message);
      if (m?.type !== 'bridge:hello' || typeof tabId !== 'number') return null;
      const frameId = sender?.frameId ?? 0;
      if (m.restored) {
        toPanels(tabId, { type: 'restored', frameId });
        return { type: 'bridge:welcome' };
      }
      // A new top document: whatever the reload left stale is gone.
      if (!m.late && frameId === 0) {
        staleHere.delete(tabId);
        deps.staleTabs?.clear(tabId);
      }
      const rules = faults.get(tabId);
      return panels.has(tabId) ? { type: 'bridge:welcome', subscribe: { type: 'subscribe', cursors: {} }, ...(rules ? { faults: rules } : {}) } : { type: 'bridge:welcome' };
    },
    /** A bridge injected after an extension reload found no hook it can reach: only a reload of the page captures it again. */
    stale(message: unknown, sender: PortLike['sender']): boolean {
      const tabId = sender?.tab?.id;
      if (readBridgeRequest(message)?.type !== 'bridge:stale' || typeof tabId !== 'number') return false;
      if ((sender?.frameId ?? 0) === 0) markStale(tabId);
      return true;
    },
    /** The tab could not be given a new bridge at all (no permission to script it). */
    markStale,
    watched(tabId: number): boolean {
      return panels.has(tabId);
    },
  };
}
