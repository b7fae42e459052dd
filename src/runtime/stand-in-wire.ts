/**
 * What the stand-in's outputs are on each transport: the hook commands that
 * deliver them (src/messages.ts), as the client's runtime would send them.
 * Requests go through `planInjection` (the panel's Inject: a Socket.IO EVENT
 * with an ack id for the receipt, plain JSON, a postMessage from the peer, a
 * direct call), with the client's answers held from the app's real runtime.
 * A result's acknowledgment exists only where the transport carries one, and
 * there the stand-in gives it, accepting or refusing (its requests ask the
 * hook to leave that to it, `selfAck`): on Socket.IO the ACK of the client's
 * emit; on a direct transport the client's `onAcknowledged` callback of
 * `sendResult` (the transport interface's, §7.3.6), which the hook keeps for
 * it. Plain WebSocket and postMessage carry none.
 */
import type { HoldCommand, InjectCommand } from '../messages.ts';
import { encodeSocketIOAck, encodeSocketIOEvent, stringifyJson } from '../protocol/index.ts';
import { pairingKey } from '../capture/captured-items.ts';
import { INJECT_ACK_BASE, planInjection, whyNotInjectable } from '../session/wire/injection.ts';
import type { WireClient } from '../session/wire/wire.ts';
import { parseEventId } from '../capture/contract.ts';
import { socketIOAckId, type ResultAck, type StandInOutput } from './stand-in.ts';
import { takeoverRule, type FaultRule } from './faults.ts';

/**
 * What a fault rule names a client by: its tap connection (`hook/client`, as
 * its injection target names it), or a postMessage pairing key.
 */
export function faultClientOf(client: WireClient): string | null {
  const t = client.inject;
  if (!t) return null;
  return t.via === 'postmessage' ? pairingKey(t.clientPath, t.peerPath) : `${t.hook}/${t.client}`;
}

/**
 * Takeover of a live connection: the rule that drops every OUI event and
 * acknowledgment the app's real runtime sends to this client (the hook never
 * faults what the panel or the fixture injects, so the stand-in's pass), or
 * why there is none. With it on, the stand-in is the client's only runtime.
 */
export function takeoverOf(client: WireClient): { ok: true; rule: FaultRule } | { ok: false; error: string } {
  const why = whyNotInjectable(client);
  const key = faultClientOf(client);
  if (why || !key) return { ok: false, error: why ?? 'no open transport to take over' };
  return { ok: true, rule: takeoverRule(key) };
}

/** One command for one frame's hook (frameId as the driver numbers frames). */
export interface AddressedHookCommand {
  command: InjectCommand | HoldCommand;
  frameId: number;
}

export type WirePlan = { ok: true; commands: AddressedHookCommand[]; note?: string } | { ok: false; error: string };

/** Fresh ids for the hook's commands and Socket.IO receipts. */
export class WireIds {
  private n = 0;
  private ack = 0;
  constructor(private readonly prefix: string) {}
  id(): string {
    return `${this.prefix}-${++this.n}`;
  }
  /** A Socket.IO ack id far above what a real client counts to, and above the panel's injector's. */
  ackId(): number {
    return INJECT_ACK_BASE + 50_000_000 + ++this.ack;
  }
}

/** The commands that put `out` on `client`'s transport; `done` outputs carry nothing. */
export function planOutput(client: WireClient, out: StandInOutput, ids: WireIds): WirePlan {
  switch (out.kind) {
    case 'done':
      return { ok: true, commands: [] };
    case 'request': {
      const wantReceipt = client.kind === 'socket.io' || client.kind === 'direct';
      const plan = planInjection(client, out.request, { id: ids.id(), wantReceipt, letThrough: false, ackId: ids.ackId() });
      if (!plan.ok) return plan;
      // On Socket.IO and direct the stand-in acknowledges the client's results itself (and may refuse one, §7.3.6): the hook leaves them to it.
      const command = client.kind === 'socket.io' || client.kind === 'direct' ? { ...plan.command, selfAck: true as const } : plan.command;
      const commands: AddressedHookCommand[] = [{ command, frameId: plan.frameId ?? client.frameId }];
      // The hold has an id of its own: a host that waits for the hook's answer to it (the panel) tells the two answers apart.
      if (plan.hold) commands.unshift({ command: { ...plan.hold.command, id: ids.id() }, frameId: plan.hold.frameId });
      return { ok: true, commands };
    }
    case 'ack': {
      if (client.kind === 'socket.io') return planSocketIOAck(client, out, ids);
      if (client.kind === 'direct') return planDirectAck(client, out, ids);
      return { ok: true, commands: [], note: `a ${client.kind} transport carries no acknowledgment of a result` };
    }
    case 'event':
      return planEvent(client, out.type, out.payload, ids);
  }
}

/** A Socket.IO ACK of the client's result event, refusing or accepting it (for a hook that leaves acceptance to the stand-in). */
export function planSocketIOAck(client: WireClient, out: Extract<StandInOutput, { kind: 'ack' }>, ids: WireIds): WirePlan {
  const ackId = socketIOAckId(out.of.raw);
  const why = whyNotInjectable(client);
  if (ackId === undefined) return { ok: false, error: 'the result carries no Socket.IO ack id' };
  if (why || client.inject?.via !== 'websocket') return { ok: false, error: why ?? 'not reachable' };
  const frame = encodeSocketIOAck({ namespace: client.namespace ?? '/', ackId, args: [out.value] });
  return { ok: true, commands: [{ command: { type: 'hook:inject', id: ids.id(), target: client.inject, frame, hold: [] }, frameId: client.inject.frameId }] };
}

/**
 * The value a direct transport's `onAcknowledged` gets. The transport interface types a refusal `{ ok: false, reason }`
 * (OUIAcknowledgment), while §7.3.6 words it `{ ok: false, error }` for Socket.IO: a refusal carries both, so a client
 * reading either finds why.
 */
export function directAckValue(v: ResultAck): { ok: true } | { ok: false; reason: string; error: string } {
  return v.ok ? { ok: true } : { ok: false, reason: v.error, error: v.error };
}

/** The acknowledgment of a direct client's held result, accepting or refusing it: to its `onAcknowledged`, through the hook. */
export function planDirectAck(client: WireClient, out: Extract<StandInOutput, { kind: 'ack' }>, ids: WireIds): WirePlan {
  const target = client.inject;
  const why = whyNotInjectable(client);
  if (why || target?.via !== 'direct') return { ok: false, error: why ?? 'not reachable' };
  const at = parseEventId(out.of.id);
  const seq = at && /^\d+$/.test(at.seq) ? Number(at.seq) : undefined;
  if (seq === undefined || seq < 1) return { ok: false, error: 'the result is not one the hook captured (no seq)' };
  return { ok: true, commands: [{ command: { type: 'hook:inject', id: ids.id(), target, hold: [], resultAck: { seq, value: directAckValue(out.value) } }, frameId: target.frameId }] };
}

/** An event of any type to the client, as its runtime would send it; answers naming `holdMarker` kept from the real runtime. */
export function planEvent(client: WireClient, type: string, payload: unknown, ids: WireIds): WirePlan {
  const why = whyNotInjectable(client);
  const target = client.inject;
  if (why || !target) return { ok: false, error: why ?? 'not reachable' };
  const marker = payload !== null && typeof payload === 'object' && typeof (payload as { approvalId?: unknown }).approvalId === 'string' ? (payload as { approvalId: string }).approvalId : undefined;
  const hold = marker ? [marker] : [];
  const id = ids.id();
  if (client.kind === 'socket.io') {
    if (target.via !== 'websocket') return { ok: false, error: 'a Socket.IO client is reached through its WebSocket' };
    const frame = encodeSocketIOEvent({ namespace: client.namespace ?? '/', name: type, args: [payload] });
    return { ok: true, commands: [{ command: { type: 'hook:inject', id, target, frame, hold }, frameId: target.frameId }] };
  }
  switch (target.via) {
    case 'websocket':
      return { ok: true, commands: [{ command: { type: 'hook:inject', id, target, frame: stringifyJson({ type, payload })!, hold }, frameId: target.frameId }] };
    case 'postmessage': {
      if (target.frameId === undefined) return { ok: false, error: 'not reachable' };
      const commands: AddressedHookCommand[] = [{ command: { type: 'hook:inject', id, target, message: { type, payload }, hold: [] }, frameId: target.frameId }];
      if (hold.length && target.peerFrameId !== undefined) commands.unshift({ command: { type: 'hook:hold', id: ids.id(), scope: pairingKey(target.clientPath, target.peerPath), hold }, frameId: target.peerFrameId });
      return { ok: true, commands };
    }
    case 'direct':
      return { ok: false, error: `a direct transport takes only action requests from outside; ${type} cannot be sent` };
  }
}
