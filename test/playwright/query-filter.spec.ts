/**
 * `oui.events({ filter })`: the panel's filter grammar over what the fixture
 * captured of the demo shop. The oracle filters `oui.events()` by the
 * events' own fields, written here from the grammar's meaning.
 */
import { test, expect } from 'oui-devtools/playwright';
import { startDemoServer, type DemoServer } from '../demo/server.ts';

let demo: DemoServer;
test.beforeAll(async () => {
  demo = await startDemoServer();
});
test.afterAll(async () => {
  await demo?.close();
});

const payloadOf = (e: { payload?: unknown }) => (e.payload && typeof e.payload === 'object' ? (e.payload as Record<string, unknown>) : {});

test('oui.events({ filter }) returns the events that match the query', async ({ page, oui }) => {
  await page.goto(demo.url);
  const client = await demo.runtime.waitForClient();
  const search = await demo.runtime.request(client, { surfaceId: 'catalog', actionId: 'search', params: { query: 'mug' } });
  expect(search.success).toBe(true);
  const nav = await demo.runtime.request(client, { surfaceId: 'shop-nav', actionId: 'navigate', params: { route: '/' } });
  expect(nav.success).toBe(true);
  const all = await oui.events();

  const catalogRequests = await oui.events({ filter: 'type:action:request surface:catalog' });
  const expected = all.filter((e) => e.type === 'action:request' && payloadOf(e).surfaceId === 'catalog');
  expect(expected.length).toBeGreaterThan(0);
  expect(catalogRequests.map((e) => e.id)).toEqual(expected.map((e) => e.id));

  // Negation and a quoted value: requests to every surface but the catalog.
  const others = await oui.events({ filter: 'action:request -surface:"catalog"' });
  expect(others.map((e) => e.id)).toEqual(all.filter((e) => e.type === 'action:request' && payloadOf(e).surfaceId !== 'catalog').map((e) => e.id));
  expect(others.length).toBeGreaterThan(0);

  // A /regex/ over the searchable text, case-insensitive; and a status read as the session stands.
  const mug = await oui.events({ filter: 'type:action:request /"query":\\s*"MU+G"/' });
  expect(mug.map((e) => e.id)).toEqual(all.filter((e) => e.type === 'action:request' && (payloadOf(e).params as { query?: string } | undefined)?.query === 'mug').map((e) => e.id));
  const succeeded = await oui.events({ filter: 'type:action:result status:succeeded dir:out' });
  expect(succeeded.length).toBeGreaterThanOrEqual(2);
  for (const e of succeeded) expect([e.type, e.dir, payloadOf(e).success]).toEqual(['action:result', 'out', true]);

  // A bad query throws with the bad term's column, never a partial answer.
  await expect(oui.events({ filter: 'surface:catalog dur:>soon' })).rejects.toThrow(/dur: wants a duration .*column 17/);
});
