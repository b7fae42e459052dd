/**
 * The panel's port to the background. It names the inspected tab, subscribes
 * with its cursors, and reconnects whenever the port drops (a stopped service
 * worker, an extension reload): the hook replays from the cursors, so nothing
 * is lost and the intake drops anything seen twice.
 */
import { PROTOCOL, readToPanel, type FromPanel, type HookMessage } from '../src/messages.ts';
import type { Cursors } from '../src/capture/captured-items.ts';

export interface ConnectionHandlers {
  cursors(): Cursors;
  capture(frameId: number, message: HookMessage): void;
  status(connected: boolean): void;
  /** A frame of the tab came back from the back/forward cache: its line was closed and must be subscribed again. */
  restored?(frameId: number): void;
  /** The page outlived an extension reload and cannot be captured until it is reloaded. */
  stale?(line: string): void;
}

export interface Connection {
  send(message: FromPanel): void;
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
    p.onMessage.addListener((data: unknown) => {
      retry = 50;
      const m = readToPanel(data);
      if (m?.type === 'capture') handlers.capture(m.frameId, m.message);
      else if (m?.type === 'restored') handlers.restored?.(m.frameId);
      else if (m?.type === 'stale') handlers.stale?.(m.line);
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
    const send = (m: FromPanel) => p.postMessage(m);
    send({ type: 'panel:hello', v: PROTOCOL, tabId });
    send({ type: 'subscribe', cursors: handlers.cursors() });
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
