/**
 * `oui-devtools`: the command line of OUI DevTools: `lint` (recordings against
 * the conformance rules) and `generate-test` (a Playwright spec from a
 * recording or a scenario).
 * Node only (files, streams, exit status); what it runs is the session model
 * the panel runs (src/session).
 */
import { readFileSync } from 'node:fs';
import { USAGE } from './options.ts';
import { runLint, type Io } from './lint.ts';
import { GENERATE_USAGE, runGenerateTest } from './generate-test.ts';
import { DIFF_USAGE, runDiff } from './diff.ts';
import { REDACT_USAGE, runRedact } from './redact.ts';

declare const __OUI_VERSION__: string | undefined;

function version(): string {
  if (typeof __OUI_VERSION__ === 'string') return __OUI_VERSION__;
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export async function main(argv: string[], io: Omit<Io, 'version'>): Promise<number> {
  const [command, ...rest] = argv;
  const full: Io = { ...io, version: version() };
  if (command === 'lint') return runLint(rest, full);
  if (command === 'generate-test') return runGenerateTest(rest, full);
  if (command === 'diff') return runDiff(rest, full);
  if (command === 'redact') return runRedact(rest, full);
  if (command === '--version' || command === '-v') {
    io.stdout.write(`${full.version}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(`oui-devtools ${full.version}\n\n${USAGE}\n\n${GENERATE_USAGE}\n\n${DIFF_USAGE}\n\n${REDACT_USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  io.stderr.write(`oui-devtools: unknown command ${JSON.stringify(command)} (the commands are "lint", "generate-test", "redact" and "diff"; see --help)\n`);
  return 2;
}
