/**
 * `npm start`: builds the extension, starts the demo app and its agent
 * runtime on localhost, and opens Chromium with the extension loaded and
 * DevTools open on the OUI panel. Without a display it says so and prints how
 * to load the extension by hand.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDemoServer } from '../test/demo/server.ts';
import { DIST, launch } from '../test/support/browser.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const port = Number(process.env.PORT ?? 5173);
const demo = await startDemoServer({ port, autopilot: true });
console.log(`demo app and agent runtime: ${demo.url}`);

const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const howToLoad = `Load the extension by hand: open chrome://extensions, turn on Developer mode, "Load unpacked", choose\n  ${DIST}\nthen open ${demo.url} and DevTools (F12) → the "OUI" tab.`;

if (!hasDisplay) {
  console.log(`No display here (DISPLAY is not set), so no browser window can open.\n${howToLoad}\nPress Ctrl+C to stop the demo server.`);
} else {
  const browser = await launch({ headless: false, devtools: true, viewport: null });
  // With DevTools auto-opened, the first pages can be DevTools windows: use the tab.
  const page = browser.context.pages().find((p) => !p.url().startsWith('devtools://')) ?? (await browser.context.newPage());
  await page.goto(demo.url);
  console.log(`Chromium is open on ${demo.url} with DevTools on the OUI panel. Close the browser or press Ctrl+C to stop.`);
  browser.context.on('close', () => void demo.close().then(() => process.exit(0)));
}

process.on('SIGINT', () => void demo.close().then(() => process.exit(0)));
