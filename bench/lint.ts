/**
 * What `oui-devtools lint` costs: 100,000 events linted from a session file
 * and from the same traffic as a Chrome-style HAR (the built CLI in a child
 * process, wall clock and peak RSS), the share of the session model alone
 * (the same events replayed in process), and a large HAR (default 200 MB) for
 * bounded memory. Figures, not assertions; written to bench/lint-results.json.
 *
 *   npm run build && node --import tsx bench/lint.ts [--big-mb 200]
 *
 * The traffic is bench/merge.ts's mix (test/fixtures/big.ts), with one wrong
 * surfacesHash so there is a finding to print.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBigHar, writeBigSession } from '../test/fixtures/big.ts';
import { parseSessionFile } from '../src/session/wire/session-file.ts';
import { replay } from '../src/session/model/session-model.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
const EVENTS = 100_000;
const RUNS = 3;
const argMb = process.argv.indexOf('--big-mb');
const BIG_MB = argMb > 0 ? Number(process.argv[argMb + 1]) : 200;

if (!existsSync(CLI)) spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { stdio: 'inherit' });

/** Prints the child's peak RSS (KiB) on stderr when it exits. */
const MAXRSS = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nmaxrss '+u.maxRSS+' cpu '+Math.round((u.userCPUTime+u.systemCPUTime)/1000)+'\\n')})`;

function lint(file: string): { ms: number; cpuMs: number; rssMB: number; exit: number | null; findings: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', MAXRSS, CLI, 'lint', '--no-config', '--format', 'json', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Math.round(performance.now() - t0);
  const rss = /maxrss (\d+) cpu (\d+)/.exec(r.stderr);
  let findings = -1;
  try {
    findings = (JSON.parse(r.stdout) as { files: Array<{ findings: unknown[] }> }).files[0]!.findings.length;
  } catch {
    process.stderr.write(r.stderr);
  }
  return { ms, cpuMs: rss ? Number(rss[2]) : -1, rssMB: rss ? Math.round(Number(rss[1]) / 1024) : -1, exit: r.status, findings };
}

function best(file: string) {
  const runs = Array.from({ length: RUNS }, () => lint(file));
  const fastest = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
  return { ...fastest, runsMs: runs.map((r) => r.ms) };
}

const dir = mkdtempSync(join(tmpdir(), 'oui-lint-bench-'));
try {
  const session = join(dir, 'session.json');
  const har = join(dir, 'session.har');
  const sessionBytes = writeBigSession(session, EVENTS, { badHashEvery: EVENTS / 2 });
  const harBytes = writeBigHar(har, EVENTS, { badHashEvery: EVENTS / 2 });

  // The session model alone on the same events, in process (what any reader of the file must at least spend).
  const parsed = parseSessionFile(readFileSync(session, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  const clients = new Map(parsed.file.clients.map((c) => [c.key, c]));
  const items = parsed.file.events.map((ev) => ({ ev, client: clients.get(ev.client)! }));
  const modelRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    replay(items);
    modelRuns.push(Math.round(performance.now() - t0));
  }

  const results: Record<string, unknown> = {
    node: process.version,
    date: new Date().toISOString(),
    events: EVENTS,
    note: 'ms: wall clock of the built CLI in a child process (node start-up included), best of 3; cpuMs: its user+system CPU time (GC threads included), less sensitive to other load; modelOnlyMs: SessionModel replay of the same events in process',
    loadAverage: (await import('node:os')).loadavg().map((x) => Number(x.toFixed(2))),
    session: { bytes: sessionBytes, ...best(session) },
    har: { bytes: harBytes, ...best(har) },
    modelOnlyMs: Math.min(...modelRuns),
    modelRunsMs: modelRuns,
  };
  process.stdout.write(`session ${JSON.stringify(results.session)}\nhar ${JSON.stringify(results.har)}\nmodel only ${results.modelOnlyMs} ms\n`);

  if (BIG_MB > 0) {
    // ~290 bytes a message pretty-printed, padded to reach the size asked for.
    const big = join(dir, 'big.har');
    const pad = 200;
    const perEvent = 292 + pad;
    const events = Math.round((BIG_MB * 1024 * 1024) / perEvent);
    const bytes = writeBigHar(big, events, { pad, badHashEvery: Math.floor(events / 20) * 10 });
    const r = lint(big);
    results.bigHar = { bytes, mb: Math.round(bytes / 1024 / 1024), events, ...r, rssPerFileSize: Number((r.rssMB / (bytes / 1024 / 1024)).toFixed(2)) };
    process.stdout.write(`big HAR ${JSON.stringify(results.bigHar)}\n`);
    rmSync(big, { force: true });
  }
  writeFileSync(join(ROOT, 'bench/lint-results.json'), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
