/**
 * Page data with member names that reach the prototype chain (`__proto__`,
 * `constructor`, `prototype`): JSON.parse makes them own members, so the panel
 * must show them as members, in the current value and in every diff of an
 * observation's history, and must not let them touch any prototype.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openAppAndPanel, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

// Sent as text, so the page never builds these objects itself.
const FRAMES = [
  '{"type":"surface:register","payload":{"surface":{"id":"store","name":"Store","description":"d","actions":[{"id":"noop","description":"d","input":{"type":"object"}}],"observations":[{"id":"state","description":"d","schema":{"type":"object"}}]},"timestamp":1}}',
  '{"type":"observation:update","payload":{"surfaceId":"store","observationId":"state","value":{"a":1},"timestamp":2}}',
  '{"type":"observation:update","payload":{"surfaceId":"store","observationId":"state","value":{"a":1,"__proto__":{"polluted":1}},"timestamp":3}}',
  '{"type":"observation:update","payload":{"surfaceId":"store","observationId":"state","value":{"__proto__":{"polluted":2},"constructor":{"prototype":7}},"timestamp":4}}',
];

describe('prototype-reaching member names', () => {
  let server: FixtureServer;
  let b: Browser;
  before(async () => {
    server = await startFixtureServer({
      '/': `<!doctype html><title>proto</title><script>
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
        ws.onopen = () => { for (const f of ${JSON.stringify(FRAMES)}) ws.send(f); document.title = 'sent'; };
      </script>`,
    });
    b = await launch({ rows: 'events', viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await server?.close();
  });

  test('an observation whose value has a __proto__ member shows its value, diffs and history as members', async () => {
    const { app, panel: p, errors } = await openAppAndPanel(b, server.url, 'sent', 4);
    await p.click('#tab-observations');
    const obs = p.locator('article.observation[data-observation="store/state"]');
    await obs.waitFor();
    const text = await obs.innerText();
    assert.match(text, /3 updates/);
    // Newest first: the third update's diff, then the second's, then the first value.
    const history = await obs.locator('ol.history > li').allInnerTexts();
    assert.equal(history.length, 3);
    assert.match(history[0]!, /changed \/__proto__\/polluted from 1 to 2/);
    assert.match(history[0]!, /added \/constructor = \{"prototype":7\}/);
    assert.match(history[0]!, /removed \/a \(was 1\)/);
    assert.match(history[1]!, /added \/__proto__ = \{"polluted":1\}/);
    assert.match(history[2]!, /initial value \{"a":1\}/);
    // The current value's tree lists both members by name.
    const tree = await obs.locator('.json-tree').first().innerText();
    assert.match(tree, /__proto__/);
    assert.match(tree, /constructor/);
    assert.doesNotMatch(tree, /\ba: 1/);
    // Nothing reached a prototype in the panel or the page, and nothing was flagged as a schema mismatch.
    assert.equal(await app.evaluate(() => (({}) as Record<string, unknown>).polluted), undefined);
    assert.equal(await p.evaluate(() => (({}) as Record<string, unknown>).polluted), undefined);
    assert.doesNotMatch(text, /not matching the schema/);
    assert.deepEqual(errors, []);
  });
});
