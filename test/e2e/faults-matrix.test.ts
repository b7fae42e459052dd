/**
 * Each fault on each of the demo's non-Socket.IO transports (plain WebSocket
 * JSON, the postMessage coupon widget, direct calls), one test per
 * (transport × fault) from one table, every rule set in the panel's Faults
 * view by its labels. Socket.IO (both phases) has its own files
 * (faults-socketio, faults-polling).
 *
 * Witnesses are the other ends, never the panel: the `/ws-json` runtime's own
 * log (`wsRuntime.events`, with the close frame it read), the host page's
 * received messages (a listener of this test's own on the iframe's window),
 * the in-page assistant's answers, and the app's activity log
 * (`__demo.activity()`: results, repeats ignored or answered). Acknowledgments
 * on a direct transport are read from a small transport of this test's own,
 * attached to the hook as an app attaches one: the demo's help client keeps
 * its acks to itself and the in-page assistant asks for no receipts.
 *
 * What does not apply (docs/faults.md): refusals and acks on plain WebSocket
 * and postMessage (no acknowledgments on those wires), disconnect outside
 * WebSocket, and approval faults: no action of these three clients needs an
 * approval, so no grant exists for a rule to tamper with (Socket.IO covers them).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { addRule, clearRules, resultsFor, type RuleForm } from './faults-steps.ts';
import type { OUIActionResult } from '../../src/protocol/index.ts';

let demo: DemoServer;
let browser: Browser;
let page: Page;
let panel: Page;

/** The page's frames that run a hook: the app and its coupon widget. */
const FRAMES = 2;
/** The client's re-answer interval (§7.3.7), shortened by the page's `?reanswerMs=`. */
const REANSWER_MS = 300;

interface Activity {
  t: number;
  requestId: string;
  kind: string;
  client: string;
  ok?: boolean;
}
interface Seen {
  type: string;
  payload: Record<string, unknown>;
  t: number;
}
interface DirectLog {
  kind: 'request' | 'receipt' | 'result' | 'ack';
  id: string;
  t: number;
}

const activity = (): Promise<Activity[]> => page.evaluate(() => (window as unknown as { __demo: { activity(): Activity[] } }).__demo.activity());
const activityOf = async (requestId: string, kind?: string) => (await activity()).filter((a) => a.requestId === requestId && (kind === undefined || a.kind === kind));
const assistant = (actionId: string, params: Record<string, unknown>) =>
  page.evaluate(([a, p]) => (window as unknown as { __demo: { assistant(a: string, p: unknown): Promise<OUIActionResult> } }).__demo.assistant(a, p), [actionId, params] as const);

/**
 * The host page as the coupon widget's runtime, written here: it posts requests to the iframe as the page's
 * own host does (same window, same target origin) and keeps every message the iframe sends, as received.
 */
const PM_HOST = `(() => {
  const frame = document.getElementById('coupon-frame');
  const seen = [];
  addEventListener('message', (e) => {
    if (e.source !== frame.contentWindow) return;
    const d = e.data;
    if (d && typeof d === 'object' && typeof d.type === 'string') seen.push({ type: d.type, payload: d.payload, t: Date.now() });
  });
  window.__matrixPm = {
    seen,
    send(payload) {
      frame.contentWindow.postMessage({ type: 'action:request', payload: { timestamp: Date.now(), ...payload } }, location.origin);
      return Date.now();
    },
  };
})()`;
const pmSend = (payload: Record<string, unknown>): Promise<number> =>
  page.evaluate((p) => (window as unknown as { __matrixPm: { send(p: unknown): number } }).__matrixPm.send(p), payload);
const pmResults = (requestId: string): Promise<Seen[]> =>
  page.evaluate(
    (id) => (window as unknown as { __matrixPm: { seen: Seen[] } }).__matrixPm.seen.filter((m) => m.type === 'action:result' && m.payload && m.payload.requestId === id && !m.payload.interim),
    requestId,
  );
const untilPmAnswered = (requestId: string) => until(async () => (await pmResults(requestId)).length > 0, `the host page received the result of ${requestId}`, SLOW_MS, 20);
let pmSeq = 0;
/** The widget's surfaces hash, as its own answer gave it. */
let pmHash = '';
let directHash: string | undefined;
const pmId = (tag: string) => `pm-${tag}-${++pmSeq}-${Date.now()}`;

/**
 * A direct transport of this test's own, in the spec's shape, attached to the hook: its client end sends a
 * receipt and a result for every request and logs the acknowledgment it gets; its runtime end acknowledges
 * every result and logs the receipts it gets.
 */
const DIRECT_PAIR = `(() => {
  const log = [];
  const actionH = new Set();
  const resultH = new Set();
  const t = {
    dispatch(req, receipt) { queueMicrotask(() => { for (const h of [...actionH]) h(req, receipt); }); },
    onAction(h) { actionH.add(h); return () => actionH.delete(h); },
    sendResult(r, onAck) { queueMicrotask(() => { for (const h of [...resultH]) h(r, onAck); }); },
    onResult(h) { resultH.add(h); return () => resultH.delete(h); },
  };
  window.__OUI_DEVTOOLS_HOOK__.attach(t, { label: 'faults matrix' });
  t.onAction((req, receipt) => {
    log.push({ kind: 'request', id: req.requestId, t: Date.now() });
    if (receipt) receipt({ ok: true });
    t.sendResult({ requestId: req.requestId, success: true, data: { echoed: true }, timestamp: Date.now() }, (ack) => log.push({ kind: 'ack', id: req.requestId, t: Date.now() }));
  });
  t.onResult((r, ack) => {
    log.push({ kind: 'result', id: r.requestId, t: Date.now() });
    if (ack) ack({ ok: true });
  });
  let n = 0;
  window.__matrixDirect = {
    log,
    call() {
      const id = 'direct-' + (++n) + '-' + Date.now();
      t.dispatch({ requestId: id, surfaceId: 'matrix', actionId: 'echo', params: {}, timestamp: Date.now() }, () => log.push({ kind: 'receipt', id, t: Date.now() }));
      return id;
    },
  };
})()`;
const directCall = (): Promise<string> => page.evaluate(() => (window as unknown as { __matrixDirect: { call(): string } }).__matrixDirect.call());
const directLog = (id: string): Promise<DirectLog[]> =>
  page.evaluate((i) => (window as unknown as { __matrixDirect: { log: DirectLog[] } }).__matrixDirect.log.filter((e) => e.id === i), id);
const untilDirect = (id: string, kind: DirectLog['kind']) => until(async () => (await directLog(id)).some((e) => e.kind === kind), `${kind} of ${id}`, SLOW_MS, 20);

interface Case {
  transport: 'plain WebSocket' | 'postMessage' | 'direct';
  fault: string;
  rule: RuleForm;
  /** Before the rule is on: the same exchange unfaulted, the control. */
  prepare?(): Promise<void>;
  run(): Promise<void>;
}

const WS: RuleForm['transport'] = 'WebSocket (plain JSON)';
const TO_CLIENT: RuleForm['direction'] = 'to the client (runtime → app)';
const FROM_CLIENT: RuleForm['direction'] = 'from the client (app → runtime)';
const list = { surfaceId: 'notifications', actionId: 'list', params: {} };

const CASES: Case[] = [
  // ---------------------------------------------------------------- plain WebSocket JSON
  {
    transport: 'plain WebSocket',
    fault: 'drop a request',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: WS, fault: 'Drop', maxCount: 1 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const dropped = await demo.wsRuntime.request(ws, { ...list, timeoutMs: 1500 });
      assert.equal(dropped.error?.code, 'TIMEOUT');
      const next = await demo.wsRuntime.request(ws, list);
      assert.equal(next.success, true, 'at most once: the next request is answered');
      assert.equal((await activityOf(next.requestId, 'result')).length, 1, 'the app logged the answered one');
      assert.deepEqual(await activityOf(dropped.requestId), [], 'the app never saw the dropped one');
      assert.equal(resultsFor(demo.wsRuntime.events, dropped.requestId).length, 0);
    },
  },
  {
    transport: 'plain WebSocket',
    fault: "drop the client's answer (the runtime repeats)",
    rule: { direction: FROM_CLIENT, type: 'action:result', transport: WS, fault: "Drop the client's answer", maxCount: 1 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const first = await demo.wsRuntime.request(ws, { ...list, timeoutMs: 1500 });
      assert.equal(first.error?.code, 'TIMEOUT', 'the runtime got no answer');
      await until(async () => (await activityOf(first.requestId, 'result')).length === 1, 'the app answered', SLOW_MS, 20);
      assert.equal(resultsFor(demo.wsRuntime.events, first.requestId).length, 0, 'its answer never reached the runtime');
      // §7.3.7: the runtime repeats under the same id; the answer is older than the re-answer interval, so the client sends it again.
      const again = await demo.wsRuntime.request(ws, { ...list, requestId: first.requestId });
      assert.equal(again.success, true);
      assert.equal((await activityOf(first.requestId, 'repeat-answered')).length, 1, 'the app re-answered the repeat');
      assert.equal((await activityOf(first.requestId, 'result')).length, 1, 'and ran the action once');
    },
  },
  {
    transport: 'plain WebSocket',
    fault: 'delay',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: WS, fault: 'Delay', ms: 700, maxCount: 1 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const r = await demo.wsRuntime.request(ws, list);
      assert.equal(r.success, true);
      const sent = demo.wsRuntime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && (e.payload as { requestId?: string }).requestId === r.requestId)!;
      const got = demo.wsRuntime.events.find((e) => e.dir === 'in' && e.type === 'action:result' && (e.payload as { requestId?: string }).requestId === r.requestId)!;
      assert.ok(got.t - sent.t >= 700, `answered ${got.t - sent.t} ms after it was sent`);
    },
  },
  {
    transport: 'plain WebSocket',
    fault: 'duplicate',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: WS, fault: 'Duplicate', maxCount: 1 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const r = await demo.wsRuntime.request(ws, list);
      assert.equal(r.success, true);
      // The second copy reached the app: it logged it as a repeat it did not answer (its answer is young, §7.3.7).
      await until(async () => (await activityOf(r.requestId, 'repeat-ignored')).length === 1, 'the app saw the copy', SLOW_MS, 20);
      assert.equal((await activityOf(r.requestId, 'result')).length, 1, 'the action ran once');
      assert.equal(resultsFor(demo.wsRuntime.events, r.requestId).length, 1, 'the runtime got one answer');
    },
  },
  {
    transport: 'plain WebSocket',
    fault: 'reorder',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: WS, fault: 'Reorder (hold one until the next)', maxCount: 2 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      // Sent A then B, on one socket.
      const [a, b] = await Promise.all([demo.wsRuntime.request(ws, list), demo.wsRuntime.request(ws, list)]);
      assert.equal(a.success && b.success, true);
      const order = demo.wsRuntime.events.filter((e) => e.dir === 'in' && e.type === 'action:result').map((e) => (e.payload as { requestId: string }).requestId);
      assert.ok(order.indexOf(b.requestId) < order.indexOf(a.requestId), 'the runtime got B answered before A');
      const outOrder = demo.wsRuntime.events.filter((e) => e.dir === 'out' && e.type === 'action:request').map((e) => (e.payload as { requestId: string }).requestId);
      assert.ok(outOrder.indexOf(a.requestId) < outOrder.indexOf(b.requestId), 'though it sent A first');
    },
  },
  {
    transport: 'plain WebSocket',
    fault: 'stale knownSurfaces',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: WS, fault: 'Send stale knownSurfaces', maxCount: 1 },
    async prepare() {
      const ws = await demo.wsRuntime.waitForClient();
      await demo.wsRuntime.request(ws, list);
      const control = await demo.wsRuntime.request(ws, list);
      assert.equal(control.success, true);
      assert.equal(control.surfaces, undefined, 'unfaulted, the hash the runtime holds gets an answer without surfaces in full');
    },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const r = await demo.wsRuntime.request(ws, list);
      assert.equal(r.success, true);
      const sent = demo.wsRuntime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && (e.payload as { requestId?: string }).requestId === r.requestId)!.payload as { knownSurfaces?: string };
      assert.ok(sent.knownSurfaces, 'the runtime sent the hash it holds');
      // §7.3.4: a client whose surfaces differ from knownSurfaces sends them in full.
      assert.ok(Array.isArray(r.surfaces) && r.surfaces.some((s) => s.id === 'notifications'), 'the client sent its surfaces in full');
      assert.equal(r.surfacesHash, sent.knownSurfaces, 'though they are the ones the runtime holds: the client saw another hash');
    },
  },
  {
    transport: 'plain WebSocket',
    fault: 'disconnect (code and reason)',
    rule: { type: 'action:request', transport: WS, fault: 'Disconnect the transport', code: 4002, reason: 'closed by the matrix', maxCount: 1 },
    async run() {
      const ws = await demo.wsRuntime.waitForClient();
      const r = await demo.wsRuntime.request(ws, { ...list, timeoutMs: SLOW_MS });
      assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE', 'the runtime saw its client go');
      const close = demo.wsRuntime.events.find((e) => e.clientId === ws && e.type === 'x-disconnect')!;
      assert.deepEqual(close.payload, { code: 4002, reason: 'closed by the matrix' }, 'the close frame the server read');
      assert.deepEqual(await activityOf(r.requestId), [], 'the event that tripped it was dropped');
      await until(() => demo.wsRuntime.clients().some((c) => c !== ws), 'the client back on a new socket', SLOW_MS, 50);
    },
  },

  // ---------------------------------------------------------------- postMessage (the coupon widget)
  {
    transport: 'postMessage',
    fault: 'drop a request',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'postMessage', fault: 'Drop', maxCount: 1 },
    async run() {
      const dropped = pmId('drop');
      const next = pmId('next');
      await pmSend({ requestId: dropped, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await pmSend({ requestId: next, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(next);
      assert.deepEqual(await pmResults(dropped), [], 'the widget never answered the dropped request');
    },
  },
  {
    transport: 'postMessage',
    fault: "drop the client's answer (the runtime repeats)",
    rule: { direction: FROM_CLIENT, type: 'action:result', transport: 'postMessage', fault: "Drop the client's answer", maxCount: 1 },
    async run() {
      const first = pmId('answer');
      const next = pmId('next');
      await pmSend({ requestId: first, surfaceId: 'coupon-widget', actionId: 'remove_coupon', params: {} });
      await pmSend({ requestId: next, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(next);
      assert.deepEqual(await pmResults(first), [], 'the answer never reached the host page');
      // §7.3.7: the host repeats under the same id, once a second as a runtime's repeat timer would, until the widget
      // answers again (its re-answer interval is the default 8 s: the repeats before it are ignored).
      let repeats = 0;
      let last = 0;
      await until(
        async () => {
          if ((await pmResults(first)).length) return true;
          if (Date.now() - last >= 1000) {
            last = Date.now();
            repeats++;
            await pmSend({ requestId: first, surfaceId: 'coupon-widget', actionId: 'remove_coupon', params: {} });
          }
          return false;
        },
        'the widget re-answered a repeat',
        SLOW_MS,
        50,
      );
      assert.ok(repeats >= 1);
      const [res] = await pmResults(first);
      assert.equal(res!.payload.success, true);
    },
  },
  {
    transport: 'postMessage',
    fault: 'delay',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'postMessage', fault: 'Delay', ms: 700, maxCount: 1 },
    async run() {
      const id = pmId('delay');
      const t0 = await pmSend({ requestId: id, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(id);
      const [res] = await pmResults(id);
      assert.ok(res!.t - t0 >= 700, `answered ${res!.t - t0} ms after it was sent`);
    },
  },
  {
    transport: 'postMessage',
    fault: 'duplicate',
    rule: { direction: FROM_CLIENT, type: 'action:result', transport: 'postMessage', fault: 'Duplicate', maxCount: 1 },
    async run() {
      const id = pmId('dup');
      await pmSend({ requestId: id, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await until(async () => (await pmResults(id)).length === 2, 'the host page received the answer twice', SLOW_MS, 20);
      const next = pmId('next');
      await pmSend({ requestId: next, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(next);
      assert.equal((await pmResults(id)).length, 2, 'twice, not more');
      assert.equal((await pmResults(next)).length, 1, 'at most once: the next answer came once');
    },
  },
  {
    transport: 'postMessage',
    fault: 'reorder',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'postMessage', fault: 'Reorder (hold one until the next)', maxCount: 2 },
    async run() {
      const a = pmId('a');
      const b = pmId('b');
      await pmSend({ requestId: a, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await pmSend({ requestId: b, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(a);
      await untilPmAnswered(b);
      const [ra] = await pmResults(a);
      const [rb] = await pmResults(b);
      const order = await page.evaluate(() => (window as unknown as { __matrixPm: { seen: Seen[] } }).__matrixPm.seen.map((m) => m.payload?.requestId));
      assert.ok(order.indexOf(b) < order.indexOf(a), `B answered before A (${rb!.t} vs ${ra!.t})`);
    },
  },
  {
    transport: 'postMessage',
    fault: 'stale knownSurfaces',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'postMessage', fault: 'Send stale knownSurfaces', maxCount: 1 },
    async prepare() {
      // The hash to hold, learnt from the widget's own answer; then the control: that hash gets an answer without surfaces.
      const first = pmId('prime');
      await pmSend({ requestId: first, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await untilPmAnswered(first);
      pmHash = (await pmResults(first))[0]!.payload.surfacesHash as string;
      assert.match(pmHash, /^fnv1a64:/);
      const control = pmId('control');
      await pmSend({ requestId: control, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' }, knownSurfaces: pmHash });
      await untilPmAnswered(control);
      const [r] = await pmResults(control);
      assert.equal(r!.payload.surfacesHash, pmHash);
      assert.equal(r!.payload.surfaces, undefined, 'unfaulted, the right hash gets an answer without surfaces in full');
    },
    async run() {
      const id = pmId('stale');
      await pmSend({ requestId: id, surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' }, knownSurfaces: pmHash });
      await untilPmAnswered(id);
      const [r] = await pmResults(id);
      assert.equal(r!.payload.surfacesHash, pmHash, 'the same surfaces');
      assert.ok(Array.isArray(r!.payload.surfaces), 'the stale hash made the widget send its surfaces in full (§7.3.4)');
    },
  },

  // ---------------------------------------------------------------- direct calls (the in-page assistant and the help client)
  {
    transport: 'direct',
    fault: 'drop a request',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'direct calls', fault: 'Drop', maxCount: 1 },
    async run() {
      // The assistant waits 10 s for an answer.
      const dropped = await assistant('show_tip', {});
      assert.equal(dropped.error?.code, 'TIMEOUT');
      const next = await assistant('show_tip', {});
      assert.equal(next.success, true);
      assert.equal((await activityOf(next.requestId, 'result')).length, 1, 'the app logged the next one');
      assert.deepEqual(await activityOf(dropped.requestId), [], 'the app never saw the dropped one');
    },
  },
  {
    transport: 'direct',
    fault: "drop the client's answer",
    rule: { direction: FROM_CLIENT, type: 'action:result', transport: 'direct calls', fault: "Drop the client's answer", maxCount: 1 },
    async run() {
      const r = await assistant('show_tip', {});
      assert.equal(r.error?.code, 'TIMEOUT', 'the assistant got no answer');
      assert.equal((await activityOf(r.requestId, 'result')).length, 1, 'though the app answered');
      const next = await assistant('show_tip', {});
      assert.equal(next.success, true, 'the next answer reaches it');
    },
  },
  {
    transport: 'direct',
    fault: 'delay',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'direct calls', fault: 'Delay', ms: 600, maxCount: 1 },
    async run() {
      const t0 = Date.now();
      const r = await assistant('show_tip', {});
      assert.equal(r.success, true);
      assert.ok(Date.now() - t0 >= 600, `answered after ${Date.now() - t0} ms`);
      const [logged] = await activityOf(r.requestId, 'result');
      assert.ok(logged, 'the app answered it');
    },
  },
  {
    transport: 'direct',
    fault: 'duplicate',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'direct calls', fault: 'Duplicate', maxCount: 1 },
    async run() {
      const r = await assistant('show_tip', {});
      assert.equal(r.success, true);
      await until(async () => (await activityOf(r.requestId, 'repeat-ignored')).length === 1, 'the app saw the copy', SLOW_MS, 20);
      assert.equal((await activityOf(r.requestId, 'result')).length, 1, 'the action ran once');
    },
  },
  {
    transport: 'direct',
    fault: 'reorder',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'direct calls', fault: 'Reorder (hold one until the next)', maxCount: 2 },
    async run() {
      // A then B, dispatched in this order in one task.
      const [a, b] = await page.evaluate(() => {
        const d = (window as unknown as { __demo: { assistant(a: string, p: unknown): Promise<OUIActionResult> } }).__demo;
        return Promise.all([d.assistant('show_tip', { topic: 'cart' }), d.assistant('show_tip', { topic: 'orders' })]);
      });
      assert.equal(a!.success && b!.success, true);
      // The activity log is newest first.
      const log = (await activity()).filter((e) => e.kind === 'result').map((e) => e.requestId);
      assert.ok(log.indexOf(b!.requestId) > log.indexOf(a!.requestId), 'the app answered B before A');
      // A (the cart tip) ran last, so its tip is the one the page shows.
      const tip = (await page.evaluate(() => (window as unknown as { __demo: { state(): { tip: string } } }).__demo.state())).tip;
      assert.match(tip, /cart line/);
    },
  },
  {
    transport: 'direct',
    fault: 'stale knownSurfaces',
    rule: { direction: TO_CLIENT, type: 'action:request', transport: 'direct calls', fault: 'Send stale knownSurfaces', maxCount: 1 },
    async prepare() {
      await assistant('show_tip', {});
      const control = await assistant('show_tip', {});
      assert.equal(control.success, true);
      assert.equal(control.surfaces, undefined, "unfaulted, the assistant's hash gets an answer without surfaces in full");
      directHash = control.surfacesHash;
    },
    async run() {
      const stale = await assistant('show_tip', {});
      assert.equal(stale.success, true);
      assert.equal(stale.surfacesHash, directHash, 'the same surfaces');
      assert.ok(Array.isArray(stale.surfaces) && stale.surfaces.some((s) => s.id === 'help'), 'the stale hash made the client send its surfaces in full (§7.3.4)');
    },
  },
  {
    transport: 'direct',
    fault: 'refuse a result (§7.3.6)',
    rule: { transport: 'direct calls', fault: 'Refuse the result', error: 'refused by the matrix', maxCount: 1 },
    async run() {
      const r = await assistant('open_article', { articleId: 'returns' });
      assert.equal(r.success, true);
      assert.equal((r.delivery as { trimmed?: unknown } | undefined)?.trimmed, true, 'the assistant got the re-sent result, trimmed');
      assert.equal((await activityOf(r.requestId, 'trimmed')).length, 1, 'the app logged its trimmed re-send');
    },
  },
  {
    transport: 'direct',
    fault: 'withhold acknowledgments (of results)',
    rule: { direction: TO_CLIENT, type: 'ack', transport: 'direct calls', fault: 'Withhold acknowledgments', maxCount: 1 },
    async run() {
      const id = await directCall();
      await untilDirect(id, 'result');
      const next = await directCall();
      await untilDirect(next, 'ack');
      assert.ok(!(await directLog(id)).some((e) => e.kind === 'ack'), 'the client never got the acknowledgment the runtime gave');
    },
  },
  {
    transport: 'direct',
    fault: 'delay acknowledgments (of results)',
    rule: { direction: TO_CLIENT, type: 'ack', transport: 'direct calls', fault: 'Delay acknowledgments', ms: 800, maxCount: 1 },
    async run() {
      const id = await directCall();
      await untilDirect(id, 'ack');
      const log = await directLog(id);
      const result = log.find((e) => e.kind === 'result')!;
      const ack = log.find((e) => e.kind === 'ack')!;
      assert.ok(ack.t - result.t >= 800, `acknowledged ${ack.t - result.t} ms after the runtime gave it`);
    },
  },
  {
    transport: 'direct',
    fault: 'withhold receipts',
    rule: { direction: FROM_CLIENT, type: 'ack', transport: 'direct calls', fault: 'Withhold acknowledgments', maxCount: 1 },
    async run() {
      const id = await directCall();
      await untilDirect(id, 'result');
      const next = await directCall();
      await untilDirect(next, 'receipt');
      assert.ok(!(await directLog(id)).some((e) => e.kind === 'receipt'), 'the runtime never got the receipt the client gave');
    },
  },
];

describe('faults matrix: each fault on plain WebSocket, postMessage and direct calls', () => {
  before(async () => {
    demo = await startDemoServer();
    browser = await launch({ viewport: { width: 1400, height: 900 }, rows: 'events' });
    page = await browser.context.newPage();
    await page.goto(`${demo.url}?transport=websocket&reanswerMs=${REANSWER_MS}`);
    await demo.runtime.waitForClient();
    await demo.wsRuntime.waitForClient();
    await page.waitForFunction(() => (window as unknown as { __demo: { state(): { clients: { frame: { surfaces: string[] }; direct: { runtimeSurfaces: string[] } } } } }).__demo.state().clients.frame.surfaces.length > 0, null, { timeout: SLOW_MS });
    await page.evaluate(PM_HOST);
    await page.evaluate(DIRECT_PAIR);
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    await panel.locator('.vlist [role=row][data-type="surface:register"]').first().waitFor({ timeout: SLOW_MS });
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  for (const c of CASES) {
    test(`${c.transport} × ${c.fault}`, async () => {
      await c.prepare?.();
      await addRule(panel, c.rule, FRAMES);
      try {
        await c.run();
      } finally {
        await clearRules(panel, FRAMES);
      }
    });
  }
});
