/**
 * A discrete-event simulation of conformant OUI clients (pages that mount
 * surfaces and answer requests) and their conformant agent runtimes. Every
 * draw is legal per the 0.6.0 texts; README.md lists the readings chosen.
 * Output: the abstract session (model.ts), encoded by encode.ts.
 */
import { Rng } from './rng.ts';
import { argsHash, surfacesHash } from './hashes.ts';
import { hasAcks, TRANSPORTS, type AbsClient, type AbsSession, type Ev, type Obj, type Tag, type Timers, type Transport } from './model.ts';
import { PAGES, PAGE_NAMES, actionSpec, manifest, requiresApproval, specOf, valueFor } from './surfaces.ts';

export interface GenerateOptions {
  /** Force every client onto this transport. */
  transport?: Transport;
  clients?: number;
  /** Simulated length per client (ms). */
  durationMs?: number;
  /** Allow non-default runtime timers (configurable per §7.5). Default true. */
  variedTimers?: boolean;
  /** Allow the late-start capture. Default true. */
  lateStart?: boolean;
  /** Exercise reading B of the navigation/§7.2 conflict (see README). Default false. */
  unmountActingSurface?: boolean;
}

export const T0 = 1_700_000_000_000;

interface Req {
  rid: string;
  payload: Obj;
  surfaceId: string;
  actionId: string;
  async: boolean;
  approval: boolean;
  sentAt: number; // runtime time of the first send
  deadline: number;
  wantsReceipt: boolean;
  copies: number;
  gap: number;
  receiptAt?: number; // runtime time it holds a receipt
  refused?: boolean;
  runtimeGotFirstAt?: number; // runtime time it got (or was refused) the first answer
  runtimeGotFinal?: boolean;
  timedOut?: boolean;
  // client side
  receivedAt?: number;
  firstAnswerSent?: boolean;
  lastCopy?: { payload: Obj; tag: Tag & { kind: 'result' }; t: number; ev: Ev };
  lastCopyAcked?: boolean;
  ackPending?: boolean;
  interimHash?: string;
  finalSent?: boolean;
  quietAt: number;
  nav: boolean;
}

class ClientSim {
  now: number;
  private q: Array<{ t: number; n: number; fn: () => void }> = [];
  private n = 0;
  conn = 0;
  connected = false;
  mounted = new Map<string, Obj>();
  versions = new Map<string, number>();
  page = 'shop';
  obs = new Map<string, unknown>();
  obsTs = new Map<string, number>();
  lastOnChange = -Infinity;
  lastTs = 0;
  reqs = new Map<string, Req>();
  usedApprovals = new Set<string>();
  rt = { registered: new Set<string>(), held: undefined as string | undefined, connected: false, inflight: 0, pulls: 0 };
  quiet: number[] = [];
  /** Client policies. */
  asksResultAck: boolean;
  runtimeAcks: boolean;
  refusalShape: 'error' | 'reason';
  sendsKnown: number;
  readonly L: number;

  constructor(
    readonly rng: Rng,
    readonly s: AbsSession,
    readonly c: AbsClient,
    readonly timers: Timers,
    readonly end: number,
    readonly opts: GenerateOptions,
  ) {
    this.now = s.t0;
    this.L = c.latencyMs;
    const acks = hasAcks(c.transport);
    this.asksResultAck = acks && rng.chance(0.8);
    this.runtimeAcks = acks && rng.chance(0.75);
    this.refusalShape = rng.chance(0.5) ? 'error' : 'reason';
    this.sendsKnown = rng.pick([0.5, 0.9, 1]);
  }

  at(t: number, fn: () => void): void {
    const item = { t: Math.max(t, this.now), n: this.n++, fn };
    let i = this.q.length;
    while (i > 0 && (this.q[i - 1]!.t > item.t || (this.q[i - 1]!.t === item.t && this.q[i - 1]!.n > item.n))) i--;
    this.q.splice(i, 0, item);
  }

  run(): void {
    let steps = 0;
    while (this.q.length && steps++ < 200_000) {
      const it = this.q.shift()!;
      this.now = it.t;
      it.fn();
    }
  }

  ts(): number {
    this.lastTs = Math.max(this.lastTs, Math.floor(this.now));
    return this.lastTs;
  }

  emit(e: Omit<Ev, 'id' | 't' | 'conn'> & { t?: number }): Ev {
    const last = this.c.events[this.c.events.length - 1];
    let t = e.t ?? this.now;
    if (last && t <= last.t) t = last.t + 0.25;
    this.now = Math.max(this.now, t);
    const ev: Ev = { ...e, id: this.s.nextId++, t, conn: this.conn };
    this.c.events.push(ev);
    return ev;
  }

  surfaceList(): Obj[] {
    return [...this.mounted.values()].map((m) => structuredClone(m));
  }

  // ── page ─────────────────────────────────────────────────────────────────

  register(id: string, reason: 'initial' | 'mount' | 'hot-reload' | 'reconnect'): void {
    const m = manifest(id, this.versions.get(id) ?? 0);
    this.mounted.set(id, m);
    const ev = this.emit({ dir: 'out', kind: 'event', type: 'surface:register', payload: { surface: structuredClone(m), timestamp: this.ts() }, tag: { kind: 'register', surfaceId: id, reason } });
    const conn = this.conn;
    this.at(ev.t + this.L, () => {
      if (this.rt.connected && conn === this.conn) this.rt.registered.add(id);
    });
    for (const o of specOf(id).observations) {
      const k = `${id}/${o.id}`;
      if (!this.obs.has(k)) this.obs.set(k, valueFor(this.rng, o.schema));
    }
  }

  deregister(id: string): void {
    this.mounted.delete(id);
    const ev = this.emit({ dir: 'out', kind: 'event', type: 'surface:deregister', payload: { surfaceId: id, timestamp: this.ts() }, tag: { kind: 'deregister', surfaceId: id } });
    this.at(ev.t + this.L, () => this.rt.registered.delete(id));
    for (const o of specOf(id).observations) this.obs.delete(`${id}/${o.id}`);
  }

  /** Go to a page: unmount what it lacks, mount what it adds (keeping `keep`). */
  navigate(page: string, keep?: string): void {
    this.page = page;
    const want = PAGES[page]!;
    for (const id of [...this.mounted.keys()]) if (!want.includes(id) && id !== keep && !this.busySurface(id)) this.deregister(id);
    for (const id of want) if (!this.mounted.has(id)) this.register(id, 'mount');
  }

  /** A surface with a request the client is still working on, or may still get a copy of. */
  busySurface(id: string): boolean {
    for (const r of this.reqs.values()) if (r.surfaceId === id && (this.now < r.quietAt || (!r.finalSent && !r.refused))) return true;
    return false;
  }

  idle(): boolean {
    if (this.rt.pulls > 0) return false;
    for (const r of this.reqs.values()) if (this.now < r.quietAt || !r.finalSent && !r.refused) return false;
    return true;
  }

  connect(): void {
    this.conn++;
    this.connected = true;
    this.emit({ dir: 'in', kind: 'open' });
    this.at(this.now + this.L, () => {
      this.rt.connected = true;
    });
  }

  pageLoop(): void {
    if (this.now > this.end) return;
    if (this.connected) {
      const kind = this.rng.weighted<string>([
        [8, 'obs'],
        [2, 'realtime'],
        [2, 'navigate'],
        [1, 'hot-reload'],
        [this.c.transport === 'postmessage' || this.c.transport === 'direct' ? 0 : 1, 'reconnect'],
        [3, 'nothing'],
      ]);
      if (kind === 'obs') this.onChange();
      else if (kind === 'realtime') this.realtime();
      else if (kind === 'navigate') this.navigate(this.rng.pick(PAGE_NAMES));
      else if (kind === 'hot-reload') {
        const id = this.rng.pick([...this.mounted.keys()]);
        this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
        this.register(id, 'hot-reload');
      } else if (kind === 'reconnect' && this.idle()) this.reconnect();
      if (this.idle()) this.quiet.push(this.now);
    }
    this.at(this.now + this.rng.logRange(100, 20_000), () => this.pageLoop());
  }

  onChange(): void {
    const cands: Array<[string, Obj]> = [];
    for (const id of this.mounted.keys()) for (const o of specOf(id).observations) if ((o.updateFrequency ?? 'on-change') === 'on-change') cands.push([id, o]);
    if (!cands.length) return;
    const [id, o] = this.rng.pick(cands);
    const k = `${id}/${o.id}`;
    let t = Math.max(this.now, this.lastOnChange + 120);
    this.lastOnChange = t;
    const v = valueFor(this.rng, o.schema);
    this.obs.set(k, v);
    this.at(t, () => {
      if (!this.mounted.has(id) || !this.connected) return;
      this.emit({ dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: id, observationId: o.id, value: v, timestamp: this.ts() }, tag: { kind: 'obs', surfaceId: id, observationId: o.id, freq: 'on-change' } });
    });
  }

  realtime(): void {
    if (!this.mounted.has('doc-editor')) return;
    const n = this.rng.int(1, 12);
    for (let i = 0; i < n; i++) {
      this.at(this.now + i * 17, () => {
        if (!this.mounted.has('doc-editor') || !this.connected) return;
        const v = valueFor(this.rng, specOf('doc-editor').observations[1]!.schema);
        this.obs.set('doc-editor/cursor', v);
        this.emit({ dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'doc-editor', observationId: 'cursor', value: v, timestamp: this.ts() }, tag: { kind: 'obs', surfaceId: 'doc-editor', observationId: 'cursor', freq: 'realtime' } });
      });
    }
  }

  reconnect(): void {
    this.emit({ dir: 'in', kind: 'close', note: this.rng.pick(['1006', '1001 going away']) });
    this.connected = false;
    this.rt.connected = false;
    this.rt.registered.clear();
    this.rt.held = undefined;
    this.at(this.now + this.rng.logRange(100, 5000), () => {
      this.connect();
      // §7.6.1: on reconnection, surfaces MUST re-register.
      for (const id of [...this.mounted.keys()]) this.register(id, 'reconnect');
    });
  }

  // ── runtime ──────────────────────────────────────────────────────────────

  agentLoop(): void {
    if (this.now > this.end) return;
    if (this.rt.connected && this.connected && this.rt.registered.size && this.rt.inflight < 2) {
      if (this.rng.chance(0.15)) this.pull();
      else this.request();
    }
    this.at(this.now + this.rng.logRange(150, 15_000), () => this.agentLoop());
  }

  pull(): void {
    const cands: Array<[string, string]> = [];
    for (const id of this.rt.registered) {
      if (!this.mounted.has(id)) continue;
      for (const o of specOf(id).observations) if (o.updateFrequency === 'polling') cands.push([id, o.id]);
    }
    if (!cands.length || this.c.transport === 'direct') return;
    const [sid, oid] = this.rng.pick(cands);
    this.rt.pulls++;
    const sent = this.now;
    this.at(sent + this.L, () => {
      this.emit({ dir: 'in', kind: 'event', type: 'observation:request', payload: { surfaceId: sid, observationId: oid, timestamp: Math.floor(sent) }, tag: { kind: 'obs-request', surfaceId: sid, observationId: oid } });
      this.at(this.now + this.rng.logRange(2, Math.min(1500, this.timers.observationPullMs - 2 * this.L - 50)), () => {
        this.rt.pulls--;
        if (!this.mounted.has(sid) || !this.connected) return;
        const o = specOf(sid).observations.find((x) => x.id === oid)!;
        const v = valueFor(this.rng, o.schema);
        this.emit({ dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: sid, observationId: oid, value: v, timestamp: this.ts() }, tag: { kind: 'obs', surfaceId: sid, observationId: oid, freq: 'polling', pulled: true } });
      });
    });
  }

  request(): void {
    const sid = this.rng.pick([...this.rt.registered]);
    if (!this.mounted.has(sid) && this.rng.chance(0.9)) return; // keep the deregistration race rare
    const spec = specOf(sid);
    const a = this.rng.pick(spec.actions);
    const params = valueFor(this.rng, a.input) as Obj;
    const rid = this.rng.uuid();
    const payload: Obj = { requestId: rid, surfaceId: sid, actionId: a.id, params, timestamp: Math.floor(this.now) };
    if (this.rt.held && this.rng.chance(this.sendsKnown)) payload.knownSurfaces = this.rt.held;
    const approval = requiresApproval(a.effect, a.confirm) || (a.confirm === true && this.rng.chance(0.3));
    if (approval) payload.approval = { approvalId: `apr-${this.rng.uuid()}`, argsHash: argsHash(params) };
    const r: Req = {
      rid,
      payload,
      surfaceId: sid,
      actionId: a.id,
      async: a.async === true,
      approval,
      sentAt: this.now,
      deadline: this.now + (a.async ? this.timers.asyncAckMs : this.timers.syncMs),
      wantsReceipt: hasAcks(this.c.transport) && this.rng.chance(0.5),
      copies: 0,
      gap: this.rng.range(600, 3000),
      quietAt: Infinity,
      nav: false,
    };
    this.reqs.set(rid, r);
    this.rt.inflight++;
    this.c.requests[rid] = { rid, surfaceId: sid, actionId: a.id, async: r.async, deadline: r.deadline + this.L, firstAt: this.now + this.L, approval, nav: false };
    this.sendCopy(r);
    this.at(r.deadline, () => {
      const got = r.async ? r.runtimeGotFirstAt !== undefined : r.runtimeGotFinal;
      if (!got && !r.refused) r.timedOut = true; // synthetic TIMEOUT, internal, never retried (§7.5)
      this.doneRuntime(r);
    });
  }

  private doneRuntime(r: Req): void {
    if ((r as { counted?: boolean }).counted) return;
    (r as { counted?: boolean }).counted = true;
    this.rt.inflight--;
  }

  /** The runtime sends a copy now and plans the next (§7.3.7: back off, stop on a receipt or an answer, never after the timer). */
  sendCopy(r: Req): void {
    const copy = r.copies++;
    const sent = this.now;
    this.at(sent + this.L, () => {
      if (!this.connected) return;
      const ev = this.emit({
        dir: 'in', kind: 'event', type: 'action:request', payload: structuredClone(r.payload), wantsAck: r.wantsReceipt,
        tag: { kind: 'request', rid: r.rid, copy, async: r.async, approval: r.approval, surfaceId: r.surfaceId, actionId: r.actionId, deadline: r.deadline + this.L },
      });
      this.onRequest(r, ev, copy);
    });
    const next = sent + r.gap;
    r.gap *= this.rng.range(1.6, 2.5);
    this.at(next, () => {
      const answered = r.runtimeGotFirstAt !== undefined && r.runtimeGotFirstAt <= this.now;
      const receipt = r.receiptAt !== undefined && r.receiptAt <= this.now;
      if (answered || receipt || r.refused || r.timedOut || this.now >= r.deadline - this.L - 5 || !this.rt.connected) return;
      if (!this.rng.chance(0.7)) return; // a runtime need not repeat at all
      this.sendCopy(r);
    });
  }

  // ── client: requests ─────────────────────────────────────────────────────

  onRequest(r: Req, ev: Ev, copy: number): void {
    r.quietAt = Math.max(r.quietAt === Infinity ? 0 : r.quietAt, this.now + 1000);
    if (r.quietAt < r.deadline + 2 * this.L + 200) r.quietAt = r.deadline + 2 * this.L + 200;
    if (copy === 0) r.receivedAt = this.now;
    // Receipt (§7.3.7): MAY, when asked.
    let refuse = false;
    if (ev.wantsAck && this.rng.chance(0.75)) {
      refuse = copy === 0 && this.rng.chance(0.1);
      const value = refuse ? { ok: false, reason: this.rng.pick(['busy', 'not accepted here', 'rate limited']) } : { ok: true };
      const rc = this.emit({ t: this.now + this.rng.range(0.5, 10), dir: 'out', kind: 'ack', ackOf: ev.id, payload: value, tag: { kind: 'receipt', rid: r.rid, ok: !refuse } });
      this.at(rc.t + this.L, () => {
        if (refuse) r.refused = true;
        else r.receiptAt ??= this.now;
      });
    }
    if (copy > 0) return this.onRepeat(r);
    if (refuse) {
      r.finalSent = true;
      r.quietAt = this.now + 500;
      return;
    }
    this.execute(r);
  }

  /** §7.3.7: never while the first answer is worked out or once acknowledged; never within the re-answer interval of the last copy; then the same result. */
  onRepeat(r: Req): void {
    if (!r.lastCopy || r.lastCopyAcked || r.ackPending) return;
    if (this.now - r.lastCopy.t < this.c.reanswerMs) return;
    if (r.lastCopy.tag.phase === 'final') return; // an async final is never the answer a repeat waits for
    const tag = { ...r.lastCopy.tag, copy: 'reanswer' as const };
    delete tag.lost;
    this.sendResult(r, structuredClone(r.lastCopy.payload), tag, 'reanswer');
  }

  execute(r: Req): void {
    const a = actionSpec(r.surfaceId, r.actionId);
    const mountedNow = this.mounted.has(r.surfaceId);
    let error: Obj | undefined;
    if (!mountedNow) error = { code: 'SURFACE_UNAVAILABLE', message: `${r.surfaceId} is not mounted` };
    else if (r.approval || requiresApproval(a.effect, a.confirm)) {
      const ap = r.payload.approval as Obj | undefined;
      if (!ap || ap.argsHash !== argsHash(r.payload.params) || this.usedApprovals.has(ap.approvalId)) error = { code: 'ACTION_DENIED', message: 'no matching grant' };
      else this.usedApprovals.add(ap.approvalId);
    }
    if (error) {
      this.at(this.now + this.rng.logRange(1, 40), () => this.answer(r, 'sync', { success: false, error }));
      return;
    }
    const d = this.rng.weighted<() => number>([
      [60, () => this.rng.logRange(1, 500)],
      [25, () => this.rng.logRange(500, 10_000)],
      [10, () => this.rng.logRange(10_000, 60_000)],
      [5, () => this.rng.logRange(60_000, 200_000)],
    ])();
    const navTo = a.navigates === 'param' ? (r.payload.params.page as string | undefined) : a.navigates === 'orders' && this.opts.unmountActingSurface ? 'orders' : undefined;
    const outcome = (): Obj => {
      if (this.rng.chance(0.8)) {
        const data: Obj = a.output ? { ok: true, id: `id-${this.rng.int(1, 999)}` } : this.rng.pick([{ done: true }, { items: [1, 2, 3] }, { message: 'Fait ✓' }]);
        return { success: true, data };
      }
      return { success: false, error: { code: this.rng.pick(['EXECUTION_ERROR', 'PRECONDITION_FAILED', 'app:quota_exceeded']), message: 'did not work', ...(this.rng.chance(0.3) ? { details: { hint: 'retry later' } } : {}) } };
    };
    if (r.async) {
      const di = this.rng.weighted<() => number>([[85, () => this.rng.logRange(2, 1500)], [15, () => this.rng.logRange(1500, 8000)]])();
      const jobId = `job-${this.rng.uuid().slice(0, 8)}`;
      this.at(this.now + di, () => {
        this.answer(r, 'interim', { success: true, data: { jobId }, ...(this.rng.chance(0.5) ? { progress: 0 } : {}) });
        this.at(this.now + this.rng.logRange(50, 180_000), () => this.answer(r, 'final', { ...outcome(), ...(this.rng.chance(0.5) ? { progress: 100 } : {}) }));
      });
      return;
    }
    if (navTo) {
      r.nav = true;
      const info = this.c.requests[r.rid];
      if (info) info.nav = true;
      const dd = Math.max(d, 30);
      this.at(this.now + dd * 0.4, () => this.navigate(navTo, r.surfaceId === 'cart' ? undefined : r.surfaceId));
      this.at(this.now + dd, () => this.answer(r, 'sync', outcome(), true));
      return;
    }
    this.at(this.now + d, () => this.answer(r, 'sync', outcome()));
  }

  answer(r: Req, phase: 'sync' | 'interim' | 'final', outcome: Obj, navigated = false): void {
    if (!this.connected) return;
    const surfaces = this.surfaceList();
    const hash = surfacesHash(surfaces);
    const compareWith = phase === 'final' ? r.interimHash : (r.payload.knownSurfaces as string | undefined);
    const include = compareWith === undefined || compareWith !== hash || this.rng.chance(0.3);
    const payload: Obj = { requestId: r.rid, ...outcome };
    if (phase === 'interim') payload.interim = true;
    if (phase === 'final') payload.interim = false;
    if (phase === 'sync' && this.rng.chance(0.2)) payload.interim = false;
    payload.timestamp = this.ts();
    if (r.receivedAt !== undefined && this.rng.chance(0.6)) payload.durationMs = Math.max(0, Math.round(this.now - r.receivedAt));
    payload.surfacesHash = hash;
    if (include) payload.surfaces = surfaces;
    let observations: Obj | undefined;
    if (this.rng.chance(0.4)) {
      observations = {};
      for (const id of this.mounted.keys()) {
        const vals: Obj = {};
        for (const o of specOf(id).observations) {
          if (o.updateFrequency === 'polling') continue;
          const k = `${id}/${o.id}`;
          if (this.obs.has(k)) vals[o.id] = this.obs.get(k);
        }
        if (Object.keys(vals).length) observations[id] = vals;
      }
      payload.observations = observations;
    }
    if (navigated && this.rng.chance(0.25)) payload.settled = false;
    else if (this.rng.chance(0.1)) payload.settled = true;
    if (phase === 'interim') r.interimHash = hash;
    const tag: Tag & { kind: 'result' } = { kind: 'result', rid: r.rid, phase, copy: 'first', surfaces, ...(observations ? { observations } : {}), ...(compareWith !== undefined ? { compareWith } : {}) };
    if (phase !== 'interim') r.finalSent = true;
    this.sendResult(r, payload, tag, 'first');
  }

  sendResult(r: Req, payload: Obj, tag: Tag & { kind: 'result' }, why: 'first' | 'reanswer' | 'trim'): void {
    const lost = why === 'first' && tag.phase === 'sync' && this.rng.chance(0.12);
    if (lost) tag.lost = true;
    const late = r.timedOut || this.now + this.L > r.deadline && (tag.phase === 'interim' || tag.phase === 'sync') && r.runtimeGotFirstAt === undefined;
    if (late) tag.late = true;
    const ev = this.emit({ dir: 'out', kind: 'event', type: 'action:result', payload, wantsAck: this.asksResultAck || this.c.transport === 'direct', tag });
    const copy = { payload, tag, t: ev.t, ev };
    if (tag.phase !== 'final' || !r.lastCopy || r.lastCopy.tag.phase === 'final') r.lastCopy = copy;
    if (tag.phase === 'final') r.lastCopy = copy;
    r.lastCopyAcked = false;
    r.quietAt = Math.max(r.quietAt, ev.t + 3 * this.L + 300);
    if (lost) return;
    this.at(ev.t + this.L, () => {
      const isLate = tag.late || (tag.phase !== 'final' && r.timedOut);
      if (!isLate) {
        r.runtimeGotFirstAt ??= this.now;
        if (tag.phase !== 'interim') r.runtimeGotFinal = true;
        if (r.runtimeGotFinal || (r.async && tag.phase === 'interim')) {
          if (tag.phase !== 'interim') this.doneRuntime(r);
        }
      }
      if (!(ev.wantsAck && this.runtimeAcks) || isLate) {
        if (!isLate) this.accept(payload);
        return;
      }
      const canTrim = (tag.copy === 'first' && (payload.surfaces || payload.observations || payload.data !== undefined)) || (tag.copy === 'trim1' && payload.data !== undefined);
      const refuse = tag.phase !== 'interim' && (tag.copy === 'first' || tag.copy === 'trim1') && canTrim && this.rng.chance(tag.copy === 'first' ? 0.15 : 0.3);
      const reason = this.rng.pick(['too large', 'payload over 1 MB', 'rate limited']);
      const value = refuse ? (this.refusalShape === 'error' ? { ok: false, error: reason } : { ok: false, reason }) : { ok: true };
      if (!refuse) this.accept(payload);
      r.ackPending = true;
      this.at(this.now + this.rng.range(0.5, 5) + this.L, () => {
        r.ackPending = false;
        this.emit({ dir: 'in', kind: 'ack', ackOf: ev.id, payload: value, tag: { kind: 'result-ack', rid: r.rid, ok: !refuse } });
        if (!refuse) {
          if (r.lastCopy?.ev === ev) r.lastCopyAcked = true;
          return;
        }
        // §7.3.6: send it again, trimmed: first without surfaces and observations, then also without data.
        this.at(this.now + this.rng.range(1, 30), () => this.trim(r, payload, tag, reason));
      });
    });
  }

  trim(r: Req, prev: Obj, prevTag: Tag & { kind: 'result' }, reason: string): void {
    const next: Obj = structuredClone(prev);
    const omitted: string[] = [];
    let copy: 'trim1' | 'trim2';
    if (prevTag.copy === 'first' && (prev.surfaces || prev.observations)) {
      for (const k of ['surfaces', 'observations']) if (k in next) (delete next[k], omitted.push(k));
      copy = 'trim1';
    } else {
      const before = (prev.delivery?.omitted as string[] | undefined) ?? [];
      omitted.push(...before);
      if ('data' in next) (delete next.data, omitted.push('data'));
      copy = 'trim2';
    }
    next.delivery = { trimmed: true, reason, omitted };
    const tag = { ...prevTag, copy };
    delete tag.lost;
    this.sendResult(r, next, tag, 'trim');
  }

  /** What the runtime keeps of an accepted result (§7.3.4). */
  accept(payload: Obj): void {
    const h = payload.surfacesHash as string | undefined;
    if (payload.surfaces) this.rt.held = h;
    else if (h !== this.rt.held) this.rt.held = undefined;
  }
}

export function generateAbstract(seed: number, opts: GenerateOptions = {}): AbsSession {
  const rng = new Rng(seed);
  const varied = opts.variedTimers !== false && rng.chance(0.25);
  const timers: Timers = varied
    ? { syncMs: rng.pick([45_000, 60_000, 120_000]), asyncAckMs: rng.pick([8000, 10_000, 20_000]), observationPullMs: 5000 }
    : { syncMs: 30_000, asyncAckMs: 5000, observationPullMs: 5000 };
  const s: AbsSession = { seed, t0: T0 + seed * 1000, timers, clients: [], notes: [], readings: [], nextId: 1 };
  if (varied) s.notes.push(`non-default runtime timers ${JSON.stringify(timers)} (§7.5: configurable)`);
  if (opts.unmountActingSurface) s.readings.push('unmount-acting-surface');
  const nClients = opts.clients ?? rng.weighted([[6, 1], [3, 2], [1, 3]] as const);
  let iframe = 0;
  for (let i = 0; i < nClients; i++) {
    const transport = opts.transport ?? rng.weighted<Transport>([[4, 'sio-ws'], [3, 'ws-json'], [2, 'sio-polling'], [2, 'sio-upgrade'], [2, 'postmessage'], [2, 'direct']]);
    const inFrame = transport === 'postmessage' || rng.chance(0.2);
    const frameNo = inFrame ? iframe++ : -1;
    const c: AbsClient = {
      name: `client${i + 1}`,
      transport,
      frameId: inFrame ? frameNo + 1 : 0,
      framePath: inFrame ? `top/${frameNo}` : 'top',
      peerFrameId: 0,
      peerPath: 'top',
      lateStart: false,
      namespace: rng.pick(['/', '/oui']),
      reanswerMs: rng.pick([8000, 8000, 10_000]),
      latencyMs: rng.range(2, 60),
      events: [],
      requests: {},
    };
    const end = s.t0 + (opts.durationMs ?? rng.range(30_000, 240_000));
    const sim = new ClientSim(rng, s, c, timers, end, opts);
    sim.now = s.t0 + rng.range(0, 2000);
    sim.at(sim.now, () => {
      sim.connect();
      sim.page = rng.pick(PAGE_NAMES);
      for (const id of PAGES[sim.page]!) sim.register(id, 'initial');
      sim.at(sim.now + rng.range(50, 2000), () => sim.agentLoop());
      sim.at(sim.now + rng.range(50, 2000), () => sim.pageLoop());
    });
    sim.run();
    // A late start: the capture begins at a quiet moment after the first registrations.
    if (opts.lateStart !== false && rng.chance(0.2) && sim.quiet.length > 2) {
      const cut = rng.pick(sim.quiet.slice(1));
      const kept = c.events.filter((e) => e.t > cut);
      if (kept.some((e) => e.tag?.kind === 'request')) {
        c.events = kept;
        c.lateStart = true;
        for (const [rid, info] of Object.entries(c.requests)) if (info.firstAt <= cut) delete c.requests[rid];
        s.notes.push(`${c.name}: capture starts at +${Math.round(cut - s.t0)} ms`);
      }
    }
    s.clients.push(c);
  }
  return s;
}

export { TRANSPORTS };
