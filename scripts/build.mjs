// Bundles every entry point of the extension into dist/chrome, a folder Chromium loads unpacked.
import { build } from 'esbuild';
import { cp, mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/chrome`;
const watch = process.argv.includes('--watch');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

const entries = {
  hook: 'content/hook.ts',
  bridge: 'content/bridge.ts',
  background: 'src/background/index.ts',
  devtools: 'panel/devtools.ts',
  panel: 'panel/main.tsx',
};

await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v])),
  outdir: out,
  bundle: true,
  format: 'iife',
  target: 'chrome111',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

await cp(`${root}manifest.json`, `${out}/manifest.json`);
for (const f of ['devtools.html', 'panel.html', 'panel.css']) await cp(`${root}panel/${f}`, `${out}/${f}`);
if (!watch) console.log(`built ${out}`);
