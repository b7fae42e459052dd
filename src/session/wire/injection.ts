/**
 * Builds what the page hook needs to deliver an injected request to one
 * client, as that client's agent runtime would send it: a Socket.IO EVENT
 * frame (with an ack id when a receipt is wanted), a plain-JSON frame, a
 * postMessage event, or a direct call. Pure: the panel sends the command.
 */
import { pairingKey } from '../../capture/captured-items.ts';
import type { HoldCommand, InjectCommand } from '../../messages.ts';
import type { OUIActionRequest } from '../../protocol/index.ts';
import { encodeSocketIOEvent, stringifyJson } from '../../protocol/index.ts';
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

export type InjectionPlan =
  | {
      ok: true;
      command: InjectCommand;
      frameId?: number;
      /** postMessage: what the peer's frame is asked to hold (the answer arrives there), and which frame that is. */
      hold?: { command: HoldCommand; frameId: number };
    }
  | { ok: false; error: string };

export function whyNotInjectable(client: WireClient): string | null {
  if (client.port) return "a MessagePort conversation: the panel cannot put a request on the page's port as its runtime would";
  const target = client.inject;
  if (target?.via === 'postmessage' && target.frameId === undefined) return "the panel has not yet heard from the client's frame (its hook may not run there)";
  if (target) return null;
  if (client.kind === 'socket.io') return 'this Socket.IO client has not upgraded to WebSocket yet (injection rides the WebSocket)';
  if (client.kind === 'postmessage') return 'the panel has not yet seen which frame of this pairing is the client';
  return 'no open transport to deliver to';
}

export function planInjection(client: WireClient, request: OUIActionRequest, opts: InjectionOptions): InjectionPlan {
  const target = client.inject;
  const why = whyNotInjectable(client);
  if (!target || why) return { ok: false, error: why ?? 'not injectable' };
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
      return { ok: true, command: { ...base, frame: stringifyJson(event)! }, frameId: target.frameId };
    case 'postmessage': {
      // Only the client's frame gets the request; only the peer's frame (where the answer arrives) is told what to hold.
      if (target.frameId === undefined) return { ok: false, error: 'not reachable' };
      const scope = pairingKey(target.clientPath, target.peerPath);
      return {
        ok: true,
        command: { ...base, message: event, hold: [] },
        frameId: target.frameId,
        ...(hold.length && target.peerFrameId !== undefined ? { hold: { command: { type: 'hook:hold', id: opts.id, scope, hold }, frameId: target.peerFrameId } } : {}),
      };
    }
    case 'direct':
      return { ok: true, command: { ...base, request, wantReceipt: opts.wantReceipt }, frameId: target.frameId };
  }
}

/** A request id as the spec recommends it (UUID v4). */
export function newRequestId(): string {
  return crypto.randomUUID();
}
