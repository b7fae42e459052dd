/**
 * `oui-devtools/playwright`: OUI conformance inside an app's own Playwright
 * tests, with no extension.
 *
 *   import { test, expect } from 'oui-devtools/playwright';
 *   test('checkout', async ({ page, oui }) => {
 *     await page.goto('/');
 *     …
 *     await expect(oui).toHaveNoFindings({ min: 'error' });
 *   });
 *
 * The `oui` fixture adds the panel's page hook to every page and frame of
 * the test's context (context.addInitScript), collects what it captures as
 * it happens (context.exposeBinding), decodes and judges it with the same
 * recorder, merge and session model as the panel, and attaches the session
 * to the test's report as oui-session.json (the panel's Import opens it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test as base, expect as baseExpect } from '@playwright/test';
import type { ExpectMatcherState, MatcherReturnType } from '@playwright/test';
import { OuiCapture, filterFindings, isSeverity, SEVERITIES } from './capture.ts';
import { formatFindings } from './failure-text.ts';
import { OUI_FIXTURE_BINDING } from './binding.ts';
import { fixtureTimers } from './timers.ts';
import { sessionFileText } from '../session/wire/session-file.ts';
import { redactSessionFile, unredactedSessionFile } from '../session/redact/session.ts';
import { validateJson } from '../protocol/schema.ts';
import type * as Api from './api.d.ts';

export { formatFindings, OUI_FIXTURE_BINDING };
export type { OuiActionResult, OuiCallOptions, OuiFaultRule, OuiFaults, OuiScenario, OuiScenarioReport, OuiScenarioStep, OuiStepResult, OuiRunOptions } from './api.d.ts';
export type { OuiServeOptions, OuiServed } from './api.d.ts';
export type { Oui, OuiClient, OuiFinding, OuiFindingsOptions, OuiOptions, OuiSessionFile, OuiSessionModel, OuiSettleReport, OuiSeverity, OuiTimers, OuiWireEvent } from './api.d.ts';

/** The init script: the page hook with the fixture's bridge, one IIFE (scripts/build-playwright.mjs). */
const INIT_SCRIPT_NAME = 'oui-init.js';
let initScript: string | undefined;

function loadInitScript(): string {
  if (initScript !== undefined) return initScript;
  // Beside the built module; from the sources (tsx), in the build's output.
  const candidates = [new URL(`./${INIT_SCRIPT_NAME}`, import.meta.url), new URL(`../../dist/playwright/${INIT_SCRIPT_NAME}`, import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return (initScript = readFileSync(path, 'utf8'));
  }
  throw new Error(`oui-devtools/playwright: ${INIT_SCRIPT_NAME} is missing beside the module; build it with \`node scripts/build-playwright.mjs\``);
}

export const test: typeof Api.test = base.extend<Api.OuiFixtures>({
  ouiOptions: [{}, { option: true }],
  oui: async ({ context, ouiOptions }, use, testInfo) => {
    const timers = fixtureTimers(ouiOptions.timers);
    const capture = await OuiCapture.attach(context, loadInitScript(), { ...(ouiOptions.specVersion ? { specVersion: ouiOptions.specVersion } : {}), ...(timers ? { timers } : {}) });
    try {
      await use(capture);
    } finally {
      const when = ouiOptions.attach ?? 'always';
      const failed = testInfo.status !== testInfo.expectedStatus;
      if (when === 'always' || (when === 'on-failure' && failed)) {
        const file = await capture.sessionFile();
        // Redacted as the panel's Export is (docs/redaction.md), with the findings judged before; `redact: false` attaches it unredacted, marked so.
        const redact = ouiOptions.redact;
        const body = redact === false ? unredactedSessionFile(file) : redactSessionFile(file, capture.modelOf(capture.snapshot()).findings, { pointers: (redact?.pointers ?? []).map((pointer) => ({ pointer })) });
        await testInfo.attach('oui-session.json', { body: sessionFileText(body), contentType: 'application/json' });
      }
      capture.close();
    }
  },
});

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A frame the handshake could not flush, or items a hook could not hand over: said under the verdict, never silent. */
function settleNoteOf(r: Api.OuiSettleReport): string {
  const notes: string[] = [];
  if (r.unflushed.length) {
    const frames = r.unflushed.map((f) => `${f.url || '(no URL)'} (${f.reason})`).join(', ');
    notes.push(`\nNote: ${plural(r.unflushed.length, 'frame')} could not be flushed before this verdict, so what ${r.unflushed.length === 1 ? 'it' : 'they'} captured last may be missing: ${frames}.`);
  }
  if (r.waiting + r.behind > 0) notes.push(`\nNote: ${plural(r.waiting + r.behind, 'captured item')} had not reached the test when ${r.waiting + r.behind === 1 ? 'its' : 'their'} frame's flush was answered.`);
  return notes.join('');
}

const matchers = {
  async toHaveNoFindings(this: ExpectMatcherState, oui: Api.Oui, options: Api.OuiFindingsOptions = {}): Promise<MatcherReturnType> {
    const name = 'toHaveNoFindings';
    const min = options?.min ?? 'error';
    const hint = `expect(oui)${this.isNot ? '.not' : ''}.${name}({ min: '${min}' })`;
    if (!isSeverity(min)) {
      return { name, pass: this.isNot, message: () => `${hint}\n\nmin must be one of ${SEVERITIES.map((s) => `'${s}'`).join(', ')}; got ${JSON.stringify(min)}` };
    }
    if (!(oui instanceof OuiCapture)) {
      return { name, pass: this.isNot, message: () => `${hint}\n\nExpected the \`oui\` fixture of oui-devtools/playwright; received ${oui === null ? 'null' : typeof oui}` };
    }
    const settled = await oui.settle();
    const snap = oui.snapshot();
    const all = oui.modelOf(snap).findings;
    const found = filterFindings(all, min);
    const pass = found.length === 0;
    const scope = `${plural(snap.clients.length, 'client')}, ${plural(snap.events.length, 'event')}`;
    const losses = oui.losses();
    const lossNote = losses.lost + losses.undelivered + losses.unreadable > 0 ? `\nNote: ${losses.lost + losses.undelivered + losses.unreadable} captured items never reached the test (dropped by the page's bounded buffer or refused on the way).` : '';
    const settleNote = settleNoteOf(settled);
    const message = pass
      ? () => `${hint}\n\nExpected: at least one OUI conformance finding at ${min} or above\nReceived: none (${scope}, ${plural(all.length, 'finding')} below ${min})${settleNote}`
      : () =>
          `${hint}\n\nExpected: no OUI conformance finding at ${min} or above\nReceived: ${plural(found.length, 'finding')} (${scope}; ${all.length} in all; the session is attached to the test as oui-session.json, events numbered as in it)\n\n` +
          formatFindings(found, snap) +
          lossNote +
          settleNote;
    return { name, pass, message, expected: `no findings at ${min} or above`, actual: found.map((f) => `${f.severity} ${f.rule} ${f.section}`) };
  },
  toMatchJsonSchema(this: ExpectMatcherState, value: unknown, schema: unknown): MatcherReturnType {
    const name = 'toMatchJsonSchema';
    const v = validateJson(value, schema);
    const hint = `expect(value)${this.isNot ? '.not' : ''}.${name}(schema)`;
    return {
      name,
      pass: v.valid,
      message: () => (v.valid ? `${hint}\n\nExpected a value the schema refuses; received one it accepts: ${short(value)}` : `${hint}\n\nReceived: ${short(value)}\n${v.errors.map((e) => `  ${e.pointer || '(the value)'}: ${e.message}`).join('\n')}`),
    };
  },
} satisfies Api.OuiMatchers;

function short(v: unknown): string {
  const s = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

export const expect: typeof Api.expect = baseExpect.extend(matchers);
