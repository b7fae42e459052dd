/**
 * `oui-devtools redact` through its real binary (dist/cli/oui-devtools.js),
 * on a recording with secrets (a token in params, a password its schema
 * declares writeOnly, a card number in an observation, a token in a URL):
 * none is left in the output, which `oui-devtools lint` judges to the same
 * findings as the original; the same for a HAR with an Authorization
 * header and a cookie; and lint's own output never quotes a secret.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { exportHar, harText } from '../../src/session/har/export.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { secretSession, secretForms, SECRETS } from './redact-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/oui-devtools.js');
let dir = '';

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What lint reports, as comparable lines: rule, severity, events. */
function findings(path: string): string[] {
  const r = run(['lint', '--format', 'json', '--fail-on', 'never', path]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { files: Array<{ findings: Array<{ rule: string; severity: string; events: Array<{ id: string }> }> }> };
  return out.files[0]!.findings.map((f) => `${f.severity} ${f.rule} ${f.events.map((e) => e.id).join(',')}`).sort();
}

before(async () => {
  await ensureFreshBuild();
  dir = mkdtempSync(join(tmpdir(), 'oui-redact-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('oui-devtools redact', () => {
  it('a session file: no secret left, the list of what was replaced, the same findings', () => {
    const input = join(dir, 'in.json');
    writeFileSync(input, JSON.stringify(secretSession(), null, 2));
    const r = run(['redact', 'in.json', 'out.json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^redact: out\.json: \d+ values redacted \(.*schema.*key.*card/);
    const out = readFileSync(join(dir, 'out.json'), 'utf8');
    for (const s of secretForms()) assert.equal(out.includes(s), false, `${s} left`);
    const file = JSON.parse(out);
    assert.equal(file.format, 'oui-devtools-session');
    assert.ok(file.redaction.redacted.length >= 6);
    assert.ok(Array.isArray(file.verdicts.findings));
    const before = findings(input);
    assert.ok(before.length >= 2, 'the original has findings to keep');
    assert.deepEqual(findings(join(dir, 'out.json')), before);
    // Redacting the markers judged alone would add the params' argsHash mismatch and the password's minLength: not reported.
    assert.ok(!findings(join(dir, 'out.json')).some((f) => /approval-hash-mismatch/.test(f)));
  });

  it('--pointer per origin, and again on a redacted file: the list grows, the verdicts stay', () => {
    const r = run(['redact', '--pointer', 'https://shop.example=/params/user', 'out.json', 'out2.json']);
    assert.equal(r.status, 0, r.stderr);
    const file = JSON.parse(readFileSync(join(dir, 'out2.json'), 'utf8'));
    assert.ok(file.redaction.redacted.some((x: { pointer: string; rule: string }) => x.pointer === '/params/user' && x.rule === 'pointer'));
    assert.equal(file.events[1].payload.params.user, '[REDACTED]');
    assert.deepEqual(findings(join(dir, 'out2.json')), findings(join(dir, 'in.json')));
    assert.equal(run(['redact', '--pointer', 'params', 'in.json', 'x.json']).status, 2);
  });

  it('a HAR made elsewhere: headers, cookies, frames; the same findings', () => {
    const s = secretSession() as { clients: WireClient[]; events: WireEvent[] };
    const har = exportHar(s.clients, s.events) as unknown as { log: { entries: Array<Record<string, any>> } };
    const entry = har.log.entries[0]!;
    entry.request.headers = [{ name: 'Authorization', value: `Bearer ${SECRETS.token}` }, { name: 'Accept', value: '*/*' }];
    entry.request.cookies = [{ name: 'sid', value: 's3ss10n-cookie-value' }];
    const input = join(dir, 'in.har');
    writeFileSync(input, harText(har as never));
    const r = run(['redact', 'in.har', 'out.har']);
    assert.equal(r.status, 0, r.stderr);
    const out = readFileSync(join(dir, 'out.har'), 'utf8');
    for (const s of [...secretForms(), 's3ss10n-cookie-value']) assert.equal(out.includes(s), false, `${s} left`);
    assert.ok(out.includes('"Accept"') && out.includes('*/*'), 'other headers kept');
    const before = findings(input);
    assert.ok(before.length >= 2);
    assert.deepEqual(findings(join(dir, 'out.har')), before);
    // Without the verdicts (a HAR redacted by the panel's HAR export): nothing judged on a marker is reported; a note says how much was left out.
    const bare = JSON.parse(out);
    delete bare.log._ouiVerdicts;
    writeFileSync(join(dir, 'bare.har'), JSON.stringify(bare));
    const found = findings(join(dir, 'bare.har'));
    assert.ok(found.every((f) => before.includes(f)), `only findings of the original: ${found.join('; ')}`);
    assert.match(run(['lint', '--fail-on', 'never', 'bare.har']).stdout, /carries no verdicts judged before redaction: \d+ findings? on redacted events or on hashes of their values left out/);
  });

  it('lint’s own output quotes no secret of an unredacted file (session or HAR)', () => {
    for (const input of [join(dir, 'in.json'), join(dir, 'in.har')])
      for (const format of ['text', 'json', 'sarif', 'junit', 'github']) {
        const r = run(['lint', '--format', format, '--fail-on', 'never', input]);
        assert.ok(r.stdout.length > 100, `${format}: a report`);
        for (const s of secretForms()) assert.equal(r.stdout.includes(s), false, `${format} of ${input} quotes ${s}`);
      }
  });

  it('refusals are one line: no file, not a recording, usage', () => {
    for (const args of [['redact', 'nope.json', 'o.json'], ['redact', 'in.json'], ['redact', '--off', 'nothing', 'in.json', 'o.json']]) {
      const r = run(args);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^redact: [^\n]+\n$/);
    }
    writeFileSync(join(dir, 'other.json'), '{"a":1}');
    assert.match(run(['redact', 'other.json', 'o.json']).stderr, /not a HAR or session file|not an OUI DevTools session or a HAR/);
  });
});
