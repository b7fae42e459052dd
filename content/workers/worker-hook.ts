/**
 * The worker hook: runs first in a worker the page hook (or another worker
 * hook) started, before the worker's own script, and taps its WebSockets
 * (and Engine.IO long-polling) into a bounded capture buffer of its own, as
 * the page hook does in a page. Bundled on its own (scripts/build.mjs) and
 * carried in the page hook as the source of one function,
 * `function (__ouiWorkerHookFn, __ouiWorkerCfg) { … }`, which a worker's
 * blob: script calls with itself and its config.
 *
 * keeper.ts, imported first, has by then taken the worker's line and given
 * it back its URL; this part captures, answers its parent's commands, and
 * starts the workers this worker starts with a hook of their own. Its
 * messages go up the line under its own hook id, and each parent relays
 * them as they are. It never throws into the worker.
 */
import { line } from './keeper.ts';
import { createCaptureBuffer } from '../capture-buffer.ts';
import { tapWebSocket, deliverToSocket, sockets } from '../taps/websocket.ts';
import { tapPolling } from '../taps/polling.ts';
import { lastSeqs, payloadSizes } from '../chunks.ts';
import { PROTOCOL, readHookCommand, type HookCommand, type HookMessage } from '../../src/messages.ts';
import { workerHookId } from '../../src/capture/captured-items.ts';
import { workerNatives } from './worker-natives.ts';
import { lineNatives } from './line-natives.ts';
import { createLines } from './lines.ts';
import { wrapWorkers } from './wrap.ts';
import type { UpMessage } from './protocol.ts';
import type { Line } from './keeper.ts';

const nativeToString = Function.prototype.toString;
const { apply } = Reflect;

function install(line: Line): void {
  const G = globalThis;
  const { cfg } = line;

  const post = (m: UpMessage): void => {
    try {
      line.post(m);
    } catch {
      // Items that cannot be carried are counted as undelivered, never a silent gap.
      if (m.type !== 'items' || !m.items.length) return;
      try {
        line.post({ type: 'skipped', hook: cfg.hook, through: lastSeqs(m.items), size: payloadSizes(m.items) } satisfies HookMessage);
      } catch {
        // Nothing more can be said on this line.
      }
    }
  };

  let named = false;
  const buffer = createCaptureBuffer({
    ...workerNatives,
    // The buffer's id is the one its parent gave it (see isWorkerHook).
    randomId: () => (named ? workerNatives.randomId() : ((named = true), cfg.hook)),
  });
  // The notes of its workers' workers go up as they are (their keys are unique already).
  const lines = createLines(lineNatives, cfg.hook, (key, worker) => post({ type: 'worker:note', key, worker }), workerHookId);
  lines.attach(post);

  function command(m: HookCommand): void {
    if (lines.command(m)) return;
    if (m.type === 'subscribe') {
      buffer.subscribe(m.cursors, { items: (items, clients) => post({ type: 'items', hook: buffer.hook, items, clients }) });
      // As the page hook says it (hook-port.ts): what this subscriber will never get, by the hook's own count. No frame path: it is no frame.
      const lost = buffer.lostAfter(m.cursors);
      post({ type: 'state', hook: buffer.hook, drops: buffer.drops(), clients: [], v: PROTOCOL, ...(lost ? { lost } : {}) });
    } else if (m.type === 'unsubscribe') {
      buffer.unsubscribe();
    } else if (m.type === 'hook:inject') {
      const t = m.target;
      let outcome: { ok: true } | { ok: false; error: string } = { ok: false, error: 'not this worker' };
      if (t.via === 'websocket' && t.hook === buffer.hook) {
        const ws = sockets.get(t.client)?.deref();
        if (!ws || workerNatives.readyState(ws) !== 1) outcome = { ok: false, error: 'the socket is no longer open' };
        else {
          buffer.heldAnswers.hold(m.hold, t.client);
          deliverToSocket(buffer, ws, String(m.frame));
          outcome = { ok: true };
        }
      }
      post({ type: 'answer', id: m.id, ...outcome });
    }
  }

  const step = (fn: () => void): void => {
    try {
      fn();
    } catch {
      // Each part is best effort: the worker runs without it.
    }
  };
  step(() => tapWebSocket(buffer));
  step(() => tapPolling(buffer));
  step(() => {
    const source = apply(nativeToString, line.self, []) as string;
    const origin = G.origin;
    wrapWorkers({
      lines,
      base: () => cfg.url,
      origin: () => origin,
      // A worker started from a blob: script runs under its creator's CSP (which let it be captured).
      policy: () => cfg.policy,
      hookSource: () => source,
      // Its keys are unique in the page, where the records of every worker's workers meet.
      note: (key, w) => post({ type: 'worker:note', key, worker: w }),
      randomId: workerNatives.randomId,
      listen: lineNatives.listen,
    });
  });
  line.serve((data) => {
    const m = readHookCommand(data);
    if (m) command(m);
  });
}

try {
  if (line) install(line);
} catch {
  // A worker hook that cannot install leaves the worker as its keeper left it: its own URL, uncaptured.
}
