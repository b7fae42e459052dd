/**
 * The background service worker: a router, nothing more. Capture from a tab's
 * bridges goes to that tab's panels and to nothing else; commands go from a
 * panel to the one tab it inspects. It holds no capture itself, so a worker
 * that Chrome stops loses nothing: the page hook's buffer is the record and
 * each panel resumes from its cursors.
 */
import { createRouter } from './router.ts';
import { isSitesSync, readFramesReload, type BridgeWelcome } from '../messages.ts';
import { syncCaptureSites, type ContentScript, type SitesDeps } from './capture-sites.ts';

const router = createRouter({
  sendToTab: (tabId, message, frameId) =>
    chrome.tabs.sendMessage(tabId, message, frameId === undefined ? {} : { frameId }).then(
      () => true,
      () => false,
    ),
  extensionOrigin: chrome.runtime.getURL('').replace(/\/$/, ''),
  staleTabs: {
    mark: (tabId) => void updateStale((set) => set.add(tabId)),
    clear: (tabId) => void updateStale((set) => set.delete(tabId)),
    has: async (tabId) => (await staleTabs()).includes(tabId),
  },
});

/** Session storage: survives a worker stop, not a browser restart (after which no page outlived anything). */
async function staleTabs(): Promise<number[]> {
  const { staleTabs: list } = await chrome.storage.session.get('staleTabs');
  return Array.isArray(list) ? (list as number[]) : [];
}
let staleWrites: Promise<unknown> = Promise.resolve();
function updateStale(change: (set: Set<number>) => unknown): Promise<unknown> {
  staleWrites = staleWrites.then(async () => {
    const set = new Set(await staleTabs());
    const before = set.size;
    change(set);
    if (set.size !== before) await chrome.storage.session.set({ staleTabs: [...set] });
  }).catch(() => {});
  return staleWrites;
}
chrome.tabs.onRemoved.addListener((tabId) => void updateStale((set) => set.delete(tabId)));

/**
 * The secret in the names of the events by which a bridge injected after a
 * reload speaks through the bridge that holds the hook's port (content/bridge.ts).
 * In local storage, so it outlives reloads and updates; never in a page's world.
 */
let relayKey: Promise<string> | null = null;
function getRelayKey(): Promise<string> {
  relayKey ??= chrome.storage.local.get('relayKey').then(async ({ relayKey: stored }) => {
    if (typeof stored === 'string' && /^[0-9a-f]{32}$/.test(stored)) return stored;
    const key = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    await chrome.storage.local.set({ relayKey: key });
    return key;
  });
  return relayKey;
}

/**
 * After an update or reload, Chrome leaves the open pages' content scripts
 * without an extension; give each page a new bridge, which resumes through
 * the old one. A tab Chrome does not let us script (no host permission) must
 * be reloaded to be captured again, and its panel says so.
 */
async function reattachOpenTabs(): Promise<void> {
  const tabs = await chrome.tabs.query({});
  await Promise.all(
    tabs.map(async (tab) => {
      if (typeof tab.id !== 'number' || tab.id < 0) return;
      const target = { tabId: tab.id, allFrames: true };
      try {
        await chrome.scripting.executeScript({ target, injectImmediately: true, func: () => void ((globalThis as Record<string, unknown>).__ouiDevtoolsLateBridge = true) });
        await chrome.scripting.executeScript({ target, injectImmediately: true, files: ['bridge.js'] });
      } catch {
        router.markStale(tab.id);
      }
    }),
  );
}
chrome.runtime.onInstalled.addListener((details) => {
  if (details.reason === 'update') void getRelayKey().then(reattachOpenTabs);
});

chrome.runtime.onConnect.addListener((port) => router.connect(port));
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // The panel, after the user enabled a site: answer once the scripts are registered, so a reload is captured.
  if (isSitesSync(message) && sender.url?.startsWith(chrome.runtime.getURL(''))) {
    syncSites().then(sendResponse, (e: unknown) => sendResponse({ error: String(e) }));
    return true;
  }
  // The panel, after the user enabled a frame's site: reload that tab's frames of the site, so their hook runs from document_start.
  const reload = readFramesReload(message);
  if (reload && sender.url?.startsWith(chrome.runtime.getURL(''))) {
    reloadFrames(reload.tabId, reload.origin).then(sendResponse, (e: unknown) => sendResponse({ error: String(e) }));
    return true;
  }
  if (router.stale(message, sender)) return undefined;
  const welcome = router.hello(message, sender);
  if (!welcome) return undefined;
  // Every bridge learns the relay key with its first answer: no extra message per page load.
  getRelayKey().then(
    (key) => sendResponse({ ...welcome, key } satisfies BridgeWelcome),
    () => sendResponse(welcome),
  );
  return true;
});

// Sites beyond the local ones run the hook once the user enabled them: keep the registrations in step with the grants.
const sitesDeps: SitesDeps = {
  grantedOrigins: async () => (await chrome.permissions.getAll()).origins ?? [],
  registered: (ids) => chrome.scripting.getRegisteredContentScripts({ ids }) as Promise<ContentScript[]>,
  register: (scripts) => chrome.scripting.registerContentScripts(scripts as chrome.scripting.RegisteredContentScript[]),
  update: (scripts) => chrome.scripting.updateContentScripts(scripts as chrome.scripting.RegisteredContentScript[]),
  unregister: (ids) => chrome.scripting.unregisterContentScripts({ ids }),
};
let syncing: Promise<string[]> = Promise.resolve([]);
function syncSites(): Promise<string[]> {
  // One sync at a time: two overlapping ones would both register.
  syncing = syncing.catch(() => []).then(() => syncCaptureSites(sitesDeps));
  return syncing;
}
void syncSites();
chrome.permissions.onAdded.addListener(() => void syncSites());
chrome.permissions.onRemoved.addListener(() => void syncSites());

/** Reloads the frames of `origin` in a tab (only those: the rest of the page keeps its state). */
async function reloadFrames(tabId: number, origin: string): Promise<{ reloaded: number }> {
  const results = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    injectImmediately: true,
    func: (o: string) => {
      if (location.origin !== o) return false;
      location.reload();
      return true;
    },
    args: [origin],
  });
  return { reloaded: results.filter((r) => r.result === true).length };
}
