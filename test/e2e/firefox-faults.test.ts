/**
 * Fault rules and the stand-in runtime's takeover in real Firefox (dist/firefox,
 * puppeteer over WebDriver BiDi, test/support/firefox.ts), one launch and one
 * demo page for the file. The rules are set in the panel's Faults view (the
 * panel opened as an extension page for the tab) by its labels, and the
 * takeover in its Runtime view; each is judged by what the real runtimes on
 * the server saw (`runtime.events` of the Socket.IO runtime, `wsRuntime.events`
 * of the plain WebSocket one, and what their requests resolved to) and by the
 * app's own state, not by the panel's view. Transports: Socket.IO on
 * WebSocket (every fault that applies, and the takeover), postMessage, direct
 * calls, plain WebSocket, and last, the page loaded again, Socket.IO kept on
 * long-polling over XMLHttpRequest and over fetch.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'puppeteer-core';
import { choose, clickButton, fill, firefoxTabId, launchFirefox, openFirefoxPanel, waitIn, type Firefox } from '../support/firefox.ts';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { resultsFor } from './faults-steps.ts';
import type { OUIActionResult } from '../../src/protocol/index.ts';

/** The §7.3.7 re-answer interval the page's clients run with here (`?reanswerMs`). */
const REANSWER_MS = 300;
/** How long the page's approval grants last (its `?grantTtlMs`): short, so a grant used past its time is quick to test. */
const GRANT_TTL_MS = 5000;
/** The page's frames that run a hook: the app and its coupon widget. */
const FRAMES = 2;

interface Rule {
  direction?: 'to-client' | 'from-client';
  type?: string;
  surface?: string;
  action?: string;
  transport?: 'websocket' | 'socket.io' | 'postmessage' | 'direct';
  /** The fault's id in the picker (panel/views/faults.tsx). */
  fault: string;
  ms?: number;
  error?: string;
  code?: number;
  reason?: string;
  maxCount?: number;
}

let demo: DemoServer;
let ff: Firefox;
let page: Page;
let panel: Page;
/** The shop's Socket.IO client, as the runtime knows it (a new one after a reconnection). */
let client: string;

const requestIdOf = (p: unknown) => (p && typeof p === 'object' ? (p as { requestId?: unknown }).requestId : undefined);
const search = (query: string, timeoutMs?: number) => demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query }, ...(timeoutMs ? { timeoutMs } : {}) });
const cartCount = () => page.$eval('#cart-count', (e) => Number(e.textContent));
const activity = () => page.evaluate(() => (window as unknown as { __demo: { activity(): Array<{ requestId: string; kind: string; note?: string }> } }).__demo.activity());

async function tab(id: 'faults' | 'runtime' | 'timeline'): Promise<void> {
  await waitIn(panel, `the ${id} tab`, (t) => {
    const b = document.getElementById(`tab-${t}`);
    b?.click();
    return !!b;
  }, id, SLOW_MS);
}

async function appliedIn(frames: number): Promise<void> {
  await waitIn(panel, `the rules applied in ${frames} frames`, (n) => Number(document.querySelector('[data-testid=faults-applied]')?.getAttribute('data-frames') ?? 0) >= n, frames, SLOW_MS);
}

/** Adds a rule in the Faults view, every field set (the form keeps the last rule's), and waits until the page's hooks have the set. */
async function addRule(r: Rule): Promise<string> {
  await tab('faults');
  const before = await panel.$$eval('table[aria-label=Rules] tbody tr', (rows) => rows.length);
  await choose(panel, 'Direction', r.direction ?? '');
  await choose(panel, 'Event type', r.type ?? '');
  await choose(panel, 'Surface', r.surface ?? '', SLOW_MS);
  await choose(panel, 'Action', r.action ?? '');
  await choose(panel, 'Transport', r.transport ?? '');
  await choose(panel, 'Fault', r.fault);
  const field = async (label: string, value: string | number | undefined) => {
    if (value === undefined) return;
    await waitIn(panel, `the field ${label}`, (l) => !!document.querySelector(`input[aria-label="${l}"]`), label);
    await fill(panel, `input[aria-label="${label}"]`, String(value));
  };
  await field(r.fault === 'approval:expire' ? 'Late by (ms)' : 'Delay (ms)', r.ms);
  await field('Error', r.error);
  await field('Close code', r.code);
  await field('Close reason', r.reason);
  await field('Probability', 1);
  await field('At most (times)', r.maxCount ?? '');
  await clickButton(panel, 'Add rule');
  const id = await waitIn(panel, 'the new rule listed', (n) => document.querySelectorAll('table[aria-label=Rules] tbody tr')[n]?.getAttribute('data-rule'), before);
  await appliedIn(FRAMES);
  return id;
}

/** Clears every rule by the banner's own button; waits until the hooks have the empty set. */
async function clearRules(): Promise<void> {
  await tab('faults');
  await waitIn(panel, "the banner's Clear", () => {
    const b = [...document.querySelectorAll('[data-testid=faults-banner] button')].find((x) => x.textContent?.trim() === 'Clear') as HTMLButtonElement | undefined;
    b?.click();
    return !!b;
  }, null);
  await waitIn(panel, 'the banner gone', () => !document.querySelector('[data-testid=faults-banner]'), null);
  await appliedIn(FRAMES);
}

/** Takes the runtime's seat on the client of that kind in the Runtime view; waits until the page's hooks have it. */
async function takeOver(kind: string): Promise<void> {
  await tab('runtime');
  await clickButton(panel, `Take over ${kind}:`, { prefix: true, timeout: SLOW_MS });
  await waitIn(panel, 'the stand-in banner', (k) => document.querySelector('[data-testid=stand-in-banner]')?.textContent?.includes(`Stand-in runtime: the app's runtime is held back from ${k}`), kind);
  // The banner is the panel's word; the page's hooks have the takeover once they answered its set (the Faults view counts them).
  await tab('faults');
  await appliedIn(FRAMES);
}

/** Gives the seat back; waits until the page's hooks have the set without the takeover. */
async function giveBack(kind: string): Promise<void> {
  await tab('runtime');
  await clickButton(panel, `Give back ${kind}:`, { prefix: true });
  await waitIn(panel, 'the stand-in banner gone', () => !document.querySelector('[data-testid=stand-in-banner]'), null);
  await tab('faults');
  await appliedIn(FRAMES);
}

/** Sends a request as the stand-in from the Runtime view's composer; returns its requestId once it is answered with success. */
async function standInSend(surfaceId: string, actionId: string, params: unknown): Promise<string> {
  await tab('runtime');
  const before = await panel.$$eval('[data-testid=stand-in-calls] tbody tr', (rows) => rows.map((r) => r.getAttribute('data-request-id') ?? ''));
  await waitIn(panel, `${surfaceId} offered`, (id) => [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Surface"] option')].some((o) => o.value === id && o.dataset.mounted === 'true'), surfaceId, SLOW_MS);
  await choose(panel, 'Surface', surfaceId);
  await choose(panel, 'Action', actionId);
  await waitIn(panel, 'the params box', () => !!document.querySelector('textarea[aria-label="Params JSON"]'), null);
  await fill(panel, 'textarea[aria-label="Params JSON"]', JSON.stringify(params));
  await clickButton(panel, 'Send as stand-in');
  return waitIn(
    panel,
    "the stand-in's answer",
    (old) => {
      const row = [...document.querySelectorAll('[data-testid=stand-in-calls] tbody tr')].find((r) => !old.includes(r.getAttribute('data-request-id') ?? ''));
      return row && /^success/.test(row.querySelector('[data-testid=stand-in-answer]')?.textContent ?? '') ? row.getAttribute('data-request-id') : null;
    },
    before,
    SLOW_MS,
  );
}

/** The newest request the Socket.IO runtime sent with this query. */
async function sentRequest(query: string): Promise<string> {
  let id: string | undefined;
  await until(
    () => {
      id = requestIdOf([...demo.runtime.events].reverse().find((e) => e.dir === 'out' && e.type === 'action:request' && (e.payload as { params?: { query?: string } }).params?.query === query)?.payload) as string | undefined;
      return !!id;
    },
    `the request "${query}" sent`,
    SLOW_MS,
    10,
  );
  return id!;
}

describe('fault rules and the stand-in takeover in Firefox', () => {
  before(async () => {
    demo = await startDemoServer();
    ff = await launchFirefox();
    page = await ff.browser.newPage();
    await page.goto(`${demo.url}?transport=websocket&reanswerMs=${REANSWER_MS}&grantTtlMs=${GRANT_TTL_MS}`);
    client = await demo.runtime.waitForClient(SLOW_MS);
    await demo.wsRuntime.waitForClient(SLOW_MS);
    panel = await openFirefoxPanel(ff, await firefoxTabId(ff, page), { rows: 'events' });
    // The panel has the capture: the Faults view offers the surfaces it learnt.
    await tab('faults');
    await waitIn(panel, 'the surfaces in the Faults view', () => [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Surface"] option')].some((o) => o.value === 'notifications') && [...document.querySelectorAll<HTMLOptionElement>('select[aria-label="Surface"] option')].some((o) => o.value === 'catalog'), null, SLOW_MS);
  });

  after(async () => {
    await ff?.close();
    await demo?.close();
  });

  describe('Socket.IO (the shop, on WebSocket)', () => {
    test('refuse a result: the runtime gets only the re-send, trimmed and naming the refusal (§7.3.6)', async () => {
      const error = 'refused by a Firefox rule';
      const rule = await addRule({ direction: 'from-client', surface: 'catalog', action: 'search', fault: 'refuse-result', error, maxCount: 1 });
      const r = await search('mug');
      assert.equal(r.success, true);
      const reached = resultsFor(demo.runtime.events, r.requestId);
      assert.equal(reached.length, 1, 'the refused result never reached the runtime');
      const delivery = reached[0]!.delivery as { trimmed?: unknown; reason?: unknown; omitted?: unknown } | undefined;
      assert.equal(delivery?.trimmed, true, 'the re-sent result says it was trimmed');
      assert.equal(delivery?.reason, error, 'and why: the refusal the app was acknowledged');
      assert.ok(Array.isArray(delivery?.omitted) && delivery.omitted.length > 0, 'it names what it left out');
      assert.equal(reached[0]!.surfaces, undefined);
      // The app's own log: it re-sent the result trimmed.
      assert.ok((await activity()).some((a) => a.requestId === r.requestId && a.kind === 'trimmed'), 'the app logged the trimmed re-send');
      // The panel marks the refused result (Firefox's Timeline, filtered to the request).
      await tab('timeline');
      await fill(panel, 'input[aria-label="Free-text filter"]', r.requestId);
      await waitIn(panel, 'the refused result marked', (id) => [...document.querySelectorAll(`.vlist [role=row][data-faulted="${id}"]`)].some((row) => /faulted by you: refused/.test(row.textContent ?? '')), rule, SLOW_MS);
      await fill(panel, 'input[aria-label="Free-text filter"]', '');
      await clearRules();
    });

    test("drop the client's answer: nothing reaches the runtime until it repeats; the repeat is answered (§7.3.7)", async () => {
      await addRule({ direction: 'from-client', surface: 'catalog', action: 'search', fault: 'drop-answer', maxCount: 1 });
      const pending = search('kettle', SLOW_MS);
      const requestId = await sentRequest('kettle');
      // The app answered (its own log), the runtime got nothing.
      await until(async () => (await activity()).some((a) => a.requestId === requestId && a.kind === 'result'), 'the app answered', SLOW_MS, 50);
      assert.equal(resultsFor(demo.runtime.events, requestId).length, 0, 'the answer did not reach the runtime');
      await until(
        async () => {
          await demo.runtime.repeat(client, requestId);
          return resultsFor(demo.runtime.events, requestId).length === 1;
        },
        'a repeat answered',
        SLOW_MS,
        REANSWER_MS / 2,
      );
      const r = await pending;
      assert.equal(r.success, true, 'the repeat was answered');
      await clearRules();
    });

    test('delay a request: the answer comes no sooner than the delay', async () => {
      await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', fault: 'delay', ms: 800, maxCount: 1 });
      const t0 = Date.now();
      const r = await search('delayed');
      const took = Date.now() - t0;
      assert.equal(r.success, true);
      assert.ok(took >= 800, `answered after ${took} ms`);
      await clearRules();
    });

    test('duplicate a request: the app runs it once (§7.3.7) and the runtime gets one answer', async () => {
      const cart = await cartCount();
      await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', action: 'add_to_cart', fault: 'duplicate', maxCount: 1 });
      const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 } });
      assert.equal(r.success, true);
      // The copy reached the app: its client logged the repeat it did not run again.
      await until(async () => (await activity()).some((a) => a.requestId === r.requestId && /^repeat-/.test(a.kind)), 'the copy seen by the app as a repeat', SLOW_MS, 50);
      // A later exchange as the positive witness, then the counts.
      assert.equal((await search('after duplicate')).success, true);
      assert.equal(await cartCount(), cart + 1, 'run once');
      assert.equal(resultsFor(demo.runtime.events, r.requestId).length, 1, 'answered once');
      await clearRules();
    });

    test('reorder: the first request is held until the next one, whose answer reaches the runtime first', async () => {
      await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', action: 'search', fault: 'reorder', maxCount: 2 });
      const first = search('first');
      await sentRequest('first');
      const second = search('second');
      const [a, b] = await Promise.all([first, second]);
      assert.equal(a.success && b.success, true);
      const order = demo.runtime.events.filter((e) => e.type === 'action:result' && [a.requestId, b.requestId].includes(requestIdOf(e.payload) as string)).map((e) => requestIdOf(e.payload));
      assert.deepEqual(order, [b.requestId, a.requestId]);
      await clearRules();
    });

    test("withhold the runtime's acknowledgments: the runtime acknowledged, the app never heard, so it answers a repeat again (§7.3.7)", async () => {
      await addRule({ direction: 'to-client', surface: 'catalog', action: 'search', fault: 'withhold-ack', maxCount: 1 });
      const r = await search('unacked');
      assert.equal(r.success, true);
      await until(() => demo.runtime.events.some((e) => e.type === 'ack' && requestIdOf(e.payload) === r.requestId), 'the runtime acknowledged', SLOW_MS, 10);
      await until(
        async () => {
          await demo.runtime.repeat(client, r.requestId);
          return resultsFor(demo.runtime.events, r.requestId).length === 2;
        },
        'the repeat answered again',
        SLOW_MS,
        REANSWER_MS / 2,
      );
      const [one, two] = resultsFor(demo.runtime.events, r.requestId);
      assert.equal(two!.success, one!.success);
      await clearRules();
    });

    test('stale knownSurfaces: the app sends its surfaces with the result (§7.3.4), though the runtime sent its real hash', async () => {
      await addRule({ surface: 'catalog', action: 'search', fault: 'stale-known-surfaces', maxCount: 1 });
      const r = await search('stale');
      assert.equal(r.success, true);
      assert.ok(Array.isArray(r.surfaces) && r.surfaces.length > 0, 'surfaces sent, as the hash differs from the stale one');
      const sent = demo.runtime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      assert.match(String((sent.payload as { knownSurfaces?: string }).knownSurfaces), /^fnv1a64:(?!0{16})/, 'the runtime itself sent its real hash');
      await clearRules();
    });

    test("an approval's argsHash altered: refused ACTION_DENIED; reused: the second use refused (grants are single-use)", async () => {
      const params = { reason: 'start_over' };
      const ask = async () => {
        const granted = demo.runtime.askApproval(client, 'cart', 'clear_cart', params, { timeoutMs: SLOW_MS });
        // The user approves in the page's own dialog.
        await waitIn(page, "the page's approval dialog", () => {
          const b = document.querySelector<HTMLButtonElement>('#approve-btn');
          b?.click();
          return !!b;
        }, null, SLOW_MS);
        return granted;
      };
      await addRule({ surface: 'cart', action: 'clear_cart', fault: 'approval:args-hash', maxCount: 1 });
      const altered = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval: await ask() });
      assert.equal(altered.success, false);
      assert.equal(altered.error?.code, 'ACTION_DENIED');
      await clearRules();

      await addRule({ surface: 'cart', action: 'clear_cart', fault: 'approval:reuse', maxCount: 1 });
      const t0 = Date.now();
      const ok = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval: await ask() });
      assert.equal(ok.success, true, 'the first use runs');
      // The copy under another request id: its answer reaches the runtime as one it never asked for.
      await until(
        () => demo.runtime.events.some((e) => e.type === 'action:result' && requestIdOf(e.payload) !== ok.requestId && (e.payload as { error?: { code?: string } }).error?.code === 'ACTION_DENIED' && e.t >= t0),
        'the reused approval refused',
        SLOW_MS,
        20,
      ).catch((e: Error) => {
        const seen = demo.runtime.events.filter((x) => x.t >= t0).map((x) => `${x.dir} ${x.type} ${JSON.stringify(x.payload).slice(0, 160)}`);
        throw new Error(`${e.message}; the runtime saw since:\n${seen.join('\n')}`);
      });
      await clearRules();
    });

    test("delay the client's receipts: the runtime gets the receipt no sooner than the delay, and the result on time", async () => {
      await addRule({ direction: 'from-client', type: 'ack', surface: 'catalog', action: 'search', fault: 'delay-ack', ms: 800, maxCount: 1 });
      const r = await search('late receipt');
      assert.equal(r.success, true);
      const logged = (dir: 'in' | 'out', type: string) => demo.runtime.events.find((e) => e.dir === dir && e.type === type && requestIdOf(e.payload) === r.requestId);
      await until(() => logged('in', 'receipt') !== undefined, 'the receipt reached the runtime', SLOW_MS, 20);
      // On the runtime's clock: its request going out, the receipt and the result coming in.
      const sent = logged('out', 'action:request')!;
      const receipt = logged('in', 'receipt')!;
      const result = logged('in', 'action:result')!;
      assert.ok(receipt.t - sent.t >= 800, `the receipt came ${receipt.t - sent.t} ms after the request`);
      assert.ok(result.t < receipt.t, 'the result was not held back with the receipt');
      await clearRules();
    });

    test("expire the approval: delivered past the grant's expiresAt, refused ACTION_DENIED and not run", async () => {
      // Something in the cart, so that clearing it would show.
      assert.equal((await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-classic', quantity: 1 } })).success, true);
      await until(async () => (await cartCount()) > 0, 'the cart filled', SLOW_MS, 50);
      const cart = await cartCount();
      await addRule({ surface: 'cart', action: 'clear_cart', fault: 'approval:expire', ms: GRANT_TTL_MS + 1000, maxCount: 1 });
      const params = { reason: 'start_over' };
      const granted = demo.runtime.askApproval(client, 'cart', 'clear_cart', params, { timeoutMs: SLOW_MS });
      await waitIn(page, "the page's approval dialog", () => {
        const b = document.querySelector<HTMLButtonElement>('#approve-btn');
        b?.click();
        return !!b;
      }, null, SLOW_MS);
      const approval = await granted;
      const grant = demo.runtime.events.find((e) => e.dir === 'in' && e.type === 'x-approval:granted' && (e.payload as { approvalId?: string }).approvalId === approval.approvalId)!.payload as { expiresAt: number };
      const r = await demo.runtime.request(client, { surfaceId: 'cart', actionId: 'clear_cart', params, approval, timeoutMs: SLOW_MS });
      const sent = demo.runtime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === r.requestId)!;
      const answered = demo.runtime.events.find((e) => e.dir === 'in' && e.type === 'action:result' && requestIdOf(e.payload) === r.requestId)!;
      assert.ok(sent.t < grant.expiresAt, 'the runtime sent it while the grant was good');
      assert.ok(answered.t > grant.expiresAt, 'answered past the grant');
      assert.equal(r.success, false);
      assert.equal(r.error?.code, 'ACTION_DENIED');
      assert.equal(await cartCount(), cart, 'the cart was not cleared');
      await clearRules();
    });

    test("takeover: the real runtime's requests are held back, the stand-in's request is answered; given back, the runtime is answered again", async () => {
      await takeOver('socket.io');
      // The real runtime's own request no longer reaches the page: it times out.
      const held = await search('held back', 2000);
      assert.equal(held.error?.code, 'TIMEOUT', "the app's runtime got no answer while the stand-in holds its seat");
      assert.ok(!(await activity()).some((a) => a.requestId === held.requestId), 'the app never saw that request');

      const requestId = await standInSend('catalog', 'search', { query: 'stand-in mug' });
      // The app ran it (its own log); the real runtime neither sent it nor got its answer.
      assert.ok((await activity()).some((a) => a.requestId === requestId && a.kind === 'result'), 'the page answered the stand-in request');
      assert.equal(demo.runtime.events.some((e) => requestIdOf(e.payload) === requestId), false, "the app's runtime never saw the stand-in's exchange");

      await giveBack('socket.io');
      const back = await search('given back', SLOW_MS);
      assert.equal(back.success, true, `given back: the runtime is answered (${JSON.stringify(back.error)})`);
    });

    test('disconnect: the socket closes, the runtime sees it and fails the request SURFACE_UNAVAILABLE (§7.6.1); the client comes back', async () => {
      await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', action: 'search', fault: 'disconnect', code: 4001, reason: 'closed by a Firefox rule', maxCount: 1 });
      const r = await search('disconnect', SLOW_MS);
      assert.equal(r.success, false);
      assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE');
      assert.ok(demo.runtime.events.some((e) => e.clientId === client && e.type === 'x-disconnect'), 'the runtime saw the client go');
      // The close frame the server read carries the rule's code and reason.
      await until(() => demo.runtime.events.some((e) => e.clientId === client && e.type === 'x-ws-close'), 'the close frame read', SLOW_MS, 20);
      assert.deepEqual(demo.runtime.events.find((e) => e.clientId === client && e.type === 'x-ws-close')?.payload, { code: 4001, reason: 'closed by a Firefox rule' });
      await clearRules();
      await until(() => demo.runtime.clients().some((c) => c !== client), 'a new connection', SLOW_MS, 50);
      client = await demo.runtime.waitForClient(SLOW_MS);
      assert.equal((await search('reconnected', SLOW_MS)).success, true, 'the new connection is answered');
    });
  });

  describe('postMessage (the coupon widget in its iframe; the page is its runtime)', () => {
    const host = (actionId: string, params: Record<string, unknown>) =>
      page.evaluate((a, p) => (window as unknown as { __demo: { hostFrame(a: string, p: unknown): Promise<OUIActionResult> } }).__demo.hostFrame(a, p), actionId, params);

    test('delay and duplicate: a request answered no sooner than the delay; a copied request answered once', async () => {
      await addRule({ direction: 'to-client', type: 'action:request', transport: 'postmessage', fault: 'delay', ms: 700, maxCount: 1 });
      const t0 = Date.now();
      assert.equal((await host('apply_coupon', { code: 'SAVE10' })).success, true);
      assert.ok(Date.now() - t0 >= 700, `answered after ${Date.now() - t0} ms`);
      await clearRules();

      const rule = await addRule({ direction: 'to-client', type: 'action:request', transport: 'postmessage', fault: 'duplicate', maxCount: 1 });
      // The host page's own count of the answers it received, per request.
      await page.evaluate(`window.__hostResults = []; addEventListener('message', (e) => { if (e.data && e.data.type === 'action:result') window.__hostResults.push(e.data.payload.requestId); });`);
      const d = await host('remove_coupon', {});
      assert.equal(d.success, true);
      // A later exchange as the positive witness, then the count.
      assert.equal((await host('apply_coupon', { code: 'SAVE10' })).success, true);
      const seen = (await page.evaluate('window.__hostResults')) as string[];
      assert.ok(seen.length >= 2, `the host heard both answers (${seen.length})`);
      assert.equal(seen.filter((id) => id === d.requestId).length, 1, 'answered once');
      // That both copies went to the widget, the capture says (the widget keeps no log of repeats): two rows, each marked.
      await tab('timeline');
      await fill(panel, 'input[aria-label="Free-text filter"]', d.requestId);
      await waitIn(panel, 'both copies in the Timeline', (id) => document.querySelectorAll(`.vlist [role=row][data-type="action:request"][data-faulted="${id}"]`).length === 2, rule, SLOW_MS);
      await fill(panel, 'input[aria-label="Free-text filter"]', '');
      await clearRules();
    });
  });

  describe('direct calls (the help assistant in the page)', () => {
    test('refuse a result: the assistant gets the re-send, trimmed and naming the refusal (§7.3.6)', async () => {
      const error = 'refused over direct in Firefox';
      await addRule({ transport: 'direct', fault: 'refuse-result', error, maxCount: 1 });
      const r = await page.evaluate((a, p) => (window as unknown as { __demo: { assistant(a: string, p: unknown): Promise<OUIActionResult> } }).__demo.assistant(a, p), 'open_article', { articleId: 'returns' });
      assert.equal(r.success, true);
      const delivery = r.delivery as { trimmed?: unknown; reason?: unknown } | undefined;
      assert.equal(delivery?.trimmed, true, 'the re-sent result says it was trimmed');
      assert.equal(delivery?.reason, error);
      await clearRules();
    });
  });

  describe('plain WebSocket (the notifications client, /ws-json)', () => {
    const list = (ws: string, timeoutMs?: number) => demo.wsRuntime.request(ws, { surfaceId: 'notifications', actionId: 'list', params: {}, ...(timeoutMs ? { timeoutMs } : {}) });

    test('drop a request: never answered (the runtime times out); the next one is', async () => {
      const ws = await demo.wsRuntime.waitForClient();
      await addRule({ direction: 'to-client', type: 'action:request', transport: 'websocket', fault: 'drop', maxCount: 1 });
      const dropped = await list(ws, 1500);
      assert.equal(dropped.error?.code, 'TIMEOUT', 'the runtime never got an answer');
      assert.equal((await list(ws)).success, true, 'at most once: the next request passes');
      assert.ok(!(await activity()).some((a) => a.requestId === dropped.requestId), 'the app never saw the dropped request');
      await clearRules();
    });

    test("drop the client's answer: the runtime gets nothing until it sends the request again, then the answer (§7.3.7)", async () => {
      const ws = await demo.wsRuntime.waitForClient();
      await addRule({ direction: 'from-client', transport: 'websocket', surface: 'notifications', action: 'list', fault: 'drop-answer', maxCount: 1 });
      const first = await list(ws, 1500);
      assert.equal(first.error?.code, 'TIMEOUT', 'the runtime got no answer');
      assert.ok((await activity()).some((a) => a.requestId === first.requestId && a.kind === 'result'), 'the app answered it');
      assert.equal(resultsFor(demo.wsRuntime.events, first.requestId).length, 0);
      // The same request again (same requestId), as a runtime repeats one; answered once the re-answer interval passed.
      const request = demo.wsRuntime.events.find((e) => e.dir === 'out' && e.type === 'action:request' && requestIdOf(e.payload) === first.requestId)!.payload;
      await until(
        () => {
          demo.wsRuntime.send(ws, 'action:request', request);
          return new Promise<boolean>((res) => setTimeout(() => res(resultsFor(demo.wsRuntime.events, first.requestId).length === 1), REANSWER_MS));
        },
        'the repeat answered',
        SLOW_MS,
        10,
      );
      await clearRules();
    });

    test('delay and duplicate: a request answered no sooner than the delay; a copied request answered once', async () => {
      const ws = await demo.wsRuntime.waitForClient();
      await addRule({ direction: 'to-client', type: 'action:request', transport: 'websocket', fault: 'delay', ms: 700, maxCount: 1 });
      const t0 = Date.now();
      assert.equal((await list(ws)).success, true);
      assert.ok(Date.now() - t0 >= 700, `answered after ${Date.now() - t0} ms`);
      await clearRules();

      await addRule({ direction: 'to-client', type: 'action:request', transport: 'websocket', fault: 'duplicate', maxCount: 1 });
      const once = await list(ws);
      assert.equal(once.success, true);
      await until(async () => (await activity()).some((a) => a.requestId === once.requestId && /^repeat-/.test(a.kind)), 'the copy seen by the app as a repeat', SLOW_MS, 50);
      assert.equal((await list(ws)).success, true, 'a later exchange');
      assert.equal(resultsFor(demo.wsRuntime.events, once.requestId).length, 1, 'answered once');
      await clearRules();
    });

    test("takeover: the ws-json runtime's request held back, the stand-in's answered; given back, the runtime is answered again", async () => {
      const ws = await demo.wsRuntime.waitForClient();
      await takeOver('websocket');
      const held = await list(ws, 2000);
      assert.equal(held.error?.code, 'TIMEOUT', "the app's runtime got no answer while the stand-in holds its seat");
      assert.ok(!(await activity()).some((a) => a.requestId === held.requestId), 'the app never saw that request');
      const requestId = await standInSend('notifications', 'list', {});
      assert.ok((await activity()).some((a) => a.requestId === requestId && a.kind === 'result'), 'the page answered the stand-in request');
      assert.equal(demo.wsRuntime.events.some((e) => requestIdOf(e.payload) === requestId), false, "the app's runtime never saw the stand-in's exchange");
      await giveBack('websocket');
      assert.equal((await list(ws, SLOW_MS)).success, true, 'given back: the runtime is answered');
    });

    test('disconnect: the server reads the close code and reason the rule gave; the client connects again', async () => {
      const ws = await demo.wsRuntime.waitForClient();
      await addRule({ direction: 'to-client', type: 'action:request', transport: 'websocket', fault: 'disconnect', code: 4002, reason: 'ws closed by a Firefox rule', maxCount: 1 });
      const r = await list(ws, SLOW_MS);
      assert.equal(r.success, false);
      assert.equal(r.error?.code, 'SURFACE_UNAVAILABLE');
      const closed = demo.wsRuntime.events.find((e) => e.clientId === ws && e.type === 'x-disconnect');
      assert.deepEqual(closed?.payload, { code: 4002, reason: 'ws closed by a Firefox rule' });
      await clearRules();
      await until(() => demo.wsRuntime.clients().some((c) => c !== ws), 'the client back on a new socket', SLOW_MS, 50);
      const again = await demo.wsRuntime.waitForClient(SLOW_MS);
      assert.equal((await list(again, SLOW_MS)).success, true, 'the new socket is answered');
    });
  });
  /** Last: the page is loaded again with its Socket.IO client kept on long-polling (`?transport=…`, never upgraded). */
  for (const transport of ['polling', 'fetch-polling'] as const) {
    describe(`Socket.IO on long-polling (${transport === 'polling' ? 'XMLHttpRequest' : 'fetch'})`, () => {
      before(async () => {
        const old = new Set(demo.runtime.clients());
        await page.goto(`${demo.url}?transport=${transport}&reanswerMs=${REANSWER_MS}`);
        await until(() => demo.runtime.clients().some((c) => !old.has(c)), 'the polling client connected', SLOW_MS, 50);
        client = await demo.runtime.waitForClient(SLOW_MS);
        assert.ok(!old.has(client), "the new document's client");
        const engine = await page.evaluate(() => (window as unknown as { __demo: { state(): { clients: { socket: { transport: string } } } } }).__demo.state().clients.socket.transport);
        assert.equal(engine, 'polling', 'the client polls');
        const x = demo.runtime.events.find((e) => e.clientId === client && e.type === 'x-connect');
        assert.deepEqual(x?.payload, { transport: 'polling' }, 'and the server says so');
      });

      test('refuse a result: the runtime gets only the re-send, trimmed and naming the refusal (§7.3.6)', async () => {
        const error = `refused over ${transport} in Firefox`;
        await addRule({ direction: 'from-client', surface: 'catalog', action: 'search', fault: 'refuse-result', error, maxCount: 1 });
        const r = await search(`mug ${transport}`, SLOW_MS);
        assert.equal(r.success, true);
        const reached = resultsFor(demo.runtime.events, r.requestId);
        assert.equal(reached.length, 1, 'the refused result never reached the runtime');
        const delivery = reached[0]!.delivery as { trimmed?: unknown; reason?: unknown } | undefined;
        assert.equal(delivery?.trimmed, true);
        assert.equal(delivery?.reason, error);
        await clearRules();
      });

      test('delay and duplicate a request: answered no sooner than the delay; a copy run once and answered once', async () => {
        await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', action: 'search', fault: 'delay', ms: 800, maxCount: 1 });
        const t0 = Date.now();
        assert.equal((await search(`delayed ${transport}`, SLOW_MS)).success, true);
        assert.ok(Date.now() - t0 >= 800, `answered after ${Date.now() - t0} ms`);
        await clearRules();

        const cart = await cartCount();
        await addRule({ direction: 'to-client', type: 'action:request', surface: 'catalog', action: 'add_to_cart', fault: 'duplicate', maxCount: 1 });
        const r = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 }, timeoutMs: SLOW_MS });
        assert.equal(r.success, true);
        await until(async () => (await activity()).some((a) => a.requestId === r.requestId && /^repeat-/.test(a.kind)), 'the copy seen by the app as a repeat', SLOW_MS, 50);
        assert.equal((await search(`after duplicate ${transport}`, SLOW_MS)).success, true);
        assert.equal(await cartCount(), cart + 1, 'run once');
        assert.equal(resultsFor(demo.runtime.events, r.requestId).length, 1, 'answered once');
        await clearRules();
      });
    });
  }
});
