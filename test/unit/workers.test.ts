/**
 * The page side of worker capture, in Node with the real modules: the plan
 * for each worker (CSP, URL, options; policy.ts), reading what the page gave
 * without calling anything of its own, the wrapped constructors (wrap.ts)
 * over a stand-in for the browser's Worker that records how it was called,
 * the lines between hooks (lines.ts) over real MessageChannels, relative URL
 * resolution inside a worker (virtual-url.ts), and the panel's recorder
 * taking a worker hook's messages as another source of its page's frame.
 * The browser half (real workers, real CSP) is test/e2e/workers.test.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveObjectURL } from 'node:buffer';
import type { HookMessage } from '../../src/messages.ts';
import type { WorkerCoverage } from '../../src/capture/captured-items.ts';
import { until } from '../support/wait.ts';

/** The browser's Worker and SharedWorker, as far as the wrapper reaches them: each construction and message is recorded. */
const constructed: Array<{ kind: string; args: unknown[]; newTarget: unknown }> = [];
const posted: Array<{ data: unknown; transfer: unknown }> = [];
/** Every port handed to a worker: closed at the end (an open port keeps Node running). */
const ports: MessagePort[] = [];
class Worker {
  constructor(...args: unknown[]) {
    if (!args.length) throw new TypeError("Failed to construct 'Worker': 1 argument required, but only 0 present.");
    constructed.push({ kind: 'dedicated', args, newTarget: new.target });
  }
  postMessage(data: unknown, transfer?: unknown): void {
    posted.push({ data, transfer });
    if (Array.isArray(transfer)) ports.push(...(transfer as MessagePort[]));
  }
}
class SharedWorker {
  constructor(...args: unknown[]) {
    constructed.push({ kind: 'shared', args, newTarget: new.target });
  }
}
const G = globalThis as Record<string, unknown>;
// The hook's modules take the browser's functions from `window` as they load (realm-link.ts): Node's global stands in.
G.window ??= globalThis;
G.Worker = Worker;
G.SharedWorker = SharedWorker;
/** What reaches the browser's URL.revokeObjectURL. */
const revoked: string[] = [];
const nodeRevoke = URL.revokeObjectURL;
URL.revokeObjectURL = function revokeObjectURL(url: string) {
  revoked.push(url);
  return nodeRevoke(url);
};
const nativeWorkerSource = Function.prototype.toString.call(Worker);

const { parsePolicy, policyReason, planWorker, REASONS, NO_POLICY } = await import('../../content/workers/policy.ts');
const { wrapWorkers, optionType, scriptUrl, parseUrl } = await import('../../content/workers/wrap.ts');
const { createLines } = await import('../../content/workers/lines.ts');
const { lineNatives } = await import('../../content/workers/line-natives.ts');
const { rebased } = await import('../../content/workers/virtual-url.ts');
const { workerHookId } = await import('../../src/capture/captured-items.ts');
const { Recorder } = await import('../../src/session/wire/recorder.ts');

const page = { base: 'http://app.test/dir/page.html', origin: 'http://app.test', hookSource: true };
const plan = (url: string | undefined, type: 'classic' | 'module' | undefined = 'classic', policy = NO_POLICY, kind: 'dedicated' | 'shared' = 'dedicated') =>
  planWorker({ kind, url, type }, { ...page, policy }, parseUrl);

describe('the plan for a worker', () => {
  it('captures a same-origin http(s) or blob: worker of a page without a CSP, classic or module', () => {
    assert.deepEqual(plan('w.js'), { capture: true, url: 'http://app.test/dir/w.js', type: 'classic', blob: false });
    assert.deepEqual(plan('/m.js?x#y', 'module'), { capture: true, url: 'http://app.test/m.js?x#y', type: 'module', blob: false });
    assert.deepEqual(plan('blob:http://app.test/0b5e'), { capture: true, url: 'blob:http://app.test/0b5e', type: 'classic', blob: true });
  });

  it('leaves every other worker to the browser, and says why', () => {
    assert.equal(plan('http://['), undefined, 'a URL the browser cannot parse: its constructor throws, nothing is recorded');
    const reason = (p: ReturnType<typeof plan>) => (p && !p.capture ? p.reason : 'captured');
    assert.equal(reason(plan('s.js', 'classic', NO_POLICY, 'shared')), REASONS.shared);
    assert.equal(reason(plan(undefined)), REASONS.urlObject);
    assert.equal(reason(planWorker({ kind: 'dedicated', url: 'w.js', type: undefined }, { ...page, policy: NO_POLICY }, parseUrl)), REASONS.options);
    assert.equal(reason(plan('data:text/javascript,1')), REASONS.data);
    assert.match(reason(plan('http://other.test/w.js')), /another origin/);
    assert.match(reason(plan('ftp://app.test/w.js')), /ftp: URL/);
    assert.equal(reason(planWorker({ kind: 'dedicated', url: 'w.js', type: 'classic' }, { ...page, policy: NO_POLICY, hookSource: false }, parseUrl)), REASONS.noSource);
    assert.equal(reason(planWorker({ kind: 'dedicated', url: 'w.js', type: 'classic' }, { ...page, origin: 'null', policy: NO_POLICY }, parseUrl)), REASONS.opaque);
    assert.equal(reason(plan('w.js', 'classic', { header: true, meta: [], inherited: false })), REASONS.header);
    assert.equal(reason(plan('w.js', 'classic', { header: undefined, meta: [], inherited: false })), REASONS.header, 'a header it could not rule out counts as one');
    assert.equal(reason(plan('w.js', 'classic', { header: false, meta: [], inherited: true })), REASONS.inherited);
  });

  it("reads a meta CSP as the browser would for a blob: worker and the blob: scripts its hook loads", () => {
    const meta = (...m: string[]) => ({ header: false, meta: m, inherited: false });
    assert.deepEqual([...parsePolicy("Worker-Src 'self'  blob: ; script-src 'none'; worker-src *").entries()], [
      ['worker-src', ["'self'", 'blob:']],
      ['script-src', ["'none'"]],
    ]);
    assert.equal(policyReason(meta("worker-src 'self'"), true), "the page's CSP does not allow blob: workers (worker-src 'self')");
    assert.equal(policyReason(meta("default-src *"), true), "the page's CSP does not allow blob: workers (default-src *)", '* never matches blob:');
    assert.equal(policyReason(meta("script-src 'nonce-a' 'strict-dynamic' blob:"), true), "the page's CSP does not allow blob: workers (script-src 'nonce-a' 'strict-dynamic' blob:)");
    assert.equal(policyReason(meta("worker-src blob:; script-src 'self'"), true), "the page's CSP does not let a worker load blob: scripts (script-src 'self'), as its hook needs");
    assert.equal(policyReason(meta("worker-src blob:; script-src 'self' blob:"), true), undefined, 'a blob: worker runs under the page CSP either way');
    assert.equal(policyReason(meta('img-src data:'), true), undefined);
    assert.match(policyReason(meta("worker-src blob:; script-src 'self' blob:"), false)!, /a captured worker would run under it instead of its own script's/);
    assert.equal(policyReason(meta("require-trusted-types-for 'script'"), true), REASONS.trustedTypes);
    assert.equal(policyReason(meta('img-src data:', "worker-src 'self'"), true), "the page's CSP does not allow blob: workers (worker-src 'self')", 'every policy must allow it');
  });
});

describe('what the page gave, read without calling its code', () => {
  it('reads a string or a URL object, nothing else', () => {
    assert.equal(scriptUrl('w.js'), 'w.js');
    assert.equal(scriptUrl(new URL('http://app.test/w.js')), 'http://app.test/w.js');
    let called = 0;
    assert.equal(scriptUrl({ toString: () => (called++, 'w.js') }), undefined);
    assert.equal(called, 0);
    assert.equal(scriptUrl(undefined), undefined);
  });

  it("reads the options' type from data properties only", () => {
    assert.equal(optionType(undefined), 'classic');
    assert.equal(optionType(null), 'classic');
    assert.equal(optionType({ name: 'x' }), 'classic');
    assert.equal(optionType({ type: 'module' }), 'module');
    assert.equal(optionType(Object.create({ type: 'module' })), 'module');
    assert.equal(optionType({ type: undefined }), 'classic');
    assert.equal(optionType({ type: 'modul' }), undefined, 'the browser throws: left to it');
    assert.equal(optionType('name'), undefined);
    let read = 0;
    assert.equal(optionType({ get type() { read++; return 'module'; } }), undefined);
    assert.equal(read, 0, 'a getter is never called');
  });
});

describe('relative URLs in a captured worker', () => {
  const base = 'http://app.test/w/worker.js';
  it('resolves a relative URL against the worker\'s own, and passes anything else as it is', () => {
    assert.equal(rebased('data.json', base), 'http://app.test/w/data.json');
    assert.equal(rebased('../ws?x', base), 'http://app.test/ws?x');
    assert.equal(rebased('//cdn.test/a.js', base), 'http://cdn.test/a.js');
    assert.equal(rebased('wss://host/ws', base), 'wss://host/ws', 'absolute: the very string');
    const url = new URL('x', base);
    assert.equal(rebased(url, base), url, 'a URL object is absolute');
    const request = new Request('http://app.test/r');
    assert.equal(rebased(request, base), request, 'a Request is left to the browser');
    let calls = 0;
    assert.equal(rebased({ toString: () => (calls++, 'lib.js') }, base), 'http://app.test/w/lib.js');
    assert.equal(calls, 1, 'converted once, as the browser would');
    assert.equal(rebased(undefined, base), 'http://app.test/w/undefined', 'as the browser reads undefined');
    const sym = Symbol('s');
    assert.equal(rebased(sym, base), sym, 'the browser throws on it');
    assert.equal(rebased('x', 'blob:http://app.test/1'), 'x', 'nothing resolves against a blob: URL: the browser says so');
  });
});

interface Up {
  port: MessagePort;
  received: unknown[];
}

/** The far end of a line, as a worker hook holds it. */
function farEnd(port: MessagePort): Up {
  const up: Up = { port, received: [] };
  port.addEventListener('message', (e) => up.received.push((e as MessageEvent).data));
  port.start();
  return up;
}

describe('the lines to worker hooks', () => {
  it("relays a worker hook's messages up as they are, subscribes it once it speaks, and routes an injection to the one it names", async () => {
    const out: HookMessage[] = [];
    const notes: Array<[string, WorkerCoverage]> = [];
    const lines = createLines(lineNatives, 'pagehook', (k, w) => notes.push([k, w]), workerHookId);
    lines.attach((m) => out.push(m));
    const id = lines.nextHook();
    assert.equal(id, 'pagehook.w1');
    let hellos = 0;
    const line = lines.open(id, { hello: () => hellos++ })!;
    const w = farEnd(line.port);
    assert.equal(lines.command({ type: 'subscribe', cursors: { 'pagehook/c1': 3 } }), false, 'the page hook answers its own subscription too');
    w.port.postMessage({ type: 'worker:hello', hook: id });
    await until(() => hellos === 1 && w.received.length === 1, 'hello, then the subscription that holds');
    assert.deepEqual(w.received[0], { type: 'subscribe', cursors: { 'pagehook/c1': 3 } });
    const items: HookMessage = { type: 'items', hook: id, items: [], clients: [] };
    w.port.postMessage(items);
    w.port.postMessage({ type: 'worker:note', key: 'pagehook.w1/n1', worker: { url: 'http://app.test/n.js', kind: 'dedicated', type: 'classic', captured: false, reason: 'r' } });
    await until(() => out.length === 1 && notes.length === 1, 'the items and the note');
    assert.deepEqual(out[0], items);
    assert.equal(notes[0]![0], 'pagehook.w1/n1');

    const inject = (hook: string) => ({ type: 'hook:inject' as const, id: `i-${hook}`, target: { via: 'websocket' as const, frameId: 0, hook, client: 'c1' }, frame: '{}', hold: [] });
    assert.equal(lines.command(inject('pagehook')), false, "the page's own socket: the page hook's");
    assert.equal(lines.command(inject('otherhook.w1')), false, "another page's worker is not this page's to answer");
    assert.equal(lines.command(inject('pagehook.w1.w3')), true, "a worker's worker: down the line of the worker that started it");
    await until(() => w.received.length === 2, 'the injection');
    assert.equal((w.received[1] as { id: string }).id, 'i-pagehook.w1.w3');
    assert.equal(lines.command(inject('pagehook.w9')), true);
    assert.deepEqual(out.at(-1), { type: 'answer', id: 'i-pagehook.w9', ok: false, error: 'the worker is gone' }, 'one answer, even for a worker gone');
    lines.command({ type: 'unsubscribe' });
    await until(() => w.received.length === 3, 'the unsubscription');
    line.close();
    w.port.close();
  });
});

describe('the wrapped constructors', () => {
  after(() => {
    for (const port of ports) port.close();
  });
  const notes = new Map<string, WorkerCoverage>();
  let policy = NO_POLICY;
  let source: string | undefined = 'function(f,c,o){}';
  const lines = createLines(lineNatives, 'hk', () => {}, workerHookId);
  const errorListeners: Array<() => void> = [];
  wrapWorkers({
    lines,
    base: () => page.base,
    origin: () => page.origin,
    policy: () => policy,
    hookSource: () => source,
    note: (key, w) => notes.set(key, { ...w }),
    randomId: () => 'tok3n',
    listen: (_t, type, fn) => {
      if (type === 'error') errorListeners.push(fn as () => void);
    },
  });
  const W = G.Worker as typeof Worker;
  const blobText = async (url: string) => {
    const blob = resolveObjectURL(url);
    assert.ok(blob, `${url} still readable`);
    return blob.text();
  };

  it('look like the browser\'s own', () => {
    assert.notEqual(W, Worker);
    assert.equal(Function.prototype.toString.call(W), nativeWorkerSource);
    assert.equal(W.name, 'Worker');
    assert.equal(W.length, Worker.length);
    assert.equal(W.prototype, Worker.prototype);
    assert.equal(Worker.prototype.constructor, W);
    assert.ok(new W('w.js') instanceof W);
    class Mine extends W {}
    const mine = new Mine('w.js');
    assert.ok(mine instanceof Mine);
    assert.equal(constructed.at(-1)!.newTarget, Mine, 'a subclass is constructed as one');
    assert.throws(() => new W(), /1 argument required/, 'the browser\'s own error');
  });

  it("start a captured worker from a blob: script that runs its hook, then the worker's own script, with the app's options object as it is", async () => {
    constructed.length = 0;
    posted.length = 0;
    const options = { name: 'n', credentials: 'include' };
    const w = new W('w.js', options);
    const call = constructed.at(-1)!;
    assert.equal(call.args.length, 2);
    assert.match(call.args[0] as string, /^blob:/);
    assert.equal(call.args[1], options, "the app's own options object");
    const text = await blobText(call.args[0] as string);
    const hook = [...notes.values()].at(-1)!.hook!;
    assert.match(hook, /^hk\.w\d+$/);
    assert.ok(text.startsWith('(function(f,c){var o={};try{f(f,c,o)}catch(e){}if(typeof o.run==="function")o.run();else importScripts("http://app.test/dir/w.js")})(function(f,c,o){},'));
    const cfg = JSON.parse(text.slice(text.indexOf(',{') + 1, text.lastIndexOf(')')));
    assert.deepEqual(cfg, { hook, url: 'http://app.test/dir/w.js', type: 'classic', rebase: true, token: 'tok3n', policy: NO_POLICY });
    // Its first message, posted before the app could post one: the line's port.
    assert.equal(posted.length, 1);
    assert.deepEqual(posted[0]!.data, { __ouiWorkerLine: 'tok3n' });
    const [port] = posted[0]!.transfer as MessagePort[];
    assert.deepEqual(notes.get(hook), { url: 'http://app.test/dir/w.js', kind: 'dedicated', type: 'classic', captured: false, reason: 'its hook has not started yet', hook });
    const far = farEnd(port!);
    far.port.postMessage({ type: 'worker:hello', hook });
    await until(() => notes.get(hook)!.captured, 'hello');
    assert.deepEqual(notes.get(hook), { url: 'http://app.test/dir/w.js', kind: 'dedicated', type: 'classic', captured: true, hook });
    assert.equal(resolveObjectURL(call.args[0] as string), undefined, 'its blob: script is revoked once read');
    assert.ok(w instanceof W);
    far.port.close();
  });

  it('start a module worker from imports of its hook and of its own script', async () => {
    new W(new URL('http://app.test/m.js'), { type: 'module' });
    const text = await blobText(constructed.at(-1)!.args[0] as string);
    const m = /^import "(blob:[^"]+)";import "http:\/\/app\.test\/m\.js";$/.exec(text);
    assert.ok(m, text);
    assert.match(await blobText(m[1]!), /^\(function\(f,c\)\{try\{f\(f,c,\{\}\)\}catch\(e\)\{\}\}\)\(function\(f,c,o\)\{\},\{"hook":"hk\.w\d+","url":"http:\/\/app\.test\/m\.js","type":"module","rebase":true/);
  });

  it("keep an app's blob: URL readable until its worker read it, even when the app revokes it at once", async () => {
    const url = 'blob:http://app.test/5ca1ab1e';
    new W(url);
    const hook = [...notes.values()].at(-1)!.hook!;
    assert.equal(notes.get(hook)!.url, url);
    const [port] = posted.at(-1)!.transfer as MessagePort[];
    revoked.length = 0;
    (G.URL as typeof URL).revokeObjectURL(url);
    (G.URL as typeof URL).revokeObjectURL('blob:http://app.test/other');
    assert.deepEqual(revoked, ['blob:http://app.test/other'], 'only the URL its worker still has to read waits');
    const far = farEnd(port!);
    far.port.postMessage({ type: 'worker:hello', hook });
    await until(() => notes.get(hook)!.captured, 'hello');
    assert.ok(revoked.includes(url), 'revoked once the worker read it');
    assert.ok(revoked.some((u) => u !== url && u !== 'blob:http://app.test/other'), "and the hook's own blob: script");
    revoked.length = 0;
    (G.URL as typeof URL).revokeObjectURL(url);
    assert.deepEqual(revoked, [url], 'later, as the browser would');
    far.port.close();
  });

  it('start every other worker from the app\'s own arguments, and say why', () => {
    constructed.length = 0;
    let reads = 0;
    const options = { get type() { reads++; return 'classic'; } };
    new W('w.js', options);
    assert.deepEqual(constructed.at(-1)!.args, ['w.js', options]);
    assert.equal(reads, 0);
    assert.equal([...notes.values()].at(-1)!.reason, REASONS.options);
    policy = { header: true, meta: [], inherited: false };
    new W('w.js');
    assert.deepEqual(constructed.at(-1)!.args, ['w.js']);
    assert.deepEqual([...notes.values()].at(-1), { url: 'http://app.test/dir/w.js', kind: 'dedicated', type: 'classic', captured: false, reason: REASONS.header });
    policy = NO_POLICY;
    source = undefined;
    new W('w.js');
    assert.equal([...notes.values()].at(-1)!.reason, REASONS.noSource);
    source = 'function(f,c,o){}';
    const S = G.SharedWorker as typeof SharedWorker;
    new S('s.js', 'name');
    assert.deepEqual(constructed.at(-1), { kind: 'shared', args: ['s.js', 'name'], newTarget: S });
    assert.deepEqual([...notes.values()].at(-1), { url: 'http://app.test/dir/s.js', kind: 'shared', type: 'classic', captured: false, reason: REASONS.shared });
  });

  it('say a worker that failed before its hook started', () => {
    errorListeners.length = 0;
    new W('gone.mjs', { type: 'module' });
    const hook = [...notes.values()].at(-1)!.hook!;
    errorListeners[0]!();
    assert.deepEqual(notes.get(hook), { url: 'http://app.test/dir/gone.mjs', kind: 'dedicated', type: 'module', captured: false, reason: 'it failed before its hook started (its script could not be loaded or run)', hook });
  });
});

describe("the panel's recorder", () => {
  it("takes a worker hook's messages through its page's top frame as another source, not a navigation", () => {
    let navigations = 0;
    const recorder = new Recorder(1000, () => navigations++);
    const state = (hook: string) => ({ type: 'state', hook, drops: {}, clients: [], v: 2 });
    recorder.accept(0, state('abc'));
    recorder.accept(0, state('abc.w1'));
    recorder.accept(0, { type: 'items', hook: 'abc.w1.w1', items: [], clients: [] });
    assert.equal(navigations, 0);
    recorder.accept(0, state('def'));
    assert.equal(navigations, 1, 'a new page hook in the top frame is a navigation');
  });
});
