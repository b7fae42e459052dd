/**
 * The background service worker: a router, nothing more. Capture from a tab's
 * bridges goes to that tab's panels and to nothing else; commands go from a
 * panel to the one tab it inspects. It holds no capture itself, so a worker
 * that Chrome stops loses nothing: the page hook's buffer is the record and
 * each panel resumes from its cursors.
 */
import { createRouter } from './router.ts';

const router = createRouter({
  sendToTab: (tabId, message, frameId) =>
    chrome.tabs.sendMessage(tabId, message, frameId === undefined ? {} : { frameId }).then(
      () => true,
      () => false,
    ),
  extensionOrigin: chrome.runtime.getURL('').replace(/\/$/, ''),
});

chrome.runtime.onConnect.addListener((port) => router.connect(port));
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  sendResponse(router.hello(message, sender));
});
