/**
 * Effects and approvals, constants and id rules.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTION_ID_PATTERN,
  ARGS_HASH_PATTERN,
  ASYNC_ACK_TIMEOUT_MS,
  MAX_ON_CHANGE_RATE,
  OBSERVATION_ID_PATTERN,
  OUI_EFFECT_ACCESS,
  OUI_EFFECT_KINDS,
  OUI_PROTOCOL_EVENTS,
  REANSWER_INTERVAL_MS,
  STANDARD_ERROR_CODES,
  SURFACES_HASH_PATTERN,
  SURFACE_ID_PATTERN,
  SYNC_TIMEOUT_MS,
  checkActionId,
  checkSurfaceId,
  effectAccess,
  isProtocolEventType,
  requiresApproval,
  type OUIEffectKind,
} from '../../src/protocol/index.ts';

describe('effects', () => {
  it('the vocabulary in the order of the spec table', () => {
    assert.deepEqual([...OUI_EFFECT_KINDS], ['view', 'selection', 'navigate', 'open', 'edit', 'file', 'mutate', 'job', 'transaction']);
  });
  const table: Array<[OUIEffectKind | undefined, 'read' | 'write', boolean, boolean]> = [
    // effect, access, approval when not destructive, approval when confirm: true
    ['view', 'read', false, false],
    ['selection', 'read', false, false],
    ['navigate', 'read', false, false],
    ['open', 'read', false, false],
    ['edit', 'write', false, true],
    ['file', 'write', false, true],
    ['mutate', 'write', false, true],
    ['job', 'write', false, true],
    ['transaction', 'write', true, true],
    [undefined, 'write', false, true],
  ];
  for (const [effect, access, plain, destructive] of table) {
    it(`${effect ?? '(undeclared)'}: ${access}, approval ${plain}/${destructive}`, () => {
      assert.equal(effectAccess(effect), access);
      if (effect) assert.equal(OUI_EFFECT_ACCESS[effect], access);
      assert.equal(requiresApproval(effect), plain);
      assert.equal(requiresApproval(effect, false), plain);
      assert.equal(requiresApproval(effect, true), destructive);
    });
  }
  it('an effect outside the vocabulary counts as a write', () => {
    assert.equal(effectAccess('delete' as OUIEffectKind), 'write');
    assert.equal(requiresApproval('delete' as OUIEffectKind, true), true);
  });
});

describe('constants', () => {
  it('event types, including observation:request', () => {
    assert.deepEqual(OUI_PROTOCOL_EVENTS, {
      SURFACE_REGISTER: 'surface:register',
      SURFACE_DEREGISTER: 'surface:deregister',
      ACTION_REQUEST: 'action:request',
      ACTION_RESULT: 'action:result',
      OBSERVATION_UPDATE: 'observation:update',
      OBSERVATION_REQUEST: 'observation:request',
    });
    assert.equal(isProtocolEventType('observation:request'), true);
    assert.equal(isProtocolEventType('x-foo'), false);
  });
  it('timeouts and rates', () => {
    assert.equal(SYNC_TIMEOUT_MS, 30_000);
    assert.equal(ASYNC_ACK_TIMEOUT_MS, 5_000);
    assert.equal(REANSWER_INTERVAL_MS, 8_000);
    assert.equal(MAX_ON_CHANGE_RATE, 10);
  });
  it('standard error codes', () => {
    assert.deepEqual([...STANDARD_ERROR_CODES], [
      'ACTION_NOT_FOUND',
      'VALIDATION_ERROR',
      'PRECONDITION_FAILED',
      'ACTION_DENIED',
      'EXECUTION_ERROR',
      'TIMEOUT',
      'SURFACE_UNAVAILABLE',
      'INTERNAL_ERROR',
    ]);
  });
  it('hash patterns', () => {
    assert.ok(ARGS_HASH_PATTERN.test('0'.repeat(64)));
    assert.ok(!ARGS_HASH_PATTERN.test('A'.repeat(64)));
    assert.ok(!ARGS_HASH_PATTERN.test('0'.repeat(63)));
    assert.ok(SURFACES_HASH_PATTERN.test('fnv1a64:0123456789abcdef'));
    assert.ok(!SURFACES_HASH_PATTERN.test('fnv1a64:0123456789ABCDEF'));
    assert.ok(!SURFACES_HASH_PATTERN.test('0123456789abcdef'));
  });
  it('id patterns with the 2–64 length rule', () => {
    for (const ok of ['ab', 'doc-editor', 'a1', 'a'.repeat(64)]) assert.ok(SURFACE_ID_PATTERN.test(ok), ok);
    for (const bad of ['a', 'a-', '-a', 'Ab', 'a_b', 'a'.repeat(65), '1a', '', 'a b']) assert.ok(!SURFACE_ID_PATTERN.test(bad), bad);
    for (const ok of ['ab', 'set_title', 'a1', 'x'.repeat(64)]) assert.ok(ACTION_ID_PATTERN.test(ok), ok);
    for (const bad of ['a', 'a_', '_a', 'set-title', 'x'.repeat(65), 'A1']) assert.ok(!ACTION_ID_PATTERN.test(bad), bad);
    assert.equal(OBSERVATION_ID_PATTERN, ACTION_ID_PATTERN);
  });
  it('checkSurfaceId / checkActionId explain what is wrong', () => {
    assert.equal(checkSurfaceId('doc-editor'), null);
    assert.match(checkSurfaceId('a')!, /is 1 characters long \(must be 2–64\) and does not match/);
    assert.match(checkSurfaceId('x'.repeat(65))!, /is 65 characters long/);
    assert.match(checkActionId('Set')!, /does not match \^\[a-z\]\[a-z0-9_\]\*\[a-z0-9\]\$/);
    assert.equal(checkActionId('set_title'), null);
  });
});
