/**
 * Scenario files and their runner: the reader's errors, verdicts per step
 * (result, data, observations) against a scripted driver, "save as
 * scenario" from captured requests, and the export/import round trip.
 * JSON Schema verdicts are held to Ajv (a well-kept library), not to the
 * schema module the runner uses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import { parseScenario, readScenario, runScenario, scenarioFromRequests, scenarioText, shapeSchema, type Scenario, type ScenarioDriver, type ScenarioStep, type StepCall } from '../../src/runtime/scenario.ts';
import type { RequestState } from '../../src/session/model/model-types.ts';

const base = (steps: unknown[]): unknown => ({ format: 'oui-devtools-scenario', version: 1, steps });

function driver(answers: Array<StepCall | Error>, observations: Record<string, unknown> = {}): ScenarioDriver & { calls: ScenarioStep[] } {
  const calls: ScenarioStep[] = [];
  return {
    calls,
    async call(step) {
      calls.push(step);
      const a = answers.shift();
      if (a instanceof Error) throw a;
      return a ?? { eventIds: [], error: 'no answer scripted' };
    },
    async observation(_client, s, o) {
      return observations[`${s}/${o}`];
    },
  };
}

const ok = (data?: unknown, extra: Record<string, unknown> = {}): StepCall => ({ result: { requestId: 'r', success: true, timestamp: 1, ...(data !== undefined ? { data } : {}), ...extra }, requestId: 'r', eventIds: ['e1', 'e2'], client: 'c' });
const fail = (code: string): StepCall => ({ result: { requestId: 'r', success: false, error: { code, message: 'm' }, timestamp: 1 }, requestId: 'r', eventIds: ['e3'] });

describe('readScenario', () => {
  it('reads a valid file and keeps only known fields', () => {
    const r = readScenario(base([{ surfaceId: 'cart', actionId: 'add', params: { a: 1 }, expect: { error: 'VALIDATION_ERROR' }, data: { equals: 1 }, observations: { cart: { total: { schema: { type: 'number' } } } }, extra: 1 }]));
    assert.ok(r.ok);
    assert.deepEqual(r.scenario.steps[0], { surfaceId: 'cart', actionId: 'add', params: { a: 1 }, expect: { error: 'VALIDATION_ERROR' }, data: { equals: 1 }, observations: { cart: { total: { schema: { type: 'number' } } } } });
  });

  it('names every problem with where it is', () => {
    const r = readScenario(base([{ surfaceId: '', actionId: 'a', params: [] }, { surfaceId: 's', actionId: 'a', expect: { success: false } }, { surfaceId: 's', actionId: 'a', data: { type: 'string' } }]));
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, [
      'steps[0].surfaceId: a non-empty string is required',
      'steps[0].params: must be an object (an action\'s input is an object, §4.3)',
      'steps[1].expect: { "success": true } or { "error": "<code>" }',
      'steps[2].data: must be { "schema": <JSON Schema> } or { "equals": <value> }',
    ]);
  });

  it('refuses another format or version, and says what a session file is', () => {
    const s = readScenario({ format: 'oui-devtools-session', version: 1, clients: [], events: [] });
    assert.ok(!s.ok && /a session file/.test(s.errors[0]!));
    const v = readScenario({ format: 'oui-devtools-scenario', version: 2, steps: [] });
    assert.ok(!v.ok && /version 2/.test(v.errors[0]!));
    const j = parseScenario('{');
    assert.ok(!j.ok && /^not JSON/.test(j.errors[0]!));
  });
});

describe('runScenario', () => {
  const scenario = readScenario(
    base([
      { surfaceId: 'cart', actionId: 'add', params: {}, data: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, observations: { cart: { total: { equals: 12.5 } } } },
      { surfaceId: 'cart', actionId: 'add', params: { bad: true }, expect: { error: 'VALIDATION_ERROR' } },
      { surfaceId: 'cart', actionId: 'add', params: {} },
    ]),
  );
  assert.ok(scenario.ok);

  it('passes steps whose result, data and observations match, with the exchange linked', async () => {
    const r = await runScenario(scenario.scenario, driver([ok({ n: 2 }), fail('VALIDATION_ERROR'), ok()], { 'cart/total': 12.5 }));
    assert.equal(r.pass, true);
    assert.deepEqual(r.steps.map((s) => s.pass), [true, true, true]);
    assert.deepEqual(r.steps[0]!.eventIds, ['e1', 'e2']);
    assert.equal(r.steps[0]!.requestId, 'r');
  });

  it('fails a step in words and stops there by default', async () => {
    const d = driver([ok({ n: 'two' }), fail('VALIDATION_ERROR')], { 'cart/total': 10 });
    const r = await runScenario(scenario.scenario, d);
    assert.equal(r.pass, false);
    assert.equal(r.steps.length, 1);
    assert.equal(r.skipped, 2);
    assert.equal(d.calls.length, 1);
    assert.ok(r.steps[0]!.failures.some((f) => f.startsWith('data/n:')), r.steps[0]!.failures.join('; '));
    assert.ok(r.steps[0]!.failures.includes('observation cart/total: expected 12.5, got 10'));
  });

  it('an observation in the result itself (§7.3.4) wins over what the driver last heard', async () => {
    const r = await runScenario({ ...scenario.scenario, steps: [scenario.scenario.steps[0]!] }, driver([ok({ n: 1 }, { observations: { cart: { total: 12.5 } } })], { 'cart/total': 0 }));
    assert.equal(r.pass, true);
  });

  it('expected success but got an error code; a thrown call is a failed step, not a crash; one step at a time', async () => {
    const r = await runScenario(scenario.scenario, driver([fail('TIMEOUT'), new Error('unknown surface'), fail('X')]), { stopOnFailure: false });
    assert.deepEqual(r.steps.map((s) => s.failures[0]), ['expected success, got TIMEOUT: m', 'unknown surface', 'expected success, got X: m']);
    const one = await runScenario(scenario.scenario, driver([fail('VALIDATION_ERROR')]), { from: 1, to: 2 });
    assert.equal(one.steps.length, 1);
    assert.equal(one.steps[0]!.index, 1);
    assert.equal(one.pass, true);
  });
});

describe('save as scenario, export and import', () => {
  const req = (over: Partial<RequestState>): RequestState => ({ requestId: 'q', surfaceId: 'cart', actionId: 'add', params: { id: 'mug' }, sends: [{ eventId: 's', t: 1 }], receipts: [], results: [], status: 'succeeded', ...over });
  const requests = [
    req({ results: [{ eventId: 'a', t: 2, result: { requestId: 'q', success: true, interim: true, timestamp: 2 } }, { eventId: 'b', t: 3, result: { requestId: 'q', success: true, data: { orderId: 'o-1', total: 3 }, observations: { cart: { count: 1 } }, timestamp: 3 } }] }),
    req({ requestId: 'q2', approval: { approvalId: 'x', argsHash: 'y' }, results: [{ eventId: 'c', t: 4, result: { requestId: 'q2', success: false, error: { code: 'ACTION_DENIED', message: 'no' }, timestamp: 4 } }] }),
  ];

  it('each request a step, expecting its final result: success with data and observations by shape, or the error code; approvals asked again', () => {
    const s = scenarioFromRequests(requests, { origin: 'http://a.test' });
    assert.equal(s.origin, 'http://a.test');
    assert.deepEqual(s.steps[0]!.expect, { success: true });
    assert.deepEqual(s.steps[1], { surfaceId: 'cart', actionId: 'add', params: { id: 'mug' }, approve: true, expect: { error: 'ACTION_DENIED' } });
    // The shape admits another run's ids and refuses another shape (held to Ajv).
    const ajv = new Ajv2020();
    const check = ajv.compile((s.steps[0]!.data as { schema: object }).schema);
    assert.equal(check({ orderId: 'o-2', total: 9 }), true);
    assert.equal(check({ orderId: 2, total: 9 }), false);
    assert.equal(check({ total: 9 }), false);
    assert.ok(s.steps[0]!.observations?.cart?.count);
  });

  it('exact values when asked', () => {
    const s = scenarioFromRequests(requests, { values: 'exact' });
    assert.deepEqual(s.steps[0]!.data, { equals: { orderId: 'o-1', total: 3 } });
  });

  it('round trip: what is exported reads back as the same scenario', () => {
    const s: Scenario = scenarioFromRequests(requests, { origin: 'http://a.test', name: 'checkout' });
    const back = parseScenario(scenarioText(s));
    assert.ok(back.ok);
    assert.deepEqual(back.scenario, s);
  });

  it('shapeSchema of nested values is a valid schema that the value itself meets (Ajv)', () => {
    const v = { a: [{ b: null, c: true }], d: 'x', e: 1.5 };
    assert.equal(new Ajv2020().compile(shapeSchema(v))(v), true);
  });
});
