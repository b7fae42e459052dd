/**
 * Whether a worker the page starts can be started with a worker hook without
 * changing what it does, and if not, why, in one line for the coverage view.
 * Pure: the page hook and the worker hook read the inputs (without calling
 * anything of the app's) and act on the plan.
 *
 * A captured worker runs from a blob: script, so:
 * - it needs a page whose CSP allows blob: workers, and, to load the app's
 *   own blob: script or the hook's module, blob: scripts; a page script can
 *   read a CSP given in `<meta>` but not one in a header (it can only tell
 *   that there is one), so a page with a CSP header keeps its workers as they
 *   were;
 * - it runs under its creator's CSP, where a worker of an http(s) script runs
 *   under its own response's: with any page CSP, such a worker is left alone;
 * - a SharedWorker is found by URL and name by every document that starts
 *   it: a blob: script would make it another worker that none of them shares.
 */

export type WorkerKind = 'dedicated' | 'shared';
export type WorkerType = 'classic' | 'module';

/** What the hook knows of the CSP its workers would run under. */
export interface PolicyState {
  /** The document has a CSP delivered in a header (true), none (false), or it could not tell (undefined). */
  header: boolean | undefined;
  /** The `content` of every `<meta http-equiv="Content-Security-Policy">` of the document. */
  meta: string[];
  /** The document's CSP is its creator's (about:, blob: and data: documents): not readable here. */
  inherited: boolean;
}

/** A worker's own context: no CSP of the page's comes into it but the one its creator had (none, or it would not be captured). */
export const NO_POLICY: PolicyState = { header: false, meta: [], inherited: false };

export interface WorkerRequest {
  kind: WorkerKind;
  /** The script URL as a string, or undefined when the page gave an object the hook leaves to the browser to read. */
  url: string | undefined;
  /** The options' type, or undefined when the hook leaves the options to the browser (getters, an unknown type, not an object). */
  type: WorkerType | undefined;
}

export interface WorkerContext {
  /** The base URL the constructor resolves the script URL against (the document's, or a worker's own). */
  base: string;
  /** The origin of the document or worker that starts it. */
  origin: string;
  policy: PolicyState;
  /** This build carries the worker hook's source. */
  hookSource: boolean;
}

export type Plan =
  | { capture: true; url: string; type: WorkerType; blob: boolean }
  | { capture: false; url: string; type: WorkerType; reason: string };

export const REASONS = {
  noSource: 'this build of the hook carries no worker hook',
  urlObject: 'its script URL is an object (a TrustedScriptURL, or one with its own toString), which the hook leaves to the browser to read',
  options: 'its options are read through getters or are not plain, which the hook leaves to the browser to read',
  shared:
    'a SharedWorker is found by its URL and name by every document that starts it; started from a blob: script it would be another worker, shared with none of them, so it runs as it was',
  data: 'a data: worker has an opaque origin, which a blob: script would not keep',
  opaque: "the page's origin is opaque",
  header: 'the page has a Content-Security-Policy header, which no page script can read: a blob: worker it refused would never start, so the worker runs as it was',
  inherited: "this document's CSP is its creator's (an about:, blob: or data: document), which the hook cannot read",
  trustedTypes: 'the page enforces Trusted Types, which refuse the script URL of a blob: worker',
} as const;

/** The directives of one serialized policy, by name, each a list of lower-cased source expressions. */
export function parsePolicy(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of text.split(';')) {
    const tokens = part.trim().split(/[\t\n\f\r ]+/).filter(Boolean);
    const name = tokens.shift()?.toLowerCase();
    // The first of a repeated directive counts (CSP3 §2.2.1).
    if (name && !out.has(name)) out.set(name, tokens.map((t) => t.toLowerCase()));
  }
  return out;
}

const WORKER_ORDER = ['worker-src', 'child-src', 'script-src', 'default-src'];
const SCRIPT_ORDER = ['script-src-elem', 'script-src', 'default-src'];

/** The directive that governs, by the fallback order, and its sources; none: nothing restricts it. */
function governing(policy: Map<string, string[]>, order: string[]): { name: string; sources: string[] } | undefined {
  for (const name of order) {
    const sources = policy.get(name);
    if (sources) return { name, sources };
  }
  return undefined;
}

/** A blob: URL matches only an explicit `blob:` scheme source (never `*`), and not under 'strict-dynamic' in a script directive. */
function allowsBlob(d: { name: string; sources: string[] }): boolean {
  if (d.sources.includes("'strict-dynamic'") && d.name !== 'worker-src' && d.name !== 'child-src') return false;
  return d.sources.includes('blob:');
}

const said = (d: { name: string; sources: string[] }) => `${d.name} ${d.sources.join(' ')}`.trim();

/**
 * Why the page's CSP keeps a worker from being captured, or undefined when it
 * does not. `blob`: the worker's own script is a blob: URL (it runs under the
 * page's CSP already, so a CSP that lets it and blob: scripts run is no
 * change); otherwise it is an http(s) script, which runs under its own.
 */
export function policyReason(policy: PolicyState, blob: boolean): string | undefined {
  if (policy.inherited) return REASONS.inherited;
  if (policy.header !== false) return REASONS.header;
  for (const text of policy.meta) {
    const p = parsePolicy(text);
    if (p.has('require-trusted-types-for')) return REASONS.trustedTypes;
    const worker = governing(p, WORKER_ORDER);
    if (worker && !allowsBlob(worker)) return `the page's CSP does not allow blob: workers (${said(worker)})`;
    const script = governing(p, SCRIPT_ORDER);
    if (script && !allowsBlob(script)) return `the page's CSP does not let a worker load blob: scripts (${said(script)}), as its hook needs`;
  }
  if (!blob && policy.meta.some((m) => parsePolicy(m).size > 0)) {
    return "the page has a CSP (in a meta tag): a captured worker would run under it instead of its own script's, so it runs as it was";
  }
  return undefined;
}

/** The plan for one worker. `parse(url, base)` is the browser's URL parser (absolute href, or undefined when it fails). */
export function planWorker(req: WorkerRequest, ctx: WorkerContext, parse: (url: string, base?: string) => { href: string; protocol: string; origin: string } | undefined): Plan | undefined {
  const type: WorkerType = req.type ?? 'classic';
  const parsed = req.url === undefined ? undefined : parse(req.url, ctx.base);
  // A URL the browser cannot parse: its constructor throws, as it would have.
  if (req.url !== undefined && !parsed) return undefined;
  const url = parsed?.href ?? '';
  const no = (reason: string): Plan => ({ capture: false, url, type, reason });
  if (req.kind === 'shared') return no(REASONS.shared);
  if (!ctx.hookSource) return no(REASONS.noSource);
  if (!parsed) return no(REASONS.urlObject);
  if (req.type === undefined) return no(REASONS.options);
  if (ctx.origin === 'null' || !ctx.origin) return no(REASONS.opaque);
  const blob = parsed.protocol === 'blob:';
  if (parsed.protocol === 'data:') return no(REASONS.data);
  if (!blob && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return no(`its script is a ${parsed.protocol} URL, which the hook does not start workers from`);
  // Another origin's script: the browser refuses it (it throws, or the worker fails), as it would have.
  if (parsed.origin !== ctx.origin) return no('its script is of another origin than the page');
  const csp = policyReason(ctx.policy, blob);
  if (csp) return no(csp);
  return { capture: true, url, type, blob };
}
