/**
 * Runs hook messages (what a page's hooks send, per frame) through the same
 * line the panel, the lint and the fixture share: capture intake, the wire
 * decoder, the session model. The generator's property tests read only what
 * comes out (findings), never the model's insides.
 */
import type { HookMessage } from '../../src/messages.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { SessionModel, type SessionModelOptions } from '../../src/session/model/session-model.ts';
import type { Finding } from '../../src/session/model/model-types.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

export interface FramedMessage {
  /** The frame the hook runs in, as the browser numbers it (0: the top frame). */
  frameId: number;
  message: HookMessage;
}

export interface CaptureRun {
  findings: Finding[];
  events: WireEvent[];
  clients: WireClient[];
  model: SessionModel;
}

/**
 * `live`: the clock ticks just before each event, as the panel's timer would
 * while the page runs; otherwise only at the end, as the lint does.
 */
export function runCapture(messages: Iterable<FramedMessage>, opts: SessionModelOptions & { live?: boolean } = {}): CaptureRun {
  const recorder = new Recorder(Number.MAX_SAFE_INTEGER);
  for (const m of messages) recorder.accept(m.frameId, m.message);
  const model = new SessionModel(opts);
  let last: number | undefined;
  for (const ev of recorder.events) {
    const client = recorder.clients.get(ev.client);
    if (!client) continue;
    if (opts.live) model.tick(ev.t);
    model.apply(ev, client);
    if (last === undefined || ev.t > last) last = ev.t;
  }
  if (last !== undefined) model.tick(last);
  model.finish();
  return { findings: model.findings, events: recorder.events, clients: [...recorder.clients.values()], model };
}
