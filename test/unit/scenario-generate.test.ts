/**
 * `oui-devtools generate-test`'s spec text: one step per request, what each
 * asserts, the approval helper only when a step needs it, and valid
 * TypeScript (checked by esbuild's parser, not by running it: the e2e test
 * playwright-stand-in.test.ts runs a generated spec against the demo).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { transformSync } from 'esbuild';
import { generateSpec, scenarioOfFile } from '../../src/cli/generate-test.ts';
import type { Scenario } from '../../src/runtime/scenario.ts';

const scenario: Scenario = {
  format: 'oui-devtools-scenario',
  version: 1,
  origin: 'http://app.test/',
  steps: [
    { surfaceId: 'catalog', actionId: 'search', params: { query: "it's */ here" }, data: { schema: { type: 'object' } } },
    { surfaceId: 'cart', actionId: 'clear_cart', params: {}, approve: true, expect: { error: 'ACTION_DENIED' } },
    { surfaceId: 'cart', actionId: 'add', params: {}, observations: { cart: { total: { equals: 3 } } } },
  ],
};

describe('generateSpec', () => {
  const text = generateSpec(scenario, { timeoutMs: 2000, source: 'x.json' });

  it('is TypeScript that parses', () => {
    assert.doesNotThrow(() => transformSync(text, { loader: 'ts' }));
  });

  it('one test.step per step, each through oui.call with its checks', () => {
    assert.equal([...text.matchAll(/await test\.step\(/g)].length, 3);
    assert.match(text, /oui\.call\("catalog", "search", \{"query":"it's \*\/ here"\}, \{"timeoutMs":2000\}\)/);
    assert.match(text, /expect\(result\.data, "data"\)\.toMatchJsonSchema\(\{"type":"object"\}\)/);
    assert.match(text, /Promise\.all\(\[oui\.call\("cart", "clear_cart", \{\}, \{"approve":true,"timeoutMs":2000\}\), confirmApproval\(page\)\]\)/);
    assert.match(text, /expect\(result\.error\?\.code, explain\(result\)\)\.toBe\("ACTION_DENIED"\)/);
    assert.match(text, /expect\(await observed\(oui, result, "cart", "total"\), "observation cart\/total"\)\.toEqual\(3\)/);
    assert.match(text, /process\.env\.OUI_APP_URL \?\? "http:\/\/app\.test\/"/);
  });

  it('no approval helper when no step asks for approval', () => {
    const plain = generateSpec({ ...scenario, steps: [scenario.steps[0]!] });
    assert.doesNotMatch(plain, /confirmApproval/);
    assert.doesNotThrow(() => transformSync(plain, { loader: 'ts' }));
  });
});

describe('scenarioOfFile', () => {
  it('a scenario file as it is; a session with no agent request, or another format, says why', () => {
    const s = scenarioOfFile(JSON.stringify(scenario));
    assert.ok(s.ok);
    assert.deepEqual(s.scenario, scenario);
    assert.equal(s.url, 'http://app.test/');
    const empty = scenarioOfFile(JSON.stringify({ format: 'oui-devtools-session', version: 1, exportedAt: new Date(0).toISOString(), clients: [], events: [] }));
    assert.ok(!empty.ok && /no request of an agent runtime/.test(empty.error));
    const other = scenarioOfFile('{"format":"x"}');
    assert.ok(!other.ok && /neither a session file/.test(other.error));
  });
});
