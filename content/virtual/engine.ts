/**
 * The virtual server's Engine.IO v4 / Socket.IO v5 side: enough of both to
 * keep a real socket.io-client connected with no server at all, so that the
 * other end (the panel, the Playwright fixture) only deals in OUI events.
 *
 * - Engine.IO: the handshake (`0{"sid","upgrades","pingInterval",
 *   "pingTimeout","maxPayload"}`), long-polling (a GET is answered with the
 *   packets waiting, joined by the record separator, or held until there are
 *   some; a POST's packets are read and answered `ok`), the upgrade
 *   (`2probe` → `3probe`, the held GET released with a noop `6`, then `5`),
 *   the server's pings (`2`, every `pingInterval`; the client answers `3`),
 *   close (`1`).
 * - Socket.IO: a namespace connect (`40/ns,` → `40/ns,{"sid":…}`), a
 *   disconnect (`41/ns,`), and the default answer to an event that asks for
 *   an acknowledgment: `43/ns,<id>[{"ok":true}]`, as the demo runtime
 *   acknowledges registrations and results. Everything else (requests,
 *   observation pulls, refusals) is the other end's to send as injected frames.
 *
 * Pure: timers and random ids come from the caller (the hook passes its
 * natives), the transports are callbacks, and only the hook's own copies of
 * the string built-ins are used (the page's code has run by the time a
 * packet arrives). Texts: the Engine.IO and Socket.IO protocol documents that
 * src/protocol/engineio.ts and socketio.ts decode.
 */
import { SafeMap, exec, indexOf, slice } from '../primordials.ts';

export const PING_INTERVAL = 25_000;
export const PING_TIMEOUT = 20_000;
export const MAX_PAYLOAD = 1_000_000;
/** Engine.IO's long-polling payload separator. */
export const SEPARATOR = '\x1e';
/** Sessions one document keeps at once; a client past it gets the handshake refused, as a full server would. */
export const MAX_SESSIONS = 64;

export interface EngineEnv {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  randomId(): string;
}

/** A WebSocket of a session, as the server sees it. */
export interface WsLink {
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface PollAnswer {
  status: number;
  body: string;
}

/** Socket.IO: type, binary attachment count, namespace with its comma, ack id. */
const SOCKET_IO_HEAD = /^([0-6])(?:\d+-)?(\/[^,]*,)?(\d*)/;
const SID_IN_QUERY = /[?&]sid=([^&#]*)/;

/** The open packet's JSON, built as text: nothing of the page's JSON is called. */
export function openPacket(sid: string, upgrades: boolean): string {
  return `0{"sid":"${sid}","upgrades":[${upgrades ? '"websocket"' : ''}],"pingInterval":${PING_INTERVAL},"pingTimeout":${PING_TIMEOUT},"maxPayload":${MAX_PAYLOAD}}`;
}

/**
 * What the server says to one Socket.IO packet (the text after Engine.IO's
 * `4`), as Socket.IO packets (the session sends each as an Engine.IO message,
 * `4…`). `namespaces` is the session's set of connected namespaces, kept up
 * to date here.
 */
export function answerSocketIo(packet: string, namespaces: Map<string, string>, env: Pick<EngineEnv, 'randomId'>, autoAck: boolean): string[] {
  const m = exec(SOCKET_IO_HEAD, packet);
  if (!m) return [];
  const type = m[1]!;
  const nsp = m[2] ?? '';
  const ackId = m[3] ?? '';
  switch (type) {
    case '0': {
      const sid = namespaces.get(nsp) ?? env.randomId();
      namespaces.set(nsp, sid);
      return [`0${nsp}{"sid":"${sid}"}`];
    }
    case '1':
      namespaces.delete(nsp);
      return [];
    case '2':
    case '5':
      // An event, or a binary event (its attachments follow as frames of their own): the id is the ack asked for.
      return autoAck && ackId !== '' && namespaces.has(nsp) ? [`3${nsp}${ackId}[{"ok":true}]`] : [];
    default:
      // An ack of the other end's event (a receipt), or an error: nothing to say.
      return [];
  }
}

export function sidOf(url: string): string | undefined {
  const m = exec(SID_IN_QUERY, url);
  return m ? m[1] : undefined;
}

export class EngineSession {
  readonly sid: string;
  /** Socket.IO namespaces connected, with the sid each was given. */
  readonly namespaces: Map<string, string> = new SafeMap();
  /** Packets for the client while it polls. */
  private queue: string[] = [];
  private poll: ((a: PollAnswer) => void) | null = null;
  private ws: WsLink | null = null;
  private probe: WsLink | null = null;
  /** The probe was answered: the client is about to pause polling, and waits for its GET to come back. */
  private upgrading = false;
  private timer: unknown;
  closed = false;

  constructor(
    private readonly env: EngineEnv,
    private readonly opts: { autoAck: () => boolean; ended: (s: EngineSession) => void },
    ws?: WsLink,
  ) {
    this.sid = env.randomId() + env.randomId();
    if (ws) {
      this.ws = ws;
      ws.send(openPacket(this.sid, false));
    }
    this.schedulePing();
  }

  get upgraded(): boolean {
    return this.ws !== null;
  }

  /** The handshake body of a polling session. */
  handshake(): string {
    return openPacket(this.sid, true);
  }

  /** One Engine.IO packet to the client, on whichever transport it is on now. */
  write(packet: string): void {
    if (this.closed) return;
    if (this.ws) {
      this.ws.send(packet);
      return;
    }
    this.queue[this.queue.length] = packet;
    this.flushPoll();
  }

  /** A long-polling GET: answered now with what waits, or when something does. */
  get(answer: (a: PollAnswer) => void): void {
    if (this.closed || this.ws) {
      answer({ status: 200, body: this.closed ? '1' : '6' });
      return;
    }
    // A second GET while one is held: the first is released (a real server would refuse the second).
    this.releasePoll('6');
    this.poll = answer;
    this.flushPoll();
    // While it upgrades, a GET is never held: the client pauses polling only once its GET is back (a real server sends noops then).
    if (this.upgrading) this.releasePoll('6');
  }

  /** A long-polling POST's body: its packets, read in order. */
  post(body: string): PollAnswer {
    if (this.closed) return { status: 400, body: '{"code":1,"message":"Session ID unknown"}' };
    let from = 0;
    for (;;) {
      const at = indexOf(body, SEPARATOR, from);
      this.read(at === -1 ? slice(body, from) : slice(body, from, at), null);
      if (at === -1) break;
      from = at + 1;
    }
    return { status: 200, body: 'ok' };
  }

  /** A WebSocket with this session's sid opened: the upgrade probe. */
  attach(ws: WsLink): void {
    this.probe = ws;
  }

  /** A WebSocket message of this session (the probe's, or the upgraded socket's). */
  wsMessage(ws: WsLink, text: string): void {
    this.read(text, ws);
  }

  /** A WebSocket of this session closed. */
  wsClosed(ws: WsLink): void {
    if (ws === this.probe) {
      this.probe = null;
      this.upgrading = false;
    }
    if (ws === this.ws) this.end();
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.env.clearTimeout(this.timer);
    this.releasePoll('1');
    this.opts.ended(this);
  }

  private read(packet: string, ws: WsLink | null): void {
    if (packet === '') return;
    const type = packet[0];
    if (type === '2') {
      if (packet === '2probe') {
        if (ws && ws === this.probe) {
          ws.send('3probe');
          // The client pauses polling before it upgrades: the held GET must come back.
          this.upgrading = true;
          this.releasePoll('6');
        }
      } else if (ws) ws.send('3');
      else this.write('3');
    } else if (type === '5') {
      if (ws && ws === this.probe) {
        this.ws = ws;
        this.probe = null;
        this.upgrading = false;
        const waiting = this.queue;
        this.queue = [];
        this.releasePoll('6');
        for (let i = 0; i < waiting.length; i++) ws.send(waiting[i]!);
      }
    } else if (type === '4') {
      const out = answerSocketIo(slice(packet, 1), this.namespaces, this.env, this.opts.autoAck());
      for (let i = 0; i < out.length; i++) this.write(`4${out[i]!}`);
    } else if (type === '1') {
      this.end();
    }
    // 3 (pong), 6 (noop): nothing to answer.
  }

  private flushPoll(): void {
    if (!this.poll || this.queue.length === 0) return;
    const packets = this.queue;
    this.queue = [];
    let body = packets[0]!;
    for (let i = 1; i < packets.length; i++) body += SEPARATOR + packets[i]!;
    const answer = this.poll;
    this.poll = null;
    answer({ status: 200, body });
  }

  private releasePoll(packet: string): void {
    const answer = this.poll;
    if (!answer) return;
    this.poll = null;
    answer({ status: 200, body: packet });
  }

  private schedulePing(): void {
    this.timer = this.env.setTimeout(() => {
      if (this.closed) return;
      this.write('2');
      this.schedulePing();
    }, PING_INTERVAL);
  }
}
