/**
 * The linter's fast paths give what the plain ways gave: bounded lists and
 * maps evict the same items (a kept iterator instead of a fresh one), the
 * canonical placing of events with its last-source shortcut, and the JSON
 * scanner on chunks of any size, refilled in place, with escapes, non-ASCII
 * text and invalid UTF-8 across chunk boundaries.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BoundedMap, OldestKey, pushBounded } from '../../src/session/model/bounded.ts';
import { SourceClocks, sourceOf } from '../../src/session/model/merge.ts';
import { JsonScanner } from '../../src/session/lint/json-scan.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';

describe('bounded containers', () => {
  it('pushBounded keeps and counts what splicing the front kept and counted', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 200 }), fc.integer({ min: 0, max: 6 }), (pushes, max) => {
        const a: number[] = [];
        const b: number[] = [];
        let da = 0;
        let db = 0;
        for (const [i, extra] of pushes.entries()) {
          // Lists can start over their bound (a lowered limit): push extra items straight in now and then.
          if (extra === 5) {
            a.push(-i, -i);
            b.push(-i, -i);
          }
          da += pushBounded(a, i, max);
          b.push(i);
          if (b.length > max) {
            db += b.length - max;
            b.splice(0, b.length - max);
          }
        }
        assert.deepEqual(a, b);
        assert.equal(da, db);
      }),
    );
  });

  type Op = { op: 'set' | 'delete'; k: number };
  const ops = fc.array(fc.record({ op: fc.constantFrom<'set' | 'delete'>('set', 'set', 'set', 'delete'), k: fc.integer({ min: 0, max: 40 }) }), { maxLength: 400 });

  it('BoundedMap evicts the oldest entry, as a fresh iterator finds it, through any sets and deletes', () => {
    fc.assert(
      fc.property(ops, fc.integer({ min: 1, max: 12 }), (list: Op[], max) => {
        const m = new BoundedMap<number, number>(max);
        const ref = new Map<number, number>();
        for (const [i, { op, k }] of list.entries()) {
          if (op === 'delete') {
            assert.equal(m.delete(k), ref.delete(k));
            continue;
          }
          if (ref.has(k)) ref.delete(k);
          ref.set(k, i);
          let expected: [number, number] | undefined;
          if (ref.size > max) {
            expected = ref.entries().next().value as [number, number];
            ref.delete(expected[0]);
          }
          assert.deepEqual(m.set(k, i), expected);
          assert.deepEqual([...m.entries()], [...ref.entries()]);
        }
      }),
    );
  });

  it('OldestKey starts again after its table emptied', () => {
    const s = new Set<string>(['a']);
    const oldest = new OldestKey(s);
    assert.equal(oldest.next(), 'a');
    s.delete('a');
    assert.equal(oldest.next(), undefined);
    s.add('b');
    s.add('c');
    assert.equal(oldest.next(), 'b');
    s.delete('b');
    assert.equal(oldest.next(), 'c');
  });
});

describe('SourceClocks', () => {
  /** The placing as it was: sourceOf and a map per event. */
  function reference(events: WireEvent[]) {
    const sources = new Map<string, { t: number; n: number }>();
    return events.map((ev) => {
      const { src, hook } = sourceOf(ev);
      const prev = sources.get(src);
      const own = typeof ev.t === 'number' && Number.isFinite(ev.t) ? ev.t : -Infinity;
      const t = prev && prev.t > own ? prev.t : own;
      const n = prev ? prev.n + 1 : 0;
      sources.set(src, { t, n });
      return { t, src, n, hook };
    });
  }

  it('places every event as sourceOf and a map per event did, whatever the ids', () => {
    const id = fc.oneof(
      fc.constantFrom('h1/c1/1', 'h1/c1/2', 'h1/c1/2.1', 'h1/c2/1', 'h2/c1/1', 'h1/c1', 'h1', '', '/x', 'h1//3', 'h1/c1/1/2', 'client:k/1', 'h1/c1/'),
      fc.string({ maxLength: 6 }),
    );
    const ev = fc.record({ id: fc.oneof(id, fc.constant(7 as unknown as string)), client: fc.constantFrom('k', 'h1/c1', 'client:k'), t: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(Number.NaN)) });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 60 }), (raw) => {
        const events = raw as unknown as WireEvent[];
        const clocks = new SourceClocks();
        const got = events.map((e) => {
          const p = clocks.place(e, 0);
          return { t: p.t, src: p.src, n: p.n, hook: p.hook };
        });
        assert.deepEqual(got, reference(events));
      }),
    );
  });
});

describe('JsonScanner', () => {
  /** Feeds `bytes` in chunks of the given sizes through one buffer refilled in place, as the CLI reads a file. */
  function scan(bytes: Uint8Array, sizes: number[]): { events: string[]; clients: string[]; top: Array<[string, string]>; lines: number[] } {
    const out = { events: [] as string[], clients: [] as string[], top: [] as Array<[string, string]>, lines: [] as number[] };
    const s = new JsonScanner({
      top: (k, t) => out.top.push([k, t]),
      log: () => {},
      record: (array, _i, text, line) => {
        (array === 'events' ? out.events : out.clients).push(text);
        out.lines.push(line);
      },
      entryHead: () => {},
      wsMessage: () => {},
      entryEnd: () => {},
    });
    const buf = new Uint8Array(64);
    let at = 0;
    let k = 0;
    while (at < bytes.length) {
      const n = Math.min(sizes[k++ % sizes.length]!, bytes.length - at, buf.length);
      buf.set(bytes.subarray(at, at + n));
      s.write(n === buf.length ? buf : buf.subarray(0, n));
      buf.fill(0x7b); // what a reused buffer holds next must not show through
      at += n;
    }
    s.end();
    return out;
  }

  const text = fc.oneof(fc.string(), fc.constantFrom('"', '\\', '\\"', 'é', '€', '😀', '\u2028', '}{][', 'a\\\\"b'));
  const value = fc.jsonValue({ maxDepth: 3 });

  it('hands over each record as JSON.parse of the whole file reads it, in chunks of any size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: text, payload: value, note: text }), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (events, sizes, pretty) => {
          const doc = { format: 'oui-devtools-session', version: 1, clients: [{ key: 'k\u00e9' }], events };
          const json = pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc);
          const got = scan(new TextEncoder().encode(json), sizes);
          assert.deepEqual(got.events.map((t) => JSON.parse(t)), JSON.parse(json).events);
          assert.deepEqual(got.clients.map((t) => JSON.parse(t)), doc.clients);
          assert.deepEqual(got.top, [
            ['format', '"oui-devtools-session"'],
            ['version', '1'],
          ]);
          // Lines: where each record starts (clients, then events).
          const starts = pretty ? json.split('\n').flatMap((l, i) => (/^ {4}[{[\d"tfn-]/.test(l) ? [i + 1] : [])) : got.lines.map(() => 1);
          assert.deepEqual(got.lines, starts);
        },
      ),
    );
  });

  it('decodes invalid UTF-8 in a record as decoding the record alone does', () => {
    const head = new TextEncoder().encode('{"format":"oui-devtools-session","version":1,"events":[{"a":"');
    const tail = new TextEncoder().encode('"},{"b":"x\u00e9"}]}');
    for (const bad of [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0x80, 0x80]]) {
      const bytes = new Uint8Array([...head, ...bad, ...tail]);
      const expected = new TextDecoder().decode(new Uint8Array([0x22, ...bad, 0x22]));
      for (const size of [1, 3, 7, 64]) {
        const got = scan(bytes, [size]);
        assert.equal(JSON.parse(got.events[0]!).a, JSON.parse(expected), `${bad} in chunks of ${size}`);
        assert.equal(JSON.parse(got.events[1]!).b, 'x\u00e9');
      }
    }
  });
});
