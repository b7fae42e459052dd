/**
 * Scenarios: an ordered list of requests with what must come of each, run
 * through a stand-in runtime (the panel's connection or the Playwright
 * fixture's), with a verdict per step and the exchange's events. Pure: the
 * driver does the sending; JSON Schema checks go through src/protocol/schema.ts
 * (no code generation, so it runs under an extension's CSP).
 *
 * The file (versioned JSON):
 *
 *   { "format": "oui-devtools-scenario", "version": 1, "origin"?: string, "name"?: string,
 *     "steps": [{ "surfaceId", "actionId", "params", "client"?, "approve"?, "timeoutMs"?, "name"?,
 *                 "expect"?: { "success": true } | { "error": "<code>" },
 *                 "data"?: { "schema": <JSON Schema> } | { "equals": <value> },
 *                 "observations"?: { <surfaceId>: { <observationId>: { "schema" } | { "equals" } } } }] }
 */
import { canonicalJson, isRecord, validateJson } from '../protocol/index.ts';
import type { OUIActionResult } from '../protocol/index.ts';
import type { RequestState } from '../session/model/model-types.ts';

export const SCENARIO_FORMAT = 'oui-devtools-scenario';
export const SCENARIO_VERSION = 1;
/** Enough for any hand-written or saved scenario; a bigger file is a mistake. */
export const MAX_STEPS = 1000;

/** What a value must be: valid against a JSON Schema, or equal (as canonical JSON) to a value. */
export type ValueCheck = { schema: unknown } | { equals: unknown };

export interface ScenarioStep {
  surfaceId: string;
  actionId: string;
  params: Record<string, unknown>;
  /** The client's key, or a part of its key or label. */
  client?: string;
  approve?: true | { approvalId: string };
  timeoutMs?: number;
  name?: string;
  expect?: { success: true } | { error: string };
  data?: ValueCheck;
  observations?: Record<string, Record<string, ValueCheck>>;
}

export interface Scenario {
  format: typeof SCENARIO_FORMAT;
  version: typeof SCENARIO_VERSION;
  origin?: string;
  name?: string;
  steps: ScenarioStep[];
}

export type ReadScenario = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

const str = (v: unknown): v is string => typeof v === 'string';

function readCheck(v: unknown, at: string, errors: string[]): ValueCheck | undefined {
  if (!isRecord(v) || ('schema' in v) === ('equals' in v)) {
    errors.push(`${at}: must be { "schema": <JSON Schema> } or { "equals": <value> }`);
    return undefined;
  }
  if ('schema' in v) {
    if (typeof v.schema !== 'boolean' && !isRecord(v.schema)) errors.push(`${at}.schema: a JSON Schema is an object or a boolean`);
    return { schema: v.schema };
  }
  return { equals: v.equals };
}

function readStep(v: unknown, i: number, errors: string[]): ScenarioStep | null {
  const at = `steps[${i}]`;
  if (!isRecord(v)) {
    errors.push(`${at}: not an object`);
    return null;
  }
  const before = errors.length;
  if (!str(v.surfaceId) || !v.surfaceId) errors.push(`${at}.surfaceId: a non-empty string is required`);
  if (!str(v.actionId) || !v.actionId) errors.push(`${at}.actionId: a non-empty string is required`);
  if (v.params !== undefined && !isRecord(v.params)) errors.push(`${at}.params: must be an object (an action's input is an object, §4.3)`);
  if (v.client !== undefined && !str(v.client)) errors.push(`${at}.client: must be a string`);
  if (v.name !== undefined && !str(v.name)) errors.push(`${at}.name: must be a string`);
  if (v.timeoutMs !== undefined && !(typeof v.timeoutMs === 'number' && v.timeoutMs > 0 && v.timeoutMs <= 86_400_000)) errors.push(`${at}.timeoutMs: a number of ms, more than 0 and at most a day`);
  if (v.approve !== undefined && v.approve !== true && !(isRecord(v.approve) && str(v.approve.approvalId))) errors.push(`${at}.approve: true, or { "approvalId": string }`);
  let expect: ScenarioStep['expect'];
  if (v.expect !== undefined) {
    if (isRecord(v.expect) && v.expect.success === true && !('error' in v.expect)) expect = { success: true };
    else if (isRecord(v.expect) && str(v.expect.error) && v.expect.error && !('success' in v.expect)) expect = { error: v.expect.error };
    else errors.push(`${at}.expect: { "success": true } or { "error": "<code>" }`);
  }
  const data = v.data === undefined ? undefined : readCheck(v.data, `${at}.data`, errors);
  let observations: ScenarioStep['observations'];
  if (v.observations !== undefined) {
    if (!isRecord(v.observations)) errors.push(`${at}.observations: { <surfaceId>: { <observationId>: check } }`);
    else {
      observations = {};
      for (const [s, obs] of Object.entries(v.observations)) {
        if (!isRecord(obs)) {
          errors.push(`${at}.observations.${s}: { <observationId>: check }`);
          continue;
        }
        observations[s] = {};
        for (const [o, c] of Object.entries(obs)) {
          const check = readCheck(c, `${at}.observations.${s}.${o}`, errors);
          if (check) observations[s][o] = check;
        }
      }
    }
  }
  if (errors.length > before) return null;
  return {
    surfaceId: v.surfaceId as string,
    actionId: v.actionId as string,
    params: (v.params as Record<string, unknown> | undefined) ?? {},
    ...(v.client !== undefined ? { client: v.client as string } : {}),
    ...(v.approve !== undefined ? { approve: v.approve === true ? (true as const) : { approvalId: (v.approve as { approvalId: string }).approvalId } } : {}),
    ...(v.timeoutMs !== undefined ? { timeoutMs: v.timeoutMs as number } : {}),
    ...(v.name !== undefined ? { name: v.name as string } : {}),
    ...(expect ? { expect } : {}),
    ...(data ? { data } : {}),
    ...(observations ? { observations } : {}),
  };
}

/** Reads a scenario file's parsed JSON; every problem is named with where it is. */
export function readScenario(x: unknown): ReadScenario {
  if (!isRecord(x)) return { ok: false, errors: ['a scenario is a JSON object'] };
  if (x.format !== SCENARIO_FORMAT) return { ok: false, errors: [`format: expected "${SCENARIO_FORMAT}", got ${JSON.stringify(x.format) ?? 'nothing'}${x.format === 'oui-devtools-session' ? ' (a session file: save a scenario from its requests first)' : ''}`] };
  if (x.version !== SCENARIO_VERSION) return { ok: false, errors: [`version: this reader knows version ${SCENARIO_VERSION}, the file is version ${JSON.stringify(x.version) ?? 'absent'}`] };
  const errors: string[] = [];
  if (x.origin !== undefined && !str(x.origin)) errors.push('origin: must be a string');
  if (x.name !== undefined && !str(x.name)) errors.push('name: must be a string');
  if (!Array.isArray(x.steps)) return { ok: false, errors: [...errors, 'steps: an array of steps is required'] };
  if (x.steps.length > MAX_STEPS) return { ok: false, errors: [...errors, `steps: at most ${MAX_STEPS}, the file has ${x.steps.length}`] };
  const steps: ScenarioStep[] = [];
  x.steps.forEach((s, i) => {
    const step = readStep(s, i, errors);
    if (step) steps.push(step);
  });
  if (errors.length) return { ok: false, errors };
  return { ok: true, scenario: { format: SCENARIO_FORMAT, version: SCENARIO_VERSION, ...(x.origin !== undefined ? { origin: x.origin as string } : {}), ...(x.name !== undefined ? { name: x.name as string } : {}), steps } };
}

/** A scenario's text from its JSON text: parse errors and shape errors alike. */
export function parseScenario(text: string): ReadScenario {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`not JSON: ${(e as Error).message}`] };
  }
  return readScenario(v);
}

export function scenarioText(s: Scenario): string {
  return JSON.stringify(s, null, 2) + '\n';
}

// ── running ────────────────────────────────────────────────────────────────

/** What a step's call came to, as the driver reports it. */
export interface StepCall {
  /** The client's final result, or the one the runtime made (TIMEOUT, SURFACE_UNAVAILABLE). */
  result?: OUIActionResult;
  requestId?: string;
  eventIds: string[];
  /** The call did not end in a result (unknown surface, not delivered, no approval). */
  error?: string;
  /** The client the call went to (its key). */
  client?: string;
}

export interface ScenarioDriver {
  call(step: ScenarioStep): Promise<StepCall>;
  /** An observation's current value on that client, after the step; undefined when none is known. */
  observation(client: string | undefined, surfaceId: string, observationId: string): Promise<unknown>;
  now?(): number;
}

export interface StepResult {
  index: number;
  step: ScenarioStep;
  pass: boolean;
  failures: string[];
  result?: OUIActionResult;
  requestId?: string;
  client?: string;
  eventIds: string[];
  ms: number;
}

export interface ScenarioReport {
  pass: boolean;
  steps: StepResult[];
  skipped: number;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

function short(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** Whether `value` passes `check`; the failures in words, prefixed by `what`. */
export function checkValue(value: unknown, check: ValueCheck, what: string): string[] {
  if ('equals' in check) return sameJson(value, check.equals) ? [] : [`${what}: expected ${short(check.equals)}, got ${value === undefined ? 'nothing' : short(value)}`];
  if (value === undefined) return [`${what}: no value`];
  const v = validateJson(value, check.schema);
  return v.valid ? [] : v.errors.slice(0, 5).map((e) => `${what}${e.pointer}: ${e.message}`);
}

/** The verdict on one step's call. */
export async function judgeStep(step: ScenarioStep, call: StepCall, driver: Pick<ScenarioDriver, 'observation'>): Promise<string[]> {
  const failures: string[] = [];
  const r = call.result;
  if (!r) return [call.error ?? 'no result'];
  const expect = step.expect ?? { success: true };
  if ('success' in expect) {
    if (r.success !== true) failures.push(`expected success, got ${r.error?.code ?? 'a failure'}${r.error?.message ? `: ${r.error.message}` : ''}`);
  } else if (r.success !== false || r.error?.code !== expect.error) {
    failures.push(`expected error ${expect.error}, got ${r.success ? 'success' : (r.error?.code ?? 'a failure without code')}`);
  }
  if (step.data) failures.push(...checkValue(r.data, step.data, 'data'));
  for (const [s, obs] of Object.entries(step.observations ?? {})) {
    for (const [o, check] of Object.entries(obs)) {
      // The client's own state after the action (§7.3.4) first, then what the runtime last heard.
      const snap = r.observations?.[s];
      const value = snap && Object.prototype.hasOwnProperty.call(snap, o) ? snap[o] : await driver.observation(call.client ?? step.client, s, o);
      failures.push(...checkValue(value, check, `observation ${s}/${o}`));
    }
  }
  return failures;
}

/** Runs one step. */
export async function runStep(step: ScenarioStep, index: number, driver: ScenarioDriver): Promise<StepResult> {
  const now = driver.now ?? Date.now;
  const t0 = now();
  let call: StepCall;
  try {
    call = await driver.call(step);
  } catch (e) {
    call = { eventIds: [], error: (e as Error)?.message ?? String(e) };
  }
  const failures = await judgeStep(step, call, driver);
  return {
    index,
    step,
    pass: failures.length === 0,
    failures,
    ...(call.result ? { result: call.result } : {}),
    ...(call.requestId ? { requestId: call.requestId } : {}),
    ...(call.client ? { client: call.client } : {}),
    eventIds: call.eventIds,
    ms: now() - t0,
  };
}

/** Runs the steps in order (stopping at the first failure unless told not to). */
export async function runScenario(scenario: Scenario, driver: ScenarioDriver, opts: { stopOnFailure?: boolean; onStep?: (r: StepResult) => void; from?: number; to?: number } = {}): Promise<ScenarioReport> {
  const steps: StepResult[] = [];
  const from = opts.from ?? 0;
  const to = Math.min(opts.to ?? scenario.steps.length, scenario.steps.length);
  let i = from;
  for (; i < to; i++) {
    const r = await runStep(scenario.steps[i]!, i, driver);
    steps.push(r);
    opts.onStep?.(r);
    if (!r.pass && opts.stopOnFailure !== false) {
      i++;
      break;
    }
  }
  return { pass: steps.every((s) => s.pass), steps, skipped: to - i };
}

// ── saving ─────────────────────────────────────────────────────────────────

/** A JSON Schema of a value's shape: its types and, for objects, its members (required as seen); values themselves are left free. */
export function shapeSchema(v: unknown, depth = 0): Record<string, unknown> {
  if (v === null) return { type: 'null' };
  if (Array.isArray(v)) return depth > 8 || v.length === 0 ? { type: 'array' } : { type: 'array', items: shapeSchema(v[0], depth + 1) };
  switch (typeof v) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      if (depth > 8) return { type: 'object' };
      const props: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) props[k] = shapeSchema(x, depth + 1);
      return { type: 'object', properties: props, required: Object.keys(props) };
    }
    default:
      return {};
  }
}

export interface SaveOptions {
  origin?: string;
  name?: string;
  /** `shape` (default): `data` and observations checked by their JSON shape (ids and times differ between runs); `exact`: by value. */
  values?: 'shape' | 'exact';
  /** The client each request was on, to name it in the step (by label); none: the runner picks the one with the surface. */
  clientOf?: (r: RequestState) => string | undefined;
}

/** The final answer a request got (the last non-interim result), if any. */
function finalResult(r: RequestState): OUIActionResult | undefined {
  for (let i = r.results.length - 1; i >= 0; i--) if (r.results[i]!.result.interim !== true) return r.results[i]!.result;
  return undefined;
}

/** "Save as scenario": the captured requests, in the order given, as steps expecting what each got. */
export function scenarioFromRequests(requests: readonly RequestState[], opts: SaveOptions = {}): Scenario {
  const check = (v: unknown): ValueCheck => (opts.values === 'exact' ? { equals: v } : { schema: shapeSchema(v) });
  const steps: ScenarioStep[] = [];
  for (const r of requests) {
    const res = finalResult(r);
    const client = opts.clientOf?.(r);
    const step: ScenarioStep = {
      surfaceId: r.surfaceId,
      actionId: r.actionId,
      params: isRecord(r.params) ? (r.params as Record<string, unknown>) : {},
      ...(client ? { client } : {}),
      ...(r.approval ? { approve: true as const } : {}),
    };
    if (res) {
      step.expect = res.success ? { success: true } : { error: res.error?.code ?? 'INTERNAL_ERROR' };
      if (res.success && res.data !== undefined) step.data = check(res.data);
      if (isRecord(res.observations)) {
        const obs: Record<string, Record<string, ValueCheck>> = {};
        for (const [s, values] of Object.entries(res.observations)) {
          if (!isRecord(values)) continue;
          for (const [o, v] of Object.entries(values)) (obs[s] ??= {})[o] = check(v);
        }
        if (Object.keys(obs).length) step.observations = obs;
      }
    } else if (r.resolution) {
      step.expect = { error: r.resolution.code };
    }
    steps.push(step);
  }
  return { format: SCENARIO_FORMAT, version: SCENARIO_VERSION, ...(opts.origin ? { origin: opts.origin } : {}), ...(opts.name ? { name: opts.name } : {}), steps };
}
