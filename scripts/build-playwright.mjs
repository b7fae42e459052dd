// Builds oui-devtools/playwright into dist/playwright: the Node module (ESM, index.js) and the
// init script it adds to every page (oui-init.js: the page hook behind the fixture's bridge, one IIFE).
import { build } from 'esbuild';
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/playwright`;

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

await Promise.all([
  build({
    absWorkingDir: root,
    // The bridge first: its listener must be in place before the hook hands its port over.
    stdin: { contents: "import './content/fixture-bridge.ts';\nimport './content/hook.ts';\n", resolveDir: root, sourcefile: 'oui-init.ts', loader: 'ts' },
    outfile: `${out}/oui-init.js`,
    bundle: true,
    format: 'iife',
    // Playwright's Chromium, Firefox and WebKit of the last few years.
    target: ['chrome111', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  }),
  build({
    absWorkingDir: root,
    entryPoints: { index: 'src/playwright/index.ts' },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The app's own @playwright/test: one test runner, one expect.
    external: ['@playwright/test', 'playwright', 'playwright-core'],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  }),
]);
console.log(`built ${out}`);
