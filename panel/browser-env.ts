/**
 * The panel's environment in the browser: extension storage, site
 * permissions, tab reloads, one-off messages to the service worker, the
 * inspected window and localStorage, handed to the store as its
 * `PanelEnv`, so the store runs in Node tests as well. The other
 * panel modules that call extension APIs are connection.ts (the port to the
 * service worker) and devtools.ts (creates the panel).
 */
import type { FramesReload, SitesSync } from '../src/messages.ts';
import { connectPanel } from './connection.ts';
import type { PanelEnv } from './store.ts';

/** The inspected page's origin: DevTools knows it; a panel opened as a page is told (`?origin=`). */
function inspectedOrigin(): Promise<string | null> {
  const devtools = (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.inspectedWindow;
  if (devtools) {
    return new Promise((resolve) => devtools.eval('location.origin', (...args: unknown[]) => resolve(typeof args[0] === 'string' ? args[0] : null)));
  }
  return Promise.resolve(new URLSearchParams(location.search).get('origin'));
}

export function browserEnv(): PanelEnv {
  return {
    settings: {
      get: (key) => localStorage.getItem(key),
      set: (key, value) => localStorage.setItem(key, value),
    },
    nextFrame: (fn) => void requestAnimationFrame(fn),
    connect: connectPanel,
    saved: {
      get: async (key) => (await chrome.storage.local.get(key))[key],
      set: (key, value) => chrome.storage.local.set({ [key]: value }),
    },
    sites: {
      granted: async () => (await chrome.permissions.getAll()).origins ?? [],
      request: (origins) => chrome.permissions.request({ origins }),
      remove: async (origins) => void (await chrome.permissions.remove({ origins })),
      sync: async () => void (await chrome.runtime.sendMessage({ type: 'sites:sync' } satisfies SitesSync)),
      reload: (tabId) => chrome.tabs.reload(tabId),
      reloadFrames: async (tabId, origin) => {
        const answer = (await chrome.runtime.sendMessage({ type: 'frames:reload', tabId, origin } satisfies FramesReload)) as { error?: string } | undefined;
        if (answer?.error) throw new Error(answer.error);
      },
      inspectedOrigin,
    },
    // A navigation to a site the hook does not run on sends nothing: only DevTools tells the panel it happened.
    onNavigated: (fn) => (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.network?.onNavigated.addListener(fn),
  };
}
