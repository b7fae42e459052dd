/**
 * The stale-build guard (test/support/fresh-build.ts) on a scratch tree:
 * a build older than any source, or missing an output, is stale; one newer
 * than every source is fresh.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUILD_OUTPUTS, BUILD_SOURCES, buildStamp, newestSource, staleness } from '../support/fresh-build.ts';

let root = '';
const touch = (rel: string, at: number) => {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, '');
  utimesSync(p, at, at);
};

describe('fresh-build guard', () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'oui-fresh-'));
    touch('src/a.ts', 1000);
    touch('content/deep/b.ts', 1001);
    touch('manifest.json', 999);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('names the newest source, however deep', () => {
    const n = newestSource(root, BUILD_SOURCES);
    assert.equal(n.file, join(root, 'content/deep/b.ts'));
    assert.equal(n.mtimeMs, 1001_000);
  });

  it('a missing output is stale', () => {
    assert.equal(buildStamp(root), 0);
    assert.match(staleness(root)!, /missing/);
  });

  it('the stamp is the oldest output: one output older than a source makes the build stale', () => {
    for (const f of BUILD_OUTPUTS) touch(f, 2000);
    assert.equal(staleness(root), null);
    touch(BUILD_OUTPUTS[3]!, 1000.5);
    assert.equal(buildStamp(root), 1000_500);
    assert.match(staleness(root)!, /content\/deep\/b\.ts is newer than dist\//);
    touch(BUILD_OUTPUTS[3]!, 2000);
    touch('panel/c.tsx', 3000);
    assert.match(staleness(root)!, /panel\/c\.tsx is newer/);
  });
});
