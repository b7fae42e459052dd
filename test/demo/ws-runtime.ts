/**
 * The server side of `/ws-json`: a tiny OUI runtime over plain WebSocket
 * text frames `{type, payload}`. No acknowledgments exist on this wire.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket, WebSocketServer } from 'ws';
import { surfacesHash } from './independent/surfaces-hash.ts';
import type { OUIActionResult, OUISurface } from '../../src/protocol/index.ts';

export interface WsJsonRuntime {
  waitForClient(timeoutMs?: number): Promise<string>;
  clients(): string[];
  surfaces(clientId: string): OUISurface[];
  observations(clientId: string): Record<string, Record<string, unknown>>;
  request(clientId: string, req: { surfaceId: string; actionId: string; params: unknown; requestId?: string; knownSurfaces?: string | null; timeoutMs?: number }): Promise<OUIActionResult>;
  /** Send an extension event (e.g. `x-notifications:push`). */
  send(clientId: string, type: string, payload: unknown): void;
  events: Array<{ t: number; clientId: string; dir: 'in' | 'out'; type: string; payload: unknown }>;
  dispose(): void;
}

interface Conn {
  id: string;
  ws: WebSocket;
  at: number;
  registry: Map<string, OUISurface>;
  held: { hash: string; surfaces: OUISurface[] } | null;
  observations: Record<string, Record<string, { value: unknown; timestamp: number }>>;
  pending: Map<string, { resolve: (r: OUIActionResult) => void; timer: ReturnType<typeof setTimeout>; surfaceId: string }>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function createWsJsonRuntime(wss: WebSocketServer, opts: { log?: boolean } = {}): WsJsonRuntime {
  const conns = new Map<string, Conn>();
  const events: WsJsonRuntime['events'] = [];
  const waiters = new Set<() => void>();
  let seq = 0;

  const rec = (clientId: string, dir: 'in' | 'out', type: string, payload: unknown) => {
    events.push({ t: Date.now(), clientId, dir, type, payload });
    if (events.length > 2000) events.splice(0, events.length - 2000);
  };
  const fail = (requestId: string, code: string, message: string): OUIActionResult => ({ requestId, success: false, error: { code, message }, timestamp: Date.now() });
  const send = (c: Conn, type: string, payload: unknown) => {
    rec(c.id, 'out', type, payload);
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify({ type, payload }));
  };
  const rehash = (c: Conn) => {
    const list = [...c.registry.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    c.held = { hash: surfacesHash(list), surfaces: list };
  };

  wss.on('connection', (ws) => {
    const c: Conn = { id: `ws-${++seq}`, ws, at: Date.now(), registry: new Map(), held: null, observations: {}, pending: new Map() };
    conns.set(c.id, c);
    rec(c.id, 'in', 'x-connect', {});
    if (opts.log) console.log(`[ws-json] client ${c.id} connected`);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return console.warn('[ws-json] binary frame ignored');
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return console.warn('[ws-json] malformed frame ignored');
      }
      if (!isObject(msg) || typeof msg.type !== 'string') return console.warn('[ws-json] frame without type ignored');
      const p = msg.payload;
      rec(c.id, 'in', msg.type, p);
      switch (msg.type) {
        case 'surface:register':
          if (isObject(p) && isObject(p.surface) && typeof p.surface.id === 'string') {
            c.registry.set(p.surface.id, p.surface as unknown as OUISurface);
            rehash(c);
            for (const w of [...waiters]) w();
          }
          break;
        case 'surface:deregister':
          if (isObject(p) && typeof p.surfaceId === 'string') {
            c.registry.delete(p.surfaceId);
            delete c.observations[p.surfaceId];
            rehash(c);
            for (const [rid, pend] of [...c.pending]) {
              if (pend.surfaceId !== p.surfaceId) continue;
              clearTimeout(pend.timer);
              c.pending.delete(rid);
              pend.resolve(fail(rid, 'SURFACE_UNAVAILABLE', `surface ${p.surfaceId} was deregistered`));
            }
          }
          break;
        case 'observation:update':
          if (isObject(p) && typeof p.surfaceId === 'string' && typeof p.observationId === 'string' && typeof p.timestamp === 'number') {
            const b = (c.observations[p.surfaceId] ??= {});
            const prev = b[p.observationId];
            if (!prev || prev.timestamp <= p.timestamp) b[p.observationId] = { value: p.value, timestamp: p.timestamp };
          }
          break;
        case 'action:result': {
          if (!isObject(p) || typeof p.requestId !== 'string') break;
          const r = p as unknown as OUIActionResult;
          if (Array.isArray(r.surfaces) && typeof r.surfacesHash === 'string') c.held = { hash: r.surfacesHash, surfaces: r.surfaces };
          else if (typeof r.surfacesHash === 'string' && c.held?.hash !== r.surfacesHash) c.held = null;
          const pend = c.pending.get(r.requestId);
          if (!pend || r.interim) break;
          clearTimeout(pend.timer);
          c.pending.delete(r.requestId);
          pend.resolve(r);
          break;
        }
        default:
          if (!msg.type.startsWith('x-')) console.warn(`[ws-json] unexpected ${msg.type} ignored`);
      }
    });
    ws.on('close', (code, reason) => {
      // What the close frame said, as the server read it: the witness for a fault rule's close code and reason.
      rec(c.id, 'in', 'x-disconnect', { code, reason: reason.toString('utf8') });
      conns.delete(c.id);
      for (const [rid, pend] of c.pending) {
        clearTimeout(pend.timer);
        pend.resolve(fail(rid, 'SURFACE_UNAVAILABLE', 'client disconnected'));
      }
    });
    ws.on('error', () => {});
  });

  const conn = (id: string) => {
    const c = conns.get(id);
    if (!c) throw new Error(`no ws-json client ${id}`);
    return c;
  };

  return {
    events,
    waitForClient(timeoutMs = 10_000) {
      const pick = () => [...conns.values()].filter((c) => c.registry.size > 0).sort((a, b) => b.at - a.at)[0]?.id;
      const id = pick();
      if (id) return Promise.resolve(id);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ws-json client registered in ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          const got = pick();
          if (!got) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(got);
        };
        waiters.add(check);
      });
    },
    clients: () => [...conns.keys()],
    surfaces: (id) => conn(id).held?.surfaces ?? [...conn(id).registry.values()],
    observations: (id) =>
      Object.fromEntries(Object.entries(conn(id).observations).map(([s, v]) => [s, Object.fromEntries(Object.entries(v).map(([o, x]) => [o, x.value]))])),
    request(id, r) {
      const c = conn(id);
      const requestId = r.requestId ?? randomUUID();
      const known = r.knownSurfaces === undefined ? c.held?.hash : r.knownSurfaces ?? undefined;
      const timeoutMs = r.timeoutMs ?? 30_000;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          c.pending.delete(requestId);
          resolve(fail(requestId, 'TIMEOUT', `no result in ${timeoutMs} ms`));
        }, timeoutMs);
        c.pending.set(requestId, { resolve, timer, surfaceId: r.surfaceId });
        send(c, 'action:request', {
          requestId,
          surfaceId: r.surfaceId,
          actionId: r.actionId,
          params: r.params,
          timestamp: Date.now(),
          ...(known ? { knownSurfaces: known } : {}),
        });
      });
    },
    send(id, type, payload) {
      send(conn(id), type, payload);
    },
    dispose() {
      for (const c of conns.values()) {
        for (const [rid, pend] of c.pending) {
          clearTimeout(pend.timer);
          pend.resolve(fail(rid, 'SURFACE_UNAVAILABLE', 'runtime closed'));
        }
      }
    },
  };
}
