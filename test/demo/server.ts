/**
 * The OUI demo server: serves the OUI Demo Shop and runs its agent runtimes.
 *
 *   node --import tsx test/demo/server.ts [--port 5173] [--autopilot] [--log]
 *
 * - GET `/`, `/cart`, `/checkout`, `/orders`: the app page (history API routing)
 * - GET `/frame.html`: the coupon widget (an iframe client over postMessage)
 * - GET `/app.js`, `/frame.js` (+ `.map`), `/styles.css`, `/favicon.svg`
 * - GET `/healthz`
 * - Socket.IO at `/socket.io/`, namespace `/oui`: the agent runtime (`runtime.ts`)
 * - WebSocket `/ws-json`: plain JSON frames `{type, payload}` (`ws-runtime.ts`)
 *
 * Page bundles are built with esbuild at start, in memory.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { build } from 'esbuild';
import { Server as IOServer } from 'socket.io';
import { WebSocketServer } from 'ws';
import { createDemoRuntime, type DemoRuntime } from './runtime.ts';
import { createWsJsonRuntime, type WsJsonRuntime } from './ws-runtime.ts';

export type { DemoRuntime } from './runtime.ts';
export type { WsJsonRuntime } from './ws-runtime.ts';

export interface DemoServer {
  url: string;
  port: number;
  /** The Socket.IO agent runtime (namespace `/oui`). */
  runtime: DemoRuntime;
  /** The runtime behind `/ws-json`. */
  wsRuntime: WsJsonRuntime;
  close(): Promise<void>;
}

export interface DemoServerOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Run the tour on each client every ~20 s (default false). */
  autopilot?: boolean;
  /** Log runtime activity to stdout. */
  log?: boolean;
}

const appDir = fileURLToPath(new URL('./app/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Asset {
  type: string;
  body: string | Buffer;
}

async function bundle(): Promise<Map<string, Asset>> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: { app: path.join(appDir, 'main.ts'), frame: path.join(appDir, 'frame.ts') },
    outdir: path.join(appDir, '.out'),
    bundle: true,
    write: false,
    format: 'iife',
    target: 'chrome111',
    platform: 'browser',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"development"' },
  });
  const assets = new Map<string, Asset>();
  for (const f of result.outputFiles) {
    const name = `/${path.basename(f.path)}`;
    assets.set(name, { type: name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8', body: Buffer.from(f.contents) });
  }
  const files: Array<[string, string, string]> = [
    ['/index.html', 'index.html', 'text/html; charset=utf-8'],
    ['/frame.html', 'frame.html', 'text/html; charset=utf-8'],
    ['/styles.css', 'styles.css', 'text/css; charset=utf-8'],
    ['/favicon.svg', 'favicon.svg', 'image/svg+xml'],
  ];
  for (const [route, file, type] of files) assets.set(route, { type, body: await readFile(path.join(appDir, file)) });
  return assets;
}

const APP_ROUTES = new Set(['/', '/cart', '/checkout', '/orders']);

export async function startDemoServer(opts: DemoServerOptions = {}): Promise<DemoServer> {
  const assets = await bundle();
  const host = opts.host ?? '127.0.0.1';

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(`http://localhost${(req.url ?? '/').startsWith('/') ? '' : '/'}${req.url ?? ''}`);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let p = url.pathname;
    if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (p === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
      return;
    }
    if (p === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const asset = APP_ROUTES.has(p) ? assets.get('/index.html') : assets.get(p);
    if (!asset || p === '/index.html') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: ${p}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(asset.body) });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  };

  const httpServer = createServer(handler);
  // Socket.IO takes /socket.io/ requests and upgrades; other upgrades are left to us
  const io = new IOServer(httpServer, { serveClient: false, destroyUpgrade: false, maxHttpBufferSize: 5e6 });
  const runtime = createDemoRuntime(io.of('/oui'), { log: opts.log ?? false });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 5 * 1024 * 1024 });
  const wsRuntime = createWsJsonRuntime(wss, { log: opts.log ?? false });
  httpServer.on('upgrade', (req, socket, head) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/ws-json') {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    } else if (!pathname.startsWith('/socket.io/')) {
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(opts.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;

  let wsTicker: ReturnType<typeof setInterval> | null = null;
  if (opts.autopilot) {
    runtime.startAutopilot(20_000);
    // the ws-json agent: now and then a new message, then a look at the unread ones
    let n = 0;
    wsTicker = setInterval(() => {
      for (const id of wsRuntime.clients()) {
        try {
          wsRuntime.send(id, 'x-notifications:push', { text: `Agent check-in #${++n}: your cart is being looked after.` });
          void wsRuntime.request(id, { surfaceId: 'notifications', actionId: 'list', params: { unreadOnly: true, limit: 5 } });
        } catch {
          /* client went away */
        }
      }
    }, 30_000);
  }

  let closed: Promise<void> | null = null;
  return {
    url,
    port,
    runtime,
    wsRuntime,
    close() {
      closed ??= (async () => {
        if (wsTicker) clearInterval(wsTicker);
        runtime.dispose();
        wsRuntime.dispose();
        for (const ws of wss.clients) ws.terminate();
        await new Promise<void>((r) => wss.close(() => r()));
        io.disconnectSockets(true);
        await new Promise<void>((r) => {
          io.close(() => r());
          httpServer.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

// ----------------------------------------------------------------------- CLI

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(path.resolve(entry)).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const args = process.argv.slice(2);
  const portArg = args.indexOf('--port');
  const port = portArg >= 0 ? Number(args[portArg + 1]) : 5173;
  const server = await startDemoServer({ port: Number.isFinite(port) ? port : 5173, autopilot: args.includes('--autopilot'), log: args.includes('--log') || args.includes('--autopilot') });
  console.log(`OUI Demo Shop: ${server.url}`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
