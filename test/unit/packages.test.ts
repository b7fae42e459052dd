/**
 * `npm run package` (scripts/package.mjs): the store zips have their manifest
 * at the root with package.json's version, Firefox's is Firefox's manifest,
 * and the source archive carries the reviewers' build instructions.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const out = mkdtempSync(join(tmpdir(), 'oui-packages-'));

/** The entries of a zip, read from its central directory. */
function unzip(file: string): Map<string, Buffer> {
  const buf = readFileSync(file);
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, `${file} is a zip`);
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50);
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const offset = buf.readUInt32LE(at + 42);
    const entryName = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const dataAt = offset + 30 + buf.readUInt16LE(offset + 26) + buf.readUInt16LE(offset + 28);
    const raw = buf.subarray(dataAt, dataAt + size);
    entries.set(entryName, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nameLen + extra + comment;
  }
  return entries;
}

before(() => {
  // Rebuilt when missing or older than its sources (test/support/fresh-build.ts), as for every test that loads dist/.
  ensureFreshBuild();
  execFileSync(process.execPath, ['scripts/package.mjs', '--out', out], { cwd: root, stdio: 'ignore' });
});

for (const browser of ['chrome', 'firefox'] as const) {
  test(`the ${browser} zip: manifest at the root with package.json's version, every file it names inside`, () => {
    const entries = unzip(join(out, `${name}-${browser}-${version}.zip`));
    const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8'));
    assert.equal(manifest.version, version);
    assert.equal(manifest.manifest_version, 3);
    const named = [manifest.devtools_page, ...(manifest.background.scripts ?? [manifest.background.service_worker]), ...manifest.content_scripts.flatMap((c: { js: string[] }) => c.js)];
    for (const f of named) assert.ok(entries.has(f), `${f} is in the zip`);
    assert.ok(entries.has('panel.html') && entries.has('panel.js'));
    assert.ok(![...entries.keys()].some((k) => k.endsWith('.map') || k.includes('/')), 'no source maps, no folders');
    if (browser === 'firefox') {
      assert.deepEqual(manifest.background, { scripts: ['background.js'] });
      assert.equal(typeof manifest.browser_specific_settings.gecko.id, 'string');
      assert.deepEqual(manifest.browser_specific_settings.gecko.data_collection_permissions, { required: ['none'] });
      assert.equal(manifest.minimum_chrome_version, undefined);
    } else {
      assert.deepEqual(manifest.background, { service_worker: 'background.js' });
      assert.equal(manifest.browser_specific_settings, undefined);
    }
  });
}

test('the source archive: the sources, the lock file and BUILD.md, nothing installed or built', () => {
  const entries = unzip(join(out, `${name}-source-${version}.zip`));
  for (const f of ['package.json', 'package-lock.json', 'manifest.json', 'scripts/build.mjs', 'scripts/manifests.mjs', 'content/hook.ts', 'panel/main.tsx', 'BUILD.md']) {
    assert.ok(entries.has(f), `${f} is in the source archive`);
  }
  assert.ok(![...entries.keys()].some((k) => /^(node_modules|dist|\.git)\//.test(k)));
  const build = entries.get('BUILD.md')!.toString('utf8');
  for (const s of ['Node.js 20', 'npm ci', 'npm run build', 'dist/firefox']) assert.ok(build.includes(s), `BUILD.md says ${s}`);
});
