/**
 * Issue 18, item 5: a value nested 100,000 levels deep — which V8's
 * JSON.parse reads, and which JSON.stringify and every recursive walk cannot
 * follow — goes through the whole line: hook items → Recorder → WireDecoder
 * → SessionModel, then the session file and the HAR (written, read back,
 * compared whole with an iterative comparison), then `oui-devtools lint` on
 * both files. What the model cannot check at that depth it says, never
 * judging a value it did not see (no false finding); what its copy proves
 * wrong stays a finding; the hashes are taken over the whole value.
 *
 * Expected texts are built, not computed by the code under test: a value
 * is written as text with its members already in the order a writer must
 * give, parsed, and written again.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import fc from 'fast-check';
import { FakeHook } from '../support/capture-items.ts';
import { Traffic, findingsOf } from './session-helpers.ts';
import { runCapture, type CaptureRun } from '../support/run-capture.ts';
import { sortedJson as specSortedJson } from '../generator/hashes.ts';
import { exportSession, parseSessionFile, sessionFileText } from '../../src/session/wire/session-file.ts';
import { exportHar, harText } from '../../src/session/har/export.ts';
import { HAR_HOOK, HarCapture, type HarItem } from '../../src/session/har/read.ts';
import { WireDecoder } from '../../src/session/wire/decoder.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { runLint } from '../../src/cli/lint.ts';
import { jsonEqual } from '../../src/session/diff/json-equal.ts';
import { validate } from '../../src/session/model/payload.ts';
import { writeJson } from '../../src/protocol/json-text.ts';
import {
  MAX_CLONE_DEPTH,
  argsHashSync,
  canonicalJson,
  canonicalJsonByBuilder,
  fnv1a64Utf16,
  isIncomplete,
  jsonPrefix,
  parsePayload,
  sortedJson,
  stringifyJson,
  surfacesHash,
} from '../../src/protocol/index.ts';
import { safeJson } from '../../panel/copy.ts';
import { short } from '../../panel/display-text.ts';

const D = 100_000;

/** `[[[…inner…]]]`, `d` levels. */
const nest = (d: number, inner = ''): string => '['.repeat(d) + inner + ']'.repeat(d);
/** `{"not":{"not":…{}…}}`, `d` levels: a schema as deep as the values (allowing anything, `d` being even). */
const notChain = (d: number): string => '{"not":'.repeat(d) + '{}' + '}'.repeat(d);
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Deep equality of JSON values with an explicit stack: nothing of the code
 * under test, and no recursion (the values are 100,000 levels deep).
 */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ya = y as unknown[];
      if (x.length !== ya.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], ya[i]]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const kx = Object.keys(xo);
    if (kx.length !== Object.keys(yo).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(yo, k)) return false;
      stack.push([xo[k], yo[k]]);
    }
  }
  return true;
}

/** The depth of a JSON value, walked with an explicit stack. */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d + 1 > max) max = d + 1;
    for (const c of Array.isArray(x) ? x : Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

// ---------------------------------------------------------------------------
// The writers and walks, alone
// ---------------------------------------------------------------------------

/** Scalars in the forms JSON.stringify writes them (native, on a shallow array). */
const LEAF = JSON.stringify([1e21, -0.5, 0, '\u0001é"\\\u2028\ud83d\ude00', true, null, {}, []]);
/** `{"b":[…],"a":0}` nested to depth D: members out of order, scalars of every kind at the bottom. */
const MIXED = '{"b":['.repeat(D / 2) + LEAF + '],"a":0}'.repeat(D / 2);
/** The same value with every object's members sorted: its sorted JSON, and its RFC 8785 form. */
const MIXED_SORTED = '{"a":0,"b":['.repeat(D / 2) + LEAF + ']}'.repeat(D / 2);

describe('JSON text at any depth (src/protocol/json-text.ts)', () => {
  it('the explicit-stack walk writes what JSON.stringify writes (random values, every kind of space)', () => {
    const space = fc.oneof(fc.constant(undefined), fc.integer({ min: -2, max: 12 }), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.jsonValue(), space, (v, sp) => {
        const gap = typeof sp === 'number' ? ' '.repeat(Math.max(0, Math.min(10, sp))) : (sp ?? '').slice(0, 10);
        assert.equal(writeJson(v, { gap, sorted: false, native: false }), JSON.stringify(v, null, sp));
        assert.equal(stringifyJson(v, sp), JSON.stringify(v, null, sp));
      }),
      { numRuns: 2000 },
    );
    const odd = {
      u: undefined,
      f: () => 1,
      s: Symbol('s'),
      arr: [undefined, () => 2, Symbol('t'), NaN, -0, Infinity, , 3],
      date: new Date(0),
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      withKey: { toJSON: (k: string) => `key ${k}` },
      empty: [{}, [], { only: undefined }],
      '10': 'index key first',
    };
    for (const sp of [undefined, 2, '\t', '$&']) assert.equal(writeJson(odd, { gap: typeof sp === 'number' ? '  ' : (sp ?? ''), sorted: false, native: false }), JSON.stringify(odd, null, sp));
    assert.equal(writeJson(undefined, { gap: '', sorted: false }), undefined);
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic.a as unknown[]).push(cyclic);
    assert.throws(() => writeJson(cyclic, { gap: '', sorted: false, native: false }), TypeError);
    assert.throws(() => writeJson({ n: 1n }, { gap: '', sorted: false, native: false }), TypeError);
  });

  it('a 100,000-deep value: stringifyJson writes its text whole, byte for byte', () => {
    const v: unknown = JSON.parse(MIXED);
    assert.throws(() => JSON.stringify(v), RangeError);
    assert.equal(stringifyJson(v), MIXED);
    // Indented: at a depth whose indented text can be built at all.
    const d = 3_000;
    const indented = stringifyJson(JSON.parse(nest(d, '{"a":[1,{}],"b":"x"}')), 2)!;
    const lines = indented.split('\n');
    assert.equal(lines.length, 2 * d + 7);
    assert.equal(lines[d], `${' '.repeat(2 * d)}{`);
    assert.equal(lines[d + 1], `${' '.repeat(2 * d + 2)}"a": [`);
    assert.equal(JSON.stringify(JSON.parse(indented)), nest(d, '{"a":[1,{}],"b":"x"}'));
    // A preview: the start, without writing the rest.
    assert.equal(jsonPrefix(v, 30)!.slice(0, 30), MIXED.slice(0, 30));
    assert.ok(jsonPrefix(v, 30)!.length < 100);
  });

  it('a 100,000-deep value: sorted JSON, canonical JSON, argsHash and surfacesHash are taken over the whole value', () => {
    const v: unknown = JSON.parse(MIXED);
    assert.equal(sortedJson(v), MIXED_SORTED);
    assert.equal(canonicalJson(v), MIXED_SORTED);
    assert.equal(canonicalJsonByBuilder(v), MIXED_SORTED);
    assert.equal(argsHashSync(v), sha256(MIXED_SORTED));
    assert.equal(surfacesHash(v), `fnv1a64:${fnv1a64Utf16(MIXED_SORTED)}`);
    // What canonical JSON refuses is refused at any depth, with its pointer.
    const bad: unknown = JSON.parse(nest(D, '{"a":1}'));
    let inner = bad as unknown[];
    for (let i = 1; i < D; i++) inner = inner[0] as unknown[];
    (inner[0] as Record<string, unknown>).a = NaN;
    assert.throws(() => canonicalJson(bad), (e: Error & { refusal?: string; path?: string }) => e.refusal === 'non-finite-number' && e.path === '/0'.repeat(D) + '/a');
  });

  it('jsonEqual compares at any depth: equal is equal, a difference at the bottom is one', () => {
    const a: unknown = JSON.parse(nest(D, '{"x":1,"y":[2]}'));
    assert.ok(jsonEqual(a, JSON.parse(nest(D, '{"y":[2],"x":1}'))));
    assert.ok(!jsonEqual(a, JSON.parse(nest(D, '{"x":1,"y":[3]}'))));
    assert.ok(!jsonEqual(a, JSON.parse(nest(D - 1, '{"x":1,"y":[2]}'))));
    const cyclic: unknown[] = [];
    let cur = cyclic;
    for (let i = 0; i < 300; i++) cur = (cur[0] = []) as unknown[];
    cur.push(cyclic);
    const other: unknown[] = [];
    cur = other;
    for (let i = 0; i < 300; i++) cur = (cur[0] = []) as unknown[];
    cur.push(other);
    assert.equal(jsonEqual(cyclic, other), false);
  });
});

describe('schemas on a copy cut at the depth cap (src/session/model/payload.ts)', () => {
  const copyOf = (text: string): unknown => {
    const r = parsePayload('observation:update', JSON.parse(`{"surfaceId":"cart","observationId":"tree","timestamp":1,"value":${text}}`));
    assert.ok(r.ok);
    return (r.event.payload as unknown as { value: unknown }).value;
  };
  const tree = { $ref: '#/$defs/tree', $defs: { tree: { type: 'array', items: { $ref: '#/$defs/tree' } } } };

  it('what the cut copy cannot show gets no verdict, neither invalid nor valid', () => {
    const value = copyOf(nest(D));
    assert.ok(isIncomplete(value));
    const v = validate(value, tree);
    assert.equal(v.valid, true);
    assert.deepEqual(v.errors, []);
    assert.match(v.unusable ?? '', /nested more than 256 levels deep/);
    // Nor does a value that breaks the schema only below the cap.
    assert.equal(validate(copyOf(nest(D, '"leaf"')), tree).errors.length, 0);
  });

  it('what the cut copy proves stays a verdict', () => {
    assert.deepEqual(validate(copyOf(nest(D)), { type: 'object' }).errors, [{ pointer: '', message: 'expected object, got array' }]);
    const wide = copyOf(`[${nest(D)}, "not a number", {"k":1}]`);
    const v = validate(wide, { type: 'array', prefixItems: [{ type: 'array' }, { type: 'number' }, { required: ['k', 'm'] }] });
    assert.deepEqual(
      v.errors.map((e) => `${e.pointer} ${e.message}`),
      ['/1 expected number, got string', '/2 missing required property "m"'],
    );
  });

  it('a schema cut at the cap is not used', () => {
    const r = parsePayload('surface:register', JSON.parse(`{"timestamp":1,"surface":{"id":"deep-schema","name":"Deep","description":"d","actions":[{"id":"fill","description":"f","input":{"type":"object","properties":{"x":${notChain(D)}}}}]}}`));
    assert.ok(r.ok);
    const input = (r.event.payload as unknown as { surface: { actions: Array<{ input: unknown }> } }).surface.actions[0]!.input;
    assert.ok(isIncomplete(input));
    assert.match(validate({ x: 1 }, input).unusable ?? '', /schema is nested more than 256 levels deep/);
  });
});

// ---------------------------------------------------------------------------
// The whole line: a plain-JSON WebSocket whose frames carry 100,000-deep values
// ---------------------------------------------------------------------------

// Members in sorted order (checked below), so the sorted JSON of the surfaces is this very text.
const TREE = '{"items":{"$ref":"#/$defs/tree"},"type":"array"}';
const DEFS = `"$defs":{"tree":${TREE}}`;
const CART = `{"actions":[{"description":"Order","effect":"transaction","id":"place_order","input":{${DEFS},"properties":{"tree":{"$ref":"#/$defs/tree"}},"type":"object"},"output":{${DEFS},"$ref":"#/$defs/tree"}},{"description":"Show it","effect":"view","id":"view_cart","input":{"properties":{},"type":"object"},"output":{"type":"object"}}],"description":"The cart","id":"cart","name":"Cart","observations":[{"description":"A tree","id":"tree","schema":{${DEFS},"$ref":"#/$defs/tree"},"updateFrequency":"on-change"}]}`;
const deepSchema = (d: number) =>
  `{"actions":[{"description":"Fill","effect":"view","id":"fill","input":{"properties":{"x":${notChain(d)}},"type":"object"}}],"description":"A schema 100,000 levels deep","id":"deep-schema","name":"Deep"}`;
const SURFACES = `[${CART},${deepSchema(D)}]`;
/** The surfaces hash as the client computes it: FNV-1a over the sorted JSON, which SURFACES is. */
const HASH = `fnv1a64:${fnv1a64Utf16(SURFACES)}`;
const PARAMS = `{"tree":${nest(D)}}`;
/** argsHash as the runtime computes it: SHA-256 of the canonical JSON, which PARAMS is. */
const ARGS_HASH = sha256(PARAMS);
const R1 = '00000000-0000-4000-8000-000000000001';
const R2 = '00000000-0000-4000-8000-000000000002';
const R3 = '00000000-0000-4000-8000-000000000003';

const FRAMES: Array<['in' | 'out', string]> = [
  ['out', `{"type":"surface:register","payload":{"surface":${CART},"timestamp":1}}`],
  ['out', `{"type":"surface:register","payload":{"surface":${deepSchema(D)},"timestamp":2}}`],
  ['in', `{"type":"action:request","payload":{"requestId":"${R1}","surfaceId":"cart","actionId":"place_order","params":${PARAMS},"approval":{"approvalId":"ap-1","argsHash":"${ARGS_HASH}"},"timestamp":3}}`],
  // The same request again (§7.3.7) with the same 100,000-deep params: a repeat, not a reused id.
  ['in', `{"type":"action:request","payload":{"requestId":"${R1}","surfaceId":"cart","actionId":"place_order","params":${PARAMS},"approval":{"approvalId":"ap-1","argsHash":"${ARGS_HASH}"},"timestamp":4}}`],
  ['out', `{"type":"action:result","payload":{"requestId":"${R1}","success":true,"data":${nest(D)},"surfaces":${SURFACES},"surfacesHash":"${HASH}","timestamp":5}}`],
  ['in', `{"type":"action:request","payload":{"requestId":"${R2}","surfaceId":"deep-schema","actionId":"fill","params":{"x":1},"knownSurfaces":"${HASH}","timestamp":6}}`],
  ['out', `{"type":"action:result","payload":{"requestId":"${R2}","success":true,"surfacesHash":"${HASH}","timestamp":7}}`],
  ['out', `{"type":"observation:update","payload":{"surfaceId":"cart","observationId":"tree","value":${nest(D)},"timestamp":8}}`],
  ['out', `{"type":"observation:update","payload":{"surfaceId":"cart","observationId":"tree","value":${nest(D)},"timestamp":9}}`],
  ['in', `{"type":"action:request","payload":{"requestId":"${R3}","surfaceId":"cart","actionId":"view_cart","params":{},"knownSurfaces":"${HASH}","timestamp":10}}`],
  // Data the copy proves wrong: an array where the output says object.
  ['out', `{"type":"action:result","payload":{"requestId":"${R3}","success":true,"data":${nest(D, '1')},"surfacesHash":"${HASH}","timestamp":11}}`],
  // Later events still go through.
  ['out', `{"type":"observation:update","payload":{"surfaceId":"cart","observationId":"tree","value":[[]],"timestamp":12}}`],
];

interface Capture {
  run: CaptureRun;
  /** The frame text of each wire event, by its id. */
  frames: Map<string, string>;
}

let captured: Capture | undefined;

function capture(): Capture {
  if (captured) return captured;
  const hook = new FakeHook('h1');
  const ws = hook.client('websocket', 'ws://127.0.0.1:8080/oui');
  const items = [hook.item(ws, 'open')];
  const frames = new Map<string, string>();
  for (const [dir, text] of FRAMES) {
    const item = hook.frame(ws, dir, text);
    frames.set(`${item.hook}/${item.client}/${item.seq}`, text);
    items.push(item);
  }
  captured = { run: runCapture([{ frameId: 0, message: hook.message(items) }]), frames };
  return captured;
}

/** Rule and severity of each finding, and its message when asked. */
function summary(findings: Array<{ rule: string; severity: string; message: string }>, withMessage = false): string[] {
  return findings.map((f) => `${f.rule} ${f.severity}${withMessage ? ` ${f.message}` : ''}`).sort();
}

const DEPTH_NOTE = new RegExp(`nested more than ${MAX_CLONE_DEPTH} levels deep: checked to that depth only`);

const EXPECTED_FINDINGS = [
  // A cut copy is said where it is cut (the repeat, the second update and r3's data are cut where an earlier one was: one finding each place).
  'payload-problem warning', // the deep schema of deep-schema
  'payload-problem warning', // the data of r1 and r3
  'payload-problem warning', // the observation's value
  'payload-problem-from-runtime warning', // r1's params
  // What the cut copy still proves: an array where view_cart's output says object.
  'result-output-invalid warning',
];

describe('a 100,000-deep value through hook items → Recorder → decoder → model', () => {
  it('the surfaces text is its own sorted JSON (so HASH is the hash the spec asks for)', () => {
    const shallow = `[${CART},${deepSchema(4)}]`;
    assert.equal(specSortedJson(JSON.parse(shallow)), shallow);
  });

  it('decodes every frame whole and judges only what it saw: no false finding; what is cut is said', () => {
    const { run, frames } = capture();
    assert.equal(run.model.internalErrors, 0, run.model.lastInternalError);
    assert.equal(run.events.length, FRAMES.length + 1);
    for (const ev of run.events) {
      assert.notEqual(ev.kind, 'malformed', ev.note);
      const text = frames.get(ev.id);
      if (text !== undefined) assert.ok(sameJson(ev.payload, (JSON.parse(text) as { payload: unknown }).payload), ev.id);
    }
    assert.equal(depthOf(run.events[3]!.payload), D + 2);
    assert.deepEqual(summary(run.findings), EXPECTED_FINDINGS);
    for (const f of run.findings.filter((x) => x.rule.startsWith('payload-problem'))) assert.match(f.message, DEPTH_NOTE);
    assert.match(run.findings.find((f) => f.rule === 'result-output-invalid')!.message, /of cart\/view_cart: \/ expected object, got array/);
  });

  it('hashes the whole value: surfacesHash and argsHash match what the client and the runtime computed', () => {
    const { run } = capture();
    const state = [...run.model.clients.values()][0]!;
    assert.deepEqual(
      state.hashes.map((h) => [h.requestId, h.verdict, h.recomputed]),
      [
        [R1, 'match', HASH],
        [R2, 'match', HASH],
        [R3, 'match', HASH],
      ],
    );
    assert.equal(state.approvals.length, 1);
    const approval = state.approvals[0]!;
    assert.deepEqual(approval.recomputed, { ok: true, hash: ARGS_HASH });
    assert.equal(approval.hashMatches, true);
    assert.equal(approval.outcome, 'ran');
  });

  it('keeps the model bounded: its copies stop at the cap, marked incomplete, and compare exactly', () => {
    const { run } = capture();
    const state = [...run.model.clients.values()][0]!;
    const req = state.requests.get(R1)!;
    assert.ok(isIncomplete(req.params));
    assert.ok(depthOf(req.params) <= MAX_CLONE_DEPTH);
    const obs = [...state.observations.values()][0]!;
    assert.deepEqual(obs.current, [[]]);
    // The second 100,000-deep update was the same value: no change; no schema verdict on a cut copy.
    assert.deepEqual(
      obs.history.map((h) => [h.summary[0]!.split(' ').slice(0, 2).join(' '), h.valid, h.errors.length]),
      [
        ['initial value', true, 0],
        ['no change', true, 0],
        ['removed /0/0', true, 0],
      ],
    );
  });

  it('the set a result reports is the one registered: no change made up by copies cut at different depths', () => {
    const { run } = capture();
    const state = [...run.model.clients.values()][0]!;
    assert.deepEqual(
      state.surfaceSets.map((s) => s.summary),
      [['added surface cart'], ['added surface deep-schema']],
    );
    assert.deepEqual(
      state.lifecycle.map((l) => `${l.surfaceId} ${l.kind}`),
      ['cart registered', 'deep-schema registered'],
    );
  });

  it('a repeat whose params differ only at the bottom is a reused id (the params are compared whole)', () => {
    const t = new Traffic();
    const surface = JSON.parse(CART) as Parameters<Traffic['register']>[0];
    t.open();
    t.register(surface);
    const id = R1;
    t.request('cart', 'view_cart', JSON.parse(`{"tree":${nest(D, '1')}}`), { requestId: id });
    t.wait(10).request('cart', 'view_cart', JSON.parse(`{"tree":${nest(D, '2')}}`), { requestId: id });
    t.wait(10).request('cart', 'view_cart', JSON.parse(`{"tree":${nest(D, '2')}}`), { requestId: id });
    const model = t.model();
    assert.equal(model.internalErrors, 0, model.lastInternalError);
    assert.equal(findingsOf(model, 'request-id-reused').length, 1);
  });
});

// ---------------------------------------------------------------------------
// Exports: the session file and the HAR, written and read back whole
// ---------------------------------------------------------------------------

/** A HAR's WebSocket and polling traffic decoded again, as the linter does (HarCapture → WireDecoder). */
function readHar(text: string): WireEvent[] {
  const har = JSON.parse(text) as { log: { entries: Array<Record<string, unknown>> } };
  const cap = new HarCapture();
  const items: HarItem[] = [];
  har.log.entries.forEach((e, i) => {
    const { _webSocketMessages: messages, ...rest } = e;
    items.push(...cap.head(i, rest));
    if (Array.isArray(messages)) messages.forEach((m, j) => items.push(...cap.message(i, j, m)));
    items.push(...cap.end(i, rest));
  });
  const decoder = new WireDecoder();
  for (const c of cap.clients.values()) decoder.addClient(c, HAR_HOOK, 0);
  const seqs = new Map<string, number>();
  const out: WireEvent[] = [];
  for (const item of items) {
    const seq = (seqs.get(item.client) ?? 0) + 1;
    seqs.set(item.client, seq);
    out.push(...decoder.push({ ...item, seq }));
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'oui-deep-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function lint(file: string): Promise<{ code: number; findings: Array<{ rule: string; severity: string; message: string }>; events: number }> {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        add(String(chunk));
        cb();
      },
    });
  const code = await runLint([file, '--format', 'json'], { stdin: Readable.from([]), stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), cwd: dir, version: 'test' });
  assert.equal(err, '');
  const report = JSON.parse(out) as { files: Array<{ events: number; findings: Array<{ rule: string; severity: string; message: string }> }> };
  return { code, findings: report.files[0]!.findings, events: report.files[0]!.events };
}

describe('a 100,000-deep value exported: session file and HAR, read back, linted', () => {
  it('the session file holds every event whole and reads back to the same events', async () => {
    const { run, frames } = capture();
    // (How fast is npm run bench's to measure; here, that it finishes without recursing.)
    const text = sessionFileText(exportSession(run.clients, run.events, new Date(0)));
    // Every deep frame's payload is in the file, as the page sent it.
    for (const [id, frame] of frames) {
      const payload = frame.slice(frame.indexOf('"payload":') + '"payload":'.length, -1);
      assert.ok(text.includes(`"payload":${payload},`), id);
    }
    const back = parseSessionFile(text);
    assert.ok(back.ok);
    assert.equal(back.skipped, 0);
    assert.equal(back.file.events.length, run.events.length);
    // Read back whole: the parsed file is the exported one, compared without recursion.
    assert.ok(sameJson(JSON.parse(text), exportSession(run.clients, run.events, new Date(0))));
    for (let i = 0; i < run.events.length; i++) assert.ok(sameJson(back.file.events[i], run.events[i]), `event ${i}`);
  });

  it('the HAR holds every deep frame as it was sent and decodes back to the same payloads', () => {
    const { run, frames } = capture();
    const text = harText(exportHar(run.clients, run.events));
    const har = JSON.parse(text) as { log: { entries: Array<{ _webSocketMessages?: Array<{ data: string }> }> } };
    const data = har.log.entries.flatMap((e) => e._webSocketMessages ?? []).map((m) => m.data);
    assert.deepEqual(data, [...frames.values()]);
    const back = readHar(text);
    const sent = run.events.filter((e) => e.kind === 'event');
    const read = back.filter((e) => e.kind === 'event');
    assert.equal(read.length, sent.length);
    for (let i = 0; i < sent.length; i++) {
      assert.equal(read[i]!.type, sent[i]!.type);
      assert.ok(sameJson(read[i]!.payload, sent[i]!.payload), `event ${i}`);
    }
  });

  it('postMessage and direct clients (their decoded events in _ouiMessages) are written whole too', () => {
    const hook = new FakeHook('h2');
    const direct = hook.client('direct', 'app-transport');
    const items = [hook.item(direct, 'open'), hook.frame(direct, 'out', `{"type":"observation:update","payload":{"surfaceId":"cart","observationId":"tree","value":${nest(D)},"timestamp":1}}`, { method: 'send' })];
    const run = runCapture([{ frameId: 0, message: hook.message(items) }]);
    const ev = run.events.find((e) => e.kind === 'event')!;
    assert.equal(depthOf(ev.payload), D + 1);
    const text = harText(exportHar(run.clients, run.events));
    assert.ok(text.includes(`"value":${nest(D)}`));
    const har = JSON.parse(text) as { log: { entries: Array<{ _ouiMessages?: WireEvent[] }> } };
    const messages = har.log.entries.flatMap((e) => e._ouiMessages ?? []);
    assert.ok(sameJson(messages.find((m) => m.kind === 'event')!.payload, ev.payload));
  });

  it('oui-devtools lint reads both files to the findings of the capture', async () => {
    const { run } = capture();
    const session = join(dir, 'deep.json');
    const harFile = join(dir, 'deep.har');
    writeFileSync(session, sessionFileText(exportSession(run.clients, run.events)));
    writeFileSync(harFile, harText(exportHar(run.clients, run.events)));
    for (const file of [session, harFile]) {
      const r = await lint(file);
      // Warnings only: below the default --fail-on error.
      assert.equal(r.code, 0, file);
      assert.equal(r.events, run.events.length, file);
      assert.deepEqual(summary(r.findings, true), summary(run.findings, true), file);
    }
  });
});

describe('the panel shows and copies a 100,000-deep value', () => {
  it('a row preview is the start of its JSON; Copy writes it whole (on one line when indented text would be too long)', () => {
    const v: unknown = JSON.parse(MIXED);
    assert.equal(short(v, 40), `${MIXED.slice(0, 40)}…`);
    assert.equal(short({ a: [1, 2] }, 40), '{"a":[1,2]}');
    assert.equal(safeJson(v), MIXED);
    assert.equal(safeJson({ a: [1] }), JSON.stringify({ a: [1] }, null, 2));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.match(safeJson(cyclic), /^\/\* cannot serialise: /);
  });
});
