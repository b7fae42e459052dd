/**
 * `oui-devtools lint`'s outputs, exactly: the bundled CLI on a fixed input
 * (test/fixtures/golden/session.json and traffic.har, made by make-input.ts),
 * once per format, compared with test/fixtures/golden/lint.*. Only the tool's
 * version is normalised (the CLI runs in the fixtures' folder on relative
 * names, so no absolute path appears; one would be replaced too).
 *
 *   UPDATE_GOLDEN=1 node --import tsx --test test/unit/cli-golden.test.ts
 *
 * rewrites the expected outputs (never the inputs); review the diff. The
 * golden files are a change detector only: the CLI wrote them. What makes the
 * outputs right is checked independently below:
 * - json: valid against lint-json.schema.json (written from the README, with
 *   Ajv, not the product's validator); its summary counts its findings; every
 *   finding's path resolves in the input file to the event it names, on the
 *   line it names; a hash-mismatch's hashes are recomputed with the demo's
 *   independent surfacesHash;
 * - text: parsed line by line and compared with the json findings;
 * - github: parsed with GitHub's workflow-command grammar
 *   (`::error|warning|notice k=v,…::message`, `%`, CR, LF escaped in the
 *   message and also `:` and `,` in properties) and compared with the json
 *   findings, including a file name and a message that need escaping.
 *
 * Then the two formats that have a published schema are validated against
 * it: SARIF against the OASIS SARIF 2.1.0 JSON schema (@cfworker/json-schema),
 * JUnit against Jenkins' junit-4.xsd (libxml2's xmllint, as WebAssembly);
 * see test/fixtures/schemas/README.md for where each came from.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator, type Schema } from '@cfworker/json-schema';
import { validateXML } from 'xmllint-wasm';
import Ajv2020 from 'ajv/dist/2020.js';
import { capture, sessionFile } from '../fixtures/traffic.ts';
import { surfacesHash as independentSurfacesHash } from '../demo/independent/surfaces-hash.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
const GOLDEN = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
const SCHEMAS = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));
const INPUTS = ['session.json', 'traffic.har'];
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const FORMATS = [
  ['text', 'lint.text.txt'],
  ['json', 'lint.json'],
  ['junit', 'lint.junit.xml'],
  ['sarif', 'lint.sarif.json'],
  ['github', 'lint.github.txt'],
] as const;
type Format = (typeof FORMATS)[number][0];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI in `cwd` (the golden folder by default), with no config file read. */
function lint(format: Format, files: string[], cwd = GOLDEN): Run {
  const r = spawnSync(process.execPath, [CLI, 'lint', '--no-config', '--format', format, ...files], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What legitimately varies between machines and releases: the tool's version and where the repo is. */
function normalise(out: string): string {
  const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return out
    .replace(new RegExp(`("name": "oui-devtools",\\s*"version": )"${escaped(VERSION)}"`, 'g'), '$1"<version>"')
    .split(GOLDEN).join('<golden>/')
    .split(ROOT).join('<root>/');
}

const outputs = new Map<Format, Run>();

before(() => {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { encoding: 'utf8' });
  assert.equal(b.status, 0, b.stderr);
  for (const [format] of FORMATS) outputs.set(format, lint(format, INPUTS));
});

describe('oui-devtools lint: golden outputs', () => {
  for (const [format, name] of FORMATS) {
    it(`${format} is exactly ${name}`, () => {
      const r = outputs.get(format)!;
      assert.equal(r.status, 1, `exit 1: the input has errors\n${r.stderr}`);
      assert.equal(r.stderr, '', 'nothing on stderr');
      const actual = normalise(r.stdout);
      const path = join(GOLDEN, name);
      if (UPDATE) writeFileSync(path, actual);
      let expected: string;
      try {
        expected = readFileSync(path, 'utf8');
      } catch {
        assert.fail(`${name} is missing: run UPDATE_GOLDEN=1 node --import tsx --test test/unit/cli-golden.test.ts`);
      }
      assert.equal(actual, expected, `${format} output differs from ${name} (UPDATE_GOLDEN=1 rewrites it; review the diff)`);
    });
  }

  it('the golden input covers every severity but critical, both parties and both kinds of file', () => {
    const out = JSON.parse(outputs.get('json')!.stdout) as { files: Array<{ kind: string; findings: Array<{ severity: string; party: string; rule: string }> }> };
    assert.deepEqual(out.files.map((f) => f.kind), ['session', 'har']);
    const all = out.files.flatMap((f) => f.findings);
    assert.deepEqual([...new Set(all.map((f) => f.severity))].sort(), ['error', 'info', 'warning']);
    assert.deepEqual([...new Set(all.map((f) => f.party))].sort(), ['client', 'runtime']);
    assert.ok(out.files.every((f) => f.findings.length > 0));
  });
});

// -- schemas ------------------------------------------------------------------

const sarifSchema = JSON.parse(readFileSync(join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as Schema;
const junitXsd = readFileSync(join(SCHEMAS, 'jenkins-junit.xsd'), 'utf8');

function sarifErrors(text: string): string[] {
  // Draft 4, as the schema says; every error, not the first only.
  const v = new Validator(sarifSchema, '4', false).validate(JSON.parse(text));
  return v.valid ? [] : v.errors.map((e) => `${e.instanceLocation} ${e.keyword}: ${e.error}`);
}

/** xmllint --schema on each text (one WebAssembly run for all: each run costs about a second). */
async function junitErrors(...texts: string[]): Promise<string[]> {
  const r = await validateXML({ xml: texts.map((contents, i) => ({ fileName: `lint-${i}.junit.xml`, contents })), schema: [{ fileName: 'jenkins-junit.xsd', contents: junitXsd }] });
  return r.valid ? [] : r.errors.map((e) => e.rawMessage);
}

describe('oui-devtools lint: SARIF and JUnit against their schemas', () => {
  let awkward: { sarif: string; junit: string; clean: { sarif: string; junit: string }; named: { sarif: string; junit: string } };

  before(() => {
    // Text that needs escaping in XML and JSON: markup characters, quotes, a control character, an astral character, a lone surrogate.
    const dir = mkdtempSync(join(tmpdir(), 'oui-golden-'));
    try {
      const c = capture({ transport: 'websocket', requests: 1 });
      const last = c.items.at(-1)!;
      const id = `<b>&"'\u0007 \u{1F6D2} \ud800`;
      c.items.push({ ...last, seq: last.seq + 1, t: last.t + 3, dir: 'out', payload: { text: JSON.stringify({ type: 'surface:register', payload: { surface: { id, name: id, description: id, actions: [] }, timestamp: 1 } }) } });
      writeFileSync(join(dir, 'awkward.json'), sessionFile(c));
      writeFileSync(join(dir, 'clean.json'), sessionFile(capture({ transport: 'socket.io' })));
      writeFileSync(join(dir, 'my session #1 <&>.json'), sessionFile(capture({ transport: 'websocket', badHashAt: 0 })));
      const run = (format: Format, file: string) => lint(format, [file], dir);
      const s = run('sarif', 'awkward.json');
      const j = run('junit', 'awkward.json');
      assert.equal(s.status, 1, s.stderr);
      assert.equal(j.status, 1, j.stderr);
      const cs = run('sarif', 'clean.json');
      const cj = run('junit', 'clean.json');
      assert.equal(cs.status, 0, cs.stderr);
      const named = { sarif: run('sarif', 'my session #1 <&>.json').stdout, junit: run('junit', 'my session #1 <&>.json').stdout };
      awkward = { sarif: s.stdout, junit: j.stdout, clean: { sarif: cs.stdout, junit: cj.stdout }, named };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the SARIF output is valid SARIF 2.1.0 (OASIS schema)', () => {
    assert.deepEqual(sarifErrors(outputs.get('sarif')!.stdout), []);
    assert.deepEqual(sarifErrors(awkward.sarif), [], 'with text that needs escaping');
    assert.deepEqual(sarifErrors(awkward.clean.sarif), [], 'with no result');
    assert.ok(JSON.parse(awkward.sarif).runs[0].results.some((r: { ruleId: string }) => r.ruleId === 'surface-id'));
  });

  // artifactLocation.uri is a URI reference: a name with a space, '#', '<' or '>' is percent-encoded.
  it('a file name that needs percent-encoding gives valid SARIF, with the name percent-encoded', () => {
    const errors = sarifErrors(awkward.named.sarif);
    assert.equal(errors.length, 0, errors.at(-1));
    const uris = (JSON.parse(awkward.named.sarif) as { runs: Array<{ results: Array<{ locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }> }> }> }).runs[0]!.results.flatMap((r) =>
      (r.locations ?? []).map((l) => l.physicalLocation?.artifactLocation?.uri),
    );
    assert.ok(uris.length > 0, 'the results have locations');
    // RFC 3986: a path segment is unreserved / pct-encoded / sub-delims / ':' / '@'; decoded, it is the name given.
    for (const uri of new Set(uris)) {
      assert.match(uri ?? '', /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-F]{2})+$/, `${uri} is not a URI path segment`);
      assert.equal(decodeURIComponent(uri!), 'my session #1 <&>.json');
    }
  });

  it('the JUnit output is valid against Jenkins junit-4.xsd', async () => {
    // The golden output; text that needs escaping; no failure at all; a file name that needs escaping.
    assert.deepEqual(await junitErrors(outputs.get('junit')!.stdout, awkward.junit, awkward.clean.junit, awkward.named.junit), []);
    assert.match(awkward.junit, /<failure message="[^"]*&lt;b&gt;&amp;&quot;&apos;/);
  });

  it('the validators do reject what breaks the schemas (they are not vacuous)', async () => {
    const sarif = JSON.parse(outputs.get('sarif')!.stdout);
    sarif.runs[0].results[0].level = 'fatal';
    delete sarif.runs[0].tool.driver.name;
    const errors = sarifErrors(JSON.stringify(sarif));
    assert.ok(errors.some((e) => e.includes('/runs/0/results/0/level')), errors.join('\n'));
    assert.ok(errors.some((e) => e.includes('/runs/0/tool/driver') && e.includes('required')), errors.join('\n'));

    const junit = outputs.get('junit')!.stdout;
    const broken = {
      'a testcase without its required name': junit.replace(/ name="hash-mismatch: [^"]*"/, ''),
      'an element the schema does not have': junit.replace(/<\/testsuite>/, '<bogus/></testsuite>'),
      'XML that is not well-formed': junit.replace('</testsuites>', ''),
    };
    for (const [what, text] of Object.entries(broken)) assert.notEqual(text, junit, what);
    const xmlErrors = await junitErrors(...Object.values(broken));
    assert.ok(xmlErrors.some((e) => /lint-0\.junit\.xml.*testcase.*'name' is required/.test(e)), xmlErrors.join('\n'));
    assert.ok(xmlErrors.some((e) => /lint-1\.junit\.xml.*bogus/.test(e)), xmlErrors.join('\n'));
    assert.ok(xmlErrors.some((e) => /lint-2\.junit\.xml/.test(e)), xmlErrors.join('\n'));
  });
});

// -- json, text and github: independent checks ---------------------------------

interface JsonFinding {
  rule: string;
  severity: 'critical' | 'error' | 'warning' | 'info';
  section: string;
  party: 'client' | 'runtime';
  message: string;
  client: string;
  clientLabel: string;
  t: number;
  time: string;
  index: number | null;
  path: string | null;
  line: number | null;
  events: Array<{ id: string; index?: number; path?: string; line?: number }>;
}
interface JsonFile {
  file: string;
  kind: 'session' | 'har';
  events: number;
  clients: Array<{ key: string; kind: string; label: string }>;
  findings: JsonFinding[];
  experiments: number;
  notes: string[];
}
interface JsonOut {
  tool: { name: string; version: string };
  failOn: string;
  summary: Record<JsonFinding['severity'], number>;
  files: JsonFile[];
}

const lintJsonSchema = JSON.parse(readFileSync(join(GOLDEN, 'lint-json.schema.json'), 'utf8')) as object;
const AjvCtor = ((Ajv2020 as unknown as { default?: unknown }).default ?? Ajv2020) as new (o: object) => { compile(s: object): ((v: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null } };
const validateLintJson = new AjvCtor({ allErrors: true, strict: true }).compile(lintJsonSchema);
function lintJsonErrors(value: unknown): string[] {
  return validateLintJson(value) ? [] : (validateLintJson.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** `events[6]` / `log.entries[7]._webSocketMessages[5]` resolved in a parsed file. */
function resolvePath(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const m of path.matchAll(/([A-Za-z_]+)|\[(\d+)\]/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = m[1] !== undefined ? (v as Record<string, unknown>)[m[1]] : (v as unknown[])[Number(m[2])];
  }
  return v;
}

/** GitHub Actions workflow commands: `::name k=v,k=v::data`; data escapes %, CR, LF; property values also ':' and ','. */
function parseWorkflowCommand(line: string): { command: string; props: Record<string, string>; message: string } | null {
  const m = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/.exec(line);
  if (!m) return null;
  const unescape = (s: string) => s.replace(/%(25|0D|0A|3A|2C)/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  const props: Record<string, string> = {};
  for (const part of m[2] ? m[2].split(',') : []) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    props[part.slice(0, eq)] = unescape(part.slice(eq + 1));
  }
  if (/%(?!25|0D|0A)/i.test(m[3]!)) return null; // a bare '%' in data must have been escaped
  return { command: m[1]!, props, message: unescape(m[3]!) };
}

const GITHUB_COMMAND: Record<JsonFinding['severity'], string> = { critical: 'error', error: 'error', warning: 'warning', info: 'notice' };

function githubAgainstJson(githubText: string, out: JsonOut): void {
  assert.ok(githubText.endsWith('\n') || githubText === '');
  const lines = githubText.split('\n').slice(0, -1);
  const parsed = lines.map((l) => {
    const c = parseWorkflowCommand(l);
    assert.ok(c, `not a workflow command: ${JSON.stringify(l)}`);
    assert.ok(['error', 'warning', 'notice'].includes(c.command), l);
    for (const k of Object.keys(c.props)) assert.ok(['file', 'line', 'endLine', 'col', 'endColumn', 'title'].includes(k), `unknown annotation property ${k}`);
    return c;
  });
  const expected = out.files.flatMap((f) => [
    ...f.findings.map((x) => ({ kind: 'finding' as const, f, x })),
    ...f.notes.map((n) => ({ kind: 'note' as const, f, n })),
  ]);
  assert.equal(parsed.length, expected.length, 'one annotation per finding and per note');
  expected.forEach((e, i) => {
    const c = parsed[i]!;
    assert.equal(c.props.file, e.f.file === '<stdin>' ? 'stdin' : e.f.file);
    if (e.kind === 'note') {
      assert.equal(c.command, 'notice');
      assert.equal(c.message, e.n);
      return;
    }
    const x = e.x;
    assert.equal(c.command, GITHUB_COMMAND[x.severity], `${x.rule}: ${x.severity}`);
    assert.equal(c.props.line, x.line === null ? undefined : String(x.line));
    assert.equal(c.props.title, `${x.rule} (${x.section})`);
    assert.ok(c.message.startsWith(`${x.severity}: ${x.message} [`), `${c.message}\nshould start with ${x.severity}: ${x.message}`);
    assert.ok(c.message.includes(x.clientLabel) && c.message.includes(x.time) && c.message.includes(`${x.party} at fault`), c.message);
  });
}

const SEVERITY_ORDER = ['critical', 'error', 'warning', 'info'] as const;

function textAgainstJson(text: string, out: JsonOut): void {
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  let i = 0;
  for (const f of out.files) {
    const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
    assert.equal(lines[i++], `${f.file} (${f.kind === 'har' ? 'HAR' : 'session'}: ${n(f.events, 'event')}, ${n(f.clients.length, 'client')})`);
    for (const x of f.findings) {
      const head = /^ {2}(\S+) +(\S+) {2}(.+) {2}(client|runtime) at fault$/.exec(lines[i++] ?? '');
      assert.ok(head, `finding header: ${lines[i - 1]}`);
      assert.deepEqual(head.slice(1), [x.severity, x.rule, x.section, x.party]);
      assert.equal(lines[i++], `           ${x.message}`);
      const where = x.line === null ? f.file : `${f.file}:${x.line} ${x.path} (event #${x.index})`;
      assert.equal(lines[i++], `           client ${x.clientLabel} · ${x.time} · ${where}`);
    }
    if (!f.findings.length) assert.equal(lines[i++], '  no findings');
    for (const note of f.notes) assert.equal(lines[i++], `  note: ${note}`);
    if (f.experiments) assert.match(lines[i++] ?? '', /^ {2}note: \d+ findings? of injected or replayed requests left out$/);
  }
  assert.equal(lines[i++], '');
  const all = out.files.flatMap((f) => f.findings);
  const parts = SEVERITY_ORDER.map((s) => [s, all.filter((x) => x.severity === s).length] as const).filter(([, k]) => k > 0).map(([s, k]) => `${k} ${s}`);
  assert.equal(lines[i++], `${all.length} finding${all.length === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''} in ${out.files.length} file${out.files.length === 1 ? '' : 's'}`);
  assert.equal(i, lines.length, 'nothing after the summary');
}

describe('oui-devtools lint: json, text and github checked independently of the goldens', () => {
  let json: JsonOut;
  before(() => {
    json = JSON.parse(outputs.get('json')!.stdout) as JsonOut;
  });

  it('the json output is valid against lint-json.schema.json (written from the README)', () => {
    assert.deepEqual(lintJsonErrors(json), []);
    // and the schema is not vacuous
    const broken = structuredClone(json) as unknown as { files: Array<{ findings: Array<Record<string, unknown>> }>; summary: Record<string, unknown> };
    broken.files[0]!.findings[0]!.party = 'server';
    delete broken.files[0]!.findings[0]!.section;
    broken.summary.error = -1;
    const errors = lintJsonErrors(broken);
    assert.ok(errors.some((e) => e.startsWith('/files/0/findings/0/party')), errors.join('\n'));
    assert.ok(errors.some((e) => e.includes("required property 'section'")), errors.join('\n'));
    assert.ok(errors.some((e) => e.startsWith('/summary/error')), errors.join('\n'));
  });

  it('the json summary counts its findings, and the exit status follows --fail-on', () => {
    const all = json.files.flatMap((f) => f.findings);
    for (const s of SEVERITY_ORDER) assert.equal(json.summary[s], all.filter((x) => x.severity === s).length, s);
    assert.equal(json.failOn, 'error');
    assert.ok(all.some((x) => x.severity === 'error' || x.severity === 'critical'));
    assert.equal(outputs.get('json')!.status, 1);
  });

  it('every json finding points at the event it names, on the line it names, in the input file', () => {
    let checked = 0;
    for (const f of json.files) {
      const text = readFileSync(join(GOLDEN, f.file), 'utf8');
      const parsed = JSON.parse(text) as unknown;
      const lines = text.split('\n');
      for (const x of f.findings) {
        assert.ok(x.path !== null && x.line !== null && x.index !== null, `${x.rule} has a location`);
        assert.deepEqual({ index: x.index, path: x.path, line: x.line }, { index: x.events[0]!.index, path: x.events[0]!.path, line: x.events[0]!.line });
        const target = resolvePath(parsed, x.path);
        assert.ok(target !== null && typeof target === 'object', `${f.file} ${x.path} resolves to an object`);
        assert.match(lines[x.line - 1] ?? '', /^\s*\{\s*$/, `${f.file}:${x.line} opens the object at ${x.path}`);
        if (f.kind === 'session') assert.equal((target as { id?: unknown }).id, x.events[0]!.id, `${x.path} is event ${x.events[0]!.id}`);
        assert.equal(new Date(x.t).toISOString(), x.time);
        const client = f.clients.find((c) => c.key === x.client);
        assert.ok(client, `client ${x.client} is listed`);
        assert.equal(client.label, x.clientLabel);
        checked++;
      }
    }
    assert.ok(checked >= 7, `${checked} findings checked`);
  });

  it('a hash-mismatch finding names the hash the result carries and the hash its surfaces have (recomputed independently)', () => {
    let checked = 0;
    for (const f of json.files) {
      const parsed = JSON.parse(readFileSync(join(GOLDEN, f.file), 'utf8')) as unknown;
      for (const x of f.findings.filter((y) => y.rule === 'hash-mismatch')) {
        const m = /^surfacesHash (fnv1a64:[0-9a-f]{16}) of the result for (\S+) does not match the surfaces it carries \(they hash to (fnv1a64:[0-9a-f]{16})\)$/.exec(x.message);
        assert.ok(m, x.message);
        const record = resolvePath(parsed, x.path!) as Record<string, unknown>;
        const frameText = [record.raw, record.data, (record as { payload?: { text?: unknown } }).payload?.text].find((v) => typeof v === 'string') as string;
        assert.ok(frameText, `${x.path} carries the frame's text`);
        // a WebSocket JSON frame `{type,payload}` or a Socket.IO packet `42["action:result",{…}]`
        const json0 = frameText.slice(frameText.search(/[[{]/));
        const frame = JSON.parse(json0) as unknown;
        const result = (Array.isArray(frame) ? frame[1] : (frame as { payload: unknown }).payload) as { requestId: string; surfacesHash: string; surfaces: unknown };
        assert.equal(result.requestId, m[2]);
        assert.equal(result.surfacesHash, m[1]);
        assert.equal(independentSurfacesHash(result.surfaces), m[3]);
        assert.notEqual(m[1], m[3]);
        checked++;
      }
    }
    assert.equal(checked, 2, 'one in the session file, one in the HAR');
  });

  it('the text output says what the json says, line by line', () => {
    textAgainstJson(outputs.get('text')!.stdout, json);
  });

  it('the github output is well-formed workflow commands that say what the json says', () => {
    githubAgainstJson(outputs.get('github')!.stdout, json);
  });

  it('github annotations escape a file name and a message that need it; text and json still agree', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oui-golden-gh-'));
    try {
      const c = capture({ transport: 'websocket', requests: 1 });
      const last = c.items.at(-1)!;
      const id = 'Bad: 100%, two\nlines\r';
      c.items.push({ ...last, seq: last.seq + 1, t: last.t + 3, dir: 'out', payload: { text: JSON.stringify({ type: 'surface:register', payload: { surface: { id, name: id, description: id, actions: [] }, timestamp: 1 } }) } });
      const name = 'odd: name, 100%.json';
      writeFileSync(join(dir, name), sessionFile(c));
      const gh = lint('github', [name], dir);
      const js = lint('json', [name], dir);
      const tx = lint('text', [name], dir);
      assert.equal(gh.status, 1, gh.stderr);
      const out = JSON.parse(js.stdout) as JsonOut;
      assert.deepEqual(lintJsonErrors(out), []);
      assert.ok(out.files[0]!.findings.some((x) => x.message.includes('\n')), 'a message with a line break to escape');
      githubAgainstJson(gh.stdout, out);
      assert.equal(gh.stdout.split('\n').length - 1, out.files[0]!.findings.length + out.files[0]!.notes.length, 'no raw line break inside an annotation');
      assert.ok(out.files[0]!.findings.length > 0);
      // text prints messages as they are; only check its header and summary here
      assert.ok(tx.stdout.startsWith(`${name} (session: `), tx.stdout.slice(0, 80));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
