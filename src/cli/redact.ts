/**
 * `oui-devtools redact IN OUT`: a session file or a HAR made elsewhere, with
 * its secrets replaced (src/session/redact), the list of what was replaced
 * and the findings judged before redaction carried in the output, so that
 * `oui-devtools lint OUT` reports what `lint IN` reports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { exportSession, parseSessionFile, sessionFileText } from '../session/wire/session-file.ts';
import { redactRecording, mergeInfo, verdictsFor } from '../session/redact/session.ts';
import { redactHarFile } from '../session/redact/har-file.ts';
import { REDACTION_RULES, type RedactionRule, type UserPointer } from '../session/redact/redactor.ts';
import { parsePointer } from '../session/redact/pointer.ts';
import { lintStream, type Io } from './lint.ts';

export const REDACT_USAGE = `Usage: oui-devtools redact [options] IN OUT

Writes OUT: the session file or HAR IN with its secrets replaced by
"[REDACTED]" (a number by 0): values the surfaces' schemas declare writeOnly
or format "password", members named like secrets (password, token, secret,
authorization, cookie, api key, …), card numbers (Luhn), and your own JSON
pointers; in a HAR also secret headers, cookies and query members. OUT lists
what was replaced (never the values) and carries the findings judged before
redaction, so \`oui-devtools lint OUT\` reports the same findings as IN.
IN or OUT "-" is standard input or output.

Options:
  --pointer [ORIGIN=]POINTER   also redact the value at this JSON pointer (RFC 6901)
                               in every event payload (of clients of ORIGIN only,
                               e.g. https://shop.example=/params/otp) (repeatable)
  --off RULE                   turn a rule off: ${REDACTION_RULES.join(', ')} (repeatable)
  -h, --help                   show this help`;

function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

async function readAll(io: Io, path: string): Promise<string> {
  if (path !== '-') return readFileSync(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/** `[ORIGIN=]POINTER`: an origin has a scheme (`https://…`) and no "/" after its host; a pointer starts with "/". */
export function parsePointerOption(v: string): UserPointer {
  const eq = v.startsWith('/') ? -1 : v.indexOf('=');
  const origin = eq > 0 ? v.slice(0, eq) : undefined;
  const pointer = eq > 0 ? v.slice(eq + 1) : v;
  if (parsePointer(pointer) === null) throw new Error(`--pointer ${JSON.stringify(v)}: not a JSON pointer (RFC 6901: "" or starting with "/")`);
  return { ...(origin ? { origin } : {}), pointer };
}

export async function runRedact(args: string[], io: Io): Promise<number> {
  const files: string[] = [];
  const pointers: UserPointer[] = [];
  const off: RedactionRule[] = [];
  try {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-h' || a === '--help') {
        io.stdout.write(`${REDACT_USAGE}\n`);
        return 0;
      }
      const eq = a.indexOf('=');
      const [flag, inline] = eq > 0 && (a.startsWith('--pointer=') || a.startsWith('--off=')) ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
      if (flag === '--pointer' || flag === '--off') {
        const v = inline ?? args[++i];
        if (v === undefined) throw new Error(`${flag} takes a value`);
        if (flag === '--pointer') pointers.push(parsePointerOption(v));
        else {
          if (!(REDACTION_RULES as readonly string[]).includes(v)) throw new Error(`--off takes one of ${REDACTION_RULES.join(', ')} (got ${JSON.stringify(v)})`);
          off.push(v as RedactionRule);
        }
      } else if (a === '-' || !a.startsWith('-')) files.push(a);
      else throw new Error(`unknown option ${JSON.stringify(a)}`);
    }
    if (files.length !== 2) throw new Error(`takes IN and OUT (got ${files.length} ${files.length === 1 ? 'file' : 'files'})`);
  } catch (e) {
    io.stderr.write(`redact: ${oneLine((e as Error).message)}\n`);
    return 2;
  }
  const [inPath, outPath] = files as [string, string];
  let text: string;
  try {
    text = await readAll(io, inPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr.write(`redact: ${inPath}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : oneLine(String(e))}\n`);
    return 2;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    io.stderr.write(`redact: ${inPath}: not JSON (${oneLine((e as Error).message).slice(0, 120)})\n`);
    return 2;
  }
  const opts = { pointers, off };
  let out: string;
  let summary: string;
  /** The findings judged before redaction the output carries. */
  let carried: number;
  const d = data as Record<string, unknown>;
  try {
    if (d && typeof d === 'object' && 'format' in d) {
      const parsed = parseSessionFile(text);
      if (!parsed.ok) {
        io.stderr.write(`redact: ${inPath}: ${oneLine(parsed.error)}\n`);
        return 2;
      }
      const file = parsed.file;
      // The findings judged before redaction: what lint says of IN (which, for IN redacted before, are its carried ones).
      const findings = (await lintStream([text])).findings;
      const r = redactRecording(file.clients, file.events, opts);
      const verdicts = verdictsFor(file.verdicts ?? findings, r.scrub);
      const info = mergeInfo(file.redaction, r.info);
      const exported = exportSession(r.clients, r.events, new Date(), { redaction: info, verdicts });
      if (file.exportedAt) exported.exportedAt = file.exportedAt;
      out = sessionFileText(exported);
      summary = counts(r.info.counts, r.info.redacted.length);
      carried = verdicts.findings.length;
    } else if (d && typeof d === 'object' && d.log && typeof d.log === 'object') {
      const r = await redactHarFile(data, text, opts);
      out = r.text;
      summary = counts(r.info.counts, r.info.redacted.length);
      carried = r.carried;
    } else {
      io.stderr.write(`redact: ${inPath}: not an OUI DevTools session or a HAR (no "format", no "log")\n`);
      return 2;
    }
  } catch (e) {
    io.stderr.write(`redact: ${inPath}: ${oneLine((e as Error).message)}\n`);
    return 2;
  }
  try {
    if (outPath === '-') io.stdout.write(out);
    else writeFileSync(outPath, out);
  } catch (e) {
    io.stderr.write(`redact: ${outPath}: cannot be written (${oneLine((e as NodeJS.ErrnoException).code ?? String(e))})\n`);
    return 2;
  }
  io.stderr.write(`redact: ${outPath === '-' ? '<stdout>' : outPath}: ${summary}; ${carried} ${carried === 1 ? 'finding' : 'findings'} judged before redaction carried\n`);
  return 0;
}

function counts(c: Record<RedactionRule, number>, total: number): string {
  const parts = REDACTION_RULES.filter((r) => c[r]).map((r) => `${c[r]} ${r}`);
  return `${total} ${total === 1 ? 'value' : 'values'} redacted${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
