/**
 * The first thing a worker hook does, before anything else of it loads (the
 * worker hook imports this module first, and it acts as it loads): what the
 * worker must have whether or not its capture can run.
 * - Its line: a capturing listener on the worker's global, added before any
 *   of the app's, takes the first message (the one its parent posted when it
 *   started the worker, before the app could post any), stops it there and
 *   removes itself, so the app's listeners never see it and its own
 *   messages keep their order. A first message that is not the line's
 *   (its parent could not post it) goes on untouched.
 * - Its URL: `self.location` and the base of relative URLs (virtual-url.ts).
 * Should the rest of the worker hook fail to load, the worker still runs as
 * it would have from its own URL, only uncaptured.
 */
import { lineNatives as n } from './line-natives.ts';
import { keepLocation, rebaseRelative } from './virtual-url.ts';
import { LINE_MARK, type UpMessage, type WorkerHookConfig } from './protocol.ts';

declare const __ouiWorkerCfg: WorkerHookConfig;
declare const __ouiWorkerHookFn: Function;
/** Where the worker's blob: script takes the function that runs a classic worker's own script (set below). */
declare const __ouiWorkerOut: { run?: () => void } | undefined;
/**
 * Set by the build: which browser's rules for a worker script's MIME type hold. Chromium runs a classic
 * worker's own http(s) script whatever its type (but the few it never runs as a script), where its
 * importScripts wants a JavaScript type; Firefox wants one for both there, but runs a classic worker's
 * own blob: script of any type, where its importScripts does not (Chromium's runs those of any type).
 */
declare const __OUI_WORKER_BROWSER__: string | undefined;
const BROWSER = typeof __OUI_WORKER_BROWSER__ === 'string' ? __OUI_WORKER_BROWSER__ : '';
/** Where importScripts refuses what the worker's own start would have run: http(s) scripts in Chromium, blob: ones in Firefox. */
const refusesWhatStartRuns = (blob: boolean) => (blob ? BROWSER === 'firefox' : BROWSER === 'chromium');

const MAX_PENDING = 256;
const { getOwnPropertyDescriptor } = Object;
const { apply, construct } = Reflect;
const G = globalThis as unknown as Record<string, unknown>;
// The browser's own, for running the worker's script: taken before anything wraps them.
const nativeImportScripts = G.importScripts as ((...urls: string[]) => void) | undefined;
const NativeXHR = G.XMLHttpRequest as (new () => XMLHttpRequest) | undefined;
const xhrProto = NativeXHR?.prototype;
const xhrOpen = xhrProto?.open;
const xhrSend = xhrProto?.send;
const xhrHeader = xhrProto?.getResponseHeader;
const accessor = (proto: object | undefined, name: string, set = false) => {
  const d = proto ? getOwnPropertyDescriptor(proto, name) : undefined;
  return set ? d?.set : d?.get;
};
const xhrStatus = accessor(xhrProto, 'status');
const xhrResponse = accessor(xhrProto, 'response');
const xhrResponseType = accessor(xhrProto, 'responseType', true);
const domExceptionName = accessor(G.DOMException ? (G.DOMException as { prototype: object }).prototype : undefined, 'name');
const NativeBlob = Blob;
const createObjectURL = URL.createObjectURL;
const revokeObjectURL = URL.revokeObjectURL;

export interface Line {
  readonly cfg: WorkerHookConfig;
  /** The function whose source this hook is (to start the workers this worker starts). */
  readonly self: Function;
  /** Says `m` to the parent; kept (bounded) until the line is there. */
  post(m: UpMessage): void;
  /** Where commands from the parent go; the hook is captured once one is set (the parent hears hello). */
  serve(handler: (data: unknown) => void): void;
}

function open(cfg: WorkerHookConfig): Line {
  let port: MessagePort | null = null;
  let handler: ((data: unknown) => void) | null = null;
  const pending: UpMessage[] = [];
  const hello = () => {
    if (!port || !handler) return;
    n.portPost(port, { type: 'worker:hello', hook: cfg.hook } satisfies UpMessage);
    for (const m of pending.splice(0)) n.portPost(port, m);
  };
  const take = (e: Event): void => {
    n.unlisten(globalThis, 'message', take, true);
    const data = n.messageData(e as MessageEvent);
    const mark = data !== null && typeof data === 'object' ? getOwnPropertyDescriptor(data, LINE_MARK) : undefined;
    const ports = n.ports(e as MessageEvent);
    if (!mark || mark.value !== cfg.token || ports.length !== 1) return;
    n.stopImmediate(e);
    port = ports[0]!;
    n.listen(port, 'message', (c) => {
      try {
        handler?.(n.messageData(c as MessageEvent));
      } catch {
        // A command we cannot follow changes nothing in the worker.
      }
    });
    n.start(port);
    hello();
  };
  n.listen(globalThis, 'message', take, true);
  return {
    cfg,
    self: __ouiWorkerHookFn,
    post(m) {
      if (!port || !handler) {
        if (pending.length < MAX_PENDING) pending.push(m);
        return;
      }
      n.portPost(port, m);
    },
    serve(h) {
      handler = h;
      hello();
    },
  };
}

/** Types no browser runs as a script, whatever the destination. */
const NEVER_SCRIPT = /^(image|audio|video)\/|^text\/csv\b/i;
const JAVASCRIPT = /^\s*(text|application)\/(x-)?(java|ecma)script\s*(;|$)|^\s*text\/(jscript|livescript)\s*(;|$)/i;

/**
 * Where importScripts refused the worker's own script for its MIME type but
 * the browser would have run it as the worker's script (refusesWhatStartRuns),
 * the script read again, as the browser reads a worker script, into a
 * JavaScript blob: to run it from. Undefined otherwise (a script that ran,
 * failed to load, or the worker's start refuses too): the error stands, as
 * it would have.
 */
function copyOf(error: unknown, url: string): string | undefined {
  if (!domExceptionName || !NativeXHR || error === null || typeof error !== 'object') return undefined;
  let name: unknown;
  try {
    name = apply(domExceptionName, error, []);
  } catch {
    return undefined;
  }
  if (name !== 'NetworkError') return undefined;
  const blob = url.startsWith('blob:');
  if (!refusesWhatStartRuns(blob)) return undefined;
  try {
    const x = construct(NativeXHR, []) as XMLHttpRequest;
    apply(xhrOpen!, x, ['GET', url, false]);
    apply(xhrResponseType!, x, ['arraybuffer']);
    apply(xhrSend!, x, []);
    const status = apply(xhrStatus!, x, []) as number;
    if (status < 200 || status > 299) return undefined;
    const type = String(apply(xhrHeader!, x, ['content-type']) ?? '');
    // A JavaScript type: importScripts took the script, which ran (and threw, or something it imported failed); the error stands.
    if (JAVASCRIPT.test(type)) return undefined;
    // What the worker's own start refuses too: the error stands.
    if (!blob && (NEVER_SCRIPT.test(type) || /nosniff/i.test(String(apply(xhrHeader!, x, ['x-content-type-options']) ?? '')))) return undefined;
    // A worker script is UTF-8 whatever its charset: so is a blob: script.
    return apply(createObjectURL, URL, [new NativeBlob([apply(xhrResponse!, x, []) as ArrayBuffer], { type: 'text/javascript' })]) as string;
  } catch {
    return undefined;
  }
}

/** Runs a classic worker's own script: importScripts, and where that refuses only its MIME type, a copy (copyOf). */
function runner(line: Line | undefined, cfg: WorkerHookConfig): (() => void) | undefined {
  if (cfg.type !== 'classic' || !nativeImportScripts) return undefined;
  const importScripts = nativeImportScripts;
  return () => {
    try {
      apply(importScripts, G, [cfg.url]);
    } catch (e) {
      const copy = copyOf(e, cfg.url);
      if (copy === undefined) throw e;
      line?.post({
        type: 'worker:note',
        key: cfg.hook,
        worker: { url: cfg.url, kind: 'dedicated', type: 'classic', captured: true, hook: cfg.hook, reason: "its script's MIME type is not JavaScript, which importScripts refuses: it runs from a copy (its errors name the copy's URL)" },
      });
      try {
        apply(importScripts, G, [copy]);
      } finally {
        apply(revokeObjectURL, URL, [copy]);
      }
    }
  };
}

function keep(): Line | undefined {
  let line: Line | undefined;
  const cfg = __ouiWorkerCfg;
  try {
    line = open(cfg);
  } catch {
    // No line: the worker runs uncaptured.
  }
  try {
    // Relative URLs first: each wrapper is over the browser's own function (the taps come over them).
    if (cfg.rebase) rebaseRelative(cfg.url);
  } catch {
    // Left as the browser has it.
  }
  try {
    keepLocation(cfg.url);
  } catch {
    // Left as the browser has it.
  }
  try {
    const run = runner(line, cfg);
    if (run && typeof __ouiWorkerOut === 'object' && __ouiWorkerOut) __ouiWorkerOut.run = run;
  } catch {
    // The blob: script runs the worker's script itself.
  }
  return line;
}

export const line = keep();
