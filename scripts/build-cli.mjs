// Bundles the command line (src/cli) for Node into dist/cli/oui-devtools.js: one ESM file with its
// dependencies inlined, runnable as `npx oui-devtools lint …` through package.json's "bin".
import { build } from 'esbuild';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(await readFile(`${root}package.json`, 'utf8'));
const outfile = `${root}dist/cli/oui-devtools.js`;

await mkdir(`${root}dist/cli`, { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/bin.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  banner: { js: '#!/usr/bin/env node' },
  define: { __OUI_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
await chmod(outfile, 0o755);
