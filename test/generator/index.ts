/** generateSession(seed, opts): a conformant session, encoded as hook messages. */
import { generateAbstract, type GenerateOptions } from './generate.ts';
import { encodeSession, type FramedMessage } from './encode.ts';
import type { AbsSession } from './model.ts';

export interface GeneratedSession {
  messages: FramedMessage[];
  meta: {
    seed: number;
    transports: string[];
    timers: AbsSession['timers'];
    lateStart: string[];
    notes: string[];
    readings: string[];
    events: number;
  };
  /** The abstract session the messages encode (what mutations edit). */
  model: AbsSession;
}

export function describe(model: AbsSession, messages: FramedMessage[]): GeneratedSession {
  return {
    messages,
    meta: {
      seed: model.seed,
      transports: model.clients.map((c) => `${c.name}:${c.transport}${c.namespace !== '/' && c.transport.startsWith('sio') ? model.clients.length && c.namespace : ''}`),
      timers: model.timers,
      lateStart: model.clients.filter((c) => c.lateStart).map((c) => c.name),
      notes: model.notes,
      readings: model.readings,
      events: model.clients.reduce((n, c) => n + c.events.length, 0),
    },
    model,
  };
}

export function generateSession(seed: number, opts: GenerateOptions = {}): GeneratedSession {
  const model = generateAbstract(seed, opts);
  return describe(model, encodeSession(model));
}

export { encodeSession, generateAbstract };
export type { GenerateOptions, FramedMessage };
