/**
 * A small page whose client breaks the protocol on purpose: it registers a
 * surface with an invalid id and no action, and answers a request nobody
 * sent (an `action:result` for an unknown requestId, which is certain only
 * once nothing more can arrive: the matcher settles the capture first).
 */
import { test, expect } from 'oui-devtools/playwright';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';
import { expectMatcherFailure } from './expected-failure.ts';

const page = `<!doctype html><title>bad client</title><script>
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'Bad Surface!', name: 'Bad', description: 'A surface with an invalid id and no action', actions: [] }, timestamp: 1 } }));
  ws.send(JSON.stringify({ type: 'action:result', payload: { requestId: 'req-nobody-sent', success: true, data: {}, timestamp: 2 } }));
  document.title = 'sent';
};
</script>`;

let server: FixtureServer;
test.beforeAll(async () => {
  server = await startFixtureServer({ '/bad.html': page });
});
test.afterAll(async () => {
  await server?.close();
});

test('findings carry rule, section and party', async ({ page: tab, oui }) => {
  await tab.goto(`${server.url}/bad.html`);
  await expect(tab).toHaveTitle('sent');
  const findings = await oui.findings({ min: 'warning' });
  const rules = findings.map((f) => `${f.severity} ${f.rule} ${f.section} ${f.party}`);
  expect(rules).toContain('error surface-id §3.2 client');
  expect(rules).toContain('warning result-unknown-request §7.3.3 client');
  // Default threshold: errors only.
  expect((await oui.findings()).every((f) => f.severity === 'error' || f.severity === 'critical')).toBe(true);
  await expect(oui).not.toHaveNoFindings();
});

test('a client that breaks the protocol fails toHaveNoFindings', async ({ page: tab, oui }) => {
  await tab.goto(`${server.url}/bad.html`);
  await expect(tab).toHaveTitle('sent');
  // The matcher must fail, with each finding in its message (OUI_FIXTURE_SHOW_FAILURES=1 then fails the test for real).
  await expectMatcherFailure(() => expect(oui).toHaveNoFindings({ min: 'warning' }), [
    "expect(oui).toHaveNoFindings({ min: 'warning' })",
    /Received: 4 findings \(1 client, /,
    '\n1. error surface-id §3.2 (party at fault: client)',
    '\n2. error surface-no-actions §3.1 (party at fault: client)',
    '\n3. error hash-missing §7.3.4 (party at fault: client)',
    '\n4. warning result-unknown-request §7.3.3 (party at fault: client)',
    /surface id "Bad Surface!" does not match/,
    /result for req-nobody-sent, a request this client never received/,
  ]);
});
