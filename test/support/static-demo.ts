/**
 * The demo app's pages with no runtime behind them: its files are taken from
 * a demo server (test/demo/server.ts) started for a moment and closed again,
 * then served from memory by a plain HTTP server that has no Socket.IO and
 * no WebSocket endpoint. Every request is logged, so a test can show that
 * nothing of a served connection reached the network (`requests`), and
 * every upgrade is refused and counted (`upgrades`).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { startDemoServer } from '../demo/server.ts';

export interface StaticDemo {
  url: string;
  /** Paths (with query) of every HTTP request, in order. */
  requests: string[];
  /** Paths of every WebSocket upgrade asked for (all refused). */
  upgrades: string[];
  close(): Promise<void>;
}

const FILES = ['/app.js', '/frame.js', '/styles.css', '/favicon.svg', '/frame.html'];
const APP_ROUTES = new Set(['/', '/cart', '/checkout', '/orders']);

export async function startStaticDemo(): Promise<StaticDemo> {
  const demo = await startDemoServer();
  const files = new Map<string, { type: string; body: Buffer }>();
  try {
    for (const p of ['/', ...FILES]) {
      const res = await fetch(new URL(p, demo.url));
      if (!res.ok) throw new Error(`static demo: ${p} answered ${res.status}`);
      files.set(p, { type: res.headers.get('content-type') ?? 'application/octet-stream', body: Buffer.from(await res.arrayBuffer()) });
    }
  } finally {
    await demo.close();
  }
  const requests: string[] = [];
  const upgrades: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const raw = req.url ?? '/';
    requests.push(raw);
    const path = new URL(raw, 'http://x').pathname;
    if (path === '/blank') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>blank</title><p>blank');
      return;
    }
    const f = files.get(APP_ROUTES.has(path) ? '/' : path);
    if (!f) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': f.type, 'cache-control': 'no-store' }).end(f.body);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    upgrades.push(req.url ?? '/');
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    upgrades,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
