/**
 * Whether the page hook runs on the inspected page, and the one click that
 * makes it run there. The extension injects nothing on sites the user has not
 * enabled (see src/background/capture-sites.ts), so a panel that hears from
 * no hook soon after it subscribes (or after a navigation) says so and offers
 * to capture on that site: the browser asks the user for the site's
 * permission, the background registers the hook for it, and the page reloads.
 */
import { signal } from '@preact/signals';
import { enabledSites, sitePattern } from '../src/background/capture-sites.ts';

export type CaptureState = 'waiting' | 'capturing' | 'not-here';

/** How long a panel waits for a hook before it says the page is not captured. */
export const QUIET_MS = 1500;

/** The browser's side of site access (extension permissions, the background's registrations, the inspected tab). */
export interface SiteAccess {
  granted(): Promise<string[]>;
  /** Must follow a user gesture. */
  request(origins: string[]): Promise<boolean>;
  remove(origins: string[]): Promise<void>;
  /** Has the background register the content scripts again, and waits until it has. */
  sync(): Promise<void>;
  reload(tabId: number): Promise<void>;
  /** Reloads only the tab's frames of `origin` (the rest of the page keeps its state). */
  reloadFrames(tabId: number, origin: string): Promise<void>;
  inspectedOrigin(): Promise<string | null>;
}

export class CaptureSite {
  readonly state = signal<CaptureState>('waiting');
  /** The sites the user enabled beyond the local ones, for the settings list. */
  readonly enabledList = signal<string[]>([]);
  readonly showSites = signal(false);
  readonly origin = signal<string | null>(null);
  readonly error = signal<string | null>(null);
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly access: SiteAccess) {}

  /** A subscription or navigation started: expect a hook to speak within QUIET_MS. */
  expectHook(): void {
    this.state.value = 'waiting';
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.state.value === 'waiting') this.state.value = 'not-here';
    }, QUIET_MS);
  }

  heardHook(): void {
    clearTimeout(this.timer);
    this.state.value = 'capturing';
  }

  async learnOrigin(): Promise<void> {
    this.origin.value = await this.access.inspectedOrigin();
  }

  async refreshEnabled(): Promise<void> {
    this.enabledList.value = enabledSites(await this.access.granted());
  }

  /** Asks for `patterns` (a user gesture must lead here), has the background register the hook, and reloads the inspected tab. */
  async enable(patterns: string[], tabId: number | null): Promise<boolean> {
    const granted = await this.access.request(patterns);
    if (!granted) return false;
    await this.access.sync();
    await this.refreshEnabled();
    if (tabId !== null) await this.access.reload(tabId);
    return true;
  }

  /** One frame's site (a user gesture must lead here): asked for, registered, and that site's frames reloaded, not the page. */
  async enableFrames(pattern: string, origin: string | null, tabId: number | null): Promise<boolean> {
    const granted = await this.access.request([pattern]);
    if (!granted) return false;
    await this.access.sync();
    await this.refreshEnabled();
    if (tabId !== null && origin) await this.access.reloadFrames(tabId, origin);
    return true;
  }

  /** Registers the hook again for the enabled sites first: a frame that loaded before its site was enabled gets it on reload. */
  async reloadFrames(tabId: number, origin: string): Promise<void> {
    await this.access.sync();
    await this.access.reloadFrames(tabId, origin);
  }

  async enableSite(origin: string, tabId: number | null): Promise<boolean> {
    const pattern = sitePattern(origin);
    return pattern ? this.enable([pattern], tabId) : false;
  }

  async disableSite(pattern: string): Promise<void> {
    await this.access.remove([pattern]);
    await this.access.sync();
    await this.refreshEnabled();
  }

  /** Runs a user's action, and shows its failure in one line instead of losing it. */
  async run(action: () => Promise<unknown>): Promise<void> {
    this.error.value = null;
    try {
      await action();
    } catch (e) {
      this.error.value = e instanceof Error ? e.message : String(e);
    }
  }
}
