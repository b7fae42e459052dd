import { launch, tabIdOf, openPanelPage } from './browser.ts';
import { startDemoServer } from '../demo/server.ts';
const demo = await startDemoServer({});
const b = await launch({ viewport: { width: 1400, height: 900 } });
const page = b.context.pages()[0]!;
page.on('pageerror', (e) => console.log('pageerror', e.message));
await page.goto(demo.url);
const tabId = await tabIdOf(b, page);
const panel = await openPanelPage(b, tabId);
panel.on('pageerror', (e) => console.log('PANEL pageerror', e.message));
panel.on('console', (m) => { if (m.type() === 'error') console.log('PANEL console', m.text()); });
const id = await demo.runtime.waitForClient();
const tour = demo.runtime.runScenario('tour', id, { stepMs: 100, approvalTimeoutMs: 8000 });
// approve when the dialog shows
page.locator('#approve-btn').click({ timeout: 20000 }).catch(e => console.log('no approve', e.message));
await tour.catch(e => console.log('tour error', e.message));
await page.click('#assistant-tip').catch(() => {});
await page.evaluate(() => (window as any).__demo.hostFrame('apply_coupon', { code: 'SAVE10' })).catch((e) => console.log('hostFrame', e.message));
await panel.waitForTimeout(1500);
for (const v of ['timeline', 'surfaces', 'hashes', 'observations', 'acks', 'approvals', 'findings']) {
  await panel.click(`#tab-${v}`);
  await panel.waitForTimeout(200);
  await panel.screenshot({ path: `/tmp/p-${v}.png` });
}
await panel.click('#tab-timeline'); await panel.locator('.row[data-type="action:request"]').first().click(); await panel.waitForTimeout(200); await panel.screenshot({ path: '/tmp/p-detail.png' });
await panel.click('#tab-findings');
console.log((await panel.locator('.finding-list').innerText().catch(() => 'none')).slice(0, 3000));
await b.close(); await demo.close();
