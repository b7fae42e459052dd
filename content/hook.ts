/**
 * The page hook: runs in the page's own JS world at document_start, before any
 * page script, in every frame. It taps the page's OUI transports and keeps what
 * it saw in a bounded buffer until a panel asks for it.
 *
 * It runs inside every app it taps, so: it never throws into the app, never
 * changes a frame's content, order or timing, never delivers anything to the
 * app's listeners, and does only a copy and a timestamp on the hot path.
 * Decoding happens on the panel side.
 */
import { createCaptureBuffer } from './capture-buffer.ts';
import { tapWebSocket } from './taps/websocket.ts';
import { tapPolling } from './taps/polling.ts';
import { tapPostMessage } from './taps/post-message.ts';
import { tapMessagePorts } from './taps/message-port.ts';
import { installDirectHook } from './taps/direct.ts';
import { connectBridge } from './hook-port.ts';
import { natives } from './natives.ts';
import { inject } from './inject.ts';
import { tapWorkers } from './workers/page.ts';
import { installHookFaults } from './faults.ts';
import { createVirtualServer } from './virtual/server.ts';

function install(): void {
  const buffer = createCaptureBuffer(natives);
  // Before the taps: they read its switch on their hot paths.
  const faults = installHookFaults(buffer);
  // First: its global is the installed marker (below), so a second run in this document changes nothing.
  installDirectHook(buffer);
  // Before the taps: a URL it serves is handed to it before the browser's constructor or request runs.
  const virtual = createVirtualServer(buffer);
  tapWebSocket(buffer, virtual);
  tapPolling(buffer, virtual);
  const onPostMessage = tapPostMessage(buffer);
  const workers = tapWorkers(buffer);
  connectBridge(buffer, (command, reply) => {
    if (command.type === 'hook:hold') {
      buffer.heldAnswers.hold(command.hold, command.scope);
      if (command.ack) reply({ type: 'answer', id: command.id, ok: true });
      return;
    }
    if (command.type === 'hook:serve') {
      reply({ type: 'answer', id: command.id, ...virtual.command(command) });
      return;
    }
    if (command.type === 'hook:faults') {
      faults.set(command.rules, command.seed);
      if (command.id !== undefined) reply({ type: 'answer', id: command.id, ok: true });
      return;
    }
    const outcome = inject(buffer, command);
    reply({ type: 'answer', id: command.id, ...outcome });
  }, workers);
  // After the bridge's line: the hook's own MessageChannel is not the app's.
  const onPorts = tapMessagePorts(buffer);
  // One capturing listener for every tap that reads window messages: each listener is a dispatch the page pays on every message.
  natives.listen(
    window,
    'message',
    onPorts
      ? (e) => {
          onPostMessage(e);
          onPorts(e);
        }
      : onPostMessage,
    true,
  );
}

// Installed once per document. The documented direct-call global is the marker, so the hook adds nothing
// else a page could find on its window (a symbol there would show in Object.getOwnPropertySymbols).
if (!Object.getOwnPropertyDescriptor(window, '__OUI_DEVTOOLS_HOOK__')) {
  try {
    install();
  } catch {
    // A hook that cannot install leaves the app exactly as it was.
  }
}
