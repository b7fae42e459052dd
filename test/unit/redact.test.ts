/**
 * Redaction (src/session/redact): the Luhn check against published test
 * card numbers, the member names, schema-declared secrets through $ref,
 * allOf/oneOf and arrays, the user's pointers (RFC 6901's own examples),
 * and a whole recording: no secret left in any form, the list names every
 * place, and the findings carried before redaction reconcile.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findCardNumbers, isCardNumber, luhnValid } from '../../src/session/redact/luhn.ts';
import { isSecretKey } from '../../src/session/redact/keys.ts';
import { secretPaths, expandPath } from '../../src/session/redact/schema-secrets.ts';
import { parsePointer, valueAt, formatPointer } from '../../src/session/redact/pointer.ts';
import { REDACTED, Redactor } from '../../src/session/redact/redactor.ts';
import { redactRecording } from '../../src/session/redact/session.ts';
import { reconcile } from '../../src/session/redact/carried.ts';
import { parseSessionFile, sessionFileText, exportSession } from '../../src/session/wire/session-file.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { secretSession, secretForms } from './redact-fixture.ts';

describe('Luhn', () => {
  // Test numbers the card networks publish for integration testing (Stripe's and PayPal's lists): all valid.
  const valid = ['4242424242424242', '4000056655665556', '5555555555554444', '2223003122003222', '378282246310005', '371449635398431', '6011111111111117', '3056930009020004', '36227206271667', '3566002020360505', '6200000000000005', '4111111111111111', '4012888888881881', '5105105105105100'];
  it('accepts the networks’ published test numbers', () => {
    for (const n of valid) assert.ok(luhnValid(n), n);
  });
  it('refuses each with one digit changed, and too short or long runs', () => {
    for (const n of valid) {
      const last = Number(n.at(-1));
      assert.equal(luhnValid(n.slice(0, -1) + String((last + 1) % 10)), false, n);
    }
    assert.deepEqual(findCardNumbers('id 424242424242'), []); // 12 digits
    assert.deepEqual(findCardNumbers('4242424242424242424242'), []); // 22 digits: not a card
  });
  it('finds numbers typed with spaces or dashes, inside text', () => {
    const t = 'pay 4242 4242 4242 4242 or 5555-5555-5555-4444 now; order 1234567890123';
    const found = findCardNumbers(t).map((m) => t.slice(m.start, m.end));
    assert.deepEqual(found, ['4242 4242 4242 4242', '5555-5555-5555-4444']);
  });
  it('not a millisecond timestamp, nor digits no network starts with', () => {
    // Times of 2026-01-01 (in ms) that pass the Luhn check by chance; and ids no network starts with.
    for (const n of ['1767225600009', '1767225600017', '7992739871003', '8000000000000003']) {
      assert.ok(luhnValid(n), `${n} passes Luhn`);
      assert.deepEqual(findCardNumbers(`t=${n}`), [], n);
    }
    assert.equal(isCardNumber(1767225600009), false);
  });
  it('numbers as JSON numbers; not a run of one digit', () => {
    assert.ok(isCardNumber(4242424242424242));
    assert.equal(isCardNumber(4242424242424241), false);
    assert.deepEqual(findCardNumbers('0000 0000 0000 0000'), []);
  });
});

describe('member names', () => {
  it('secrets by name, case and separators ignored', () => {
    for (const k of ['password', 'Passwd', 'token', 'accessToken', 'refresh_token', 'SECRET', 'client_secret', 'Authorization', 'Cookie', 'set-cookie', 'api key', 'apiKey', 'API_KEY', 'x-api-key', 'cvv', 'userPassword']) assert.ok(isSecretKey(k), k);
  });
  it('not names that merely contain one', () => {
    for (const k of ['tokenizer', 'secretary', 'tokens', 'maxTokens', 'author', 'description', 'passwordHint'.slice(0, 0) || 'pass', 'query']) assert.equal(isSecretKey(k), false, k);
  });
});

describe('schema-declared secrets', () => {
  it('writeOnly and format password, through $ref, $defs, allOf, oneOf, items and additionalProperties', () => {
    const schema = {
      type: 'object',
      properties: {
        login: { $ref: '#/$defs/creds' },
        keys: { type: 'array', items: { type: 'string', writeOnly: true } },
        extra: { additionalProperties: { type: 'object', properties: { pin: { format: 'password' } } } },
        pay: { oneOf: [{ properties: { card: { type: 'string', writeOnly: true } } }, { properties: { po: { type: 'string' } } }] },
        plain: { type: 'string' },
      },
      $defs: { creds: { allOf: [{ properties: { password: { type: 'string', writeOnly: true } } }] }, self: { $ref: '#/$defs/self' } },
    };
    assert.deepEqual(
      secretPaths(schema).map((p) => p.join('/')),
      ['login/password', 'keys/*', 'extra/*/pin', 'pay/card'],
    );
    const value = { keys: ['a', 'b'], extra: { x: { pin: '1' }, y: { pin: '2' } } };
    assert.deepEqual(expandPath(value, ['extra', '*', 'pin']), [['extra', 'x', 'pin'], ['extra', 'y', 'pin']]);
  });
  it('a cyclic $ref or an odd schema declares nothing and never throws', () => {
    assert.deepEqual(secretPaths({ $ref: '#' }), []);
    assert.deepEqual(secretPaths('not a schema'), []);
  });
});

describe('JSON pointers (RFC 6901 §5 examples)', () => {
  const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };
  it('evaluates as the RFC says', () => {
    const cases: Array<[string, unknown]> = [['', doc], ['/foo', ['bar', 'baz']], ['/foo/0', 'bar'], ['/', 0], ['/a~1b', 1], ['/c%d', 2], ['/e^f', 3], ['/g|h', 4], ['/i\\j', 5], ['/k"l', 6], ['/ ', 7], ['/m~0n', 8]];
    for (const [p, v] of cases) assert.deepEqual(valueAt(doc, parsePointer(p)!), v, p);
    assert.equal(formatPointer(['a/b', 'm~n']), '/a~1b/m~0n');
    assert.equal(parsePointer('foo'), null);
    assert.equal(parsePointer('/bad~2'), null);
  });
  it('the user’s pointers, per origin', () => {
    const ev: WireEvent = { id: 'e1', client: 'c', t: 0, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: 'r', surfaceId: 's', actionId: 'a', params: { memo: 'my pin is near', note: 'x' }, timestamp: 0 }, size: 0 };
    const mine = new Redactor({ pointers: [{ origin: 'https://a.example', pointer: '/params/memo' }] });
    mine.client({ key: 'c', kind: 'websocket', label: 'l', origin: 'https://a.example', frameUrl: '', frameId: 0 });
    assert.equal((mine.event(ev).payload as { params: { memo: string } }).params.memo, REDACTED);
    assert.deepEqual(mine.redactions, [{ event: 'e1', pointer: '/params/memo', rule: 'pointer' }]);
    const other = new Redactor({ pointers: [{ origin: 'https://b.example', pointer: '/params/memo' }] });
    other.client({ key: 'c', kind: 'websocket', label: 'l', origin: 'https://a.example', frameUrl: '', frameId: 0 });
    assert.equal(other.event(ev), ev, 'another origin’s pointer leaves the event as it was');
  });
});

describe('a recording with secrets', () => {
  const original = secretSession();
  const file = parseSessionFile(JSON.stringify(original));
  assert.ok(file.ok);
  const r = redactRecording(file.file.clients, file.file.events);
  const text = sessionFileText(exportSession(r.clients, r.events, new Date(0), { redaction: r.info }));

  it('holds none of the secrets, in any field', () => {
    assert.ok(secretForms().filter((s) => JSON.stringify(original).includes(s)).length >= 5, 'the original holds them');
    for (const s of secretForms()) assert.equal(text.includes(s), false, `${s} left in the file`);
  });
  it('keeps each value’s JSON type and the rest of the payload', () => {
    const events = JSON.parse(text).events as WireEvent[];
    const pay = events[6]!.payload as { params: { amount: number; cvv: string }; approval: { argsHash: string } };
    assert.equal(pay.params.amount, 12.5);
    assert.equal(pay.params.cvv, REDACTED);
    assert.match(pay.approval.argsHash, /^[0-9a-f]{64}$/);
    assert.equal((events[5]!.payload as { value: { query: string } }).value.query, `card ${REDACTED}`);
  });
  it('lists every place by event, pointer and rule, never the value', () => {
    const list = r.info.redacted.map((x) => `${x.event ?? x.client} ${x.pointer} ${x.rule}`);
    for (const want of ['h/1 /label key', 'h/1/2 /params/password schema', 'h/1/3 /error/message echo', 'h/1/4 /params/accessToken key', 'h/1/6 /value/query card', 'h/1/7 /params/cvv schema']) assert.ok(list.includes(want), `${want} in ${list.join(', ')}`);
    for (const s of secretForms()) assert.equal(JSON.stringify(r.info).includes(s), false);
  });
  it('the declarations stay whole: a schema’s `password` member is not a value', () => {
    const reg = r.events[0]!.payload as { surface: { actions: Array<{ input: { properties: Record<string, unknown> } }> } };
    assert.deepEqual(Object.keys(reg.surface.actions[0]!.input.properties), ['user', 'password']);
    assert.equal(r.events[0], file.file.events[0], 'the registration is the same object: nothing replaced');
  });
  it('scrubs a text that quotes a secret (a copy, a message)', () => {
    assert.equal(r.scrub(`{"password":"${'hunter2-Sup3rSecret'}"}`), `{"password":"${REDACTED}"}`);
  });
});

describe('reconcile', () => {
  const f = (rule: string, events: string[], t = 0) => ({ rule, events, t });
  it('carried verdicts stand on redacted events and hash rules; the rest is judged', () => {
    const carried = { judged: 'before-redaction' as const, findings: [f('schema-params', ['e2'], 2), f('hash-missing', ['e4'], 4)].map((x) => ({ ...x, severity: 'error' as const, section: '§', party: 'client' as const, message: 'm', client: 'c' })) };
    const judged = [f('approval-hash-mismatch', ['e7'], 7), f('hash-missing', ['e4'], 4), f('request-id-format', ['e1'], 1)];
    const r = reconcile(judged, carried, new Set(['e2', 'e7']));
    assert.deepEqual(r.findings.map((x) => x.rule), ['request-id-format', 'schema-params', 'hash-missing']);
    assert.equal(r.setAside, 1);
    assert.equal(r.restored, 1);
  });
});

describe('a payload nested 100,000 levels deep', () => {
  it('is redacted without overflowing the stack: kept whole when it holds no secret, replaced when it shows a card number', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    let deepCard: unknown = 'card 4242 4242 4242 4242';
    for (let i = 0; i < 100_000; i++) deepCard = [deepCard];
    const ev = (id: string, params: unknown): WireEvent => ({ id, client: 'c', t: 0, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: id, surfaceId: 's', actionId: 'a', params, timestamp: 0 }, size: 0 });
    const events = [ev('e1', { tree: deep }), ev('e2', { tree: deepCard })];
    const r = redactRecording([{ key: 'c', kind: 'websocket', label: 'l', origin: '', frameUrl: '', frameId: 0 }], events);
    assert.equal(r.events[0], events[0], 'nothing to replace: the same event');
    assert.ok(r.info.redacted.some((x) => x.event === 'e2' && x.rule === 'card'));
    assert.equal(sessionFileText(exportSession(r.clients, r.events)).includes('4242 4242'), false);
  });
});

describe('a HAR made elsewhere', () => {
  it('Socket.IO frames, Engine.IO polling bodies, headers, cookies and URLs', async () => {
    const { redactHar } = await import('../../src/session/redact/har.ts');
    const surface = { id: 's', name: 'S', description: 'd', actions: [{ id: 'login', description: 'd', input: { type: 'object', properties: { pw: { type: 'string', writeOnly: true } } } }] };
    const reg = `42/oui,${JSON.stringify(['surface:register', { surface, timestamp: 1 }])}`;
    const req = `42/oui,7${JSON.stringify(['action:request', { requestId: 'r', surfaceId: 's', actionId: 'login', params: { pw: 'correct-horse-battery' }, timestamp: 2 }])}`;
    const har = {
      log: {
        version: '1.2',
        entries: [
          { request: { method: 'POST', url: 'https://x.example/socket.io/?EIO=4&transport=polling&sid=abc&token=t0k3n-in-url', headers: [{ name: 'Cookie', value: 'sid=zzz' }, { name: 'Accept', value: '*/*' }], cookies: [{ name: 'sid', value: 'zzz-cookie' }], postData: { text: `${reg}\u001e${req}` } }, response: { content: { text: '40/oui,{"sid":"x"}' } } },
          { request: { url: 'wss://x.example/socket.io/?EIO=4&transport=websocket' }, _webSocketMessages: [{ type: 'send', time: 3, opcode: 1, data: `42/oui,["observation:update",{"surfaceId":"s","observationId":"o","value":{"note":"card 5555 5555 5555 4444"},"timestamp":3}]` }, { type: 'receive', time: 4, opcode: 1, data: '3probe' }] },
        ],
      },
    };
    const r = redactHar(har);
    const text = JSON.stringify(r.har);
    for (const s of ['correct-horse-battery', 't0k3n-in-url', 'zzz-cookie', 'sid=zzz', '5555 5555 5555 4444']) assert.equal(text.includes(s), false, s);
    const out = r.har as typeof har;
    // The packets keep their prefixes and separators; what held no secret is as it was.
    const [regOut, reqOut] = out.log.entries[0]!.request.postData!.text.split('\u001e');
    assert.equal(regOut, reg);
    assert.ok(reqOut!.startsWith('42/oui,7["action:request",'));
    assert.equal(JSON.parse(reqOut!.slice('42/oui,7'.length))[1].params.pw, REDACTED);
    assert.equal(out.log.entries[1]!._webSocketMessages![1]!.data, '3probe');
    assert.equal(out.log.entries[0]!.request.headers![1]!.value, '*/*');
    const records = new Set(r.info.redacted.map((x) => `${x.record} ${x.pointer} ${x.rule}`));
    assert.ok(records.has('log.entries[0].request.postData.text /params/pw schema'), [...records].join('; '));
    assert.ok(records.has('log.entries[1]._webSocketMessages[0] /value/note card'), [...records].join('; '));
  });
});
