/**
 * parseEvent / parsePayload / parseAcknowledgment: total on hostile input,
 * positive and negative cases per event type, and each problem.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageAnything } from '../support/page-data.ts';
import {
  CIRCULAR,
  MAX_CLONE_DEPTH,
  TRUNCATED_DEPTH,
  TRUNCATED_SIZE,
  UNREADABLE,
  parseAcknowledgment,
  parseEvent,
  parsePayload,
  toJsonSafe,
  type ParseResult,
  type Problem,
} from '../../src/protocol/index.ts';

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const HASH64 = 'a'.repeat(64);

function surface(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'doc-editor',
    name: 'Document editor',
    description: 'Edits documents',
    version: '1.0.0',
    actions: [
      {
        id: 'set_title',
        description: 'Sets the title',
        effect: 'edit',
        input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      },
      { id: 'delete_doc', description: 'Deletes it', effect: 'mutate', confirm: true, input: { type: 'object', properties: {} } },
    ],
    observations: [{ id: 'word_count', description: 'Words', schema: { type: 'integer' }, updateFrequency: 'on-change' }],
    activation: { routes: ['/docs/*'], entity: { type: 'document' } },
    metadata: { team: 'x' },
    ...over,
  };
}

function valid(): Record<string, { type: string; payload: Record<string, unknown> }> {
  return {
    register: { type: 'surface:register', payload: { surface: surface(), timestamp: 1_700_000_000_000 } },
    deregister: { type: 'surface:deregister', payload: { surfaceId: 'doc-editor', timestamp: 1_700_000_000_001 } },
    request: {
      type: 'action:request',
      payload: {
        requestId: 'req-1',
        surfaceId: 'doc-editor',
        actionId: 'set_title',
        params: { title: 'Hello' },
        timestamp: 1_700_000_000_002,
        approval: { approvalId: 'ap-1', argsHash: HASH64 },
        knownSurfaces: 'fnv1a64:0123456789abcdef',
      },
    },
    result: {
      type: 'action:result',
      payload: {
        requestId: 'req-1',
        success: true,
        data: { ok: true },
        timestamp: 1_700_000_000_003,
        surfaces: [surface()],
        observations: { 'doc-editor': { word_count: 3 } },
        surfacesHash: 'fnv1a64:0123456789abcdef',
        settled: true,
        durationMs: 12,
      },
    },
    failure: {
      type: 'action:result',
      payload: { requestId: 'req-2', success: false, error: { code: 'VALIDATION_ERROR', message: 'bad', details: { at: '/title' } }, timestamp: 5 },
    },
    update: { type: 'observation:update', payload: { surfaceId: 'doc-editor', observationId: 'word_count', value: 4, timestamp: 6 } },
    obsRequest: { type: 'observation:request', payload: { surfaceId: 'doc-editor', observationId: 'word_count' } },
  };
}

function ok(r: ParseResult): Extract<ParseResult, { ok: true }> {
  assert.ok(r.ok, `expected ok, got problems ${JSON.stringify(r.problems)}`);
  return r;
}
function notOk(r: ParseResult): Extract<ParseResult, { ok: false }> {
  assert.ok(!r.ok, 'expected ok: false');
  return r;
}
function has(problems: Problem[], path: string, message: RegExp, severity?: 'error' | 'warning', section?: string): void {
  const hit = problems.find((p) => p.path === path && message.test(p.message));
  assert.ok(hit, `no problem at ${path} matching ${message}; got ${JSON.stringify(problems, null, 1)}`);
  if (severity) assert.equal(hit.severity, severity, hit.message);
  if (section) assert.equal(hit.section, section, hit.message);
}
function errors(problems: Problem[]): Problem[] {
  return problems.filter((p) => p.severity === 'error');
}
/** Parse a valid fixture after applying `mutate` to a fresh copy of its payload. */
function withPayload(name: string, mutate: (p: Record<string, unknown>) => void): ParseResult {
  const e = valid()[name]!;
  mutate(e.payload);
  return parseEvent(e);
}

// ---------------------------------------------------------------------------
// Valid events
// ---------------------------------------------------------------------------

describe('parseEvent: valid events of every type', () => {
  for (const [name, e] of Object.entries(valid())) {
    it(`${name} (${e.type}) parses with no problems`, () => {
      const r = ok(parseEvent(e));
      assert.deepEqual(r.problems, []);
      assert.equal(r.event.type, e.type);
      assert.deepEqual(r.event.payload, e.payload);
      assert.notEqual(r.event.payload, e.payload, 'a copy, not the input');
    });
  }
  it('parsePayload takes the type separately and points from the payload', () => {
    const r = ok(parsePayload('action:request', valid().request!.payload));
    assert.equal(r.event.type, 'action:request');
    const bad = notOk(parsePayload('action:request', { requestId: 'r' }));
    has(bad.problems, '/surfaceId', /surfaceId must be a string \(got missing\)/, 'error', '§7.3.1');
  });
  it('unknown extra fields are fine and kept', () => {
    const r = ok(withPayload('request', (p) => (p.extra = { x: 1 })));
    assert.deepEqual(r.problems, []);
    assert.deepEqual((r.event.payload as unknown as Record<string, unknown>).extra, { x: 1 });
  });
  it('the event copy holds plain objects only', () => {
    const r = ok(parseEvent(valid().result));
    const walk = (v: unknown): void => {
      if (v && typeof v === 'object') {
        const proto = Object.getPrototypeOf(v);
        assert.ok(proto === Object.prototype || proto === Array.prototype);
        for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
      }
    };
    walk(r.event);
  });
});

// ---------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------

describe('parseEvent: the envelope', () => {
  it('refuses non-objects', () => {
    for (const raw of [null, undefined, 1, 'action:request', true, [1, 2], 10n, Symbol('x'), () => 1]) {
      const r = notOk(parseEvent(raw));
      has(r.problems, '', /an event must be an object/, 'error', '§7.1');
    }
  });
  it('needs a string type', () => {
    has(notOk(parseEvent({ payload: {} })).problems, '/type', /type must be a string \(got missing\)/);
    has(notOk(parseEvent({ type: 5, payload: {} })).problems, '/type', /type must be a string \(got a number\)/);
  });
  it('x- types are extensions, ignored silently', () => {
    const r = notOk(parseEvent({ type: 'x-analytics:track', payload: { anything: 1 } }));
    assert.equal(r.extension, 'x-analytics:track');
    assert.deepEqual(r.problems, []);
    const r2 = notOk(parsePayload('x-foo', undefined));
    assert.equal(r2.extension, 'x-foo');
    assert.deepEqual(r2.problems, []);
  });
  it('unknown types that are not extensions are errors', () => {
    const r = notOk(parseEvent({ type: 'action:cancel', payload: {} }));
    assert.equal(r.extension, undefined);
    has(r.problems, '/type', /unknown event type "action:cancel"/, 'error');
  });
  it('needs an object payload', () => {
    has(notOk(parseEvent({ type: 'action:request' })).problems, '/payload', /payload must be an object \(got missing\)/);
    has(notOk(parseEvent({ type: 'action:request', payload: [1] })).problems, '/payload', /got an array/);
    has(notOk(parseEvent({ type: 'action:request', payload: 'x' })).problems, '/payload', /got a string/);
    has(notOk(parseEvent({ type: 'action:request', payload: null })).problems, '/payload', /got null/);
  });
});

// ---------------------------------------------------------------------------
// Per type: negative cases and problems
// ---------------------------------------------------------------------------

describe('surface:register', () => {
  it('needs a surface object and a timestamp', () => {
    has(notOk(withPayload('register', (p) => delete p.surface)).problems, '/payload/surface', /surface must be an object/, 'error', '§7.2');
    has(notOk(withPayload('register', (p) => (p.timestamp = '1'))).problems, '/payload/timestamp', /timestamp must be a number/);
  });
  for (const key of ['id', 'name', 'description', 'actions'] as const) {
    it(`needs surface.${key}`, () => {
      const r = notOk(withPayload('register', (p) => delete (p.surface as Record<string, unknown>)[key]));
      has(r.problems, `/payload/surface/${key}`, new RegExp(`${key} must be`), 'error', '§3.1');
    });
  }
  it('needs each action to have id, description and an input object', () => {
    for (const key of ['id', 'description', 'input']) {
      const r = notOk(
        withPayload('register', (p) => {
          delete ((p.surface as { actions: Record<string, unknown>[] }).actions[0] as Record<string, unknown>)[key];
        }),
      );
      has(r.problems, `/payload/surface/actions/0/${key}`, new RegExp(`${key} must be`), 'error', '§4.1');
    }
    const r = notOk(withPayload('register', (p) => ((p.surface as { actions: unknown[] }).actions[1] = 'nope')));
    has(r.problems, '/payload/surface/actions/1', /an action must be an object/);
  });
  it('an empty actions array is an error but usable (§3.1)', () => {
    const r = ok(withPayload('register', (p) => ((p.surface as Record<string, unknown>).actions = [])));
    has(r.problems, '/payload/surface/actions', /at least one action/, 'error', '§3.1');
  });
  it('id rules: pattern and length (§3.2, §4.2, §5.2)', () => {
    const r = ok(
      withPayload('register', (p) => {
        const s = p.surface as Record<string, unknown> & { actions: Record<string, unknown>[]; observations: Record<string, unknown>[] };
        s.id = 'Doc_Editor';
        s.actions[0]!.id = 'SetTitle';
        s.actions[1]!.id = 'x';
        s.observations[0]!.id = 'w'.repeat(65);
      }),
    );
    has(r.problems, '/payload/surface/id', /surface id "Doc_Editor" does not match/, 'error', '§3.2');
    has(r.problems, '/payload/surface/actions/0/id', /action id "SetTitle" does not match/, 'error', '§4.2');
    has(r.problems, '/payload/surface/actions/1/id', /is 1 characters long \(must be 2–64\)/, 'error', '§4.2');
    has(r.problems, '/payload/surface/observations/0/id', /is 65 characters long/, 'error', '§5.2');
  });
  it('duplicate action and observation ids', () => {
    const r = ok(
      withPayload('register', (p) => {
        const s = p.surface as { actions: Record<string, unknown>[]; observations: Record<string, unknown>[] };
        s.actions[1]!.id = 'set_title';
        s.observations.push({ ...s.observations[0]! });
      }),
    );
    has(r.problems, '/payload/surface/actions/1/id', /duplicate action id "set_title"/, 'error', '§4.2');
    has(r.problems, '/payload/surface/observations/1/id', /duplicate observation id "word_count"/, 'error', '§5.2');
  });
  it('mistyped optional fields are errors and left out', () => {
    const r = ok(
      withPayload('register', (p) => {
        const s = p.surface as Record<string, unknown> & { actions: Record<string, unknown>[] };
        s.version = 2;
        s.metadata = 'x';
        s.actions[0]!.effect = 'delete';
        s.actions[0]!.confirm = 'yes';
        s.actions[0]!.tags = ['a', 1];
        s.actions[0]!.output = 'nope';
      }),
    );
    has(r.problems, '/payload/surface/version', /version must be a string when present \(got a number\); left out/);
    has(r.problems, '/payload/surface/metadata', /metadata must be an object/);
    has(r.problems, '/payload/surface/actions/0/effect', /effect must be one of .*got "delete".*counts as a write/);
    has(r.problems, '/payload/surface/actions/0/confirm', /confirm must be a boolean/);
    has(r.problems, '/payload/surface/actions/0/tags', /tags must be an array of strings/);
    has(r.problems, '/payload/surface/actions/0/output', /output must be a JSON Schema/);
    const s = (r.event.payload as unknown as { surface: Record<string, unknown> & { actions: Record<string, unknown>[] } }).surface;
    assert.equal('version' in s, false);
    assert.equal('metadata' in s, false);
    assert.equal('effect' in s.actions[0]!, false);
    assert.equal('confirm' in s.actions[0]!, false);
  });
  it('input schema SHOULD be an object schema and MUST be self-contained (§4.3)', () => {
    const r = ok(
      withPayload('register', (p) => {
        const a = (p.surface as { actions: Record<string, unknown>[] }).actions[0]!;
        a.input = { type: 'string', properties: { x: { $ref: 'https://example.com/s.json' }, y: { $ref: '#/$defs/y' } } };
      }),
    );
    has(r.problems, '/payload/surface/actions/0/input', /SHOULD be type "object"/, 'warning', '§4.3');
    has(r.problems, '/payload/surface/actions/0/input/properties/x/$ref', /self-contained/, 'error', '§4.3');
    assert.equal(r.problems.filter((p) => p.path.endsWith('/y/$ref')).length, 0);
  });
  it('observations: bad entries are left out, bad updateFrequency too', () => {
    const r = ok(
      withPayload('register', (p) => {
        const s = p.surface as { observations: unknown[] };
        s.observations.push({ id: 'no_schema', description: 'x' });
        (s.observations[0] as Record<string, unknown>).updateFrequency = 'sometimes';
      }),
    );
    has(r.problems, '/payload/surface/observations/1/schema', /schema must be a JSON Schema/);
    has(r.problems, '/payload/surface/observations/0/updateFrequency', /one of "realtime", "on-change", "polling"/, 'error', '§5.3.1');
    const obs = (r.event.payload as unknown as { surface: { observations: unknown[] } }).surface.observations;
    assert.equal(obs.length, 1);
  });
  it('activation checks', () => {
    const r = ok(
      withPayload('register', (p) => {
        (p.surface as Record<string, unknown>).activation = { routes: [1], entity: { id: 'x' }, condition: 3 };
      }),
    );
    has(r.problems, '/payload/surface/activation/routes', /a string or an array of strings/, 'error', '§6.1');
    has(r.problems, '/payload/surface/activation/entity/type', /entity.type must be a string/);
    has(r.problems, '/payload/surface/activation/condition', /condition must be a string/);
  });
  it('timestamps: non-integer and negative are warnings', () => {
    has(ok(withPayload('register', (p) => (p.timestamp = 1.5))).problems, '/payload/timestamp', /not a whole number/, 'warning');
    has(ok(withPayload('register', (p) => (p.timestamp = -1))).problems, '/payload/timestamp', /negative/, 'warning');
  });
});

describe('surface:deregister', () => {
  it('needs surfaceId and timestamp', () => {
    has(notOk(withPayload('deregister', (p) => delete p.surfaceId)).problems, '/payload/surfaceId', /surfaceId must be a string/, 'error', '§7.2');
    has(notOk(withPayload('deregister', (p) => delete p.timestamp)).problems, '/payload/timestamp', /got missing/);
  });
  it('checks the surface id rules', () => {
    has(ok(withPayload('deregister', (p) => (p.surfaceId = 'a-'))).problems, '/payload/surfaceId', /does not match/, 'error', '§3.2');
  });
});

describe('action:request', () => {
  it('needs requestId (non-empty), surfaceId, actionId, params object, timestamp', () => {
    has(notOk(withPayload('request', (p) => (p.requestId = ''))).problems, '/payload/requestId', /non-empty string \(got an empty string\)/);
    has(notOk(withPayload('request', (p) => (p.requestId = 7))).problems, '/payload/requestId', /got a number/);
    has(notOk(withPayload('request', (p) => delete p.surfaceId)).problems, '/payload/surfaceId', /surfaceId/);
    has(notOk(withPayload('request', (p) => delete p.actionId)).problems, '/payload/actionId', /actionId/);
    has(notOk(withPayload('request', (p) => (p.params = []))).problems, '/payload/params', /params must be an object \(got an array\)/);
    has(notOk(withPayload('request', (p) => (p.params = null))).problems, '/payload/params', /got null/);
    has(notOk(withPayload('request', (p) => delete p.timestamp)).problems, '/payload/timestamp', /timestamp/);
  });
  it('collects every fatal problem, not just the first', () => {
    const r = notOk(parseEvent({ type: 'action:request', payload: {} }));
    assert.equal(errors(r.problems).length, 5);
  });
  it('approval: malformed is left out, a bad argsHash is kept with an error', () => {
    const r = ok(withPayload('request', (p) => (p.approval = { approvalId: 1 })));
    has(r.problems, '/payload/approval', /approval must be \{ approvalId: string, argsHash: string \}.*left out/);
    assert.equal('approval' in r.event.payload, false);
    const r2 = ok(withPayload('request', (p) => (p.approval = { approvalId: 'a', argsHash: HASH64.toUpperCase() })));
    has(r2.problems, '/payload/approval/argsHash', /not 64 lowercase hex digits/, 'error');
    assert.equal((r2.event.payload as unknown as { approval: { argsHash: string } }).approval.argsHash, HASH64.toUpperCase());
  });
  it('knownSurfaces type (its form is the hash the client gave: hash-format is the client\'s)', () => {
    assert.deepEqual(ok(withPayload('request', (p) => (p.knownSurfaces = 'fnv1a64:XYZ'))).problems, []);
    const r = ok(withPayload('request', (p) => (p.knownSurfaces = 12)));
    has(r.problems, '/payload/knownSurfaces', /must be a string/);
    assert.equal('knownSurfaces' in r.event.payload, false);
  });
  it('ids a request names are references, not declarations: no id-pattern problem', () => {
    const r = ok(withPayload('request', (p) => ((p.surfaceId = 'A'), (p.actionId = 'bad-id'))));
    assert.deepEqual(r.problems, []);
  });
});

describe('action:result', () => {
  it('needs requestId, success boolean, timestamp', () => {
    has(notOk(withPayload('result', (p) => delete p.requestId)).problems, '/payload/requestId', /requestId/);
    has(notOk(withPayload('result', (p) => (p.success = 'true'))).problems, '/payload/success', /success must be a boolean/);
    has(notOk(withPayload('result', (p) => delete p.timestamp)).problems, '/payload/timestamp', /timestamp/);
  });
  it('success: false without error, success: true with error (§7.3.3)', () => {
    has(ok(withPayload('failure', (p) => delete p.error)).problems, '/payload/error', /success is false, so error MUST be present/, 'error', '§7.3.3');
    const r = ok(withPayload('result', (p) => (p.error = { code: 'X', message: 'm' })));
    has(r.problems, '/payload/error', /success is true, so error MUST NOT be present/, 'error', '§7.3.3');
  });
  it('a malformed error is left out, and is one problem, not also a missing error', () => {
    const r = ok(withPayload('failure', (p) => (p.error = { code: 1 })));
    has(r.problems, '/payload/error', /error must be \{ code: string, message: string, details\? \}.*left out/);
    assert.equal(r.problems.length, 1, JSON.stringify(r.problems));
    assert.equal('error' in r.event.payload, false);
  });
  it('custom error codes SHOULD be namespaced', () => {
    has(ok(withPayload('failure', (p) => (p.error = { code: 'QUOTA', message: 'm' }))).problems, '/payload/error/code', /neither a standard code nor namespaced/, 'warning');
    assert.deepEqual(ok(withPayload('failure', (p) => (p.error = { code: 'app:quota', message: 'm' }))).problems, []);
  });
  it('progress, interim, durationMs, settled', () => {
    has(ok(withPayload('result', (p) => (p.progress = 101))).problems, '/payload/progress', /outside 0–100/);
    has(ok(withPayload('result', (p) => (p.progress = '50'))).problems, '/payload/progress', /must be a number/);
    has(ok(withPayload('result', (p) => (p.interim = 1))).problems, '/payload/interim', /must be a boolean/);
    has(ok(withPayload('result', (p) => (p.durationMs = -3))).problems, '/payload/durationMs', /negative/, 'warning');
    has(ok(withPayload('result', (p) => (p.settled = 'no'))).problems, '/payload/settled', /must be a boolean/);
    assert.deepEqual(ok(withPayload('result', (p) => ((p.interim = true), (p.progress = 40)))).problems, []);
  });
  it('surfaces: an unusable surface leaves the field out; duplicates are errors', () => {
    const r = ok(withPayload('result', (p) => ((p.surfaces as unknown[]).push({ id: 'broken' }))));
    has(r.problems, '/payload/surfaces/1/name', /name must be a string/);
    // The unusable surface is the one defect: no second problem about the set it made unusable.
    assert.deepEqual(r.problems.filter((x) => x.path === '/payload/surfaces'), []);
    assert.equal('surfaces' in r.event.payload, false);
    const r2 = ok(withPayload('result', (p) => ((p.surfaces as unknown[]).push(surface()))));
    has(r2.problems, '/payload/surfaces/1/id', /duplicate surface id/);
    assert.equal((r2.event.payload as unknown as { surfaces: unknown[] }).surfaces.length, 2);
    has(ok(withPayload('result', (p) => (p.surfaces = {}))).problems, '/payload/surfaces', /must be an array of surfaces/);
  });
  it('surfaces without surfacesHash; a malformed surfacesHash (§7.3.4)', () => {
    has(ok(withPayload('result', (p) => delete p.surfacesHash)).problems, '/payload/surfacesHash', /MUST also carry surfacesHash/, 'warning', '§7.3.4');
    has(ok(withPayload('result', (p) => (p.surfacesHash = 'fnv1a64:ABCDEF0123456789'))).problems, '/payload/surfacesHash', /not "fnv1a64:"/, 'error', '§7.3.4');
    has(ok(withPayload('result', (p) => (p.surfacesHash = 'fnv1a64:0123'))).problems, '/payload/surfacesHash', /16 lowercase hex/);
  });
  it('observations must be an object of objects', () => {
    const r = ok(withPayload('result', (p) => (p.observations = { 'doc-editor': 3 })));
    has(r.problems, '/payload/observations', /an object of objects/);
    assert.equal('observations' in r.event.payload, false);
  });
  it('delivery (§7.3.6)', () => {
    const trimmed = ok(
      withPayload('result', (p) => {
        delete p.surfaces;
        delete p.observations;
        p.delivery = { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] };
      }),
    );
    assert.deepEqual(trimmed.problems, []);
    assert.deepEqual((trimmed.event.payload as unknown as { delivery: unknown }).delivery, { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] });

    const bad = ok(withPayload('result', (p) => (p.delivery = { trimmed: false, omitted: 'data' })));
    has(bad.problems, '/payload/delivery/trimmed', /must be true/, 'error', '§7.3.6');
    has(bad.problems, '/payload/delivery/reason', /must be a string/);
    has(bad.problems, '/payload/delivery/omitted', /must be an array/);
    assert.equal('delivery' in bad.event.payload, false);

    const odd = ok(withPayload('result', (p) => (p.delivery = { trimmed: true, reason: 'r', omitted: ['surfaces', 'success', 'data'] })));
    has(odd.problems, '/payload/delivery/omitted/1', /only "surfaces", "observations" and "data"/, 'error');
    has(odd.problems, '/payload/delivery/omitted/0', /listed as omitted but is present/, 'warning');
    // Whether data went too early depends on what the refused result carried: the model compares the two, not the parser.
    assert.deepEqual(odd.problems.filter((x) => x.path === '/payload/delivery/omitted'), []);
    has(ok(withPayload('result', (p) => (p.delivery = 'trimmed'))).problems, '/payload/delivery', /left out/);
  });
});

describe('observation:update and observation:request', () => {
  it('update needs surfaceId, observationId, value (null is a value), timestamp', () => {
    has(notOk(withPayload('update', (p) => delete p.value)).problems, '/payload/value', /value must be present/, 'error', '§7.4');
    has(notOk(withPayload('update', (p) => (p.value = undefined))).problems, '/payload/value', /value must be present/);
    assert.deepEqual(ok(withPayload('update', (p) => (p.value = null))).problems, []);
    has(notOk(withPayload('update', (p) => delete p.observationId)).problems, '/payload/observationId', /must be a string/);
    has(notOk(withPayload('update', (p) => (p.timestamp = null))).problems, '/payload/timestamp', /got null/);
    has(ok(withPayload('update', (p) => (p.observationId = 'Bad'))).problems, '/payload/observationId', /observation id "Bad"/, 'error', '§5.2');
  });
  it('request needs surfaceId and observationId; timestamp and requestId are optional', () => {
    has(notOk(withPayload('obsRequest', (p) => delete p.surfaceId)).problems, '/payload/surfaceId', /must be a string/);
    assert.deepEqual(ok(withPayload('obsRequest', (p) => ((p.timestamp = 5), (p.requestId = 'r')))).problems, []);
    const r = ok(withPayload('obsRequest', (p) => (p.requestId = 5)));
    has(r.problems, '/payload/requestId', /must be a string/);
    assert.equal('requestId' in r.event.payload, false);
  });
});

// ---------------------------------------------------------------------------
// Hostile input
// ---------------------------------------------------------------------------

const throwingProxy = (): object =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('get trap');
      },
      has() {
        throw new Error('has trap');
      },
      ownKeys() {
        throw new Error('ownKeys trap');
      },
      getOwnPropertyDescriptor() {
        throw new Error('gOPD trap');
      },
      getPrototypeOf() {
        throw new Error('getPrototypeOf trap');
      },
      defineProperty() {
        throw new Error('defineProperty trap');
      },
      set() {
        throw new Error('set trap');
      },
      deleteProperty() {
        throw new Error('deleteProperty trap');
      },
      isExtensible() {
        throw new Error('isExtensible trap');
      },
      preventExtensions() {
        throw new Error('preventExtensions trap');
      },
      setPrototypeOf() {
        throw new Error('setPrototypeOf trap');
      },
      apply() {
        throw new Error('apply trap');
      },
    },
  );

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('parseEvent: hostile input never throws', () => {
  it('a Proxy that throws on every trap, as the event, payload and nested value', () => {
    assert.doesNotThrow(() => parseEvent(throwingProxy()));
    has(notOk(parseEvent(throwingProxy())).problems, '/type', /could not be read/);
    const r = notOk(parseEvent({ type: 'action:request', payload: throwingProxy() }));
    assert.ok(r.problems.length > 0);
    const r2 = ok(withPayload('request', (p) => (p.params = { nested: throwingProxy(), revoked: revokedProxy() })));
    const params = (r2.event.payload as unknown as { params: Record<string, unknown> }).params;
    assert.equal(params.nested, UNREADABLE);
    assert.equal(params.revoked, UNREADABLE);
    assert.ok(r2.problems.some((p) => p.path.startsWith('/payload/params/nested') && p.severity === 'warning'));
    assert.doesNotThrow(() => parsePayload(throwingProxy(), throwingProxy()));
    assert.doesNotThrow(() => parseEvent(revokedProxy()));
  });
  it('getters that throw', () => {
    const e = {
      type: 'action:request',
      get payload(): never {
        throw new Error('boom');
      },
    };
    has(notOk(parseEvent(e)).problems, '/payload', /payload could not be read \(boom\)/);
    const r = ok(
      withPayload('request', (p) => {
        Object.defineProperty(p.params, 'secret', {
          enumerable: true,
          get() {
            throw new Error('no');
          },
        });
      }),
    );
    assert.equal((r.event.payload as unknown as { params: Record<string, unknown> }).params.secret, UNREADABLE);
    has(r.problems, '/payload/params/secret', /could not be read \(no\)/, 'warning');
    const weirdThrow = {
      get type(): never {
        throw Object.create(null); // not even an Error, and unprintable
      },
    };
    assert.doesNotThrow(() => parseEvent(weirdThrow));
  });
  it('cycles', () => {
    const params: Record<string, unknown> = { a: 1 };
    params.self = params;
    const r = ok(withPayload('request', (p) => (p.params = params)));
    assert.equal((r.event.payload as unknown as { params: Record<string, unknown> }).params.self, CIRCULAR);
    has(r.problems, '/payload/params/self', /cycle/, 'warning');
    const ev: Record<string, unknown> = { type: 'action:request' };
    ev.payload = ev;
    assert.doesNotThrow(() => parseEvent(ev));
  });
  it('10,000-deep nesting (built iteratively)', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = i % 2 ? { d: deep } : [deep];
    const r = ok(withPayload('request', (p) => (p.params = { deep })));
    const warning = r.problems.find((p) => /nested more than 256 levels/.test(p.message));
    assert.ok(warning, JSON.stringify(r.problems));
    // the copy stops at MAX_CLONE_DEPTH from the event root with a marker
    let cur: unknown = (r.event.payload as unknown as { params: { deep: unknown } }).params.deep;
    let depth = 3; // event → payload → params → deep
    while (typeof cur === 'object' && cur !== null) {
      cur = Array.isArray(cur) ? cur[0] : (cur as { d: unknown }).d;
      depth++;
    }
    assert.equal(cur, TRUNCATED_DEPTH);
    assert.equal(depth, MAX_CLONE_DEPTH);
    // 10,000-deep as the payload itself and as the event
    assert.doesNotThrow(() => parseEvent({ type: 'observation:update', payload: deep }));
    assert.doesNotThrow(() => parseEvent(deep));
  });
  it('__proto__ members do not pollute anything', () => {
    const raw: unknown = JSON.parse('{"type":"action:request","payload":{"requestId":"r","surfaceId":"doc-editor","actionId":"go_on","timestamp":1,"params":{"__proto__":{"polluted":1},"a":{"__proto__":{"polluted":2}}},"__proto__":{"polluted":3}}}');
    const r = ok(parseEvent(raw));
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype polluted');
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    const payload = r.event.payload as unknown as Record<string, unknown>;
    const params = payload.params as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(params), Object.prototype);
    assert.equal((params as { polluted?: unknown }).polluted, undefined, 'no inherited pollution');
    assert.ok(Object.prototype.hasOwnProperty.call(params, '__proto__'), '__proto__ kept as an own member');
    assert.deepEqual(Object.getOwnPropertyDescriptor(params, '__proto__')?.value, JSON.parse('{"polluted":1}'));
    assert.equal((payload as { polluted?: unknown }).polluted, undefined);
    assert.equal(((params.a as Record<string, unknown>) as { polluted?: unknown }).polluted, undefined);
    assert.equal(Object.getPrototypeOf(params.a), Object.prototype);
    // type/payload inherited from a polluted prototype are not read
    const inherited = Object.create({ type: 'action:request', payload: {} }) as object;
    has(notOk(parseEvent(inherited)).problems, '/type', /type must be a string \(got missing\)/);
    assert.equal(parseAcknowledgment(Object.create({ ok: true })), null);
  });
  it('huge strings, huge arrays, sparse arrays', () => {
    const huge = 'x'.repeat(20_000_000);
    const r = ok(withPayload('update', (p) => (p.value = huge)));
    assert.equal((r.event.payload as unknown as { value: string }).value.length, 20_000_000);
    const big = new Array<number>(300_000).fill(1);
    const r2 = ok(withPayload('update', (p) => (p.value = big)));
    assert.equal((r2.event.payload as unknown as { value: unknown[] }).value.length, 300_000);
    const sparse: unknown[] = [];
    sparse.length = 4_294_967_295;
    // Bounded work (not 2^32 slots walked): that it returns is the check; how fast is npm run bench's.
    const r3 = ok(withPayload('update', (p) => ((p.value = sparse), (p.other = { small: 1 }))));
    assert.ok(r3.problems.some((p) => /values: the rest was not copied/.test(p.message)));
    // the small fields next to the huge one survive: primitives are kept, containers marked
    const payload = r3.event.payload as unknown as Record<string, unknown>;
    assert.equal(payload.timestamp, 6);
    assert.equal(payload.other, TRUNCATED_SIZE);
  });
  it('symbols, functions, bigints, NaN, class instances, Dates, Maps, boxed values', () => {
    class Thing {
      x = 1;
    }
    const value = {
      sym: Symbol('s'),
      fn: () => 1,
      big: 10n,
      nan: NaN,
      inf: Infinity,
      thing: new Thing(),
      date: new Date(0),
      badDate: new Date(NaN),
      map: new Map([[1, 2]]),
      boxed: [new Number(2), new String('s'), new Boolean(true)],
      arr: [undefined, () => 1, Symbol('t')],
      [Symbol('key')]: 'ignored',
    };
    const r = ok(withPayload('update', (p) => (p.value = value)));
    assert.deepEqual((r.event.payload as unknown as { value: unknown }).value, {
      big: '[bigint]',
      nan: null,
      inf: null,
      thing: { x: 1 },
      date: '1970-01-01T00:00:00.000Z',
      badDate: null,
      map: {},
      boxed: [2, 's', true],
      arr: [null, null, null],
    });
    for (const path of ['sym', 'fn', 'big', 'nan', 'inf', 'thing', 'date', 'map']) {
      assert.ok(r.problems.some((p) => p.path === `/payload/value/${path}` && p.severity === 'warning'), path);
    }
    // as the type or the whole event
    for (const raw of [{ type: Symbol('t'), payload: {} }, { type: 1n, payload: {} }, { type: () => 1, payload: {} }]) {
      notOk(parseEvent(raw));
    }
    // NaN timestamp becomes null, and the event is unusable
    has(notOk(withPayload('update', (p) => (p.timestamp = NaN))).problems, '/payload/timestamp', /got null/);
  });
  it('fast-check: never throws on anything', () => {
    const anything = pageAnything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
      maxDepth: 5,
    });
    fc.assert(
      fc.property(anything, (v) => {
        const r = parseEvent(v);
        assert.equal(typeof r.ok, 'boolean');
        assert.ok(Array.isArray(r.problems));
      }),
      { numRuns: 500 },
    );
    const type = fc.oneof(fc.constantFrom(...Object.values(valid()).map((e) => e.type), 'x-ext', 'nope'), pageAnything());
    fc.assert(
      fc.property(type, anything, (t, payload) => {
        const r1 = parseEvent({ type: t, payload });
        const r2 = parsePayload(t, payload);
        assert.equal(typeof r1.ok, 'boolean');
        assert.equal(typeof r2.ok, 'boolean');
      }),
      { numRuns: 500 },
    );
  });
  it('fast-check: never throws on mutated valid events, and an ok result always has its required fields', () => {
    const names = Object.keys(valid());
    const mutation = fc.record({
      name: fc.constantFrom(...names),
      path: fc.array(fc.nat(20), { minLength: 1, maxLength: 5 }),
      action: fc.constantFrom('delete', 'replace', 'wrap'),
      value: pageAnything({ withBigInt: true, withDate: true, withNullPrototype: true, maxDepth: 3 }),
    });
    fc.assert(
      fc.property(mutation, ({ name, path, action, value }) => {
        const e = valid()[name]!;
        let holder: Record<string, unknown> = e as unknown as Record<string, unknown>;
        for (let i = 0; i < path.length; i++) {
          const keys = Object.keys(holder);
          if (keys.length === 0) break;
          const key = keys[path[i]! % keys.length]!;
          const next = holder[key];
          if (i === path.length - 1 || typeof next !== 'object' || next === null) {
            if (action === 'delete') delete holder[key];
            else if (action === 'replace') holder[key] = value;
            else holder[key] = { wrapped: next };
            break;
          }
          holder = next as Record<string, unknown>;
        }
        const r = parseEvent(e);
        if (r.ok) {
          const p = r.event.payload as unknown as Record<string, unknown>;
          switch (r.event.type) {
            case 'action:request':
              assert.equal(typeof p.requestId, 'string');
              assert.equal(typeof p.params, 'object');
              assert.equal(typeof p.timestamp, 'number');
              break;
            case 'action:result':
              assert.equal(typeof p.success, 'boolean');
              break;
            case 'surface:register':
              assert.ok(Array.isArray((p.surface as { actions: unknown }).actions));
              break;
            case 'observation:update':
              assert.ok('value' in p);
              break;
            default:
              break;
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('toJsonSafe', () => {
  it('copies JSON data as is and reports what it replaced', () => {
    const v = { a: [1, 'x', null, true], b: { c: {} } };
    assert.deepEqual(toJsonSafe(v), v);
    const problems: Problem[] = [];
    assert.deepEqual(toJsonSafe({ f: () => 1, n: NaN }, problems, '/x'), { n: null });
    assert.equal(problems.length, 2);
    assert.equal(problems[0]!.path, '/x/f');
    assert.equal(toJsonSafe(undefined), undefined);
    assert.doesNotThrow(() => toJsonSafe(throwingProxy()));
  });
});

describe('parseAcknowledgment', () => {
  it('accepts { ok: true } and both refusal shapes', () => {
    assert.deepEqual(parseAcknowledgment({ ok: true }), { ok: true });
    assert.deepEqual(parseAcknowledgment({ ok: true, extra: 1 }), { ok: true });
    assert.deepEqual(parseAcknowledgment({ ok: false, reason: 'invalid' }), { ok: false, reason: 'invalid', via: 'reason' });
    assert.deepEqual(parseAcknowledgment({ ok: false, error: 'too large' }), { ok: false, reason: 'too large', via: 'error' });
    assert.deepEqual(parseAcknowledgment({ ok: false, error: { message: 'rate limited' } }), { ok: false, reason: 'rate limited', via: 'error' });
    assert.deepEqual(parseAcknowledgment({ ok: false }), { ok: false, reason: '', via: 'none' });
  });
  it('null for anything else, never throws', () => {
    const raws: unknown[] = [null, undefined, true, 'ok', 1, [], [{ ok: true }], {}, { ok: 'true' }, { ok: 1 }, throwingProxy(), revokedProxy()];
    raws.forEach((raw, i) => assert.equal(parseAcknowledgment(raw), null, `case ${i}`));
    fc.assert(
      fc.property(pageAnything({ withBigInt: true, withNullPrototype: true }), (v) => {
        const r = parseAcknowledgment(v);
        assert.ok(r === null || typeof r.ok === 'boolean');
      }),
      { numRuns: 300 },
    );
  });
});
