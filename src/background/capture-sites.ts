/**
 * Where the page hook runs: least privilege by default. Local development
 * hosts are declared in the manifest (its static content scripts), so the
 * hook is there from the first document_start with no set-up and no race.
 * Every other site runs the hook only after the user enabled it (one click
 * in the panel, which asks Chrome for that site's permission); the service
 * worker then registers the same two scripts for the sites it holds
 * permission for. On any other site nothing is injected at all.
 *
 * Free of chrome.*: the registration API is passed in, so the rules are
 * tested in Node and the wiring in real Chromium.
 */
import type { SiteState } from '../capture/coverage.ts';

/**
 * Loopback and local development hosts: captured without asking. Chrome's
 * match patterns cannot say "any 127.x.x.x" (no wildcard on an IP address),
 * so other loopback hosts (127.0.0.2, ...) are one click each, and the
 * coverage view names them as loopback (isLoopbackHost).
 */
export const LOCAL_MATCHES = [
  'http://localhost/*',
  'https://localhost/*',
  'http://127.0.0.1/*',
  'https://127.0.0.1/*',
  'http://[::1]/*',
  'https://[::1]/*',
  '*://*.localhost/*',
  '*://*.test/*',
  'file:///*',
] as const;

/** Patterns that mean every site. */
const ALL_SITES = new Set(['<all_urls>', '*://*/*', 'http://*/*', 'https://*/*']);

export const HOOK_SCRIPT_ID = 'oui-hook-sites';
export const BRIDGE_SCRIPT_ID = 'oui-bridge-sites';

export interface ContentScript {
  id: string;
  matches?: string[];
  excludeMatches?: string[];
  js?: string[];
  runAt?: 'document_start' | 'document_end' | 'document_idle';
  allFrames?: boolean;
  matchOriginAsFallback?: boolean;
  world?: 'MAIN' | 'ISOLATED';
  persistAcrossSessions?: boolean;
}

export interface SitesDeps {
  /** Host patterns the extension holds permission for (chrome.permissions.getAll().origins). */
  grantedOrigins(): Promise<string[]>;
  registered(ids: string[]): Promise<ContentScript[]>;
  register(scripts: ContentScript[]): Promise<void>;
  update(scripts: ContentScript[]): Promise<void>;
  unregister(ids: string[]): Promise<void>;
}

/** Whether an origin pattern is one the manifest covers already. */
export function isLocalPattern(pattern: string): boolean {
  return (LOCAL_MATCHES as readonly string[]).includes(pattern);
}

/** The host patterns the user enabled: every granted origin but the manifest's own local ones; all sites collapse to one. */
export function enabledSites(granted: readonly string[]): string[] {
  const sites = granted.filter((p) => typeof p === 'string' && !isLocalPattern(p));
  if (sites.some((p) => ALL_SITES.has(p))) return ['<all_urls>'];
  return [...new Set(sites)].sort();
}

/** "https://shop.example.com" → the pattern that enables that site (any path; Chrome ignores the port in patterns). */
export function sitePattern(origin: string): string | null {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return `${u.protocol}//${u.hostname}/*`;
}

/** Whether the manifest's local patterns already cover a page URL (no permission needed there). */
export function isLocalUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'file:') return true;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const h = u.hostname;
  return h === 'localhost' || h === '127.0.0.1' || h === '[::1]' || h.endsWith('.localhost') || h.endsWith('.test');
}

/** Loopback: all of 127.0.0.0/8 and [::1] (also as an IPv4-mapped IPv6 address), whatever Chrome's patterns can name. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === '[::1]' || h === 'localhost') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) return v4.slice(1).every((n) => Number(n) <= 255);
  // new URL() writes [::ffff:127.0.0.2] as [::ffff:7f00:2].
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

/** Whether a granted host pattern covers a URL: scheme, host (with `*.` subdomains) and any path; Chrome ignores ports. */
function patternCovers(pattern: string, u: URL): boolean {
  if (ALL_SITES.has(pattern)) return pattern === 'https://*/*' ? u.protocol === 'https:' : pattern === 'http://*/*' ? u.protocol === 'http:' : true;
  const m = /^(\*|https?|file):\/\/([^/]*)\//.exec(pattern);
  if (!m) return false;
  const [, scheme, host] = m as unknown as [string, string, string];
  if (scheme === '*' ? u.protocol !== 'http:' && u.protocol !== 'https:' : `${scheme}:` !== u.protocol) return false;
  const h = u.hostname.toLowerCase();
  const hostOnly = host.replace(/:\d+$/, '').toLowerCase();
  if (hostOnly === '*' ) return true;
  if (hostOnly.startsWith('*.')) return h === hostOnly.slice(2) || h.endsWith(hostOnly.slice(1));
  return h === hostOnly;
}

/**
 * A frame URL's standing: captured without asking (the manifest's local
 * hosts), enabled by the user, one click away (with the pattern to ask for),
 * or out of any extension's reach.
 */
export function siteStateOf(url: string, granted: readonly string[]): SiteState {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { state: 'unsupported', why: 'its address cannot be read' };
  }
  if (isLocalUrl(url)) return { state: 'local' };
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { state: 'unsupported', why: `a ${u.protocol} page: extensions cannot run there` };
  if (granted.some((p) => typeof p === 'string' && patternCovers(p, u))) return { state: 'enabled' };
  const pattern = sitePattern(url)!;
  return isLoopbackHost(u.hostname) ? { state: 'not-enabled', pattern, loopback: true } : { state: 'not-enabled', pattern };
}

/** The two registrations for `matches`, as the manifest declares them for local hosts. */
export function scriptsFor(matches: string[]): ContentScript[] {
  // Local hosts are the manifest's: excluded here, so that with "all sites" no page runs the hook twice.
  const common = { matches, excludeMatches: [...LOCAL_MATCHES], runAt: 'document_start' as const, allFrames: true, matchOriginAsFallback: true, persistAcrossSessions: true };
  return [
    { id: HOOK_SCRIPT_ID, js: ['hook.js'], world: 'MAIN', ...common },
    { id: BRIDGE_SCRIPT_ID, js: ['bridge.js'], world: 'ISOLATED', ...common },
  ];
}

/**
 * Makes the registered scripts match the enabled sites: registers, updates
 * or removes them. Idempotent; run at every service-worker start and on every
 * permission change. Returns the sites now captured beyond the local ones.
 */
export async function syncCaptureSites(deps: SitesDeps): Promise<string[]> {
  const sites = enabledSites(await deps.grantedOrigins());
  const ids = [HOOK_SCRIPT_ID, BRIDGE_SCRIPT_ID];
  const existing = await deps.registered(ids);
  if (sites.length === 0) {
    if (existing.length) await deps.unregister(existing.map((s) => s.id));
    return sites;
  }
  const wanted = scriptsFor(sites);
  const have = new Set(existing.map((s) => s.id));
  const toUpdate = wanted.filter((s) => have.has(s.id));
  const toRegister = wanted.filter((s) => !have.has(s.id));
  if (toUpdate.length) await deps.update(toUpdate);
  if (toRegister.length) await deps.register(toRegister);
  return sites;
}
