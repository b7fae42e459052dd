/**
 * Delivers a request the panel injected to the page's client, as if its agent
 * runtime had sent it: an inbound WebSocket frame, a message event from the
 * runtime's window, or a call of the direct transport's action handlers. Only
 * the panel reaches here (background → bridge → the hook's private port); no
 * page can.
 */
import type { CaptureBuffer } from './capture-buffer.ts';
import { deliverToSocket, sockets } from './taps/websocket.ts';
import { framePath, windowAt } from './taps/post-message.ts';
import { acknowledgeHeld, directClients } from './taps/direct.ts';
import type { InjectCommand } from '../src/messages.ts';

export function inject(buffer: CaptureBuffer, command: InjectCommand): { ok: true } | { ok: false; error: string } {
  const { target } = command;
  switch (target.via) {
    case 'websocket': {
      if (target.hook !== buffer.hook) return { ok: false, error: 'not this frame' };
      const ws = sockets.get(target.client)?.deref();
      if (!ws || ws.readyState !== WebSocket.OPEN) return { ok: false, error: 'the socket is no longer open' };
      buffer.heldAnswers.hold(command.hold, target.client, command.selfAck === true);
      deliverToSocket(buffer, ws, String(command.frame));
      return { ok: true };
    }
    case 'postmessage': {
      // The answer arrives in the peer's frame, whose hook the panel asks to hold it (HoldCommand).
      if (framePath(window) !== target.clientPath) return { ok: false, error: 'not this frame' };
      const source = windowAt(target.peerPath);
      const origin = target.origin ?? originOf(target.peerPath);
      buffer.injecting(() =>
        window.dispatchEvent(new MessageEvent('message', { data: command.message, origin, source: source as MessageEventSource | null })),
      );
      return { ok: true };
    }
    case 'direct': {
      if (target.hook !== buffer.hook) return { ok: false, error: 'not this frame' };
      if (command.resultAck) {
        // The stand-in's word on a result held for it: to the client's onAcknowledged, as the runtime side would.
        return acknowledgeHeld(target.client, command.resultAck.seq, command.resultAck.value) ? { ok: true } : { ok: false, error: 'no held result of that seq awaits an acknowledgment' };
      }
      const entry = directClients.get(target.client);
      if (!entry || entry.handlers.size === 0) return { ok: false, error: 'the transport has no action handler' };
      buffer.heldAnswers.hold(command.hold, target.client, command.selfAck === true);
      const receipt = () => {};
      buffer.injecting(() => {
        entry.handlers.forEach((handler) => handler(command.request, command.wantReceipt ? receipt : undefined));
      });
      return { ok: true };
    }
  }
  return { ok: false, error: 'unknown target' };
}

/** The origin a frame's messages carry, when its window is this one or an ancestor. */
function originOf(path: string): string {
  if (path === framePath(window)) return location.origin;
  const self = framePath(window).split('/');
  const depth = self.length - path.split('/').length;
  return (depth > 0 && location.ancestorOrigins?.[depth - 1]) || location.origin;
}
