/**
 * The demo's agent runtime: a real OUI runtime over Socket.IO, namespace
 * `/oui`. It keeps each client apart (§7.3.5), holds the surfaces each one
 * registered or reported, sends `knownSurfaces` when it holds surfaces under
 * the client's last hash and none when it does not (§7.3.4), asks for
 * receipts (§7.3.7), can refuse over-large results (§7.3.6), asks the page
 * for the user's approval (`x-approval:ask`), and can run a scripted tour.
 */
import { randomUUID } from 'node:crypto';
import type { Namespace, Socket } from 'socket.io';
import { argsHashSync } from './independent/args-hash-node.ts';
import { surfacesHash } from './independent/surfaces-hash.ts';
import type { OUIActionApproval, OUIActionRequest, OUIActionResult, OUISurface } from '../../src/protocol/index.ts';

export interface DemoRequest {
  surfaceId: string;
  actionId: string;
  params: unknown;
  requestId?: string;
  approval?: OUIActionApproval;
  /** Ask for a receipt via an acknowledgment function. Default true. */
  receipt?: boolean;
  /** Default: the hash of the surfaces it holds (none when it holds none). `null`: send none. */
  knownSurfaces?: string | null;
  /** Default 30 000 ms (and again after each interim result). */
  timeoutMs?: number;
}

export interface RuntimeEvent {
  t: number;
  clientId: string;
  dir: 'in' | 'out';
  type: string;
  payload: unknown;
}

export interface DemoRuntime {
  /** Socket id of a connected /oui client that registered surfaces (the most recent one). */
  waitForClient(timeoutMs?: number): Promise<string>;
  /** Ids of the connected clients. */
  clients(): string[];
  /** What it holds for that client (from registrations and results). */
  surfaces(clientId: string): OUISurface[];
  /** The hash it would send as `knownSurfaces` now, or null when the client's surfaces are unknown to it. */
  knownHash(clientId: string): string | null;
  /** Latest observation values it holds for that client. */
  observations(clientId: string): Record<string, Record<string, unknown>>;
  request(clientId: string, req: DemoRequest): Promise<OUIActionResult>;
  /** Send the same request again (§7.3.7); resolves with the receipt, or undefined if none came in 5 s. */
  repeat(clientId: string, requestId: string): Promise<unknown>;
  /** Ask an observation's value (`observation:request`); resolves with the next update for it. */
  pull(clientId: string, surfaceId: string, observationId: string, timeoutMs?: number): Promise<unknown>;
  /** Send `x-approval:ask`; resolves when the page grants (rejects when denied or after the timeout, default 60 s). */
  askApproval(clientId: string, surfaceId: string, actionId: string, params: unknown, opts?: { timeoutMs?: number; title?: string }): Promise<OUIActionApproval>;
  /** Refuse results larger than this many bytes (JSON, UTF-8). */
  setResultLimit(bytes: number | null): void;
  /** Whether results are acknowledged at all (default true). Off: answers stay unacknowledged, so repeats after the re-answer interval are answered again. */
  setAckResults(on: boolean): void;
  events: RuntimeEvent[];
  /**
   * The tour: search, add items, navigate to /cart, refuse an over-large result (trimmed re-send),
   * repeat a request, ask approval and place the order, start the async export, back to /.
   * Without a client id: every client that registered surfaces.
   */
  runScenario(name: 'tour', clientId?: string, opts?: TourOptions): Promise<void>;
  /** Run the tour on every client every `intervalMs` (default 20 s). */
  startAutopilot(intervalMs?: number): void;
  dispose(): void;
}

export interface TourOptions {
  /** Pause between steps, so a person can follow. Default 600 ms. */
  stepMs?: number;
  /** How long to wait for the user's approval. Default 15 s. */
  approvalTimeoutMs?: number;
}

interface Pending {
  request: OUIActionRequest;
  resolve: (r: OUIActionResult) => void;
  timer: ReturnType<typeof setTimeout>;
  timeoutMs: number;
}

interface ClientState {
  id: string;
  socket: Socket;
  connectedAt: number;
  registry: Map<string, OUISurface>;
  /** What it holds now: surfaces and their hash; null when unknown (§7.3.4). */
  known: { hash: string; surfaces: OUISurface[] } | null;
  /** Surface sets it has held, by hash (a few). */
  held: Map<string, OUISurface[]>;
  pending: Map<string, Pending>;
  sent: Map<string, OUIActionRequest>;
  observations: Record<string, Record<string, { value: unknown; timestamp: number }>>;
  approvals: Map<string, { resolve: (a: OUIActionApproval) => void; reject: (e: Error) => void; argsHash: string; timer: ReturnType<typeof setTimeout> }>;
  pulls: Array<{ surfaceId: string; observationId: string; resolve: (v: unknown) => void; timer: ReturnType<typeof setTimeout> }>;
  touring: boolean;
  lastTour: number;
  /** A limit for this client only (the tour's), over the global one. */
  limitOverride: number | null;
}

const MAX_EVENTS = 5000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const byId = (a: OUISurface, b: OUISurface) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createDemoRuntime(nsp: Namespace, opts: { log?: boolean } = {}): DemoRuntime {
  const clients = new Map<string, ClientState>();
  const events: RuntimeEvent[] = [];
  const waiters = new Set<() => void>();
  let resultLimit: number | null = null;
  let ackResults = true;
  let autopilot: ReturnType<typeof setInterval> | null = null;
  let disposed = false;
  const log = (...a: unknown[]) => {
    if (opts.log) console.log('[runtime]', ...a);
  };

  const record = (clientId: string, dir: 'in' | 'out', type: string, payload: unknown) => {
    events.push({ t: Date.now(), clientId, dir, type, payload });
    if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
  };

  const wake = () => {
    for (const w of [...waiters]) w();
  };

  const hold = (c: ClientState, hash: string, surfaces: OUISurface[]) => {
    c.known = { hash, surfaces };
    c.held.delete(hash);
    c.held.set(hash, surfaces);
    while (c.held.size > 16) c.held.delete(c.held.keys().next().value as string);
  };

  const fromRegistry = (c: ClientState) => {
    const list = [...c.registry.values()].sort(byId);
    hold(c, surfacesHash(list), list);
  };

  const settle = (c: ClientState, requestId: string, result: OUIActionResult) => {
    const p = c.pending.get(requestId);
    if (!p) return;
    clearTimeout(p.timer);
    c.pending.delete(requestId);
    p.resolve(result);
  };

  const synthetic = (requestId: string, code: string, message: string): OUIActionResult => ({
    requestId,
    success: false,
    error: { code, message },
    timestamp: Date.now(),
  });

  nsp.on('connection', (socket) => {
    const c: ClientState = {
      id: socket.id,
      socket,
      connectedAt: Date.now(),
      registry: new Map(),
      known: null,
      held: new Map(),
      pending: new Map(),
      sent: new Map(),
      observations: {},
      approvals: new Map(),
      pulls: [],
      touring: false,
      lastTour: 0,
      limitOverride: null,
    };
    clients.set(socket.id, c);
    record(c.id, 'in', 'x-connect', { transport: socket.conn.transport.name });
    // The WebSocket's close frame as the server read it (Socket.IO's own disconnect reason is only "transport close").
    const watchClose = (t: unknown) =>
      (t as { socket?: { once?(ev: 'close', fn: (code: number, reason: Buffer) => void): void } }).socket?.once?.('close', (code, reason) => record(c.id, 'in', 'x-ws-close', { code, reason: reason.toString('utf8') }));
    if (socket.conn.transport.name === 'websocket') watchClose(socket.conn.transport);
    socket.conn.once('upgrade', watchClose);
    log(`client ${c.id} connected (${socket.conn.transport.name})`);

    socket.onAny((type: string, ...args: unknown[]) => {
      const last = args[args.length - 1];
      const ack = args.length > 1 && typeof last === 'function' ? (last as (v: unknown) => void) : undefined;
      const payload = args[0];
      record(c.id, 'in', type, payload);
      try {
        onEvent(c, type, payload, ack);
      } catch (e) {
        console.warn('[runtime] event handling failed', type, e);
      }
    });

    socket.on('disconnect', (reason) => {
      record(c.id, 'in', 'x-disconnect', { reason });
      log(`client ${c.id} disconnected (${reason})`);
      // §7.6.1: all its surfaces deregistered, pending requests SURFACE_UNAVAILABLE
      for (const id of [...c.pending.keys()]) settle(c, id, synthetic(id, 'SURFACE_UNAVAILABLE', `client disconnected (${reason})`));
      for (const a of c.approvals.values()) {
        clearTimeout(a.timer);
        a.reject(new Error('client disconnected'));
      }
      c.approvals.clear();
      clients.delete(c.id);
    });
  });

  function onEvent(c: ClientState, type: string, payload: unknown, ack?: (v: unknown) => void): void {
    switch (type) {
      case 'surface:register': {
        if (!isObject(payload) || !isObject(payload.surface) || typeof payload.surface.id !== 'string' || !Array.isArray(payload.surface.actions)) {
          console.warn('[runtime] malformed surface:register ignored');
          return;
        }
        c.registry.set(payload.surface.id, payload.surface as unknown as OUISurface);
        fromRegistry(c);
        wake();
        return;
      }
      case 'surface:deregister': {
        if (!isObject(payload) || typeof payload.surfaceId !== 'string') {
          console.warn('[runtime] malformed surface:deregister ignored');
          return;
        }
        const id = payload.surfaceId;
        c.registry.delete(id);
        delete c.observations[id];
        fromRegistry(c);
        // §7.2: pending requests to that surface resolve SURFACE_UNAVAILABLE
        for (const [rid, p] of [...c.pending]) {
          if (p.request.surfaceId === id) settle(c, rid, synthetic(rid, 'SURFACE_UNAVAILABLE', `surface ${id} was deregistered`));
        }
        return;
      }
      case 'observation:update': {
        if (!isObject(payload) || typeof payload.surfaceId !== 'string' || typeof payload.observationId !== 'string' || typeof payload.timestamp !== 'number') {
          console.warn('[runtime] malformed observation:update ignored');
          return;
        }
        const bucket = (c.observations[payload.surfaceId] ??= {});
        const prev = bucket[payload.observationId];
        // out of order: the latest timestamp wins (§7.4)
        if (!prev || prev.timestamp <= payload.timestamp) bucket[payload.observationId] = { value: payload.value, timestamp: payload.timestamp };
        for (const pl of [...c.pulls]) {
          if (pl.surfaceId === payload.surfaceId && pl.observationId === payload.observationId) {
            clearTimeout(pl.timer);
            c.pulls.splice(c.pulls.indexOf(pl), 1);
            pl.resolve(payload.value);
          }
        }
        return;
      }
      case 'action:result':
        onResult(c, payload, ack);
        return;
      case 'x-approval:granted':
      case 'x-approval:denied': {
        if (!isObject(payload) || typeof payload.approvalId !== 'string') return;
        const a = c.approvals.get(payload.approvalId);
        if (!a) return;
        clearTimeout(a.timer);
        c.approvals.delete(payload.approvalId);
        if (type === 'x-approval:denied') a.reject(new Error(`approval denied: ${String(payload.reason ?? 'the user denied it')}`));
        else if (typeof payload.argsHash === 'string' && payload.argsHash !== a.argsHash) a.reject(new Error(`the page granted a different argsHash (${payload.argsHash}) than asked (${a.argsHash})`));
        else a.resolve({ approvalId: payload.approvalId, argsHash: a.argsHash });
        return;
      }
      default:
        if (!type.startsWith('x-')) console.warn(`[runtime] unexpected event ${type} ignored`);
    }
  }

  function onResult(c: ClientState, payload: unknown, ack?: (v: unknown) => void): void {
    const answer = (v: unknown) => {
      if (!ack) return;
      record(c.id, 'out', 'ack', { requestId: isObject(payload) ? payload.requestId : undefined, ...(v as object) });
      ack(v);
    };
    if (!isObject(payload) || typeof payload.requestId !== 'string' || typeof payload.success !== 'boolean') {
      console.warn('[runtime] malformed action:result ignored');
      answer({ ok: false, error: 'malformed action:result' });
      return;
    }
    const result = payload as unknown as OUIActionResult;
    const limit = c.limitOverride ?? resultLimit;
    if (limit !== null) {
      const size = Buffer.byteLength(JSON.stringify(result), 'utf8');
      if (size > limit) {
        log(`refused result ${result.requestId}: ${size} bytes > ${limit}`);
        answer({ ok: false, error: `result too large: ${size} bytes > ${limit}` });
        return;
      }
    }
    if (ackResults) answer({ ok: true });

    // §7.3.4: what it holds for this client after this result
    if (Array.isArray(result.surfaces)) {
      const hash = typeof result.surfacesHash === 'string' ? result.surfacesHash : surfacesHash(result.surfaces);
      const computed = surfacesHash(result.surfaces);
      if (computed !== hash) console.warn(`[runtime] result ${result.requestId}: surfacesHash ${hash} but the surfaces hash to ${computed}`);
      // the client's report is authoritative for it: it replaces the registry too
      c.registry = new Map(result.surfaces.map((s) => [s.id, s]));
      hold(c, hash, [...result.surfaces].sort(byId));
    } else if (typeof result.surfacesHash === 'string') {
      const same = c.held.get(result.surfacesHash);
      if (same) c.known = { hash: result.surfacesHash, surfaces: same };
      else c.known = null; // unknown: send no knownSurfaces until it has them again
    }
    if (isObject(result.observations)) {
      for (const [sid, vals] of Object.entries(result.observations)) {
        if (!isObject(vals)) continue;
        const bucket = (c.observations[sid] ??= {});
        for (const [oid, value] of Object.entries(vals)) {
          const prev = bucket[oid];
          if (!prev || prev.timestamp <= result.timestamp) bucket[oid] = { value, timestamp: result.timestamp };
        }
      }
    }

    const p = c.pending.get(result.requestId);
    if (!p) {
      log(`late or repeated result ${result.requestId} discarded`);
      record(c.id, 'in', 'x-discarded', { requestId: result.requestId, reason: 'no request pending under this id (late or repeated result)' });
      return;
    }
    if (result.interim === true) {
      clearTimeout(p.timer);
      p.timer = setTimeout(() => settle(c, result.requestId, synthetic(result.requestId, 'TIMEOUT', `no final result in ${p.timeoutMs} ms`)), p.timeoutMs);
      return;
    }
    settle(c, result.requestId, result);
  }

  const client = (clientId: string): ClientState => {
    const c = clients.get(clientId);
    if (!c) throw new Error(`no connected client ${clientId}`);
    return c;
  };

  const emit = (c: ClientState, type: string, payload: unknown, ack?: (v: unknown) => void) => {
    record(c.id, 'out', type, payload);
    if (ack) c.socket.emit(type, payload, ack);
    else c.socket.emit(type, payload);
  };

  const runtime: DemoRuntime = {
    events,

    waitForClient(timeoutMs = 10_000) {
      const pick = () => {
        const ready = [...clients.values()].filter((c) => c.registry.size > 0).sort((a, b) => b.connectedAt - a.connectedAt);
        return ready[0]?.id;
      };
      const now = pick();
      if (now) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no /oui client registered surfaces in ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          const id = pick();
          if (!id) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(id);
        };
        waiters.add(check);
      });
    },

    clients() {
      return [...clients.keys()];
    },

    surfaces(clientId) {
      const c = client(clientId);
      return c.known ? [...c.known.surfaces] : [...c.registry.values()].sort(byId);
    },

    knownHash(clientId) {
      return client(clientId).known?.hash ?? null;
    },

    observations(clientId) {
      const c = client(clientId);
      return Object.fromEntries(Object.entries(c.observations).map(([sid, v]) => [sid, Object.fromEntries(Object.entries(v).map(([oid, x]) => [oid, x.value]))]));
    },

    request(clientId, r) {
      const c = client(clientId);
      const requestId = r.requestId ?? randomUUID();
      const known = r.knownSurfaces === undefined ? c.known?.hash : r.knownSurfaces ?? undefined;
      const request: OUIActionRequest = {
        requestId,
        surfaceId: r.surfaceId,
        actionId: r.actionId,
        params: r.params as Record<string, unknown>,
        timestamp: Date.now(),
        ...(r.approval ? { approval: r.approval } : {}),
        ...(known ? { knownSurfaces: known } : {}),
      };
      c.sent.set(requestId, request);
      if (c.sent.size > 500) c.sent.delete(c.sent.keys().next().value as string);
      const timeoutMs = r.timeoutMs ?? 30_000;
      return new Promise<OUIActionResult>((resolve) => {
        const timer = setTimeout(() => settle(c, requestId, synthetic(requestId, 'TIMEOUT', `no result in ${timeoutMs} ms`)), timeoutMs);
        c.pending.set(requestId, { request, resolve, timer, timeoutMs });
        if (r.receipt === false) emit(c, 'action:request', request);
        else emit(c, 'action:request', request, (receipt) => record(c.id, 'in', 'receipt', { requestId, ...(isObject(receipt) ? receipt : { value: receipt }) }));
      });
    },

    repeat(clientId, requestId) {
      const c = client(clientId);
      const request = c.sent.get(requestId);
      if (!request) return Promise.reject(new Error(`no request ${requestId} was sent to ${clientId}`));
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 5000);
        emit(c, 'action:request', request, (receipt) => {
          clearTimeout(timer);
          record(c.id, 'in', 'receipt', { requestId, repeat: true, ...(isObject(receipt) ? receipt : { value: receipt }) });
          resolve(receipt);
        });
      });
    },

    pull(clientId, surfaceId, observationId, timeoutMs = 5000) {
      const c = client(clientId);
      return new Promise((resolve, reject) => {
        const entry = {
          surfaceId,
          observationId,
          resolve,
          timer: setTimeout(() => {
            c.pulls.splice(c.pulls.indexOf(entry), 1);
            reject(new Error(`no value for ${surfaceId}/${observationId} in ${timeoutMs} ms`));
          }, timeoutMs),
        };
        c.pulls.push(entry);
        emit(c, 'observation:request', { surfaceId, observationId, timestamp: Date.now(), requestId: randomUUID() }, (ack) => {
          if (isObject(ack) && ack.ok === false) {
            clearTimeout(entry.timer);
            c.pulls.splice(c.pulls.indexOf(entry), 1);
            reject(new Error(String(ack.reason ?? 'refused')));
          }
        });
      });
    },

    askApproval(clientId, surfaceId, actionId, params, o = {}) {
      const c = client(clientId);
      const approvalId = randomUUID();
      const hash = argsHashSync(params);
      const title = o.title ?? defaultTitle(c, surfaceId, actionId, params);
      const timeoutMs = o.timeoutMs ?? 60_000;
      return new Promise<OUIActionApproval>((resolve, reject) => {
        const timer = setTimeout(() => {
          c.approvals.delete(approvalId);
          emit(c, 'x-approval:cancel', { approvalId, reason: 'timed out' });
          reject(new Error(`approval ${approvalId} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        c.approvals.set(approvalId, { resolve, reject, argsHash: hash, timer });
        emit(c, 'x-approval:ask', { approvalId, surfaceId, actionId, params, title, argsHash: hash });
      });
    },

    setResultLimit(bytes) {
      resultLimit = bytes;
    },

    setAckResults(on) {
      ackResults = on;
    },

    async runScenario(name, clientId, o = {}) {
      if (name !== 'tour') throw new Error(`unknown scenario ${name}`);
      const ids = clientId ? [clientId] : [...clients.values()].filter((c) => c.registry.size > 0).map((c) => c.id);
      if (ids.length === 0) ids.push(await runtime.waitForClient());
      for (const id of ids) await tour(id, o);
    },

    startAutopilot(intervalMs = 20_000) {
      if (autopilot) return;
      const tick = () => {
        for (const c of clients.values()) {
          if (c.touring || c.registry.size === 0) continue;
          if (Date.now() - c.lastTour < intervalMs - 1000 && c.lastTour !== 0) continue;
          if (c.lastTour === 0 && Date.now() - c.connectedAt < 2500) continue; // let the page settle first
          tour(c.id).catch((e) => log(`tour on ${c.id} failed: ${(e as Error).message}`));
        }
      };
      autopilot = setInterval(tick, 1000);
    },

    dispose() {
      disposed = true;
      if (autopilot) clearInterval(autopilot);
      autopilot = null;
      for (const c of clients.values()) {
        for (const id of [...c.pending.keys()]) settle(c, id, synthetic(id, 'SURFACE_UNAVAILABLE', 'runtime closed'));
        for (const a of c.approvals.values()) {
          clearTimeout(a.timer);
          a.reject(new Error('runtime closed'));
        }
        for (const p of c.pulls) clearTimeout(p.timer);
        c.approvals.clear();
      }
    },
  };

  function defaultTitle(c: ClientState, surfaceId: string, actionId: string, params: unknown): string {
    const action = runtime.surfaces(c.id).find((s) => s.id === surfaceId)?.actions.find((a) => a.id === actionId);
    const base = action?.title ?? `${surfaceId}/${actionId}`;
    if (actionId === 'place_order') {
      const total = (c.observations.checkout?.summary?.value as { total?: number } | undefined)?.total;
      const method = isObject(params) && isObject(params.shipping) ? params.shipping.method : undefined;
      if (typeof total === 'number') return `${base} for $${(total + (method === 'express' ? 12 : 0)).toFixed(2)}`;
    }
    return base;
  }

  /** The tour: a full pass through the protocol, step by step. */
  async function tour(clientId: string, o: TourOptions = {}): Promise<void> {
    const stepMs = o.stepMs ?? 600;
    const c = client(clientId);
    if (c.touring) return;
    c.touring = true;
    c.lastTour = Date.now();
    const step = async (label: string, req: DemoRequest) => {
      const r = await runtime.request(clientId, req);
      log(`tour ${clientId}: ${label} → ${r.success ? 'ok' : `${r.error?.code}: ${r.error?.message}`}${r.delivery ? ` (trimmed: ${r.delivery.omitted.join(', ')})` : ''}`);
      if (disposed || !clients.has(clientId)) throw new Error('client gone');
      await sleep(stepMs);
      return r;
    };
    try {
      await step('navigate /', { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
      await step('search mugs', { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug', category: 'all', sort: 'price_asc' } });
      await step('add travel mug', { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'mug-travel', quantity: 1 } });
      await step('add logo tee', { surfaceId: 'catalog', actionId: 'add_to_cart', params: { productId: 'shirt-logo', quantity: 2, options: { size: 'M', color: 'navy' } } });
      await step('navigate /cart', { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/cart' } });

      // §7.3.6: refuse an over-large answer; the client re-sends it trimmed
      c.limitOverride = 700;
      try {
        await step('navigate /checkout (limit 700 B)', { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' }, knownSurfaces: null });
      } finally {
        c.limitOverride = null;
      }

      // §7.3.7: repeat a request; the client acknowledges it and does not answer again
      const rid = randomUUID();
      const pending = runtime.request(clientId, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/checkout' }, requestId: rid });
      await sleep(50);
      const receipt = await runtime.repeat(clientId, rid);
      log(`tour ${clientId}: repeat receipt ${JSON.stringify(receipt)}`);
      await pending;
      await sleep(stepMs);

      // approval + the transaction
      const orderParams = {
        shipping: { name: 'Ada Lovelace', address: { street: '12 Analytical Row', city: 'London', postcode: 'N1 9GU', country: 'GB' }, method: 'standard' },
        payment: { type: 'card', last4: '4242' },
      };
      try {
        log(`tour ${clientId}: waiting for the user's approval in the page…`);
        const approval = await runtime.askApproval(clientId, 'checkout', 'place_order', orderParams, { timeoutMs: o.approvalTimeoutMs ?? 15_000 });
        await step('place order (approved)', { surfaceId: 'checkout', actionId: 'place_order', params: orderParams, approval });
      } catch (e) {
        log(`tour ${clientId}: no approval (${(e as Error).message}); the order is not placed`);
        await step('place order without approval', { surfaceId: 'checkout', actionId: 'place_order', params: orderParams });
      }

      await step('navigate /orders', { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/orders' } });
      await step('export orders (async job)', { surfaceId: 'orders', actionId: 'export_orders', params: { format: 'csv', range: 'all' } });
      await step('navigate /', { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
    } finally {
      c.touring = false;
      c.lastTour = Date.now();
    }
  }

  return runtime;
}
