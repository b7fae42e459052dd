/**
 * Files dropped on the panel (panel/har-import.ts): a HAR is read into the
 * same wire events its session file holds, a session file as it is, and
 * several files are one session with each client and event once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capture, chromeHar, sessionFile, type Transport } from '../fixtures/traffic.ts';
import { harSession, mergeSessions, readDroppedFile } from '../../panel/har-import.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';

const typesOf = (events: WireEvent[]) =>
  events
    .filter((e) => e.kind === 'event' || e.kind === 'ack')
    .map((e) => `${e.dir} ${e.type ?? e.kind}`)
    .sort();

for (const transport of ['websocket', 'socket.io', 'polling-upgrade'] as Transport[]) {
  test(`a Chrome HAR of ${transport} traffic reads as the session file of the same capture`, () => {
    const c = capture({ transport, requests: 3 });
    const har = readDroppedFile(chromeHar(c));
    const session = readDroppedFile(sessionFile(c));
    assert.ok(har.ok && session.ok, JSON.stringify([har, session]).slice(0, 300));
    assert.ok(session.file.events.length > 5);
    assert.deepEqual(typesOf(har.file.events), typesOf(session.file.events));
    assert.ok(har.file.events.filter((e) => e.type === 'action:request').length >= 3);
  });
}

test('a file that is neither says why, and a HAR without OUI traffic says what it held', () => {
  const junk = readDroppedFile('not json');
  assert.ok(!junk.ok && /not JSON/.test(junk.why));
  const other = readDroppedFile(JSON.stringify({ hello: 1 }));
  assert.ok(!other.ok && /not an OUI DevTools session/.test(other.why));
  const empty = harSession({ log: { entries: [{ request: { url: 'https://x.test/' }, startedDateTime: '2026-01-01T00:00:00Z' }] } });
  assert.ok(empty && !empty.ok && /no OUI traffic \(1 entries/.test(empty.why), JSON.stringify(empty));
  const broken = harSession({ log: { entries: 3 } });
  assert.ok(broken && !broken.ok && /log\.entries is not an array/.test(broken.why));
  assert.equal(harSession({ format: 'x' }), null);
});

test('several files are one session: a file met again once, two recordings that share ids both whole', () => {
  const a = readDroppedFile(sessionFile(capture({ transport: 'websocket', requests: 2 })));
  const b = readDroppedFile(sessionFile(capture({ transport: 'websocket', requests: 1 })));
  assert.ok(a.ok && b.ok);
  assert.ok(b.file.events.some((ev) => a.file.events.some((x) => x.id === ev.id)), 'the two recordings share event ids');
  const merged = mergeSessions([a.file, b.file, a.file]);
  assert.equal(merged.events.length, a.file.events.length + b.file.events.length);
  assert.equal(new Set(merged.events.map((e) => e.id)).size, merged.events.length);
  assert.equal(merged.clients.length, a.file.clients.length + b.file.clients.length);
  const keys = new Set(merged.clients.map((c) => c.key));
  assert.ok(merged.events.every((e) => keys.has(e.client)), 'every event names a client of the session');
  const acks = merged.events.filter((e) => e.ackOf !== undefined);
  assert.ok(acks.every((e) => merged.events.some((x) => x.id === e.ackOf)), 'acks still name the event they acknowledge');
  assert.equal(mergeSessions([a.file]).exportedAt, a.file.exportedAt);
});
