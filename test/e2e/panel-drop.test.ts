/**
 * A file dropped anywhere on the panel is opened, as the Network panel opens
 * a dropped HAR: a hint covers the panel while files are dragged over it, and
 * a session file, a HAR, or both at once become the session on screen. The
 * toolbar's Import goes the same way: a HAR picked there opens as a dropped one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSHandle, Page } from 'playwright-core';
import { launch, openPanelPage, tabIdOf, type Browser } from '../support/browser.ts';
import { capture, chromeHar, sessionFile } from '../fixtures/traffic.ts';
import { until } from '../support/wait.ts';

let browser: Browser;
let panel: Page;

type Dropped = { name: string; type: string; text: string };

/** A DataTransfer in the panel carrying these files, as the OS hands a drag to the page. */
function files(list: Dropped[]): Promise<JSHandle<DataTransfer>> {
  return panel.evaluateHandle((l) => {
    const dt = new DataTransfer();
    for (const f of l) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  }, list);
}

const notice = () => panel.getByRole('status').filter({ hasText: /Import/ });
const hint = () => panel.getByText('Drop a session file (.json) or a HAR to open it');

async function drop(list: Dropped[]): Promise<void> {
  const dataTransfer = await files(list);
  // Over the Timeline's list: any element of the panel takes the drop.
  await panel.dispatchEvent('.main', 'dragenter', { dataTransfer });
  await until(() => hint().isVisible(), 'the drop hint shown while dragging');
  await panel.dispatchEvent('.main', 'dragover', { dataTransfer });
  await panel.dispatchEvent('.main', 'drop', { dataTransfer });
  await until(async () => !(await hint().isVisible()), 'the hint gone after the drop');
}

const SESSION: Dropped = { name: 'session.json', type: 'application/json', text: sessionFile(capture({ transport: 'websocket', requests: 2 })) };
const HAR: Dropped = { name: 'traffic.har', type: '', text: chromeHar(capture({ transport: 'socket.io', requests: 3 })) };
const eventsIn = (d: Dropped) => (JSON.parse(d.text) as { events: unknown[] }).events.length;

describe('dropping files on the panel', () => {
  before(async () => {
    browser = await launch({ viewport: { width: 1280, height: 800 } });
    const page = await browser.context.newPage();
    await page.goto('about:blank');
    panel = await openPanelPage(browser, await tabIdOf(browser, page));
    await panel.locator('.shell').waitFor();
  });
  after(async () => {
    await browser?.close();
  });

  test('a drag that leaves without dropping takes the hint away and opens nothing', async () => {
    const dataTransfer = await files([SESSION]);
    await panel.dispatchEvent('.main', 'dragenter', { dataTransfer });
    await until(() => hint().isVisible(), 'the hint shown');
    const box = (await panel.getByTestId('drop-hint').boundingBox())!;
    assert.deepEqual([box.x, box.y, box.width, box.height], [0, 0, 1280, 800], 'the drop target covers the whole panel');
    await panel.screenshot({ path: new URL('../../test-results/screenshots/drop-hint.png', import.meta.url).pathname });
    await panel.dispatchEvent('.main', 'dragleave', { dataTransfer });
    await until(async () => !(await hint().isVisible()), 'the hint gone');
    assert.equal(await notice().count(), 0);
  });

  test('a session file dropped on the panel is opened: its events are on the Timeline', async () => {
    await drop([SESSION]);
    await until(async () => (await notice().count()) > 0, 'the import notice');
    assert.match(await notice().innerText(), new RegExp(`Imported ${eventsIn(SESSION)} events of 1 client from session\\.json`));
    await until(async () => (await panel.locator('.vlist [role=row]').filter({ hasText: 'add_item' }).count()) > 0, 'a cart › add_item row');
    assert.ok(await panel.getByRole('button', { name: 'Back to live' }).isVisible());
  });

  test('a HAR dropped on the panel is opened as Chrome wrote it', async () => {
    await drop([HAR]);
    await until(async () => /from traffic\.har/.test(await notice().innerText()), 'the HAR import notice');
    const n = Number(/Imported (\d+) events/.exec(await notice().innerText())?.[1]);
    assert.ok(n >= 3 * 2, `${n} events`);
    await until(async () => (await panel.locator('.vlist [role=row]').filter({ hasText: 'add_item' }).count()) > 0, 'rows of the HAR');
  });

  test('a session file and a HAR dropped together are one session holding both', async () => {
    await drop([SESSION, HAR]);
    await until(async () => /from session\.json and traffic\.har/.test(await notice().innerText()), 'one notice for both files');
    const text = await notice().innerText();
    const n = Number(/Imported (\d+) events of (\d+) clients/.exec(text)?.[1]);
    assert.ok(n > eventsIn(SESSION), text);
  });

  test("the toolbar's Import takes what a drop takes: a HAR, and several files at once", async () => {
    const [chooser] = await Promise.all([panel.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Import', exact: true }).click()]);
    assert.ok(chooser.isMultiple(), 'several files can be picked');
    const accept = (await chooser.element().getAttribute('accept')) ?? '';
    assert.ok(accept.split(',').includes('.har') && accept.split(',').includes('.json'), `the picker offers HAR and session files: ${accept}`);
    await chooser.setFiles([
      { name: HAR.name, mimeType: 'application/octet-stream', buffer: Buffer.from(HAR.text) },
      { name: SESSION.name, mimeType: SESSION.type, buffer: Buffer.from(SESSION.text) },
    ]);
    await until(async () => /from traffic\.har and session\.json/.test(await notice().innerText()), 'one notice for the HAR and the session file');
    const n = Number(/Imported (\d+) events/.exec(await notice().innerText())?.[1]);
    assert.ok(n > eventsIn(SESSION), await notice().innerText());
    await until(async () => (await panel.locator('.vlist [role=row]').filter({ hasText: 'add_item' }).count()) > 0, 'rows of the files');
  });

  test('a file that is neither is refused in one line and the session on screen stays', async () => {
    await drop([{ name: 'notes.txt', type: 'text/plain', text: 'hello' }]);
    await until(async () => /Import of notes\.txt failed: not JSON/.test(await panel.getByRole('status').innerText()), 'the refusal');
    assert.match(await panel.getByRole('status').innerText(), /the current session is kept/);
    assert.ok((await panel.locator('.vlist [role=row]').count()) > 0);
  });
});
