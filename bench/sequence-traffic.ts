/**
 * The bench's traffic for the Sequence view (bench/sequence.ts, and the
 * page it runs the live layout in): four clients, each request answered
 * with a receipt, a result and the runtime's acknowledgment (some failed,
 * some refused, some re-sent, some still in flight), in time order.
 */
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';

export const EVENTS = 100_000;

export function traffic(count = EVENTS, t0 = Date.now() - count * 5): { clients: WireClient[]; events: WireEvent[] } {
  const clients: WireClient[] = [0, 1, 2, 3].map((k) => ({ key: `ws:bench${k}`, kind: 'websocket', label: `ws://bench/${k}`, origin: 'http://bench', frameUrl: 'http://bench/', frameId: 0 }));
  const surface = { id: 'bench', name: 'Bench', description: 'A long session', actions: ['go', 'get', 'put'].map((id) => ({ id, description: id, input: { type: 'object', properties: { n: { type: 'integer' } } } })) };
  const events: WireEvent[] = [];
  let t = t0;
  let seq = 0;
  const push = (c: WireClient, e: Omit<WireEvent, 'id' | 'client' | 't' | 'size'>, at = t) => {
    const ev = { id: `e${seq++}`, client: c.key, t: at, size: 100, ...e } as WireEvent;
    events.push(ev);
    return ev;
  };
  for (const c of clients) push(c, { dir: 'out', kind: 'event', type: 'surface:register', payload: { surface, timestamp: Math.round(t) } });
  let i = 0;
  while (events.length < count) {
    i++;
    const c = clients[i % 4]!;
    const requestId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const actionId = ['go', 'get', 'put'][i % 3]!;
    t += 5;
    const req = push(c, { dir: 'in', kind: 'event', type: 'action:request', wantsAck: true, payload: { requestId, surfaceId: 'bench', actionId, params: { n: i }, timestamp: Math.round(t) } });
    const took = 2 + ((i * 37) % 400);
    // Events are recorded in time order: the answers land later in the list, interleaved with other requests.
    const at = (d: number) => t + d;
    push(c, { dir: 'out', kind: 'ack', ackOf: req.id, payload: i % 97 === 0 ? { ok: false, reason: 'busy' } : { ok: true } }, at(1));
    if (i % 97 === 0) continue;
    if (i % 501 === 0) continue; // in flight
    const res = push(c, { dir: 'out', kind: 'event', type: 'action:result', wantsAck: true, payload: i % 53 === 0 ? { requestId, success: false, error: { code: 'CONFLICT', message: 'no' }, timestamp: Math.round(at(took)) } : { requestId, success: true, data: { n: i }, timestamp: Math.round(at(took)) } }, at(took));
    push(c, { dir: 'in', kind: 'ack', ackOf: res.id, payload: i % 89 === 0 ? { ok: false, reason: 'stale' } : { ok: true } }, at(took + 1));
  }
  events.sort((a, b) => a.t - b.t);
  // Exactly EVENTS: the last request's answers fall after the end, and it stays in flight.
  events.length = count;
  return { clients, events };
}

