/**
 * The hook's private line to the isolated-world bridge: a MessageChannel whose
 * port is handed over once, at document_start, before any page script runs.
 * The bridge takes the first such port and stops the message there, so no page
 * listener ever sees it and no page can speak on this line later.
 */
import { HOOK_PORT_MARKER, PROTOCOL, readHookCommand, type HookMessage, type InjectCommand, type HoldCommand, type FaultsCommand, type ServeCommand } from '../src/messages.ts';
import type { CaptureBuffer } from './capture-buffer.ts';
import type { CapturedClient, CapturedItem } from '../src/capture/captured-items.ts';
import { lastSeqs, payloadSizes } from './chunks.ts';
import { framePath } from './taps/post-message.ts';
import { frameReport } from './coverage.ts';
import type { Downstream } from './workers/lines.ts';

/** While items still wait for their payload (a Blob being read), a flush tries again this often, this many times (about a second) before it answers with what is still waiting. */
const FLUSH_RETRY_MS = 16;
const FLUSH_TRIES = 64;

export type CommandHandler = (command: InjectCommand | HoldCommand | FaultsCommand | ServeCommand, reply: (m: HookMessage) => void) => void;

/** `workers`: the lines to the hooks of the page's workers, whose messages go out on this line and which get its subscriptions and their injections. */
export function connectBridge(buffer: CaptureBuffer, onCommand?: CommandHandler, workers?: Downstream): void {
  const { natives } = buffer;
  const channel = new MessageChannel();
  const port = channel.port1;
  const send = (m: HookMessage) => {
    try {
      natives.portPost(port, m);
    } catch {
      // Runs in the page's timers: a message that cannot be cloned must not throw into the app.
      // Its items are counted as undelivered instead of leaving a silent gap.
      if (m.type !== 'items' || !m.items.length) return;
      try {
        natives.portPost(port, { type: 'skipped', hook: buffer.hook, through: lastSeqs(m.items), size: payloadSizes(m.items) } satisfies HookMessage);
      } catch {
        // Nothing more can be said on a port that refuses a few numbers.
      }
    }
  };

  /**
   * `hook:flush`: everything captured so far goes now, then the marker, on the
   * same port and so after it. Always answers (a marker that says what still
   * waits rather than none), and never throws into the page: it runs in its timers.
   */
  const flushThenMark = (id: string, tries: number): void => {
    let waiting = 0;
    try {
      waiting = buffer.flushNow();
    } catch {
      waiting = 0;
    }
    if (waiting > 0 && tries < FLUSH_TRIES) {
      natives.setTimeout(() => flushThenMark(id, tries + 1), FLUSH_RETRY_MS);
      return;
    }
    let through: Record<string, number> = {};
    try {
      through = buffer.lastSeqs();
    } catch {
      // Said as nothing numbered rather than no marker at all.
    }
    send({ type: 'flushed', hook: buffer.hook, id, through, waiting });
  };

  workers?.attach(send);
  port.onmessage = (e: MessageEvent) => {
    try {
      // Through the browser's own getter: a page that redefined MessageEvent.prototype.data must not read a command.
      const m = readHookCommand(natives.messageData(e));
      if (!m) return;
      if (workers?.command(m)) return;
      if (m.type === 'subscribe') {
        const items = (items: CapturedItem[], clients: CapturedClient[]) => send({ type: 'items', hook: buffer.hook, items, clients });
        buffer.subscribe(
          m.cursors,
          m.json
            ? {
                items,
                json: (json, clients, through, size) => {
                  try {
                    natives.portPost(port, { type: 'items:json', hook: buffer.hook, json, clients } satisfies HookMessage);
                  } catch {
                    // As `send`: what could not go is counted, never a silent gap.
                    send({ type: 'skipped', hook: buffer.hook, through, size });
                  }
                },
              }
            : { items },
        );
        // What this subscriber will never get, by the hook's own count: the panel says it, also of a client none of whose items is left.
        const lost = buffer.lostAfter(m.cursors);
        send({ type: 'state', hook: buffer.hook, drops: buffer.drops(), clients: [], path: framePath(window), v: PROTOCOL, ...(lost ? { lost } : {}) });
      } else if (m.type === 'unsubscribe') {
        buffer.unsubscribe();
      } else if (m.type === 'hook:flush') {
        flushThenMark(m.id, 0);
      } else if (m.type === 'hook:coverage') {
        send({ type: 'coverage', hook: buffer.hook, report: frameReport(framePath(window)) });
      } else if (onCommand) {
        onCommand(m, send);
      }
    } catch {
      // A command we cannot follow changes nothing in the page.
    }
  };
  // Live items wait for the page's idle time (outbox.ts): a page that goes away sends what still waits first.
  natives.listen(
    window,
    'pagehide',
    () => {
      try {
        buffer.flushNow();
      } catch {
        // Never into the app.
      }
    },
    true,
  );
  natives.postMessage({ [HOOK_PORT_MARKER]: buffer.hook }, '*', [channel.port2]);
}
