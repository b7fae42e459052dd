/**
 * The panel's stand-in on postMessage: the client's answer arrives in the
 * peer's frame, whose hook must hold it from the app's runtime before the
 * request reaches the client. The two frames are told on separate channels,
 * so the request goes only once the peer's hook answered its hold (or after
 * the fallback wait), as Inject does, through the same HoldWaits. The panel
 * parts are real (StandInSeats, Injector, a Recorder); only the tab's line
 * is a list that keeps what the panel sends, in order.
 */
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { StandInSeats } from '../../panel/stand-in.ts';
import { HOLD_WAIT_MS, Injector } from '../../panel/injector.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { SPEC_TIMERS } from '../../src/session/model/timers.ts';
import type { FromPanel } from '../../src/messages.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import type { WireClient } from '../../src/session/wire/wire.ts';
import type { Connection } from '../../panel/connection.ts';

/** A widget in frame 1 whose runtime is the host page, frame 0: its answers arrive in frame 0. */
const WIDGET: WireClient = {
  key: 'postmessage:0<->0/1',
  kind: 'postmessage',
  label: 'coupon widget',
  origin: 'http://a.test',
  frameUrl: 'http://a.test/frame.html',
  frameId: 1,
  inject: { via: 'postmessage', clientPath: '0/1', peerPath: '0', frameId: 1, peerFrameId: 0 },
};

function seats(sent: Array<FromPanel & { frameId?: number }>): StandInSeats {
  const recorder = new Recorder();
  return new StandInSeats({
    send: (m) => void sent.push(m as FromPanel & { frameId?: number }),
    recorder: () => recorder,
    model: () => ({ clients: new Map() }) as unknown as SessionModel,
    timers: () => SPEC_TIMERS,
    setSeats: () => {},
    faults: () => ({ rules: [], seed: 1 }),
  });
}

/** Lets every promise job and a turn of the event loop run: what was going to be sent is sent. */
const settle = () => new Promise<void>((r) => setImmediate(r));
const kinds = (sent: Array<{ type: string; frameId?: number }>) => sent.map((m) => `${m.type}@${m.frameId}`);

describe('the stand-in waits for its hold on postMessage (HoldWaits, shared with Inject)', () => {
  it("the request goes to the widget's frame only once the host frame's hook answered the hold", async () => {
    const sent: Array<FromPanel & { frameId?: number }> = [];
    const s = seats(sent);
    void s.call(WIDGET, { surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
    await settle();
    assert.deepEqual(kinds(sent), ['hook:hold@0'], 'the hold, to the frame where the answer arrives, and nothing else yet');
    const hold = sent[0] as Extract<FromPanel, { type: 'hook:hold' }>;
    assert.equal(hold.ack, true, 'it asks the hook to answer once it holds');
    assert.equal(hold.hold.length, 1);
    // The hook holds: now the request.
    assert.equal(s.onAnswer({ type: 'answer', id: hold.id, ok: true }), true);
    await settle();
    assert.deepEqual(kinds(sent), ['hook:hold@0', 'hook:inject@1']);
    const inject = sent[1] as Extract<FromPanel, { type: 'hook:inject' }>;
    assert.notEqual(inject.id, hold.id, 'the two answers are told apart');
    const request = (inject.message as { type: string; payload: { requestId: string } }).payload;
    assert.deepEqual(hold.hold, [request.requestId], 'what is held is the answer to this request');
    s.close();
  });

  it(`a hook that never answers a hold (another build): the request goes after ${HOLD_WAIT_MS} ms`, async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const sent: Array<FromPanel & { frameId?: number }> = [];
      const s = seats(sent);
      void s.call(WIDGET, { surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } });
      await Promise.resolve();
      mock.timers.tick(HOLD_WAIT_MS - 1);
      await Promise.resolve();
      assert.deepEqual(kinds(sent), ['hook:hold@0']);
      mock.timers.tick(1);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      assert.deepEqual(kinds(sent), ['hook:hold@0', 'hook:inject@1']);
      s.close();
    } finally {
      mock.timers.reset();
    }
  });

  it('Inject waits the same way (one mechanism): its request goes on the hold\'s answer', async () => {
    const sent: Array<FromPanel & { frameId?: number }> = [];
    const connection = { send: (m: FromPanel) => void sent.push(m as FromPanel & { frameId?: number }) } as unknown as Connection;
    const injector = new Injector({ get: async () => undefined, set: async () => {} });
    injector.inject(connection, WIDGET, { surfaceId: 'coupon-widget', actionId: 'apply_coupon', params: { code: 'SAVE10' } }, { wantReceipt: false, letThrough: false });
    assert.deepEqual(kinds(sent), ['hook:hold@0']);
    assert.equal((sent[0] as { ack?: boolean }).ack, true);
    injector.onAnswer({ type: 'answer', id: (sent[0] as { id: string }).id, ok: true });
    assert.deepEqual(kinds(sent), ['hook:hold@0', 'hook:inject@1']);
  });
});
