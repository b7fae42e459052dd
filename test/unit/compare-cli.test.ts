/**
 * `oui-devtools diff A B` through the real CLI (src/cli/bin.ts in a child
 * process) on two recordings: the golden session, and the same session made
 * again here with a change (a surface never registered, one answer 100 ms
 * slower). Expected output is written from that change; which findings go
 * with the surface is read from `lint`'s own report of A, not from the diff.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const A = fileURLToPath(new URL('../fixtures/golden/session.json', import.meta.url));

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
}

describe('oui-devtools diff', () => {
  let dir: string;
  let B: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'oui-diff-'));
    const s = JSON.parse(readFileSync(A, 'utf8')) as { events: Array<{ id: string; t: number; payload?: { surface?: { id?: string } } }> };
    // The new build never registers "Bad Surface!"; its second add_item answers 100 ms later (so does everything after it).
    s.events = s.events.filter((e) => e.payload?.surface?.id !== 'Bad Surface!');
    let late = false;
    for (const e of s.events) {
      if (e.id === 'h1/c1/7') late = true;
      if (late) e.t += 100;
    }
    B = join(dir, 'b.json');
    writeFileSync(B, JSON.stringify(s));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('JSON: the surface gone, its findings gone, the slower answer in the latency', () => {
    const r = cli('diff', '--format', 'json', A, B);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { sentences: Array<{ text: string; kind: string }>; findings: { added: unknown[]; gone: Array<{ rule: string; place: string }> }; latency: unknown[] };
    assert.deepEqual(out.sentences, [{ surface: 'Bad Surface!', kind: 'removed', text: 'surface `Bad Surface!` is gone' }]);
    // lint's report of A: the findings whose events include the registration of "Bad Surface!" (h1/c1/9).
    const lint = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'lint', '--no-config', '--format', 'json', '--fail-on', 'never', A], { cwd: ROOT, encoding: 'utf8' });
    const findings = (JSON.parse(lint.stdout) as { files: Array<{ findings: Array<{ rule: string; events: Array<{ id: string }> }> }> }).files[0]!.findings;
    const ofBad = [...new Set(findings.filter((f) => f.events[0]!.id === 'h1/c1/9').map((f) => f.rule))].sort();
    assert.ok(ofBad.length >= 1);
    assert.deepEqual(out.findings.gone.map((f) => `${f.rule} @ ${f.place}`).sort(), ofBad.map((r) => `${r} @ Bad Surface!`));
    assert.deepEqual(out.findings.added, []);
    // Both add_item answers came 3 ms after their request in A; in B the second came 103 ms after.
    assert.deepEqual(out.latency, [{ action: 'cart.add_item', before: { count: 2, p50: 3, p95: 3, max: 3 }, after: { count: 2, p50: 3, p95: 103, max: 103 } }]);
  });

  it('text and markdown say the same', () => {
    const t = cli('diff', A, B);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^ {2}- surface `Bad Surface!` is gone$/m);
    assert.match(t.stdout, /^ {2}cart\.add_item: 2 × p50 3 ms p95 3 ms max 3 ms → 2 × p50 3 ms p95 103 ms max 103 ms$/m);
    const m = cli('diff', '--format=markdown', A, B);
    assert.equal(m.status, 0, m.stderr);
    assert.match(m.stdout, /^- ➖ surface `Bad Surface!` is gone$/m);
    assert.match(m.stdout, /^\| `cart\.add_item` \| 2 → 2 \| 3 ms → 3 ms \| 3 ms → 103 ms \| 3 ms → 103 ms \|$/m);
    assert.match(m.stdout, /^\| gone \| /m);
  });

  it('the same recording twice: no change, exit 0', () => {
    const r = cli('diff', A, A);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Surfaces:\n {2}no change/);
    assert.match(r.stdout, /Findings: 0 added, 0 gone, \d+ kept/);
  });

  it('usage and input errors: exit 2 with one line', () => {
    const one = cli('diff', A);
    assert.equal(one.status, 2);
    assert.match(one.stderr, /^diff: takes two files, A and B \(got 1\)\n$/);
    const missing = cli('diff', A, join(dir, 'nope.json'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /nope\.json: no such file/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format": 1, "events": [');
    const broken = cli('diff', bad, A);
    assert.equal(broken.status, 2);
    assert.match(broken.stderr, /^diff: .*bad\.json: /);
    const fmt = cli('diff', '--format', 'xml', A, A);
    assert.equal(fmt.status, 2);
  });
});
