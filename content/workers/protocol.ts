/**
 * What passes between a hook and the hooks of the workers its page starts.
 *
 * A captured worker runs from a blob: script the parent hook writes: the
 * worker hook's source, called with a config, then the worker's own script
 * (`importScripts` for a classic worker, a static `import` for a module
 * worker). The parent posts the worker one MessagePort as its first message;
 * the worker hook takes it before any listener of the app's and speaks on it
 * only: HookMessages up (relayed by each parent as they are, towards the
 * bridge), HookCommands down, and the few line messages below.
 */
import type { HookMessage } from '../../src/messages.ts';
import type { WorkerCoverage } from '../../src/capture/captured-items.ts';
import type { PolicyState } from './policy.ts';

export interface WorkerHookConfig {
  /** The worker hook's id: its parent's id, `.w`, a number (see isWorkerHook). */
  hook: string;
  /** The URL the worker's own script was started from: its `location` and the base of its relative URLs. */
  url: string;
  type: 'classic' | 'module';
  /** Resolve relative URLs against `url` (a worker of an http(s) script; a blob: worker resolves nothing relative). */
  rebase: boolean;
  /** The first message carries it, with the port: the hook takes no other. */
  token: string;
  /** The CSP the worker runs under (its creator's: a blob: worker inherits it), for the workers it starts. */
  policy: PolicyState;
}

/** Key of the first message's data. */
export const LINE_MARK = '__ouiWorkerLine';

/** Worker hook → parent, beside the HookMessages it relays. */
export type LineMessage =
  /** The hook is installed: its worker is captured. */
  | { type: 'worker:hello'; hook: string }
  /** A classic worker's own script has been read (its blob: URL may go now). */
  | { type: 'worker:loaded'; hook: string }
  /** A worker that a worker started: recorded in the page's coverage, and updated under the same key. */
  | { type: 'worker:note'; key: string; worker: WorkerCoverage };

export type UpMessage = HookMessage | LineMessage;

export function isLineMessage(m: unknown): m is LineMessage {
  const t = (m as { type?: unknown } | null)?.type;
  return t === 'worker:hello' || t === 'worker:loaded' || t === 'worker:note';
}
