/**
 * `oui-devtools/playwright`'s `ouiOptions.timers`: checked (a bad timer is a
 * mistake in the test's setup, said in one line), and passed to the session
 * model the fixture judges with, beside `specVersion`. The capture is
 * attached, with the built init script, to a stand-in context: only its
 * binding and init script are asked for.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { BrowserContext } from '@playwright/test';
import { OuiCapture } from '../../src/playwright/capture.ts';
import { ensureFreshBuild } from '../support/fresh-build.ts';
import { fixtureTimers } from '../../src/playwright/timers.ts';
import { SPEC_TIMERS } from '../../src/session/model/timers.ts';

const context = { exposeBinding: async () => {}, addInitScript: async () => {} } as unknown as BrowserContext;
let initScript = '';

before(() => {
  ensureFreshBuild();
  initScript = readFileSync(new URL('../../dist/playwright/oui-init.js', import.meta.url), 'utf8');
});

describe('playwright fixture: ouiOptions.timers', () => {
  it('passes the timers to the model, the spec defaults for the rest', async () => {
    const capture = await OuiCapture.attach(context, initScript, { specVersion: '0.4.1', timers: { syncMs: 1000, observationPullMs: 2500 } });
    const model = capture.modelOf(capture.snapshot());
    assert.deepEqual(model.timers, { ...SPEC_TIMERS, syncMs: 1000, observationPullMs: 2500 });
    assert.equal(model.specVersion, '0.4.1');
    capture.close();
    const plain = await OuiCapture.attach(context, initScript);
    assert.deepEqual(plain.modelOf(plain.snapshot()).timers, SPEC_TIMERS);
    plain.close();
  });

  it('takes the timers it knows and refuses the rest in one line', () => {
    assert.equal(fixtureTimers(undefined), undefined);
    assert.deepEqual(fixtureTimers({ syncMs: 60000, reanswerMs: undefined }), { syncMs: 60000 });
    const refused = (v: unknown, pattern: RegExp) =>
      assert.throws(
        () => fixtureTimers(v),
        (e: Error) => !e.message.includes('\n') && pattern.test(e.message),
      );
    refused({ sync: 1 }, /^oui-devtools\/playwright: ouiOptions\.timers: unknown timer "sync" \(known: syncMs, asyncAckMs, observationPullMs, reanswerMs\)$/);
    refused({ syncMs: 0 }, /^oui-devtools\/playwright: ouiOptions\.timers\.syncMs must be a number of milliseconds, more than 0 and at most a day \(got 0\)$/);
    refused({ asyncAckMs: '5s' }, /timers\.asyncAckMs must be a number of milliseconds/);
    refused(5000, /ouiOptions\.timers must be an object of syncMs, asyncAckMs, observationPullMs, reanswerMs to milliseconds$/);
  });
});
