/**
 * Records real Socket.IO traffic the way the page hook sees it.
 *
 * Starts a real socket.io 4 server on an ephemeral port and a recording
 * proxy in front of it (another ephemeral port). Clients connect to the
 * proxy. The proxy records:
 *  - long-polling: POST request bodies (`out`) and GET response bodies
 *    (`in`), as text, which is what XHR/fetch hooks capture. The POST
 *    response (`ok`) is not recorded. `Accept-Encoding` is stripped so
 *    bodies are never compressed (a page sees decoded text anyway).
 *  - WebSocket: every message in both directions, text as is, binary as
 *    base64 of its bytes.
 * Recording happens before forwarding, so per direction the order of
 * `frames` is the order on the wire.
 */
import http from 'node:http';
import type { AddressInfo, Socket as NetSocket } from 'node:net';
import { Server, type ServerOptions } from 'socket.io';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export interface RecordedFrame {
  /** Order of recording, from 1, across both directions. */
  seq: number;
  transport: 'polling' | 'websocket';
  /** `out`: client to server; `in`: server to client (same convention as CapturedItem.dir). */
  dir: 'out' | 'in';
  /** Request path and query, e.g. `/socket.io/?EIO=4&transport=polling&t=...&sid=...`. */
  url: string;
  /** HTTP method of a polling exchange. */
  method?: string;
  /** HTTP status of a polling GET response. */
  status?: number;
  /** Id of the underlying WebSocket connection or HTTP exchange, per capture. */
  conn: number;
  /** Engine.IO session id (from the URL or the open packet); filled in once known. */
  sid?: string;
  payload: { text: string } | { base64: string };
}

export interface SocketIOCapture {
  /** The real socket.io server (attach namespaces and handlers to it). */
  io: Server;
  /** Base URL of the recording proxy: connect clients here. */
  url: string;
  /** Base URL of the server itself (unrecorded). */
  upstreamUrl: string;
  frames: RecordedFrame[];
  /**
   * When each proxied WebSocket closed on the client's side (the page's
   * `close` event), numbered in the same sequence as `frames`.
   */
  wsClosed: Array<{ seq: number; conn: number }>;
  /** Frames of one direction (optionally one sid), in wire order. */
  framesFor(dir: 'out' | 'in', sid?: string): RecordedFrame[];
  /** Closes the proxy, every proxied connection and the socket.io server. */
  close(): Promise<void>;
}

export interface SocketIOCaptureOptions {
  /** Options for the socket.io Server. */
  server?: Partial<ServerOptions>;
}

function sidOf(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('sid') ?? undefined;
}

function sidFromOpenPacket(text: string): string | undefined {
  // The open packet is the first packet of a handshake body / first WebSocket frame.
  if (!text.startsWith('0{')) return undefined;
  const end = text.indexOf('\x1e');
  try {
    const v = JSON.parse(text.slice(1, end < 0 ? undefined : end)) as { sid?: unknown };
    return typeof v.sid === 'string' ? v.sid : undefined;
  } catch {
    return undefined;
  }
}

function rawToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startSocketIOCapture(opts: SocketIOCaptureOptions = {}): Promise<SocketIOCapture> {
  const upstream = http.createServer();
  const io = new Server(upstream, { serveClient: false, ...opts.server });
  const upstreamPort = await listen(upstream);

  const frames: RecordedFrame[] = [];
  const wsClosed: Array<{ seq: number; conn: number }> = [];
  let seq = 0;
  let connCount = 0;
  const record = (f: Omit<RecordedFrame, 'seq'>): RecordedFrame => {
    const r = { seq: ++seq, ...f } as RecordedFrame;
    if (r.sid === undefined) delete r.sid;
    frames.push(r);
    return r;
  };

  const sockets = new Set<NetSocket>();
  const wsPeers = new Set<WebSocket>();
  const agent = new http.Agent({ keepAlive: false });

  const proxy = http.createServer((req, res) => {
    const conn = ++connCount;
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sid = sidOf(url);
      if (method === 'POST') {
        record({ transport: 'polling', dir: 'out', url, method, conn, sid, payload: { text: body.toString('utf8') } });
      }
      const headers = { ...req.headers };
      delete headers['accept-encoding'];
      headers.host = `127.0.0.1:${upstreamPort}`;
      const up = http.request(
        { host: '127.0.0.1', port: upstreamPort, method, path: url, headers, agent },
        (upRes) => {
          const rc: Buffer[] = [];
          upRes.on('data', (c: Buffer) => rc.push(c));
          upRes.on('error', () => res.destroy());
          upRes.on('end', () => {
            const rb = Buffer.concat(rc);
            if (method === 'GET') {
              const text = rb.toString('utf8');
              record({
                transport: 'polling',
                dir: 'in',
                url,
                method,
                status: upRes.statusCode ?? 0,
                conn,
                sid: sid ?? sidFromOpenPacket(text),
                payload: { text },
              });
            }
            const outHeaders = { ...upRes.headers };
            delete outHeaders['transfer-encoding'];
            delete outHeaders['connection'];
            delete outHeaders['keep-alive'];
            outHeaders['content-length'] = String(rb.length);
            res.writeHead(upRes.statusCode ?? 502, outHeaders);
            res.end(rb);
          });
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  proxy.on('connection', (s: NetSocket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  proxy.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      const conn = ++connCount;
      const url = req.url ?? '/';
      const mine: RecordedFrame[] = [];
      let sid = sidOf(url);
      const upstreamWs = new WebSocket(`ws://127.0.0.1:${upstreamPort}${url}`, { perMessageDeflate: false });
      wsPeers.add(client);
      wsPeers.add(upstreamWs);
      const queue: Array<{ data: Buffer; binary: boolean }> = [];
      const rec = (dir: 'out' | 'in', data: Buffer, binary: boolean): void => {
        const payload: RecordedFrame['payload'] = binary ? { base64: data.toString('base64') } : { text: data.toString('utf8') };
        if (!sid && dir === 'in' && 'text' in payload) {
          sid = sidFromOpenPacket(payload.text);
          if (sid) for (const f of mine) f.sid = sid;
        }
        mine.push(record({ transport: 'websocket', dir, url, conn, sid, payload }));
      };
      client.on('message', (raw, isBinary) => {
        const data = rawToBuffer(raw);
        rec('out', data, isBinary);
        if (upstreamWs.readyState === WebSocket.OPEN) upstreamWs.send(data, { binary: isBinary });
        else queue.push({ data, binary: isBinary });
      });
      upstreamWs.on('open', () => {
        for (const m of queue.splice(0)) upstreamWs.send(m.data, { binary: m.binary });
      });
      upstreamWs.on('message', (raw, isBinary) => {
        const data = rawToBuffer(raw);
        rec('in', data, isBinary);
        if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
      });
      const closeBoth = (): void => {
        for (const w of [client, upstreamWs]) {
          if (w.readyState === WebSocket.OPEN) w.close();
          else if (w.readyState === WebSocket.CONNECTING) w.terminate();
        }
      };
      client.on('close', closeBoth);
      upstreamWs.on('close', closeBoth);
      client.on('error', () => client.terminate());
      upstreamWs.on('error', () => upstreamWs.terminate());
      client.on('close', () => {
        wsPeers.delete(client);
        wsClosed.push({ seq: ++seq, conn });
      });
      upstreamWs.on('close', () => wsPeers.delete(upstreamWs));
    });
  });
  const proxyPort = await listen(proxy);

  let closed = false;
  return {
    io,
    url: `http://127.0.0.1:${proxyPort}`,
    upstreamUrl: `http://127.0.0.1:${upstreamPort}`,
    frames,
    wsClosed,
    framesFor(dir, sid) {
      return frames.filter((f) => f.dir === dir && (sid === undefined || f.sid === sid));
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const w of wsPeers) w.terminate();
      wsPeers.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      agent.destroy();
      await new Promise<void>((resolve) => {
        io.close(() => resolve());
        upstream.closeAllConnections();
      });
    },
  };
}
