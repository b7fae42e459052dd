/**
 * Every rule: traffic that triggers it, and similar traffic that does not
 * (and that raises nothing at all, unless the scenario says what it allows).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argsHashSync, surfacesHash, surfacesHashVariants } from '../../src/protocol/index.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import { RULES, type RuleId } from '../../src/session/model/rules.ts';
import { T0, Traffic, cartSurface, catalogSurface, findingsOf, uuid, withCart } from './session-helpers.ts';

/** The model after the cart client answers one view_cart request with `result` (less the fields in `omit`). */
function viewCartAnswered(result: Record<string, unknown>, omit: string[] = []): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'view_cart');
  tr.result(requestId, result, omit);
  return tr.model();
}

interface Scenario {
  trigger: () => SessionModel;
  clean: () => SessionModel;
  /** Rules the clean variant may raise (it shows something else on purpose). */
  cleanAllows?: RuleId[];
}

const ADD = { sku: 'a', qty: 1 };
const OK = { success: true, data: { count: 1 } };

/** A request for add_item and its conformant result, then whatever `then` adds. */
function answered(then?: (tr: Traffic, requestId: string, result: ReturnType<Traffic['result']>) => void): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'add_item', ADD);
  tr.wait(50);
  const r = tr.result(requestId, OK);
  then?.(tr, requestId, r);
  return tr.model();
}

function ticked(tr: Traffic, ms: number): SessionModel {
  const m = tr.model();
  m.tick(T0 + ms);
  return m;
}

/** A result refused by the receiver, then `resend` (or nothing). */
function refused(resend?: (tr: Traffic, requestId: string) => void, tickMs?: number): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'add_item', ADD);
  tr.wait(50);
  const r = tr.result(requestId, OK);
  tr.wait(10);
  tr.resultAck(r, { ok: false, error: 'too large' });
  tr.wait(10);
  resend?.(tr, requestId);
  const m = tr.model();
  if (tickMs !== undefined) m.tick(T0 + tickMs);
  return m;
}

const TRIMMED = { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations'] };

/** A request, its answer, a repeat `repeatAfter` ms after the answer, and `then`. */
function repeated(repeatAfter: number, then: (tr: Traffic, requestId: string, first: ReturnType<Traffic['result']>) => void): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'add_item', ADD);
  tr.wait(50);
  const first = tr.result(requestId, OK);
  tr.wait(repeatAfter);
  const { ev } = tr.request('cart', 'add_item', ADD, { requestId });
  tr.receipt(ev);
  then(tr, requestId, first);
  return tr.model();
}

function surfaceWith(patch: Record<string, unknown>): Traffic {
  const tr = new Traffic();
  tr.register({ ...cartSurface(), ...patch } as never);
  return tr;
}

function approvedOrder(approval: unknown, outcome: Record<string, unknown> = { success: true }, params: unknown = { note: 'x' }): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'place_order', params, approval === undefined ? {} : { approval });
  tr.wait(20);
  tr.result(requestId, outcome);
  return tr.model();
}

const SCENARIOS: Record<RuleId, Scenario> = {
  'malformed-frame': {
    trigger: () => {
      const tr = withCart();
      tr.raw({ kind: 'malformed', note: 'invalid JSON' });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.raw({ kind: 'other', raw: 'hello' });
      return tr.model();
    },
  },
  'event-ignored': {
    trigger: () => {
      const tr = withCart();
      tr.event('action:result', { requestId: uuid() }, 'out');
      return tr.model();
    },
    clean: () => answered(),
    cleanAllows: [],
  },
  'payload-problem': {
    // progress outside 0–100 is the 0.6.0 types' rule (type-shape); a fractional timestamp is no rule of its own.
    trigger: () => answered((tr) => tr.update('cart', 'total', 1, T0 + 0.5)),
    clean: () => answered((tr) => tr.update('cart', 'total', 1)),
  },
  'payload-problem-from-runtime': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart', {}, { timestamp: T0 + 0.5 });
      tr.result(requestId, { success: true });
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'malformed-frame-from-runtime': {
    trigger: () => {
      const tr = withCart();
      tr.raw({ kind: 'malformed', dir: 'in', note: 'invalid JSON' });
      return tr.model();
    },
    // The same frame from the client is the client's fault, not the runtime's.
    clean: () => {
      const tr = withCart();
      tr.raw({ kind: 'malformed', dir: 'out', note: 'invalid JSON' });
      return tr.model();
    },
    cleanAllows: ['malformed-frame'],
  },
  'event-ignored-from-runtime': {
    trigger: () => {
      const tr = withCart();
      tr.event('action:request', { requestId: uuid() }, 'in');
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'wrong-direction-from-runtime': {
    trigger: () => {
      const tr = withCart();
      tr.event('observation:update', { surfaceId: 'cart', observationId: 'total', value: 1, timestamp: tr.t }, 'in');
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.update('cart', 'total', 1);
      return tr.model();
    },
  },
  'malformed-not-ignored': {
    trigger: () => {
      const tr = withCart();
      const id = uuid();
      tr.event('action:request', { requestId: id, surfaceId: 'cart', actionId: 'view_cart', timestamp: tr.t }, 'in');
      tr.wait(10);
      tr.result(id, { success: true });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.event('action:request', { requestId: uuid(), surfaceId: 'cart', actionId: 'view_cart', timestamp: tr.t }, 'in');
      return tr.model();
    },
    cleanAllows: ['event-ignored-from-runtime', 'payload-problem-from-runtime'],
  },
  'surface-shape': {
    trigger: () => surfaceWith({ version: 2 }).model(),
    clean: () => surfaceWith({ version: '1.0.0' }).model(),
  },
  'action-shape': {
    trigger: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object' }, tags: 'write' }] }).model(),
    clean: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object' }, tags: ['write'] }] }).model(),
  },
  'input-schema': {
    trigger: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object', properties: { x: { $ref: 'https://schemas.test/x.json' } } } }] }).model(),
    clean: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object', properties: { x: { type: 'string' } } } }] }).model(),
  },
  'observation-shape': {
    trigger: () => surfaceWith({ observations: [{ id: 'seen', description: 'x', schema: {}, updateFrequency: 'sometimes' }] }).model(),
    clean: () => surfaceWith({ observations: [{ id: 'seen', description: 'x', schema: {}, updateFrequency: 'realtime' }] }).model(),
  },
  'activation-shape': {
    trigger: () => surfaceWith({ activation: { routes: 5 } }).model(),
    clean: () => surfaceWith({ activation: { routes: ['/cart', '/cart/**'] } }).model(),
  },
  'type-shape': {
    trigger: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', effect: 'explode', input: { type: 'object' } }] }).model(),
    clean: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', effect: 'edit', input: { type: 'object' } }] }).model(),
  },
  'unavailable-while-registered': {
    trigger: () => viewCartAnswered({ success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'not on this page' } }),
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('ghost', 'view_cart');
      tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'no ghost' } });
      return tr.model();
    },
    cleanAllows: ['request-unknown-surface'],
  },
  'not-reregistered': {
    trigger: () => reconnected(false, (tr) => tr.update('cart', 'total', 1)),
    clean: () => reconnected(true, (tr) => tr.update('cart', 'total', 1)),
  },
  'request-after-transport-loss': {
    trigger: () =>
      reconnected(false, (tr) => {
        const { requestId } = tr.request('cart', 'view_cart');
        tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'not registered' } });
      }),
    clean: () =>
      reconnected(true, (tr) => {
        const { requestId } = tr.request('cart', 'view_cart');
        tr.result(requestId, { success: true });
      }),
  },
  'retry-after-timeout': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart');
      tr.wait(31_000);
      tr.request('cart', 'view_cart', {}, { requestId });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart');
      tr.wait(2_000);
      tr.request('cart', 'view_cart', {}, { requestId });
      tr.wait(10);
      tr.result(requestId, { success: true });
      return tr.model();
    },
    cleanAllows: [],
  },
  'resent-despite-receipt': {
    trigger: () => resent([1_000], true),
    clean: () => resent([1_000], false),
  },
  'resent-without-backoff': {
    trigger: () => resent([1_000, 1_000], false),
    clean: () => resent([1_000, 2_000], false),
  },
  'known-surfaces-unheld': {
    trigger: () => {
      const tr = withCart();
      const first = tr.request('cart', 'view_cart');
      tr.result(first.requestId, { success: true, surfacesHash: surfacesHash([catalogSurface()]) }, ['surfaces']);
      const { requestId } = tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash([catalogSurface()]) });
      tr.result(requestId, { success: true });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const first = tr.request('cart', 'view_cart');
      tr.result(first.requestId, { success: true });
      const { requestId } = tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash(tr.mounted) });
      tr.result(requestId, { success: true });
      return tr.model();
    },
    // The result without its surfaces is the client's fault too, under their own rules.
    cleanAllows: [],
  },
  'result-ack-shape': {
    trigger: () => answered((tr, _id, r) => tr.resultAck(r, { ok: false })),
    clean: () => answered((tr, _id, r) => tr.resultAck(r, { ok: true })),
  },
  'approval-shape': {
    trigger: () => approvedOrder({ approvalId: '', argsHash: argsHashSync({ note: 'x' }) }, { success: false, error: { code: 'ACTION_DENIED', message: 'no such approval' } }),
    clean: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: 'x' }) }),
  },
  'wrong-direction': {
    trigger: () => {
      const tr = withCart();
      tr.event('action:request', { requestId: uuid(), surfaceId: 'cart', actionId: 'view_cart', params: {}, timestamp: tr.t }, 'out');
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.request('cart', 'view_cart');
      return tr.model();
    },
  },
  'ack-shape': {
    trigger: () => {
      const tr = withCart();
      const { ev } = tr.request('cart', 'view_cart');
      tr.receipt(ev, { ok: 'yes' });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { ev } = tr.request('cart', 'view_cart');
      tr.receipt(ev, { ok: false, reason: 'busy' });
      return tr.model();
    },
  },

  'surface-id': {
    trigger: () => surfaceWith({ id: 'Cart' }).model(),
    clean: () => surfaceWith({ id: 'cart-2' }).model(),
  },
  'action-id': {
    trigger: () => surfaceWith({ actions: [{ id: 'AddItem', description: 'x', input: { type: 'object' } }] }).model(),
    clean: () => surfaceWith({ actions: [{ id: 'add_item', description: 'x', input: { type: 'object' } }] }).model(),
  },
  'observation-id': {
    trigger: () => surfaceWith({ observations: [{ id: 'x', description: 'x', schema: {} }] }).model(),
    clean: () => surfaceWith({ observations: [{ id: 'xy', description: 'x', schema: {} }] }).model(),
  },
  'surface-no-actions': {
    trigger: () => surfaceWith({ actions: [] }).model(),
    clean: () => surfaceWith({}).model(),
  },
  'duplicate-action-id': {
    trigger: () => {
      const a = { id: 'go_on', description: 'x', input: { type: 'object' } };
      return surfaceWith({ actions: [a, a] }).model();
    },
    clean: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object' } }, { id: 'go_back', description: 'x', input: { type: 'object' } }] }).model(),
  },
  'duplicate-observation-id': {
    trigger: () => {
      const o = { id: 'seen', description: 'x', schema: {} };
      return surfaceWith({ observations: [o, o] }).model();
    },
    clean: () => surfaceWith({ observations: [{ id: 'seen', description: 'x', schema: {} }] }).model(),
  },
  'duplicate-surface-id': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart');
      const twice = [cartSurface(), cartSurface()];
      tr.result(requestId, { success: true, surfaces: twice, surfacesHash: surfacesHash(twice) });
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'input-not-object': {
    trigger: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'string' } }] }).model(),
    clean: () => surfaceWith({ actions: [{ id: 'go_on', description: 'x', input: { type: 'object' } }] }).model(),
  },
  'deregister-unknown': {
    trigger: () => {
      const tr = new Traffic();
      // The capture saw the connection open: every registration on it is seen.
      tr.raw({ kind: 'lifecycle', type: 'open', dir: 'in' });
      tr.register(cartSurface());
      tr.deregister('ghost');
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.deregister('cart');
      return tr.model();
    },
  },

  'request-id-format': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart', {}, { requestId: 'req-1' });
      tr.result(requestId, { success: true });
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'request-id-reused': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.request('cart', 'add_item', { sku: 'b', qty: 2 }, { requestId });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.request('cart', 'add_item', ADD, { requestId });
      return tr.model();
    },
  },
  'request-unknown-surface': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('ghost', 'view_cart');
      tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'no ghost' } });
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'request-unknown-action': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'fly_away');
      tr.result(requestId, { success: false, error: { code: 'ACTION_NOT_FOUND', message: 'no' } });
      return tr.model();
    },
    clean: () => viewCartAnswered({ success: true }),
  },
  'unknown-target-accepted': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('ghost', 'view_cart');
      tr.result(requestId, { success: true });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('ghost', 'view_cart');
      tr.result(requestId, { success: false, error: { code: 'SURFACE_UNAVAILABLE', message: 'no ghost' } });
      return tr.model();
    },
    cleanAllows: ['request-unknown-surface'],
  },
  'params-invalid': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
      tr.result(requestId, { success: false, error: { code: 'VALIDATION_ERROR', message: 'qty' } });
      return tr.model();
    },
    clean: () => answered(),
  },
  'params-invalid-accepted': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
      tr.result(requestId, OK);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
      tr.result(requestId, { success: false, error: { code: 'VALIDATION_ERROR', message: 'qty' } });
      return tr.model();
    },
    cleanAllows: ['params-invalid'],
  },
  'expected-error-code': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
      tr.result(requestId, { success: false, error: { code: 'EXECUTION_ERROR', message: 'boom' } });
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
      tr.result(requestId, { success: false, error: { code: 'VALIDATION_ERROR', message: 'qty' } });
      return tr.model();
    },
    cleanAllows: ['params-invalid'],
  },

  'result-unknown-request': {
    trigger: () => {
      const tr = withCart();
      tr.result(uuid(), { success: true });
      return tr.model();
    },
    clean: () => answered(),
  },
  'error-missing': {
    trigger: () => viewCartAnswered({ success: false }),
    clean: () => viewCartAnswered({ success: false, error: { code: 'PRECONDITION_FAILED', message: 'empty' } }),
  },
  'error-with-success': {
    trigger: () => viewCartAnswered({ success: true, error: { code: 'INTERNAL_ERROR', message: 'hm' } }),
    clean: () => viewCartAnswered({ success: true }),
  },
  'error-code-namespace': {
    trigger: () => viewCartAnswered({ success: false, error: { code: 'QUOTA', message: 'over' } }),
    clean: () => viewCartAnswered({ success: false, error: { code: 'app:quota', message: 'over' } }),
  },
  'result-output-invalid': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.result(requestId, { success: true, data: { count: 'one' } });
      return tr.model();
    },
    clean: () => answered(),
  },
  'duplicate-result': {
    trigger: () => answered((tr, requestId) => tr.result(requestId, OK)),
    clean: () => answered(),
  },
  'interim-on-sync': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.result(requestId, { success: true, interim: true, progress: 10 });
      tr.result(requestId, OK);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.result(requestId, { ...OK, interim: false });
      return tr.model();
    },
  },
  'interim-after-final': {
    trigger: () => asyncFlow([{ interim: true }, { interim: false }, { interim: true }]),
    clean: () => asyncFlow([{ interim: true }, { interim: true, progress: 50 }, { interim: false }]),
  },
  'async-no-interim': {
    trigger: () => asyncFlow([{ interim: false }]),
    clean: () => asyncFlow([{ interim: true }, { interim: false }]),
  },
  'async-final-interim-unset': {
    trigger: () => asyncFlow([{ interim: true }, {}]),
    clean: () => asyncFlow([{ interim: true }, { interim: false }]),
  },


  'hash-missing': {
    trigger: () => missingHash(),
    clean: () => answered(),
  },
  'hash-format': {
    trigger: () => viewCartAnswered({ success: true, surfacesHash: 'fnv1a64:NOTHEX' }),
    clean: () => answered(),
  },
  'hash-byte-variant': {
    trigger: () => accented((tr) => surfacesHashVariants(tr.mounted).utf8),
    clean: () => accented((tr) => surfacesHash(tr.mounted)),
  },
  'hash-mismatch': {
    trigger: () => viewCartAnswered({ success: true, surfacesHash: surfacesHash([catalogSurface()]) }),
    clean: () => answered(),
  },
  'surfaces-missing': {
    trigger: () => viewCartAnswered({ success: true }, ['surfaces']),
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'view_cart', {}, { knownSurfaces: surfacesHash(tr.mounted) });
      tr.result(requestId, { success: true }, ['surfaces']);
      return tr.model();
    },
  },

  'resend-unmarked': {
    trigger: () => refused((tr, id) => tr.result(id, OK)),
    clean: () => refused((tr, id) => tr.result(id, { ...OK, delivery: TRIMMED }, ['surfaces'])),
  },
  'trim-changed-outcome': {
    trigger: () => refused((tr, id) => tr.result(id, { success: false, error: { code: 'INTERNAL_ERROR', message: 'x' }, delivery: TRIMMED }, ['surfaces'])),
    clean: () => refused((tr, id) => tr.result(id, { ...OK, delivery: TRIMMED }, ['surfaces'])),
  },
  'trim-order': {
    trigger: () => refused((tr, id) => tr.result(id, { success: true, delivery: { trimmed: true, reason: 'too large', omitted: ['data'] } })),
    clean: () => refused((tr, id) => tr.result(id, { success: true, delivery: { trimmed: true, reason: 'too large', omitted: ['surfaces', 'observations', 'data'] } }, ['surfaces'])),
  },
  'trim-shape': {
    trigger: () => refused((tr, id) => tr.result(id, { ...OK, delivery: TRIMMED })),
    clean: () => refused((tr, id) => tr.result(id, { ...OK, delivery: TRIMMED }, ['surfaces'])),
  },
  'refused-not-resent': {
    trigger: () => refused(undefined, 10_000),
    clean: () => refused((tr, id) => tr.result(id, { ...OK, delivery: TRIMMED }, ['surfaces']), 10_000),
  },
  'trimmed-without-refusal': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.result(requestId, { ...OK, delivery: TRIMMED }, ['surfaces']);
      return tr.model();
    },
    clean: () => answered(),
  },

  'repeat-ran-twice': {
    trigger: () => repeated(9_000, (tr, id) => tr.result(id, { success: true, data: { count: 2 } })),
    clean: () => repeated(9_000, (tr, id) => tr.result(id, OK)),
  },
  'repeat-answered-in-flight': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.wait(1_000);
      tr.request('cart', 'add_item', ADD, { requestId });
      tr.wait(1_000);
      tr.result(requestId, OK);
      tr.wait(10);
      tr.result(requestId, OK);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      tr.wait(1_000);
      const { ev } = tr.request('cart', 'add_item', ADD, { requestId });
      tr.receipt(ev);
      tr.wait(1_000);
      tr.result(requestId, OK);
      return tr.model();
    },
  },
  'repeat-answered-after-ack': {
    trigger: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      const first = tr.result(requestId, OK);
      tr.resultAck(first);
      tr.wait(10_000);
      tr.request('cart', 'add_item', ADD, { requestId });
      tr.result(requestId, OK);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      const { requestId } = tr.request('cart', 'add_item', ADD);
      const first = tr.result(requestId, OK);
      tr.resultAck(first);
      tr.wait(10_000);
      const { ev } = tr.request('cart', 'add_item', ADD, { requestId });
      tr.receipt(ev);
      return tr.model();
    },
  },
  'repeat-answered-too-soon': {
    trigger: () => repeated(2_000, (tr, id) => tr.result(id, OK)),
    clean: () => repeated(9_000, (tr, id) => tr.result(id, OK)),
  },

  'observation-unknown': {
    trigger: () => {
      const tr = withCart();
      tr.update('cart', 'ghost_count', 1);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.update('cart', 'total', 1);
      return tr.model();
    },
  },
  'observation-invalid': {
    trigger: () => {
      const tr = withCart();
      tr.update('cart', 'total', 'twelve');
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.update('cart', 'total', 12.5);
      return tr.model();
    },
  },
  'observation-rate': {
    trigger: () => updates('total', 15, 50),
    clean: () => updates('total', 15, 150),
  },
  'observation-out-of-order': {
    trigger: () => {
      const tr = withCart();
      tr.update('cart', 'total', 1, T0 + 100);
      tr.update('cart', 'total', 2, T0 + 50);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.update('cart', 'total', 1, T0 + 50);
      tr.update('cart', 'total', 2, T0 + 100);
      return tr.model();
    },
  },
  'polling-pushed': {
    trigger: () => {
      const tr = withCart();
      tr.update('cart', 'stock', 3);
      return tr.model();
    },
    clean: () => {
      const tr = withCart();
      tr.event('observation:request', { surfaceId: 'cart', observationId: 'stock', timestamp: tr.t }, 'in');
      tr.update('cart', 'stock', 3);
      return tr.model();
    },
  },

  'approval-missing': {
    trigger: () => approvedOrder(undefined, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } }),
    clean: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: 'x' }) }),
  },
  'approval-hash-format': {
    trigger: () => approvedOrder({ approvalId: 'ap1', argsHash: 'ABC' }, { success: false, error: { code: 'ACTION_DENIED', message: 'bad hash' } }),
    clean: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: 'x' }) }),
  },
  'approval-hash-mismatch': {
    trigger: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: 'y' }) }, { success: false, error: { code: 'ACTION_DENIED', message: 'params differ' } }),
    clean: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: 'x' }) }),
  },
  'approval-params-unhashable': {
    trigger: () => approvedOrder({ approvalId: 'ap1', argsHash: 'a'.repeat(64) }, { success: false, error: { code: 'ACTION_DENIED', message: 'no' } }, { note: '\uD800' }),
    clean: () => approvedOrder({ approvalId: 'ap1', argsHash: argsHashSync({ note: '\uD83D\uDE00' }) }, { success: true }, { note: '\uD83D\uDE00' }),
  },
  'unapproved-run': {
    trigger: () => approvedOrder(undefined),
    clean: () => approvedOrder(undefined, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } }),
    cleanAllows: ['approval-missing'],
  },
  'approval-expired-run': {
    trigger: () => grantThenOrder(2_000),
    clean: () => grantThenOrder(500),
  },
};

/** A client whose transport dropped and came back, registering its cart again or not, then `then`. */
function reconnected(reregister: boolean, then: (tr: Traffic) => void): SessionModel {
  const tr = withCart();
  tr.wait(10);
  tr.close();
  tr.wait(500);
  tr.raw({ kind: 'lifecycle', type: 'socket.io connect', dir: 'in' });
  tr.mounted = [];
  if (reregister) tr.register(cartSurface());
  tr.wait(10);
  then(tr);
  return tr.model();
}

/** A request sent again after each gap in `gaps`, with a receipt of the first send or none, then answered. */
function resent(gaps: number[], receipt: boolean): SessionModel {
  const tr = withCart();
  const { ev, requestId } = tr.request('cart', 'view_cart');
  if (receipt) tr.receipt(ev);
  for (const gap of gaps) {
    tr.wait(gap);
    tr.request('cart', 'view_cart', {}, { requestId });
  }
  tr.wait(10);
  tr.result(requestId, { success: true });
  return tr.model();
}

function answeredWithTimestamp(offset: number): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'view_cart');
  tr.wait(10);
  tr.result(requestId, { success: true, timestamp: T0 + offset });
  return tr.model();
}

function asyncFlow(results: Array<Record<string, unknown>>): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'export_cart');
  for (const r of results) {
    tr.wait(100);
    tr.result(requestId, { success: true, ...r });
  }
  return tr.model();
}

function missingHash(): SessionModel {
  const tr = withCart();
  const { requestId } = tr.request('cart', 'view_cart');
  tr.result(requestId, { success: true }, ['surfacesHash']);
  return tr.model();
}

/** A client whose surface has non-ASCII text, answering with the hash `hashOf` gives. */
function accented(hashOf: (tr: Traffic) => string): SessionModel {
  const tr = new Traffic();
  tr.register({ ...cartSurface(), description: 'Le panier — café, crème' });
  const { requestId } = tr.request('cart', 'view_cart');
  tr.result(requestId, { success: true, surfacesHash: hashOf(tr) });
  return tr.model();
}

function updates(observationId: string, count: number, everyMs: number): SessionModel {
  const tr = withCart();
  for (let i = 0; i < count; i++) {
    tr.update('cart', observationId, i);
    tr.wait(everyMs);
  }
  return tr.model();
}

function grantThenOrder(after: number): SessionModel {
  const tr = withCart();
  const params = { note: 'x' };
  const argsHash = argsHashSync(params);
  tr.event('x-approval:granted', { approvalId: 'ap1', argsHash, expiresAt: T0 + 1_000 }, 'out');
  tr.wait(after);
  const { requestId } = tr.request('cart', 'place_order', params, { approval: { approvalId: 'ap1', argsHash } });
  tr.result(requestId, { success: true });
  return tr.model();
}

describe('every rule has a scenario', () => {
  it('covers the whole rule table, and the table is well formed', () => {
    const ids = RULES.map((r) => r.id);
    assert.deepEqual([...ids].sort(), Object.keys(SCENARIOS).sort());
    assert.equal(new Set(ids).size, ids.length);
    for (const r of RULES) {
      assert.match(r.severity, /^(critical|error|warning|info)$/);
      assert.ok(r.section.length > 0 && r.title.length > 0, r.id);
    }
  });
});

describe('rules: trigger and clean traffic', () => {
  for (const rule of RULES) {
    const s = SCENARIOS[rule.id as RuleId];
    describe(rule.id, () => {
      it(`raises ${rule.id}`, () => {
        const m = s.trigger();
        assert.equal(m.internalErrors, 0, m.lastInternalError);
        const hits = findingsOf(m, rule.id);
        assert.equal(hits.length >= 1, true, `expected ${rule.id}, got ${m.findings.map((f) => f.rule).join(', ') || 'nothing'}`);
        for (const f of hits) {
          assert.equal(f.section, rule.section, 'cites its rule\'s section');
          assert.equal(f.party, rule.party, 'names its rule\'s party');
          assert.ok(f.events.length >= 1, 'names the events that show it');
          assert.ok(f.message.length > 0 && !f.message.includes('\n'), 'one line');
          assert.ok(f.section.length > 0);
        }
      });
      it(`clean traffic raises no ${rule.id}`, () => {
        const m = s.clean();
        assert.equal(m.internalErrors, 0, m.lastInternalError);
        const unexpected = m.findings.filter((f) => !(s.cleanAllows ?? []).includes(f.rule as RuleId));
        assert.deepEqual(
          unexpected.map((f) => `${f.rule}: ${f.message}`),
          [],
        );
      });
    });
  }
});
