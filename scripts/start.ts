/**
 * `npm start`: builds the extension, starts the demo app and its agent
 * runtime on localhost, and opens Chromium with the extension loaded and
 * DevTools open on the OUI panel. `npm start -- --browser firefox` opens
 * Firefox instead (through web-ext run, with dist/firefox installed
 * temporarily and DevTools open). Without a display it says so and prints
 * how to load the extension by hand.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoServer } from '../test/demo/server.ts';
import { DIST } from '../test/support/browser.ts';
import { openChromiumOnPanel } from './devtools-panel.ts';
import { BrowserNotFoundError, findBrowser } from './browsers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const browserArg = argv.find((a) => a.startsWith('--browser='))?.slice('--browser='.length) ?? (argv.includes('--browser') ? argv[argv.indexOf('--browser') + 1] : 'chromium');
const browserName = browserArg === 'chrome' ? 'chromium' : browserArg;
if (browserName !== 'chromium' && browserName !== 'firefox') {
  console.error(`--browser ${browserArg}: use chromium or firefox.`);
  process.exit(2);
}
const FIREFOX_DIST = join(root, 'dist/firefox');

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const port = Number(process.env.PORT ?? 5173);
const demo = await startDemoServer({ port, autopilot: true });
console.log(`demo app and agent runtime: ${demo.url}`);

const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const howToLoad =
  browserName === 'firefox'
    ? `Load the extension by hand: open about:debugging#/runtime/this-firefox, "Load Temporary Add-on…", choose\n  ${FIREFOX_DIST}/manifest.json\nthen open ${demo.url} and DevTools (F12) → the "OUI" tab.`
    : `Load the extension by hand: open chrome://extensions, turn on Developer mode, "Load unpacked", choose\n  ${DIST}\nthen open ${demo.url} and DevTools (F12) → the "OUI" tab.`;
const stop = () => void demo.close().then(() => process.exit(0));

if (!hasDisplay) {
  console.log(`No display here (DISPLAY is not set), so no browser window can open.\n${howToLoad}\nPress Ctrl+C to stop the demo server.`);
} else if (browserName === 'firefox') {
  let firefox: string;
  try {
    firefox = findBrowser('firefox');
  } catch (e) {
    if (!(e instanceof BrowserNotFoundError)) throw e;
    console.error(`${e.message}\n${howToLoad}\nPress Ctrl+C to stop the demo server.`);
    firefox = '';
  }
  if (firefox) {
    const webExt = join(dirname(createRequire(import.meta.url).resolve('web-ext')), 'bin/web-ext.js');
    // A fresh temporary profile; web-ext reloads the add-on when dist/firefox is rebuilt. --devtools is Firefox's own switch.
    const child = spawn(process.execPath, [webExt, 'run', '--source-dir', FIREFOX_DIST, '--firefox', firefox, '--start-url', demo.url, '--arg=--devtools', '--no-input'], {
      cwd: root,
      stdio: 'inherit',
    });
    console.log(`Firefox is opening ${demo.url} with the extension installed temporarily and DevTools open: pick the "OUI" tab. Close Firefox or press Ctrl+C to stop.`);
    child.on('exit', stop);
  }
} else {
  const { browser, shown } = await openChromiumOnPanel(demo.url);
  const where = shown instanceof Error ? `with DevTools open (${shown.message}: pick its "OUI" tab)` : 'with DevTools on the OUI panel';
  console.log(`Chromium is open on ${demo.url} ${where}. Close the browser or press Ctrl+C to stop.`);
  browser.context.on('close', stop);
}

process.on('SIGINT', stop);
