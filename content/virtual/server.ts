/**
 * The virtual server: for the URLs the user names (`hook:serve`), the page's
 * WebSocket and Engine.IO long-polling connections are answered here, in the
 * page, and never reach the network. A plain WebSocket is just opened: what
 * the app sends is captured as on any socket, and what it receives is what
 * the panel or the Playwright fixture injects (content/inject.ts, through
 * `sockets` of the WebSocket tap). A Socket.IO connection gets its Engine.IO
 * and Socket.IO housekeeping from engine.ts, so the other end deals in OUI
 * events only.
 *
 * The rules live as long as the tab's session storage for the origin: a page
 * reloaded (or a same-origin page opened in the tab) reads them when its hook
 * installs, before any of its scripts, so its first connection is already
 * served. That is the one thing the virtual server leaves in the page's
 * reach, and only while a rule is on (a page could read it, or write one to
 * serve its own sockets, which it can do without us anyway).
 */
import type { CaptureBuffer } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/captured-items.ts';
import type { ServeCommand } from '../../src/messages.ts';
import { SafeMap, SafeWeakMap, exec, toArray } from '../primordials.ts';
import { getter, uncurry } from '../scope-natives.ts';
import { EngineSession, MAX_SESSIONS, sidOf, type PollAnswer, type WsLink } from './engine.ts';
import { matchesServe, normalizePattern } from './pattern.ts';
import { createVirtualSocket, socketUrl, type SocketEnd, type VirtualSocket } from './socket.ts';
import { answerFetch, answerXhr, isPost } from './http.ts';

export interface ServeRule {
  pattern: string;
  /** Acknowledge Socket.IO events that ask for it with `{ ok: true }` (default); off: the other end answers them. */
  autoAck: boolean;
}

export interface VirtualServer {
  command(c: ServeCommand): { ok: true } | { ok: false; error: string };
  rules(): ServeRule[];
  /** A served socket for `url`, or undefined to let the browser's constructor run. `tap` captures it as a client. */
  socket(url: unknown, protocols: unknown, newTarget: Function, tap: (ws: WebSocket) => CapturedClient | undefined): WebSocket | undefined;
  /** The virtual socket behind `ws`, if it is one. */
  of(ws: unknown): VirtualSocket | undefined;
  /** True once this document has a served socket (set by the server): until then `send`, the hot path, does not ask `of`. */
  serving: boolean;
  /** Whether an Engine.IO long-polling request to `url` is answered here. */
  servesPolling(url: string): boolean;
  xhr(xhr: XMLHttpRequest, url: string, body: unknown): void;
  fetch(url: string, body: unknown): Promise<Response>;
}

/** The session-storage key the rules are kept under. */
export const RULES_KEY = '__oui_devtools_serve';
export const MAX_RULES = 32;

const ENGINE_URL = /[?&]EIO=\d/;
/** The one Engine.IO version served (engine.io-client 4+); an older client is refused as a v4-only server refuses it. */
const ENGINE_V4 = /[?&]EIO=4(?:&|#|$)/;
const UNSUPPORTED = '{"code":5,"message":"Unsupported protocol version"}';
const stringify = JSON.stringify;
const parse = JSON.parse;
const isArray = Array.isArray;
const clearTimeoutNative = typeof clearTimeout === 'function' ? clearTimeout.bind(globalThis) : () => {};
const storageOf = typeof window === 'object' ? uncurry(getter(window, 'sessionStorage') as (this: never) => Storage) : undefined;
const StorageProto = typeof Storage === 'function' ? Storage.prototype : undefined;
const getItem = StorageProto?.getItem;
const setItem = StorageProto?.setItem;
const removeItem = StorageProto?.removeItem;
const { apply } = Reflect;

function storage(): Storage | undefined {
  try {
    return storageOf ? storageOf(window) : undefined;
  } catch {
    // An opaque origin (a sandboxed frame) has none.
    return undefined;
  }
}

function loadRules(): ServeRule[] {
  const s = storage();
  if (!s || !getItem) return [];
  try {
    const text = apply(getItem, s, [RULES_KEY]) as string | null;
    if (!text) return [];
    const v = parse(text) as unknown;
    const out: ServeRule[] = [];
    if (isArray(v)) {
      for (let i = 0; i < v.length && out.length < MAX_RULES; i++) {
        const r = v[i] as { pattern?: unknown; autoAck?: unknown } | null;
        if (r && typeof r.pattern === 'string' && r.pattern) out[out.length] = { pattern: r.pattern, autoAck: r.autoAck !== false };
      }
    }
    return out;
  } catch {
    return [];
  }
}

function saveRules(rules: ServeRule[]): void {
  const s = storage();
  if (!s) return;
  try {
    if (rules.length === 0) {
      if (removeItem) apply(removeItem, s, [RULES_KEY]);
    } else if (setItem) apply(setItem, s, [RULES_KEY, stringify(rules)]);
  } catch {
    // Full or refused: the rules still hold for this document.
  }
}

export function createVirtualServer(buffer: CaptureBuffer): VirtualServer {
  const { natives } = buffer;
  // Read when first needed, not at install: the Playwright fixture's init script (src/playwright/serve.ts) writes them after the hook installed, before any page script.
  let loaded = false;
  let rules: ServeRule[] = [];
  const current = (): ServeRule[] => {
    if (!loaded) {
      loaded = true;
      rules = loadRules();
    }
    return rules;
  };
  const virtual: WeakMap<object, VirtualSocket> = new SafeWeakMap();
  const sessions: Map<string, EngineSession> = new SafeMap();
  const env = {
    setTimeout: (fn: () => void, ms: number) => natives.setTimeout(fn, ms),
    clearTimeout: (h: unknown) => clearTimeoutNative(h as number),
    randomId: () => natives.randomId(),
  };

  function ruleFor(url: string): ServeRule | undefined {
    const rules = current();
    for (let i = 0; i < rules.length; i++) if (matchesServe(rules[i]!.pattern, url)) return rules[i];
    return undefined;
  }

  function newSession(rule: ServeRule, ws?: WsLink): EngineSession | undefined {
    if (sessions.size >= MAX_SESSIONS) return undefined;
    const s = new EngineSession(env, { autoAck: () => rule.autoAck, ended: (x) => sessions.delete(x.sid) }, ws);
    sessions.set(s.sid, s);
    return s;
  }

  /**
   * The server's side of a socket: its frames to the app go on a later task,
   * in order, never inside the app's own `send` (a socket never answers
   * synchronously).
   */
  function linkOf(v: VirtualSocket): WsLink {
    let queue: string[] = [];
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const q = queue;
      queue = [];
      for (let i = 0; i < q.length; i++) v.deliver(q[i]!);
    };
    return {
      send(text) {
        queue[queue.length] = text;
        if (!scheduled) {
          scheduled = true;
          natives.setTimeout(flush, 0);
        }
      },
      close(code, reason) {
        natives.setTimeout(() => v.serverClose(code, reason), 0);
      },
    };
  }

  function engineEnd(v: VirtualSocket, rule: ServeRule): SocketEnd {
    const link = linkOf(v);
    let session: EngineSession | undefined;
    return {
      opened() {
        if (!exec(ENGINE_V4, v.url)) {
          link.close(1002, 'Unsupported protocol version');
          return;
        }
        const sid = sidOf(v.url);
        if (sid === undefined) {
          session = newSession(rule, link);
          if (!session) link.close(1011, 'too many sessions');
          return;
        }
        session = sessions.get(sid);
        // An unknown session: a real server refuses the upgrade, which the client sees as a failed socket.
        if (!session) link.close(1002, 'Session ID unknown');
        else session.attach(link);
      },
      message(data) {
        if (typeof data === 'string') session?.wsMessage(link, data);
      },
      closed() {
        session?.wsClosed(link);
      },
    };
  }

  const plainEnd: SocketEnd = { opened() {}, message() {}, closed() {} };

  function pollAnswer(url: string, body: unknown, respond: (a: PollAnswer) => void): void {
    if (!exec(ENGINE_V4, url)) {
      respond({ status: 400, body: UNSUPPORTED });
      return;
    }
    const rule = ruleFor(url);
    const sid = sidOf(url);
    if (sid === undefined) {
      const s = rule && !isPost(body) ? newSession(rule) : undefined;
      respond(s ? { status: 200, body: s.handshake() } : { status: 400, body: '{"code":3,"message":"Bad request"}' });
      return;
    }
    const s = sessions.get(sid);
    if (!s) {
      respond({ status: 400, body: '{"code":1,"message":"Session ID unknown"}' });
      return;
    }
    if (isPost(body)) respond(s.post(typeof body === 'string' ? body : ''));
    else s.get(respond);
  }

  const server: VirtualServer = {
    serving: false,
    command(c) {
      const pattern = normalizePattern(c.pattern);
      if (!pattern && c.on) return { ok: false, error: 'an empty URL pattern' };
      const before = current();
      const kept: ServeRule[] = [];
      // An empty pattern turned off: every rule off (the last panel of the tab closed).
      if (pattern) for (let i = 0; i < before.length; i++) if (normalizePattern(before[i]!.pattern) !== pattern) kept[kept.length] = before[i]!;
      if (c.on) {
        if (kept.length >= MAX_RULES) return { ok: false, error: `at most ${MAX_RULES} URL patterns are served at once` };
        kept[kept.length] = { pattern: c.pattern, autoAck: c.autoAck !== false };
      }
      rules = kept;
      saveRules(rules);
      return { ok: true };
    },
    rules: () => toArray(current()),
    socket(url, protocols, newTarget, tap) {
      if (current().length === 0) return undefined;
      const abs = socketUrl(url, location.href);
      if (!abs) return undefined;
      const rule = ruleFor(abs);
      if (!rule) return undefined;
      const engine = exec(ENGINE_URL, abs) !== null;
      const v = createVirtualSocket(
        { setTimeout: (fn, ms) => natives.setTimeout(fn, ms), dispatching: (fn) => buffer.injecting(fn) },
        abs,
        protocols,
        newTarget,
        (vs) => {
          virtual.set(vs.ws, vs);
          server.serving = true;
          try {
            const client = tap(vs.ws);
            if (client) client.served = true;
          } catch {
            // Served even if it cannot be captured.
          }
          return engine ? engineEnd(vs, rule) : plainEnd;
        },
      );
      return v.ws;
    },
    of: (ws) => (typeof ws === 'object' && ws !== null ? virtual.get(ws) : undefined),
    servesPolling: (url) => current().length > 0 && ruleFor(url) !== undefined,
    xhr(xhr, url, body) {
      try {
        answerXhr(natives.setTimeout, xhr, url, (respond) => pollAnswer(url, body, respond));
      } catch {
        // Unanswered: the client's own timeout says so, as for a server that went quiet.
      }
    },
    fetch(url, body) {
      return answerFetch((respond) => pollAnswer(url, body, respond));
    },
  };
  return server;
}
