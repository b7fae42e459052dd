/**
 * What the session model holds: per client (never merged across clients,
 * §7.3.5), everything the panel's views show. Plain data, no DOM; the panel,
 * the tests, the exporter and a command-line linter all read the same shape.
 */
import type { Operation } from 'fast-json-patch';
import type { OUIAction, OUIActionApproval, OUIActionResult, OUISurface } from '../../protocol/index.ts';
import type { WireClient } from '../wire/wire.ts';

export type Severity = 'critical' | 'error' | 'warning' | 'info';

/** Who a rule binds, and so who is at fault when it fires: the page's OUI client or its agent runtime. */
export type Party = 'client' | 'runtime';

/** One conformance rule the inspector checks, with the spec section that makes it. */
export interface Rule {
  id: string;
  severity: Severity;
  section: string;
  title: string;
  party: Party;
  /** The spec release that introduced the rule, e.g. '0.6.0'. */
  since: string;
}

export interface Finding {
  /** Unique within a session. */
  id: string;
  rule: string;
  severity: Severity;
  /** Spec section, e.g. '§7.3.4': always its rule's. */
  section: string;
  /** Who is at fault: always its rule's party. */
  party: Party;
  /** One line: what happened, with the ids involved. */
  message: string;
  client: string;
  /** Wire event ids that show it (first is the main one). */
  events: string[];
  t: number;
  /** Raised by the user's own experiment (an injected or replayed request, or what answers it), not by the app's traffic. */
  experiment?: true;
}

export type LifecycleKind = 'registered' | 'replaced' | 'deregistered' | 'reported' | 'cleared';

export interface LifecycleEntry {
  t: number;
  eventId: string;
  surfaceId: string;
  kind: LifecycleKind;
}

export interface SurfaceState {
  surface: OUISurface;
  since: number;
  eventId: string;
  /** The surface as the client sent it, when the parser's copy left something out: what the client hashes (§7.3.4). */
  sent?: unknown;
  /** It came by `surface:register` (§7.2), not only in a result's reported set. */
  registered?: true;
}

export interface ReceiptRecord {
  eventId: string;
  t: number;
  ok: boolean;
  reason?: string;
}

export interface ResultRecord {
  eventId: string;
  t: number;
  result: OUIActionResult;
  /** The receiver's acknowledgment of this result (§7.3.6), once seen. */
  ack?: { eventId: string; t: number; ok: boolean; reason?: string };
  /** Answered a repeat (same requestId sent again). */
  forRepeat?: boolean;
  /** Sent asking the receiver for an acknowledgment (a Socket.IO ack): until one comes, its arrival is not shown. */
  wantsAck?: true;
}

export type RequestStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'timed-out';

export interface RequestState {
  requestId: string;
  surfaceId: string;
  actionId: string;
  params: unknown;
  approval?: OUIActionApproval;
  knownSurfaces?: string;
  /** The action as declared when the request arrived, if its surface was registered. */
  action?: OUIAction;
  /** Each time the request was sent: the first, then repeats (§7.3.7). */
  sends: Array<{ eventId: string; t: number; injected?: boolean }>;
  receipts: ReceiptRecord[];
  /** Interim, final and trimmed re-sends, in arrival order. */
  results: ResultRecord[];
  status: RequestStatus;
  /** From the first send to the final result. */
  durationMs?: number;
  /** How the runtime resolved it without the client's answer: deregistration or transport loss (§7.2, §7.6.1). */
  resolution?: { code: 'SURFACE_UNAVAILABLE'; t: number; eventId: string; why: string };
}

export interface ObservationChange {
  eventId: string;
  t: number;
  /** The update's own timestamp. */
  timestamp: number;
  /** RFC 6902 from the previous value; the first update has a single `replace` of the root. */
  patch: Operation[];
  /** Readable lines for the patch: "changed /items/0/qty from 1 to 2". */
  summary: string[];
  valid: boolean;
  errors: Array<{ pointer: string; message: string }>;
  /** Older than the latest timestamp already seen: the runtime keeps the latest (§7.4). */
  outOfOrder?: boolean;
}

export interface ObservationState {
  surfaceId: string;
  observationId: string;
  updateFrequency: 'realtime' | 'on-change' | 'polling';
  current: unknown;
  currentTimestamp?: number;
  updates: number;
  /** Updates in the last second of traffic, at the latest update. */
  rate: number;
  /** Bounded; `droppedHistory` counts what was dropped. */
  history: ObservationChange[];
  droppedHistory: number;
}

export type HashVerdict = 'match' | 'mismatch' | 'utf8-variant' | 'utf16le-variant' | 'bad-format' | 'missing' | 'unverifiable';

export interface HashRecord {
  eventId: string;
  t: number;
  requestId: string;
  reported?: string;
  /** surfacesHash of the surfaces the result carried, or of those held under the reported hash. */
  recomputed?: string;
  verdict: HashVerdict;
  /** Whether the result carried `surfaces`. */
  carriedSurfaces: boolean;
  knownSurfaces?: string;
}

export interface SurfaceSetChange {
  eventId: string;
  t: number;
  before: string;
  after: string;
  /** RFC 6902 patch from the previous surface set (as an object keyed by surface id) to this one. */
  patch: Operation[];
  /** Readable: "added action checkout to surface cart", "changed input of add_item". */
  summary: string[];
}

export type ApprovalOutcome = 'pending' | 'ran' | 'refused' | 'failed';

export interface ApprovalCheck {
  requestId: string;
  eventId: string;
  t: number;
  surfaceId: string;
  actionId: string;
  effect?: string;
  confirm: boolean;
  carried?: OUIActionApproval;
  /** argsHash(params) as the inspector computes it, or why it cannot be computed. */
  recomputed: { ok: true; hash: string } | { ok: false; error: string };
  hashMatches: boolean;
  /** An approval grant's expiry, when the traffic shows one (an `x-approval` event). */
  expiresAt?: number;
  outcome: ApprovalOutcome;
  /** The refusal's error code, or the result's. */
  code?: string;
}

export type AckKind = 'receipt' | 'result-ack' | 'trimmed-resend' | 'repeat';

export interface AckRecord {
  kind: AckKind;
  eventId: string;
  t: number;
  requestId?: string;
  ok?: boolean;
  reason?: string;
  /** For a trimmed re-send: what it left out. */
  omitted?: string[];
  /** For a repeat: how the client handled it ("receipt only", "answered again with the same result", ...). */
  handling?: string;
}

export interface ClientState {
  client: WireClient;
  /** The spec release the client's surfaces declare in their metadata, when they do: it is judged by it. */
  declaredVersion?: string;
  /** Mounted now, by surface id. */
  surfaces: Map<string, SurfaceState>;
  lifecycle: LifecycleEntry[];
  requests: Map<string, RequestState>;
  observations: Map<string, ObservationState>;
  hashes: HashRecord[];
  surfaceSets: SurfaceSetChange[];
  approvals: ApprovalCheck[];
  acks: AckRecord[];
  /** Counts of events per type, for the client list. */
  counts: Record<string, number>;
  /** What the bounded lists above dropped to stay bounded, by list name. */
  dropped: Record<string, number>;
}
