/**
 * The OUI protocol types, as published in `oui-spec` 0.6.0
 * (`../shared/spec/000_…txt`, `types-*.d.ts` and the transport types) and
 * the spec document (`001_…txt`, §3–§7).
 *
 * Pure declarations and constants: no DOM, no extension API, no Node APIs.
 */

import type { OUIEffectKind } from './effects.ts';

export type { OUIEffectKind } from './effects.ts';

/** What a request for an approved action carries. */
export interface OUIActionApproval {
  approvalId: string;
  /** `argsHash(params)` of the request the user approved. */
  argsHash: string;
}

/** A grant this tab holds: the user approved this request here. */
export interface OUIApprovalGrant extends OUIActionApproval {
  /** Epoch ms after which the grant no longer admits anything. */
  expiresAt: number;
}

/** JSON Schema type (subset used by OUI). Real schemas may carry any other keyword too. */
export type JSONSchema = {
  type?: string | string[];
  properties?: Record<string, JSONSchema>;
  items?: JSONSchema;
  required?: string[];
  enum?: (string | number | boolean)[];
  description?: string;
  default?: unknown;
  oneOf?: JSONSchema[];
  anyOf?: JSONSchema[];
  allOf?: JSONSchema[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  additionalProperties?: boolean | JSONSchema;
};

/** A controllable boundary within an application (§3.1). */
export interface OUISurface {
  /** Unique identifier (§3.2: `^[a-z][a-z0-9-]*[a-z0-9]$`, 2–64 chars). */
  id: string;
  name: string;
  description: string;
  /** Version of this surface's contract (semver). */
  version?: string;
  /** MUST contain at least one action (§3.1). */
  actions: OUIAction[];
  observations?: OUIObservation[];
  activation?: OUIActivation;
  metadata?: Record<string, unknown>;
}

/** Declarative polling configuration for async actions. */
export interface OUIActionPolling {
  intervalMs: number;
  maxAttempts?: number;
  maxDurationMs?: number;
  subscribe?: {
    event: string;
    filter?: Record<string, unknown>;
  };
}

/** A single operation an agent can perform on a surface (§4.1). */
export interface OUIAction {
  /** §4.2: `^[a-z][a-z0-9_]*[a-z0-9]$`, 2–64 chars, unique per surface. */
  id: string;
  description: string;
  /** The action's name as a person reads it, for a confirmation the user approves. */
  title?: string;
  /** Undeclared counts as a write (see `effectAccess`). */
  effect?: OUIEffectKind;
  input: JSONSchema;
  output?: JSONSchema;
  /** Destructive: with a write effect, runs only on the user's approval of the exact request. */
  confirm?: boolean;
  async?: boolean;
  polling?: OUIActionPolling;
  usage?: string;
  preconditions?: string;
  estimatedDuration?: string;
  tags?: string[];
}

/** A piece of application state the agent can read (§5.1). */
export interface OUIObservation {
  /** Same rules as action ids (§5.2). */
  id: string;
  description: string;
  schema: JSONSchema;
  /** Defaults to `on-change` (§5.1). */
  updateFrequency?: 'realtime' | 'on-change' | 'polling';
}

/** When a surface is available to the agent (§6.1). */
export interface OUIActivation {
  routes?: string | string[];
  entity?: {
    type: string;
    id?: string;
  };
  condition?: string;
}

/** `action:request` payload (§7.3.1). */
export interface OUIActionRequest {
  /** Globally unique; UUID v4 recommended. */
  requestId: string;
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  timestamp: number;
  /** The user's approval this request runs on, for an action that needs one. */
  approval?: OUIActionApproval;
  /** The `surfacesHash` of the client's surfaces the runtime already holds (§7.3.4). */
  knownSurfaces?: string;
}

/** Why a client's answer is shorter than the result it produced (§7.3.6). */
export interface OUIResultDelivery {
  trimmed: true;
  /** What the receiving side said when it refused the full answer. */
  reason: string;
  /** The fields left out of this answer. */
  omitted: Array<'surfaces' | 'observations' | 'data'>;
}

/** `action:result` payload (§7.3.2, §7.3.3, §7.3.4, §7.3.6). */
export interface OUIActionResult {
  requestId: string;
  success: boolean;
  data?: unknown;
  error?: {
    code: string;
    message: string;
    details?: unknown;
  };
  /** 0–100, for interim results. */
  progress?: number;
  interim?: boolean;
  durationMs?: number;
  timestamp: number;
  surfaces?: OUISurface[];
  observations?: OUIObservationSnapshot;
  /** `fnv1a64:` + 16 lowercase hex digits (§7.3.4). */
  surfacesHash?: string;
  delivery?: OUIResultDelivery;
  /** False when the client's deadline passed before its UI settled. */
  settled?: boolean;
}

/** Latest observation values, keyed by surface id and then observation id. */
export type OUIObservationSnapshot = Record<string, Record<string, unknown>>;

/** What a client can do right now (§7.3.5). */
export interface OUISurfaceSnapshot {
  surfaces: OUISurface[];
  observations: OUIObservationSnapshot;
  surfacesHash?: string;
}

/** `observation:update` payload (§7.4). */
export interface OUIObservationUpdate {
  surfaceId: string;
  observationId: string;
  value: unknown;
  timestamp: number;
}

/**
 * `observation:request` payload: the runtime asks for a polling observation's
 * current value (§5.3.1, §7.1).
 *
 * NOTE: the published spec texts name this type (Appendix A's
 * `OUIProtocolEvent` union) but never give its fields. This shape is this
 * project's reading: the two ids are needed to say what is requested; a
 * `timestamp` and a `requestId` are accepted when present. Nothing here is
 * normative.
 */
export interface OUIObservationRequest {
  surfaceId: string;
  observationId: string;
  timestamp?: number;
  requestId?: string;
}

/** `surface:register` payload (§7.2). */
export interface OUISurfaceRegistration {
  surface: OUISurface;
  timestamp: number;
}

/** `surface:deregister` payload (§7.2). */
export interface OUISurfaceDeregistration {
  surfaceId: string;
  timestamp: number;
}

/** Every protocol event (§7.1, Appendix A). */
export type OUIProtocolEvent =
  | { type: 'surface:register'; payload: OUISurfaceRegistration }
  | { type: 'surface:deregister'; payload: OUISurfaceDeregistration }
  | { type: 'action:request'; payload: OUIActionRequest }
  | { type: 'action:result'; payload: OUIActionResult }
  | { type: 'observation:update'; payload: OUIObservationUpdate }
  | { type: 'observation:request'; payload: OUIObservationRequest };

export type OUIProtocolEventType = OUIProtocolEvent['type'];

/**
 * An acknowledgment: accepted, or refused with a reason (transport types,
 * §7.3.6, §7.3.7). Note: §7.3.6 writes a refused result's Socket.IO
 * acknowledgment as `{ ok: false, error: "<reason>" }` while the transport
 * type and §7.3.7 use `reason`; `parseAcknowledgment` accepts both.
 */
export type OUIAcknowledgment = { ok: true } | { ok: false; reason: string };

/** Protocol event type strings (for type guards and routing). */
export const OUI_PROTOCOL_EVENTS = {
  SURFACE_REGISTER: 'surface:register',
  SURFACE_DEREGISTER: 'surface:deregister',
  ACTION_REQUEST: 'action:request',
  ACTION_RESULT: 'action:result',
  OBSERVATION_UPDATE: 'observation:update',
  OBSERVATION_REQUEST: 'observation:request',
} as const;

/** Every standard event type, in the order of §7.1. */
/** Whether an OUI event type goes from the agent runtime to its client; every other one goes from the client (§7.1). */
export function sentToClient(type: string): boolean {
  return type === 'action:request' || type === 'observation:request';
}

export const OUI_PROTOCOL_EVENT_TYPES: readonly OUIProtocolEventType[] = Object.freeze([
  'surface:register',
  'surface:deregister',
  'action:request',
  'action:result',
  'observation:update',
  'observation:request',
]);

export function isProtocolEventType(type: unknown): type is OUIProtocolEventType {
  return typeof type === 'string' && (OUI_PROTOCOL_EVENT_TYPES as readonly string[]).includes(type);
}

/** Extension event types start with `x-` and are ignored silently. */
export function isExtensionEventType(type: unknown): type is string {
  return typeof type === 'string' && type.startsWith('x-');
}

/** An args hash: 64 lowercase hex digits. */
export const ARGS_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** A surfaces hash: `fnv1a64:` and 16 lowercase hex digits (§7.3.4). */
export const SURFACES_HASH_PATTERN = /^fnv1a64:[0-9a-f]{16}$/;

/** Identifier length bounds (§3.2, §4.2, §5.2). */
export const ID_MIN_LENGTH = 2;
export const ID_MAX_LENGTH = 64;

/** Surface id (§3.2): pattern and the 2–64 length rule in one expression. */
export const SURFACE_ID_PATTERN = /^(?=[\s\S]{2,64}$)[a-z][a-z0-9-]*[a-z0-9]$/;
/** Action id (§4.2): pattern and the 2–64 length rule in one expression. */
export const ACTION_ID_PATTERN = /^(?=[\s\S]{2,64}$)[a-z][a-z0-9_]*[a-z0-9]$/;
/** Observation ids follow the action id rules (§5.2). */
export const OBSERVATION_ID_PATTERN = ACTION_ID_PATTERN;

/** The character rule alone, without the length bound. */
export const SURFACE_ID_CHARS = /^[a-z][a-z0-9-]*[a-z0-9]$/;
export const ACTION_ID_CHARS = /^[a-z][a-z0-9_]*[a-z0-9]$/;

/** Standard error codes (§4, "Standard Error Codes"). Custom codes SHOULD be namespaced (`app:x`). */
export const STANDARD_ERROR_CODES = Object.freeze([
  'ACTION_NOT_FOUND',
  'VALIDATION_ERROR',
  'PRECONDITION_FAILED',
  'ACTION_DENIED',
  'EXECUTION_ERROR',
  'TIMEOUT',
  'SURFACE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const);
export type OUIStandardErrorCode = (typeof STANDARD_ERROR_CODES)[number];

export function isStandardErrorCode(code: unknown): code is OUIStandardErrorCode {
  return typeof code === 'string' && (STANDARD_ERROR_CODES as readonly string[]).includes(code);
}

/** Default timeouts (§7.5) and intervals. */
export const SYNC_TIMEOUT_MS = 30_000;
export const ASYNC_ACK_TIMEOUT_MS = 5_000;
export const REGISTRATION_TIMEOUT_MS = 10_000;
export const OBSERVATION_PULL_TIMEOUT_MS = 5_000;
/** §7.3.7: a client answers a repeated request again only after this long without an acknowledgment. */
export const REANSWER_INTERVAL_MS = 8_000;
/** §7.4: surfaces SHOULD batch `on-change` updates to at most this many a second. */
export const MAX_ON_CHANGE_RATE = 10;

export const OBSERVATION_UPDATE_FREQUENCIES = Object.freeze(['realtime', 'on-change', 'polling'] as const);
export const DELIVERY_OMITTABLE = Object.freeze(['surfaces', 'observations', 'data'] as const);

/** Why an id breaks its rule, or null when it is fine. */
function checkId(id: string, chars: RegExp, rule: string): string | null {
  const problems: string[] = [];
  if (id.length < ID_MIN_LENGTH || id.length > ID_MAX_LENGTH) {
    problems.push(`is ${id.length} characters long (must be ${ID_MIN_LENGTH}–${ID_MAX_LENGTH})`);
  }
  if (!chars.test(id)) problems.push(`does not match ${rule}`);
  return problems.length ? problems.join(' and ') : null;
}

/** Why a surface id breaks §3.2, or null. */
export function checkSurfaceId(id: string): string | null {
  return checkId(id, SURFACE_ID_CHARS, '^[a-z][a-z0-9-]*[a-z0-9]$');
}

/** Why an action or observation id breaks §4.2 / §5.2, or null. */
export function checkActionId(id: string): string | null {
  return checkId(id, ACTION_ID_CHARS, '^[a-z][a-z0-9_]*[a-z0-9]$');
}
export const checkObservationId = checkActionId;

export function isValidSurfaceId(id: unknown): id is string {
  return typeof id === 'string' && SURFACE_ID_PATTERN.test(id);
}
export function isValidActionId(id: unknown): id is string {
  return typeof id === 'string' && ACTION_ID_PATTERN.test(id);
}
export const isValidObservationId = isValidActionId;
