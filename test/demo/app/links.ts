/**
 * Transports for the demo's OUI clients, each mapped onto the client's
 * `ClientLink`:
 * - `socketIoLink`: Socket.IO (event name = type, first argument = payload,
 *   a last function argument = the acknowledgment);
 * - `wsJsonLink`: a plain WebSocket carrying `{type, payload}` JSON text frames;
 * - `postMessageChildLink` / `PostMessageHost`: an iframe client and its host
 *   page, with `event.origin` and `event.source` checked and a specific
 *   targetOrigin (never '*');
 * - `createDirectTransport` + `directLink`: the in-process direct-call
 *   transport (spec's OUITransport shape) that the app hands to
 *   `window.__OUI_DEVTOOLS_HOOK__`.
 */
import { surfacesHash } from '../independent/surfaces-hash.ts';
import type { OUIActionRequest, OUIActionResult, OUIObservationUpdate, OUISurface } from '../../../src/protocol/index.ts';
import type { ClientLink } from './oui-client.ts';

type Handler = (type: string, payload: unknown, ack?: (v: unknown) => void) => void;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ------------------------------------------------------------------ Socket.IO

/** The part of a socket.io-client Socket the link uses. */
export interface IoSocketLike {
  readonly connected: boolean;
  emit(event: string, ...args: unknown[]): unknown;
  on(event: string, fn: (...args: any[]) => void): unknown;
  off(event: string, fn: (...args: any[]) => void): unknown;
  onAny(fn: (event: string, ...args: any[]) => void): unknown;
  offAny(fn: (event: string, ...args: any[]) => void): unknown;
}

export function socketIoLink(socket: IoSocketLike): ClientLink {
  return {
    get connected() {
      return socket.connected;
    },
    send(type, payload, onAck) {
      if (onAck) socket.emit(type, payload, onAck);
      else socket.emit(type, payload);
    },
    onMessage(handler) {
      const fn = (event: string, ...args: unknown[]) => {
        const last = args[args.length - 1];
        const ack = args.length > 1 && typeof last === 'function' ? (last as (v: unknown) => void) : undefined;
        handler(event, args[0], ack);
      };
      socket.onAny(fn);
      return () => void socket.offAny(fn);
    },
    onStatus(handler) {
      const up = () => handler(true);
      const down = () => handler(false);
      socket.on('connect', up);
      socket.on('disconnect', down);
      return () => {
        socket.off('connect', up);
        socket.off('disconnect', down);
      };
    },
  };
}

// ------------------------------------------------------------ WebSocket JSON

export interface WsJsonLink extends ClientLink {
  readonly state: 'connecting' | 'connected' | 'disconnected';
  close(): void;
}

/** A reconnecting plain WebSocket; frames are JSON `{type, payload}` text. No acknowledgments on this wire. */
export function wsJsonLink(url: string, opts: { warn?: (...a: unknown[]) => void; onState?: () => void } = {}): WsJsonLink {
  const handlers = new Set<Handler>();
  const statusHandlers = new Set<(up: boolean) => void>();
  let ws: WebSocket | null = null;
  let state: WsJsonLink['state'] = 'connecting';
  let closed = false;
  let backoff = 250;
  const warn = opts.warn ?? console.warn;
  const open = () => {
    state = 'connecting';
    ws = new WebSocket(url);
    ws.onopen = () => {
      state = 'connected';
      backoff = 250;
      opts.onState?.();
      for (const h of statusHandlers) h(true);
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return warn('[ws-json] binary frame ignored');
      let msg: unknown;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return warn('[ws-json] malformed frame ignored', ev.data);
      }
      if (!isObject(msg) || typeof msg.type !== 'string') return warn('[ws-json] frame without type ignored', msg);
      for (const h of handlers) h(msg.type, msg.payload);
    };
    ws.onclose = () => {
      const was = state === 'connected';
      state = 'disconnected';
      ws = null;
      opts.onState?.();
      if (was) for (const h of statusHandlers) h(false);
      if (!closed) {
        setTimeout(open, backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    };
  };
  open();
  return {
    get connected() {
      return state === 'connected';
    },
    get state() {
      return state;
    },
    send(type, payload) {
      if (ws && state === 'connected') ws.send(JSON.stringify({ type, payload }));
    },
    onMessage(h) {
      handlers.add(h);
      return () => void handlers.delete(h);
    },
    onStatus(h) {
      statusHandlers.add(h);
      return () => void statusHandlers.delete(h);
    },
    close() {
      closed = true;
      ws?.close();
    },
  };
}

// ----------------------------------------------------------------- postMessage

/**
 * The iframe's side: talks only to `parent` at `parentOrigin`. It says
 * `x-client:hello` when ready; the host's `x-host:welcome` connects it.
 */
export function postMessageChildLink(parentWindow: Window, parentOrigin: string): ClientLink {
  const handlers = new Set<Handler>();
  const statusHandlers = new Set<(up: boolean) => void>();
  let connected = false;
  const post = (type: string, payload: unknown) => parentWindow.postMessage({ type, payload }, parentOrigin);
  window.addEventListener('message', (ev: MessageEvent) => {
    if (ev.origin !== parentOrigin || ev.source !== parentWindow) return; // not our host
    const msg = ev.data;
    if (!isObject(msg) || typeof msg.type !== 'string') {
      console.warn('[frame] malformed message ignored', msg);
      return;
    }
    if (msg.type === 'x-host:welcome') {
      if (!connected) {
        connected = true;
        for (const h of statusHandlers) h(true);
      }
      return;
    }
    for (const h of handlers) h(msg.type, msg.payload);
  });
  post('x-client:hello', { timestamp: Date.now() });
  return {
    get connected() {
      return connected;
    },
    send(type, payload) {
      post(type, payload);
    },
    onMessage(h) {
      handlers.add(h);
      return () => void handlers.delete(h);
    },
    onStatus(h) {
      statusHandlers.add(h);
      return () => void statusHandlers.delete(h);
    },
  };
}

/**
 * The host page's side of a postMessage client: a small agent runtime for
 * the iframe. Accepts messages only from that iframe's window and origin,
 * and posts to that origin only.
 */
export class PostMessageHost {
  readonly surfaces = new Map<string, OUISurface>();
  readonly observations: Record<string, Record<string, { value: unknown; timestamp: number }>> = {};
  connected = false;
  private readonly pending = new Map<string, { resolve: (r: OUIActionResult) => void; timer: ReturnType<typeof setTimeout> }>();
  private readonly listeners = new Set<() => void>();
  private readonly onWindowMessage = (ev: MessageEvent) => this.receive(ev);

  constructor(
    private readonly frame: HTMLIFrameElement,
    readonly origin: string,
  ) {
    window.addEventListener('message', this.onWindowMessage);
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private post(type: string, payload: unknown): void {
    this.frame.contentWindow?.postMessage({ type, payload }, this.origin);
  }

  private receive(ev: MessageEvent): void {
    if (ev.source !== this.frame.contentWindow) return;
    if (ev.origin !== this.origin) {
      console.warn(`[host] message from unexpected origin ${ev.origin} ignored`);
      return;
    }
    const msg = ev.data;
    if (!isObject(msg) || typeof msg.type !== 'string') return console.warn('[host] malformed message ignored', msg);
    const p = msg.payload;
    switch (msg.type) {
      case 'x-client:hello':
        // a (re)loaded frame: whatever it had is gone (§7.6.1)
        this.surfaces.clear();
        this.connected = true;
        this.post('x-host:welcome', { timestamp: Date.now() });
        break;
      case 'surface:register':
        if (isObject(p) && isObject(p.surface) && typeof p.surface.id === 'string') this.surfaces.set(p.surface.id, p.surface as unknown as OUISurface);
        else console.warn('[host] malformed surface:register ignored', p);
        break;
      case 'surface:deregister':
        if (isObject(p) && typeof p.surfaceId === 'string') {
          this.surfaces.delete(p.surfaceId);
          delete this.observations[p.surfaceId];
        }
        break;
      case 'observation:update':
        if (isObject(p) && typeof p.surfaceId === 'string' && typeof p.observationId === 'string' && typeof p.timestamp === 'number') {
          const bucket = (this.observations[p.surfaceId] ??= {});
          const prev = bucket[p.observationId];
          if (!prev || prev.timestamp <= p.timestamp) bucket[p.observationId] = { value: p.value, timestamp: p.timestamp };
        }
        break;
      case 'action:result': {
        if (!isObject(p) || typeof p.requestId !== 'string') return console.warn('[host] malformed action:result ignored', p);
        const r = p as unknown as OUIActionResult;
        const pend = this.pending.get(r.requestId);
        if (!pend || r.interim) break;
        clearTimeout(pend.timer);
        this.pending.delete(r.requestId);
        pend.resolve(r);
        break;
      }
      default:
        if (!msg.type.startsWith('x-')) console.warn(`[host] unexpected ${msg.type} ignored`);
    }
    this.changed();
  }

  request(surfaceId: string, actionId: string, params: Record<string, unknown>, timeoutMs = 10_000): Promise<OUIActionResult> {
    const req: OUIActionRequest = { requestId: crypto.randomUUID(), surfaceId, actionId, params, timestamp: Date.now() };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(req.requestId);
        resolve({ requestId: req.requestId, success: false, error: { code: 'TIMEOUT', message: `no answer in ${timeoutMs} ms` }, timestamp: Date.now() });
      }, timeoutMs);
      this.pending.set(req.requestId, { resolve, timer });
      this.post('action:request', req);
    });
  }

  requestObservation(surfaceId: string, observationId: string): void {
    this.post('observation:request', { surfaceId, observationId, timestamp: Date.now() });
  }

  dispose(): void {
    window.removeEventListener('message', this.onWindowMessage);
  }
}

// ---------------------------------------------------------------- direct call

export type DirectAck = { ok: true } | { ok: false; reason?: string; error?: string };

/**
 * The in-process transport, in the spec's OUITransport shape (both ends in
 * one realm). Its methods are plain closures on a plain object, so a tool
 * (the OUI DevTools hook) may wrap them in place; every internal path goes
 * through the object's current properties.
 */
export interface DirectTransport {
  readonly state: 'connected' | 'disconnected';
  /** Runtime side: send a request; `receipt` is called if the client acknowledges it. */
  dispatch(request: OUIActionRequest, receipt?: (ack: DirectAck) => void): void;
  /** Client side: receive requests. */
  onAction(handler: (request: OUIActionRequest, receipt?: (ack: DirectAck) => void) => void): () => void;
  /** Client side: answer; `onAcknowledged` gets the runtime's acknowledgment (§7.3.6). */
  sendResult(result: OUIActionResult, onAcknowledged?: (ack: DirectAck) => void): void;
  /** Runtime side: receive results; call `ack` to accept or refuse one. */
  onResult(handler: (result: OUIActionResult, ack?: (a: DirectAck) => void) => void): () => void;
  /** Client side: push an observation update. */
  sendObservation(update: OUIObservationUpdate): void;
  /** Runtime side: receive observation updates. */
  onObservation(handler: (update: OUIObservationUpdate) => void): () => void;
  /** Client side: announce / withdraw a surface. */
  register(surface: OUISurface): void;
  deregister(surfaceId: string): void;
  /** Runtime side: receive registrations (an addition to the spec shape). */
  onRegistration(handler: (event: { type: 'surface:register' | 'surface:deregister'; surface?: OUISurface; surfaceId: string }) => void): () => void;
  dispose(): void;
}

export function createDirectTransport(): DirectTransport {
  const actionHandlers = new Set<(r: OUIActionRequest, receipt?: (a: DirectAck) => void) => void>();
  const resultHandlers = new Set<(r: OUIActionResult, ack?: (a: DirectAck) => void) => void>();
  const obsHandlers = new Set<(u: OUIObservationUpdate) => void>();
  const regHandlers = new Set<(e: { type: 'surface:register' | 'surface:deregister'; surface?: OUISurface; surfaceId: string }) => void>();
  let state: 'connected' | 'disconnected' = 'connected';
  const later = (fn: () => void) => queueMicrotask(fn); // handlers are invoked asynchronously (§8.4.2)
  const once = <T,>(fn?: (v: T) => void) => {
    let done = false;
    return fn
      ? (v: T) => {
          if (done) return;
          done = true;
          fn(v);
        }
      : undefined;
  };
  const t: DirectTransport = {
    get state() {
      return state;
    },
    dispatch(request, receipt) {
      if (state !== 'connected') return;
      const r = once(receipt);
      later(() => {
        for (const h of [...actionHandlers]) h(request, r);
      });
    },
    onAction(handler) {
      actionHandlers.add(handler);
      return () => void actionHandlers.delete(handler);
    },
    sendResult(result, onAcknowledged) {
      if (state !== 'connected') return;
      const a = once(onAcknowledged);
      later(() => {
        for (const h of [...resultHandlers]) h(result, a);
      });
    },
    onResult(handler) {
      resultHandlers.add(handler);
      return () => void resultHandlers.delete(handler);
    },
    sendObservation(update) {
      if (state !== 'connected') return;
      later(() => {
        for (const h of [...obsHandlers]) h(update);
      });
    },
    onObservation(handler) {
      obsHandlers.add(handler);
      return () => void obsHandlers.delete(handler);
    },
    register(surface) {
      if (state !== 'connected') return;
      later(() => {
        for (const h of [...regHandlers]) h({ type: 'surface:register', surface, surfaceId: surface.id });
      });
    },
    deregister(surfaceId) {
      if (state !== 'connected') return;
      later(() => {
        for (const h of [...regHandlers]) h({ type: 'surface:deregister', surfaceId });
      });
    },
    onRegistration(handler) {
      regHandlers.add(handler);
      return () => void regHandlers.delete(handler);
    },
    dispose() {
      state = 'disconnected';
      actionHandlers.clear();
      resultHandlers.clear();
      obsHandlers.clear();
      regHandlers.clear();
    },
  };
  return t;
}

/** The client's view of a direct transport. Calls go through `transport`'s current methods (they may be wrapped). */
export function directLink(transport: DirectTransport): ClientLink {
  return {
    get connected() {
      return transport.state === 'connected';
    },
    send(type, payload, onAck) {
      const p = payload as Record<string, any>;
      switch (type) {
        case 'surface:register':
          transport.register(p.surface);
          break;
        case 'surface:deregister':
          transport.deregister(p.surfaceId);
          break;
        case 'action:result':
          transport.sendResult(p as OUIActionResult, onAck);
          break;
        case 'observation:update':
          transport.sendObservation(p as OUIObservationUpdate);
          break;
        default:
          // extension events have no place on this transport
          break;
      }
    },
    onMessage(handler) {
      return transport.onAction((request, receipt) => handler('action:request', request, receipt as ((v: unknown) => void) | undefined));
    },
    onStatus() {
      return () => {};
    },
  };
}

/**
 * The in-page assistant: the runtime end of the direct transport, in the
 * same realm. It keeps the registrations it saw, dispatches requests, and
 * acknowledges results.
 */
export class InPageAssistant {
  readonly surfaces = new Map<string, OUISurface>();
  readonly observations: Record<string, Record<string, unknown>> = {};
  private readonly pending = new Map<string, { resolve: (r: OUIActionResult) => void; timer: ReturnType<typeof setTimeout> }>();
  knownHash: string | null = null;
  readonly results: OUIActionResult[] = [];

  constructor(private readonly transport: DirectTransport) {
    transport.onRegistration((e) => {
      if (e.type === 'surface:register' && e.surface) this.surfaces.set(e.surfaceId, e.surface);
      else if (e.type === 'surface:deregister') {
        this.surfaces.delete(e.surfaceId);
        delete this.observations[e.surfaceId];
      }
      // what it holds now, hashed in the client's order (by id)
      this.knownHash = surfacesHash([...this.surfaces.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    });
    transport.onObservation((u) => {
      (this.observations[u.surfaceId] ??= {})[u.observationId] = u.value;
    });
    transport.onResult((result, ack) => {
      ack?.({ ok: true });
      this.results.push(result);
      if (this.results.length > 50) this.results.shift();
      if (typeof result.surfacesHash === 'string') this.knownHash = Array.isArray(result.surfaces) || result.surfacesHash === this.knownHash ? result.surfacesHash : null;
      const p = this.pending.get(result.requestId);
      if (!p || result.interim) return;
      clearTimeout(p.timer);
      this.pending.delete(result.requestId);
      p.resolve(result);
    });
  }

  request(surfaceId: string, actionId: string, params: Record<string, unknown>, timeoutMs = 10_000): Promise<OUIActionResult> {
    const req: OUIActionRequest = {
      requestId: crypto.randomUUID(),
      surfaceId,
      actionId,
      params,
      timestamp: Date.now(),
      ...(this.knownHash ? { knownSurfaces: this.knownHash } : {}),
    };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(req.requestId);
        resolve({ requestId: req.requestId, success: false, error: { code: 'TIMEOUT', message: `no answer in ${timeoutMs} ms` }, timestamp: Date.now() });
      }, timeoutMs);
      this.pending.set(req.requestId, { resolve, timer });
      this.transport.dispatch(req);
    });
  }
}
