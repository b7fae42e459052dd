/**
 * `Worker` and `SharedWorker`, wrapped (by the page hook, and by a worker hook
 * for the workers its worker starts) so that a dedicated worker starts with a
 * worker hook before its own script, where that changes nothing the worker
 * does (policy.ts says where), and every worker is recorded for the coverage
 * view, captured or not and why.
 *
 * A captured worker is started from a blob: script: the worker hook's
 * source, called with its config, then the worker's own script, by
 * `importScripts(url)` (classic) or a static `import` after the hook's module
 * (module). The worker keeps its name, type and credentials (the app's
 * options object is passed on as it is), its error events (a script that
 * fails to load or parse fails inside it as before), and, through the worker
 * hook, its `location` and the base of its relative URLs. Anything the hook
 * cannot read without calling the app's code (a URL object of the app's own
 * making, options with getters), or any failure on the way, starts the worker
 * from the app's own arguments with the browser's own constructor, as if no
 * hook were there, and says why.
 *
 * The constructors stay indistinguishable (disguise.ts): name, length,
 * toString, `instanceof`, `.constructor`, subclasses.
 */
import { disguise, disguiseConstructor, replaceProperty } from '../disguise.ts';
import type { WorkerCoverage } from '../../src/capture/captured-items.ts';
import { planWorker, REASONS, type Plan, type PolicyState, type WorkerType } from './policy.ts';
import { LINE_MARK, type WorkerHookConfig } from './protocol.ts';
import { MAX_LINES, type Lines } from './lines.ts';

export interface WrapEnv {
  lines: Lines;
  /** The base URL the constructor resolves a script URL against. */
  base(): string;
  origin(): string;
  policy(): PolicyState;
  /** The worker hook's source (a function of `(__ouiWorkerHookFn, __ouiWorkerCfg)`), when this build has it. */
  hookSource(): string | undefined;
  /** Records a worker under `key`, or updates the record of that key. */
  note(key: string, w: WorkerCoverage): void;
  randomId(): string;
  listen(target: EventTarget, type: string, fn: (e: Event) => void): void;
}

// The browser's own, taken before any script of the app's runs.
const G = globalThis as typeof globalThis & { SharedWorker?: typeof SharedWorker };
const { apply, construct } = Reflect;
const { getOwnPropertyDescriptor, getPrototypeOf } = Object;
const stringify = JSON.stringify;
const NativeURL = URL;
const NativeBlob = Blob;
const createObjectURL = URL.createObjectURL;
const revokeObjectURL = URL.revokeObjectURL;
const NativeWorker = typeof G.Worker === 'function' ? G.Worker : undefined;
const NativeSharedWorker = typeof G.SharedWorker === 'function' ? G.SharedWorker : undefined;
const workerPost = NativeWorker?.prototype.postMessage;
const accessor = (proto: object, name: string) => getOwnPropertyDescriptor(proto, name)?.get;
const hrefOf = accessor(URL.prototype, 'href')!;
const protocolOf = accessor(URL.prototype, 'protocol')!;
const originOf = accessor(URL.prototype, 'origin')!;
const arrayPush = Array.prototype.push;

/** The browser's URL parser: the parts the plan reads, or undefined when it fails. */
export function parseUrl(url: string, base?: string): { href: string; protocol: string; origin: string } | undefined {
  try {
    const u = base === undefined ? new NativeURL(url) : new NativeURL(url, base);
    return { href: apply(hrefOf, u, []) as string, protocol: apply(protocolOf, u, []) as string, origin: apply(originOf, u, []) as string };
  } catch {
    return undefined;
  }
}

/** The script URL as a string without calling anything of the app's: a string, or a URL object read by the browser's own getter. */
export function scriptUrl(x: unknown): string | undefined {
  if (typeof x === 'string') return x;
  if (x === null || typeof x !== 'object') return undefined;
  try {
    // Throws for anything that is not a URL object (bundlers write `new Worker(new URL('./w.js', import.meta.url))`).
    return apply(hrefOf, x, []) as string;
  } catch {
    return undefined;
  }
}

/** The options' `type`, read from data properties only; undefined when reading it would call the app's code or the browser would refuse it. */
export function optionType(o: unknown): WorkerType | undefined {
  if (o === undefined || o === null) return 'classic';
  if (typeof o !== 'object' && typeof o !== 'function') return undefined;
  for (let p: object | null = o as object; p; p = getPrototypeOf(p) as object | null) {
    const d = getOwnPropertyDescriptor(p, 'type');
    if (!d) continue;
    if (!('value' in d)) return undefined;
    const v: unknown = d.value;
    return v === undefined ? 'classic' : v === 'classic' || v === 'module' ? v : undefined;
  }
  return 'classic';
}

/**
 * What waits for a worker that has not said hello yet (its blob: scripts to
 * revoke, an app's blob: URL to let go): released when it does, or fails to
 * start. A worker that never does either (terminated or closed before it
 * read its line) would keep it for ever: past this many, the oldest goes.
 */
const MAX_WAITING = 256;
const waiting: Array<() => void> = [];

function release(fn: () => void): void {
  const at = waiting.indexOf(fn);
  if (at >= 0) waiting.splice(at, 1);
  fn();
}

function wait(fn: () => void): void {
  waiting.push(fn);
  if (waiting.length > MAX_WAITING) waiting.shift()!();
}

/**
 * Blob URLs a captured worker still has to read (the app's own script, which
 * the worker hook imports after it starts): an app that revokes one right
 * after `new Worker(url)`, as it may, has it revoked once the worker read it.
 */
const reading = new Map<string, { n: number; revoked: boolean }>();

function holdBlobUrl(url: string): () => void {
  const r = reading.get(url) ?? { n: 0, revoked: false };
  r.n++;
  reading.set(url, r);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--r.n > 0) return;
    reading.delete(url);
    if (r.revoked) apply(revokeObjectURL, NativeURL, [url]);
  };
}

let revokeWrapped = false;
function wrapRevoke(): void {
  if (revokeWrapped) return;
  revokeWrapped = true;
  replaceProperty(
    NativeURL,
    'revokeObjectURL',
    disguise(revokeObjectURL, (target, thisArg, args) => {
      const url = args[0];
      const r = typeof url === 'string' ? reading.get(url) : undefined;
      if (r) {
        r.revoked = true;
        return undefined;
      }
      return apply(target, thisArg, args);
    }),
  );
}

/** The blob: script a captured worker starts from, and what to revoke once it has been read. */
function wrapperScript(plan: Extract<Plan, { capture: true }>, source: string, cfg: WorkerHookConfig): { url: string; own: string[] } {
  const blob = (text: string) => apply(createObjectURL, NativeURL, [new NativeBlob([text], { type: 'text/javascript' })]) as string;
  if (plan.type === 'classic') {
    // The hook hands back how to run the worker's own script (importScripts, or a copy where only its MIME type is refused); without a hook, importScripts.
    const url = blob(`(function(f,c){var o={};try{f(f,c,o)}catch(e){}if(typeof o.run==="function")o.run();else importScripts(${stringify(plan.url)})})(${source},${stringify(cfg)});`);
    return { url, own: [url] };
  }
  const call = `(function(f,c){try{f(f,c,{})}catch(e){}})(${source},${stringify(cfg)});`;
  // Imports are evaluated in order: the hook's module first, then the worker's own (whose relative imports resolve against its own URL).
  const hook = blob(call);
  const url = blob(`import ${stringify(hook)};import ${stringify(plan.url)};`);
  return { url, own: [url, hook] };
}

export function wrapWorkers(env: WrapEnv): void {
  wrapRevoke();
  if (NativeWorker) {
    const Wrapped = disguiseConstructor(NativeWorker, (target, args, newTarget) => {
      let plan: Plan | undefined;
      try {
        const source = env.hookSource();
        plan = planWorker(
          { kind: 'dedicated', url: args.length ? scriptUrl(args[0]) : undefined, type: optionType(args[1]) },
          { base: env.base(), origin: env.origin(), policy: env.policy(), hookSource: source !== undefined },
          parseUrl,
        );
        if (plan?.capture) {
          const started = start(env, plan, source!, target, args, newTarget);
          if (started) return started;
          plan = { capture: false, url: plan.url, type: plan.type, reason: `its hook could not be started (${lastFailure}), so it runs as it was` };
        }
      } catch {
        plan = undefined;
      }
      // As if no hook were there: the browser's own constructor with the app's own arguments (it throws as it would have).
      const w = construct(target, args, newTarget) as object;
      if (plan && !plan.capture) noteSafely(env, { url: plan.url, kind: 'dedicated', type: plan.type, captured: false, reason: plan.reason });
      return w;
    });
    replaceProperty(G, 'Worker', Wrapped);
  }
  if (NativeSharedWorker) {
    const Wrapped = disguiseConstructor(NativeSharedWorker, (target, args, newTarget) => {
      const w = construct(target, args, newTarget) as object;
      try {
        const url = args.length ? scriptUrl(args[0]) : undefined;
        const parsed = url === undefined ? undefined : parseUrl(url, env.base());
        // A string second argument is the worker's name: a classic worker.
        const type = typeof args[1] === 'string' ? 'classic' : (optionType(args[1]) ?? 'classic');
        noteSafely(env, { url: parsed?.href ?? '', kind: 'shared', type, captured: false, reason: REASONS.shared });
      } catch {
        // The record is best effort; the worker is the app's.
      }
      return w;
    });
    replaceProperty(G, 'SharedWorker', Wrapped);
  }
}

let noted = 0;
/** `key`: a captured worker's record is its hook id's (unique in the page); another's, a key of its own. */
function noteSafely(env: WrapEnv, w: WorkerCoverage, key = `${env.lines.parent}/n${++noted}`): void {
  try {
    env.note(key, w);
  } catch {
    // Coverage is best effort.
  }
}

let lastFailure = '';

/** Starts a captured worker; undefined (with nothing left behind, nothing started) when it cannot, and the caller starts it as it was. */
function start(env: WrapEnv, plan: Extract<Plan, { capture: true }>, source: string, target: Function, args: unknown[], newTarget: Function): object | undefined {
  const hook = env.lines.nextHook();
  const cfg: WorkerHookConfig = { hook, url: plan.url, type: plan.type, rebase: !plan.blob, token: env.randomId(), policy: env.policy() };
  const owned: Array<() => void> = [];
  let done = false;
  const free = () => {
    if (done) return;
    done = true;
    for (const r of owned.splice(0)) {
      try {
        r();
      } catch {
        // Nothing more to free.
      }
    }
  };
  const cleanup = () => release(free);
  const record = (captured: boolean, reason?: string): WorkerCoverage => ({ url: plan.url, kind: 'dedicated', type: plan.type, captured, ...(reason ? { reason } : {}), hook });
  let said = false;
  let worker: Worker;
  let line: ReturnType<Lines['open']>;
  try {
    line = env.lines.open(hook, {
      hello() {
        said = true;
        cleanup();
        noteSafely(env, record(true), hook);
      },
    });
    if (!line) {
      lastFailure = `more than ${MAX_LINES} workers have a hook at once`;
      return undefined;
    }
    const script = wrapperScript(plan, source, cfg);
    for (const u of script.own) apply(arrayPush, owned, [() => apply(revokeObjectURL, NativeURL, [u])]);
    if (plan.blob) apply(arrayPush, owned, [holdBlobUrl(plan.url)]);
    // The app's own arguments but the script: its options object (name, type, credentials) is read by the browser as before.
    const rest: unknown[] = [script.url];
    for (let i = 1; i < args.length; i++) rest[i] = args[i];
    worker = construct(target, rest, newTarget) as Worker;
    wait(free);
  } catch (e) {
    lastFailure = e instanceof Error ? e.name : 'an error';
    cleanup();
    line?.close();
    return undefined;
  }
  // The worker runs: from here on it is the app's whatever happens to its line.
  try {
    line.own(worker);
    env.listen(worker, 'error', () => {
      if (said) return;
      cleanup();
      noteSafely(env, record(false, 'it failed before its hook started (its script could not be loaded or run)'), hook);
    });
    noteSafely(env, record(false, 'its hook has not started yet'), hook);
    // The first message the worker receives, before any of the app's: its hook's line.
    apply(workerPost!, worker, [{ [LINE_MARK]: cfg.token }, [line.port]]);
  } catch {
    // Its hook waits for a line that never comes and lets every message through; the worker is not captured.
    line.close();
    noteSafely(env, record(false, 'its hook was started but could not be given its line'), hook);
  }
  return worker;
}
