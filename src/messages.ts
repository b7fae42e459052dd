/**
 * Every message between the extension's parts, one union per hop:
 *
 *   page hook ──HookMessage──▶ bridge ──(relayed as is)──▶ background ──ToPanel──▶ panel
 *   page hook ◀──HookCommand── bridge ◀──HookCommand────── background ◀──FromPanel── panel
 *                              bridge ──BridgeRequest────▶ background (one-off messages)
 *
 * What comes from the page hook runs in the page's world: the page can reach
 * neither the hook's private port nor the extension's ports, but a hook of
 * another extension version can still speak there (it outlives an update in the
 * pages it was injected into). So every receiver reads through the `read…`
 * guards below, which check the tag and the shape of the fields it acts on and
 * answer null for anything else; items are checked one by one further on, by
 * the capture intake, which must also count what it cannot take.
 */
import type { CapturedClient, CapturedItem, Cursors, DropCounts, DropReport, InjectTarget, WorkerCoverage } from './capture/captured-items.ts';
import type { ChildFrame, FrameReport } from './capture/coverage.ts';
import { isRecord } from './protocol/json-object.ts';
import { readFaultRules, readSeed, type FaultRule } from './runtime/faults.ts';

/**
 * The version of these messages. The hook names it in its `state` message (its
 * hello to the panel), the bridge and the panel in theirs to the background:
 * a page that still runs an older hook after an extension update is said in
 * the panel in one line instead of being misread.
 */
export const PROTOCOL = 2;

/** Marker on the one window message that hands the hook's MessagePort to the bridge. */
export const HOOK_PORT_MARKER = '__ouiDevtoolsHookPort';

// ── page hook → bridge → background → panel ────────────────────────────────

export interface ItemsMessage {
  type: 'items';
  hook: string;
  items: CapturedItem[];
  clients: CapturedClient[];
}

/** The hook's hello, sent on every subscription: its version, what it dropped, and where its frame sits in the tab ('top', 'top/0'). */
export interface StateMessage {
  type: 'state';
  hook: string;
  drops: DropCounts;
  clients: CapturedClient[];
  path?: string;
  v?: number;
  /** Per client, what this subscription will never get: dropped by the bounded buffer after its cursor (additive within protocol 2). */
  lost?: Record<string, DropReport>;
}

/** Items that could not be carried (a message refused on the way), up to these seq numbers per client: counted in the panel. */
export interface SkippedMessage {
  type: 'skipped';
  hook: string;
  through: Record<string, number>;
  /** The size of their payloads, as `size` measures a frame (additive within protocol 2). */
  size?: number;
}

/** The hook's word on an injection: delivered, or why not. */
export interface AnswerMessage {
  type: 'answer';
  id: string;
  ok: boolean;
  error?: string;
}

/**
 * The hook's answer to a `hook:flush`: sent on its line after every item it
 * had captured when the command arrived (so after those items, on the same
 * ordered line). `through` is, per client, the last seq the hook has numbered;
 * `waiting` counts items it still could not send (a Blob payload still being
 * read), 0 when everything went. Only the Playwright fixture's bridge asks
 * for it; the extension never does.
 */
export interface FlushedMessage {
  type: 'flushed';
  hook: string;
  /** The flush command's id, echoed. */
  id: string;
  through: Record<string, number>;
  waiting: number;
}

/** A frame's hook on the edges of its capture (its child frames, the workers its page started), for the coverage view. */
export interface CoverageMessage {
  type: 'coverage';
  hook: string;
  report: FrameReport;
}

/**
 * Items as one JSON text (of a `CapturedItem[]`, bytes as base64), for a
 * subscriber that asked with `json` (the extension's bridge): the hook
 * writes it from its columns with no item object and the page's world
 * clones one string instead of an object per item; the bridge reads it back
 * into an `items` message (`itemsOfJson`). Additive within protocol 2.
 */
export interface ItemsJsonMessage {
  type: 'items:json';
  hook: string;
  json: string;
  clients: CapturedClient[];
}

export type HookMessage = ItemsMessage | ItemsJsonMessage | StateMessage | SkippedMessage | AnswerMessage | FlushedMessage | CoverageMessage;

// ── panel → background → bridge → page hook ────────────────────────────────

/** Start forwarding live items; first replay what is buffered after the cursors. */
export interface SubscribeCommand {
  type: 'subscribe';
  cursors: Cursors;
  /** Items as `items:json` messages (additive within protocol 2): set by the extension's bridge, never by a panel. */
  json?: true;
}

export interface UnsubscribeCommand {
  type: 'unsubscribe';
}

/** Deliver a request to the page's client. */
export interface InjectCommand {
  type: 'hook:inject';
  /** The panel's id for this injection, echoed in the answer. */
  id: string;
  target: InjectTarget;
  /** WebSocket: the inbound text frame (plain JSON or Socket.IO encoded). */
  frame?: string;
  /** postMessage: the message data. */
  message?: unknown;
  /** direct: the request object handed to the action handlers. */
  request?: unknown;
  /** direct: pass a receipt callback, as a sender asking for one does. */
  wantReceipt?: boolean;
  /** The sender acknowledges the held answers itself (the stand-in runtime, which may refuse one, §7.3.6): the hook does not accept them (additive within protocol 2). */
  selfAck?: true;
  /**
   * direct: no request; the sender's acknowledgment of the held result the hook captured with this seq, handed to the
   * client's `onAcknowledged` callback (the transport interface's, §7.3.6), which a `selfAck` hold kept for it
   * (additive within protocol 2).
   */
  resultAck?: { seq: number; value: unknown };
  /** Markers (the requestId, an ack id) of answers to keep from the app's runtime; empty to let them through. */
  hold: string[];
}

/**
 * To the hook of the frame where a postMessage client's answers arrive (its
 * peer's frame): keep answers carrying these markers, on that pairing only,
 * from the app's runtime. Nothing of the request itself is in it.
 */
export interface HoldCommand {
  type: 'hook:hold';
  id: string;
  /** The pairing's client key, as the hooks of both frames compute it. */
  scope: string;
  hold: string[];
  /** When true, the hook answers `answer` with this id once the markers hold: the panel sends the request only then (additive within protocol 2). */
  ack?: true;
}

/**
 * Send everything captured so far now, instead of at the next batch, then
 * answer `flushed` with this id. Additive within protocol 2: a hook that does
 * not know it ignores it, and the extension never sends it (the background
 * relays only what `readFromPanel` reads); the Playwright fixture's bridge,
 * which ships in one script with its hook, does.
 */
export interface FlushCommand {
  type: 'hook:flush';
  id: string;
}

/** Every frame's hook: say what you know of your frame's children and workers (answered with `coverage`). Additive within protocol 2. */
export interface CoverageCommand {
  type: 'hook:coverage';
}

/**
 * Every frame's hook: fault OUI events by these rules from now on (src/runtime/faults.ts),
 * replacing any rules it had; an empty list turns faults off. Additive within protocol 2.
 */
export interface FaultsCommand {
  type: 'hook:faults';
  rules: FaultRule[];
  seed: number;
  /** When given, the hook answers `answer` with this id once the rules are in (the panel counts the frames that have them). */
  id?: string;
}

/**
 * The virtual server (content/virtual/): while `on`, the page's WebSockets and
 * Engine.IO long-polling requests to URLs matching `pattern` (an exact URL,
 * or a glob on host and path: content/virtual/pattern.ts) are answered inside
 * the page and never reach the network. Answered with `answer` and this id.
 * Additive within protocol 2. Sent to every frame unless `frameId` names one.
 * `pattern: ''` with `on: false` turns every pattern off.
 */
export interface ServeCommand {
  type: 'hook:serve';
  id: string;
  pattern: string;
  on: boolean;
  /** Socket.IO events that ask for an acknowledgment get `{ ok: true }` (default); false: the other end answers them. */
  autoAck?: boolean;
}

export type HookCommand = SubscribeCommand | UnsubscribeCommand | InjectCommand | HoldCommand | FlushCommand | CoverageCommand | FaultsCommand | ServeCommand;

// ── bridge ↔ background ────────────────────────────────────────────────────

/**
 * A bridge's first word from a new document (`restored`: back from the
 * back/forward cache; `late`: injected into an open page after an extension
 * reload), and the word of a late bridge that found no hook it can reach.
 */
export type BridgeRequest = { type: 'bridge:hello'; v: number; restored?: boolean; late?: boolean } | { type: 'bridge:stale' };

/** The background's answer to a bridge's hello: the relay key, and a subscription when a panel watches the tab. */
export interface BridgeWelcome {
  type: 'bridge:welcome';
  key?: string;
  subscribe?: SubscribeCommand;
  /** The fault rules the tab's panel has on, for a new document's hook (additive within protocol 2). */
  faults?: FaultsCommand;
}

/** Between a bridge injected after a reload and the old bridge that holds the hook's port (DOM events named by a secret). */
export type RelayMessage = { type: 'relay:probe' } | { type: 'relay:here' };

// ── panel ↔ background ─────────────────────────────────────────────────────

/** A command for the hook, with the frame it must reach (absent: every frame). */
export type AddressedCommand = (InjectCommand | HoldCommand | ServeCommand) & { frameId?: number };

export type FromPanel = { type: 'panel:hello'; v: number; tabId: number } | SubscribeCommand | CoverageCommand | FaultsCommand | AddressedCommand;

/** One-off message from a panel: the user enabled or disabled a site, register the content scripts again. */
export interface SitesSync {
  type: 'sites:sync';
}

/** One-off message from a panel after the user enabled a frame's site: reload that tab's frames of `origin`, so their hook runs. */
export interface FramesReload {
  type: 'frames:reload';
  tabId: number;
  origin: string;
}

export type ToPanel =
  | { type: 'capture'; frameId: number; message: HookMessage }
  /** A frame of the tab came back from the back/forward cache: its line was closed and must be subscribed again. */
  | { type: 'restored'; frameId: number }
  /** The page cannot be captured until it is reloaded (it outlived an extension reload), or speaks another version. */
  | { type: 'stale'; line: string };

// ── guards ─────────────────────────────────────────────────────────────────

const isString = (x: unknown): x is string => typeof x === 'string';
const isFrameId = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;
const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every(isString);

/** What a hook says; the items and clients inside are the intake's to check, one by one. */
export function readHookMessage(x: unknown): HookMessage | null {
  if (!isRecord(x)) return null;
  switch (x.type) {
    case 'items':
      return isString(x.hook) && Array.isArray(x.items) && (x.clients === undefined || Array.isArray(x.clients))
        ? { type: 'items', hook: x.hook, items: x.items as CapturedItem[], clients: (x.clients ?? []) as CapturedClient[] }
        : null;
    case 'items:json':
      return isString(x.hook) && isString(x.json) && (x.clients === undefined || Array.isArray(x.clients))
        ? { type: 'items:json', hook: x.hook, json: x.json, clients: (x.clients ?? []) as CapturedClient[] }
        : null;
    case 'state':
      if (!isString(x.hook) || !isRecord(x.drops)) return null;
      return {
        type: 'state',
        hook: x.hook,
        drops: x.drops as DropCounts,
        clients: Array.isArray(x.clients) ? (x.clients as CapturedClient[]) : [],
        ...(isString(x.path) ? { path: x.path } : {}),
        ...(typeof x.v === 'number' ? { v: x.v } : {}),
        // Each report is the intake's to check, as the items are.
        ...(isRecord(x.lost) ? { lost: x.lost as Record<string, DropReport> } : {}),
      };
    case 'skipped':
      return isString(x.hook) && isRecord(x.through)
        ? { type: 'skipped', hook: x.hook, through: x.through as Record<string, number>, ...(isCount(x.size) ? { size: x.size } : {}) }
        : null;
    case 'answer':
      // Never String() page data: an object whose toString is not a function throws.
      return isString(x.id) ? { type: 'answer', id: x.id, ok: x.ok === true, ...(x.ok === true ? {} : { error: isString(x.error) ? x.error : 'not delivered' }) } : null;
    case 'flushed':
      return isString(x.hook) && isString(x.id) && isRecord(x.through)
        ? { type: 'flushed', hook: x.hook, id: x.id, through: x.through as Record<string, number>, waiting: Number.isInteger(x.waiting) && (x.waiting as number) >= 0 ? (x.waiting as number) : 0 }
        : null;
    case 'coverage': {
      const report = readFrameReport(x.report);
      return isString(x.hook) && report ? { type: 'coverage', hook: x.hook, report } : null;
    }
    default:
      return null;
  }
}

/** An `items:json` message as the `items` message it carries; null when its text is not a JSON array. */
export function itemsOfJson(m: ItemsJsonMessage): ItemsMessage | null {
  let items: unknown;
  try {
    items = JSON.parse(m.json);
  } catch {
    return null;
  }
  return Array.isArray(items) ? { type: 'items', hook: m.hook, items: items as CapturedItem[], clients: m.clients } : null;
}

const MAX_REPORTED = 500;
const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;

/** A frame report as the panel keeps it: only strings and counts, bounded lists; anything else is left out. */
function readFrameReport(x: unknown): FrameReport | null {
  if (!isRecord(x) || !isString(x.path) || !isString(x.url) || !isString(x.origin)) return null;
  const children: ChildFrame[] = [];
  for (const c of Array.isArray(x.children) ? x.children.slice(0, MAX_REPORTED) : []) {
    if (!isRecord(c) || !isCount(c.index) || !isString(c.element) || !isString(c.src)) continue;
    children.push({ index: c.index, element: c.element, src: c.src, ...(isString(c.url) ? { url: c.url } : {}), ...(isString(c.sandbox) ? { sandbox: c.sandbox } : {}) });
  }
  const workers: WorkerCoverage[] = [];
  for (const w of Array.isArray(x.workers) ? x.workers.slice(0, MAX_REPORTED) : []) {
    if (!isRecord(w) || !isString(w.url) || (w.kind !== 'dedicated' && w.kind !== 'shared') || (w.type !== 'classic' && w.type !== 'module')) continue;
    workers.push({ url: w.url, kind: w.kind, type: w.type, captured: w.captured === true, ...(isString(w.reason) ? { reason: w.reason } : {}), ...(isString(w.hook) ? { hook: w.hook } : {}) });
  }
  return { path: x.path, url: x.url, origin: x.origin, children, workers, workersDropped: isCount(x.workersDropped) ? x.workersDropped : 0 };
}

function readInjectTarget(x: unknown): InjectTarget | null {
  if (!isRecord(x)) return null;
  if ((x.via === 'websocket' || x.via === 'direct') && isFrameId(x.frameId) && isString(x.hook) && isString(x.client)) {
    return { via: x.via, frameId: x.frameId, hook: x.hook, client: x.client };
  }
  if (x.via === 'postmessage' && isString(x.clientPath) && isString(x.peerPath)) {
    return {
      via: 'postmessage',
      clientPath: x.clientPath,
      peerPath: x.peerPath,
      ...(isString(x.origin) ? { origin: x.origin } : {}),
      ...(isFrameId(x.frameId) ? { frameId: x.frameId } : {}),
      ...(isFrameId(x.peerFrameId) ? { peerFrameId: x.peerFrameId } : {}),
    };
  }
  return null;
}

/** A command for the hook, as the hook (and the bridge and background on the way) reads it. */
export function readHookCommand(x: unknown): HookCommand | null {
  if (!isRecord(x)) return null;
  switch (x.type) {
    case 'subscribe':
      return { type: 'subscribe', cursors: isRecord(x.cursors) ? (x.cursors as Cursors) : {}, ...(x.json === true ? { json: true as const } : {}) };
    case 'unsubscribe':
      return { type: 'unsubscribe' };
    case 'hook:flush':
      return isString(x.id) ? { type: 'hook:flush', id: x.id } : null;
    case 'hook:coverage':
      return { type: 'hook:coverage' };
    case 'hook:faults': {
      const rules = readFaultRules(x.rules);
      const seed = readSeed(x.seed);
      return rules && seed !== null ? { type: 'hook:faults', rules, seed, ...(isString(x.id) ? { id: x.id } : {}) } : null;
    }
    case 'hook:hold':
      return isString(x.id) && isString(x.scope) && Array.isArray(x.hold) ? { type: 'hook:hold', id: x.id, scope: x.scope, hold: x.hold.filter(isString), ...(x.ack === true ? { ack: true as const } : {}) } : null;
    case 'hook:serve':
      return isString(x.id) && isString(x.pattern) && typeof x.on === 'boolean'
        ? { type: 'hook:serve', id: x.id, pattern: x.pattern, on: x.on, ...(typeof x.autoAck === 'boolean' ? { autoAck: x.autoAck } : {}) }
        : null;
    case 'hook:inject': {
      const target = readInjectTarget(x.target);
      if (!isString(x.id) || !target || !isStrings(x.hold)) return null;
      return {
        type: 'hook:inject',
        id: x.id,
        target,
        hold: x.hold,
        ...(isString(x.frame) ? { frame: x.frame } : {}),
        ...('message' in x ? { message: x.message } : {}),
        ...('request' in x ? { request: x.request } : {}),
        ...(x.wantReceipt === true ? { wantReceipt: true } : {}),
        ...(x.selfAck === true ? { selfAck: true as const } : {}),
        ...(isRecord(x.resultAck) && Number.isSafeInteger(x.resultAck.seq) ? { resultAck: { seq: x.resultAck.seq as number, value: x.resultAck.value } } : {}),
      };
    }
    default:
      return null;
  }
}

export function readBridgeRequest(x: unknown): BridgeRequest | null {
  if (!isRecord(x)) return null;
  if (x.type === 'bridge:hello' && Number.isInteger(x.v)) return { type: 'bridge:hello', v: x.v as number, restored: x.restored === true, late: x.late === true };
  if (x.type === 'bridge:stale') return { type: 'bridge:stale' };
  return null;
}

export function readBridgeWelcome(x: unknown): BridgeWelcome | null {
  if (!isRecord(x) || x.type !== 'bridge:welcome') return null;
  const subscribe = readHookCommand(x.subscribe);
  const faults = readHookCommand(x.faults);
  return {
    type: 'bridge:welcome',
    ...(isString(x.key) ? { key: x.key } : {}),
    ...(subscribe?.type === 'subscribe' ? { subscribe } : {}),
    ...(faults?.type === 'hook:faults' ? { faults } : {}),
  };
}

export function readFromPanel(x: unknown): FromPanel | null {
  if (!isRecord(x)) return null;
  if (x.type === 'panel:hello') return Number.isInteger(x.v) && isFrameId(x.tabId) ? { type: 'panel:hello', v: x.v as number, tabId: x.tabId } : null;
  const command = readHookCommand(x);
  if (command?.type === 'subscribe' || command?.type === 'hook:coverage' || command?.type === 'hook:faults') return command;
  if (command?.type === 'hook:inject' || command?.type === 'hook:hold' || command?.type === 'hook:serve') return isFrameId(x.frameId) ? { ...command, frameId: x.frameId } : command;
  return null;
}

export function readToPanel(x: unknown): ToPanel | null {
  if (!isRecord(x)) return null;
  if (x.type === 'capture') {
    const message = readHookMessage(x.message);
    return isFrameId(x.frameId) && message ? { type: 'capture', frameId: x.frameId, message } : null;
  }
  if (x.type === 'restored') return isFrameId(x.frameId) ? { type: 'restored', frameId: x.frameId } : null;
  if (x.type === 'stale') return isString(x.line) ? { type: 'stale', line: x.line } : null;
  return null;
}

export function isSitesSync(x: unknown): x is SitesSync {
  return isRecord(x) && x.type === 'sites:sync';
}

export function readFramesReload(x: unknown): FramesReload | null {
  return isRecord(x) && x.type === 'frames:reload' && isFrameId(x.tabId) && isString(x.origin) ? { type: 'frames:reload', tabId: x.tabId, origin: x.origin } : null;
}
