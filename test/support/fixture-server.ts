/**
 * A small real server for end-to-end tests that need exact control of the
 * traffic: pages given as HTML strings, and a plain-JSON WebSocket endpoint
 * (`/ws`) whose behaviour each test scripts.
 */
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FixtureServer {
  url: string;
  /** Sockets connected to /ws, in connection order. */
  sockets: WebSocket[];
  /** Every frame each side sent, in order, as text. */
  frames: Array<{ dir: 'to-server' | 'to-page'; data: string }>;
  /** Runs `fn` for every new connection until the returned function is called. */
  onConnection(fn: (ws: WebSocket) => void): () => void;
  close(): Promise<void>;
}

/** `host`: the loopback address to listen on (127.0.0.2 is loopback too, and another origin). */
export async function startFixtureServer(pages: Record<string, string>, host = '127.0.0.1'): Promise<FixtureServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const body = pages[path];
    if (body === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  const sockets: WebSocket[] = [];
  const frames: FixtureServer['frames'] = [];
  const handlers: Array<(ws: WebSocket) => void> = [];
  wss.on('connection', (ws) => {
    sockets.push(ws);
    const send = ws.send.bind(ws);
    ws.send = ((data: unknown, ...rest: unknown[]) => {
      frames.push({ dir: 'to-page', data: String(data) });
      return (send as (...a: unknown[]) => void)(data, ...rest);
    }) as typeof ws.send;
    ws.on('message', (data) => frames.push({ dir: 'to-server', data: String(data) }));
    for (const h of handlers) h(ws);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    sockets,
    frames,
    onConnection: (fn) => {
      handlers.push(fn);
      return () => handlers.splice(handlers.indexOf(fn), 1);
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
