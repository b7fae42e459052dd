/**
 * Which URLs the virtual server answers. A pattern is either an exact URL or
 * a glob on host and path; the scheme and the query never count, so one
 * pattern names a Socket.IO endpoint for both of its phases (long-polling on
 * `http:`, then the WebSocket on `ws:`, each with its own query):
 *
 *   ws://127.0.0.1:5173/ws-json          exactly that host and path
 *   http://127.0.0.1:5173/socket.io/     that endpoint, polling and WebSocket
 *   *:5173/socket.io/                    `*` is any run of characters but `/`
 *   127.0.0.1:5173/**                    `**` is any run of characters
 *   /ws-json                             a path alone: on any host
 *
 * A trailing slash is not significant (`/socket.io` is `/socket.io/`); the
 * host is compared in lower case, the path as is. Pure string work through
 * the hook's own copies of the built-ins (primordials.ts): it runs on the
 * page's own `new WebSocket`, after the page's code.
 */
import { SafeSet, indexOf, slice } from '../primordials.ts';

const toLower = String.prototype.toLowerCase;
const reflectApply = Reflect.apply;
const lower = (s: string): string => reflectApply(toLower, s, []) as string;
const charAt = (s: string, i: number): string => (i < s.length ? s[i]! : '');

/** The scheme-less, query-less form both sides are compared in: `host/path`, or `/path` for a pattern that names no host. */
export function normalizePattern(pattern: string): string {
  let p = stripScheme(trim(pattern));
  p = cut(cut(p, '#'), '?');
  return lowerHost(trimSlash(p));
}

/** `host/path` of an absolute URL (ws:, wss:, http:, https:), or undefined for anything else. */
export function urlKey(url: string): string | undefined {
  const bare = stripScheme(url);
  if (bare === url) return undefined;
  return lowerHost(trimSlash(cut(cut(bare, '#'), '?')));
}

/** Whether the virtual server answers `url` under `pattern` (both as given: normalized here). */
export function matchesServe(pattern: string, url: string): boolean {
  const key = urlKey(url);
  if (key === undefined) return false;
  const p = normalizePattern(pattern);
  if (!p) return false;
  if (charAt(p, 0) === '/') {
    const slash = indexOf(key, '/');
    return glob(p, slash === -1 ? '/' : slice(key, slash));
  }
  return glob(p, key);
}

function trim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && charAt(s, a) <= ' ') a++;
  while (b > a && charAt(s, b - 1) <= ' ') b--;
  return slice(s, a, b);
}

const SCHEMES = ['wss://', 'ws://', 'https://', 'http://'];

function stripScheme(s: string): string {
  const head = lower(slice(s, 0, 8));
  for (let i = 0; i < SCHEMES.length; i++) {
    const scheme = SCHEMES[i]!;
    if (slice(head, 0, scheme.length) === scheme) return slice(s, scheme.length);
  }
  return s;
}

function cut(s: string, ch: string): string {
  const i = indexOf(s, ch);
  return i === -1 ? s : slice(s, 0, i);
}

function trimSlash(s: string): string {
  return s.length > 1 && charAt(s, s.length - 1) === '/' ? slice(s, 0, s.length - 1) : s;
}

function lowerHost(s: string): string {
  if (charAt(s, 0) === '/') return s;
  const slash = indexOf(s, '/');
  return slash === -1 ? lower(s) : lower(slice(s, 0, slash)) + slice(s, slash);
}

/**
 * `*` matches any run without `/`, `**` any run at all; everything else
 * literally. Each (pattern place, text place) is tried once, so a hostile
 * pattern costs at most |pattern|·|text| steps.
 */
export function glob(pattern: string, text: string): boolean {
  // Memo over (pattern index, text index): small inputs, bounded work.
  const seen = new SafeSet<number>();
  const width = text.length + 1;
  const go = (pi: number, ti: number): boolean => {
    for (;;) {
      const key = pi * width + ti;
      if (seen.has(key)) return false;
      seen.add(key);
      if (pi === pattern.length) return ti === text.length;
      const c = charAt(pattern, pi);
      if (c === '*') {
        const deep = charAt(pattern, pi + 1) === '*';
        const next = deep ? pi + 2 : pi + 1;
        for (let t = ti; t <= text.length; t++) {
          if (go(next, t)) return true;
          if (t < text.length && !deep && charAt(text, t) === '/') return false;
        }
        return false;
      }
      if (ti === text.length || charAt(text, ti) !== c) return false;
      pi++;
      ti++;
    }
  };
  return go(0, 0);
}
