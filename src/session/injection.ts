/**
 * Builds what the page hook needs to deliver an injected request to one
 * client, as that client's agent runtime would send it: a Socket.IO EVENT
 * frame (with an ack id when a receipt is wanted), a plain-JSON frame, a
 * postMessage event, or a direct call. Pure: the panel sends the command.
 */
import type { InjectCommand } from '../capture/types.ts';
import type { OUIActionRequest } from '../protocol/index.ts';
import { encodeSocketIOEvent } from '../protocol/socketio.ts';
import type { WireClient } from './wire.ts';

/** Ack ids the injector uses: far above what a real Socket.IO client counts to, so its receipt is easy to tell apart. */
export const INJECT_ACK_BASE = 900_000_000;

export interface InjectionOptions {
  /** The panel's id for this injection. */
  id: string;
  /** Ask for a receipt (§7.3.7): a Socket.IO ack id, or a receipt callback for a direct transport. */
  wantReceipt: boolean;
  /** Let the client's answer reach the app's own runtime (off by default: it never asked). */
  letThrough: boolean;
  /** Socket.IO ack id to use when a receipt is wanted. */
  ackId: number;
}

export type InjectionPlan = { ok: true; command: InjectCommand; frameId?: number } | { ok: false; error: string };

export function whyNotInjectable(client: WireClient): string | null {
  if (client.inject) return null;
  if (client.kind === 'socket.io') return 'this Socket.IO client has not upgraded to WebSocket yet (injection rides the WebSocket)';
  if (client.kind === 'postmessage') return 'the panel has not yet seen which frame of this pairing is the client';
  return 'no open transport to deliver to';
}

export function planInjection(client: WireClient, request: OUIActionRequest, opts: InjectionOptions): InjectionPlan {
  const target = client.inject;
  if (!target) return { ok: false, error: whyNotInjectable(client) ?? 'not injectable' };
  // Held by requestId: a same-id replay (§7.3.7) also holds a late answer to the original for a while; replays are of answered requests, so that is rare.
  const hold: string[] = opts.letThrough ? [] : [request.requestId];
  const base = { type: 'hook:inject' as const, id: opts.id, target, hold };
  const event = { type: 'action:request', payload: request };

  if (client.kind === 'socket.io') {
    const namespace = client.namespace ?? '/';
    const ackId = opts.wantReceipt ? opts.ackId : undefined;
    let frame: string;
    try {
      frame = encodeSocketIOEvent({ namespace, name: 'action:request', args: [request], ...(ackId !== undefined ? { ackId } : {}) });
    } catch (e) {
      return { ok: false, error: `cannot encode: ${(e as Error).message}` };
    }
    // The client's receipt is a Socket.IO ACK with this id: `43/ns,<id>[...]`.
    if (ackId !== undefined && !opts.letThrough) hold.push(`3${namespace === '/' ? '' : `${namespace},`}${ackId}[`);
    if (target.via !== 'websocket') return { ok: false, error: 'a Socket.IO client is injected through its WebSocket' };
    return { ok: true, command: { ...base, frame }, frameId: target.frameId };
  }
  switch (target.via) {
    case 'websocket':
      return { ok: true, command: { ...base, frame: JSON.stringify(event) }, frameId: target.frameId };
    case 'postmessage':
      // Every frame of the tab gets it: the runtime's frame holds the answer back, the client's frame delivers.
      return { ok: true, command: { ...base, message: event } };
    case 'direct':
      return { ok: true, command: { ...base, request, wantReceipt: opts.wantReceipt }, frameId: target.frameId };
  }
}

/** A request id as the spec recommends it (UUID v4). */
export function newRequestId(): string {
  return crypto.randomUUID();
}
