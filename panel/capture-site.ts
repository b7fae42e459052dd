/**
 * Whether the page hook runs on the inspected page, and the one click that
 * makes it run there. The extension injects nothing on sites the user has not
 * enabled (see src/background/capture-sites.ts), so a panel that hears from
 * no hook soon after it subscribes (or after a navigation) says so and offers
 * to capture on that site: Chrome asks the user for the site's permission,
 * the service worker registers the hook for it, and the page reloads.
 */
import { signal } from '@preact/signals';
import type { SitesSync } from '../src/messages.ts';
import { enabledSites, sitePattern } from '../src/background/capture-sites.ts';

export type CaptureState = 'waiting' | 'capturing' | 'not-here';

/** How long a panel waits for a hook before it says the page is not captured. */
export const QUIET_MS = 1500;

export const captureState = signal<CaptureState>('waiting');
/** The sites the user enabled beyond the local ones, for the settings list. */
export const enabledList = signal<string[]>([]);

let timer: ReturnType<typeof setTimeout> | undefined;

/** A subscription or navigation started: expect a hook to speak within QUIET_MS. */
export function expectHook(): void {
  captureState.value = 'waiting';
  clearTimeout(timer);
  timer = setTimeout(() => {
    if (captureState.value === 'waiting') captureState.value = 'not-here';
  }, QUIET_MS);
}

export function heardHook(): void {
  clearTimeout(timer);
  captureState.value = 'capturing';
}

/** The inspected page's origin: DevTools knows it; a panel opened as a page is told (`?origin=`). */
export async function inspectedOrigin(): Promise<string | null> {
  const devtools = (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.inspectedWindow;
  if (devtools) {
    return new Promise((resolve) => devtools.eval('location.origin', (...args: unknown[]) => resolve(typeof args[0] === 'string' ? args[0] : null)));
  }
  return new URLSearchParams(location.search).get('origin');
}

export async function refreshEnabled(): Promise<void> {
  enabledList.value = enabledSites((await chrome.permissions.getAll()).origins ?? []);
}

/** Asks for `patterns` (a user gesture must lead here), has the worker register the hook, and reloads the inspected tab. */
export async function enable(patterns: string[], tabId: number | null): Promise<boolean> {
  const granted = await chrome.permissions.request({ origins: patterns });
  if (!granted) return false;
  await chrome.runtime.sendMessage({ type: 'sites:sync' } satisfies SitesSync);
  await refreshEnabled();
  if (tabId !== null) await chrome.tabs.reload(tabId);
  return true;
}

export async function enableSite(origin: string, tabId: number | null): Promise<boolean> {
  const pattern = sitePattern(origin);
  return pattern ? enable([pattern], tabId) : false;
}

export async function disableSite(pattern: string): Promise<void> {
  await chrome.permissions.remove({ origins: [pattern] });
  await chrome.runtime.sendMessage({ type: 'sites:sync' } satisfies SitesSync);
  await refreshEnabled();
}
