// `npm run package`: store-ready zips of the built extension for the Chrome Web Store and
// addons.mozilla.org (manifest at the zip root, package.json's version, no source maps), and the source
// archive addons.mozilla.org asks of minified add-ons, with build instructions for its reviewers.
// Run after `npm run build` (the npm script does both). `--out DIR` writes elsewhere than dist/packages.
// Zips are written here with node:zlib alone, byte for byte the same for the same input (fixed dates).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : join(root, 'dist/packages');
const { name, version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/** What never goes into the source archive: installed, built, or local files. */
const SOURCE_IGNORE = new Set(['node_modules', 'dist', '.git', 'test-results', '.profiles', 'playwright-report']);

async function files(dir, skip = () => false) {
  const list = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (skip(e.name, path)) continue;
    if (e.isDirectory()) list.push(...(await files(path, skip)));
    else if (e.isFile()) list.push(path);
  }
  return list.sort();
}

/** A zip archive (deflate) of `entries` ([name in the zip, bytes]). */
function zip(entries) {
  const local = [];
  const central = [];
  let offset = 0;
  const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01, 00:00: reproducible
  for (const [entryName, data] of entries) {
    const nameBytes = Buffer.from(entryName, 'utf8');
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4); // version needed
    head.writeUInt16LE(0x0800, 6); // names in UTF-8
    head.writeUInt16LE(8, 8); // deflate
    head.writeUInt16LE(0, 10);
    head.writeUInt16LE(DOS_DATE, 12);
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(nameBytes.length, 26);
    head.writeUInt16LE(0, 28);
    local.push(head, nameBytes, packed);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(0x031e, 4); // made by: Unix, 3.0
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt16LE(0, 12);
    dir.writeUInt16LE(DOS_DATE, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBytes.length, 28);
    dir.writeUInt32LE((0o100644 << 16) >>> 0, 38); // -rw-r--r--
    dir.writeUInt32LE(offset, 42);
    central.push(dir, nameBytes);
    offset += head.length + nameBytes.length + packed.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, ...central, end]);
}

const toZipName = (base, path) => relative(base, path).split(sep).join('/');

async function extensionZip(browser) {
  const dir = join(root, 'dist', browser);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8').catch(() => 'null'));
  if (!manifest) throw new Error(`${dir} is not built: run npm run build`);
  if (manifest.version !== version) throw new Error(`${dir}/manifest.json has version ${manifest.version}, package.json ${version}: run npm run build`);
  const list = await files(dir, (n) => n.endsWith('.map'));
  const entries = await Promise.all(list.map(async (p) => [toZipName(dir, p), await readFile(p)]));
  const file = join(out, `${name}-${browser}-${version}.zip`);
  await writeFile(file, zip(entries));
  return file;
}

const BUILD_MD = `# Building ${name} ${version} from this source

For reviewers: this archive is the source of the Firefox add-on (and the Chrome extension) ${name} ${version}.
The add-on's scripts are bundled and minified by esbuild; nothing else transforms them.

Requirements: Node.js 20 or later (with npm), on Linux, macOS or Windows. No other tools.

\`\`\`sh
npm ci
npm run build
\`\`\`

The Firefox add-on is then in \`dist/firefox/\` (the Chrome extension in \`dist/chrome/\`). The uploaded
package is that folder zipped, without its \`*.map\` source maps (\`npm run package\` writes it to
\`dist/packages/${name}-firefox-${version}.zip\`).

- \`manifest.json\` is the one manifest source; \`scripts/manifests.mjs\` derives Firefox's from it.
- \`scripts/build.mjs\` bundles \`content/hook.ts\`, \`content/bridge.ts\`, \`src/background/index.ts\`,
  \`panel/devtools.ts\` and \`panel/main.tsx\` (with their imports) into \`hook.js\`, \`bridge.js\`,
  \`background.js\`, \`devtools.js\` and \`panel.js\`; the HTML and CSS are copied from \`panel/\`.
- \`scripts/worker-hook.mjs\` first bundles \`content/workers/worker-hook.ts\` (the hook of the workers a page
  starts); \`hook.js\` carries that bundle as the text of one function, which it writes into the blob: script
  each such worker starts from. Nothing is evaluated from a string.
- Third-party code comes from npm at the versions pinned in \`package-lock.json\` (preact, @preact/signals,
  @cfworker/json-schema, @noble/hashes, fast-json-patch, re2js, @streamparser/json).
`;

async function sourceZip() {
  const list = await files(root, (n, path) => SOURCE_IGNORE.has(n) || n.endsWith('.log') || path === out);
  const entries = await Promise.all(list.map(async (p) => [toZipName(root, p), await readFile(p)]));
  entries.push(['BUILD.md', Buffer.from(BUILD_MD)]);
  const file = join(out, `${name}-source-${version}.zip`);
  await writeFile(file, zip(entries));
  return file;
}

await mkdir(out, { recursive: true });
for (const file of [await extensionZip('chrome'), await extensionZip('firefox'), await sourceZip()]) console.log(`wrote ${relative(process.cwd(), file) || file}`);
