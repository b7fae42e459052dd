/**
 * The user's own experiments are kept apart in the findings: a request the
 * panel injected or replayed, and everything that answers it, raise findings
 * marked `experiment`, whatever order the answer and the request arrive in;
 * the app's own traffic of the same cause still raises its own, unmarked.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { replay } from '../../src/session/model/session-model.ts';
import { Experiments } from '../../src/session/model/experiments.ts';
import { findingsOf, uuid, withCart } from './session-helpers.ts';

const INJECTED = { injected: true, wantsAck: true };

describe('findings of experiments', () => {
  it('an injected request without approval is an experiment, the same mistake by the runtime is not', () => {
    const tr = withCart();
    tr.wait(10);
    const mine = tr.request('cart', 'place_order', {}, {}, INJECTED);
    tr.wait(5);
    tr.result(mine.requestId, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } });
    tr.wait(10);
    const app = tr.request('cart', 'place_order', {});
    tr.wait(5);
    tr.result(app.requestId, { success: false, error: { code: 'ACTION_DENIED', message: 'no approval' } });
    const missing = findingsOf(tr.model(), 'approval-missing');
    assert.deepEqual(
      missing.map((f) => [f.events[0], f.experiment === true]),
      [
        [mine.ev.id, true],
        [app.ev.id, false],
      ],
    );
  });

  it("invalid params sent on purpose, and the client's answer to them, are experiments", () => {
    const tr = withCart();
    const { requestId } = tr.request('cart', 'add_item', { sku: 'a', qty: 0 }, {}, INJECTED);
    tr.wait(5);
    tr.result(requestId, { success: true, data: { count: 1 } });
    const model = tr.model();
    const invalid = findingsOf(model, 'params-invalid');
    const accepted = findingsOf(model, 'params-invalid-accepted');
    assert.equal(invalid.length, 1);
    assert.equal(accepted.length, 1);
    assert.equal(invalid[0]!.experiment, true);
    assert.equal(accepted[0]!.experiment, true, 'raised by the answer, not by the injected event itself');
    assert.equal(model.findings.filter((f) => !f.experiment).length, 0, 'nothing counts against the app');
  });

  it('an experiment does not hide the app finding of the same cause, nor the reverse', () => {
    // hash-missing is reported once per client: the experiment's and the app's are two causes.
    const tr = withCart();
    const mine = tr.request('cart', 'view_cart', {}, {}, INJECTED);
    tr.wait(5);
    tr.result(mine.requestId, { success: true }, ['surfacesHash', 'surfaces']);
    tr.wait(10);
    const app = tr.request('cart', 'view_cart', {});
    tr.wait(5);
    tr.result(app.requestId, { success: true }, ['surfacesHash', 'surfaces']);
    tr.wait(10);
    const again = tr.request('cart', 'view_cart', {}, {}, INJECTED);
    tr.wait(5);
    tr.result(again.requestId, { success: true }, ['surfacesHash', 'surfaces']);
    const hash = findingsOf(tr.model(), 'hash-missing');
    assert.deepEqual(
      hash.map((f) => f.experiment === true),
      [true, false],
    );
  });

  it("the answer is an experiment's even when it is applied before the injected request (frames race)", () => {
    const tr = withCart();
    const requestId = uuid();
    tr.wait(10);
    // Captured after the request, delivered first: the feed hands it to the model before the request.
    const req = tr.request('cart', 'add_item', { sku: 'a', qty: 0 }, { requestId }, INJECTED);
    tr.wait(5);
    const res = tr.result(requestId, { success: true, data: { count: 1 } });
    const [open, reg, reqItem, resItem] = tr.events;
    const model = replay([open!, reg!, resItem!, reqItem!]);
    assert.equal(model.isExperiment(res.id), true);
    assert.equal(model.isExperiment(req.ev.id), true);
    const accepted = findingsOf(model, 'params-invalid-accepted');
    assert.ok(accepted.every((f) => f.experiment === true));
  });

  it("a same-id replay makes what answers it an experiment, not the app's first answer", () => {
    const tr = withCart();
    const app = tr.request('cart', 'view_cart', {});
    tr.wait(5);
    const first = tr.result(app.requestId, { success: true });
    tr.wait(5);
    const ack = tr.resultAck(first);
    tr.wait(9000);
    const repeat = tr.request('cart', 'view_cart', {}, { requestId: app.requestId }, INJECTED);
    tr.wait(5);
    const receipt = tr.receipt(repeat.ev);
    const second = tr.result(app.requestId, { success: true, data: { other: 1 } });
    const model = tr.model();
    assert.equal(model.isExperiment(app.ev.id), false);
    assert.equal(model.isExperiment(first.id), false);
    assert.equal(model.isExperiment(ack.id), false);
    assert.equal(model.isExperiment(repeat.ev.id), true);
    assert.equal(model.isExperiment(receipt.id), true);
    assert.equal(model.isExperiment(second.id), true);
    const repeatFindings = model.findings.filter((f) => f.rule.startsWith('repeat-'));
    assert.ok(repeatFindings.length > 0, 'answering a repeat twice is found');
    assert.ok(repeatFindings.every((f) => f.experiment === true), 'and it is the experiment that showed it');
  });

  it('receipts and result acknowledgments of an injected request are experiments; a finding its request raises too', () => {
    const tr = withCart();
    const answered = tr.request('cart', 'view_cart', {}, {}, INJECTED);
    const receipt = tr.receipt(answered.ev);
    const result = tr.result(answered.requestId, { success: true });
    const ack = tr.resultAck(result);
    const invalid = tr.request('cart', 'add_item', { sku: 'a', qty: 0 }, {}, INJECTED);
    tr.wait(31_000);
    tr.update('cart', 'total', 1);
    const model = tr.model();
    for (const ev of [answered.ev, receipt, result, ack]) assert.equal(model.isExperiment(ev.id), true, ev.type ?? ev.kind);
    assert.deepEqual(
      findingsOf(model, 'params-invalid').map((f) => [f.events[0], f.experiment]),
      [[invalid.ev.id, true]],
    );
  });

  it("the app's own traffic is never an experiment", () => {
    const tr = withCart();
    const app = tr.request('cart', 'add_item', { sku: 'a', qty: 0 });
    const res = tr.result(app.requestId, { success: true, data: { count: 1 } });
    const model = tr.model();
    assert.ok(model.findings.length > 0);
    assert.ok(model.findings.every((f) => f.experiment === undefined));
    assert.equal(model.isExperiment(res.id), false);
  });
});

describe('Experiments index', () => {
  it('an id the app also used is an experiment only from the injected send on; an id only the panel used, always', () => {
    const x = new Experiments();
    x.noteRequest('c', 'shared', 100, false);
    x.noteRequest('c', 'shared', 200, true);
    x.noteRequest('c', 'mine', 300, true);
    x.noteResult('c', 'r1', 'shared', 150);
    x.noteResult('c', 'r2', 'shared', 250);
    // Another frame's clock a little behind: still the experiment's answer.
    x.noteResult('c', 'r3', 'mine', 299);
    x.noteResult('other', 'r4', 'mine', 400);
    x.noteAck('a2', 'r2');
    assert.deepEqual(
      ['r1', 'r2', 'r3', 'r4', 'a2'].map((id) => x.isExperiment(id)),
      [false, true, true, false, true],
    );
  });

  it('survives acknowledgment cycles in hostile ids', () => {
    const x = new Experiments();
    x.noteAck('a', 'b');
    x.noteAck('b', 'a');
    assert.equal(x.isExperiment('a'), false);
  });
});
