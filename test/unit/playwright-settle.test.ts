/**
 * The fixture's settling is a flush handshake (src/playwright/capture.ts):
 * each frame is asked through its bridge, and is flushed only once its own
 * marker, for that request, came through the binding. Here with fake frames,
 * for the outcomes a real browser gives only by chance: a frame detached or
 * closed mid-flush, one that keeps navigating, one that navigates once, a
 * marker forged by another frame or for an id never asked, and a marker that
 * says items are missing. (test/playwright/flush.spec.ts runs the real thing.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Frame, Page } from '@playwright/test';
import { OuiCapture } from '../../src/playwright/capture.ts';
import { OUI_FLUSH_EVENT_PLACEHOLDER } from '../../src/playwright/binding.ts';

type Answer = (id: string, frame: FakeFrame) => Promise<unknown>;

interface FakeFrame {
  url(): string;
  isDetached(): boolean;
  page(): FakePage;
  parentFrame(): FakeFrame | null;
  evaluate(expression: string): Promise<unknown>;
  detached: boolean;
  asked: string[];
}
interface FakePage {
  closed: boolean;
  isClosed(): boolean;
  frames(): FakeFrame[];
  mainFrame(): FakeFrame;
  list: FakeFrame[];
}

function fakePage(answers: Answer[]): FakePage {
  const page: FakePage = { closed: false, isClosed: () => page.closed, frames: () => page.list, mainFrame: () => page.list[0]!, list: [] };
  answers.forEach((answer, i) => {
    const frame: FakeFrame = {
      detached: false,
      asked: [],
      url: () => `http://app.test/${i}`,
      isDetached: () => frame.detached,
      page: () => page,
      parentFrame: () => (i === 0 ? null : page.list[0]!),
      evaluate(expression: string) {
        // The expression names the secret event type and the request's id; the fake reads the id back.
        const id = /id: "([^"]+)"/.exec(expression)![1]!;
        frame.asked.push(id);
        return answer(id, frame);
      },
    };
    page.list.push(frame);
  });
  return page;
}

async function attach(pages: FakePage[]): Promise<{ capture: OuiCapture; script: string; send: (page: FakePage, frame: FakeFrame, m: unknown) => void }> {
  let script = '';
  let binding: ((source: { page: unknown; frame: unknown }, text: unknown) => void) | null = null;
  const context = {
    pages: () => pages,
    exposeBinding: async (_name: string, fn: typeof binding) => void (binding = fn),
    addInitScript: async ({ content }: { content: string }) => void (script = content),
  } as unknown as BrowserContext;
  const capture = await OuiCapture.attach(context, `(() => { const FLUSH = '${OUI_FLUSH_EVENT_PLACEHOLDER}'; })()`);
  return { capture, script, send: (page, frame, m) => binding!({ page: page as unknown as Page, frame: frame as unknown as Frame }, JSON.stringify(m)) };
}

const items = (hook: string, client: string, seqs: number[]) => ({
  type: 'items',
  hook,
  clients: [{ id: client, kind: 'websocket', url: 'ws://app.test/ws', origin: 'http://app.test', frameUrl: 'http://app.test/' }],
  items: seqs.map((seq) => ({ hook, client, seq, t: 1000 + seq, kind: 'frame', dir: 'out', payload: { text: '{"type":"app:tick"}' } })),
});
const marker = (hook: string, id: string, through: Record<string, number>, waiting = 0) => ({ type: 'flushed', hook, id, through, waiting });

test('the init script gets a secret flush event type of its own, fresh per context; an old build without the handshake is refused', async () => {
  const a = await attach([]);
  const b = await attach([]);
  assert.ok(!a.script.includes(OUI_FLUSH_EVENT_PLACEHOLDER));
  const type = /FLUSH = '([^']+)'/.exec(a.script)![1]!;
  assert.match(type, /^oui-flush-[0-9a-f]{32}$/);
  assert.notEqual(type, /FLUSH = '([^']+)'/.exec(b.script)![1]);
  const context = { exposeBinding: async () => {}, addInitScript: async () => {} } as unknown as BrowserContext;
  await assert.rejects(OuiCapture.attach(context, '(() => {})()'), /no flush handshake/);
});

test('every frame answers by its own marker; the others are counted with why', async () => {
  let env!: Awaited<ReturnType<typeof attach>>;
  let navigations = 0;
  const page = fakePage([
    // Flushed: its items, then its marker, then the bridge's answer.
    async (id, f) => {
      env.send(page, f, items('h0', 'c1', [1, 2, 3]));
      env.send(page, f, marker('h0', id, { c1: 3 }));
      return 'flushed';
    },
    // No hook in it.
    async () => 'no-hook',
    // Detached mid-flush.
    async (_id, f) => {
      f.detached = true;
      throw new Error('Frame was detached');
    },
    // Navigates once mid-flush; its new document answers.
    async (id, f) => {
      if (navigations++ === 0) throw new Error('Execution context was destroyed, most likely because of a navigation');
      env.send(page, f, marker('h3', id, {}));
      return 'flushed';
    },
    // Keeps navigating: asked a bounded number of times, then reported.
    async () => {
      throw new Error('Execution context was destroyed, most likely because of a navigation');
    },
    // Its marker could not go through the binding.
    async () => 'lost',
    // Another frame forges a marker for this request, and this frame one for an id never asked: neither counts.
    async (id) => {
      env.send(page, page.list[0]!, marker('h0', id, {}));
      env.send(page, page.list[6]!, marker('h6', 'never-asked', {}));
      return 'flushed';
    },
  ]);
  env = await attach([page]);
  const report = await env.capture.settle();
  assert.equal(report.frames, 7);
  assert.equal(report.flushed, 2);
  assert.equal(report.noHook, 1);
  assert.equal(report.navigated, 1);
  assert.deepEqual(report.unflushed, [
    { url: 'http://app.test/2', reason: 'detached' },
    { url: 'http://app.test/4', reason: 'navigated' },
    { url: 'http://app.test/5', reason: 'lost' },
    { url: 'http://app.test/6', reason: 'no-marker' },
  ]);
  assert.equal(page.list[4]!.asked.length, 3, 'a frame that keeps navigating is asked three times, no more');
  assert.equal(new Set(page.list.flatMap((f) => f.asked)).size, page.list.reduce((n, f) => n + f.asked.length, 0), 'a fresh id per request');
  assert.equal(report.behind, 0);
  assert.equal(env.capture.snapshot().events.length, 3, 'the three items, and nothing of the markers');
});

test('a marker that says the hook numbered more than arrived is counted as behind; a closed page is not asked', async () => {
  let env!: Awaited<ReturnType<typeof attach>>;
  const page = fakePage([
    async (id, f) => {
      env.send(page, f, items('h0', 'c1', [1, 2]));
      env.send(page, f, marker('h0', id, { c1: 5, c2: 1 }, 2));
      return 'flushed';
    },
  ]);
  const closed = fakePage([async () => assert.fail('a closed page is not asked')]);
  closed.closed = true;
  env = await attach([page, closed]);
  const report = await env.capture.settle();
  assert.deepEqual(report, { frames: 1, flushed: 1, noHook: 0, navigated: 0, unflushed: [], waiting: 2, behind: 4 });
  assert.deepEqual(env.capture.lastSettle, report);
});

test('a page closing mid-flush ends its frames\' wait', async () => {
  const page = fakePage([
    async (_id, f) => {
      f.page().closed = true;
      throw new Error('Target page, context or browser has been closed');
    },
  ]);
  const { capture } = await attach([page]);
  const report = await capture.settle();
  assert.deepEqual(report.unflushed, [{ url: 'http://app.test/0', reason: 'closed' }]);
});
