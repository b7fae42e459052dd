/**
 * The panel's side of redaction (panel/redaction.ts, panel/copy.ts): the
 * pointer box's lines, the pointers kept per origin in storage, and the
 * scrubber every Copy goes through, fed by the session on screen.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RedactionSettings, previewOf, readPointerLines, scrubCopies, redactedSessionText, unredactedSessionText } from '../../panel/redaction.ts';
import { scrubForCopy } from '../../panel/copy.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { secretSession, secretForms, SECRETS } from './redact-fixture.ts';

function recorderWithSecrets(): Recorder {
  const s = secretSession() as { clients: WireClient[]; events: WireEvent[] };
  const r = new Recorder();
  for (const c of s.clients) r.clients.set(c.key, c);
  r.add(s.events);
  return r;
}

describe('the panel’s redaction', () => {
  it('reads the pointer box: one pointer a line, blank lines skipped, the rest said', () => {
    assert.deepEqual(readPointerLines('/params/otp\n\n  /value/email \nparams/x\n/params/otp'), { pointers: ['/params/otp', '/value/email'], bad: ['params/x'] });
  });

  it('keeps the pointers per origin in storage', async () => {
    const store = new Map<string, unknown>();
    const saved = { get: async (k: string) => store.get(k), set: async (k: string, v: unknown) => void store.set(k, v) };
    const a = new RedactionSettings(saved);
    await a.load('https://a.example');
    await a.save(['/params/otp']);
    assert.deepEqual(a.options(), { pointers: [{ origin: 'https://a.example', pointer: '/params/otp' }] });
    const b = new RedactionSettings(saved);
    await b.load('https://b.example');
    assert.deepEqual(b.pointers.value, []);
    await b.load('https://a.example');
    assert.deepEqual(b.pointers.value, ['/params/otp']);
  });

  it('every Copy: a copied payload holds no secret of the session on screen', () => {
    const recorder = recorderWithSecrets();
    scrubCopies(() => ({ recorder, opts: {} }));
    const copied = scrubForCopy(JSON.stringify(recorder.events.map((e) => e.payload), null, 2));
    assert.ok(copied.includes('[REDACTED]'));
    for (const s of secretForms()) assert.equal(copied.includes(s), false, s);
    // The session grows: the scrubber learns what is new.
    recorder.add([{ id: 'h/1/99', client: 'h/1', t: 1_767_225_700_000, dir: 'in', kind: 'event', type: 'x-note', payload: { apiKey: 'k-0123456789' }, size: 10 }]);
    assert.equal(scrubForCopy('the key k-0123456789'), 'the key [REDACTED]');
  });

  it('exports: redacted with the list and the verdicts; unredacted marked', () => {
    const recorder = recorderWithSecrets();
    const text = redactedSessionText(previewOf(recorder, {}), []);
    for (const s of secretForms()) assert.equal(text.includes(s), false, s);
    assert.ok(JSON.parse(text).redaction.redacted.length > 0);
    const raw = unredactedSessionText(recorder);
    assert.ok(raw.includes(SECRETS.password));
    assert.equal(JSON.parse(raw).redaction.unredacted, true);
  });
});
