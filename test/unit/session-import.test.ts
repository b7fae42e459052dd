/**
 * What the panel says about a file it is asked to import, in one line: one
 * that is not a session, of another version, or with nothing readable is
 * refused (the session on screen is kept); one with skipped records is
 * imported, saying how many and why the first was skipped.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SESSION_FORMAT, SESSION_VERSION, importOutcome } from '../../src/session/wire/session-file.ts';

const file = (over: Record<string, unknown> = {}) => JSON.stringify({ format: SESSION_FORMAT, version: SESSION_VERSION, exportedAt: '2026-01-02T03:04:05.000Z', clients: [{ key: 'k', kind: 'websocket' }], events: [{ id: 'e1', client: 'k', t: 1, dir: 'out', kind: 'event', type: 'surface:register', payload: {} }], ...over });

function refused(text: string, name?: string): string {
  const r = importOutcome(text, name);
  assert.equal(r.ok, false, `refused: ${text.slice(0, 60)}`);
  assert.doesNotMatch(r.line, /[\n\r\u2028\u2029]/, 'one line');
  assert.match(r.line, /the current session is kept\.$/);
  return r.line;
}

describe('import outcome', () => {
  it('a file that is not JSON at all (an image) says so, on one line', () => {
    const png = '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\n\n{"format"';
    const line = refused(png, 'shot.png');
    assert.match(line, /^Import of shot\.png failed: not JSON: /);
  });

  it('JSON that is not a session says what it is', () => {
    assert.match(refused(JSON.stringify({ log: { version: '1.2', entries: [] } }), 'net.har'), /not an OUI DevTools session: the file is JSON without a "format"/);
    assert.match(refused('[1,2,3]'), /not an OUI DevTools session: the file is a JSON array/);
    assert.match(refused('"hello"'), /not an OUI DevTools session: the file is JSON "hello"/);
    assert.match(refused(JSON.stringify({ format: 'har\nlog' })), /its format is "har\\nlog"/);
  });

  it('another version says which, and what to do about a newer one', () => {
    assert.match(refused(file({ version: 2 })), /unsupported version 2; this panel reads version 1 \(the file was written by a newer OUI DevTools: update the extension\)/);
    const older = refused(file({ version: 0 }));
    assert.match(older, /unsupported version 0; this panel reads version 1;/);
    assert.doesNotMatch(older, /newer/);
  });

  it('a session with nothing readable, or nothing at all, is refused rather than replacing the one on screen', () => {
    assert.match(refused(file({ events: [{ id: 'x' }, 7] })), /none of its records could be read \(event 1: no client\)/);
    assert.match(refused(file({ events: [] })), /the session holds no events/);
    assert.match(refused(file({ clients: 'all' })), /clients and events must be arrays/);
  });

  it('skipped records are counted and the first is explained; the rest is imported', () => {
    const r = importOutcome(
      file({
        events: [
          { id: 'e1', client: 'k', t: 1, dir: 'out', kind: 'event' },
          { id: 'e2', client: 'nobody', t: 2, dir: 'out', kind: 'event' },
          { id: 'e3', client: 'k', t: 3, dir: 'sideways', kind: 'event' },
        ],
      }),
      'session.json',
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.file.events.map((e) => e.id),
      ['e1'],
    );
    assert.equal(
      r.line,
      'Imported 1 events of 1 client from session.json exported 2026-01-02T03:04:05.000Z; 2 records skipped (event 2: client "nobody" is not among the file\'s clients, …). Live capture is off until you go back to live.',
    );
  });

  it('a clean file says only what was imported', () => {
    const r = importOutcome(file());
    assert.ok(r.ok);
    assert.equal(r.line, 'Imported 1 events of 1 client from a session exported 2026-01-02T03:04:05.000Z. Live capture is off until you go back to live.');
  });

  it('hostile values in the file stay on one short line', () => {
    const key = `k\n${'x'.repeat(5000)}\u2028<script>`;
    const r = importOutcome(file({ exportedAt: 'a\nb', clients: [{ key: 'k', kind: 'websocket' }, { key, kind: 'pigeon\n'.repeat(100) }] }), 'evil\nname.json');
    assert.ok(r.ok);
    assert.doesNotMatch(r.line, /[\n\r\u2028\u2029]/);
    assert.ok(r.line.length < 400, `short: ${r.line.length}`);
    assert.match(r.line, /1 record skipped \(client 2: unknown kind "pigeon\\npigeon/);
  });
});
