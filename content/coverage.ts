/**
 * What this document's hook knows about the edges of its capture: its child
 * frames as its DOM describes them (so the panel can name the ones no hook
 * reported, and why), and the workers the page started (captured or not, and
 * why). Read only when a panel asks; bounded, and what no longer fits is
 * counted.
 */
import type { WorkerCoverage } from '../src/capture/captured-items.ts';
import type { ChildFrame, FrameReport } from '../src/capture/coverage.ts';
import { natives } from './natives.ts';
import { getter, uncurry } from './scope-natives.ts';
import { SafeSet, append } from './primordials.ts';

const MAX_WORKERS = 200;
const MAX_CHILDREN = 500;
const workers: WorkerCoverage[] = [];
let workersDropped = 0;

/** Records a worker the page created; returns the record, which a tap may update later (e.g. once its hook said hello). */
export function noteWorker(w: WorkerCoverage): WorkerCoverage {
  if (workers.length >= MAX_WORKERS) {
    for (let i = 1; i < workers.length; i++) workers[i - 1] = workers[i]!;
    workers.length--;
    workersDropped++;
  }
  append(workers, w);
  return w;
}

/** A copy, by index (primordials.ts). */
function copyOf<T>(list: T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) out[i] = list[i]!;
  return out;
}

export function workersSeen(): { workers: WorkerCoverage[]; dropped: number } {
  return { workers: copyOf(workers), dropped: workersDropped };
}

// The DOM's own functions, taken before page scripts: a page that replaces them later cannot make the report throw.
const method = <T>(f: unknown) => uncurry(f as (this: never) => T) as ((self: unknown, ...args: unknown[]) => T) | undefined;
const querySelectorAll = method<NodeListOf<Element>>(Document.prototype.querySelectorAll);
const getAttribute = method<string | null>(Element.prototype.getAttribute);
const hasAttribute = method<boolean>(Element.prototype.hasAttribute);
const localName = method<string>(getter(Element.prototype, 'localName'));
const nodeListLength = method<number>(getter(NodeList.prototype, 'length'));
const nodeListItem = method<Element | null>(NodeList.prototype.item);
const windows = {
  iframe: method<Window | null>(getter(globalThis.HTMLIFrameElement?.prototype, 'contentWindow')),
  frame: method<Window | null>(getter(globalThis.HTMLFrameElement?.prototype, 'contentWindow')),
  object: method<Window | null>(getter(globalThis.HTMLObjectElement?.prototype, 'contentWindow')),
};
const sources = {
  iframe: method<string>(getter(globalThis.HTMLIFrameElement?.prototype, 'src')),
  frame: method<string>(getter(globalThis.HTMLFrameElement?.prototype, 'src')),
  object: method<string>(getter(globalThis.HTMLObjectElement?.prototype, 'data')),
};
const locationHref = method<string>(getter(Location.prototype, 'href'));
/** `self.origin` is [Replaceable]: a page may redefine it on its window, never this getter (a creator's origin for about:blank, 'null' when opaque). */
const ownOrigin = method<string>(getter(window, 'origin'));

/** A window's URL when this document may read it (same origin), else undefined; never throws. */
function readableUrl(w: Window): string | undefined {
  try {
    const loc = w.location;
    return locationHref ? locationHref(loc) : loc.href;
  } catch {
    return undefined;
  }
}

function childFrames(): ChildFrame[] {
  const count = natives.frameCount(window);
  const children: ChildFrame[] = [];
  const found: Set<number> = new SafeSet();
  const list = querySelectorAll && document ? querySelectorAll(document, 'iframe,frame,object') : null;
  const n = list && nodeListLength ? Math.min(nodeListLength(list), MAX_CHILDREN) : 0;
  for (let k = 0; k < n; k++) {
    const el = nodeListItem!(list, k);
    if (!el) continue;
    const tag = localName ? localName(el) : el.localName;
    if (tag !== 'iframe' && tag !== 'frame' && tag !== 'object') continue;
    const w = windows[tag]?.(el);
    if (!w) continue;
    let index = -1;
    for (let i = 0; i < count; i++) {
      if (window[i] === w) {
        index = i;
        break;
      }
    }
    if (index < 0) continue;
    found.add(index);
    const srcdoc = tag === 'iframe' && hasAttribute?.(el, 'srcdoc');
    const sandbox = tag === 'iframe' ? getAttribute?.(el, 'sandbox') : null;
    const url = readableUrl(w);
    append(children, {
      index,
      element: tag,
      src: srcdoc ? 'about:srcdoc' : (sources[tag]?.(el) ?? ''),
      ...(url !== undefined ? { url } : {}),
      ...(typeof sandbox === 'string' ? { sandbox } : {}),
    });
  }
  // Frames the document's own tree does not hold (in a shadow root, or a detached element's window still counted).
  for (let i = 0; i < count && children.length < MAX_CHILDREN; i++) {
    if (found.has(i)) continue;
    const w = window[i];
    const url = w ? readableUrl(w) : undefined;
    append(children, { index: i, element: '', src: '', ...(url !== undefined ? { url } : {}) });
  }
  return children;
}

/** This frame as the coverage view lists it; never throws (what cannot be read is left out). */
export function frameReport(path: string): FrameReport {
  let children: ChildFrame[] = [];
  try {
    children = childFrames();
  } catch {
    // A frame tree that cannot be read is reported without children; the frames that speak still appear.
  }
  let url = '';
  let origin = 'null';
  try {
    url = locationHref ? locationHref(location) : location.href;
    origin = ownOrigin ? ownOrigin(window) : self.origin;
  } catch {
    // Left as unknown.
  }
  return { path, url, origin, children, workers: copyOf(workers), workersDropped };
}
