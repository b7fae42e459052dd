/**
 * Whose frame a client was captured in. A document at about:blank or
 * about:srcdoc has its creator's origin, but `location.origin` answers "null"
 * there and its URL says nothing of where it is; a frame whose document was
 * rewritten by document.open() takes its opener's URL and looks like that
 * page itself. So a client says its creator's real origin and a frame URL
 * that says what the frame is: `about:blank (in http://host/page)`.
 *
 * Read with the browser's own getters, taken at document_start before any
 * page script: a page cannot redefine `self.origin`, `parent`, `opener` or
 * `baseURI` under the hook (nor `location.href`, which is unforgeable). Runs
 * without a window too (a worker's hook).
 */
import { getter, uncurry } from './scope-natives.ts';
import { startsWith } from './primordials.ts';

const getterOf = <T>(obj: object | undefined, name: string) => uncurry(getter(obj, name) as ((this: never) => T) | undefined);

const win = typeof window === 'object' && window ? window : undefined;
const doc = typeof document === 'object' && document ? document : undefined;
const originOf = getterOf<string>(win, 'origin');
const parentOf = getterOf<Window | null>(win, 'parent');
const openerOf = getterOf<Window | null>(win, 'opener');
const baseUriOf = getterOf<string>(globalThis.Node?.prototype, 'baseURI');

/** This document and its URL when the hook was installed: a document.open() keeps the document and changes the URL. */
const installedIn = doc;
const installedAt = readHref(globalThis.location);

/** `href` is an own, unforgeable property of every Location: a page cannot redefine it. */
function readHref(loc: { readonly href: string } | undefined): string {
  try {
    return loc ? String(loc.href) : '';
  } catch {
    return '';
  }
}

/** A window's URL when this document may read it (same origin), else undefined; never throws. */
function urlOf(w: Window | null | undefined): string | undefined {
  if (!w) return undefined;
  try {
    const href = readHref(w.location);
    return href || undefined;
  } catch {
    return undefined;
  }
}

function originOfUrl(url: string | undefined): string | undefined {
  if (!url || startsWith(url, 'about:')) return undefined;
  try {
    const o = new URL(url).origin;
    return o && o !== 'null' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The page that made this about: document: its parent frame, its opener (a popup), else its base URL (which about: documents take from their creator). */
function creatorUrl(): string | undefined {
  if (!win) return undefined;
  try {
    const parent = parentOf ? parentOf(win) : win.parent;
    if (parent && parent !== win) {
      const u = urlOf(parent);
      if (u && !startsWith(u, 'about:')) return u;
    } else {
      const opener = openerOf ? openerOf(win) : win.opener;
      const u = urlOf(opener as Window | null);
      if (u && !startsWith(u, 'about:')) return u;
    }
  } catch {
    // Read below from the base URL instead.
  }
  try {
    const base = doc ? (baseUriOf ? baseUriOf(doc) : doc.baseURI) : undefined;
    if (base && !startsWith(base, 'about:')) return base;
  } catch {
    // Unknown.
  }
  return undefined;
}

export interface FrameIdentity {
  origin: string;
  frameUrl: string;
}

/** The origin and frame URL a client captured here carries. Never throws. */
export function frameIdentity(): FrameIdentity {
  let href = '';
  let origin = 'null';
  try {
    href = readHref(globalThis.location);
    origin = win && originOf ? originOf(win) : String(globalThis.location?.origin ?? 'null');
  } catch {
    // Left as unknown.
  }
  if (startsWith(href, 'about:')) {
    const creator = creatorUrl();
    const frameUrl = creator ? `${href} (in ${creator})` : href;
    return { origin: origin !== 'null' ? origin : (originOfUrl(creator) ?? origin), frameUrl };
  }
  // document.open() on an about: document: the same document, now at its opener's URL.
  if (startsWith(installedAt, 'about:') && doc !== undefined && doc === installedIn && href !== installedAt) {
    return { origin: origin !== 'null' ? origin : (originOfUrl(href) ?? origin), frameUrl: `${installedAt} (in ${href})` };
  }
  return { origin: origin !== 'null' ? origin : (originOfUrl(href) ?? origin), frameUrl: href };
}
