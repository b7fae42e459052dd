/**
 * The normative sentences of the OUI spec texts, as of oui-spec 0.6.0.
 *
 * The texts (`../shared/spec/`) are diffs between releases of `oui-spec`, so
 * the 0.6.0 text is known only where some diff shows it. This module rebuilds
 * that partial text and cuts it into sentences. It is pure: it takes the diffs
 * as strings and reads nothing.
 *
 * **Rebuilding 0.6.0.** Each diff's file names a release range on its first
 * line (`oui-spec 0.2.0 → 0.4.0`); a file whose first line names none (RFC
 * 0114, a neighbouring protocol) is left out. Diffs are applied oldest first.
 * Of a hunk, the context and `+` lines are the newer release's text, and a `-`
 * line is not: text a diff removed is not normative. A later diff's hunk
 * replaces, line for line, what an earlier diff showed of the lines it covers
 * (the later diff's old line numbers are the earlier one's new line numbers;
 * 0.4.0 → 0.4.1 is not published and changed no line the two diffs share,
 * which `reconstruct` checks by content), so where 0.6.0 changed text that
 * 0.4.0 added, 0.6.0 wins. Lines are then ordered by their 0.6.0 line number,
 * and a run of consecutive numbers is a *block*: no sentence spans a gap.
 *
 * **Units.** In Markdown: a paragraph is split into sentences; a list item is
 * split into sentences; a table row is one unit (rendered `Header: cell; …`);
 * headings, rules and table separators are none; inside a fenced code block
 * only comments of TypeScript (or of a block of unknown language) count. In
 * `.d.ts` files: every `/** … *\/` and `//` comment is read as Markdown (its
 * tables and lists too). Other files (`package.json`) are read line by line.
 *
 * **What is kept** (a unit's `reasons` say why):
 * - `keyword`: it carries an RFC 2119 keyword in any case, word-bounded,
 *   outside code spans (a backticked `required` is a field's name);
 * - `type-comment`: it is (part of) a comment in types: all are kept;
 * - `keyword-list`: it is an item of a list in which some item carries a
 *   keyword (the spec's requirement lists: a keywordless item of one is one of
 *   the requirements, e.g. §7.2's "contains the complete manifest");
 * - `keyword-table`: it is a row of a table whose header carries a keyword (a
 *   `Required` or `Recommended` column binds every row);
 * - `keyword-intro`: it is an item or row of a list or table that a keyword
 *   sentence ending in `:` introduces ("A result MAY carry …:").
 * A git hunk header's trailing text is a line of the older release cut at 80
 * characters; it is read as a paragraph (its cut-off last sentence keeps its
 * cut) unless some body line of the same diff starts with it.
 *
 * **Keys.** `normalise`: code spans' backticks and Markdown emphasis stripped,
 * whitespace collapsed, lowercased. One key is one entry: the same text in two
 * places (a `.d.ts` and its `.d.cts`) is one sentence with two `at`s.
 */

export const RFC2119 = /\b(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)\b/gi;

export type Reason = 'keyword' | 'type-comment' | 'keyword-list' | 'keyword-table' | 'keyword-intro';
export type UnitKind = 'sentence' | 'list-item' | 'table-row' | 'type-comment' | 'hunk-header';

export interface Location {
  /** The diff file, e.g. `000_625037145bd52f38.txt`. */
  file: string;
  /** 1-based line in the diff file where the unit starts. */
  line: number;
  /** The package file the diff shows, e.g. `package/spec/OUI-SPEC-v0.1.md`. */
  path: string;
}

export interface SpecSentence {
  /** `normalise(text)`: the stable key. */
  key: string;
  /** The unit as written, whitespace collapsed. */
  text: string;
  kind: UnitKind;
  reasons: Reason[];
  /** RFC 2119 keywords in it, upper case, in order. */
  keywords: string[];
  /** The nearest heading (Markdown) or declaration (types) visible before it; the diff may hide a nearer one. */
  context: string;
  at: Location[];
}

export interface DiffInput {
  /** File name, used in locations. */
  name: string;
  text: string;
}

// ---------------------------------------------------------------- parsing diffs

interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
  /** Line in the diff file (1-based). */
  src: number;
  /** Line number in the older release (context and `-`). */
  oldNo?: number;
  /** Line number in the newer release (context and `+`). */
  newNo?: number;
}

interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** The text after the second `@@`. */
  header: string;
  headerSrc: number;
  lines: DiffLine[];
}

interface FileDiff {
  /** The newer path (`{a → b}` resolved to b). */
  path: string;
  hunks: Hunk[];
}

export interface ParsedDiff {
  name: string;
  from: string;
  to: string;
  files: FileDiff[];
}

const RELEASE_LINE = /^oui-spec\s+(\d+\.\d+\.\d+)\s+→\s+(\d+\.\d+\.\d+)\s*$/;
const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;
const FILE_LINE = /^package\/\S.*$/;

/** The release range a diff names on its first line, or null (not an oui-spec diff). */
export function releaseRange(text: string): { from: string; to: string } | null {
  const m = RELEASE_LINE.exec(text.split('\n', 1)[0] ?? '');
  return m ? { from: m[1]!, to: m[2]! } : null;
}

function resolvePath(p: string): string {
  // `dir/{old → new}` names a renamed file by its new name.
  return p.replace(/\{[^{}]*?→\s*([^{}]*)\}/g, '$1').trim();
}

export function parseDiff(input: DiffInput): ParsedDiff | null {
  const range = releaseRange(input.text);
  if (!range) return null;
  const lines = input.text.split('\n');
  const files: FileDiff[] = [];
  let file: FileDiff | null = null;
  let hunk: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const src = i + 1;
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const op = line[0];
      const text = line.slice(1);
      if (op === ' ' || line === '') {
        hunk.lines.push({ op: ' ', text: line === '' ? '' : text, src, oldNo: oldNo++, newNo: newNo++ });
        oldLeft--;
        newLeft--;
        continue;
      }
      if (op === '-') {
        hunk.lines.push({ op: '-', text, src, oldNo: oldNo++ });
        oldLeft--;
        continue;
      }
      if (op === '+') {
        hunk.lines.push({ op: '+', text, src, newNo: newNo++ });
        newLeft--;
        continue;
      }
      if (op === '\\') continue; // "\ No newline at end of file"
      // Anything else ends the hunk early (a malformed count); fall through.
    }
    const h = HUNK.exec(line);
    if (h && file) {
      hunk = {
        oldStart: Number(h[1]),
        oldCount: h[2] === undefined ? 1 : Number(h[2]),
        newStart: Number(h[3]),
        newCount: h[4] === undefined ? 1 : Number(h[4]),
        header: h[5] ?? '',
        headerSrc: src,
        lines: [],
      };
      oldNo = hunk.oldStart;
      newNo = hunk.newStart;
      oldLeft = hunk.oldCount;
      newLeft = hunk.newCount;
      file.hunks.push(hunk);
      continue;
    }
    if (FILE_LINE.test(line)) {
      file = { path: resolvePath(line), hunks: [] };
      files.push(file);
      hunk = null;
      oldLeft = newLeft = 0;
    }
  }
  return { name: input.name, from: range.from, to: range.to, files };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

// ---------------------------------------------------------------- rebuilding the newest text

/** A line of the newest text that some diff shows. */
export interface TextLine {
  text: string;
  /** Line number in the newest release. */
  no: number;
  at: Location;
}

/** A run of consecutive known lines of one file in the newest release. */
export interface Block {
  path: string;
  lines: TextLine[];
  /** Hunk headers that open a hunk inside this block: text of an older line. */
  headers: { text: string; at: Location; shownInBody: boolean }[];
}

interface FileText {
  path: string;
  /** Newest-release line number → line. */
  lines: Map<number, TextLine>;
  headers: Block['headers'];
}

/**
 * The newest text the diffs show, per file, as blocks. `diffs` in any order;
 * non-oui-spec inputs are dropped. Throws when two diffs disagree about a line
 * they both show (then the line arithmetic is wrong, and so would be the text).
 */
export function reconstruct(inputs: DiffInput[]): Block[] {
  const diffs = inputs
    .map(parseDiff)
    .filter((d): d is ParsedDiff => d !== null)
    .sort((a, b) => compareVersions(a.from, b.from));
  const texts = new Map<string, FileText>();
  // Every line any diff shows of a file (context, `+` or `-`): a hunk header that starts one is no news.
  const allLines = new Map<string, Set<string>>();
  for (const diff of diffs) {
    for (const file of diff.files) {
      const prev = texts.get(file.path);
      const next: FileText = { path: file.path, lines: new Map(), headers: [] };
      // Lines this diff removed or kept, by their old number: its old text where shown.
      const covered = (n: number) => file.hunks.some((h) => n >= h.oldStart && n < h.oldStart + h.oldCount);
      const shift = (n: number) => {
        let d = 0;
        for (const h of file.hunks) if (h.oldStart + h.oldCount <= n) d += h.newCount - h.oldCount;
        return n + d;
      };
      if (prev) {
        for (const [n, line] of prev.lines) {
          if (covered(n)) continue; // this diff's hunk shows (or removed) it: the hunk wins
          next.lines.set(shift(n), { ...line, no: shift(n) });
        }
        for (const h of prev.headers) next.headers.push(h);
      }
      const seen = allLines.get(file.path) ?? new Set<string>();
      for (const h of file.hunks) for (const l of h.lines) seen.add(l.text.trim());
      allLines.set(file.path, seen);
      for (const h of file.hunks) {
        for (const l of h.lines) {
          if (l.op === ' ' && prev && l.oldNo !== undefined) {
            const was = prev.lines.get(l.oldNo);
            if (was && was.text.trimEnd() !== l.text.trimEnd()) {
              throw new Error(`${diff.name}:${l.src} shows old line ${l.oldNo} of ${file.path} as ${JSON.stringify(l.text)}, an earlier diff as ${JSON.stringify(was.text)}`);
            }
          }
          if (l.op === '-' && prev && l.oldNo !== undefined) {
            const was = prev.lines.get(l.oldNo);
            if (was && was.text.trimEnd() !== l.text.trimEnd()) {
              throw new Error(`${diff.name}:${l.src} removes old line ${l.oldNo} of ${file.path} as ${JSON.stringify(l.text)}, an earlier diff shows ${JSON.stringify(was.text)}`);
            }
          }
          if (l.op === '-' || l.newNo === undefined) continue;
          next.lines.set(l.newNo, { text: l.text, no: l.newNo, at: { file: diff.name, line: l.src, path: file.path } });
        }
        const header = h.header.trim();
        if (header) next.headers.push({ text: header, at: { file: diff.name, line: h.headerSrc, path: file.path }, shownInBody: false });
      }
      texts.set(file.path, next);
    }
  }
  const blocks: Block[] = [];
  for (const t of texts.values()) {
    const nos = [...t.lines.keys()].sort((a, b) => a - b);
    let cur: Block | null = null;
    let last = -2;
    for (const n of nos) {
      if (!cur || n !== last + 1) {
        cur = { path: t.path, lines: [], headers: [] };
        blocks.push(cur);
      }
      cur.lines.push(t.lines.get(n)!);
      last = n;
    }
    // Headers go with the first block of their file; their text is unplaced.
    const first = blocks.find((b) => b.path === t.path);
    const seen = [...(allLines.get(t.path) ?? [])];
    if (first) first.headers.push(...t.headers.map((h) => ({ ...h, shownInBody: seen.some((l) => l.startsWith(h.text)) })));
  }
  return blocks;
}

// ---------------------------------------------------------------- text helpers

/** The stable key of a sentence. */
export function normalise(text: string): string {
  return stripMarkdown(text).replace(/\s+/g, ' ').trim().toLowerCase();
}

function stripMarkdown(text: string): string {
  return text
    .replace(/`+([^`]*?)`+/g, '$1')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/__(.+?)__/g, '$1')
    .replace(/(^|[^\w*])\*(?!\s)([^*]+?)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?!\s)([^_]+?)_(?!\w)/g, '$1$2');
}

/** RFC 2119 keywords of a text, outside code spans, upper case. */
export function keywordsOf(text: string): string[] {
  const prose = text.replace(/`[^`]*`/g, ' ');
  return [...prose.matchAll(RFC2119)].map((m) => m[1]!.toUpperCase().replace(/\s+/g, ' '));
}

const ABBREVIATIONS = /(?:\be\.g|\bi\.e|\betc|\bvs|\bcf|\bapprox)\.$/i;

/** Sentences of a paragraph. A sentence ends at `.`, `!` or `?` before a space and a capital, backtick, quote, bracket or `§`. */
export function splitSentences(text: string): string[] {
  const t = text.replace(/\s+/g, ' ').trim();
  if (!t) return [];
  const out: string[] = [];
  let start = 0;
  const re = /[.!?](?:["')\]]*)(?=\s+[A-Z`"'(\[§*_])/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t))) {
    const end = m.index + m[0].length;
    const piece = t.slice(start, end);
    if (ABBREVIATIONS.test(t.slice(start, m.index + 1))) continue;
    // Inside a code span (an odd number of backticks so far): no end.
    if ((piece.match(/`/g)?.length ?? 0) % 2 === 1) continue;
    out.push(piece.trim());
    start = end;
  }
  const rest = t.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** Cells of a Markdown table line; `\|` is a pipe inside a cell. */
export function tableCells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return body.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

const isTableLine = (s: string) => /^\s*\|.*\|\s*$/.test(s);
const isSeparator = (s: string) => /^\s*\|(\s*:?-{2,}:?\s*\|)+\s*$/.test(s);
const BULLET = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/;
const HEADING = /^\s*#{1,6}\s+(.*)$/;
const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;

// ---------------------------------------------------------------- Markdown units

interface Unit {
  text: string;
  kind: UnitKind;
  reasons: Reason[];
  at: Location;
  context: string;
}

interface MdLine {
  text: string;
  at: Location;
}

type Piece =
  | { type: 'para'; lines: MdLine[] }
  | { type: 'list'; items: MdLine[][] }
  | { type: 'table'; rows: MdLine[] }
  | { type: 'heading'; text: string }
  | { type: 'code'; lang: string; lines: MdLine[] }
  | { type: 'break' };

/** Groups Markdown lines into paragraphs, lists, tables, headings and code. `startInCode` when the lines begin inside a fence. */
function pieces(lines: MdLine[], startInCode: boolean, startLang = ''): Piece[] {
  const out: Piece[] = [];
  let code: { type: 'code'; lang: string; lines: MdLine[] } | null = startInCode ? { type: 'code', lang: startLang, lines: [] } : null;
  let para: MdLine[] | null = null;
  let list: MdLine[][] | null = null;
  let table: MdLine[] | null = null;
  const flush = () => {
    if (para) out.push({ type: 'para', lines: para });
    if (list) out.push({ type: 'list', items: list });
    if (table) out.push({ type: 'table', rows: table });
    para = list = table = null;
  };
  for (const l of lines) {
    const s = l.text;
    const fence = FENCE.exec(s);
    if (code) {
      if (fence && !fence[2]) {
        out.push(code);
        code = null;
      } else code.lines.push(l);
      continue;
    }
    if (fence) {
      flush();
      code = { type: 'code', lang: fence[2]!.toLowerCase(), lines: [] };
      continue;
    }
    if (!s.trim()) {
      // A blank line ends a paragraph or table; a list survives one blank line between items.
      if (para || table) flush();
      if (list) {
        out.push({ type: 'list', items: list });
        list = null;
      }
      out.push({ type: 'break' });
      continue;
    }
    const h = HEADING.exec(s);
    if (h) {
      flush();
      out.push({ type: 'heading', text: h[1]!.trim() });
      continue;
    }
    if (/^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(s)) {
      flush();
      out.push({ type: 'break' });
      continue;
    }
    if (isTableLine(s)) {
      if (!table) flush();
      table ??= [];
      table.push(l);
      continue;
    }
    const b = BULLET.exec(s);
    if (b) {
      if (!list) flush();
      list ??= [];
      list.push([{ text: b[2]!, at: l.at }]);
      continue;
    }
    if (list && /^\s+\S/.test(s)) {
      list[list.length - 1]!.push({ text: s.trim(), at: l.at });
      continue;
    }
    if (table) flush();
    if (list) flush();
    para ??= [];
    para.push(l);
  }
  flush();
  if (code) out.push(code);
  return out;
}

function joinLines(ls: MdLine[]): string {
  return ls.map((l) => l.text.trim()).join(' ').replace(/\s+/g, ' ').trim();
}

/** Sentences of lines that may span several source lines: each with the location of the line it starts on. */
function sentencesWithLines(ls: MdLine[]): { text: string; at: Location }[] {
  const joined: { text: string; at: Location }[] = [];
  let offset = 0;
  const starts: { at: number; loc: Location }[] = [];
  const parts: string[] = [];
  for (const l of ls) {
    const t = l.text.trim();
    if (!t) continue;
    starts.push({ at: offset, loc: l.at });
    parts.push(t);
    offset += t.length + 1;
  }
  const whole = parts.join(' ');
  let cursor = 0;
  for (const s of splitSentences(whole)) {
    const idx = whole.indexOf(s, cursor);
    const pos = idx < 0 ? cursor : idx;
    let loc = starts[0]?.loc;
    for (const st of starts) if (st.at <= pos) loc = st.loc;
    joined.push({ text: s, at: loc! });
    cursor = pos + s.length;
  }
  return joined;
}

function renderRow(header: string[] | null, row: string[]): string {
  if (!header || header.length !== row.length) return `| ${row.join(' | ')} |`;
  return row.map((c, i) => `${header[i]}: ${c === '' ? '—' : c}`).join('; ');
}

/**
 * Units of Markdown lines. `all` keeps every unit (a type comment); otherwise
 * the keep rules of the module comment apply.
 */
function markdownUnits(lines: MdLine[], opts: { all: boolean; startInCode: boolean; startLang?: string; context: string; onHeading?: (h: string) => void }): Unit[] {
  const units: Unit[] = [];
  let context = opts.context;
  let intro = false; // the last paragraph ended in ':' with a keyword
  const ps = pieces(lines, opts.startInCode, opts.startLang);
  const mark = (all: boolean, kw: boolean, inherited: Reason | null): Reason[] => {
    const r: Reason[] = [];
    if (kw) r.push('keyword');
    if (all) r.push('type-comment');
    if (inherited && !kw) r.push(inherited);
    return r;
  };
  for (const p of ps) {
    if (p.type === 'break') continue;
    if (p.type === 'heading') {
      context = p.text;
      opts.onHeading?.(p.text);
      intro = false;
      continue;
    }
    if (p.type === 'code') {
      const lang = p.lang;
      if (lang === '' || lang === 'ts' || lang === 'typescript' || lang === 'tsx') {
        units.push(...codeUnits(p.lines, context));
      }
      intro = false;
      continue;
    }
    if (p.type === 'para' && p.lines.every((l) => /^(\s{2,}\S|\s*[{}\[\]])/.test(l.text))) {
      // Indented or bracket lines outside a visible fence: the middle of a code block whose fence the diff hides.
      units.push(...codeUnits(p.lines, context));
      intro = false;
      continue;
    }
    if (p.type === 'para') {
      const ss = sentencesWithLines(p.lines);
      for (const s of ss) {
        const kw = keywordsOf(s.text).length > 0;
        const reasons = mark(opts.all, kw, null);
        if (reasons.length) units.push({ text: s.text, kind: opts.all ? 'type-comment' : 'sentence', reasons, at: s.at, context });
      }
      const last = ss[ss.length - 1];
      intro = !!last && /:\s*$/.test(last.text) && keywordsOf(last.text).length > 0;
      continue;
    }
    if (p.type === 'list') {
      const listHasKeyword = p.items.some((it) => keywordsOf(joinLines(it)).length > 0);
      const inherited: Reason | null = intro ? 'keyword-intro' : listHasKeyword ? 'keyword-list' : null;
      for (const it of p.items) {
        for (const s of sentencesWithLines(it)) {
          const kw = keywordsOf(s.text).length > 0;
          const reasons = mark(opts.all, kw, inherited);
          if (reasons.length) units.push({ text: s.text, kind: opts.all ? 'type-comment' : 'list-item', reasons, at: s.at, context });
        }
      }
      intro = false;
      continue;
    }
    if (p.type === 'table') {
      let header: string[] | null = null;
      const rows: MdLine[] = [];
      p.rows.forEach((r, i) => {
        if (isSeparator(r.text)) return;
        if (i === 0 && p.rows[1] && isSeparator(p.rows[1].text)) header = tableCells(r.text);
        else rows.push(r);
      });
      const h = header as string[] | null;
      const headerKw = h ? keywordsOf(h.join(' ')).length > 0 : false;
      const inherited: Reason | null = intro ? 'keyword-intro' : headerKw ? 'keyword-table' : null;
      for (const r of rows) {
        const cells = tableCells(r.text);
        const text = renderRow(h, cells);
        const kw = keywordsOf(cells.join(' ')).length > 0;
        const reasons = mark(opts.all, kw, inherited);
        if (reasons.length) units.push({ text, kind: opts.all ? 'type-comment' : 'table-row', reasons, at: r.at, context });
      }
      intro = false;
    }
  }
  return units;
}

// ---------------------------------------------------------------- comments in code

const TOP_DECL = /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|const|function|class|enum)\s+([\w$]+)/;
const MEMBER = /^\s*(?:readonly\s+)?([\w$]+)\??\s*[:(]/;

/** Every `/** … *\/` and `//` comment of TypeScript lines, as Markdown, every unit kept. */
function codeUnits(lines: MdLine[], fileContext: string): Unit[] {
  const units: Unit[] = [];
  // In Markdown, a heading that names a type (Appendix A's `### OUISurfaceRegistration`) is the declaration.
  let top = /^[A-Za-z_$][\w$]*$/.test(fileContext) ? fileContext : '';
  let i = 0;
  const declAfter = (j: number): string => {
    for (let k = j; k < lines.length; k++) {
      const s = lines[k]!.text;
      if (!s.trim() || /^\s*(\/\*\*|\*|\/\/)/.test(s)) continue;
      const d = TOP_DECL.exec(s);
      if (d) return d[1]!;
      const m = MEMBER.exec(s);
      if (m) return top ? `${top}.${m[1]}` : m[1]!;
      return top || fileContext;
    }
    return top || fileContext;
  };
  while (i < lines.length) {
    const l = lines[i]!;
    const s = l.text;
    const d = TOP_DECL.exec(s);
    if (d) top = d[1]!;
    const open = s.indexOf('/*');
    if (open >= 0 && !/["'`]/.test(s.slice(0, open))) {
      // A block comment, possibly over several lines.
      const body: MdLine[] = [];
      let j = i;
      let rest = s.slice(open + 2).replace(/^\*/, '');
      for (;;) {
        const close = rest.indexOf('*/');
        const piece = close >= 0 ? rest.slice(0, close) : rest;
        body.push({ text: piece.replace(/^\s*\*(?!\/)\s?/, '').trimEnd(), at: lines[j]!.at });
        if (close >= 0 || j + 1 >= lines.length) break;
        j++;
        rest = lines[j]!.text;
      }
      const context = declAfter(j + 1);
      const inner = dedent(body);
      units.push(...markdownUnits(inner, { all: true, startInCode: false, context }).map((u) => ({ ...u, kind: 'type-comment' as const })));
      i = j + 1;
      continue;
    }
    const lc = /(^|\s)\/\/\s?(.*)$/.exec(s);
    if (lc && !/["'`]/.test(s.slice(0, lc.index))) {
      const before = s.slice(0, lc.index);
      const m = MEMBER.exec(before);
      const context = m ? (top ? `${top}.${m[1]}` : m[1]!) : declAfter(i + 1);
      const text = lc[2]!.trim();
      if (text) {
        for (const u of markdownUnits([{ text, at: l.at }], { all: true, startInCode: false, context })) units.push({ ...u, kind: 'type-comment' });
      }
    }
    i++;
  }
  return units;
}

function dedent(ls: MdLine[]): MdLine[] {
  const indents = ls.filter((l) => l.text.trim()).map((l) => /^\s*/.exec(l.text)![0].length);
  const min = indents.length ? Math.min(...indents) : 0;
  return ls.map((l) => ({ ...l, text: l.text.slice(min) }));
}

// ---------------------------------------------------------------- per block

/** Whether a Markdown block starts inside a fence: its first fence is bare and it has an odd number of fences. */
function startsInCode(lines: TextLine[]): boolean {
  const fences = lines.map((l) => FENCE.exec(l.text)).filter((m): m is RegExpExecArray => m !== null);
  return fences.length % 2 === 1 && fences[0]![2] === '';
}

function blockUnits(block: Block): Unit[] {
  const md: MdLine[] = block.lines.map((l) => ({ text: l.text, at: l.at }));
  const units: Unit[] = [];
  if (/\.md$/i.test(block.path)) {
    units.push(...markdownUnits(md, { all: false, startInCode: startsInCode(block.lines), context: block.path }));
    for (const h of block.headers) {
      if (h.shownInBody) continue;
      for (const u of markdownUnits([{ text: h.text, at: h.at }], { all: false, startInCode: false, context: '(hunk header)' })) {
        units.push({ ...u, kind: 'hunk-header' });
      }
    }
  } else if (/\.d\.c?ts$|\.tsx?$|\.c?js$|\.mjs$/i.test(block.path)) {
    units.push(...codeUnits(md, block.path));
  } else {
    for (const l of md) {
      if (keywordsOf(l.text).length) units.push({ text: l.text.trim(), kind: 'sentence', reasons: ['keyword'], at: l.at, context: block.path });
    }
  }
  return units;
}

/** The normative sentences of the newest release the diffs reach, deduplicated by key, in source order. */
export function extractSentences(inputs: DiffInput[]): SpecSentence[] {
  const byKey = new Map<string, SpecSentence>();
  for (const block of reconstruct(inputs)) {
    for (const u of blockUnits(block)) {
      const text = u.text.replace(/\s+/g, ' ').trim();
      const key = normalise(text);
      if (!key) continue;
      const have = byKey.get(key);
      if (have) {
        if (!have.at.some((a) => a.file === u.at.file && a.line === u.at.line)) have.at.push(u.at);
        for (const r of u.reasons) if (!have.reasons.includes(r)) have.reasons.push(r);
        continue;
      }
      byKey.set(key, { key, text, kind: u.kind, reasons: [...u.reasons], keywords: keywordsOf(text), context: u.context, at: [u.at] });
    }
  }
  const order = (s: SpecSentence) => s.at[0]!;
  return [...byKey.values()].sort((a, b) => order(a).file.localeCompare(order(b).file) || order(a).line - order(b).line);
}
