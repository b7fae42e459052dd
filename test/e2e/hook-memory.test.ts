/**
 * The hook's memory in fact, measured in real Chromium side by side with and
 * without the extension: the page's JS heap after a garbage collection, once
 * it has sent (a) 72 MB of frames each over the capture cap on an OUI
 * socket, and (b) 20,000 frames on a socket that never speaks OUI.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, type Browser } from '../support/browser.ts';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.ts';

const BIG_FRAMES = 24;
const BIG_SIZE = 3 * 1024 * 1024;
const CHATTY_FRAMES = 20_000;
const MB = 1024 * 1024;

/**
 * The app builds and sends the frames itself, so they are strings of the
 * page's own JS heap (what a WebSocket receives may live outside it, where
 * this measure would not see it).
 */
const page = (mode: 'big' | 'chatty') => `<!doctype html><title>memory</title><script>
const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
ws.onopen = () => {
  if (${JSON.stringify(mode)} === 'big') {
    ws.send('{"type":"surface:register","payload":{"surface":{"id":"s1","name":"S","description":"d","actions":[{"id":"go","description":"d","input":{"type":"object"}}]},"timestamp":1}}');
    for (let i = 0; i < ${BIG_FRAMES}; i++) ws.send('{"type":"observation:update","payload":{"v":"' + String(i).padEnd(${BIG_SIZE}, 'x') + '"}}');
  } else {
    for (let i = 0; i < ${CHATTY_FRAMES}; i++) ws.send(JSON.stringify({ tick: i, text: 'market data '.repeat(80) + i }));
  }
  ws.send('end');
};
ws.onmessage = () => { document.title = 'done'; };
</script>`;

async function heapAfter(b: Browser, url: string): Promise<number> {
  const app = await b.context.newPage();
  const cdp = await b.context.newCDPSession(app);
  await app.goto(url);
  await app.waitForFunction(() => document.title === 'done', undefined, { timeout: 180_000 }); // a wait, not a timing
  // The server answered the last frame, so every frame left the page: nothing is still buffered in the socket.
  await app.waitForFunction('ws.bufferedAmount === 0', undefined, { timeout: 60_000 });
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await app.close();
  return usedSize;
}

describe('the hook holds what it counts', () => {
  let server: FixtureServer;
  let withExt: Browser;
  let without: Browser;
  before(async () => {
    server = await startFixtureServer({ '/big': page('big'), '/chatty': page('chatty') });
    // Answers the app's last frame, so the page knows every frame left.
    server.onConnection((ws) => ws.on('message', (d) => String(d) === 'end' && ws.send('ok')));
    [withExt, without] = await Promise.all([launch({ rows: 'events' }), launch({ extension: false })]);
  });
  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    await server?.close();
  });

  test(`${BIG_FRAMES} frames of 3 MB over the cap leave no copy of themselves in the page`, async () => {
    const base = await heapAfter(without, `${server.url}/big`);
    const hooked = await heapAfter(withExt, `${server.url}/big`);
    const extra = (hooked - base) / MB;
    console.log(`big frames: page heap ${(base / MB).toFixed(1)} MB without, ${(hooked / MB).toFixed(1)} MB with the hook (+${extra.toFixed(1)} MB for ${(BIG_FRAMES * BIG_SIZE) / MB} MB sent)`);
    assert.ok(extra < 8, `the hook kept ${extra.toFixed(1)} MB of frames it counts as heads`);
  });

  test(`a socket that never speaks OUI keeps a small ring, not ${CHATTY_FRAMES} frames`, async () => {
    const base = await heapAfter(without, `${server.url}/chatty`);
    const hooked = await heapAfter(withExt, `${server.url}/chatty`);
    const extra = (hooked - base) / MB;
    console.log(`non-OUI socket: page heap ${(base / MB).toFixed(1)} MB without, ${(hooked / MB).toFixed(1)} MB with the hook (+${extra.toFixed(1)} MB for ${CHATTY_FRAMES} frames of ~1 KB)`);
    assert.ok(extra < 4, `the hook kept ${extra.toFixed(1)} MB for a socket with no OUI traffic`);
  });
});
