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

export interface OuiEventsOptions {
  /** A query: `type:` `client:` `surface:` `action:` `status:` `dir:` `dur:>500ms` `size:>1kb` `has:finding` `is:experiment`, `-` to negate, "quoted values", /regex/, free text; every term must hold. */
  filter?: string;
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
  /**
   * Every decoded event so far, in the session file's order; with `filter`,
   * those that match it, in the panel's filter grammar (docs/panel.md):
   * `oui.events({ filter: 'type:action:request surface:cart -status:succeeded' })`.
   * A request's status and duration are read as the session stands now. A
   * bad query throws, naming the bad term and its column.
   */
  events(options?: OuiEventsOptions): Promise<OuiWireEvent[]>;
  /** The session as the panel exports it (what is attached as oui-session.json). */
  sessionFile(): Promise<OuiSessionFile>;
  /**
   * Sends `action:request` to the page's client as its agent runtime would (a
   * stand-in runtime: fresh UUID v4 requestId, `knownSurfaces` when it holds
   * the client's surfaces, receipts and results acknowledged, re-sent while
   * no answer comes) and resolves with the client's final `action:result`
   * payload (an interim result is not the end). Rejects on timeout, an
   * unknown surface, a client that cannot be told apart, an approval not given.
   * The client's answers are kept from the app's own runtime.
   */
  call(surfaceId: string, actionId: string, params?: Record<string, unknown>, options?: OuiCallOptions): Promise<OuiActionResult>;
  /** Fault rules on every page and frame of the test's context. */
  readonly faults: OuiFaults;
  /**
   * Takes over the client that has `surfaceId` mounted (or `options.client`):
   * a fault rule drops every OUI event and acknowledgment the app's real
   * runtime sends it, so only `call` (the stand-in) speaks to it. Resolves
   * with the rule's id; `faults.clear()` ends it.
   */
  takeover(surfaceId: string, options?: { client?: string }): Promise<string>;
  /** An observation's latest value the capture holds (on `client` when given: a key or a part of its key or label), or undefined. */
  observation(surfaceId: string, observationId: string, options?: { client?: string }): Promise<unknown>;
  /** Runs a scenario (a file path or the object) step by step through `call`; resolves with each step's verdict. */
  runScenario(file: string | OuiScenario, options?: OuiRunOptions): Promise<OuiScenarioReport>;
  // oui.serve (src/playwright/serve.ts) is declared by its helper below this line.
  /**
   * Starts the virtual server for `urlPattern` (an exact URL, or a glob on host
   * and path: `ws://127.0.0.1:5173/ws-json`, `*:5173/socket.io/`, `/ws-json`):
   * the page's WebSockets and Socket.IO connections to it are answered inside
   * the page and never reach the network, so the app runs with no runtime;
   * `call` sends it requests. Open frames are served at once, new documents
   * from their first script. docs/virtual-server.md.
   */
  serve(urlPattern: string, options?: OuiServeOptions): Promise<OuiServed>;
}

export interface OuiCallOptions {
  /** The client: its key, or a part of its key or label (default: the one client with the surface mounted). */
  client?: string;
  /**
   * `true`: ask the tab for the user's approval first (the `x-approval:ask`
   * event; the test confirms in the page) and send with `approval:
   * { approvalId, argsHash }` once it grants; `{ approvalId }`: a grant the
   * tab already holds. argsHash is SHA-256 of the JCS canonical `params`.
   */
  approve?: true | { approvalId: string };
  /** Deadline for the final result (default §7.5's: 30 s, or 5 s for an async action's acknowledgment). */
  timeoutMs?: number;
  /** Send with this requestId (a same-id replay) rather than a fresh UUID v4. */
  requestId?: string;
  /** How long to wait for the surface to be mounted on a client a request can reach (a page that just opened is still connecting; a Socket.IO client is reached once it upgraded to WebSocket). Default 5000 ms. */
  waitMs?: number;
}

/** `action:result` (§7.3.2–§7.3.6). */
export interface OuiActionResult {
  requestId: string;
  success: boolean;
  data?: unknown;
  error?: { code: string; message: string; details?: unknown };
  interim?: boolean;
  timestamp: number;
  surfaces?: Array<{ id: string; name: string; description: string; actions: Array<{ id: string }> }>;
  observations?: Record<string, Record<string, unknown>>;
  surfacesHash?: string;
  delivery?: { trimmed: true; reason: string; omitted: Array<'surfaces' | 'observations' | 'data'> };
  settled?: boolean;
  progress?: number;
  durationMs?: number;
}

/** A fault rule (src/runtime/faults.ts): which events it matches and what it does to them. */
export interface OuiFaultRule {
  id: string;
  match: {
    direction?: 'to-client' | 'from-client';
    /** An OUI event type or 'ack'. */
    type?: string;
    surfaceId?: string;
    actionId?: string;
    client?: string;
    transport?: 'websocket' | 'socket.io' | 'postmessage' | 'direct';
  };
  fault:
    | { kind: 'drop' }
    | { kind: 'delay'; ms: number }
    | { kind: 'duplicate' }
    | { kind: 'reorder' }
    | { kind: 'refuse-result'; error: string }
    | { kind: 'withhold-ack' }
    | { kind: 'delay-ack'; ms: number }
    | { kind: 'drop-answer' }
    | { kind: 'disconnect'; code: number; reason: string }
    | { kind: 'stale-known-surfaces'; knownSurfaces: string }
    | { kind: 'approval'; change: 'args-hash' | 'reuse' | 'expire'; ms?: number };
  probability?: number;
  maxCount?: number;
  enabled?: boolean;
}

export interface OuiFaults {
  /** Adds a rule (one with the same id is replaced) on every frame's hook; the stand-in refuses results by `refuse-result` rules. `seed` makes the draws repeatable (default 21). */
  add(rule: OuiFaultRule, options?: { seed?: number }): Promise<void>;
  /** Removes every rule. */
  clear(): Promise<void>;
  /** The rules in force. */
  rules(): OuiFaultRule[];
}

/** One step of a scenario: a request and what must come of it. */
export interface OuiScenarioStep {
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  client?: string;
  approve?: true | { approvalId: string };
  timeoutMs?: number;
  expect?: { success: true } | { error: string };
  /** A JSON Schema `data` must match (`{ schema }`), or the value it must equal (`{ equals }`). */
  data?: { schema: unknown } | { equals: unknown };
  /** After the step: observation values by surface id, then observation id: `{ equals }` or `{ schema }` each. */
  observations?: Record<string, Record<string, { schema: unknown } | { equals: unknown }>>;
  name?: string;
}

/** A scenario file (`oui-devtools-scenario`, version 1). */
export interface OuiScenario {
  format: 'oui-devtools-scenario';
  version: 1;
  origin?: string;
  name?: string;
  steps: OuiScenarioStep[];
}

export interface OuiRunOptions {
  /** Stop at the first failed step (default true). */
  stopOnFailure?: boolean;
  /** Called with each step's verdict as it comes. */
  onStep?: (result: OuiStepResult) => void;
}

export interface OuiStepResult {
  index: number;
  step: OuiScenarioStep;
  pass: boolean;
  /** Each check that failed, in words. */
  failures: string[];
  result?: OuiActionResult;
  requestId?: string;
  /** The exchange's wire events (sends, receipts, results, acknowledgments). */
  eventIds: string[];
  ms: number;
}

export interface OuiScenarioReport {
  pass: boolean;
  steps: OuiStepResult[];
  /** Steps not run after a failure. */
  skipped: number;
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
  /** oui-session.json is redacted as the panel's Export is (docs/redaction.md), with your JSON pointers too; `false` attaches it unredacted, marked so in the file. */
  redact?: false | { pointers?: string[] };
}

export interface OuiFixtures {
  oui: Oui;
  ouiOptions: OuiOptions;
}

export type OuiMatchers = {
  /** Passes when the capture shows no finding at `min` or above (default 'error'); the message lists each with its rule, section, party and event. */
  toHaveNoFindings(this: ExpectMatcherState, oui: Oui, options?: OuiFindingsOptions): Promise<MatcherReturnType>;
  /** Passes when the value is valid against the JSON Schema (draft 2020-12 unless it says otherwise); the message lists where it is not. */
  toMatchJsonSchema(this: ExpectMatcherState, value: unknown, schema: unknown): MatcherReturnType;
};

export declare const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions & OuiFixtures, PlaywrightWorkerArgs & PlaywrightWorkerOptions>;
export declare const expect: Expect<OuiMatchers>;
/** The failure text `toHaveNoFindings` uses, for a list of findings of `oui`. */
export declare function formatFindings(findings: readonly OuiFinding[], session: OuiSessionFile): string;
/** The name of the binding the fixture exposes in every frame (it must not collide with the app's globals). */
export declare const OUI_FIXTURE_BINDING: string;

/** `oui.serve` options. */
export interface OuiServeOptions {
  /** Acknowledge Socket.IO events that ask for it with `{ ok: true }` (default true); false: the test answers them. */
  autoAck?: boolean;
}

/** A pattern the virtual server answers; `stop()` turns it off in open frames and for new documents. */
export interface OuiServed {
  readonly pattern: string;
  stop(): Promise<void>;
}
