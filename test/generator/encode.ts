/**
 * The abstract session as the extension's page hooks capture it (see
 * content/taps/*.ts): WebSocket text frames, Engine.IO/Socket.IO packets over
 * WebSocket and long-polling (batched bodies, request URLs with the sid, the
 * upgrade), postMessage on both frames of a pairing, direct-hook method calls.
 */
import type { CapturedClient, CapturedItem, TransportKind } from '../../src/capture/captured-items.ts';
import { pairingKey } from '../../src/capture/captured-items.ts';
import { DIRECT_METHOD } from '../../src/capture/contract.ts';
import { PROTOCOL, type HookMessage } from '../../src/messages.ts';
import type { AbsClient, AbsSession, Ev } from './model.ts';

export interface FramedMessage {
  frameId: number;
  message: HookMessage;
}

class Hook {
  private nClients = 0;
  private seqs = new Map<string, number>();
  readonly clients = new Map<string, CapturedClient>();
  readonly items: CapturedItem[] = [];
  constructor(
    readonly name: string,
    readonly frameId: number,
    readonly path: string,
    readonly frameUrl: string,
  ) {}
  client(kind: TransportKind, url: string, key?: string): CapturedClient {
    const c: CapturedClient = { id: `c${++this.nClients}`, kind, url, origin: new URL(this.frameUrl).origin, frameUrl: this.frameUrl, ...(key ? { key } : {}) };
    this.clients.set(c.id, c);
    return c;
  }
  item(c: CapturedClient, t: number, kind: CapturedItem['kind'], fields: Partial<CapturedItem> = {}): CapturedItem {
    const seq = (this.seqs.get(c.id) ?? 0) + 1;
    this.seqs.set(c.id, seq);
    const it: CapturedItem = { ...fields, hook: this.name, client: c.id, seq, t, kind };
    this.items.push(it);
    return it;
  }
  text(c: CapturedClient, t: number, dir: 'in' | 'out', text: string, fields: Partial<CapturedItem> = {}): CapturedItem {
    return this.item(c, t, 'frame', { dir, payload: { text }, ...fields });
  }
}

const SIO_WS = 'wss://agent.test/socket.io/?EIO=4&transport=websocket';
const SIO_POLL = 'https://agent.test/socket.io/?EIO=4&transport=polling';
const RS = '\x1e';

function sid(seed: number, c: AbsClient, conn: number): string {
  return `S${seed.toString(36)}${c.name.replace(/\D/g, '')}x${conn}`;
}

/** Events of one client grouped by connection, in time order. */
function byConn(c: AbsClient): Map<number, Ev[]> {
  const m = new Map<number, Ev[]>();
  for (const e of [...c.events].sort((a, b) => a.t - b.t || a.id - b.id)) {
    let l = m.get(e.conn);
    if (!l) m.set(e.conn, (l = []));
    l.push(e);
  }
  return m;
}

/** Socket.IO packets for an event or an ack, with ack ids per direction. */
class SioCodec {
  private ids = new Map<number, number>();
  private next = { in: 0, out: 0 };
  constructor(readonly ns: string) {}
  private get prefix(): string {
    return this.ns === '/' ? '' : `${this.ns},`;
  }
  connectOut(): string {
    return `40${this.prefix}`;
  }
  connectIn(id: string): string {
    return `40${this.prefix}${JSON.stringify({ sid: id })}`;
  }
  packet(e: Ev): string | null {
    if (e.kind === 'event') {
      let ack = '';
      if (e.wantsAck) {
        const id = this.next[e.dir]++;
        this.ids.set(e.id, id);
        ack = String(id);
      }
      return `42${this.prefix}${ack}${JSON.stringify([e.type, e.payload])}`;
    }
    if (e.kind === 'ack') {
      const id = e.ackOf === undefined ? undefined : this.ids.get(e.ackOf);
      if (id === undefined) return null;
      return `43${this.prefix}${id}${JSON.stringify([e.payload])}`;
    }
    return null;
  }
}

export function encodeSession(s: AbsSession): FramedMessage[] {
  const hooks = new Map<number, Hook>();
  const hookAt = (frameId: number, path: string): Hook => {
    let h = hooks.get(frameId);
    if (!h) hooks.set(frameId, (h = new Hook(`h${frameId}-${s.seed}`, frameId, path, frameId === 0 ? 'https://app.test/' : `https://widget${frameId}.test/frame`)));
    return h;
  };
  for (const c of s.clients) encodeClient(s, c, hookAt);
  // Each hook's items in capture order; messages interleaved by time, as hooks flush.
  const all: Array<{ h: Hook; it: CapturedItem }> = [];
  for (const h of hooks.values()) for (const it of h.items) all.push({ h, it });
  all.sort((a, b) => a.it.t - b.it.t);
  const out: FramedMessage[] = [];
  for (const h of hooks.values()) out.push({ frameId: h.frameId, message: { type: 'state', hook: h.name, drops: {}, clients: [], path: h.path, v: PROTOCOL } });
  const announced = new Set<string>();
  let cur: { h: Hook; items: CapturedItem[] } | undefined;
  const flush = () => {
    if (!cur) return;
    const ids = new Set(cur.items.map((i) => i.client));
    const clients = [...ids].filter((id) => !announced.has(`${cur!.h.name}/${id}`)).map((id) => cur!.h.clients.get(id)!);
    for (const c of clients) announced.add(`${cur.h.name}/${c.id}`);
    out.push({ frameId: cur.h.frameId, message: { type: 'items', hook: cur.h.name, items: cur.items, clients } });
    cur = undefined;
  };
  for (const { h, it } of all) {
    if (!cur || cur.h !== h || cur.items.length >= 40) {
      flush();
      cur = { h, items: [] };
    }
    cur.items.push(it);
  }
  flush();
  return out;
}

function encodeClient(s: AbsSession, c: AbsClient, hookAt: (frameId: number, path: string) => Hook): void {
  const h = hookAt(c.frameId, c.framePath);
  const conns = byConn(c);
  switch (c.transport) {
    case 'ws-json': {
      for (const [, evs] of conns) {
        const cl = h.client('websocket', `wss://agent.test/oui?client=${c.name}`);
        for (const e of evs) {
          if (e.kind === 'open') h.item(cl, e.t, 'open');
          else if (e.kind === 'close') h.item(cl, e.t, 'close', { note: e.note ?? '1006' });
          else if (e.kind === 'event') h.text(cl, e.t, e.dir, JSON.stringify({ type: e.type, payload: e.payload }));
          // plain WebSocket has no acknowledgments
        }
      }
      return;
    }
    case 'sio-ws':
    case 'sio-polling':
    case 'sio-upgrade': {
      let polling: CapturedClient | undefined;
      let first = true;
      for (const [conn, evs] of conns) {
        const id = sid(s.seed, c, conn);
        const codec = new SioCodec(c.namespace);
        const started = evs[0]?.kind === 'open';
        const late = first && c.lateStart && !started;
        first = false;
        let i = 0;
        let ws: CapturedClient | undefined;
        const t0 = evs[0]?.t ?? s.t0;
        const pollUrl = (withSid: boolean) => `${SIO_POLL}&t=${Math.round(t0).toString(36)}${withSid ? `&sid=${id}` : ''}`;
        const hs = `0${JSON.stringify({ sid: id, upgrades: c.transport === 'sio-polling' ? [] : ['websocket'], pingInterval: 25000, pingTimeout: 20000, maxPayload: 1000000 })}`;
        const nsConnId = `n${id}`;
        // How many events go over long-polling before the upgrade.
        let pollCount = c.transport === 'sio-polling' ? Infinity : c.transport === 'sio-upgrade' && !late ? 1 + Math.min(3, evs.length) : 0;
        if (c.transport !== 'sio-ws' && !polling) polling = h.client('polling', 'https://agent.test/socket.io/');
        if (c.transport === 'sio-ws') {
          ws = h.client('websocket', late ? `${SIO_WS}&sid=${id}` : SIO_WS);
          if (started) {
            const t = evs[0]!.t;
            h.item(ws, t, 'open');
            h.text(ws, t + 0.1, 'in', hs);
            h.text(ws, t + 0.2, 'out', codec.connectOut());
            h.text(ws, t + 0.3, 'in', codec.connectIn(nsConnId));
            i = 1;
          }
        } else if (started) {
          const t = evs[0]!.t;
          h.text(polling!, t, 'in', hs, { url: pollUrl(false) });
          h.text(polling!, t + 0.1, 'out', codec.connectOut(), { url: pollUrl(true) });
          h.text(polling!, t + 0.15, 'in', 'ok', { url: pollUrl(true) });
          h.text(polling!, t + 0.2, 'in', codec.connectIn(nsConnId), { url: pollUrl(true) });
          i = 1;
        }
        if (c.transport === 'sio-upgrade' && late) ws = h.client('websocket', `${SIO_WS}&sid=${id}`);
        let lastPing = t0;
        while (i < evs.length) {
          const e = evs[i]!;
          if (e.kind === 'close') {
            const target = ws ?? polling!;
            if (ws) h.item(ws, e.t, 'close', { note: e.note ?? '1006' });
            else h.text(target, e.t, 'in', '1', { url: pollUrl(true) });
            i++;
            continue;
          }
          if (e.kind === 'open') {
            i++;
            continue;
          }
          if (pollCount > 0 && !ws) {
            // A run of same-direction packets close in time: one polling body, one capture time.
            const run: Ev[] = [e];
            let j = i + 1;
            while (j < evs.length && run.length < 6 && evs[j]!.dir === e.dir && (evs[j]!.kind === 'event' || evs[j]!.kind === 'ack') && evs[j]!.t - run[run.length - 1]!.t < 40) run.push(evs[j++]!);
            const packets = run.map((x) => codec.packet(x)).filter((p): p is string => p !== null);
            const t = run[run.length - 1]!.t;
            if (packets.length) {
              h.text(polling!, t, e.dir, packets.join(RS), { url: pollUrl(true) });
              if (e.dir === 'out') h.text(polling!, t + 0.05, 'in', 'ok', { url: pollUrl(true) });
            }
            pollCount -= run.length;
            i = j;
            if (pollCount <= 0 && c.transport === 'sio-upgrade') {
              // The upgrade: probe, answer, upgrade packet; from then on the WebSocket carries the session.
              const tu = t + 0.3;
              ws = h.client('websocket', `${SIO_WS}&sid=${id}`);
              h.item(ws, tu, 'open');
              h.text(ws, tu + 0.05, 'out', '2probe');
              h.text(ws, tu + 0.1, 'in', '3probe');
              h.text(ws, tu + 0.15, 'out', '5');
            }
            continue;
          }
          const p = codec.packet(e);
          if (ws && e.t - lastPing > 25_000) {
            h.text(ws, e.t - 0.2, 'in', '2');
            h.text(ws, e.t - 0.1, 'out', '3');
            lastPing = e.t;
          }
          if (p !== null) h.text(ws!, e.t, e.dir, p);
          i++;
        }
      }
      return;
    }
    case 'postmessage': {
      const peer = hookAt(c.peerFrameId, c.peerPath);
      const key = pairingKey(c.framePath, c.peerPath);
      const atClient = h.client('postmessage', 'https://app.test', key);
      const atPeer = peer.client('postmessage', h.frameUrl.replace(/\/frame$/, ''), key);
      for (const e of [...c.events].sort((a, b) => a.t - b.t || a.id - b.id)) {
        if (e.kind !== 'event') continue;
        const text = JSON.stringify({ type: e.type, payload: e.payload });
        // Each hook records what its own window receives.
        if (e.dir === 'in') h.text(atClient, e.t, 'in', text, { from: c.peerPath, to: c.framePath });
        else peer.text(atPeer, e.t, 'in', text, { from: c.framePath, to: c.peerPath });
      }
      return;
    }
    case 'direct': {
      const cl = h.client('direct', `in-page runtime (${c.name})`);
      const seqOf = new Map<number, number>();
      for (const e of [...c.events].sort((a, b) => a.t - b.t || a.id - b.id)) {
        if (e.kind === 'open') {
          h.item(cl, e.t, 'open');
          continue;
        }
        if (e.kind === 'close') {
          h.item(cl, e.t, 'close', { note: 'detached' });
          continue;
        }
        const text = JSON.stringify(e.payload);
        if (e.kind === 'ack') {
          const re = e.ackOf === undefined ? undefined : seqOf.get(e.ackOf);
          const it = h.text(cl, e.t, e.dir, text, { method: e.dir === 'out' ? DIRECT_METHOD.receipt : DIRECT_METHOD.resultAck, ...(re !== undefined ? { re } : {}) });
          seqOf.set(e.id, it.seq);
          continue;
        }
        const method =
          e.type === 'action:request' ? DIRECT_METHOD.request : e.type === 'action:result' ? DIRECT_METHOD.result : e.type === 'surface:register' ? 'registerSurface' : e.type === 'surface:deregister' ? 'deregisterSurface' : e.type === 'observation:update' ? 'sendObservation' : e.type ?? 'call';
        const it = h.text(cl, e.t, e.dir, text, { method });
        seqOf.set(e.id, it.seq);
      }
      return;
    }
  }
}
