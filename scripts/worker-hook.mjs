// The worker hook's bundle, as the page hook carries it (scripts/build.mjs passes it to the page hook's
// bundle as __OUI_WORKER_HOOK__; a build that does not carries none, and its hook starts workers as they were).
import { build } from 'esbuild';

/**
 * The worker hook (content/workers/worker-hook.ts), bundled on its own and carried in the page hook as the
 * source of one function, which a captured worker's blob: script calls with itself, its config, and an
 * object in which it hands back how to run the worker's own script. No file of the extension's is ever
 * fetched by a page (web_accessible_resources would make the extension detectable), and nothing is
 * evaluated from a string. `window` is the worker's global there: the taps it shares with the page hook
 * name it.
 */
export async function workerHookSource(root, target) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['content/workers/worker-hook.ts'],
    bundle: true,
    write: false,
    format: 'iife',
    target,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // Whose rules for a worker script's MIME type hold (content/workers/keeper.ts).
    define: { window: 'globalThis', __OUI_WORKER_BROWSER__: JSON.stringify(target.startsWith('firefox') ? 'firefox' : 'chromium') },
  });
  const code = result.outputFiles[0].text.trim();
  return `function(__ouiWorkerHookFn,__ouiWorkerCfg,__ouiWorkerOut){${code}}`;
}
