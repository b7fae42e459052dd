/**
 * The usability review's ten tasks, again, in the live demo (issue 20, "Done
 * when"): the panel as a page on the demo app's tab, driven only by visible
 * labels and roles, every click and key press counted
 * (test/support/actions.ts), each task held to its target
 * (test/support/review-tasks.ts). Task 2 by mouse is counted in
 * timeline-exchanges.test.ts, task 9 (task 2 by keyboard) in
 * keyboard.test.ts. Each task starts where the review started: the Timeline
 * with default filters. What each task must show is judged from the demo's
 * own record (its runtime's log, the app's state, an independent argsHash)
 * or from the session file itself, not from the panel's code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ActionCounter } from '../support/actions.ts';
import { REVIEW_TASKS } from '../support/review-tasks.ts';
import { composerReady, openDemoPanel, tourTraffic, type DemoPanel } from '../support/demo-panel.ts';
import { contrastScript, type ContrastReport } from '../support/contrast.ts';
import { SLOW_MS, until } from '../support/wait.ts';
import { argsHashSync } from '../demo/independent/args-hash-node.ts';
import type { DemoState } from '../support/demo-page.ts';

let d: DemoPanel;
let panel: Page;
let client: string;
/** What each task took, for the log and docs/panel.md. */
const measured: string[] = [];

type Payload = Record<string, unknown> & { requestId?: string; surfaceId?: string; success?: boolean; interim?: boolean; approval?: { approvalId?: string; argsHash?: string }; params?: unknown };

/** The runtime's own record of its requests and their final failures: the oracle for the failed filter. */
function runtimeFailures(): Array<{ requestId: string; surfaceId: string }> {
  const requests = new Map<string, Payload>();
  const failed = new Map<string, string>();
  for (const e of d.demo.runtime.events) {
    const p = (e.payload ?? {}) as Payload;
    if (e.type === 'action:request' && p.requestId) requests.set(p.requestId, p);
    if (e.type === 'action:result' && p.requestId && p.interim !== true) {
      if (p.success === false) failed.set(p.requestId, requests.get(p.requestId)?.surfaceId ?? '?');
      else failed.delete(p.requestId);
    }
  }
  return [...failed].map(([requestId, surfaceId]) => ({ requestId, surfaceId }));
}

/** The Timeline with default filters, nothing selected: where the review started each task (not counted). */
async function startTask(n: keyof typeof REVIEW_TASKS): Promise<ActionCounter> {
  await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
  const clear = panel.getByRole('button', { name: 'Clear filters' });
  if (await clear.isEnabled()) await clear.click();
  const close = panel.getByRole('button', { name: 'Close detail' });
  if (await close.count()) await close.click();
  await panel.getByRole('row').nth(1).waitFor({ timeout: SLOW_MS });
  console.log(`# task ${n}: ${REVIEW_TASKS[n].task}`);
  return new ActionCounter(panel);
}

/** Holds a task to its target, and notes what it took. */
function done(n: keyof typeof REVIEW_TASKS, actions: ActionCounter): void {
  const { target, review } = REVIEW_TASKS[n];
  measured.push(`task ${n}: ${actions} (target ${target}; the review: ${review})`);
  console.log(`# task ${n}: ${actions}`);
  assert.ok(actions.actions <= target, `task ${n} took ${actions}; target ${target}`);
}

const rows = () => panel.getByRole('grid').getByRole('row');
const demoState = () => d.page.evaluate(() => (window as unknown as { __demo: { state(): DemoState & { cart: Array<{ productId: string; quantity: number }> } } }).__demo.state());

describe("the usability review's tasks, counted", () => {
  before(async () => {
    d = await openDemoPanel({ viewport: { width: 1280, height: 800 } });
    panel = d.panel;
    client = await tourTraffic(d, { refused: 1 });
    // A failure on the catalog (task 8), and a search last, its row the newest (task 4).
    const invalid = await d.demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 99 } });
    assert.equal(invalid.success, false, 'quantity 99 is refused by the client');
    const search = await d.demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug', category: 'all', sort: 'price_asc' } });
    assert.equal(search.success, true);
    await composerReady(d);
    // The composer as a first-time user finds it: no client picked by hand.
    await panel.getByRole('combobox', { name: 'Inject into client' }).selectOption('');
    await panel.bringToFront();
    await panel.getByRole('tab', { name: 'Timeline', exact: true }).click();
    await panel.getByRole('grid').getByRole('row').filter({ hasText: 'catalog › search' }).first().waitFor({ timeout: SLOW_MS });
  });

  after(async () => {
    console.log(`# review tasks:\n${measured.map((m) => `#   ${m}`).join('\n')}`);
    await d?.close();
  });

  test('task 1, what the agent can do now: every mounted surface in the index, and a surface with its actions and alternatives in view, in 2 actions', async () => {
    const actions = await startTask(1);
    await actions.click(panel.getByRole('tab', { name: 'Surfaces' }), 'Surfaces');
    const index = panel.getByRole('navigation', { name: 'Surfaces index' });
    // The app's own list of what it has mounted, per client.
    const state = await demoState();
    for (const id of [...state.clients.socket.surfaces, ...state.clients.ws.surfaces]) await index.getByRole('link', { name: id, exact: true }).first().waitFor({ timeout: SLOW_MS });
    assert.match((await index.innerText()).trim(), /^socket\.io/m, 'the main app client first');
    // One surface, by its link: its section in view and focused, its actions and their alternatives shown as they are.
    await actions.click(index.getByRole('link', { name: 'notifications', exact: true }), 'notifications in the index');
    const section = panel.locator('article:focus');
    await until(async () => (await section.count()) === 1, 'the section focused', SLOW_MS, 20);
    const text = await section.innerText();
    assert.match(text, /mark_read/, 'its actions');
    assert.match(text, /exactly one of 2 alternatives[\s\S]*all\*\s*= true/, 'the oneOf alternatives of mark_read.target, listed');
    assert.ok(await section.isVisible());
    done(1, actions);
  });

  test('task 5, an approved action: did its argsHash match? One action', async () => {
    const actions = await startTask(5);
    await actions.click(panel.getByRole('tab', { name: 'Approvals' }), 'Approvals');
    // The runtime's approved order, and its argsHash recomputed by independent code.
    const approved = d.demo.runtime.events
      .map((e) => (e.type === 'action:request' ? (e.payload as Payload) : null))
      .find((p) => p?.approval?.approvalId);
    assert.ok(approved?.approval?.approvalId, 'the tour sent an order with an approval');
    const expected = argsHashSync(approved.params);
    assert.equal(approved.approval.argsHash, expected, 'the runtime hashed the params it sent');
    const row = panel.getByRole('row').filter({ has: panel.getByTitle(approved.approval.approvalId, { exact: true }) });
    await row.waitFor({ timeout: SLOW_MS });
    assert.match(await row.innerText(), /argsHash matches params/);
    assert.equal(await row.getByTitle(expected, { exact: true }).count(), 2, 'the carried and the recomputed hash, each whole in its title');
    done(5, actions);
  });

  test("task 6, how an observation's value changed: its last changes as sentences, in 2 actions", async () => {
    const actions = await startTask(6);
    await actions.click(panel.getByRole('tab', { name: 'Observations' }), 'Observations');
    await actions.click(panel.getByRole('navigation', { name: 'Observations index' }).getByRole('link', { name: 'cart › items', exact: true }), 'cart › items');
    const section = panel.locator('article:focus');
    await until(async () => (await section.count()) === 1, 'the observation focused', SLOW_MS, 20);
    // The runtime's own record of the cart's items: every update the client sent, the newest last.
    const updates = d.demo.runtime.events
      .filter((e) => e.type === 'observation:update')
      .map((e) => e.payload as { surfaceId?: string; observationId?: string; value?: unknown })
      .filter((p) => p.surfaceId === 'cart' && p.observationId === 'items')
      .map((p) => p.value as Array<{ productId: string }>);
    assert.ok(updates.length >= 2, `the tour changed the cart (${updates.length} updates)`);
    const entries = (await section.getByRole('listitem').allInnerTexts()).filter((t) => /^\d\d:\d\d:\d\d\.\d{3} update/.test(t));
    assert.equal(entries.length, Math.min(5, updates.length), `its last changes, newest first: ${entries.join(' | ')}`);
    // The newest change, as sentences: what left the cart is "removed", what came in "added".
    const [now, was] = [updates.at(-1)!, updates.at(-2)!];
    const ids = (v: Array<{ productId: string }>) => new Set(v.map((l) => l.productId));
    for (const id of ids(was)) if (!ids(now).has(id)) assert.match(entries[0]!, new RegExp(`removed /\\d+ \\(was \\{"productId":"${id}"`), `${id} removed`);
    for (const id of ids(now)) if (!ids(was).has(id)) assert.match(entries[0]!, new RegExp(`added /\\d+ = \\{"productId":"${id}"`), `${id} added`);
    done(6, actions);
  });

  test('task 8, failed only, then one surface: one row per failed exchange, then the catalog\'s, the filters marked on', async () => {
    const actions = await startTask(8);
    const failures = runtimeFailures();
    assert.ok(failures.length >= 2, `the runtime saw failures: ${JSON.stringify(failures)}`);
    await actions.choose(panel.getByRole('combobox', { name: 'Status', exact: true }), 'failed', 'Status = failed');
    const requestIds = async () =>
      (await rows().evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.exchange ?? `not an exchange: ${(e as HTMLElement).dataset.type}`)))
        .filter((x) => x !== 'not an exchange: undefined')
        .map((x) => x.split(' ').at(-1))
        .sort();
    const want = failures.map((f) => f.requestId).sort();
    await until(async () => JSON.stringify(await requestIds()) === JSON.stringify(want), 'one row per failed exchange', SLOW_MS, 50).catch(async (e) => {
      throw new Error(`${(e as Error).message}: rows ${JSON.stringify(await requestIds())}, the runtime's failures ${JSON.stringify(want)}`);
    });
    // One surface, in the filter's grammar: "su", its completion `surface:` taken with Tab, then the name's start.
    const filter = panel.getByRole('combobox', { name: 'Free-text filter', exact: true });
    await actions.type(filter, 'su', 'the filter');
    await panel.getByRole('listbox', { name: 'Filter completions' }).getByRole('option', { name: /^surface:/ }).first().waitFor({ timeout: SLOW_MS });
    await actions.press('Tab');
    assert.equal(await filter.inputValue(), 'surface:', 'the completion taken');
    await actions.typeHere('catal', 'the filter');
    const catalog = failures.filter((f) => f.surfaceId === 'catalog').map((f) => f.requestId);
    assert.ok(catalog.length >= 1);
    await until(async () => JSON.stringify(await requestIds()) === JSON.stringify(catalog.sort()), "the catalog's failed exchanges", SLOW_MS, 50);
    assert.equal(await panel.getByRole('combobox', { name: 'Status', exact: true }).getAttribute('data-active'), 'true', 'Status marked on');
    assert.equal(await filter.getAttribute('data-active'), 'true', 'the filter box marked on');
    assert.ok(await panel.getByRole('button', { name: 'Clear filters' }).isEnabled(), 'one Clear filters');
    done(8, actions);
  });

  test('task 3, inject add_to_cart with an invalid quantity: the error beside the field, and the client\'s VALIDATION_ERROR', async () => {
    const actions = await startTask(3);
    await actions.click(panel.getByRole('tab', { name: 'Inject' }), 'Inject');
    await actions.choose(panel.getByRole('combobox', { name: 'Surface', exact: true }), 'catalog', 'Surface = catalog');
    // Only one client has the catalog: no client to pick.
    assert.match(await panel.getByTestId('chosen-client').innerText(), /^Client socket\.io:/);
    await actions.choose(panel.getByRole('combobox', { name: 'Action', exact: true }), 'add_to_cart', 'Action = add_to_cart');
    const quantity = panel.getByLabel('quantity', { exact: true });
    await actions.type(quantity, '99', 'quantity');
    assert.equal(await quantity.getAttribute('aria-invalid'), 'true', 'the field marked invalid');
    const send = panel.getByRole('button', { name: /^Send anyway \(.*invalid params/ });
    await actions.click(send, 'Send anyway (invalid params)');
    const answer = panel.getByTestId('inject-history').getByRole('row').nth(1);
    await until(async () => /VALIDATION_ERROR/.test(await answer.innerText()), "the client's answer in the experiments", SLOW_MS, 50).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${await answer.innerText()}`);
    });
    assert.match(await answer.innerText(), /quantity/);
    done(3, actions);
  });

  test('task 4, replay a captured request: its answer beside Replay and its new row selected, in 2 actions', async () => {
    const actions = await startTask(4);
    const row = rows().filter({ hasText: 'catalog › search' }).last();
    assert.ok(await row.isVisible(), 'the newest search is on screen (the list follows the newest row)');
    await actions.click(row, 'the newest catalog › search');
    const before = await panel.getByRole('row', { selected: true }).getAttribute('data-id');
    const sent = d.demo.runtime.events.length;
    await actions.click(panel.getByRole('button', { name: 'Replay', exact: true }), 'Replay');
    const answer = panel.getByTestId('replay-answer');
    await until(async () => /^Replayed as [0-9a-f]{8} · success/.test(await answer.innerText()), 'the answer beside Replay', SLOW_MS, 50).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${await answer.innerText()}`);
    });
    const replayedAs = /^Replayed as ([0-9a-f]{8})/.exec(await answer.innerText())![1]!;
    // The new request's row is the selected one, and the page's client really answered it.
    await until(async () => (await panel.getByRole('row', { selected: true }).getAttribute('data-id')) !== before, 'the new row selected', SLOW_MS, 50);
    assert.match(await panel.getByTestId('request-summary').innerText(), /catalog › search[\s\S]*succeeded/);
    assert.match(await panel.getByTestId('event-detail').innerText(), new RegExp(replayedAs));
    assert.equal(d.demo.runtime.events.length, sent, "the replay's answer kept from the app's real runtime");
    done(4, actions);
  });

  test('task 7, export, then import into a fresh panel: the same events, findings and approvals, in 3 actions', async () => {
    // What the live panel shows, to compare with the imported session (read before the task starts).
    const approvalRows = async (p: Page) => {
      await p.getByRole('tab', { name: 'Approvals' }).click();
      await p.getByRole('columnheader', { name: 'approvalId' }).first().waitFor({ timeout: SLOW_MS });
      return (await p.getByRole('row').allInnerTexts()).filter((t) => /argsHash|approval carried/.test(t)).length;
    };
    const liveApprovals = await approvalRows(panel);
    const actions = await startTask(7);
    const total = (await panel.getByTestId('event-count').innerText()).split('/')[1]!.trim();
    const downloaded = panel.waitForEvent('download');
    await actions.click(panel.getByRole('button', { name: 'Export', exact: true }), 'Export');
    // The redaction preview (docs/redaction.md): one more click.
    await actions.click(panel.getByTestId('export-redacted'), 'Export redacted');
    const path = await (await downloaded).path();
    const file = JSON.parse(readFileSync(path, 'utf8')) as { events: unknown[] };
    assert.equal(String(file.events.length), total.split(' ')[0], 'the file holds every event of the session');
    const liveFindings = await panel.getByRole('tab', { name: /^Findings/ }).innerText();
    // A fresh panel, with no tab.
    const fresh = await d.browser.context.newPage();
    try {
      await fresh.goto(`chrome-extension://${d.browser.extensionId}/panel.html`);
      const counter = new ActionCounter(fresh);
      await counter.pickFile(fresh.getByRole('button', { name: 'open a session file' }), { name: 'session.json', mimeType: 'application/json', buffer: readFileSync(path) }, 'open a session file');
      actions.actions += counter.actions;
      actions.steps += counter.steps;
      actions.log.push(...counter.log);
      const notice = fresh.getByRole('status').filter({ hasText: /Imported/ });
      await notice.waitFor({ timeout: SLOW_MS });
      assert.match(await notice.innerText(), new RegExp(`Imported ${file.events.length} events`));
      assert.equal((await fresh.getByTestId('event-count').innerText()).split('/')[1]!.trim(), total, 'the Timeline holds them all');
      assert.equal(await fresh.getByRole('tab', { name: /^Findings/ }).innerText(), liveFindings, 'the same findings badge');
      assert.equal(await approvalRows(fresh), liveApprovals, 'the same Approvals rows');
    } finally {
      await fresh.close();
    }
    done(7, actions);
  });

  test('task 10, dark theme and legibility: text at 11 px or more, every text of Surfaces and the Timeline at AA, light and dark, with no action', async () => {
    const actions = await startTask(10);
    try {
      for (const scheme of ['light', 'dark'] as const) {
        // The system's (or DevTools') theme: no action in the panel.
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
        const size = await panel.locator('body').evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
        assert.ok(size >= 11, `${scheme}: body text ${size}px`);
        for (const view of ['Timeline', 'Surfaces']) {
          await panel.getByRole('tab', { name: view, exact: true }).click();
          await panel.getByRole('tab', { name: view, exact: true, selected: true }).waitFor();
          const r = (await panel.evaluate(contrastScript(4.5))) as ContrastReport;
          assert.ok(r.measured > 20, `${scheme} ${view}: ${r.measured} texts measured`);
          assert.deepEqual(
            r.misses.map((m) => `"${m.text}" ${m.ratio}:1`),
            [],
            `${scheme} ${view}: texts under AA`,
          );
        }
      }
    } finally {
      await panel.emulateMedia({ colorScheme: null });
    }
    done(10, actions);
  });
});
