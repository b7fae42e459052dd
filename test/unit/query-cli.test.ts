/**
 * `oui-devtools lint --filter QUERY` through the real CLI (src/cli/bin.ts in
 * a child process) on a recording: the whole session is judged, and only
 * findings with an event that matches the query are reported. The oracle
 * reads the recording's own JSON and the unfiltered report, not the query
 * code.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDING = fileURLToPath(new URL('../fixtures/golden/session.json', import.meta.url));
const session = JSON.parse(readFileSync(RECORDING, 'utf8')) as { events: Array<{ id: string; type?: string; dir: string; payload?: { surface?: { id?: string }; surfaceId?: string } }> };
const byId = new Map(session.events.map((e) => [e.id, e]));

interface Report {
  files: Array<{ findings: Array<{ rule: string; events: Array<{ id: string }> }> }>;
}

function lint(...args: string[]): { status: number | null; report?: Report; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'lint', '--no-config', ...args], { cwd: ROOT, encoding: 'utf8' });
  let report: Report | undefined;
  try {
    report = JSON.parse(r.stdout) as Report;
  } catch {
    report = undefined;
  }
  return { status: r.status, report, stderr: r.stderr, stdout: r.stdout };
}

const rulesOf = (r: Report) => r.files[0]!.findings.map((f) => `${f.rule} ${f.events.map((e) => e.id).join(',')}`).sort();

describe('lint --filter', () => {
  const all = lint('--format', 'json', '--fail-on', 'never', RECORDING);
  const unfiltered = all.report!.files[0]!.findings;

  it('the recording has findings on more than one kind of event, so a filter has something to leave out', () => {
    assert.equal(all.status, 0, all.stderr);
    const types = new Set(unfiltered.flatMap((f) => f.events.map((e) => byId.get(e.id)?.type)));
    assert.ok(types.size >= 2, [...types].join(' '));
  });

  it('type: keeps only the findings with an event of that type', () => {
    const r = lint('--format', 'json', '--fail-on', 'never', '--filter', 'type:action:result', RECORDING);
    assert.equal(r.status, 0, r.stderr);
    const expected = unfiltered.filter((f) => f.events.some((e) => byId.get(e.id)?.type === 'action:result'));
    assert.ok(expected.length > 0 && expected.length < unfiltered.length);
    assert.deepEqual(rulesOf(r.report!), rulesOf({ files: [{ findings: expected }] }));
  });

  it('a quoted surface with a space, and its negation, split the findings between them', () => {
    const named = (f: (typeof unfiltered)[number]) => f.events.some((e) => byId.get(e.id)?.payload?.surface?.id === 'Bad Surface!' || byId.get(e.id)?.payload?.surfaceId === 'Bad Surface!');
    const yes = lint('--format', 'json', '--fail-on', 'never', '--filter', 'surface:"bad surface!"', RECORDING);
    assert.deepEqual(rulesOf(yes.report!), rulesOf({ files: [{ findings: unfiltered.filter(named) }] }));
    assert.ok(yes.report!.files[0]!.findings.length > 0);
    // Every other finding names events of other surfaces (or none): each has an event that is not of "Bad Surface!".
    const no = lint('--format', 'json', '--fail-on', 'never', '--filter', '-surface:"Bad Surface!"', RECORDING);
    const expectedNo = unfiltered.filter((f) => f.events.some((e) => !(byId.get(e.id)?.payload?.surface?.id === 'Bad Surface!' || byId.get(e.id)?.payload?.surfaceId === 'Bad Surface!')));
    assert.deepEqual(rulesOf(no.report!), rulesOf({ files: [{ findings: expectedNo }] }));
  });

  it('the exit status follows the findings reported: none left, exit 0 however bad the rest', () => {
    const failing = lint('--fail-on', 'error', RECORDING);
    assert.equal(failing.status, 1);
    const r = lint('--fail-on', 'error', '--filter', 'dir:in type:observation:update', RECORDING);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /--filter dir:in type:observation:update: \d+ of \d+ findings left out/);
  });

  it('a bad filter is a usage error: one line with the column of the bad term', () => {
    const r = lint('--filter', 'type:result dur:>fast', RECORDING);
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^lint: --filter: dur: wants a duration .* \(at column 13: "dur:>fast"\)/);
    const re = lint('--filter', '/(a)\\1/', RECORDING);
    assert.equal(re.status, 2);
    assert.match(re.stderr, /bad \/regex\/.*column 1/);
  });
});
