/**
 * `oui-devtools generate-test FILE`: a Playwright spec from a recorded
 * session (the panel's export, the fixture's oui-session.json) or a scenario
 * file. The spec opens the page, replays the agent's requests one by one
 * through the fixture's stand-in runtime (`oui.call`) and asserts what each
 * got (success or the error code, `data`, the observations afterwards), as
 * Redux DevTools' test tab and Playwright codegen do for theirs.
 *
 * From a session, the agent's requests are the ones the app's runtime sent
 * (an injected or replayed one is left out), in the order they were sent, one
 * step each; their `data` and observations are asserted by their JSON shape
 * (a replay gets other ids and times), which `--exact` turns into values.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModelFeed } from '../session/model/merge.ts';
import type { RequestState } from '../session/model/model-types.ts';
import { parseSessionFile, type SessionFile } from '../session/wire/session-file.ts';
import { readScenario, scenarioFromRequests, type Scenario, type ScenarioStep, type ValueCheck } from '../runtime/scenario.ts';
import type { Io } from './lint.ts';

export const GENERATE_USAGE = `Usage: oui-devtools generate-test [options] FILE

Writes a Playwright spec (oui-devtools/playwright) from a recorded session
(the panel's Export, the fixture's oui-session.json) or a scenario file: it
opens the page, replays the agent's requests through oui.call and asserts
their results (success or error code, data) and the observations afterwards.

Options:
  -o, --out PATH       where to write the spec (default: standard output)
  --url URL            the page to open (default: the recording's page, or the scenario's origin);
                       the spec also reads OUI_APP_URL at run time
  --timeout MS         each call's deadline (default 10000)
  --exact              assert data and observations by value, not by their JSON shape
  --name TEXT          the test's title
  -h, --help           show this help`;

interface GenerateOptions {
  file: string;
  out?: string;
  url?: string;
  timeoutMs: number;
  exact: boolean;
  name?: string;
}

function parseGenerateArgs(argv: string[]): GenerateOptions | { help: true } | { error: string } {
  const o: Partial<GenerateOptions> & { timeoutMs: number; exact: boolean } = { timeoutMs: 10_000, exact: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === '-h' || a === '--help') return { help: true };
      else if (a === '-o' || a === '--out') o.out = value();
      else if (a === '--url') o.url = value();
      else if (a === '--name') o.name = value();
      else if (a === '--exact') o.exact = true;
      else if (a === '--timeout') {
        const n = Number(value());
        if (!(n > 0 && n <= 86_400_000)) return { error: '--timeout: a number of ms, more than 0 and at most a day' };
        o.timeoutMs = n;
      } else if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
      else if (o.file !== undefined) return { error: 'one FILE only' };
      else o.file = a;
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  if (o.file === undefined) return { error: 'FILE is required' };
  return o as GenerateOptions;
}

/** The agent's requests of a recording, in the order sent, and the page it was on. */
export function requestsOfSession(file: SessionFile): { requests: RequestState[]; url?: string } {
  const clients = new Map(file.clients.map((c) => [c.key, c]));
  const feed = new ModelFeed((k) => clients.get(k));
  feed.add(file.events, Date.now());
  feed.finish();
  const all: RequestState[] = [];
  for (const st of feed.model.clients.values()) for (const r of st.requests.values()) if (r.sends.length && r.sends[0]!.injected !== true) all.push(r);
  all.sort((a, b) => a.sends[0]!.t - b.sends[0]!.t);
  const top = file.clients.find((c) => c.frameId === 0 && /^https?:/.test(c.frameUrl));
  return { requests: all, ...(top ? { url: top.frameUrl } : {}) };
}

/** A scenario from a file's text: a scenario as is, a session's agent requests as steps. */
export function scenarioOfFile(text: string, opts: { exact?: boolean } = {}): { ok: true; scenario: Scenario; url?: string } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message.slice(0, 120)}` };
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format === 'oui-devtools-session') {
    const parsed = parseSessionFile(text);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const { requests, url } = requestsOfSession(parsed.file);
    if (!requests.length) return { ok: false, error: 'the recording holds no request of an agent runtime (injected and replayed ones are left out)' };
    return { ok: true, scenario: scenarioFromRequests(requests, { values: opts.exact ? 'exact' : 'shape', ...(url ? { origin: url } : {}) }), ...(url ? { url } : {}) };
  }
  const read = readScenario(data);
  if (!read.ok) return { ok: false, error: format === 'oui-devtools-scenario' ? read.errors.join('; ') : 'neither a session file ("oui-devtools-session") nor a scenario ("oui-devtools-scenario")' };
  return { ok: true, scenario: read.scenario, ...(read.scenario.origin ? { url: read.scenario.origin } : {}) };
}

const lit = (v: unknown) => JSON.stringify(v);
/** A string literal safe in a comment or a title. */
const title = (s: string) => JSON.stringify(s.replace(/[\u0000-\u001f\u2028\u2029*/]/g, ' '));

function checkLines(expr: string, check: ValueCheck, what: string, indent: string): string[] {
  return 'equals' in check ? [`${indent}expect(${expr}, ${lit(what)}).toEqual(${lit(check.equals)});`] : [`${indent}expect(${expr}, ${lit(what)}).toMatchJsonSchema(${lit(check.schema)});`];
}

function stepCode(step: ScenarioStep, i: number, timeoutMs: number): string[] {
  const name = step.name ?? `${step.surfaceId} › ${step.actionId}`;
  const opts = { ...(step.client ? { client: step.client } : {}), ...(step.approve ? { approve: step.approve } : {}), timeoutMs: step.timeoutMs ?? timeoutMs };
  const call = `oui.call(${lit(step.surfaceId)}, ${lit(step.actionId)}, ${lit(step.params)}, ${lit(opts)})`;
  const lines = [`  await test.step(${title(`${i + 1}. ${name}`)}, async () => {`];
  if (step.approve === true) lines.push(`    const [result] = await Promise.all([${call}, confirmApproval(page)]);`);
  else lines.push(`    const result = await ${call};`);
  const expect = step.expect ?? { success: true };
  if ('success' in expect) lines.push(`    expect(result.success, explain(result)).toBe(true);`);
  else lines.push(`    expect(result.error?.code, explain(result)).toBe(${lit(expect.error)});`);
  if (step.data) lines.push(...checkLines('result.data', step.data, 'data', '    '));
  for (const [s, obs] of Object.entries(step.observations ?? {})) {
    for (const [o, check] of Object.entries(obs)) lines.push(...checkLines(`await observed(oui, result, ${lit(s)}, ${lit(o)})`, check, `observation ${s}/${o}`, '    '));
  }
  lines.push('  });');
  return lines;
}

/** The spec's text. */
export function generateSpec(scenario: Scenario, opts: { url?: string; timeoutMs?: number; name?: string; source?: string } = {}): string {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const url = opts.url ?? scenario.origin ?? 'http://localhost:3000/';
  const name = opts.name ?? scenario.name ?? `replays ${scenario.steps.length} agent request${scenario.steps.length === 1 ? '' : 's'}`;
  const approvals = scenario.steps.some((s) => s.approve === true);
  const out = [
    `// Generated by \`oui-devtools generate-test\`${opts.source ? ` from ${opts.source.replace(/[\r\n]/g, ' ')}` : ''}.`,
    '// Each step sends the agent\'s request through the fixture\'s stand-in runtime (oui.call) and checks what came back.',
    "import { test, expect, type Oui, type OuiActionResult } from 'oui-devtools/playwright';",
    ...(approvals ? ["import type { Page } from '@playwright/test';"] : []),
    '',
    `const URL = process.env.OUI_APP_URL ?? ${lit(url)};`,
    '',
    '/** A failed result, said in the assertion message. */',
    'function explain(r: OuiActionResult): string {',
    "  return r.success ? 'success' : `${r.error?.code}: ${r.error?.message}`;",
    '}',
    '',
    '/** An observation after the step: the client\'s own in its result (§7.3.4), else the latest it sent. */',
    'async function observed(oui: Oui, r: OuiActionResult, surfaceId: string, observationId: string): Promise<unknown> {',
    '  const own = r.observations?.[surfaceId];',
    '  return own && observationId in own ? own[observationId] : oui.observation(surfaceId, observationId);',
    '}',
    '',
    ...(approvals
      ? [
          '/** Confirms, as the user would, the approval the stand-in asks the page for (x-approval:ask): adapt to your app\'s dialog. */',
          'async function confirmApproval(page: Page): Promise<void> {',
          "  await page.getByRole('button', { name: /^approve$/i }).click();",
          '}',
          '',
        ]
      : []),
    `test(${title(name)}, async ({ page, oui }) => {`,
    `  test.setTimeout(${30_000 + scenario.steps.length * (timeoutMs + 2000)});`,
    '  await page.goto(URL);',
    ...scenario.steps.flatMap((s, i) => stepCode(s, i, timeoutMs)),
    "  await expect(oui).toHaveNoFindings({ min: 'error' });",
    '});',
    '',
  ];
  return out.join('\n');
}

export async function runGenerateTest(argv: string[], io: Io): Promise<number> {
  const o = parseGenerateArgs(argv);
  if ('help' in o) {
    io.stdout.write(`${GENERATE_USAGE}\n`);
    return 0;
  }
  if ('error' in o) {
    io.stderr.write(`oui-devtools generate-test: ${o.error} (see --help)\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, o.file), 'utf8');
  } catch (e) {
    io.stderr.write(`oui-devtools generate-test: cannot read ${o.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return 2;
  }
  const s = scenarioOfFile(text, { exact: o.exact });
  if (!s.ok) {
    io.stderr.write(`oui-devtools generate-test: ${o.file}: ${s.error}\n`);
    return 2;
  }
  const url = o.url ?? s.url;
  const spec = generateSpec(s.scenario, { timeoutMs: o.timeoutMs, source: o.file, ...(url ? { url } : {}), ...(o.name ? { name: o.name } : {}) });
  if (o.out) {
    writeFileSync(resolve(io.cwd, o.out), spec);
    io.stderr.write(`wrote ${o.out}: ${s.scenario.steps.length} step${s.scenario.steps.length === 1 ? '' : 's'}\n`);
  } else io.stdout.write(spec);
  return 0;
}
