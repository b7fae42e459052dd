/**
 * `oui-devtools lint`: streams each file through the JSON scanner into the
 * lint engine, applies the rule settings, prints one format, and sets the
 * exit status (0 clean, 1 findings at or above --fail-on, 2 unusable input or
 * usage, with one line on stderr saying why).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { ScanError } from '../session/lint/json-scan.ts';
import { InputError, type LintReport } from '../session/lint/engine.ts';
import { line, lintRecording, type LintStreamOptions } from '../session/lint/lint-stream.ts';
import { atLeast, format, type FileResult } from './report-formats.ts';
import { USAGE, UsageError, parseArgs, type Options } from './options.ts';
import type { SessionModel } from '../session/model/session-model.ts';
import type { WireEvent } from '../session/wire/wire.ts';
import { compileQuery, sessionFacts } from '../query/event-facts.ts';
import { meetsTerms } from '../query/match.ts';

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  cwd: string;
  version: string;
}

/**
 * Bytes read from a file at a time, into one buffer used again and again:
 * a fresh megabyte per read (a read stream's chunks) costs page faults and
 * collections, and a chunk's text (json-scan.ts) of this size stays in V8's
 * young generation, where allocation is cheap.
 */
const READ_BYTES = 64 * 1024;

/** A file's bytes, chunk by chunk, each chunk valid until the next is asked for (the scanner keeps only copies). */
export function* fileChunks(path: string): Generator<Uint8Array> {
  const fd = openSync(path, 'r');
  try {
    const buf = new Uint8Array(READ_BYTES);
    for (;;) {
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      if (n === 0) return;
      yield n === READ_BYTES ? buf : buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Files smaller than this get no progress line. */
const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

/** Lints one input stream, reporting only the findings whose events match `opts.filter` when given. Throws InputError / ScanError for unusable input. */
export async function lintStream(
  input: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  opts: LintStreamOptions & { filter?: string } = {},
): Promise<LintReport> {
  // A filter reads the events its findings name, as the session ends: only then are they kept.
  const kept = opts.filter !== undefined ? new Map<string, WireEvent>() : undefined;
  const watch = opts.onApply;
  const onApply = kept || watch ? (ev: WireEvent) => { kept?.set(ev.id, ev); watch?.(ev); } : undefined;
  let model: SessionModel | undefined;
  const report = await lintRecording(input, { ...opts, ...(onApply ? { onApply } : {}), onModel: (m) => { model = m; opts.onModel?.(m); } });
  return kept ? filtered(report, model!, kept, opts.filter!) : report;
}

/**
 * The findings of the whole session with an event that matches `query`,
 * read as the session ends (a request's status and duration are its last);
 * a finding that names no event matches no query.
 */
function filtered(report: LintReport, model: SessionModel, events: ReadonlyMap<string, WireEvent>, query: string): LintReport {
  const terms = compileQuery(query);
  const facts = sessionFacts({
    clients: new Map(report.clients.map((c) => [c.key, c])),
    event: (id) => events.get(id),
    request: (client, id) => model.clients.get(client)?.requests.get(id),
    findings: model.findings,
    isExperiment: (id) => model.isExperiment(id),
  });
  const findings = report.findings.filter((f) => f.events.some((id) => {
    const ev = events.get(id);
    return ev !== undefined && meetsTerms(ev, terms, facts);
  }));
  const left = report.findings.length - findings.length;
  return { ...report, findings, notes: left ? [...report.notes, `--filter ${query}: ${left} of ${report.findings.length} findings left out (no event of theirs matches)`] : report.notes };
}

function applyRules(report: LintReport, rules: Options['rules']): LintReport {
  if (!Object.keys(rules).length) return report;
  const findings = [];
  for (const f of report.findings) {
    const s = Object.hasOwn(rules, f.rule) ? rules[f.rule]! : undefined;
    if (s === 'off') continue;
    findings.push(s ? { ...f, severity: s } : f);
  }
  return { ...report, findings };
}

function mb(n: number): string {
  return `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

export async function runLint(args: string[], io: Io): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(args, io.cwd);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`lint: ${line(e.message)}\n`);
      return 2;
    }
    throw e;
  }
  if (opts.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (opts.version) {
    io.stdout.write(`${io.version}\n`);
    return 0;
  }
  const results: FileResult[] = [];
  let unusable = false;
  if (opts.files.filter((f) => f === '-').length > 1) {
    io.stderr.write('lint: "-" (standard input) can be given once\n');
    return 2;
  }
  for (const file of opts.files) {
    const name = file === '-' ? '<stdin>' : file;
    let size = 0;
    if (file !== '-') {
      try {
        const st = statSync(file);
        if (st.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
        size = st.size;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        io.stderr.write(`lint: ${name}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : line(String(e))}\n`);
        unusable = true;
        continue;
      }
    }
    const tty = io.stderr.isTTY === true && (file === '-' || size >= PROGRESS_MIN_BYTES);
    let read = 0;
    let shown = 0;
    const progress = (n: number) => {
      read += n;
      const now = Date.now();
      if (!tty || now - shown < 200) return;
      shown = now;
      const pct = size ? ` ${Math.floor((read / size) * 100)}%` : '';
      io.stderr.write(`\r\u001b[Klint: ${name}${pct} (${mb(read)}${size ? ` of ${mb(size)}` : ''})`);
    };
    try {
      const input = file === '-' ? (io.stdin as AsyncIterable<Uint8Array>) : fileChunks(file);
      const report = await lintStream(input, { ...(opts.spec ? { spec: opts.spec } : {}), ...(opts.timers ? { timers: opts.timers } : {}), ...(opts.filter !== undefined ? { filter: opts.filter } : {}), onBytes: progress });
      results.push({ file, report: applyRules(report, opts.rules) });
    } catch (e) {
      if (tty) io.stderr.write('\r\u001b[K');
      if (e instanceof InputError || e instanceof ScanError) {
        const why = e instanceof ScanError && /^empty input$/.test(e.message) ? 'empty file' : e.message;
        io.stderr.write(`lint: ${name}: ${line(why)}\n`);
      } else {
        const err = e as NodeJS.ErrnoException;
        io.stderr.write(`lint: ${name}: cannot be read (${line(err.code ?? err.message ?? String(e))})\n`);
      }
      unusable = true;
      continue;
    }
    if (tty) io.stderr.write('\r\u001b[K');
  }
  if (results.length) io.stdout.write(format(opts.format, results, opts.failOn, io.version));
  if (unusable) return 2;
  return results.some((r) => r.report.findings.some((f) => atLeast(f.severity, opts.failOn))) ? 1 : 0;
}
