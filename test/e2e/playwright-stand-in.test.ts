/**
 * The stand-in runtime in real Playwright runs, as an app's CI would run
 * them (child processes of `playwright test`):
 * - the stand-in suite (test/playwright/stand-in/): `oui.call` on the demo's
 *   four clients, faults, approvals, timeouts, scenarios and their round trip;
 * - `oui-devtools generate-test` on that run's recording (the oui-session.json
 *   attached to its recording test) writes a spec that passes against the
 *   demo and fails against the demo whose shop answers with the wrong
 *   requestId (`?broken=result-id`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { JSONReport, JSONReportSuite, JSONReportTest } from '@playwright/test/reporter';
import { startDemoServer, type DemoServer } from '../demo/server.ts';
import { main } from '../../src/cli/main.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = 'test/playwright/stand-in/playwright.config.ts';
const RECORDING = 'a recording of the real runtime, saved as a scenario, exported, imported and run again';

interface Run {
  code: number | null;
  output: string;
  report: JSONReport;
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

async function playwright(work: string, name: string, env: Record<string, string> = {}): Promise<Run> {
  const reportPath = join(work, `${name}.json`);
  const child = spawn(process.execPath, [join(root, 'node_modules/@playwright/test/cli.js'), 'test', '--config', CONFIG], {
    cwd: root,
    env: { ...process.env, OUI_FIXTURE_REPORT: reportPath, OUI_FIXTURE_OUTPUT: join(work, `${name}-results`), CI: '1', FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  let report: JSONReport;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8')) as JSONReport;
  } catch (e) {
    throw new Error(`the Playwright run "${name}" wrote no JSON report (exit ${code}): ${String(e)}\n${output}`);
  }
  return { code, output: stripAnsi(output), report };
}

/** Runs the command line in this process, as `npx oui-devtools …` does. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (add(String(chunk)), cb()) });
  const code = await main(argv, { stdin: process.stdin, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), cwd: root });
  return { code, stdout, stderr };
}

let work: string;
let suite: Run;
let demo: DemoServer;

before(async () => {
  const built = spawnSync(process.execPath, ['scripts/build-playwright.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  // Under the package, so that the generated spec's `oui-devtools/playwright` resolves (package.json "exports").
  mkdirSync(join(root, 'test-results'), { recursive: true });
  work = mkdtempSync(join(root, 'test-results', 'stand-in-e2e-'));
  suite = await playwright(work, 'suite');
  demo = await startDemoServer();
});

after(async () => {
  await demo?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the stand-in runtime in Playwright', () => {
  test('the stand-in suite passes: oui.call on every transport, faults, approvals, timeouts, scenarios', () => {
    const outcomes = allTests(suite.report.suites).map((t) => `${t.title}: ${t.test.status}`);
    assert.ok(outcomes.length >= 9, suite.output);
    assert.deepEqual(outcomes.filter((o) => !o.endsWith(': expected')), [], suite.output);
    assert.equal(suite.code, 0, suite.output);
  });

  test('generate-test: a spec from a recording passes against the demo and fails against ?broken=result-id', async () => {
    const rec = allTests(suite.report.suites).find((t) => t.title === RECORDING);
    assert.ok(rec, 'the recording test ran');
    const attachment = rec.test.results.at(-1)!.attachments.find((a) => a.name === 'oui-session.json');
    assert.ok(attachment, 'the recording is attached');
    const sessionPath = join(work, 'recording.json');
    writeFileSync(sessionPath, attachment.path ? readFileSync(attachment.path) : Buffer.from(attachment.body ?? '', 'base64'));

    const specs = join(work, 'generated');
    mkdirSync(specs);
    const specPath = join(specs, 'replay.spec.ts');
    const gen = await cli(['generate-test', sessionPath, '--out', specPath, '--timeout', '4000']);
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stderr, /wrote .*replay\.spec\.ts: 5 steps/);
    const spec = readFileSync(specPath, 'utf8');
    // The agent's five requests, in order, each through oui.call (the stand-in's own replays of the recording test are left out).
    const calls = [...spec.matchAll(/oui\.call\("([^"]+)", "([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
    assert.deepEqual(calls, ['catalog/search', 'catalog/add_to_cart', 'notifications/list', 'coupon-widget/apply_coupon', 'help/show_tip']);

    const good = await playwright(work, 'generated', { OUI_STAND_IN_SPECS: specs, OUI_APP_URL: demo.url });
    const goodTests = allTests(good.report.suites);
    assert.equal(goodTests.length, 1, good.output);
    assert.equal(goodTests[0]!.test.status, 'expected', good.output);
    assert.equal(good.code, 0, good.output);

    const broken = await playwright(work, 'generated-broken', { OUI_STAND_IN_SPECS: specs, OUI_APP_URL: `${demo.url}?broken=result-id` });
    assert.equal(broken.code, 1, broken.output);
    const failed = allTests(broken.report.suites)[0];
    assert.ok(failed, `the run against ?broken= reported no test:\n${broken.output}`);
    assert.equal(failed.test.status, 'unexpected');
    const message = stripAnsi(failed.test.results.at(-1)!.errors.map((e) => e.message ?? '').join('\n'));
    // The shop's first request: its answer carries another requestId, so the stand-in never gets one.
    assert.match(message, /oui\.call\("catalog", "search"\): no result within 4000 ms/, message);
  });

  test('generate-test says what is wrong with its input, in one line, exit 2', async () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    const r = await cli(['generate-test', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /neither a session file \("oui-devtools-session"\) nor a scenario/);
    assert.equal((await cli(['generate-test'])).code, 2);
  });
});
