/**
 * Coverage: which frames and workers of the inspected tab the capture sees,
 * and for each one it does not, why and what would fix it. Each frame's hook
 * reports its own place, its child frames (as its DOM describes them) and the
 * workers its page started; a child frame whose path no hook reported is one
 * the capture cannot see. Pure: the panel gives it the reports and the site
 * access, and renders the rows.
 */
import type { WorkerCoverage } from './captured-items.ts';

/** A child frame as its parent's hook sees it. */
export interface ChildFrame {
  /** Its index in the parent's `window.frames`: its path is `${parent}/${index}`. */
  index: number;
  /** The element that holds it ('iframe', 'frame', 'object', 'embed'), or '' when none was found (e.g. in a shadow root). */
  element: string;
  /** Its src (resolved), 'about:srcdoc' for srcdoc, or '' when it has none. */
  src: string;
  /** Its document's URL when the parent may read it (same origin). */
  url?: string;
  /** The sandbox attribute as written; absent when the element has none. */
  sandbox?: string;
}

/** One frame's hook on itself. */
export interface FrameReport {
  path: string;
  url: string;
  /** The frame's origin as the browser computes it: a creator's for about:blank, 'null' when opaque. */
  origin: string;
  children: ChildFrame[];
  workers: WorkerCoverage[];
  /** Workers that no longer fit the hook's bounded list. */
  workersDropped: number;
}

/** A site's standing with the extension. */
export type SiteState =
  | { state: 'local' }
  | { state: 'enabled' }
  /** The user can enable it with one click (`pattern`); `loopback` when it is a loopback host the manifest cannot name ahead. */
  | { state: 'not-enabled'; pattern: string; loopback?: boolean }
  | { state: 'unsupported'; why: string };

export type CoverageStatus = 'captured' | 'missing' | 'idle';

export interface CoverageRow {
  kind: 'frame' | 'worker';
  /** Frame path ('top', 'top/0'), or the path of the frame that started the worker. */
  path: string;
  url: string;
  status: CoverageStatus;
  /** One line: what is captured, or why not. */
  reason: string;
  /** The site pattern one click enables; the frame must then be reloaded. */
  enable?: string;
  /** The origin whose frames are reloaded after enabling (or to pick up a hook the frame loaded without). */
  reloadOrigin?: string;
  /** The frameId of the frame's hook, when captured. */
  frameId?: number;
}

export interface HookPlace {
  frameId: number;
  path: string;
  report?: FrameReport;
}

/** A postMessage conversation as the session knows it: its two frames. */
export interface Pairing {
  client: string;
  label: string;
  clientPath: string;
  peerPath: string;
}

/** A conversation of which one side cannot be seen, and the frame to blame. */
export interface HalfCapture {
  client: string;
  label: string;
  missingPath: string;
  /** What is missing: what that frame receives. */
  missing: string;
}

export interface Coverage {
  rows: CoverageRow[];
  halves: HalfCapture[];
  /** Rows the capture misses (status 'missing'): a tab with any never looks complete. */
  missing: number;
}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
};

/** Sandboxed without allow-scripts: no script runs there, the app's neither, so it can have no OUI traffic. */
const scriptless = (sandbox: string | undefined): boolean => sandbox !== undefined && !/(^|\s)allow-scripts(\s|$)/i.test(sandbox);

/** Why a child frame no hook reported is not captured, and what would capture it. */
function missingFrame(child: ChildFrame, siteOf: (url: string) => SiteState): Pick<CoverageRow, 'status' | 'reason' | 'enable' | 'reloadOrigin'> {
  const url = child.url ?? child.src;
  if (scriptless(child.sandbox)) return { status: 'idle', reason: 'sandboxed without allow-scripts: no script runs there, so it has no OUI traffic' };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? '';
  if (scheme === 'data') return { status: 'missing', reason: 'a data: frame (opaque origin): the browser runs no extension script there' };
  if (scheme === 'about' || url === '') return { status: 'missing', reason: `an ${url || 'about:blank'} frame the hook did not reach (it was written before the hook could run, or its parent is not captured)` };
  if (scheme === 'blob') return { status: 'missing', reason: 'a blob: frame the hook did not reach' };
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'file') return { status: 'missing', reason: `a ${scheme}: page: extensions cannot run there` };
  const site = siteOf(url);
  const sandboxNote = child.sandbox !== undefined ? ' (sandboxed with scripts)' : '';
  switch (site.state) {
    case 'not-enabled':
      return {
        status: 'missing',
        reason: site.loopback
          ? `loopback host ${new URL(url).host} is not enabled${sandboxNote}: the browser's host patterns can name only 127.0.0.1 ahead, not all of 127.0.0.0/8`
          : `${originOf(url)} is not enabled${sandboxNote}`,
        enable: site.pattern,
        reloadOrigin: originOf(url),
      };
    case 'unsupported':
      return { status: 'missing', reason: site.why };
    default:
      return {
        status: 'missing',
        reason: `its host is enabled, but no hook spoke from it${sandboxNote}: it loaded before capture was enabled there (reload it), or the browser kept the hook out`,
        reloadOrigin: originOf(url),
      };
  }
}

function workerRow(path: string, w: WorkerCoverage): CoverageRow {
  const what = `${w.kind === 'shared' ? 'SharedWorker' : 'Worker'} (${w.type})`;
  return {
    kind: 'worker',
    path,
    url: w.url,
    status: w.captured ? 'captured' : 'missing',
    reason: w.captured ? `${what}: its WebSockets are captured${w.reason ? `; ${w.reason}` : ''}` : `${what}: ${w.reason ?? 'not captured'}`,
  };
}

/** Rows in frame-tree order: each frame, then its workers, then its children. */
export function computeCoverage(hooks: Iterable<HookPlace>, siteOf: (url: string) => SiteState, pairings: Iterable<Pairing> = []): Coverage {
  const byPath = new Map<string, HookPlace>();
  for (const h of hooks) {
    const known = byPath.get(h.path);
    // Two hooks on one path: the newer document replaced the older (a navigation); keep the one that reported.
    if (!known || (!known.report && h.report) || (h.report && known.report && h.frameId === known.frameId)) byPath.set(h.path, h);
  }
  const rows: CoverageRow[] = [];
  const listed = new Set<string>();
  const visit = (path: string, child: ChildFrame | null): void => {
    if (listed.has(path)) return;
    listed.add(path);
    const place = byPath.get(path);
    if (!place) {
      if (!child) return;
      const url = child.url ?? child.src;
      rows.push({ kind: 'frame', path, url: url || 'about:blank', ...missingFrame(child, siteOf) });
      return;
    }
    const report = place.report;
    const url = report?.url ?? child?.url ?? child?.src ?? '';
    rows.push({
      kind: 'frame',
      path,
      url,
      status: 'captured',
      reason: report && /^(about|data|blob):/.test(url) && report.origin !== 'null' ? `captured; its content comes from ${report.origin}` : 'captured',
      frameId: place.frameId,
    });
    if (!report) return;
    for (const w of report.workers) rows.push(workerRow(path, w));
    if (report.workersDropped > 0) rows.push({ kind: 'worker', path, url: '', status: 'missing', reason: `${report.workersDropped} more workers were started than the hook keeps a record of` });
    for (const c of report.children) visit(`${path}/${c.index}`, c);
  };
  visit('top', null);
  // Hooks whose parent did not list them (a frame in a shadow root, or a parent not captured).
  for (const path of [...byPath.keys()].sort()) visit(path, null);

  const captured = (p: string) => byPath.has(p);
  const halves: HalfCapture[] = [];
  for (const p of pairings) {
    for (const [mine, other] of [
      [p.clientPath, p.peerPath],
      [p.peerPath, p.clientPath],
    ] as const) {
      if (captured(mine) || !captured(other) || !mine.startsWith('top')) continue;
      halves.push({
        client: p.client,
        label: p.label,
        missingPath: mine,
        missing: mine === p.clientPath ? 'what the runtime sends to the client (its requests)' : 'what the client sends to its runtime (its answers)',
      });
    }
  }
  return { rows, halves, missing: rows.filter((r) => r.status === 'missing').length };
}
