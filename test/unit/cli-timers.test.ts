/**
 * The timers as a setting of the linter (the runtime's §7.5 timeouts and the
 * client's §7.3.7 re-answer interval): the flags, the `.ouirc.json` key, the
 * command line over the file timer by timer, one line for a bad value, and
 * the values reaching the session model the engine judges with.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, parseDuration, readConfig, UsageError, USAGE } from '../../src/cli/options.ts';
import { LintEngine } from '../../src/session/lint/engine.ts';
import { lintStream } from '../../src/cli/lint.ts';
import { SPEC_TIMERS } from '../../src/session/model/timers.ts';
import { capture, sessionFile } from '../fixtures/traffic.ts';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'oui-timers-'));
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(name: string, data: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof data === 'string' ? data : JSON.stringify(data));
  return p;
}

/** parseArgs with no config file unless one is given. */
const parse = (args: string[]) => parseArgs([...args, 'x.json'], dir);

function usageError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof UsageError, String(e));
    assert.doesNotMatch(e.message, /\n/);
    assert.match(e.message, pattern);
    return true;
  });
}

describe('lint options: the timers', () => {
  it('reads the four flags as milliseconds, in either form (--flag N, --flag=N)', () => {
    const o = parse(['--no-config', '--sync-timeout', '60000', '--ack-timeout=2000', '--pull-timeout', '7000', '--reanswer-interval', '12000']);
    assert.deepEqual(o.timers, { syncMs: 60000, asyncAckMs: 2000, observationPullMs: 7000, reanswerMs: 12000 });
  });

  it('takes durations in ms, s and m', () => {
    assert.equal(parseDuration('1500', '--x'), 1500);
    assert.equal(parseDuration('1500ms', '--x'), 1500);
    assert.equal(parseDuration('30s', '--x'), 30_000);
    assert.equal(parseDuration('1.5s', '--x'), 1500);
    assert.equal(parseDuration('2m', '--x'), 120_000);
    assert.deepEqual(parse(['--no-config', '--sync-timeout', '2m']).timers, { syncMs: 120_000 });
  });

  it('sets no timers when none is given: the model keeps the spec defaults', () => {
    assert.equal(parse(['--no-config']).timers, undefined);
  });

  it('refuses a value that is not a timer in one line', () => {
    usageError(() => parse(['--no-config', '--sync-timeout', 'soon']), /^--sync-timeout takes milliseconds, or a number with s or m \(30000, 30s, 2m\) \(got "soon"\)$/);
    usageError(() => parse(['--no-config', '--ack-timeout', '0']), /^--ack-timeout must be more than 0 and at most a day \(got "0"\)$/);
    usageError(() => parse(['--no-config', '--pull-timeout', '-5']), /^--pull-timeout takes milliseconds/);
    usageError(() => parse(['--no-config', '--reanswer-interval', '2d']), /^--reanswer-interval takes milliseconds/);
    usageError(() => parse(['--no-config', '--sync-timeout', '25h']), /takes milliseconds/);
    usageError(() => parse(['--no-config', '--sync-timeout', '1441m']), /^--sync-timeout must be more than 0 and at most a day/);
    usageError(() => parseArgs(['x.json', '--sync-timeout'], dir), /^--sync-timeout needs a value$/);
  });

  it('are in --help', () => {
    for (const flag of ['--sync-timeout', '--ack-timeout', '--pull-timeout', '--reanswer-interval', '"timers"']) assert.ok(USAGE.includes(flag), flag);
  });
});

describe('.ouirc.json: "timers"', () => {
  it('reads the timers by name', () => {
    const p = config('all.json', { timers: { syncMs: 45000, asyncAckMs: 1000, observationPullMs: 9000, reanswerMs: 4000 } });
    assert.deepEqual(readConfig(p).timers, { syncMs: 45000, asyncAckMs: 1000, observationPullMs: 9000, reanswerMs: 4000 });
    assert.deepEqual(parseArgs(['--config', p, 'x.json'], dir).timers, { syncMs: 45000, asyncAckMs: 1000, observationPullMs: 9000, reanswerMs: 4000 });
  });

  it('the command line wins, timer by timer; the file keeps the others', () => {
    const p = config('some.json', { spec: '0.6.0', timers: { syncMs: 45000, reanswerMs: 4000 } });
    const o = parseArgs(['--config', p, '--sync-timeout', '10s', '--ack-timeout', '3000', 'x.json'], dir);
    assert.deepEqual(o.timers, { syncMs: 10000, reanswerMs: 4000, asyncAckMs: 3000 });
  });

  it('refuses an unknown timer, a value that is not a timer, or timers that are not an object, as it refuses other bad values', () => {
    usageError(() => readConfig(config('k.json', { timers: { syncTimeout: 1000 } })), /: unknown timer "syncTimeout" \(known: syncMs, asyncAckMs, observationPullMs, reanswerMs\)$/);
    usageError(() => readConfig(config('s.json', { timers: { syncMs: '30s' } })), /: timers\.syncMs must be a number of milliseconds, more than 0 and at most a day \(got "30s"\)$/);
    usageError(() => readConfig(config('z.json', { timers: { reanswerMs: 0 } })), /timers\.reanswerMs must be a number of milliseconds/);
    usageError(() => readConfig(config('big.json', { timers: { asyncAckMs: 1e12 } })), /timers\.asyncAckMs must be/);
    usageError(() => readConfig(config('arr.json', { timers: [1000] })), /: timers must be an object of syncMs, asyncAckMs, observationPullMs, reanswerMs to milliseconds$/);
    usageError(() => readConfig(config('typo.json', { timer: {} })), /unknown option "timer" \(known: format, failOn, spec, rules, timers\)$/);
  });
});

describe('lint engine: the timers reach the model', () => {
  it('the model judges with the timers given, the spec defaults for the rest', () => {
    assert.deepEqual(new LintEngine().model.timers, SPEC_TIMERS);
    const e = new LintEngine({ specVersion: '0.4.1', timers: { syncMs: 2000, reanswerMs: 500 } });
    assert.equal(e.model.timers.syncMs, 2000);
    assert.equal(e.model.timers.reanswerMs, 500);
    assert.equal(e.model.timers.asyncAckMs, SPEC_TIMERS.asyncAckMs);
    assert.equal(e.model.specVersion, '0.4.1');
  });

  it('parsed flags go through to the engine the linter runs', async () => {
    const o = parse(['--no-config', '--sync-timeout', '1234', '--pull-timeout', '3s']);
    const seen: LintEngine[] = [];
    const proto = LintEngine.prototype as unknown as { finish: () => unknown };
    const finish = proto.finish;
    proto.finish = function (this: LintEngine) {
      seen.push(this);
      return finish.call(this);
    };
    try {
      await lintStream([sessionFile(capture({ transport: 'websocket' }))], { ...(o.timers ? { timers: o.timers } : {}) });
    } finally {
      proto.finish = finish;
    }
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.model.timers.syncMs, 1234);
    assert.equal(seen[0]!.model.timers.observationPullMs, 3000);
    assert.equal(seen[0]!.model.timers.asyncAckMs, SPEC_TIMERS.asyncAckMs);
  });
});
