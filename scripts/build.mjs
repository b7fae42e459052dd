// Bundles every entry point of the extension into dist/chrome (a folder Chromium loads unpacked) and
// dist/firefox (a folder Firefox loads as a temporary add-on). One source: the bundles differ only in
// their syntax target, the manifests are derived from manifest.json (scripts/manifests.mjs), and both
// carry package.json's version.
import { build } from 'esbuild';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromeManifest, firefoxManifest } from './manifests.mjs';
import { workerHookSource } from './worker-hook.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const watch = process.argv.includes('--watch');

const entries = {
  hook: 'content/hook.ts',
  bridge: 'content/bridge.ts',
  background: 'src/background/index.ts',
  devtools: 'panel/devtools.ts',
  panel: 'panel/main.tsx',
};

const source = JSON.parse(await readFile(`${root}manifest.json`, 'utf8'));
const { version } = JSON.parse(await readFile(`${root}package.json`, 'utf8'));

/**
 * The panel renders page data as text only and never uses preact's `dangerouslySetInnerHTML`; this takes
 * preact's one `innerHTML` assignment (that prop's implementation) out of the bundle, so nothing in it can
 * write markup, and addons.mozilla.org's linter has no unsafe assignment to warn about. The prop's value
 * would be shown as text instead.
 */
const noInnerHtml = {
  name: 'preact-no-inner-html',
  setup(b) {
    b.onLoad({ filter: /[\\/]preact[\\/]dist[\\/]preact\.mjs$/ }, async ({ path }) => {
      const code = await readFile(path, 'utf8');
      const patched = code.replace(/\b(\w+)\.innerHTML=(\w+)\.__html\b/g, '$1.textContent=$2.__html');
      if (patched === code) throw new Error(`${path}: preact's innerHTML assignment not found; update the preact-no-inner-html plugin in scripts/build.mjs`);
      return { contents: patched, loader: 'js' };
    });
  },
};

const targets = [
  { dir: 'dist/chrome', target: 'chrome111', manifest: chromeManifest(source, version) },
  { dir: 'dist/firefox', target: 'firefox128', manifest: firefoxManifest(source, version) },
];

await Promise.all(
  targets.map(async ({ dir, target, manifest }) => {
    const out = `${root}${dir}`;
    await rm(out, { recursive: true, force: true });
    await mkdir(out, { recursive: true });
    // Carried in the page hook as text (scripts/worker-hook.mjs).
    const workerHook = await workerHookSource(root, target);
    await build({
      absWorkingDir: root,
      entryPoints: entries,
      outdir: out,
      bundle: true,
      format: 'iife',
      target,
      minify: true,
      sourcemap: 'linked',
      legalComments: 'none',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      logLevel: 'warning',
      define: { 'process.env.NODE_ENV': '"production"', __OUI_WORKER_HOOK__: JSON.stringify(workerHook) },
      plugins: [noInnerHtml],
    });
    await writeFile(`${out}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
    for (const f of ['devtools.html', 'panel.html', 'panel.css']) await cp(`${root}panel/${f}`, `${out}/${f}`);
    if (!watch) console.log(`built ${out}`);
  }),
);
