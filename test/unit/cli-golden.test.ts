/**
 * `oui-devtools lint`'s outputs, exactly: the bundled CLI on a fixed input
 * (test/fixtures/golden/session.json and traffic.har, made by make-input.ts),
 * once per format, compared with test/fixtures/golden/lint.*. Only the tool's
 * version is normalised (the CLI runs in the fixtures' folder on relative
 * names, so no absolute path appears; one would be replaced too).
 *
 *   UPDATE_GOLDEN=1 node --import tsx --test test/unit/cli-golden.test.ts
 *
 * rewrites the expected outputs (never the inputs); review the diff.
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
import { capture, sessionFile } from '../fixtures/traffic.ts';

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

  // Known bug (src/cli/format.ts, sarif()): artifactLocation.uri is the file name as given, not a URI reference;
  // a name with a space, '#', '<' or '>' must be percent-encoded ("my%20session%20%231%20%3C&%3E.json").
  it('a file name that needs percent-encoding still gives valid SARIF', () => {
    const errors = sarifErrors(awkward.named.sarif);
    assert.equal(errors.length, 0, errors.at(-1));
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
