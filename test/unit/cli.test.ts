/**
 * `oui-devtools lint` as CI runs it: the bundled CLI (scripts/build-cli.mjs)
 * in a child process, on real files in a temp dir, for its exit status, its
 * one-line refusals and each output format.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { capture, chromeHar, sessionFile, type Transport } from '../fixtures/traffic.ts';
import { writeBigHar } from '../fixtures/big.ts';
import { RULES } from '../../src/session/model/rules.ts';
import { ensureFreshBuild } from '../support/fresh-build.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
let dir = '';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], opts: { cwd?: string; input?: string | Buffer; node?: string[] } = {}): Run {
  const r = spawnSync(process.execPath, [...(opts.node ?? []), CLI, ...args], { cwd: opts.cwd ?? dir, input: opts.input, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const file = (name: string, text: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** A refusal is exactly one line on stderr, never a stack trace. */
function oneLine(r: Run, pattern: RegExp): void {
  assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at |Error:/);
}

let clean = '';
let bad = '';
let badHar = '';

before(() => {
  ensureFreshBuild();
  dir = mkdtempSync(join(tmpdir(), 'oui-lint-'));
  clean = file('clean.json', sessionFile(capture({ transport: 'socket.io' })));
  const c = capture({ transport: 'polling-upgrade', requests: 3, badHashAt: 1 });
  bad = file('bad.json', sessionFile(c));
  badHar = file('bad.har', chromeHar(c));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Json = { files: Array<{ kind: string; findings: Array<Record<string, any>>; notes: string[] }>; summary: Record<string, number> };

describe('oui-devtools lint: exit status', () => {
  it('exits 0 on a clean session', () => {
    const r = run(['lint', clean]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /no findings/);
  });

  it('exits 1 on a violation and names the rule, section, party, client, time and place', () => {
    const r = run(['lint', bad]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /error\s+hash-mismatch\s+§7\.3\.4\s+client at fault/);
    assert.match(r.stdout, /client \/\/shop\.test\/socket\.io\/ \/ · 2026-01-01T\d\d:\d\d:\d\d\.\d{3}Z · .*bad\.json:1 events\[\d+\] \(event #\d+\)/);
  });

  for (const transport of ['websocket', 'socket.io', 'polling-upgrade'] as Transport[]) {
    it(`${transport}: the HAR and the session file give the same findings`, () => {
      const c = capture({ transport, requests: 3, badHashAt: 2 });
      const s = run(['lint', '--format', 'json', file(`${transport}.json`, sessionFile(c))]);
      const h = run(['lint', '--format', 'json', file(`${transport}.har`, chromeHar(c))]);
      assert.equal(s.status, 1);
      assert.equal(h.status, 1);
      const pick = (r: Run) => (JSON.parse(r.stdout) as Json).files[0]!.findings.map((f) => [f.rule, f.severity, f.section, f.party, f.clientLabel, f.time, f.message]);
      assert.deepEqual(pick(h), pick(s));
      assert.equal((JSON.parse(h.stdout) as Json).files[0]!.kind, 'har');
      const loc = (JSON.parse(h.stdout) as Json).files[0]!.findings[0]!;
      assert.match(loc.path, /^log\.entries\[\d+\]\._webSocketMessages\[\d+\]$/);
      assert.ok(loc.line > 1 && Number.isInteger(loc.index));
    });
  }

  it('--fail-on sets the threshold', () => {
    assert.equal(run(['lint', '--fail-on', 'critical', bad]).status, 0);
    assert.equal(run(['lint', '--fail-on', 'never', bad]).status, 0);
    assert.equal(run(['lint', '--fail-on=warning', bad]).status, 1);
  });

  it('--rule turns a rule off or changes its severity', () => {
    const off = run(['lint', '--rule', 'hash-mismatch=off', bad]);
    assert.equal(off.status, 0);
    assert.match(off.stdout, /no findings/);
    const warn = run(['lint', '--rule', 'hash-mismatch=warning', bad]);
    assert.equal(warn.status, 0);
    assert.match(warn.stdout, /warning\s+hash-mismatch/);
    assert.equal(run(['lint', '--rule', 'hash-mismatch=warning', '--fail-on', 'warning', bad]).status, 1);
    oneLine(run(['lint', '--rule', 'no-such-rule=off', bad]), /^lint: --rule: unknown rule "no-such-rule"$/);
    oneLine(run(['lint', '--rule', 'hash-mismatch=loud', bad]), /^lint: --rule: rule hash-mismatch must be one of off, info, warning, error, critical/);
  });

  it('reads .ouirc.json from the working directory or a parent, or --config; the command line wins', () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    writeFileSync(join(project, '.ouirc.json'), JSON.stringify({ failOn: 'critical', rules: { 'hash-mismatch': 'warning' } }));
    assert.equal(run(['lint', bad], { cwd: join(project, 'sub') }).status, 0);
    assert.equal(run(['lint', '--fail-on', 'warning', bad], { cwd: join(project, 'sub') }).status, 1);
    assert.equal(run(['lint', '--no-config', bad], { cwd: project }).status, 1);
    const other = file('other.json', JSON.stringify({ format: 'json', rules: { 'hash-mismatch': 'off' } }));
    const r = run(['lint', '--config', other, bad]);
    assert.equal(r.status, 0);
    assert.deepEqual((JSON.parse(r.stdout) as Json).files[0]!.findings, []);
    oneLine(run(['lint', '--config', file('typo.json', '{"failon":"error"}'), bad]), /unknown option "failon"/);
  });

  it('takes the timers from flags and .ouirc.json, and refuses a bad one in one line', () => {
    assert.equal(run(['lint', '--no-config', '--sync-timeout', '60s', '--ack-timeout', '2000', '--pull-timeout=5s', '--reanswer-interval', '1m', clean]).status, 0);
    assert.equal(run(['lint', '--config', file('timers.json', JSON.stringify({ timers: { syncMs: 60000, reanswerMs: 4000 } })), clean]).status, 0);
    oneLine(run(['lint', '--no-config', '--sync-timeout', 'soon', clean]), /^lint: --sync-timeout takes milliseconds, or a number with s or m \(30000, 30s, 2m\) \(got "soon"\)$/);
    oneLine(run(['lint', '--no-config', '--reanswer-interval', '0', clean]), /^lint: --reanswer-interval must be more than 0 and at most a day \(got "0"\)$/);
    oneLine(run(['lint', '--config', file('bad-timer.json', JSON.stringify({ timers: { syncMs: -1 } })), clean]), /^lint: config .*bad-timer\.json: timers\.syncMs must be a number of milliseconds/);
    oneLine(run(['lint', '--config', file('typo-timer.json', JSON.stringify({ timers: { sync: 1000 } })), clean]), /^lint: config .*typo-timer\.json: unknown timer "sync"/);
    assert.match(run(['lint', '--help']).stdout, /--sync-timeout MS[\s\S]*--ack-timeout MS[\s\S]*--pull-timeout MS[\s\S]*--reanswer-interval MS/);
  });

  it('reads standard input', () => {
    const r = run(['lint', '--format', 'json', '-'], { input: chromeHar(capture({ transport: 'websocket', badHashAt: 0 })) });
    assert.equal(r.status, 1, r.stderr);
    assert.equal((JSON.parse(r.stdout) as Json).files[0]!.findings[0]!.rule, 'hash-mismatch');
  });

  it('prints usage with --help and refuses a wrong command line with exit 2', () => {
    const h = run(['lint', '--help']);
    assert.equal(h.status, 0);
    assert.match(h.stdout, /Usage: oui-devtools lint/);
    assert.match(run(['--help']).stdout, /--fail-on/);
    oneLine(run(['lint']), /^lint: no input/);
    oneLine(run(['lint', '--format', 'xml', bad]), /^lint: --format must be one of text, json, junit, sarif, github/);
    oneLine(run(['lint', '--bogus', bad]), /^lint: unknown option --bogus/);
    oneLine(run(['frobnicate']), /unknown command/);
  });
});

describe('oui-devtools lint: unusable input', () => {
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['garbage', 'hello world', /^lint: .*garbage: not JSON \(it starts with "h"\)$/],
    ['empty', '', /^lint: .*empty: empty file$/],
    ['truncated', sessionFile(capture({ transport: 'websocket' })).slice(0, 700), /^lint: .*truncated: truncated JSON \(input ends inside events\[\d+\]\)$/],
    ['array', '[1,2,3]', /JSON array, not an object/],
    ['other-json', '{"hello": 1}', /^lint: .*other-json: not a HAR or session file \(no log\.entries, no format\)$/],
    ['other-format', '{"format": "pcap", "events": []}', /not an OUI DevTools session: its format is "pcap"/],
    ['newer', '{"format": "oui-devtools-session", "version": 9, "clients": [], "events": []}', /unsupported version 9; this linter reads version 1 \(the file was written by a newer/],
    ['no-events', '{"format": "oui-devtools-session", "version": 1, "clients": [], "events": []}', /the session holds no events/],
    ['no-ws.har', JSON.stringify({ log: { version: '1.2', entries: [{ startedDateTime: '2026-01-01T00:00:00Z', time: 1, request: { method: 'GET', url: 'https://a.test/' }, response: { status: 200, content: { text: 'hi' } } }] } }), /no OUI traffic: 1 entry, none a WebSocket or Engine\.IO long-polling exchange/],
    ['bad-record', '{"format": "oui-devtools-session", "version": 1, "clients": [], "events": [{"id": tru}]}', /invalid JSON in events\[0\] \(line 1\)/],
    ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02]), /not JSON \(it starts with byte 0xff\)/],
  ];
  for (const [name, text, pattern] of cases) {
    it(`${name}: exit 2 with one line`, () => oneLine(run(['lint', file(name, text)]), pattern));
  }

  it('a missing file and stdin that is garbage', () => {
    oneLine(run(['lint', join(dir, 'nope.har')]), /nope\.har: no such file$/);
    oneLine(run(['lint', '-'], { input: '{"log": {"entries": [' }), /^lint: <stdin>: truncated JSON/);
  });

  it('still lints the other files, and exits 2', () => {
    const r = run(['lint', bad, join(dir, 'nope.har')]);
    assert.equal(r.status, 2);
    assert.match(r.stdout, /hash-mismatch/);
  });

  it('a 10,000-deep value in a frame is a finding or a line, never a stack trace', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const c = capture({ transport: 'websocket' });
    const har = JSON.parse(chromeHar(c));
    har.log.entries[0]._webSocketMessages.push({ type: 'send', time: c.items.at(-1)!.t / 1000 + 1, opcode: 1, data: `{"type":"observation:update","payload":{"surfaceId":"cart","observationId":"total","value":${deep},"timestamp":1}}` });
    const r = run(['lint', '--format', 'json', file('deep.har', JSON.stringify(har))]);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    // And the same depth in the file's own structure.
    const r2 = run(['lint', file('deep2.json', `{"format":"oui-devtools-session","version":1,"clients":[],"events":[${deep}]}`)]);
    assert.ok(r2.status === 2 && r2.stderr.trim().split('\n').length === 1, r2.stderr);
  });
});

describe('oui-devtools lint: formats', () => {
  it('json parses and carries every field', () => {
    const r = run(['lint', '--format', 'json', bad, clean]);
    const out = JSON.parse(r.stdout) as Json;
    assert.equal(out.files.length, 2);
    const f = out.files[0]!.findings[0]!;
    for (const k of ['rule', 'severity', 'section', 'party', 'message', 'client', 'clientLabel', 't', 'time', 'index', 'path', 'line', 'events']) assert.ok(k in f, k);
    assert.equal(out.summary.error, 1);
  });

  it('junit is XML with a testcase per rule, failing where a rule fired', () => {
    const r = run(['lint', '--format', 'junit', bad]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    assert.equal((r.stdout.match(/<testcase /g) ?? []).length, RULES.length);
    assert.match(r.stdout, /<testcase classname="[^"]*bad\.json" name="hash-mismatch: [^"]*">\n\s+<failure message="[^"]*" type="error">/);
    assert.match(r.stdout, new RegExp(`<testsuites name="oui-devtools lint" tests="${RULES.length}" failures="1" errors="0">`));
    wellFormed(r.stdout);
  });

  it('sarif is 2.1.0 with runs[0].results and the rules', () => {
    const out = JSON.parse(run(['lint', '--format', 'sarif', bad]).stdout);
    assert.equal(out.version, '2.1.0');
    assert.equal(out.runs[0].tool.driver.rules.length, RULES.length);
    const res = out.runs[0].results;
    assert.equal(res.length, 1);
    assert.equal(res[0].ruleId, 'hash-mismatch');
    assert.equal(res[0].level, 'error');
    assert.equal(out.runs[0].tool.driver.rules[res[0].ruleIndex].id, 'hash-mismatch');
    assert.match(res[0].locations[0].physicalLocation.artifactLocation.uri, /bad\.json$/);
    assert.equal(res[0].locations[0].physicalLocation.region.startLine, 1);
  });

  it('github prints workflow annotations', () => {
    const r = run(['lint', '--format', 'github', badHar]);
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.length >= 1);
    for (const l of lines) assert.match(l, /^::(error|warning|notice) file=[^,:]+(,line=\d+)?,title=[^:]+::\S.*$/);
    assert.match(lines[0]!, /^::error file=.*bad\.har,line=\d+,title=hash-mismatch \(§7\.3\.4\)::error: surfacesHash/);
  });
});

describe('oui-devtools lint: big input', () => {
  it('streams a large HAR in bounded memory', () => {
    const big = join(dir, 'big.har');
    const bytes = writeBigHar(big, 120_000, { pad: 200, badHashEvery: 100_000 });
    const r = run(['lint', '--format', 'json', big], { node: ['--import', `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss '+process.resourceUsage().maxRSS+'\\n'))`] });
    assert.equal(r.status, 1, r.stderr);
    const rssMB = Number(/maxrss (\d+)/.exec(r.stderr)![1]) / 1024;
    const fileMB = bytes / 1024 / 1024;
    assert.equal((JSON.parse(r.stdout) as Json).files[0]!.findings.filter((f) => f.rule === 'hash-mismatch').length, 1);
    // Holding the file as one string and its parse would take several times its size; streamed, what is live stays
    // bounded (the process runs in a 96 MB old space too) and the peak is V8's heap growing lazily: ~230 MB here,
    // ~400 MB for a 190 MB HAR (bench/lint-results.json).
    assert.ok(fileMB > 50, `${fileMB} MB`);
    assert.ok(rssMB < 350, `peak RSS ${rssMB.toFixed(0)} MB for a ${fileMB.toFixed(0)} MB file`);
    rmSync(big);
  });
});

/** Tags balance and attributes are quoted: enough to catch broken escaping. */
function wellFormed(xmlText: string): void {
  const body = xmlText.replace(/^<\?xml[^>]*\?>\s*/, '');
  const stack: string[] = [];
  const re = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([<>])/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body))) {
    assert.ok(!m[5], `stray ${m[5]} at ${m.index}`);
    if (m[4]) continue;
    if (m[1]) assert.equal(stack.pop(), m[2], `unbalanced </${m[2]}>`);
    else stack.push(m[2]!);
  }
  assert.deepEqual(stack, []);
}
