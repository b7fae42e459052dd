/** The executable: `oui-devtools lint FILE…` (bundled into dist/cli/oui-devtools.js by scripts/build-cli.mjs). */
import { main } from './main.ts';

main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // A bug of ours, never the input's fault: one line, no stack trace unless asked for.
    process.stderr.write(`oui-devtools: internal error: ${e instanceof Error ? e.message : String(e)}${process.env.OUI_DEBUG ? `\n${(e as Error).stack ?? ''}` : ''}\n`);
    process.exitCode = 2;
  },
);
