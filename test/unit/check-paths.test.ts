/**
 * `npm run lint:paths` (scripts/check-paths.mjs) on a scratch repository:
 * silent on a clean one, and failing, by file and line, on a machine path
 * planted in a tracked file. The planted paths are built from parts, so
 * that this file passes the check itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-paths.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const slash = '/';
const PLANTED = {
  work: `${slash}work${slash}main${slash}src/index.ts`,
  root: `${slash}root${slash}.cache/x`,
  home: `${slash}home${slash}ada${slash}project/a.json`,
  mac: `${slash}Users${slash}ada${slash}code`,
  windows: `C:${'\\'}Users${'\\'}ada${'\\'}code`,
};

let dir = '';
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
const check = (root = dir) => spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });

describe('check-paths', () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'oui-paths-'));
    git('init', '-q');
    writeFileSync(join(dir, 'clean.md'), `Paths relative to the repository: src/index.ts, ./dist/chrome.\nA URL: https://example.com/${'work'}/x and /network/ are fine.\n`);
    git('add', 'clean.md');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a repository with no machine path', () => {
    const r = check();
    assert.equal(r.status, 0, r.stderr);
  });

  for (const [kind, path] of Object.entries(PLANTED)) {
    it(`fails on a planted ${kind} path in a tracked file, naming file and line`, () => {
      writeFileSync(join(dir, 'planted.ts'), `// line 1\nconst p = '${path}';\n`);
      git('add', 'planted.ts');
      const r = check();
      assert.equal(r.status, 1, `${path} is rejected`);
      assert.match(r.stderr, /^planted\.ts:2: /m);
      git('rm', '-q', '--cached', 'planted.ts');
      rmSync(join(dir, 'planted.ts'));
    });
  }

  it('reads tracked files only, and skips binary ones', () => {
    writeFileSync(join(dir, 'untracked.txt'), PLANTED.home);
    writeFileSync(join(dir, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(PLANTED.work)]));
    git('add', 'blob.bin');
    const r = check();
    assert.equal(r.status, 0, r.stderr);
  });

  it('passes on this repository', () => {
    const r = check(ROOT);
    assert.equal(r.status, 0, r.stderr);
  });
});
