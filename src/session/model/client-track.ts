/**
 * What the model tracks per client beyond the output shape (`ClientState`):
 * indexes that pair acknowledgments with what they acknowledge, per-request
 * bookkeeping the rules need, the surface sets seen under each hash. All
 * bounded; nothing here is shown as is.
 */
import { jsonPrefix } from '../../protocol/index.ts';
import type { OUIAction, OUISurface } from '../../protocol/index.ts';
import { BoundedMap, OldestKey, SlidingWindow, pushBounded } from './bounded.ts';
import type { FindingLog } from './findings.ts';
import { SPEC_TIMERS, type Timers } from './timers.ts';
import type { ApprovalCheck, AckRecord, ClientState, RequestState, ResultRecord } from './model-types.ts';
import type { WireClient } from '../wire/wire.ts';

export interface ModelLimits {
  maxFindings: number;
  /** History entries per observation. */
  maxHistory: number;
  /** Requests per client. */
  maxRequests: number;
  maxLifecycle: number;
  maxHashes: number;
  maxSurfaceSets: number;
  maxApprovals: number;
  maxAcks: number;
  /** Sends, receipts and results per request. */
  maxPerRequest: number;
  /** Observations per client. */
  maxObservations: number;
  maxClients: number;
}

export const DEFAULT_LIMITS: ModelLimits = {
  maxFindings: 5000,
  maxHistory: 200,
  maxRequests: 2000,
  maxLifecycle: 2000,
  maxHashes: 2000,
  maxSurfaceSets: 500,
  maxApprovals: 1000,
  maxAcks: 2000,
  maxPerRequest: 100,
  maxObservations: 2000,
  maxClients: 500,
};

/** What the client is expected to answer, and why. */
export interface Expectation {
  code: 'SURFACE_UNAVAILABLE' | 'ACTION_NOT_FOUND' | 'VALIDATION_ERROR';
  why: string;
}

export interface RequestMeta {
  /** The action declares `async: true`. */
  async: boolean;
  expect?: Expectation;
  approval?: ApprovalCheck;
  firstInterim?: ResultRecord;
  lastInterimHash?: string;
  /** The first final answer (not a re-send, not a repeat's answer). */
  final?: ResultRecord;
  /** When the receiver first acknowledged a final answer as accepted. */
  finalAckedAt?: number;
  /** A result the receiver refused, waiting for its trimmed re-send (§7.3.6). */
  refused?: { ref: ResultRef; t: number; ackEventId: string; reason: string };
  receiptRefused?: { eventId: string; reason: string };
  /** The runtime's deadline passed (§7.5), by tick or by a late answer. */
  timedOut?: boolean;
  /** Repeats (§7.3.7) by send event id, with the record that says how they were handled; the latest ones. */
  repeats: BoundedMap<string, RepeatRecord>;
  /**
   * argsHash of the params as sent, kept when the parser's copy of them was
   * cut at its depth cap (`isIncomplete`): the copy would hash to something
   * the runtime never approved.
   */
  sentArgsHash?: ApprovalCheck['recomputed'];
}

export interface RepeatRecord {
  t: number;
  ack: AckRecord;
  answered: boolean;
}

export interface RequestEntry {
  state: RequestState;
  meta: RequestMeta;
}

/** What a result was to its request: an interim, the final answer, a repeat's answer, a re-send of one of those. */
export type ResultRole = 'interim' | 'final' | 'repeat' | 'duplicate';

export interface ResultRef {
  entry: RequestEntry;
  rec: ResultRecord;
  role: ResultRole;
}

export interface ObservationMeta {
  window: SlidingWindow;
  inBurst: boolean;
  bursts: number;
}

export class ClientTrack {
  readonly state: ClientState;
  /** Transport lost (§7.6.1), until the client registers again. */
  closed?: { t: number; eventId: string };
  /**
   * Surfaces the client registered (§7.2) and lost with its transport
   * (§7.6.1), by the event that lost them: gone until registered again. A
   * reconnection (a client that `replaces` this one) starts with them.
   */
  readonly lost = new Map<string, string>();
  /** The connection this one reconnects for (§7.6.1), whose requests its answers may still concern. */
  previous?: ClientTrack;
  readonly entries = new Map<string, RequestEntry>();
  /** The oldest request id, for dropping past maxRequests (see OldestKey). */
  private readonly oldestEntry = new OldestKey<string>(this.entries);
  /** Requests with no final result and no resolution: what tick() checks. */
  readonly open = new Set<RequestEntry>();
  /** Requests with a refused result not yet sent again (§7.3.6): what tick() checks. */
  readonly refusals = new Set<RequestEntry>();
  /** Request ids dropped to stay bounded, to tell "never seen" from "forgotten". */
  readonly forgotten = new BoundedMap<string, true>(10_000);
  /** Send event id → request id, for receipts. */
  readonly sends = new BoundedMap<string, string>(10_000);
  /** Result event id → the result, for the receiver's acknowledgment. */
  readonly results = new BoundedMap<string, ResultRef>(10_000);
  /** Surface sets seen (registered or reported), by their surfacesHash: the runtime's view (§7.3.4). */
  readonly setsByHash = new BoundedMap<string, OUISurface[]>(64);
  /**
   * Hashes the runtime took a whole set in under, and from what: a
   * registration, or the result event that carried it (until the receiver
   * refuses that result, §7.3.6): a hash stays held while any of its
   * latest few sources stands. What §7.3.4's "holds" means on the wire.
   */
  readonly heldBy = new BoundedMap<string, string[]>(256);
  /** When each surface last left the mounted set (deregistered, or missing from a reported set). */
  readonly removedAt = new BoundedMap<string, number>(1000);
  /** When each surface was last registered again over an earlier version (hot reload, §7.2). */
  readonly replacedAt = new BoundedMap<string, number>(1000);
  /** Registered surface ids, the latest registration last: an order clients keep their arrays in. */
  readonly registrationOrder = new Map<string, true>();
  /**
   * The inspector knows the client's whole mounted set, so a surface's
   * absence means something: a result reported the set (§7.3.5:
   * authoritative), or the capture saw the connection open (or the direct
   * transport attach), so every registration since is in it. A capture that
   * began later has seen registrations, not the set.
   */
  setComplete = false;
  /** The hashes of the mounted set as the client sent it (its own order, and by id), since the last change. */
  setHashes: string[] = [];
  /** Approval grants the traffic showed (`x-approval:*` with expiresAt), approvalId → expiresAt. */
  readonly grants = new BoundedMap<string, number>(1000);
  /** Single-use grants a run has used, approvalId → the request that ran on it. */
  readonly usedGrants = new BoundedMap<string, string>(10_000);
  readonly observationMeta = new Map<string, ObservationMeta>();
  /** How many `observation:request`s wait for an update, by `surfaceId/observationId`. */
  readonly pulls = new BoundedMap<string, number>(1000);
  /** `observation:request` event id → its `surfaceId/observationId`, for the client's acknowledgment. */
  readonly pullEvents = new BoundedMap<string, string>(1000);

  constructor(
    client: WireClient,
    readonly limits: ModelLimits,
    readonly log: FindingLog,
    readonly timers: Readonly<Timers> = SPEC_TIMERS,
  ) {
    this.state = {
      client,
      surfaces: new Map(),
      lifecycle: [],
      requests: new Map(),
      observations: new Map(),
      hashes: [],
      surfaceSets: [],
      approvals: [],
      acks: [],
      counts: {},
      dropped: {},
    };
  }

  get key(): string {
    return this.state.client.key;
  }

  drop(list: string, n = 1): void {
    if (n > 0) this.state.dropped[list] = (this.state.dropped[list] ?? 0) + n;
  }

  /** Appends to one of the state's bounded lists, counting what falls off. */
  push<T>(listName: 'lifecycle' | 'hashes' | 'surfaceSets' | 'approvals' | 'acks', item: T): void {
    const max = limitOf(this.limits, listName);
    this.drop(listName, pushBounded(this.state[listName] as T[], item, max));
  }

  /** Appends to a per-request list (sends, receipts, results), counting what falls off. */
  pushEntry<T>(list: T[], item: T): void {
    this.drop('requestEntries', pushBounded(list, item, this.limits.maxPerRequest));
  }

  addRequest(entry: RequestEntry): void {
    const id = entry.state.requestId;
    this.entries.set(id, entry);
    this.state.requests.set(id, entry.state);
    this.open.add(entry);
    while (this.entries.size > this.limits.maxRequests) {
      const oldId = this.oldestEntry.next()!;
      const old = this.entries.get(oldId)!;
      this.entries.delete(oldId);
      this.state.requests.delete(oldId);
      this.open.delete(old);
      this.refusals.delete(old);
      // The indexes hold only what lives: an acknowledgment of a forgotten event finds nothing.
      for (const s of old.state.sends) this.sends.delete(s.eventId);
      for (const r of old.state.results) this.results.delete(r.eventId);
      this.forgotten.set(oldId, true);
      this.drop('requests');
    }
  }

  mountedSurfaces(): OUISurface[] {
    return [...this.state.surfaces.values()].map((s) => s.surface);
  }

  /** The mounted surfaces as the client sent them: what its surfacesHash is taken over. */
  wireSurfaces(): OUISurface[] {
    return [...this.state.surfaces.values()].map((s) => (s.sent ?? s.surface) as OUISurface);
  }

  /** The action a surface mounted now declares, if both exist. */
  findAction(surfaceId: unknown, actionId: unknown): { surface?: OUISurface; action?: OUIAction } {
    if (typeof surfaceId !== 'string') return {};
    const surface = this.state.surfaces.get(surfaceId)?.surface;
    if (!surface) return {};
    const actions = Array.isArray(surface.actions) ? surface.actions : [];
    const action = actions.find((a) => a !== null && typeof a === 'object' && a.id === actionId);
    return { surface, action };
  }
}

function limitOf(limits: ModelLimits, listName: 'lifecycle' | 'hashes' | 'surfaceSets' | 'approvals' | 'acks'): number {
  switch (listName) {
    case 'lifecycle':
      return limits.maxLifecycle;
    case 'hashes':
      return limits.maxHashes;
    case 'surfaceSets':
      return limits.maxSurfaceSets;
    case 'approvals':
      return limits.maxApprovals;
    case 'acks':
      return limits.maxAcks;
  }
}

/** The runtime's deadline for the answer a request waits for (§7.5): the interim acknowledgment of an async one, else the final result. */
export function deadlineOf(track: ClientTrack, entry: RequestEntry): number {
  return entry.meta.async ? track.timers.asyncAckMs : track.timers.syncMs;
}

/** What every handler gets. */
export interface EventContext {
  track: ClientTrack;
  ev: { id: string; t: number; dir: 'in' | 'out'; injected?: boolean; wantsAck?: boolean; faulted?: true };
  /**
   * The payload as it was sent, before the parser's guarded copy left out
   * what it could not use: hashes are recomputed over what the client
   * hashed, and a member is "present" when the sender put it there.
   */
  raw?: Record<string, unknown>;
}

export { isRecord as isObj } from '../../protocol/json-object.ts';

/** Seconds with one decimal, for messages: "31.2 s". */
export function secs(ms: number): string {
  return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
}

/** A string from traffic, shortened and quoted for a message. */
export function q(v: unknown, max = 60): string {
  let s: string;
  try {
    // The start of its JSON at any depth (a 100,000-deep value is not written whole for a message).
    s = typeof v === 'string' ? v : (jsonPrefix(v, max) ?? String(v));
  } catch {
    try {
      s = String(v);
    } catch {
      s = '(unprintable)';
    }
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
