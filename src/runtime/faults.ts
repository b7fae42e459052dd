/**
 * Fault rules on the live connection (issue 21, item 1): what the user asks
 * the page hook to do to OUI events between the app and its transport. Pure:
 * no DOM, no extension APIs; the hook (content/faults.ts), the panel and the
 * Playwright fixture share it.
 *
 * A rule names which events it matches (direction, OUI event type, surface,
 * action, client, transport) and one fault. Decisions are seeded: each rule
 * draws from its own mulberry32 stream, seeded by the session seed and the
 * rule's id, one draw per matching event, so the same seed and the same
 * events give the same faults, whatever other rules do.
 *
 * Written without prototype methods (no push, map, filter): the decider runs
 * in the page's world, after the page's scripts, which may have replaced them.
 */

/** `to-client`: runtime → app (requests, the runtime's acknowledgments); `from-client`: app → runtime (registrations, results, receipts). */
export type FaultDirection = 'to-client' | 'from-client';

/** `socket.io` covers both of its phases (long-polling and WebSocket); `websocket` is a plain WebSocket carrying `{type, payload}`. */
export type FaultTransport = 'websocket' | 'socket.io' | 'postmessage' | 'direct';

/** The event type an acknowledgment is matched as: a Socket.IO ack packet, a direct transport's receipt or result acknowledgment. */
export const ACK_TYPE = 'ack';

export interface FaultMatch {
  direction?: FaultDirection;
  /** An OUI event type (`action:request`, `x-approval:ask`, …) or `ack`. */
  type?: string;
  surfaceId?: string;
  actionId?: string;
  /** A tap connection as `${hook}/${client}` (what an inject target names), or a postMessage pairing key. */
  client?: string;
  transport?: FaultTransport;
}

export type Fault =
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'duplicate' }
  /** Hold one matching event and deliver it right after the next matching one. */
  | { kind: 'reorder' }
  /** A result the client sends is refused as the runtime's side would: `{ ok: false, error }`, and it never reaches the runtime (§7.3.6). */
  | { kind: 'refuse-result'; error: string }
  /** Acknowledgments matched are never delivered (the runtime's acks to the app, or the client's receipts to the runtime). */
  | { kind: 'withhold-ack' }
  | { kind: 'delay-ack'; ms: number }
  /** The client's `action:result` never reaches the runtime, which then repeats its request (§7.3.7). */
  | { kind: 'drop-answer' }
  /** Close the transport when a matching event passes (the event itself is dropped). */
  | { kind: 'disconnect'; code: number; reason: string }
  /** Rewrite a request's `knownSurfaces` to a hash the client does not hold (§7.3.4). */
  | { kind: 'stale-known-surfaces'; knownSurfaces: string }
  /**
   * A request's approval: `args-hash` changes its argsHash; `reuse` sends the
   * request again under a new requestId with the same approval (a single-use
   * grant used twice); `expire` delivers it `ms` late, past the grant.
   */
  | { kind: 'approval'; change: 'args-hash' | 'reuse' | 'expire'; ms?: number };

export type FaultKind = Fault['kind'];

export interface FaultRule {
  id: string;
  match: FaultMatch;
  fault: Fault;
  /** 0…1, default 1: the share of matching events faulted (seeded). */
  probability?: number;
  /** Fault at most this many events, then let the rest pass. */
  maxCount?: number;
  /** Off: kept in the list, applies to nothing. Default on. */
  enabled?: boolean;
}

/** The words the panel and the Timeline use for what a fault did to an event. */
export type FaultDone =
  | 'dropped'
  | 'delayed'
  | 'duplicated'
  | 'reordered'
  | 'refused'
  | 'withheld'
  | 'disconnected'
  | 'knownSurfaces rewritten'
  | 'argsHash altered'
  | 'approval reused'
  | 'delivered late';

/** One OUI event the hook saw, as much as the rules look at. */
export interface FaultEvent {
  direction: FaultDirection;
  type: string;
  transport: FaultTransport;
  client: string;
  /** Also accepted as the client: the postMessage pairing key. */
  clientKey?: string;
  surfaceId?: string;
  actionId?: string;
}

export interface FaultDecision {
  rule: FaultRule;
  fault: Fault;
}

export const FAULT_KINDS: readonly FaultKind[] = [
  'drop',
  'delay',
  'duplicate',
  'reorder',
  'refuse-result',
  'withhold-ack',
  'delay-ack',
  'drop-answer',
  'disconnect',
  'stale-known-surfaces',
  'approval',
];

/** What each fault applies to, beyond the rule's own match: the panel shows it, the decider enforces it. */
export function faultScope(fault: Fault): { direction?: FaultDirection; type?: string; transports?: readonly FaultTransport[] } {
  switch (fault.kind) {
    case 'refuse-result':
      // Only where the wire carries an acknowledgment of a result.
      return { direction: 'from-client', type: 'action:result', transports: ['socket.io', 'direct'] };
    case 'drop-answer':
      return { direction: 'from-client', type: 'action:result' };
    case 'withhold-ack':
    case 'delay-ack':
      return { type: ACK_TYPE, transports: ['socket.io', 'direct'] };
    case 'disconnect':
      return { transports: ['websocket', 'socket.io'] };
    case 'stale-known-surfaces':
    case 'approval':
      return { direction: 'to-client', type: 'action:request' };
    default:
      return {};
  }
}

/** What the hook records for a fault it applied. */
export function faultDone(fault: Fault): FaultDone {
  switch (fault.kind) {
    case 'drop':
    case 'drop-answer':
      return 'dropped';
    case 'delay':
    case 'delay-ack':
      return 'delayed';
    case 'duplicate':
      return 'duplicated';
    case 'reorder':
      return 'reordered';
    case 'refuse-result':
      return 'refused';
    case 'withhold-ack':
      return 'withheld';
    case 'disconnect':
      return 'disconnected';
    case 'stale-known-surfaces':
      return 'knownSurfaces rewritten';
    case 'approval':
      return fault.change === 'args-hash' ? 'argsHash altered' : fault.change === 'reuse' ? 'approval reused' : 'delivered late';
  }
}

/** A rule in a line of text: the banner's and the list's words. */
export function describeRule(rule: FaultRule): string {
  const m = rule.match;
  const what = [m.type ?? 'every event', m.surfaceId ? `on ${m.surfaceId}${m.actionId ? ` › ${m.actionId}` : ''}` : m.actionId ? `action ${m.actionId}` : '', m.direction ? `(${m.direction})` : '', m.transport ? `over ${m.transport}` : '', m.client ? `of ${m.client}` : '']
    .filter(Boolean)
    .join(' ');
  const f = rule.fault;
  const how =
    f.kind === 'delay' || f.kind === 'delay-ack'
      ? `${f.kind} ${f.ms} ms`
      : f.kind === 'refuse-result'
        ? `refuse the result (${f.error})`
        : f.kind === 'disconnect'
          ? `disconnect (${f.code}${f.reason ? ` ${f.reason}` : ''})`
          : f.kind === 'stale-known-surfaces'
            ? `knownSurfaces → ${f.knownSurfaces}`
            : f.kind === 'approval'
              ? `approval: ${f.change}${f.change === 'expire' ? ` (${f.ms ?? EXPIRE_MS} ms late)` : ''}`
              : f.kind;
  const extra = [rule.probability !== undefined && rule.probability < 1 ? `p=${rule.probability}` : '', rule.maxCount !== undefined ? `at most ${rule.maxCount}×` : ''].filter(Boolean).join(', ');
  return `${how}: ${what}${extra ? ` (${extra})` : ''}`;
}

/** How late `approval: expire` delivers by default: past a grant of a minute. */
export const EXPIRE_MS = 61_000;
/** What `stale-known-surfaces` sends by default: a well-formed hash no client holds. */
export const STALE_HASH = 'fnv1a64:0000000000000000';

// ── reading rules (from the panel, a file, a page) ─────────────────────────

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isString = (x: unknown): x is string => typeof x === 'string';
const MAX_TEXT = 500;
const text = (x: unknown): x is string => isString(x) && x.length > 0 && x.length <= MAX_TEXT;
const ms = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 600_000;
const TRANSPORTS: readonly string[] = ['websocket', 'socket.io', 'postmessage', 'direct'];
/** At most this many rules at once: every matching event is checked against each. */
export const MAX_RULES = 64;

function readFault(x: unknown): Fault | null {
  if (!isRecord(x)) return null;
  switch (x.kind) {
    case 'drop':
    case 'duplicate':
    case 'reorder':
    case 'withhold-ack':
    case 'drop-answer':
      return { kind: x.kind };
    case 'delay':
    case 'delay-ack':
      return ms(x.ms) ? { kind: x.kind, ms: x.ms } : null;
    case 'refuse-result':
      return { kind: 'refuse-result', error: text(x.error) ? x.error : 'refused by a fault rule' };
    case 'disconnect': {
      // A page may close a socket with 1000 or 3000–4999 only (the browser throws otherwise).
      const code = x.code === undefined ? 4000 : x.code;
      if (!Number.isInteger(code) || (code !== 1000 && ((code as number) < 3000 || (code as number) > 4999))) return null;
      const reason = isString(x.reason) ? x.reason : '';
      // The close reason is at most 123 bytes of UTF-8.
      if (new TextEncoder().encode(reason).length > 123) return null;
      return { kind: 'disconnect', code: code as number, reason };
    }
    case 'stale-known-surfaces':
      return { kind: 'stale-known-surfaces', knownSurfaces: text(x.knownSurfaces) ? x.knownSurfaces : STALE_HASH };
    case 'approval':
      if (x.change !== 'args-hash' && x.change !== 'reuse' && x.change !== 'expire') return null;
      if (x.ms !== undefined && !ms(x.ms)) return null;
      return { kind: 'approval', change: x.change, ...(x.ms !== undefined ? { ms: x.ms as number } : {}) };
    default:
      return null;
  }
}

function readMatch(x: unknown): FaultMatch | null {
  if (x === undefined) return {};
  if (!isRecord(x)) return null;
  const m: FaultMatch = {};
  if (x.direction !== undefined) {
    if (x.direction !== 'to-client' && x.direction !== 'from-client') return null;
    m.direction = x.direction;
  }
  if (x.transport !== undefined) {
    if (!isString(x.transport) || TRANSPORTS.indexOf(x.transport) === -1) return null;
    m.transport = x.transport as FaultTransport;
  }
  for (const k of ['type', 'surfaceId', 'actionId', 'client'] as const) {
    if (x[k] === undefined || x[k] === '') continue;
    if (!text(x[k])) return null;
    m[k] = x[k] as string;
  }
  return m;
}

/** A rule as every receiver reads it (the hook, the background, the fixture): null for anything malformed. */
export function readFaultRule(x: unknown): FaultRule | null {
  if (!isRecord(x) || !text(x.id)) return null;
  const match = readMatch(x.match);
  const fault = readFault(x.fault);
  if (!match || !fault) return null;
  const rule: FaultRule = { id: x.id, match, fault };
  if (x.probability !== undefined) {
    if (typeof x.probability !== 'number' || !(x.probability >= 0 && x.probability <= 1)) return null;
    rule.probability = x.probability;
  }
  if (x.maxCount !== undefined) {
    if (!Number.isInteger(x.maxCount) || (x.maxCount as number) < 0) return null;
    rule.maxCount = x.maxCount as number;
  }
  if (x.enabled === false) rule.enabled = false;
  return rule;
}

/** A list of rules: null when it is no list, too long, has a malformed rule or two rules share an id. */
export function readFaultRules(x: unknown): FaultRule[] | null {
  if (!Array.isArray(x) || x.length > MAX_RULES) return null;
  const out: FaultRule[] = [];
  const ids: Record<string, true> = Object.create(null) as Record<string, true>;
  for (let i = 0; i < x.length; i++) {
    const r = readFaultRule(x[i]);
    if (!r || ids[r.id]) return null;
    ids[r.id] = true;
    out[out.length] = r;
  }
  return out;
}

/** The seed, as every receiver reads it: an unsigned 32-bit integer. */
export function readSeed(x: unknown): number | null {
  return Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffffffff ? (x as number) : null;
}

/** Whether any rule in the list can fault anything. */
export function anyActive(rules: readonly FaultRule[]): boolean {
  for (let i = 0; i < rules.length; i++) if (rules[i]!.enabled !== false && rules[i]!.maxCount !== 0) return true;
  return false;
}

// ── deciding ───────────────────────────────────────────────────────────────

/** mulberry32: a small, well-known 32-bit PRNG; the same seed gives the same stream everywhere. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a 32 of a string's UTF-16 code units: a rule's id folded into its stream's seed. */
function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function matchesEvent(rule: FaultRule, ev: FaultEvent): boolean {
  const m = rule.match;
  const scope = faultScope(rule.fault);
  if (m.direction !== undefined && m.direction !== ev.direction) return false;
  if (scope.direction !== undefined && scope.direction !== ev.direction) return false;
  if (m.transport !== undefined && m.transport !== ev.transport) return false;
  if (scope.transports !== undefined && scope.transports.indexOf(ev.transport) === -1) return false;
  const type = scope.type ?? m.type;
  if (type !== undefined && type !== ev.type) return false;
  // A rule on an event type matches acknowledgments only when it names them (`ack`): "every event" faults OUI events, and acks are what ack faults are for.
  if (type === undefined && ev.type === ACK_TYPE && rule.fault.kind !== 'drop' && rule.fault.kind !== 'delay') return false;
  if (m.surfaceId !== undefined && m.surfaceId !== ev.surfaceId) return false;
  if (m.actionId !== undefined && m.actionId !== ev.actionId) return false;
  if (m.client !== undefined && m.client !== ev.client && m.client !== ev.clientKey) return false;
  return true;
}

export interface FaultDecider {
  /** The fault to apply to this event, or null to let it pass. Counts and draws: call once per event. */
  decide(ev: FaultEvent): FaultDecision | null;
  /** How many events each rule has faulted so far. */
  counts(): Record<string, number>;
  /** A rule's count and draw stream, for the next set made from this one (`createFaultDecider`'s `before`). */
  stateOf(rule: FaultRule, seed: number): { draw: () => number; faulted: number } | undefined;
}

/** Same rule, field by field (plain data as read by readFaultRule; no built-in a page could replace). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  for (const k in a) if (!sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  for (const k in b) if (!(k in a)) return false;
  return true;
}

/**
 * The first enabled rule (in list order) that matches the event, draws under
 * its probability and is under its maximum count, decides. Every matching
 * rule draws once for the event, faulting or not, so one rule's stream does
 * not depend on another's choices.
 */
export function createFaultDecider(rules: readonly FaultRule[], seed: number, before?: FaultDecider | null): FaultDecider {
  const streams: Array<() => number> = [];
  const faulted: number[] = [];
  for (let i = 0; i < rules.length; i++) {
    // A set sent again with a rule unchanged (a stand-in's seat added or moved) goes on with that rule's
    // count and draws: "at most N times" is N in all, not N again after every re-send.
    const kept = before?.stateOf(rules[i]!, seed);
    streams[i] = kept ? kept.draw : mulberry32((seed ^ fnv32(rules[i]!.id)) >>> 0);
    faulted[i] = kept ? kept.faulted : 0;
  }
  return {
    decide(ev) {
      let chosen: FaultDecision | null = null;
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i]!;
        if (rule.enabled === false || !matchesEvent(rule, ev)) continue;
        const draw = streams[i]!();
        if (chosen) continue;
        if (rule.maxCount !== undefined && faulted[i]! >= rule.maxCount) continue;
        if (draw >= (rule.probability ?? 1)) continue;
        faulted[i]!++;
        chosen = { rule, fault: rule.fault };
      }
      return chosen;
    },
    counts() {
      const out: Record<string, number> = {};
      for (let i = 0; i < rules.length; i++) out[rules[i]!.id] = faulted[i]!;
      return out;
    },
    stateOf(rule, s) {
      if (s !== seed) return undefined;
      for (let i = 0; i < rules.length; i++) if (rules[i]!.id === rule.id) return sameData(rules[i], rule) ? { draw: streams[i]!, faulted: faulted[i]! } : undefined;
      return undefined;
    },
  };
}

/**
 * Takeover of a live connection by a stand-in runtime: every OUI event and
 * acknowledgment the real runtime sends to that client is dropped; frames the
 * panel or the fixture injects are never faulted, so the stand-in's pass.
 */
export function takeoverRule(client: string, id = `takeover:${client}`): FaultRule {
  return { id, match: { direction: 'to-client', client }, fault: { kind: 'drop' } };
}
