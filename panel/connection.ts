/**
 * The panel's port to the background. It names the inspected tab, subscribes
 * with its cursors, and reconnects whenever the port drops (a stopped service
 * worker, an extension reload): the hook replays from the cursors, so nothing
 * is lost and the intake drops anything seen twice.
 */
export interface ConnectionHandlers {
  cursors(): Record<string, number>;
  capture(frameId: number, message: unknown): void;
  status(connected: boolean): void;
  /** A frame of the tab came back from the back/forward cache: its line was closed and must be subscribed again. */
  restored?(frameId: number): void;
  /** The page outlived an extension reload and cannot be captured until it is reloaded. */
  stale?(line: string): void;
}

export interface Connection {
  send(message: Record<string, unknown>): void;
  close(): void;
}

export function connectPanel(tabId: number, handlers: ConnectionHandlers): Connection {
  let port: chrome.runtime.Port | null = null;
  let closed = false;
  let retry = 50;

  function open(): void {
    if (closed) return;
    const p = chrome.runtime.connect({ name: 'panel' });
    port = p;
    p.onMessage.addListener((m: { type?: string; frameId?: number; message?: unknown }) => {
      retry = 50;
      if (m?.type === 'capture' && typeof m.frameId === 'number') handlers.capture(m.frameId, m.message);
      else if (m?.type === 'restored' && typeof m.frameId === 'number') handlers.restored?.(m.frameId);
      else if (m?.type === 'stale' && typeof (m as { line?: unknown }).line === 'string') handlers.stale?.((m as { line: string }).line);
    });
    p.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      if (port === p) port = null;
      handlers.status(false);
      if (!closed) {
        setTimeout(open, retry);
        retry = Math.min(retry * 2, 2000);
      }
    });
    p.postMessage({ type: 'hello', tabId });
    p.postMessage({ type: 'subscribe', cursors: handlers.cursors() });
    handlers.status(true);
  }

  open();
  return {
    send(message) {
      port?.postMessage(message);
    },
    close() {
      closed = true;
      port?.disconnect();
    },
  };
}

/** The tab to inspect: DevTools' own, or `?tabId=N` when the panel is opened as a page. */
export function inspectedTabId(): number | null {
  const fromDevtools = (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.inspectedWindow?.tabId;
  if (typeof fromDevtools === 'number') return fromDevtools;
  const q = new URLSearchParams(location.search).get('tabId');
  const n = q === null ? NaN : Number(q);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
