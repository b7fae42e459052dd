/**
 * Issue 18, item 5, in real Chromium: a page on 127.0.0.1 receives a
 * WebSocket frame whose params nest 100,000 levels deep and answers with a
 * result whose data nests as deep (V8's JSON.parse reads such a frame;
 * JSON.stringify cannot write it back). The panel shows both and the events
 * after them; its Export writes a session file and its HAR button a HAR that
 * hold the deep values whole, and the built CLI lints both.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launch, openAppAndPanel, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { surfacesHash } from '../../src/protocol/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
const D = 100_000;
const DEEP = '['.repeat(D) + ']'.repeat(D);
const REQUEST_ID = '00000000-0000-4000-8000-0000000000d1';
const SURFACE = {
  id: 'tree-view',
  name: 'Tree',
  description: 'A tree of any depth',
  actions: [{ id: 'grow', description: 'Grow the tree', effect: 'view', input: { type: 'object', properties: { tree: { type: 'array' } } }, output: { type: 'array' } }],
  observations: [{ id: 'size', description: 'How many nodes', schema: { type: 'integer' } }],
};
const HASH = surfacesHash([SURFACE]);
/** The frame the page receives: an action:request whose params nest 100,000 levels deep. */
const REQUEST = `{"type":"action:request","payload":{"requestId":"${REQUEST_ID}","surfaceId":"tree-view","actionId":"grow","params":{"tree":${DEEP}},"knownSurfaces":"${HASH}","timestamp":1767225600000}}`;

/** Deep equality of JSON values with an explicit stack (the values are 100,000 levels deep). */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/** The page: registers, answers the deep request with data as deep (built as text: JSON.stringify could not), then sends one more update. */
function page(): string {
  return `<!doctype html><title>waiting</title><script>
    const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
    ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: ${JSON.stringify(SURFACE)}, timestamp: Date.now() } }));
    ws.onmessage = (m) => {
      const request = JSON.parse(m.data);
      if (request.type !== 'action:request') return;
      let depth = 0;
      for (let v = request.payload.params.tree; Array.isArray(v) && v.length; v = v[0]) depth++;
      const data = '['.repeat(depth + 1) + ']'.repeat(depth + 1);
      ws.send('{"type":"action:result","payload":{"requestId":"' + request.payload.requestId + '","success":true,"data":' + data + ',"surfacesHash":"${HASH}","timestamp":' + Date.now() + '}}');
      ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'tree-view', observationId: 'size', value: depth + 1, timestamp: Date.now() } }));
      document.title = 'answered';
    };
  </script>`;
}

async function download(panel: Page, button: string, to: string): Promise<string> {
  // Export and HAR open the redaction preview first (docs/redaction.md): its Export redacted downloads.
  await panel.getByRole('button', { name: button, exact: true }).click();
  const [d] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('export-redacted').click()]);
  await d.saveAs(to);
  return readFileSync(to, 'utf8');
}

interface Ev {
  kind: string;
  type?: string;
  payload?: unknown;
}

describe('a 100,000-deep WebSocket frame in real Chromium: panel, Export, HAR, lint', () => {
  let server: FixtureServer;
  let b: Browser;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oui-deep-e2e-'));
    server = await startFixtureServer({ '/': page() });
    server.onConnection((ws) => ws.once('message', () => ws.send(REQUEST)));
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the panel shows the deep events and those after them; Export and HAR hold the values whole; lint reads both', async () => {
    const { panel, errors } = await openAppAndPanel(b, server.url, 'answered', 5);
    const frames = server.frames.map((f) => f.data);
    const result = frames.find((f) => f.startsWith('{"type":"action:result"'))!;
    assert.ok(result && result.length > 2 * D, 'the page answered with the deep data');

    // The panel: every row, the later update included; the deep rows open without an error.
    await panel.waitForSelector('.vlist [role=row][data-type="observation:update"]');
    for (const type of ['action:request', 'action:result']) {
      const row = panel.locator(`.vlist [role=row][data-type="${type}"]`);
      assert.equal(await row.count(), 1, type);
      await row.click();
      await panel.waitForSelector('[data-testid=event-detail]');
      assert.match(await panel.locator('[data-testid=event-detail]').innerText(), new RegExp(type));
    }
    await panel.click('#tab-findings');
    await panel.click('#tab-timeline');
    assert.deepEqual(errors, []);

    // Export: the session file holds both deep payloads as the wire carried them.
    const sessionText = await download(panel, 'Export', join(dir, 'deep-session.json'));
    assert.ok(sessionText.includes(`"params":{"tree":${DEEP}}`), 'the request params are in the session file');
    assert.ok(sessionText.includes(`"data":${DEEP}`), 'the result data is in the session file');
    const session = JSON.parse(sessionText) as { events: Ev[] };
    const byType = (list: Ev[], type: string) => list.filter((e) => e.kind === 'event' && e.type === type);
    const sent = new Map(frames.map((f) => JSON.parse(f) as { type: string; payload: unknown }).map((m) => [m.type, m.payload]));
    for (const type of ['action:request', 'action:result', 'observation:update']) {
      const [ev] = byType(session.events, type);
      assert.ok(ev && sameJson(ev.payload, sent.get(type)), `${type} read back whole from the session file`);
    }

    // HAR: the WebSocket entry carries each frame's text as the wire did.
    const harText = await download(panel, 'HAR', join(dir, 'deep.har'));
    const har = JSON.parse(harText) as { log: { entries: Array<{ _webSocketMessages?: Array<{ type: string; data: string }> }> } };
    const messages = har.log.entries.flatMap((e) => e._webSocketMessages ?? []).map((m) => m.data);
    assert.ok(messages.includes(REQUEST), 'the deep request is in the HAR');
    assert.ok(messages.includes(result), 'the deep result is in the HAR');

    // The built CLI reads both files: no unusable input, the deep values judged as far as they can be.
    const r = spawnSync(process.execPath, [CLI, 'lint', '--no-config', '--format', 'json', join(dir, 'deep-session.json'), join(dir, 'deep.har')], { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.notEqual(r.status, 2, r.stderr);
    const linted = JSON.parse(r.stdout) as { files: Array<{ kind: string; events: number; findings: Array<{ rule: string; severity: string; message: string }> }> };
    assert.deepEqual(linted.files.map((f) => f.kind), ['session', 'har']);
    for (const f of linted.files) {
      assert.equal(f.events, session.events.length, f.kind);
      assert.deepEqual(f.findings.filter((x) => x.severity === 'error' || x.severity === 'critical'), [], f.kind);
      assert.ok(f.findings.some((x) => /nested more than 256 levels deep: checked to that depth only/.test(x.message)), f.kind);
    }
  });
});
