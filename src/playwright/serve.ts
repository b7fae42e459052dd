/**
 * `oui.serve(urlPattern)`: the virtual server (content/virtual/) for the
 * test's context, so an app can be tested before its runtime exists. The
 * page's WebSockets and Engine.IO long-polling requests to matching URLs are
 * answered inside the page: a plain WebSocket just opens, a Socket.IO client
 * gets its handshake, namespace connect, pings and `{ ok: true }`
 * acknowledgments; what the app sends is captured as always, and requests
 * come from `oui.call` (the stand-in runtime) through the same injection path.
 *
 * Every open frame's hook gets `hook:serve` through the bridge's command
 * channel at once. A document that starts later must know the rule before
 * its first script runs, sooner than any command can reach it: an init
 * script (after the hook's, before the page's) writes the rule where the
 * hook reads its rules when it first needs them, the tab's session storage
 * (content/virtual/server.ts `RULES_KEY`). `stop()` removes the init script
 * and turns the rule off in every open frame.
 */
import type { BrowserContext } from '@playwright/test';
import type { CaptureLink, CommandAnswer } from './runtime.ts';

/** content/virtual/server.ts's RULES_KEY (the hook's bundle is not imported here). */
export const SERVE_RULES_KEY = '__oui_devtools_serve';

export interface ServeOptions {
  /** Acknowledge Socket.IO events that ask for it with `{ ok: true }` (default true); false: the test answers them. */
  autoAck?: boolean;
}

export interface Served {
  /** The pattern as given. */
  readonly pattern: string;
  /** Turns serving this pattern off: open frames at once, and no new document gets it. */
  stop(): Promise<void>;
}

let nextId = 0;

export class FixtureServe {
  private readonly active = new Map<string, { dispose(): Promise<void> }>();

  constructor(
    private readonly capture: Pick<CaptureLink, 'broadcast'>,
    private readonly context: BrowserContext,
  ) {}

  async serve(pattern: string, options: ServeOptions = {}): Promise<Served> {
    if (typeof pattern !== 'string' || !pattern.trim()) throw new Error('oui.serve: give a URL pattern: an exact URL (ws://host:port/path) or a glob on host and path (*:5173/socket.io/, /ws-json)');
    const rule = { pattern, autoAck: options.autoAck !== false };
    await this.active.get(pattern)?.dispose();
    const script = await this.context.addInitScript(
      ({ key, rule }: { key: string; rule: { pattern: string; autoAck: boolean } }) => {
        try {
          const list = (JSON.parse(sessionStorage.getItem(key) || '[]') as Array<{ pattern: string }>).filter((r) => r && r.pattern !== rule.pattern);
          list.push(rule);
          sessionStorage.setItem(key, JSON.stringify(list));
        } catch {
          // No session storage (an opaque origin): this document is not served.
        }
      },
      { key: SERVE_RULES_KEY, rule },
    );
    this.active.set(pattern, script);
    const answers = await this.capture.broadcast({ type: 'hook:serve', id: `oui-serve-${++nextId}`, pattern, on: true, autoAck: rule.autoAck });
    refusedBy(answers, 'oui.serve');
    return {
      pattern,
      stop: async () => {
        if (this.active.get(pattern) !== script) return;
        this.active.delete(pattern);
        await script.dispose();
        refusedBy(await this.capture.broadcast({ type: 'hook:serve', id: `oui-serve-${++nextId}`, pattern, on: false }), 'oui.serve stop');
      },
    };
  }

  /** The patterns served now. */
  patterns(): string[] {
    return [...this.active.keys()];
  }
}

function refusedBy(answers: CommandAnswer[], what: string): void {
  const refused = answers.filter((a) => a === 'refused' || (typeof a === 'object' && a.ok === false));
  if (refused.length) throw new Error(`${what}: ${refused.length} frame(s) refused the rule${refused.map((a) => (typeof a === 'object' && !a.ok ? `: ${a.error}` : '')).join('')}`);
}
