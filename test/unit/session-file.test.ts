/**
 * The session file: export and import. A file is untrusted input: only known
 * fields of the right types come back, nothing that can inject, nothing that
 * pollutes prototypes, and every refusal says why.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIRECT_METHOD } from '../../src/capture/contract.ts';
import { encodeSocketIOAck, encodeSocketIOEvent } from '../../src/protocol/index.ts';
import { planInjection, whyNotInjectable } from '../../src/session/wire/injection.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { MAX_IMPORT_EVENTS, SESSION_FORMAT, SESSION_VERSION, exportSession, parseSessionFile } from '../../src/session/wire/session-file.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { FakeHook } from '../support/capture-items.ts';

const REQ = { requestId: 'r-1', surfaceId: 'cart', actionId: 'add', params: { sku: 'a' }, timestamp: 2 };

/** A recorder holding real decoded traffic: Socket.IO over WebSocket, plain JSON, direct calls. */
function recorded(): Recorder {
  const r = new Recorder();
  const hook = new FakeHook('h');
  const sio = hook.client('websocket', 'wss://app.test/socket.io/?EIO=4&transport=websocket&sid=S');
  const plain = hook.client('websocket', 'wss://app.test/plain');
  const direct = hook.client('direct', 'runtime');
  const request = hook.json(direct, 'in', REQ, { method: DIRECT_METHOD.request });
  r.accept(0, hook.message([
    hook.frame(sio, 'out', '40/oui,'),
    hook.frame(sio, 'in', '40/oui,{"sid":"x"}'),
    hook.frame(sio, 'in', encodeSocketIOEvent({ namespace: '/oui', name: 'action:request', args: [REQ], ackId: 3 }), { injected: true }),
    hook.frame(sio, 'out', encodeSocketIOAck({ namespace: '/oui', ackId: 3, args: [{ received: true }] }), { held: true }),
    hook.json(plain, 'out', { type: 'observation:update', payload: { surfaceId: 'cart', observationId: 'total', value: 1.5, timestamp: 3 } }),
    hook.frame(plain, 'in', '{"type":"broken'),
    hook.item(plain, 'frame', { dir: 'in', payload: { omitted: true, head: '{"a":' }, size: 9_999_999 }),
    request,
    hook.json(direct, 'out', { received: true }, { method: DIRECT_METHOD.receipt, re: request.seq }),
    hook.json(direct, 'out', 'cart', { method: 'deregister' }),
    hook.item(sio, 'close', { note: '1000' }),
  ]));
  return r;
}

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const file = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ format: SESSION_FORMAT, version: SESSION_VERSION, exportedAt: '2024-01-01T00:00:00.000Z', clients: [], events: [], ...over });
const client = (key: string, extra: Record<string, unknown> = {}) => ({ key, kind: 'socket.io', label: key, origin: 'http://app.test', frameUrl: 'http://app.test/', frameId: 0, namespace: '/oui', ...extra });
const event = (id: string, c: string, extra: Record<string, unknown> = {}) => ({ id, client: c, t: 1, dir: 'in', kind: 'event', type: 'action:request', size: 10, ...extra });

function parseOk(text: string) {
  const r = parseSessionFile(text);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r;
}

describe('session file', () => {
  it('round-trips an export through JSON', () => {
    const r = recorded();
    const clients = [...r.clients.values()];
    assert.ok(r.events.length >= 10 && clients.length === 3, `fixture: ${r.events.length} events, ${clients.length} clients`);
    const exported = exportSession(clients, r.events, new Date('2024-05-06T07:08:09.000Z'));
    assert.equal(exported.exportedAt, '2024-05-06T07:08:09.000Z');
    const back = parseOk(JSON.stringify(exported));
    assert.equal(back.skipped, 0);
    assert.deepEqual(back.file.events, json(r.events));
    // Everything about a client survives, except where to inject (see below).
    assert.deepEqual(
      back.file.clients,
      json(clients).map(({ inject: _inject, ...rest }) => rest),
    );
    // The flags and pairings that matter to the views are there.
    assert.ok(back.file.events.some((e) => e.injected) && back.file.events.some((e) => e.held), 'injected and held flags kept');
    assert.ok(back.file.events.filter((e) => e.kind === 'ack').every((e) => typeof e.ackOf === 'string'), 'ack pairings kept');
    assert.ok(back.file.events.some((e) => e.via === 'websocket'), 'via kept');
    // A second round trip changes nothing.
    assert.deepEqual(parseOk(JSON.stringify(back.file)).file, back.file);
  });

  it('refuses what is not a session, with a reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['{not json', /^not JSON: /],
      ['null', /not an OUI DevTools session/],
      ['[]', /not an OUI DevTools session/],
      [JSON.stringify(file({ format: 'har' })), /format must be "oui-devtools-session"/],
      [JSON.stringify(file({ version: 2 })), /unsupported version 2; this panel reads version 1/],
      [JSON.stringify(file({ version: '1' })), /unsupported version 1/],
      [JSON.stringify(file({ clients: {} })), /clients and events must be arrays/],
      [JSON.stringify(file({ events: 'x' })), /clients and events must be arrays/],
    ];
    for (const [text, why] of cases) {
      const r = parseSessionFile(text);
      assert.equal(r.ok, false, text);
      assert.match(r.ok ? '' : r.error, why, text);
    }
  });

  it('refuses a file with too many events before reading any', () => {
    const text = JSON.stringify(file({ events: new Array(MAX_IMPORT_EVENTS + 1).fill(0) }));
    const r = parseSessionFile(text);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, new RegExp(`too many events \\(${MAX_IMPORT_EVENTS + 1} > ${MAX_IMPORT_EVENTS}\\)`));
    // Exactly at the limit is accepted (each unreadable event skipped and counted).
    const atLimit = parseOk(JSON.stringify(file({ events: new Array(MAX_IMPORT_EVENTS).fill(0) })));
    assert.equal(atLimit.skipped, MAX_IMPORT_EVENTS);
  });

  it('keeps only known fields of the right types', () => {
    const r = parseOk(
      JSON.stringify(
        file({
          clients: [client('k', { evil: '<script>', frameId: 'zero', namespace: 7 })],
          events: [
            event('e1', 'k', {
              extra: { a: 1 },
              payload: { kept: true },
              wantsAck: 'yes',
              injected: 1,
              held: 'true',
              via: 'carrier-pigeon',
              ackOf: 5,
              note: 'n',
              raw: 'r',
              size: 'big',
            }),
          ],
        }),
      ),
    );
    assert.deepEqual(r.file.clients, [{ key: 'k', kind: 'socket.io', label: 'k', origin: 'http://app.test', frameUrl: 'http://app.test/', frameId: 0 }]);
    assert.deepEqual(r.file.events, [{ id: 'e1', client: 'k', t: 1, dir: 'in', kind: 'event', type: 'action:request', size: 0, payload: { kept: true }, note: 'n', raw: 'r' }]);
    assert.equal(r.file.exportedAt, '2024-01-01T00:00:00.000Z');
  });

  it('skips and counts unreadable clients and events, and events of unknown clients', () => {
    const r = parseOk(
      JSON.stringify(
        file({
          clients: [client('k'), { key: 'no-kind' }, client('bad', { kind: 'carrier-pigeon' }), null],
          events: [
            event('ok', 'k'),
            event('orphan', 'nobody'),
            event('of-a-refused-client', 'bad'),
            event('no-time', 'k', { t: '1' }),
            event('nan-time', 'k', { t: null }),
            event('bad-dir', 'k', { dir: 'up' }),
            event('bad-kind', 'k', { kind: 'weird' }),
            { client: 'k', t: 1, dir: 'in', kind: 'event' },
            42,
          ],
        }),
      ),
    );
    assert.deepEqual(
      r.file.clients.map((c) => c.key),
      ['k'],
    );
    assert.deepEqual(
      r.file.events.map((e) => e.id),
      ['ok'],
    );
    assert.equal(r.skipped, 3 + 8);
  });

  it('never imports an injection target: an imported session cannot inject', () => {
    const targets = [
      { via: 'websocket', frameId: 0, hook: 'h', client: 'c1' },
      { via: 'postmessage', clientPath: 'top/0', peerPath: 'top' },
      { via: 'direct', frameId: 0, hook: 'h', client: 'c2' },
    ];
    const r = parseOk(JSON.stringify(file({ clients: targets.map((inject, i) => client(`k${i}`, { inject, kind: ['socket.io', 'postmessage', 'direct'][i] })) })));
    assert.equal(r.file.clients.length, 3);
    for (const c of r.file.clients) {
      assert.equal('inject' in c, false);
      assert.notEqual(whyNotInjectable(c), null);
      const plan = planInjection(c, REQ, { id: 'i', wantReceipt: true, letThrough: false, ackId: 1 });
      assert.equal(plan.ok, false);
    }
    // The same holds for an exported live client that had a target.
    const live = [...recorded().clients.values()];
    assert.ok(live.every((c) => c.inject), 'live clients are injectable');
    const back = parseOk(JSON.stringify(exportSession(live, [])));
    assert.ok(back.file.clients.every((c: WireClient) => c.inject === undefined), 'no target imported');
  });

  it('does not let __proto__ keys pollute anything', () => {
    const text = `{
      "format": "${SESSION_FORMAT}", "version": ${SESSION_VERSION}, "exportedAt": "x",
      "__proto__": { "polluted": true },
      "clients": [ { "key": "k", "kind": "direct", "__proto__": { "inject": { "via": "direct", "frameId": 0, "hook": "h", "client": "c" }, "polluted": true } } ],
      "events": [ { "id": "e", "client": "k", "t": 1, "dir": "in", "kind": "event", "__proto__": { "injected": true, "polluted": true },
                    "payload": { "__proto__": { "polluted": true }, "a": 1 } } ]
    }`;
    const r = parseOk(text);
    const c = r.file.clients[0]!;
    const e: WireEvent = r.file.events[0]!;
    assert.equal(Object.getPrototypeOf(c), Object.prototype);
    assert.equal(Object.getPrototypeOf(e), Object.prototype);
    assert.equal(c.inject, undefined);
    assert.equal(e.injected, undefined);
    assert.equal((c as unknown as Record<string, unknown>).polluted, undefined);
    assert.equal((e as unknown as Record<string, unknown>).polluted, undefined);
    assert.equal((r.file as unknown as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    // The payload is data as written: its "__proto__" is an own key, not a prototype.
    const p = e.payload as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(p), Object.prototype);
    assert.equal(p.polluted, undefined);
    assert.ok(Object.prototype.hasOwnProperty.call(p, '__proto__'));
  });

  it('is not fooled by a session hidden under __proto__', () => {
    const text = `{ "__proto__": { "format": "${SESSION_FORMAT}", "version": ${SESSION_VERSION}, "clients": [], "events": [] } }`;
    const r = parseSessionFile(text);
    assert.equal(r.ok, false);
  });

  it('imports into a recorder in the order the model is fed: by time across clients, each client in its file order', () => {
    const r = parseOk(JSON.stringify(file({ clients: [client('k'), client('j')], events: [event('b', 'k', { t: 20 }), event('a', 'j', { t: 10 }), event('c', 'k', { t: 5 })] })));
    const rec = new Recorder();
    rec.add(r.file.events);
    assert.deepEqual(
      rec.events.map((e) => e.id),
      ['a', 'b', 'c'],
    );
  });
});
