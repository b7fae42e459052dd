/**
 * A small but faithful OUI client runtime (the surface side of the protocol),
 * shared by every in-page client of the demo shop. It is transport-agnostic:
 * it talks to a `ClientLink` (send an event, receive events, each optionally
 * with an acknowledgment), and the links in `links.ts` map that onto
 * Socket.IO, plain WebSocket JSON frames, postMessage and the in-process
 * direct transport.
 *
 * What it implements, with the spec sections:
 * - surfaces mount and unmount as the route changes (§6, activation.routes);
 *   `surface:register` on mount and on a hot change (same id replaces),
 *   `surface:deregister` on unmount, everything re-registered on reconnect
 *   (§7.2, §7.6.1);
 * - params validated against the action's `input` on receipt (§7.3.1):
 *   VALIDATION_ERROR; unknown surface / action: SURFACE_UNAVAILABLE /
 *   ACTION_NOT_FOUND;
 * - approvals: a `transaction`, or a write declared `confirm: true`, runs only
 *   on a single-use grant the user's own confirmation in this page issued, for
 *   exactly these params (args hash recomputed here), not past `expiresAt`;
 *   otherwise ACTION_DENIED saying which check failed;
 * - every result carries `surfacesHash` of the surfaces mounted once the
 *   action settled, `surfaces` when that differs from the request's
 *   `knownSurfaces` (or the interim's hash for an async final) or the request
 *   had none, `observations`, `settled`, `durationMs`, `timestamp` (§7.3.4);
 * - async actions: interim result(s) with progress, then one final result;
 * - refused results re-sent trimmed (§7.3.6);
 * - receipts and repeated requests (§7.3.7);
 * - observation updates batched to at most 10/s for on-change ones, pushed at
 *   once for realtime ones, and `observation:request` answered (§5.3, §7.4).
 */
// Hashes, validation and the approval rule come from the demo's own implementations (written from the
// spec text, other libraries than the product's), so verdicts on demo traffic compare two implementations.
import { argsHash, precompile, requiresApproval, surfacesHash, validate as validateJson } from '../independent/index.ts';
import type {
  OUIAction,
  OUIActionRequest,
  OUIActionResult,
  OUIObservationUpdate,
  OUISurface,
} from '../../../src/protocol/index.ts';

/** An acknowledgment as it travels: `{ok:true}`, or refused with `reason` (receipts) or `error` (§7.3.6). */
export type AckValue = { ok: true } | { ok: false; reason?: string; error?: string };

/** What the client needs of a transport. `ack`/`onAck` exist only where the transport can carry them. */
export interface ClientLink {
  readonly connected: boolean;
  /** Send one protocol event; `onAck` is called with the receiver's acknowledgment, if it gives one. */
  send(type: string, payload: unknown, onAck?: (ack: unknown) => void): void;
  /** Incoming events; `ack` is present when the sender asked for an acknowledgment. */
  onMessage(handler: (type: string, payload: unknown, ack?: (value: unknown) => void) => void): () => void;
  onStatus(handler: (connected: boolean) => void): () => void;
}

export interface ActionContext {
  request: OUIActionRequest;
  /** For async actions: send an interim result with this progress (0-100). */
  progress(percent: number, data?: unknown): void;
}

export type ActionHandler = (params: any, ctx: ActionContext) => unknown;

/** Throw from a handler to answer with a specific error code. */
export class ActionError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface SurfaceDefinition {
  surface: OUISurface;
  handlers: Record<string, ActionHandler>;
  /** Current value of each observation. */
  observe?: Record<string, () => unknown>;
  /** What the confirmation dialog says for an approval of this action with these params. */
  describeApproval?: (actionId: string, params: unknown) => string;
}

export interface ApprovalAsk {
  approvalId: string;
  surfaceId: string;
  actionId: string;
  params: unknown;
  /** The runtime's title for the request. */
  title: string;
  /** The page's own description of what approving does. */
  description: string;
  action: OUIAction;
}

export interface ActivityEntry {
  t: number;
  requestId: string;
  surfaceId: string;
  actionId: string;
  /** 'received' | 'result' | 'interim' | 'repeat-ignored' | 'repeat-answered' | 'trimmed' | 'refused' */
  kind: string;
  ok?: boolean;
  code?: string;
  note?: string;
}

export interface OUIClientOptions {
  name: string;
  link: ClientLink;
  /** Current path, used for activation.routes. Default: location.pathname, or '/'. */
  route?: () => string;
  /** Re-answer interval for repeated requests (§7.3.7). Default 8000 ms. */
  reanswerMs?: number;
  /** Quiet window before an action's state counts as settled. Default 40 ms. */
  settleQuietMs?: number;
  /** Deadline for settling; past it the answer says `settled: false`. Default 2000 ms. */
  settleDeadlineMs?: number;
  /** Minimum interval between on-change observation batches. Default 100 ms (10/s). */
  observationIntervalMs?: number;
  /** Lifetime of a grant. Default 60 s. */
  grantTtlMs?: number;
  /** Show the user a confirmation; resolve true when the user approves. Without it, every ask is denied. */
  onApprovalAsk?: (ask: ApprovalAsk) => Promise<boolean>;
  onActivity?: (entry: ActivityEntry) => void;
  onChange?: () => void;
  now?: () => number;
  warn?: (...args: unknown[]) => void;
  /**
   * For tests only: makes this client break the protocol on purpose. `resultRequestId`
   * rewrites the requestId of every result it sends (a client that answers with an id
   * of its own making instead of the request's, §7.3.3). Default: none, a conformant client.
   */
  faults?: { resultRequestId?: (requestId: string) => string };
}

interface RequestRecord {
  state: 'working' | 'answered';
  result?: OUIActionResult;
  sentAt: number;
  acked: boolean;
  surfaceId: string;
  actionId: string;
}

interface Grant {
  approvalId: string;
  argsHash: string;
  expiresAt: number;
  surfaceId: string;
  actionId: string;
}

const DELIVERY_STAGES: Array<Array<'surfaces' | 'observations' | 'data'>> = [
  [],
  ['surfaces', 'observations'],
  ['surfaces', 'observations', 'data'],
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** §6.2 route globs: `*` one path segment, `**` any depth. */
export function routeMatches(pattern: string, path: string): boolean {
  const norm = (p: string) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p) || '/';
  let re = '';
  const pat = norm(pattern);
  for (let i = 0; i < pat.length; i++) {
    const c = pat[i]!;
    if (c === '*' && pat[i + 1] === '*') {
      // `/x/**` also matches `/x` itself
      if (re.endsWith('/')) re = re.slice(0, -1) + '(?:/.*)?';
      else re += '.*';
      i++;
    } else if (c === '*') re += '[^/]+';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(norm(path));
}

export function isActive(surface: OUISurface, path: string): boolean {
  const routes = surface.activation?.routes;
  if (routes === undefined) return true;
  const list = Array.isArray(routes) ? routes : [routes];
  return list.some((r) => routeMatches(r, path));
}

export function normalizeAck(ack: unknown): AckValue {
  if (isObject(ack) && ack.ok === true) return { ok: true };
  if (isObject(ack) && ack.ok === false) {
    const reason = typeof ack.error === 'string' ? ack.error : typeof ack.reason === 'string' ? ack.reason : 'refused';
    return { ok: false, reason };
  }
  return { ok: false, reason: `unrecognised acknowledgment: ${JSON.stringify(ack)}` };
}

/** SHA-256 with Web Crypto over the canonical JSON (independent/args-hash.ts); throws on a value JSON cannot carry. */
async function computeArgsHash(params: unknown): Promise<string> {
  return await argsHash(params);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class OUIClient {
  readonly name: string;
  private readonly link: ClientLink;
  private readonly opts: OUIClientOptions;
  private readonly defs = new Map<string, SurfaceDefinition>();
  private readonly mountedIds = new Set<string>();
  private readonly records = new Map<string, RequestRecord>();
  private readonly grants = new Map<string, Grant>();
  private readonly usedGrants = new Set<string>();
  private readonly lastSent = new Map<string, string>(); // "surface\u0000obs" -> JSON
  private readonly lastSeen = new Map<string, string>(); // for settling: the value seen last
  private readonly pendingObs = new Set<string>();
  private obsTimer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = 0;
  private lastChangeAt = 0;
  private inFlight = 0;
  private readonly offs: Array<() => void> = [];
  private disposed = false;
  /** Counters for tests and the page. */
  readonly stats = { requests: 0, results: 0, repeatsIgnored: 0, repeatsAnswered: 0, trimmed: 0, observationUpdates: 0 };

  constructor(opts: OUIClientOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.link = opts.link;
    this.offs.push(this.link.onMessage((type, payload, ack) => this.onMessage(type, payload, ack)));
    this.offs.push(
      this.link.onStatus((up) => {
        if (up) this.announceAll();
        this.opts.onChange?.();
      }),
    );
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private warn(...args: unknown[]): void {
    (this.opts.warn ?? console.warn)(`[oui:${this.name}]`, ...args);
  }

  private route(): string {
    if (this.opts.route) return this.opts.route();
    return typeof location !== 'undefined' ? location.pathname : '/';
  }

  get connected(): boolean {
    return this.link.connected;
  }

  // ---------------------------------------------------------------- surfaces

  /** Add (or hot-replace) a surface definition; mounts it when its routes match. */
  define(def: SurfaceDefinition): void {
    // Ajv compiles each schema once; do it now rather than on the first request.
    for (const a of def.surface.actions) {
      precompile(a.input);
      precompile(a.output);
    }
    const had = this.mountedIds.has(def.surface.id);
    this.defs.set(def.surface.id, def);
    if (had && isActive(def.surface, this.route())) {
      // hot change: same id replaces the registration
      this.sendRegister(def.surface);
      this.touch();
      this.resetObservations(def.surface.id);
    } else this.evaluate();
  }

  undefine(surfaceId: string): void {
    this.defs.delete(surfaceId);
    this.evaluate();
  }

  /** Re-evaluate activation after a route change. */
  setRoute(): void {
    this.evaluate();
  }

  private evaluate(): void {
    const path = this.route();
    for (const id of [...this.mountedIds]) {
      const def = this.defs.get(id);
      if (!def || !isActive(def.surface, path)) this.unmount(id);
    }
    for (const [id, def] of this.defs) {
      if (!this.mountedIds.has(id) && isActive(def.surface, path)) this.mount(id);
    }
  }

  private mount(id: string): void {
    const def = this.defs.get(id)!;
    this.mountedIds.add(id);
    this.touch();
    this.sendRegister(def.surface);
    this.resetObservations(id);
    this.opts.onChange?.();
  }

  private unmount(id: string): void {
    this.mountedIds.delete(id);
    this.touch();
    for (const k of [...this.lastSent.keys()]) if (k.startsWith(`${id}\u0000`)) this.lastSent.delete(k);
    for (const k of [...this.pendingObs]) if (k.startsWith(`${id}\u0000`)) this.pendingObs.delete(k);
    if (this.link.connected) this.link.send('surface:deregister', { surfaceId: id, timestamp: this.now() });
    this.opts.onChange?.();
  }

  private sendRegister(surface: OUISurface): void {
    if (this.link.connected) this.link.send('surface:register', { surface, timestamp: this.now() });
  }

  private announceAll(): void {
    this.lastSent.clear();
    for (const s of this.mounted()) {
      this.sendRegister(s);
      this.resetObservations(s.id);
    }
  }

  /** The surfaces mounted now, ordered by id (the order they are hashed in). */
  mounted(): OUISurface[] {
    return [...this.mountedIds]
      .sort()
      .map((id) => this.defs.get(id)!.surface);
  }

  observationsSnapshot(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const s of this.mounted()) {
      const def = this.defs.get(s.id)!;
      const vals: Record<string, unknown> = {};
      for (const o of s.observations ?? []) {
        const fn = def.observe?.[o.id];
        if (fn) vals[o.id] = fn();
      }
      out[s.id] = vals;
    }
    return out;
  }

  snapshot(): { surfaces: OUISurface[]; observations: Record<string, Record<string, unknown>>; surfacesHash: string } {
    const surfaces = this.mounted();
    return { surfaces, observations: this.observationsSnapshot(), surfacesHash: surfacesHash(surfaces) };
  }

  private touch(): void {
    this.lastChangeAt = this.now();
  }

  // ------------------------------------------------------------ observations

  private resetObservations(surfaceId: string): void {
    const def = this.defs.get(surfaceId);
    if (!def) return;
    for (const o of def.surface.observations ?? []) {
      this.lastSent.delete(`${surfaceId}\u0000${o.id}`);
    }
    this.notify();
  }

  /** Tell the client app state may have changed: changed observations are pushed (batched). */
  notify(): void {
    if (this.disposed) return;
    const immediate: string[] = [];
    for (const s of this.mounted()) {
      const def = this.defs.get(s.id)!;
      for (const o of s.observations ?? []) {
        const freq = o.updateFrequency ?? 'on-change';
        if (freq === 'polling') continue;
        const fn = def.observe?.[o.id];
        if (!fn) continue;
        const key = `${s.id}\u0000${o.id}`;
        const json = JSON.stringify(fn() ?? null);
        if (this.lastSeen.get(key) !== json) {
          this.lastSeen.set(key, json);
          this.touch();
        }
        if (this.lastSent.get(key) === json) continue;
        if (freq === 'realtime') immediate.push(key);
        else this.pendingObs.add(key);
      }
    }
    // realtime ones go at once; on-change ones at most every interval
    if (immediate.length) this.flushObservations(immediate);
    if (this.pendingObs.size === 0) return;
    if (!this.obsTimer) {
      const interval = this.opts.observationIntervalMs ?? 100;
      const wait = Math.max(0, this.lastFlush + interval - this.now());
      this.obsTimer = setTimeout(() => {
        this.obsTimer = null;
        this.flushObservations();
      }, wait);
    }
  }

  private flushObservations(keys?: string[]): void {
    if (!keys) this.lastFlush = this.now();
    if (!this.link.connected) return; // re-sent in full on reconnect
    for (const key of keys ?? [...this.pendingObs]) {
      this.pendingObs.delete(key);
      const [surfaceId, observationId] = key.split('\u0000') as [string, string];
      if (!this.mountedIds.has(surfaceId)) continue;
      const fn = this.defs.get(surfaceId)?.observe?.[observationId];
      if (!fn) continue;
      const value = fn() ?? null;
      const json = JSON.stringify(value);
      if (this.lastSent.get(key) === json) continue;
      this.lastSent.set(key, json);
      const update: OUIObservationUpdate = { surfaceId, observationId, value, timestamp: this.now() };
      this.stats.observationUpdates++;
      this.link.send('observation:update', update);
    }
  }

  private onObservationRequest(payload: unknown, ack?: (v: unknown) => void): void {
    if (!isObject(payload) || typeof payload.surfaceId !== 'string' || typeof payload.observationId !== 'string') {
      this.warn('malformed observation:request ignored', payload);
      ack?.({ ok: false, reason: 'malformed observation:request' });
      return;
    }
    const { surfaceId, observationId } = payload;
    const fn = this.mountedIds.has(surfaceId) ? this.defs.get(surfaceId)?.observe?.[observationId] : undefined;
    const known = this.defs.get(surfaceId)?.surface.observations?.some((o) => o.id === observationId);
    if (!fn || !known) {
      ack?.({ ok: false, reason: `no observation ${surfaceId}/${observationId} mounted` });
      return;
    }
    ack?.({ ok: true });
    const update: OUIObservationUpdate = { surfaceId, observationId, value: fn() ?? null, timestamp: this.now() };
    this.stats.observationUpdates++;
    this.link.send('observation:update', update);
  }

  // ---------------------------------------------------------------- messages

  private onMessage(type: string, payload: unknown, ack?: (v: unknown) => void): void {
    if (this.disposed) return;
    switch (type) {
      case 'action:request':
        this.onRequest(payload, ack);
        return;
      case 'observation:request':
        this.onObservationRequest(payload, ack);
        return;
      case 'x-approval:ask':
        void this.onApprovalAsk(payload);
        return;
      case 'x-approval:cancel':
        if (isObject(payload) && typeof payload.approvalId === 'string') this.cancelledAsks.add(payload.approvalId);
        this.opts.onChange?.();
        return;
      default:
        // unknown x- events are ignored silently; others with a warning (§7.6.2, extension points)
        if (!type.startsWith('x-')) this.warn(`unexpected event ${type} ignored`);
    }
  }

  /** Approval ids the runtime withdrew (the page closes their dialogs). */
  readonly cancelledAsks = new Set<string>();

  private async onApprovalAsk(payload: unknown): Promise<void> {
    if (!isObject(payload) || typeof payload.approvalId !== 'string' || typeof payload.surfaceId !== 'string' || typeof payload.actionId !== 'string') {
      this.warn('malformed x-approval:ask ignored', payload);
      return;
    }
    const { approvalId, surfaceId, actionId, params } = payload;
    const deny = (reason: string) => this.link.send('x-approval:denied', { approvalId, reason });
    const def = this.mountedIds.has(surfaceId) ? this.defs.get(surfaceId) : undefined;
    const action = def?.surface.actions.find((a) => a.id === actionId);
    if (!def || !action) return deny(`no action ${surfaceId}/${actionId} mounted`);
    const v = validateJson(params, action.input);
    if (!v.valid) return deny(`params invalid: ${v.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`);
    let hash: string;
    try {
      hash = await computeArgsHash(params);
    } catch (e) {
      return deny(`params cannot be hashed: ${(e as Error).message}`);
    }
    const description = def.describeApproval?.(actionId, params) ?? `${action.title ?? action.id}?`;
    const title = typeof payload.title === 'string' ? payload.title : '';
    const ask = this.opts.onApprovalAsk;
    const approved = ask ? await ask({ approvalId, surfaceId, actionId, params, title, description, action }) : false;
    if (!approved) return deny('the user denied it');
    const grant: Grant = { approvalId, argsHash: hash, expiresAt: this.now() + (this.opts.grantTtlMs ?? 60_000), surfaceId, actionId };
    this.grants.set(approvalId, grant);
    this.link.send('x-approval:granted', { approvalId, argsHash: hash, expiresAt: grant.expiresAt });
  }

  /** Grants held now (read-only copies), for the page and tests. */
  heldGrants(): Grant[] {
    return [...this.grants.values()].map((g) => ({ ...g }));
  }

  private async checkApproval(req: OUIActionRequest, action: OUIAction): Promise<string | null> {
    const approval = req.approval as unknown;
    if (!isObject(approval)) return 'approval required: the request carries no approval';
    if (typeof approval.approvalId !== 'string' || typeof approval.argsHash !== 'string') return 'approval malformed: approvalId and argsHash must be strings';
    const grant = this.grants.get(approval.approvalId);
    if (!grant) {
      return this.usedGrants.has(approval.approvalId)
        ? `approval ${approval.approvalId} was already used (grants are single-use)`
        : `no grant ${approval.approvalId}: the user did not approve this request in this tab`;
    }
    if (grant.surfaceId !== req.surfaceId || grant.actionId !== action.id) return `grant ${grant.approvalId} is for ${grant.surfaceId}/${grant.actionId}, not ${req.surfaceId}/${action.id}`;
    if (this.now() > grant.expiresAt) {
      this.grants.delete(grant.approvalId);
      return `grant ${grant.approvalId} expired at ${new Date(grant.expiresAt).toISOString()}`;
    }
    if (approval.argsHash !== grant.argsHash) return 'approval.argsHash does not match the grant the user approved';
    // Single use: taken before the hash is awaited, so a copy of the request that arrives meanwhile finds it used
    // (consumed after the await, two copies back to back both ran); given back when these params are not the approved ones.
    this.grants.delete(grant.approvalId);
    this.usedGrants.add(grant.approvalId);
    const giveBack = (why: string) => {
      this.usedGrants.delete(grant.approvalId);
      this.grants.set(grant.approvalId, grant);
      return why;
    };
    let actual: string;
    try {
      actual = await computeArgsHash(req.params);
    } catch (e) {
      return giveBack(`params cannot be hashed: ${(e as Error).message}`);
    }
    if (actual !== grant.argsHash) return giveBack(`params differ from the approved ones: argsHash(params) is ${actual}, the grant is for ${grant.argsHash}`);
    return null;
  }

  // ---------------------------------------------------------------- requests

  private activity(e: Omit<ActivityEntry, 't'>): void {
    this.opts.onActivity?.({ t: this.now(), ...e });
  }

  private onRequest(payload: unknown, receipt?: (v: unknown) => void): void {
    if (!isObject(payload) || typeof payload.requestId !== 'string' || payload.requestId === '') {
      this.warn('malformed action:request ignored', payload);
      receipt?.({ ok: false, reason: 'malformed action:request: requestId missing' });
      return;
    }
    const req = payload as unknown as OUIActionRequest;
    const rec = this.records.get(req.requestId);
    if (rec) {
      // §7.3.7: a repeat. Received, but it runs once.
      receipt?.({ ok: true });
      const age = this.now() - rec.sentAt;
      if (rec.state === 'working' || rec.acked || age < (this.opts.reanswerMs ?? 8000)) {
        this.stats.repeatsIgnored++;
        const why = rec.state === 'working' ? 'first answer still being worked out' : rec.acked ? 'first answer acknowledged' : `first answer sent ${age} ms ago`;
        this.activity({ requestId: req.requestId, surfaceId: rec.surfaceId, actionId: rec.actionId, kind: 'repeat-ignored', note: why });
        return;
      }
      this.stats.repeatsAnswered++;
      this.activity({ requestId: req.requestId, surfaceId: rec.surfaceId, actionId: rec.actionId, kind: 'repeat-answered' });
      this.deliver(rec.result!, rec);
      return;
    }
    if (typeof req.surfaceId !== 'string' || typeof req.actionId !== 'string') {
      this.warn('malformed action:request ignored', payload);
      receipt?.({ ok: false, reason: 'malformed action:request: surfaceId and actionId must be strings' });
      return;
    }
    const record: RequestRecord = { state: 'working', sentAt: 0, acked: false, surfaceId: req.surfaceId, actionId: req.actionId };
    this.records.set(req.requestId, record);
    this.pruneRecords();
    receipt?.({ ok: true });
    this.stats.requests++;
    this.activity({ requestId: req.requestId, surfaceId: req.surfaceId, actionId: req.actionId, kind: 'received' });
    void this.run(req, record);
  }

  private pruneRecords(): void {
    if (this.records.size <= 500) return;
    for (const [id, r] of this.records) {
      if (this.records.size <= 400) break;
      if (r.state === 'answered') this.records.delete(id);
    }
  }

  private async run(req: OUIActionRequest, record: RequestRecord): Promise<void> {
    const started = this.now();
    this.inFlight++;
    let hashBase: string | undefined = typeof req.knownSurfaces === 'string' ? req.knownSurfaces : undefined;
    const finish = async (outcome: { data?: unknown; error?: { code: string; message: string; details?: unknown } }) => {
      const settled = await this.settle();
      const result = this.buildResult(req, outcome, started, hashBase, { interim: false, settled });
      record.state = 'answered';
      record.result = result;
      this.inFlight--;
      this.stats.results++;
      this.activity({
        requestId: req.requestId,
        surfaceId: req.surfaceId,
        actionId: req.actionId,
        kind: 'result',
        ok: result.success,
        ...(result.error ? { code: result.error.code, note: result.error.message } : {}),
      });
      this.deliver(result, record);
    };
    const fail = (code: string, message: string, details?: unknown) => finish({ error: { code, message, ...(details !== undefined ? { details } : {}) } });

    const def = this.mountedIds.has(req.surfaceId) ? this.defs.get(req.surfaceId) : undefined;
    if (!def) return fail('SURFACE_UNAVAILABLE', `surface ${req.surfaceId} is not mounted on this client (route ${this.route()})`);
    const action = def.surface.actions.find((a) => a.id === req.actionId);
    const handler = def.handlers[req.actionId];
    if (!action || !handler) return fail('ACTION_NOT_FOUND', `surface ${req.surfaceId} has no action ${req.actionId}`);
    const v = validateJson(req.params, action.input);
    if (!v.valid) {
      return fail('VALIDATION_ERROR', `params do not conform to ${req.surfaceId}/${req.actionId} input: ${v.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`, { errors: v.errors });
    }
    if (requiresApproval(action.effect, action.confirm === true)) {
      const denied = await this.checkApproval(req, action);
      if (denied) return fail('ACTION_DENIED', denied);
    }
    const ctx: ActionContext = {
      request: req,
      progress: (percent, data) => {
        if (!action.async) return;
        const interim = this.buildResult(req, { data }, started, hashBase, { interim: true, progress: percent });
        // the final result is compared with the acknowledgment's hash (§7.3.4)
        hashBase = interim.surfacesHash;
        this.activity({ requestId: req.requestId, surfaceId: req.surfaceId, actionId: req.actionId, kind: 'interim', note: `${percent}%` });
        this.deliver(interim, null);
      },
    };
    try {
      // handlers always run asynchronously (§8.4.2)
      await Promise.resolve();
      if (action.async) ctx.progress(0, { accepted: true });
      const data = await handler(req.params, ctx);
      if (action.output) {
        const ov = validateJson(data, action.output);
        if (!ov.valid) this.warn(`${req.surfaceId}/${req.actionId} returned data that does not match its output schema`, ov.errors);
      }
      await finish({ data });
    } catch (e) {
      if (e instanceof ActionError) await fail(e.code, e.message, e.details);
      else await fail('EXECUTION_ERROR', e instanceof Error ? e.message : String(e));
    }
  }

  /** Wait until no surface mounted/unmounted and no observation changed for a quiet window, or the deadline. */
  private async settle(): Promise<boolean> {
    const quiet = this.opts.settleQuietMs ?? 40;
    const deadline = this.now() + (this.opts.settleDeadlineMs ?? 2000);
    this.notify();
    for (;;) {
      const since = this.now() - this.lastChangeAt;
      if (since >= quiet) return true;
      if (this.now() >= deadline) return false;
      await sleep(Math.min(quiet - since, Math.max(1, deadline - this.now())));
      this.notify();
    }
  }

  private buildResult(
    req: OUIActionRequest,
    outcome: { data?: unknown; error?: { code: string; message: string; details?: unknown } },
    started: number,
    compareWith: string | undefined,
    extra: { interim: boolean; progress?: number; settled?: boolean },
  ): OUIActionResult {
    const surfaces = this.mounted();
    const hash = surfacesHash(surfaces);
    const result: OUIActionResult = {
      requestId: req.requestId,
      success: !outcome.error,
      ...(outcome.error ? { error: outcome.error } : outcome.data !== undefined ? { data: outcome.data } : {}),
      ...(extra.progress !== undefined ? { progress: extra.progress } : {}),
      durationMs: Math.max(0, this.now() - started),
      timestamp: this.now(),
      surfacesHash: hash,
      ...(compareWith === hash ? {} : { surfaces }),
      observations: this.observationsSnapshot(),
    };
    const def = this.defs.get(req.surfaceId);
    const isAsync = def?.surface.actions.find((a) => a.id === req.actionId)?.async === true;
    if (isAsync || extra.interim) result.interim = extra.interim;
    if (extra.settled === false) result.settled = false;
    return result;
  }

  /** Send a result; re-send it trimmed when the receiver refuses it (§7.3.6). */
  private deliver(result: OUIActionResult, record: RequestRecord | null): void {
    const attempt = (stage: number, reason: string) => {
      let out: OUIActionResult = result;
      if (stage > 0) {
        const omitted = DELIVERY_STAGES[stage]!;
        const copy: Record<string, unknown> = { ...result };
        for (const f of omitted) delete copy[f];
        copy.delivery = { trimmed: true, reason, omitted: [...omitted] };
        out = copy as unknown as OUIActionResult;
        this.stats.trimmed++;
        this.activity({ requestId: result.requestId, surfaceId: record?.surfaceId ?? '', actionId: record?.actionId ?? '', kind: 'trimmed', note: `${omitted.join(', ')}: ${reason}` });
      }
      if (record) record.sentAt = this.now();
      const wrongId = this.opts.faults?.resultRequestId;
      if (wrongId) out = { ...out, requestId: wrongId(out.requestId) };
      this.link.send('action:result', out, (raw) => {
        const ack = normalizeAck(raw);
        if (ack.ok) {
          if (record) record.acked = true;
          return;
        }
        if (stage + 1 < DELIVERY_STAGES.length) attempt(stage + 1, ack.reason ?? 'refused');
        else {
          this.warn(`result ${result.requestId} refused even trimmed: ${ack.reason}`);
          this.activity({ requestId: result.requestId, surfaceId: record?.surfaceId ?? '', actionId: record?.actionId ?? '', kind: 'refused', note: ack.reason ?? '' });
        }
      });
    };
    attempt(0, '');
  }

  /** Whether the client is busy with a request (for the page). */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  dispose(): void {
    this.disposed = true;
    if (this.obsTimer) clearTimeout(this.obsTimer);
    for (const off of this.offs) off();
  }
}
