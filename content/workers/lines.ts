/**
 * A hook's lines to the hooks of the workers it started (the page hook's, and
 * a worker hook's to the workers its worker starts): one MessageChannel each,
 * whose far port the worker hook takes before any listener of the app's.
 *
 * Up: what a worker hook says (items, state, answers: HookMessages under its
 * own hook id) goes on towards the bridge as it is, through the line above;
 * its word on the workers it started goes to the page's coverage. Down: a
 * subscription goes to every worker (and to each one that starts while it
 * holds), an injection only to the worker whose hook it names. Nothing is
 * kept here: each worker hook keeps its own bounded buffer.
 */
import { isWorkerHook, type Cursors, type WorkerCoverage } from '../../src/capture/captured-items.ts';
import type { HookCommand, HookMessage } from '../../src/messages.ts';
import { isLineMessage } from './protocol.ts';
import { SafeMap, startsWith } from '../primordials.ts';

/** Live lines a hook keeps at most; a worker started beyond them runs without a hook (and is said so). */
export const MAX_LINES = 200;

/** What the bridge line (hook-port.ts) needs of a hook's worker lines. */
export interface Downstream {
  /** Where the workers' messages go: the line above. */
  attach(send: (m: HookMessage) => void): void;
  /** A command from above, passed on; true when it was for a worker's hook alone (an injection), which the caller then leaves. */
  command(m: HookCommand): boolean;
}

export interface LineEvents {
  /** The worker hook took its line: the worker is captured (and its scripts have been read). */
  hello(): void;
}

export interface Lines extends Downstream {
  /** The id of the hook whose lines these are. */
  readonly parent: string;
  /** The id the next worker hook gets. */
  nextHook(): string;
  /** A line for the worker hook `hook`: the port to post it, or undefined when there are too many. */
  open(hook: string, on: LineEvents): OpenLine | undefined;
}

/** The browser's own functions the lines use, taken before any script of the app's runs. */
export interface LineNatives {
  channel(): MessageChannel;
  portPost(port: MessagePort, message: unknown): void;
  listen(target: EventTarget, type: string, fn: (e: Event) => void, capture?: boolean): void;
  start(port: MessagePort): void;
  close(port: MessagePort): void;
  messageData(e: MessageEvent): unknown;
}

export interface OpenLine {
  /** The far end, for the worker hook. */
  port: MessagePort;
  /** The worker it is the line of (held weakly: a line whose worker is gone makes room). */
  own(worker: object): void;
  close(): void;
}

interface Line {
  port: MessagePort;
  hello: boolean;
  /** The worker object, weakly: a line whose worker is gone makes room. */
  worker: WeakRef<object> | undefined;
}

export function createLines(n: LineNatives, parent: string, workerNote: (key: string, w: WorkerCoverage) => void, idOf: (parent: string, k: number) => string): Lines {
  let up: ((m: HookMessage) => void) | null = null;
  /** The subscription that holds, if any: new workers get it when they say hello. */
  let cursors: Cursors | null = null;
  const lines: Map<string, Line> = new SafeMap();
  let count = 0;
  const Ref = typeof WeakRef === 'function' ? WeakRef : undefined;

  const post = (line: Line, m: unknown) => {
    try {
      n.portPost(line.port, m);
    } catch {
      // A line that refuses a command changes nothing in the app.
    }
  };

  function makeRoom(): boolean {
    if (lines.size < MAX_LINES) return true;
    lines.forEach((line, hook) => {
      if (line.worker && line.worker.deref() === undefined) {
        n.close(line.port);
        lines.delete(hook);
      }
    });
    return lines.size < MAX_LINES;
  }

  function fromWorker(line: Line, on: LineEvents, m: unknown): void {
    if (!m || typeof m !== 'object') return;
    if (isLineMessage(m)) {
      if (m.type === 'worker:hello') {
        if (line.hello) return;
        line.hello = true;
        on.hello();
        if (cursors) post(line, { type: 'subscribe', cursors });
      } else if (m.type === 'worker:note') {
        workerNote(m.key, m.worker);
      }
      return;
    }
    // A HookMessage of the worker's hook, or of a worker it started: towards the bridge as it is.
    if (typeof (m as { type?: unknown }).type === 'string') up?.(m as HookMessage);
  }

  return {
    parent,
    attach(send) {
      up = send;
    },
    nextHook() {
      return idOf(parent, ++count);
    },
    open(hook, on) {
      if (!makeRoom()) return undefined;
      const channel = n.channel();
      const line: Line = { port: channel.port1, hello: false, worker: undefined };
      lines.set(hook, line);
      n.listen(channel.port1, 'message', (e) => {
        try {
          fromWorker(line, on, n.messageData(e as MessageEvent));
        } catch {
          // What a worker hook says is never thrown into the app.
        }
      });
      n.start(channel.port1);
      return {
        port: channel.port2,
        own(worker) {
          if (Ref) line.worker = new Ref(worker);
        },
        close() {
          n.close(channel.port1);
          lines.delete(hook);
        },
      };
    },
    command(m) {
      if (m.type === 'subscribe') {
        cursors = m.cursors;
        lines.forEach((line) => {
          if (line.hello) post(line, m);
        });
        return false;
      }
      if (m.type === 'unsubscribe') {
        cursors = null;
        lines.forEach((line) => {
          if (line.hello) post(line, m);
        });
        return false;
      }
      if (m.type === 'hook:inject' && 'hook' in m.target) {
        const target = m.target.hook;
        if (!isWorkerHook(target) || !startsWith(target, `${parent}.`)) return false;
        let to: Line | undefined;
        lines.forEach((line, hook) => {
          if (!to && (target === hook || startsWith(target, `${hook}.`))) to = line;
        });
        if (to) {
          post(to, m);
          return true;
        }
        // One answer for every injection: the worker it names is gone.
        up?.({ type: 'answer', id: m.id, ok: false, error: 'the worker is gone' });
        return true;
      }
      return false;
    },
  };
}
