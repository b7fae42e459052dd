/**
 * The page hook's side of worker capture: wraps the page's `Worker` and
 * `SharedWorker` (wrap.ts), keeps the lines to the worker hooks (lines.ts),
 * whose messages go out on the page hook's own bridge line and whose
 * subscriptions and injections come in on it, and records every worker the
 * page starts, captured or not and why, for the coverage view.
 *
 * What it needs to know of the page's CSP (policy.ts) it reads without
 * calling anything of the app's: whether the document has a CSP header
 * (at document_start, by the browser's nonce hiding, which only a
 * header-delivered policy triggers), and the `<meta>` policies present when
 * a worker starts.
 */
import type { CaptureBuffer } from '../capture-buffer.ts';
import { noteWorker } from '../coverage.ts';
import { workerHookId, type WorkerCoverage } from '../../src/capture/captured-items.ts';
import { createLines, type Downstream } from './lines.ts';
import { lineNatives } from './line-natives.ts';
import { wrapWorkers } from './wrap.ts';
import type { PolicyState } from './policy.ts';
import { getter } from '../scope-natives.ts';
import { SafeMap, firstKey } from '../primordials.ts';

/** The worker hook's source, inlined by scripts/build.mjs (absent from a build that has none: workers are then said not captured). */
declare const __OUI_WORKER_HOOK__: string | undefined;
const SOURCE = typeof __OUI_WORKER_HOOK__ === 'string' ? __OUI_WORKER_HOOK__ : undefined;

// The DOM's own, taken before any page script runs.
const { apply } = Reflect;
const call = <T>(f: unknown, self: unknown, ...args: unknown[]): T => apply(f as Function, self, args) as T;
const XHTML = 'http://www.w3.org/1999/xhtml';
const createElementNS = Document.prototype.createElementNS;
const setAttribute = Element.prototype.setAttribute;
const getAttribute = Element.prototype.getAttribute;
const appendChild = Node.prototype.appendChild;
const removeChild = Node.prototype.removeChild;
const documentElementOf = getter(Document.prototype, 'documentElement');
const baseUriOf = getter(Node.prototype, 'baseURI');
const querySelectorAll = Document.prototype.querySelectorAll;
const nodeListLength = getter(NodeList.prototype, 'length');
const nodeListItem = NodeList.prototype.item;
const toLowerCase = String.prototype.toLowerCase;
const trim = String.prototype.trim;
const originOf = getter(window, 'origin');
const randomValues = crypto.getRandomValues.bind(crypto);

/**
 * Whether the document has a CSP delivered in a header: the browser empties
 * the `nonce` attribute of an element connected to such a document (HTML's
 * nonce hiding), and only of such a document. Run at document_start, before
 * any page script can observe the element, which is gone at once. Undefined
 * when it cannot tell.
 */
export function probeHeaderCsp(doc: Document = document): boolean | undefined {
  try {
    const el = call<Element>(createElementNS, doc, XHTML, 'span');
    call(setAttribute, el, 'nonce', 'oui');
    const parent: Node = call<Element | null>(documentElementOf, doc) ?? doc;
    call(appendChild, parent, el);
    let seen: string | null;
    try {
      seen = call<string | null>(getAttribute, el, 'nonce');
    } finally {
      call(removeChild, parent, el);
    }
    return seen === '' ? true : seen === 'oui' ? false : undefined;
  } catch {
    return undefined;
  }
}

/** The `content` of every CSP meta tag of the document now. */
function metaPolicies(): string[] {
  const out: string[] = [];
  try {
    const list = call<NodeListOf<Element>>(querySelectorAll, document, 'meta[http-equiv]');
    const count = call<number>(nodeListLength, list);
    for (let i = 0; i < count; i++) {
      const el = call<Element>(nodeListItem, list, i);
      const equiv = call<string | null>(getAttribute, el, 'http-equiv');
      if (equiv === null || call<string>(toLowerCase, call<string>(trim, equiv)) !== 'content-security-policy') continue;
      out[out.length] = call<string | null>(getAttribute, el, 'content') ?? '';
    }
  } catch {
    // Unreadable: said as a CSP that cannot be read, so nothing is started under it.
    out[out.length] = 'default-src';
  }
  return out;
}

const MAX_RECORDS = 200;

export function tapWorkers(buffer: CaptureBuffer): Downstream {
  const header = probeHeaderCsp();
  let href = '';
  try {
    // `href` is an own, unforgeable property of the location object.
    href = String(location.href);
  } catch {
    // Unknown: treated as inherited below.
  }
  const inherited = !/^https?:/i.test(href);
  const origin = (() => {
    try {
      return originOf ? call<string>(originOf, window) : self.origin;
    } catch {
      return 'null';
    }
  })();

  /** The page's record of each worker (its own and its workers'), by key, to update in place. */
  const records: Map<string, WorkerCoverage> = new SafeMap();
  const note = (key: string, w: WorkerCoverage): void => {
    const known = records.get(key);
    if (known) {
      known.captured = w.captured;
      if (w.reason) known.reason = w.reason;
      else delete known.reason;
      return;
    }
    if (records.size >= MAX_RECORDS) records.delete(firstKey(records)!);
    records.set(key, noteWorker({ ...w }));
  };
  const lines = createLines(lineNatives, buffer.hook, note, workerHookId);
  wrapWorkers({
    lines,
    base: () => {
      try {
        return call<string>(baseUriOf, document);
      } catch {
        return href;
      }
    },
    origin: () => origin,
    policy: (): PolicyState => ({ header, meta: metaPolicies(), inherited }),
    hookSource: () => SOURCE,
    note,
    randomId: () => {
      const b = new Uint32Array(2);
      randomValues(b);
      return b[0]!.toString(36) + b[1]!.toString(36);
    },
    listen: lineNatives.listen,
  });
  return lines;
}
