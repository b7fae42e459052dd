/**
 * oui-devtools/playwright in a real @playwright/test run: the sample suite in
 * test/playwright (the demo shop; the demo shop with deliberately wrong
 * clients, `?broken=surface-id,result-id`; and a small page that breaks the
 * protocol on purpose) runs once as a child process, as an app's CI would run
 * its own tests, with the specs that must fail allowed to fail. Then its
 * outcome, the failure texts and the attached oui-session.json files are checked.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JSONReport, JSONReportSuite, JSONReportTest } from '@playwright/test/reporter';
import { parseSessionFile, type SessionFile } from '../../src/session/wire/session-file.ts';
import { ModelFeed } from '../../src/session/model/merge.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = 'test/playwright/playwright.config.ts';
const FAILING = 'a client that breaks the protocol fails toHaveNoFindings';
const DEMO = 'the demo shop: every transport captured, in the page and a popup, no findings';
const FINDINGS = 'findings carry rule, section and party';
const BROKEN_DEMO = 'the demo with a deliberately wrong client fails toHaveNoFindings';
const FLUSH = 'items sent right before the verdict are in it: main frame, cross-origin iframe, bursts over one batch';
const NO_HOOK = 'a frame no hook runs in is counted, not waited for';
const RESTLESS = 'frames that navigate or go away mid-flush neither hang the settling nor go unreported';
const QUERY = 'oui.events({ filter }) returns the events that match the query';

interface Run {
  code: number | null;
  output: string;
  report: JSONReport;
  ms: number;
}

const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

function allTests(suites: JSONReportSuite[] | undefined): Array<{ title: string; test: JSONReportTest }> {
  const out: Array<{ title: string; test: JSONReportTest }> = [];
  for (const s of suites ?? []) {
    for (const spec of s.specs) for (const t of spec.tests) out.push({ title: spec.title, test: t });
    out.push(...allTests(s.suites));
  }
  return out;
}

let work: string;
let run: Run;

function testOf(title: string): JSONReportTest {
  const found = allTests(run.report.suites).find((t) => t.title === title);
  assert.ok(found, `the run has the test "${title}"; it has: ${allTests(run.report.suites).map((t) => t.title).join(', ')}`);
  return found.test;
}

function sessionOf(title: string): SessionFile {
  const result = testOf(title).results.at(-1)!;
  const attachment = result.attachments.find((a) => a.name === 'oui-session.json');
  assert.ok(attachment, `"${title}" has oui-session.json attached: ${JSON.stringify(result.attachments.map((a) => a.name))}`);
  assert.equal(attachment.contentType, 'application/json');
  // The JSON report carries a body attachment inline (base64), a file one by its path.
  const text = attachment.path ? readFileSync(attachment.path, 'utf8') : Buffer.from(attachment.body ?? '', 'base64').toString('utf8');
  const parsed = parseSessionFile(text);
  assert.ok(parsed.ok, `the attachment is a session file: ${parsed.ok ? '' : parsed.error}`);
  assert.equal(parsed.skipped, 0, `every record of the attachment is read: ${parsed.ok ? parsed.problems.join('; ') : ''}`);
  return parsed.file;
}

/** The findings of a session file as the panel's Import judges it. */
function importedFindings(file: SessionFile) {
  const clients = new Map(file.clients.map((c) => [c.key, c]));
  const feed = new ModelFeed((k) => clients.get(k));
  feed.add(file.events, Date.now());
  feed.finish();
  return feed.model.findings;
}

before(async () => {
  // The module under test is the built one, as an app imports it: build it afresh (esbuild, about a second).
  const built = spawnSync(process.execPath, ['scripts/build-playwright.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, `build-playwright failed: ${built.stderr}`);
  work = mkdtempSync(join(tmpdir(), 'oui-pw-fixture-'));
  const reportPath = join(work, 'report.json');
  const started = Date.now();
  const child = spawn(process.execPath, [join(root, 'node_modules/@playwright/test/cli.js'), 'test', '--config', CONFIG], {
    cwd: root,
    env: { ...process.env, OUI_FIXTURE_SHOW_FAILURES: '1', OUI_FIXTURE_REPORT: reportPath, OUI_FIXTURE_OUTPUT: join(work, 'results'), CI: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const ms = Date.now() - started;
  let report: JSONReport;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8')) as JSONReport;
  } catch (e) {
    throw new Error(`the Playwright run wrote no JSON report (exit ${code}): ${String(e)}\n${output}`);
  }
  run = { code, output: stripAnsi(output), report, ms };
  console.log(`# the Playwright run took ${(ms / 1000).toFixed(1)} s`);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('oui-devtools/playwright in a Playwright run', () => {
  test('the run fails for exactly the pages that break the protocol', () => {
    const outcomes = allTests(run.report.suites).map((t) => `${t.title}: ${t.test.status}`);
    assert.equal(run.code, 1, `the run exits 1 (a test failed):\n${run.output}`);
    assert.deepEqual(
      outcomes.sort(),
      [`${FAILING}: unexpected`, `${BROKEN_DEMO}: unexpected`, `${DEMO}: expected`, `${FINDINGS}: expected`, `${FLUSH}: expected`, `${NO_HOOK}: expected`, `${RESTLESS}: expected`, `${QUERY}: expected`].sort(),
      run.output,
    );
    assert.deepEqual(run.report.errors, [], 'no error outside the tests');
  });

  test('the failure message lists each finding with its rule, section, party and event', () => {
    const result = testOf(FAILING).results.at(-1)!;
    const message = stripAnsi(result.errors.map((e) => e.message ?? '').join('\n'));
    assert.match(message, /expect\(oui\)\.toHaveNoFindings\(\{ min: 'warning' \}\)/);
    assert.match(message, /Received: 4 findings/);
    const expected: Array<[string, string, string, string]> = [
      ['error', 'surface-id', '§3.2', 'surface:register'],
      ['error', 'surface-no-actions', '§3.1', 'surface:register'],
      ['error', 'hash-missing', '§7.3.4', 'action:result'],
      ['warning', 'result-unknown-request', '§7.3.3', 'action:result'],
    ];
    // The most severe first; each: severity rule section party / message / client / event (index in the attachment, type, time).
    const entries = message.split(/\n(?=\d+\. )/).slice(1);
    assert.equal(entries.length, expected.length, message);
    const file = sessionOf(FAILING);
    entries.forEach((entry, i) => {
      const [severity, rule, section, type] = expected[i]!;
      const head = `${i + 1}. ${severity} ${rule} ${section} (party at fault: client)`;
      assert.ok(entry.startsWith(head), `entry ${i + 1} starts with "${head}":\n${entry}`);
      assert.match(entry, /\n {3}client: websocket ws:\/\/127\.0\.0\.1:\d+\/ws in http:\/\/127\.0\.0\.1:\d+\/bad\.html/);
      const event = new RegExp(`\\n {3}event: #(\\d+) ${type} \\(client → runtime\\) at \\+\\d+\\.\\d{3} s, id (\\S+)`).exec(entry);
      assert.ok(event, `entry ${i + 1} names its event:\n${entry}`);
      // The number is the event's place in the attached oui-session.json.
      const ev = file.events[Number(event[1]) - 1];
      assert.equal(ev?.type, type);
      assert.equal(ev?.id, event[2]);
    });
    // The reporter shows the same text.
    assert.ok(run.output.includes('1. error surface-id §3.2 (party at fault: client)'), run.output);
  });

  test('the demo with a wrong client fails with each finding\'s rule, section, party, client and event in the message', () => {
    const result = testOf(BROKEN_DEMO).results.at(-1)!;
    const message = stripAnsi(result.errors.map((e) => e.message ?? '').join('\n'));
    assert.match(message, /expect\(oui\)\.toHaveNoFindings\(\{ min: 'warning' \}\)/);
    assert.match(message, /Received: 2 findings \(4 clients, /);
    const entries = message.split(/\n(?=\d+\. )/).slice(1);
    assert.equal(entries.length, 2, message);
    const file = sessionOf(BROKEN_DEMO);
    const expected: Array<[string, string, string, RegExp, string]> = [
      // The notifications client registered its surface under its display name (?broken=surface-id).
      ['error', 'surface-id', '§3.2', /\n {3}client: websocket ws:\/\/127\.0\.0\.1:\d+\/ws-json in http:\/\/127\.0\.0\.1:\d+\/\?broken=surface-id,result-id\n/, 'surface:register'],
      // The shop client answered under a requestId of its own (?broken=result-id), over Socket.IO.
      ['warning', 'result-unknown-request', '§7.3.3', /\n {3}client: socket\.io \/\/127\.0\.0\.1:\d+\/socket\.io\/ \/oui in http:\/\/127\.0\.0\.1:\d+\/\?broken=/, 'action:result'],
    ];
    entries.forEach((entry, i) => {
      const [severity, rule, section, client, type] = expected[i]!;
      const head = `${i + 1}. ${severity} ${rule} ${section} (party at fault: client)`;
      assert.ok(entry.startsWith(head), `entry ${i + 1} starts with "${head}":\n${entry}`);
      assert.match(entry, client);
      const event = new RegExp(`\\n {3}event: #(\\d+) ${type} \\(client → runtime\\) at \\+\\d+\\.\\d{3} s, id (\\S+)`).exec(entry);
      assert.ok(event, `entry ${i + 1} names its event:\n${entry}`);
      const ev = file.events[Number(event[1]) - 1];
      assert.equal(ev?.type, type);
      assert.equal(ev?.id, event[2]);
    });
    assert.match(entries[0]!, /surface id "Notifications" does not match/);
    assert.match(entries[1]!, /result for [0-9a-f-]{36}:result, a request this client never received/);
    assert.ok(run.output.includes('1. error surface-id §3.2 (party at fault: client)'), run.output);
    // Read back as the panel would, the variant's session has the same findings and every transport of the demo.
    assert.deepEqual(importedFindings(file).filter((f) => f.severity !== 'info').map((f) => `${f.severity} ${f.rule} ${f.section}`), ['error surface-id §3.2', 'warning result-unknown-request §7.3.3']);
    assert.deepEqual([...new Set(file.clients.map((c) => c.kind))].sort(), ['direct', 'postmessage', 'socket.io', 'websocket']);
  });

  test('each test has its oui-session.json, and the panel reading it finds what the matcher found', () => {
    const bad = sessionOf(FAILING);
    assert.deepEqual(bad.clients.map((c) => c.kind), ['websocket']);
    assert.deepEqual(
      importedFindings(bad).map((f) => `${f.rule} ${f.section}`).sort(),
      ['hash-missing §7.3.4', 'result-unknown-request §7.3.3', 'surface-id §3.2', 'surface-no-actions §3.1'],
    );

    const demo = sessionOf(DEMO);
    const kinds = new Set(demo.clients.map((c) => c.kind));
    for (const kind of ['socket.io', 'websocket', 'postmessage', 'direct']) assert.ok(kinds.has(kind as never), `a ${kind} client in the demo's session`);
    const types = new Set(demo.events.map((e) => e.type));
    for (const type of ['surface:register', 'action:request', 'action:result', 'observation:update']) assert.ok(types.has(type), `${type} in the demo's session`);
    assert.deepEqual(importedFindings(demo).filter((f) => f.severity === 'error' || f.severity === 'critical'), [], 'no error in the demo, read back');

    // The test that reads findings itself has its session attached too.
    assert.ok(sessionOf(FINDINGS).events.length >= 3);
  });

  test('settling is a flush handshake: what a frame sent right before the verdict is in it, and in the attachment', () => {
    // flush.spec.ts checked each round's count right after sending (main frame and a cross-origin iframe, 600 frames each,
    // more than one of the hook's batches, one round with the app's thread busy after sending); here, the attachment.
    const file = sessionOf(FLUSH);
    const pathOf = new Map(file.clients.map((c) => [c.key, new URL(c.frameUrl ?? 'about:blank').pathname]));
    const count = (round: string) => {
      const out: Record<string, number> = {};
      for (const e of file.events) {
        if ((e.payload as { round?: unknown } | undefined)?.round !== round && !e.raw?.startsWith(`{"type":"app:tick","payload":{"round":"${round}",`)) continue;
        const at = pathOf.get(e.client) ?? '?';
        out[at] = (out[at] ?? 0) + 1;
      }
      return out;
    };
    for (const round of ['r1', 'r2', 'r3', 'bad']) assert.deepEqual(count(round), { '/flush.html': 600, '/frame.html': 600 }, `round ${round} whole in the attachment`);
    // The last item of each frame's last burst, each a violation, is judged.
    const rules = importedFindings(file).map((f) => f.rule);
    assert.ok(rules.includes('result-unknown-request') && rules.includes('surface-id'), rules.join(', '));
  });
});
