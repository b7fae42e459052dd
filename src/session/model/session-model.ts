/**
 * The session model: decoded wire events in, per-client state and findings
 * out (the shape in `model-types.ts`). Clients are never merged (§7.3.5):
 * the same surface id in two clients is two surfaces. The model keeps no
 * copy of the wire events; everything points at them by id.
 *
 * Pure and incremental, like the decoder: the panel feeds it live; an import,
 * `oui-devtools lint` (src/cli), the Playwright fixture (src/playwright) and
 * the tests feed it recorded lists.
 */
import { errorMessage, parseAcknowledgment, sentToClient, setMember, toJsonSafe } from '../../protocol/index.ts';
import { Experiments } from './experiments.ts';
import { FindingLog } from './findings.ts';
import { onApprovalExtension } from './approvals.ts';
import { ClientTrack, DEFAULT_LIMITS, isObj, q, type EventContext, type ModelLimits } from './client-track.ts';
import { onObservationRequest, onObservationUpdate, onPullAck } from './observations.ts';
import { readPayload } from './payload.ts';
import { fileProblem } from './problem-rules.ts';
import { noteIgnoredRequest } from './session-checks.ts';
import { judgedVersion, type SpecVersion } from './rules.ts';
import { onReceipt, onRequest, tickRequests } from './requests.ts';
import { PARK_SETTLE_MS, finishRefusals, onResult, onResultAck, pairParked, settleParked } from './results.ts';
import { onDeregister, onRegister, onTransportLost } from './surfaces.ts';
import type { ClientState, Finding } from './model-types.ts';
import { resolveTimers, type Timers } from './timers.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';

export interface SessionModelOptions {
  maxFindings?: number;
  /** History entries kept per observation. */
  maxHistory?: number;
  /** Requests kept per client. */
  maxRequests?: number;
  /** The spec release the user picked to judge clients by (default: the newest); see `judgedVersion`. */
  specVersion?: string;
  /** The timers the app's parties run with (§7.5, §7.3.7); the spec's defaults for what is not set. */
  timers?: Partial<Timers>;
}

/** Lifecycle names that mean the transport is gone (§7.6.1). */
const TRANSPORT_LOST = new Set(['close', 'engine close', 'socket.io disconnect']);
const TRANSPORT_UP = new Set(['open', 'socket.io connect']);
/** Distinct count keys per client; traffic with endless `x-` types folds into one. */
const MAX_COUNT_KEYS = 100;
/** Acknowledgments waiting for the event they acknowledge, per client; past this the oldest is dropped and counted. */
const MAX_PARKED_ACKS = 1_000;

export class SessionModel {
  readonly clients = new Map<string, ClientState>();
  readonly findings: Finding[];
  /** Clients past the cap, whose traffic was not modelled. */
  clientsDropped = 0;
  /** Events whose handling failed inside the model (a bug here, never the traffic's fault); counted so it is not silent. */
  internalErrors = 0;
  lastInternalError?: string;

  /** The release the user picked: every client is judged by it, but one whose surfaces declare another. */
  readonly specVersion: SpecVersion;
  readonly timers: Readonly<Timers>;
  private readonly log: FindingLog;
  /** The user's injected and replayed requests and their answers: their findings are marked as experiments. */
  private readonly experiments = new Experiments();
  private readonly limits: ModelLimits;
  private readonly tracks = new Map<string, ClientTrack>();
  /**
   * Acknowledgments that came before what they acknowledge (two frames'
   * clocks disagree), by the acknowledged event's id: applied when it is.
   */
  private readonly parkedAcks = new Map<ClientTrack, { byEvent: Map<string, WireEvent[]>; count: number }>();

  constructor(opts: SessionModelOptions = {}) {
    this.limits = {
      ...DEFAULT_LIMITS,
      ...(positive(opts.maxFindings) ? { maxFindings: opts.maxFindings } : {}),
      ...(positive(opts.maxHistory) ? { maxHistory: opts.maxHistory } : {}),
      ...(positive(opts.maxRequests) ? { maxRequests: opts.maxRequests } : {}),
    };
    this.specVersion = judgedVersion(opts.specVersion);
    this.timers = resolveTimers(opts.timers);
    this.log = new FindingLog(this.limits.maxFindings, (client) => judgedVersion(this.specVersion, this.clients.get(client)?.declaredVersion));
    this.log.experimentOf = (events) => this.experiments.anyExperiment(events);
    this.findings = this.log.list;
  }

  /** Whether the event is part of the user's own experiment: injected or replayed by the panel, or answering such a request. */
  isExperiment(eventId: string): boolean {
    return this.experiments.isExperiment(eventId);
  }

  /**
   * Puts `list` in place of the findings judged: for a finished recording
   * whose values were redacted, the findings it stands by (redact/carried.ts)
   * instead of verdicts judged on its markers. Nothing is judged after it.
   */
  standBy(list: readonly Finding[]): void {
    this.findings.splice(0, this.findings.length, ...list);
  }

  /** Findings dropped to keep the list bounded (oldest first, critical ones last). */
  get findingsDropped(): number {
    return this.log.dropped;
  }

  /**
   * Counts the calls that may change what the model holds (apply, tick,
   * finish): a reader that saw a revision knows nothing changed while it is
   * the same, without reading the model again.
   */
  get revision(): number {
    return this.changes;
  }
  private changes = 0;
  /** The latest clock a tick gave: when a finished recording ended. */
  private lastTick = -Infinity;

  /** Feed one decoded event of a client. Never throws, whatever the payload. */
  apply(ev: WireEvent, client: WireClient): void {
    this.changes++;
    try {
      if (!isObj(ev)) return;
      const track = this.track(client, ev);
      if (!track) return;
      this.dispatch(track, ev);
      this.unparkAcks(track, typeof ev.id === 'string' ? ev.id : String(ev.id));
    } catch (e) {
      this.internalErrors++;
      this.lastInternalError = errorMessage(e);
    }
  }

  /** Advance the clock: marks the requests past the runtime's deadlines (§7.5) and judges what has waited long enough to be certain. */
  tick(now: number): void {
    if (typeof now !== 'number' || !Number.isFinite(now)) return;
    this.changes++;
    if (now > this.lastTick) this.lastTick = now;
    for (const track of this.tracks.values()) {
      try {
        tickRequests(track, now);
        settleParked(track, now);
        this.settleAcks(track, now - PARK_SETTLE_MS);
      } catch (e) {
        this.internalErrors++;
        this.lastInternalError = errorMessage(e);
      }
    }
  }

  /**
   * The recording is over: nothing more will arrive, so results still waiting
   * for their request were never received, and acknowledgments still waiting
   * for their event acknowledge nothing seen.
   */
  finish(): void {
    this.changes++;
    for (const track of this.tracks.values()) {
      try {
        settleParked(track, Infinity);
        this.settleAcks(track, Infinity);
        finishRefusals(track, this.lastTick);
      } catch (e) {
        this.internalErrors++;
        this.lastInternalError = errorMessage(e);
      }
    }
  }

  private track(client: WireClient, ev: WireEvent): ClientTrack | undefined {
    const key = isObj(client) && typeof client.key === 'string' ? client.key : typeof ev.client === 'string' ? ev.client : '';
    let track = this.tracks.get(key);
    if (track) return track;
    if (this.tracks.size >= this.limits.maxClients) {
      this.clientsDropped++;
      return undefined;
    }
    const info: WireClient = isObj(client) ? { ...client, key } : { key, kind: 'direct', label: key, origin: '', frameUrl: '', frameId: 0 };
    track = new ClientTrack(info, this.limits, this.log, this.timers);
    this.inherit(track, info);
    this.tracks.set(key, track);
    this.clients.set(key, track.state);
    return track;
  }

  /**
   * A reconnection of a client whose transport was lost (§7.6.1): it starts
   * where the loss left that one, its registered surfaces gone until it
   * registers them again, so "on reconnection, surfaces MUST re-register"
   * is judged across the two connections.
   */
  private inherit(track: ClientTrack, client: WireClient): void {
    const from = typeof client.replaces === 'string' ? this.tracks.get(client.replaces) : undefined;
    if (!from || !from.closed) return;
    for (const [id, eventId] of from.lost) track.lost.set(id, eventId);
    track.previous = from;
    // One connection back is what an answer can concern: no chain of every connection the app ever had.
    from.previous = undefined;
  }

  private context(track: ClientTrack, ev: WireEvent): EventContext {
    const id = typeof ev.id === 'string' ? ev.id : String(ev.id);
    const t = typeof ev.t === 'number' && Number.isFinite(ev.t) ? ev.t : 0;
    return { track, ev: { id, t, dir: ev.dir === 'out' ? 'out' : 'in', ...(ev.injected ? { injected: true } : {}), ...(ev.wantsAck === true ? { wantsAck: true } : {}), ...(typeof ev.faulted === 'string' ? { faulted: true as const } : {}) } };
  }

  private dispatch(track: ClientTrack, ev: WireEvent): void {
    // Nothing counted yet: this is the first event the capture shows of the client.
    const first = Object.keys(track.state.counts).length === 0;
    const c = this.context(track, ev);
    const { id, t } = c.ev;
    // A faulted event is the user's experiment as an injected one is: its findings are kept with them.
    if (c.ev.injected || c.ev.faulted) this.experiments.noteInjected(id);
    this.count(track, ev.kind === 'event' && typeof ev.type === 'string' ? ev.type : String(ev.kind));
    switch (ev.kind) {
      case 'malformed': {
        const note = typeof ev.note === 'string' ? ev.note : 'undecodable frame';
        track.log.raise({ rule: c.ev.dir === 'in' ? 'malformed-frame-from-runtime' : 'malformed-frame', client: track.key, subject: note, message: `malformed frame (${q(note, 120)}): the receiver must ignore it`, events: [id], t });
        return;
      }
      case 'lifecycle':
        if (typeof ev.type === 'string' && TRANSPORT_LOST.has(ev.type)) onTransportLost(c, ev.type);
        else if (typeof ev.type === 'string' && TRANSPORT_UP.has(ev.type)) {
          track.closed = undefined;
          // The capture saw the connection begin: every registration on it is seen, so the mounted set is whole.
          if (first) track.setComplete = true;
        }
        return;
      case 'ack':
        this.ack(c, ev);
        return;
      case 'event':
        if (typeof ev.type === 'string') this.event(c, ev.type, ev.payload);
        return;
    }
  }

  private count(track: ClientTrack, key: string): void {
    const counts = track.state.counts;
    if (!Object.hasOwn(counts, key) && Object.keys(counts).length >= MAX_COUNT_KEYS) key = 'other types';
    // Page-chosen names: `constructor` or `__proto__` must count as own members, never reach the prototype
    // (an own member, once there, is what an assignment writes: it shadows anything inherited).
    if (Object.hasOwn(counts, key)) counts[key] = counts[key]! + 1;
    else setMember(counts, key, 1);
  }

  private event(c: EventContext, type: string, payload: unknown): void {
    const { track, ev } = c;
    if (type.startsWith('x-')) {
      // Extensions are ignored silently (§7.1); an approval grant's expiry is worth reading.
      if (type.startsWith('x-approval')) onApprovalExtension(c, toJsonSafe(payload));
      return;
    }
    const read = readPayload(type, payload);
    if (!read.ok && read.extension) return;
    // Only guarded copies are read here: the parser's, or for an unusable event a fresh one.
    const copy = read.ok ? read.payload : safeObject(payload);
    // Before any finding is raised: whether this belongs to an experiment decides how its findings are marked.
    if (typeof copy?.requestId === 'string') {
      if (type === 'action:request') this.experiments.noteRequest(track.key, copy.requestId, ev.t, ev.injected === true || ev.faulted === true);
      else if (type === 'action:result') this.experiments.noteResult(track.key, ev.id, copy.requestId, ev.t);
    }
    for (const p of read.problems) {
      const filed = fileProblem(p, type, labelOf(type, copy), copy, ev.dir);
      track.log.raise({
        rule: filed.rule,
        client: track.key,
        subject: filed.subject,
        message: filed.message,
        events: [ev.id],
        t: ev.t,
        ...(filed.own ? { severity: p.severity } : {}),
      });
    }
    if (!read.ok) {
      const errors = read.problems.filter((p) => p.severity === 'error');
      const why = errors.slice(0, 3).map((p) => `${p.path || '(payload)'}: ${p.message}`).join('; ') || 'unreadable payload';
      noteIgnoredRequest(c, type, copy);
      track.log.raise({ rule: ev.dir === 'in' ? 'event-ignored-from-runtime' : 'event-ignored', client: track.key, subject: `${type}|${why}`, message: `${labelOf(type, copy)} is malformed (${why}); the receiver must ignore it`, events: [ev.id], t: ev.t });
      return;
    }
    const expected = sentToClient(type) ? 'in' : 'out';
    if (ev.dir !== expected) {
      track.log.raise({
        rule: expected === 'in' ? 'wrong-direction' : 'wrong-direction-from-runtime',
        client: track.key,
        subject: type,
        message: `${labelOf(type, copy)} travelled ${expected === 'in' ? 'from the client to its runtime' : 'from the runtime to the client'}; ${type} goes the other way`,
        events: [ev.id],
        t: ev.t,
      });
    }
    const p = read.payload;
    if (isObj(payload)) c.raw = payload;
    switch (type) {
      case 'surface:register':
        return onRegister(c, p);
      case 'surface:deregister':
        return onDeregister(c, p);
      case 'action:request': {
        onRequest(c, p);
        if (typeof p.requestId !== 'string') return;
        for (const id of pairParked(track, p.requestId)) this.unparkAcks(track, id);
        return;
      }
      case 'action:result':
        return onResult(c, p);
      case 'observation:update':
        return onObservationUpdate(c, p);
      case 'observation:request':
        return onObservationRequest(c, p);
    }
  }

  private ack(c: EventContext, ev: WireEvent): void {
    const of = ev.ackOf;
    if (typeof of !== 'string') return;
    this.experiments.noteAck(c.ev.id, of);
    const { track } = c;
    if (track.pullEvents.has(of)) {
      const pull = parseAcknowledgment(ev.payload);
      if (pull) onPullAck(track, of, pull.ok);
      return;
    }
    const requestId = track.sends.get(of);
    const ref = requestId === undefined ? track.results.get(of) : undefined;
    if (requestId === undefined && !ref) return this.parkAck(track, of, ev);
    const kind = requestId !== undefined ? 'receipt' : 'result acknowledgment';
    const parsed = parseAcknowledgment(ev.payload);
    // A result's refusal may say `error` (§7.3.6, the Socket.IO form); a receipt's says `reason` (§7.3.7, OUIAcknowledgment).
    if (!parsed || (!parsed.ok && (parsed.via === 'none' || (requestId !== undefined && parsed.via === 'error')))) {
      track.log.raise({
        rule: requestId !== undefined ? 'ack-shape' : 'result-ack-shape',
        client: track.key,
        subject: kind,
        message: `${kind} ${q(ev.payload)} is neither { ok: true } nor { ok: false, reason }`,
        events: [c.ev.id, of],
        t: c.ev.t,
      });
    }
    if (!parsed) return;
    // A refusal without its reason is still a refusal.
    const ack = parsed.ok ? { ok: true } : { ok: false, ...(parsed.via !== 'none' ? { reason: parsed.reason } : {}) };
    if (requestId !== undefined) onReceipt(c, of, requestId, ack);
    else onResultAck(c, ref!, ack);
  }

  private parkAck(track: ClientTrack, of: string, ev: WireEvent): void {
    let parked = this.parkedAcks.get(track);
    if (!parked) this.parkedAcks.set(track, (parked = { byEvent: new Map(), count: 0 }));
    const list = parked.byEvent.get(of);
    if (list) list.push(ev);
    else parked.byEvent.set(of, [ev]);
    if (++parked.count <= MAX_PARKED_ACKS) return;
    const [oldestOf, oldest] = parked.byEvent.entries().next().value as [string, WireEvent[]];
    oldest.shift();
    if (!oldest.length) parked.byEvent.delete(oldestOf);
    parked.count--;
    track.drop('parkedAcks');
  }

  /** The event `id` was applied: acknowledgments that came before it are applied now, in their own order. */
  private unparkAcks(track: ClientTrack, id: string): void {
    const parked = this.parkedAcks.get(track);
    const list = parked?.byEvent.get(id);
    if (!parked || !list) return;
    parked.byEvent.delete(id);
    parked.count -= list.length;
    for (const ack of list) this.ack(this.context(track, ack), ack);
  }

  /** Acknowledgments parked at or before `cutoff` acknowledge nothing the capture shows: dropped, as unpaired ones always were. */
  private settleAcks(track: ClientTrack, cutoff: number): void {
    const parked = this.parkedAcks.get(track);
    if (!parked || !parked.count) return;
    for (const [of, list] of [...parked.byEvent]) {
      const keep = list.filter((ack) => this.context(track, ack).ev.t > cutoff);
      parked.count -= list.length - keep.length;
      if (keep.length) parked.byEvent.set(of, keep);
      else parked.byEvent.delete(of);
    }
  }
}

/** "action:result <requestId>", "surface:register <id>": what a finding calls an event (made only when a finding is raised). */
function labelOf(type: string, p: Record<string, unknown> | undefined): string {
  const id = p ? (p.requestId ?? p.surfaceId ?? (isObj(p.surface) ? p.surface.id : undefined)) : undefined;
  return `${type}${typeof id === 'string' ? ` ${q(id)}` : ''}`;
}

function safeObject(v: unknown): Record<string, unknown> | undefined {
  const copy = toJsonSafe(v);
  return isObj(copy) ? copy : undefined;
}

function positive(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 1;
}

/** Feeds a recorded list in order, advances the clock to its last event, and ends the recording (see `finish`). */
export function replay(events: Array<{ ev: WireEvent; client: WireClient }>, opts?: SessionModelOptions): SessionModel {
  const model = new SessionModel(opts);
  let last: number | undefined;
  for (const item of events) {
    if (!isObj(item)) continue;
    model.apply(item.ev, item.client);
    const t = isObj(item.ev) ? item.ev.t : undefined;
    if (typeof t === 'number' && Number.isFinite(t) && (last === undefined || t > last)) last = t;
  }
  if (last !== undefined) model.tick(last);
  model.finish();
  return model;
}
