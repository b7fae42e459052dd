/**
 * `oui-devtools diff A B`: two recordings (session files or HARs, read as
 * `lint` reads them: the same engine, the same model) compared with
 * src/session/compare: surfaces and capabilities as sentences, findings
 * added and gone (by rule and place), latency per action. Text, JSON or
 * Markdown. Exit status 0 whatever the differences (a diff reports, it does
 * not judge: gate on `lint` for that); 2 for a usage error or an input that
 * cannot be read.
 */
import { statSync } from 'node:fs';
import { compareSessions, type Comparison, type LatencyStats } from '../session/compare/compare.ts';
import { SessionDigest } from '../session/compare/digest.ts';
import type { CompareSide } from '../session/compare/compare.ts';
import type { SessionModel } from '../session/model/session-model.ts';
import { InputError } from '../session/lint/engine.ts';
import { ScanError } from '../session/lint/json-scan.ts';
import { fileChunks, lintStream, type Io } from './lint.ts';

export const DIFF_USAGE = `Usage: oui-devtools diff [options] A B

Compares two recordings (session files or HARs): A before, B after.
Prints what changed in the surfaces and their actions and observations, the
findings B has that A had not (and those gone), matched by rule and by the
surface, action or observation they concern, and each action's latency
(count, p50, p95, max) before → after. Exit status 0 (2: usage, or a file
that cannot be read).

Options:
  --format text|json|markdown   output on standard output (default: text)
  -h, --help                    show this help`;

const FORMATS = ['text', 'json', 'markdown'] as const;
type DiffFormat = (typeof FORMATS)[number];

function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

async function sideOf(file: string): Promise<CompareSide> {
  const st = statSync(file);
  if (st.isDirectory()) throw new InputError('is a directory');
  const digest = new SessionDigest();
  let model: SessionModel | undefined;
  const report = await lintStream(fileChunks(file), { onApply: (ev) => digest.apply(ev), onModel: (m) => (model = m) });
  // The report's findings leave the user's experiments out, as lint does.
  return { clients: model!.clients, findings: report.findings, digest };
}

export async function runDiff(args: string[], io: Io): Promise<number> {
  const files: string[] = [];
  let fmt: DiffFormat = 'text';
  try {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-h' || a === '--help') {
        io.stdout.write(`${DIFF_USAGE}\n`);
        return 0;
      }
      if (a === '--format' || a.startsWith('--format=')) {
        const v = a === '--format' ? args[++i] : a.slice('--format='.length);
        if (!(FORMATS as readonly string[]).includes(v ?? '')) throw new Error(`--format takes one of ${FORMATS.join(', ')} (got ${JSON.stringify(v ?? null)})`);
        fmt = v as DiffFormat;
      } else if (!a.startsWith('-') || a === '-') {
        if (a === '-') throw new Error('reads files only (standard input cannot be both sides)');
        files.push(a);
      } else throw new Error(`unknown option ${JSON.stringify(a)}`);
    }
    if (files.length !== 2) throw new Error(`takes two files, A and B (got ${files.length})`);
  } catch (e) {
    io.stderr.write(`diff: ${oneLine((e as Error).message)}\n`);
    return 2;
  }
  const sides: CompareSide[] = [];
  for (const file of files) {
    try {
      sides.push(await sideOf(file));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why =
        e instanceof InputError || e instanceof ScanError
          ? e.message
          : code === 'ENOENT'
            ? 'no such file'
            : code === 'EACCES'
              ? 'permission denied'
              : `cannot be read (${code ?? (e as Error).message})`;
      io.stderr.write(`diff: ${file}: ${oneLine(why)}\n`);
      return 2;
    }
  }
  const c = compareSessions(sides[0]!, sides[1]!);
  const [a, b] = files as [string, string];
  io.stdout.write(fmt === 'json' ? `${JSON.stringify({ version: io.version, before: a, after: b, ...c }, null, 2)}\n` : fmt === 'markdown' ? markdown(c, a, b) : text(c, a, b));
  return 0;
}

function ms(n: number): string {
  return `${Math.round(n)} ms`;
}

function statsText(s: LatencyStats | undefined): string {
  return s ? `${s.count} × p50 ${ms(s.p50)} p95 ${ms(s.p95)} max ${ms(s.max)}` : 'none';
}

function notes(c: Comparison): string[] {
  const { before, after } = c.droppedRequests;
  return before || after ? [`latency leaves out requests the model dropped to stay bounded (${before} before, ${after} after)`] : [];
}

export function text(c: Comparison, a: string, b: string): string {
  const out = [`${a} → ${b}`, '', 'Surfaces:'];
  for (const s of c.sentences) out.push(`  ${s.kind === 'added' ? '+' : s.kind === 'removed' ? '-' : '~'} ${s.text}`);
  if (!c.sentences.length) out.push('  no change');
  out.push('', `Findings: ${c.findings.added.length} added, ${c.findings.gone.length} gone, ${c.findings.kept} kept`);
  for (const f of c.findings.added) out.push(`  + ${f.severity.padEnd(8)} ${f.rule} at ${f.place} (${f.count}): ${f.message}`);
  for (const f of c.findings.gone) out.push(`  - ${f.severity.padEnd(8)} ${f.rule} at ${f.place} (${f.count})`);
  out.push('', 'Latency (before → after):');
  for (const r of c.latency) out.push(`  ${r.action}: ${statsText(r.before)} → ${statsText(r.after)}`);
  if (!c.latency.length) out.push('  no answered request');
  for (const n of notes(c)) out.push(`  note: ${n}`);
  return `${out.join('\n')}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

export function markdown(c: Comparison, a: string, b: string): string {
  const out = [`## OUI session diff: \`${cell(a)}\` → \`${cell(b)}\``, '', '### Surfaces', ''];
  for (const s of c.sentences) out.push(`- ${s.kind === 'added' ? '➕' : s.kind === 'removed' ? '➖' : '✏️'} ${s.text}`);
  if (!c.sentences.length) out.push('No change.');
  out.push('', `### Findings: ${c.findings.added.length} added, ${c.findings.gone.length} gone, ${c.findings.kept} kept`, '');
  if (c.findings.added.length || c.findings.gone.length) {
    out.push('| | severity | rule | place | count | example |', '| --- | --- | --- | --- | --- | --- |');
    for (const f of c.findings.added) out.push(`| added | ${f.severity} | \`${f.rule}\` | \`${cell(f.place)}\` | ${f.count} | ${cell(f.message)} |`);
    for (const f of c.findings.gone) out.push(`| gone | ${f.severity} | \`${f.rule}\` | \`${cell(f.place)}\` | ${f.count} | ${cell(f.message)} |`);
  }
  out.push('', '### Latency', '');
  if (c.latency.length) {
    out.push('| action | count | p50 | p95 | max |', '| --- | --- | --- | --- | --- |');
    const pair = (x: LatencyStats | undefined, y: LatencyStats | undefined, k: keyof LatencyStats) => `${x ? (k === 'count' ? x[k] : ms(x[k])) : '–'} → ${y ? (k === 'count' ? y[k] : ms(y[k])) : '–'}`;
    for (const r of c.latency) out.push(`| \`${cell(r.action)}\` | ${pair(r.before, r.after, 'count')} | ${pair(r.before, r.after, 'p50')} | ${pair(r.before, r.after, 'p95')} | ${pair(r.before, r.after, 'max')} |`);
  } else out.push('No answered request.');
  for (const n of notes(c)) out.push('', `_${n}_`);
  return `${out.join('\n')}\n`;
}
