/**
 * A page's schema with a catastrophic `pattern` (`^(a+)+$`, which a
 * backtracking engine takes ~2^30 steps to refuse on 30 characters) cannot
 * freeze the panel: captured params, results and observation values are
 * judged by it at once, and the composer validates what the user types with
 * it. Were any of these run by the JS engine, the panel would hang and every
 * step below would time out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openAppAndPanel, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { openFindingGroup } from '../support/findings.ts';

const EVIL = '^(a+)+$';
const BAD = 'a'.repeat(30) + '!';

describe('a catastrophic pattern in page data', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({
      '/': `<!doctype html><title>patterns</title><script>
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => {
          ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'evil', name: 'Evil', description: 'd',
            actions: [{ id: 'check', description: 'd', input: { type: 'object', properties: { s: { type: 'string', pattern: ${JSON.stringify(EVIL)} } } } }],
            observations: [{ id: 'word', description: 'd', schema: { type: 'string', pattern: ${JSON.stringify(EVIL)} } }] }, timestamp: 1 } }));
          ws.send(JSON.stringify({ type: 'observation:update', payload: { surfaceId: 'evil', observationId: 'word', value: ${JSON.stringify(BAD)}, timestamp: 2 } }));
        };
        ws.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === 'action:request') ws.send(JSON.stringify({ type: 'action:result', payload: { requestId: m.payload.requestId, success: false, error: { code: 'VALIDATION_ERROR', message: 'no' }, timestamp: 3 } }));
          document.title = 'answered';
        };
      </script>`,
    });
    server.onConnection((ws) =>
      ws.on('message', (d) => {
        if (String(d).includes('surface:register')) {
          ws.send(JSON.stringify({ type: 'action:request', payload: { requestId: '6f1c2b1e-8a5d-4c1b-9d2e-3f4a5b6c7d8e', surfaceId: 'evil', actionId: 'check', params: { s: BAD }, timestamp: 2 } }));
        }
      }),
    );
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  test('captured params and values are judged by it, and the composer validates with it, without a freeze', async () => {
    const { panel } = await openAppAndPanel(b, server.url, 'answered', 4);
    await panel.getByRole('tab', { name: 'Findings' }).click();
    await openFindingGroup(panel, 'params-invalid');
    const invalid = panel.locator('li.finding[data-rule=params-invalid]').first();
    assert.match(await invalid.innerText(), /does not match the pattern "\^\(a\+\)\+\$"/);
    await panel.getByRole('tab', { name: 'Observations' }).click();
    assert.match(await panel.locator('article.observation[data-observation="evil/word"]').innerText(), /not matching the schema/);
    // The composer: type a value the pattern refuses, then one it accepts.
    await panel.getByRole('tab', { name: 'Inject' }).click();
    const picker = panel.getByRole('combobox', { name: 'Inject into client' });
    await picker.locator('option', { hasText: 'websocket:' }).first().waitFor({ state: 'attached' });
    await picker.selectOption((await picker.locator('option', { hasText: 'websocket:' }).first().getAttribute('value'))!);
    await panel.getByRole('combobox', { name: 'Surface', exact: true }).selectOption('evil');
    await panel.getByRole('combobox', { name: 'Action', exact: true }).selectOption('check');
    const field = panel.getByLabel('s', { exact: true });
    await field.fill(BAD);
    await panel.getByText('/s does not match the pattern').waitFor({ timeout: 10_000 });
    await field.fill('a'.repeat(30));
    await panel.getByText('/s does not match the pattern').waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await panel.evaluate(() => 1 + 1), 2, 'the panel still answers');
  });
});
