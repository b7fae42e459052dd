/**
 * The public types of `oui-devtools/playwright` (package.json "exports" →
 * "types"). Written by hand so that they stand alone; src/playwright/index.ts
 * is checked against them when the project is typechecked (it implements
 * `Oui` and its `test` and `expect` are declared with these types).
 */
import type {
  Expect,
  ExpectMatcherState,
  MatcherReturnType,
  PlaywrightTestArgs,
  PlaywrightTestOptions,
  PlaywrightWorkerArgs,
  PlaywrightWorkerOptions,
  TestType,
} from '@playwright/test';

export type OuiSeverity = 'critical' | 'error' | 'warning' | 'info';

/** A conformance finding, as the panel's Findings view shows it. */
export interface OuiFinding {
  id: string;
  /** Rule id (docs/conformance.md). */
  rule: string;
  severity: OuiSeverity;
  /** Spec section, e.g. '§7.3.4'. */
  section: string;
  /** Who is at fault: the page's OUI client or its agent runtime. */
  party: 'client' | 'runtime';
  message: string;
  /** The client's key. */
  client: string;
  /** Ids of the wire events that show it, the main one first. */
  events: string[];
  /** Capture time (epoch ms). */
  t: number;
  experiment?: true;
}

/** One logical OUI client the capture saw (a Socket.IO namespace session, a WebSocket, a postMessage pairing, a direct-hook registration). */
export interface OuiClient {
  key: string;
  kind: 'websocket' | 'polling' | 'postmessage' | 'direct' | 'socket.io';
  label: string;
  origin: string;
  frameUrl: string;
  frameId: number;
  namespace?: string;
}

/** One decoded record of the session (see src/session/wire/wire.ts). */
export interface OuiWireEvent {
  id: string;
  client: string;
  t: number;
  dir: 'out' | 'in';
  kind: 'event' | 'ack' | 'lifecycle' | 'other' | 'malformed';
  type?: string;
  payload?: unknown;
  ackOf?: string;
  wantsAck?: boolean;
  raw?: string;
  size: number;
  note?: string;
  via?: 'polling' | 'websocket';
  held?: boolean;
  injected?: boolean;
}

/** The panel's session export: what `oui-session.json` holds, openable with the panel's Import. */
export interface OuiSessionFile {
  format: 'oui-devtools-session';
  version: 1;
  exportedAt: string;
  clients: OuiClient[];
  events: OuiWireEvent[];
}

/** What the session model holds (the panel's model; see src/session/model/model-types.ts for every field). */
export interface OuiSessionModel {
  readonly findings: OuiFinding[];
  /** Per client key: its surfaces (mounted now, by id), requests, observations, hashes, approvals, acknowledgments, counts. */
  readonly clients: Map<string, OuiClientState>;
  readonly specVersion: string;
  /** The timers the session was judged with: what `ouiOptions.timers` set, the spec's defaults for the rest. */
  readonly timers: Readonly<OuiTimers>;
  readonly internalErrors: number;
}

export interface OuiClientState {
  client: OuiClient;
  declaredVersion?: string;
  /** Mounted now, by surface id: the registered surface (an OUISurface). */
  surfaces: Map<string, { surface: { id: string; name: string; description: string; actions: Array<{ id: string }> }; since: number; eventId: string }>;
  /** By requestId. */
  requests: Map<string, { requestId: string; surfaceId: string; actionId: string; params: unknown; status: string; durationMs?: number }>;
  observations: Map<string, unknown>;
  counts: Record<string, number>;
}

export interface OuiFindingsOptions {
  /** The lowest severity reported (default 'error'): 'warning' also reports warnings, and so on. */
  min?: OuiSeverity;
}

/** A frame `settle()` could not flush, and why: it was detached or its page closed mid-flush, it kept navigating, or its marker could not come through. */
export interface OuiUnflushedFrame {
  url: string;
  reason: 'detached' | 'closed' | 'navigated' | 'lost' | 'no-marker';
}

/** What `settle()` found, frame by frame. */
export interface OuiSettleReport {
  /** Frames of open pages asked to flush. */
  frames: number;
  /** Frames whose hook sent everything it had captured, then its marker, and the marker arrived. */
  flushed: number;
  /** Frames in which no hook answered (none was installed there). */
  noHook: number;
  /** Of the flushed, frames whose document changed during the flush: the new document was flushed. */
  navigated: number;
  /** Frames that could not be flushed: what they captured last may be missing. */
  unflushed: OuiUnflushedFrame[];
  /** Items hooks still held when they answered (a binary payload still being read after about a second). */
  waiting: number;
  /** Items hooks had numbered that had not reached the test when their marker did (dropped on the way). */
  behind: number;
}

export interface Oui {
  /**
   * A flush handshake with every frame of every open page: each frame's hook
   * sends everything it captured so far, then a marker through the same
   * channel, and this resolves once every frame's marker arrived (or the
   * frame proved it cannot answer: no hook, detached, closed, navigating).
   * The other methods settle first; call it to read `events` yourself.
   */
  settle(): Promise<OuiSettleReport>;
  /** The findings at `min` or above (default 'error'), judged as an imported recording is: nothing more will arrive. */
  findings(options?: OuiFindingsOptions): Promise<OuiFinding[]>;
  /** The session model of everything captured so far, judged as an imported recording. */
  session(): Promise<OuiSessionModel>;
  /** Every logical client seen so far, across pages and frames. */
  clients(): Promise<OuiClient[]>;
  /** Every decoded event so far, in the session file's order. */
  events(): Promise<OuiWireEvent[]>;
  /** The session as the panel exports it (what is attached as oui-session.json). */
  sessionFile(): Promise<OuiSessionFile>;
}

/**
 * The timers the spec leaves configurable, in milliseconds: §7.5's are the
 * agent runtime's ("Configurable: Yes"), §7.3.7's re-answer interval is the
 * client's. A late answer is judged against the runtime's timer, so set the
 * ones your app's runtime runs with.
 */
export interface OuiTimers {
  /** The runtime's deadline for a sync action's result (default 30000). */
  syncMs: number;
  /** The runtime's deadline for an async action's interim acknowledgment (default 5000). */
  asyncAckMs: number;
  /** The runtime's deadline for the update an observation:request asks for (default 5000). */
  observationPullMs: number;
  /** The client's re-answer interval for a repeated request (default 8000). */
  reanswerMs: number;
}

export interface OuiOptions {
  /** When to attach oui-session.json to the test's report (default 'always'). */
  attach?: 'always' | 'on-failure' | 'never';
  /** The spec release clients that declare none are judged by (default: the newest the model knows). */
  specVersion?: string;
  /** The timers the app's runtime and clients run with (default: the spec's); each more than 0 and at most a day. */
  timers?: Partial<OuiTimers>;
}

export interface OuiFixtures {
  oui: Oui;
  ouiOptions: OuiOptions;
}

export type OuiMatchers = {
  /** Passes when the capture shows no finding at `min` or above (default 'error'); the message lists each with its rule, section, party and event. */
  toHaveNoFindings(this: ExpectMatcherState, oui: Oui, options?: OuiFindingsOptions): Promise<MatcherReturnType>;
};

export declare const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions & OuiFixtures, PlaywrightWorkerArgs & PlaywrightWorkerOptions>;
export declare const expect: Expect<OuiMatchers>;
/** The failure text `toHaveNoFindings` uses, for a list of findings of `oui`. */
export declare function formatFindings(findings: readonly OuiFinding[], session: OuiSessionFile): string;
/** The name of the binding the fixture exposes in every frame (it must not collide with the app's globals). */
export declare const OUI_FIXTURE_BINDING: string;
