/**
 * Fault rules in Socket.IO's long-polling phase (docs/faults.md): the
 * Engine.IO packets of a poll response (GET) or of a POST body, separated by
 * \x1e, are handed one by one to the hook's rules (content/faults.ts) as the
 * WebSocket tap hands its frames, and the body the app reads (or the server
 * gets) is rewritten from what the rules let through.
 *
 * Three things a socket has and a poll has not, and how they are made:
 * - Delivering later. A delay of up to HOLD_MAX_MS holds the whole response
 *   (or POST) that carried the event, as a slow link would; a longer one
 *   (an approval delivered past its grant) lets the rest go on and owes the
 *   event to the session.
 * - Delivering at any time. What is owed to the app (a late event, the
 *   refusal of a result) answers the app's poll in flight at once, as the
 *   server would; that poll's own request stays open to the server and its
 *   response answers the app's next poll (which never leaves the page). What
 *   is owed to the server rides the app's next POST (a pong at the latest).
 * - Closing. `disconnect` fails the poll or POST as a network error does
 *   (status 0): engine.io-client drops the session and Socket.IO reconnects.
 *
 * Only while a rule is on, or something is still owed: otherwise the taps
 * check `faultsOn` and `pollingBusy()` and go their usual way.
 */
import type { CaptureBuffer } from '../capture-buffer.ts';
import { textPayload } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/captured-items.ts';
import { ackFrame, decodeFrame, encodeFrame, faultsOn, hookFaults, type Carrier, type Mark } from '../faults.ts';
import { BoundedMap } from '../bounded-map.ts';
import { SafeSet, SafeWeakMap, SafeWeakSet, exec, indexOf, slice } from '../primordials.ts';
import { getter, uncurry } from '../scope-natives.ts';

const SEP = '\u001e';
/** Engine.IO's close packet: the session ends. */
const CLOSE = '1';
/** Engine.IO's noop: what a body carries when a rule took every packet of it (both ends ignore it). */
const NOOP = '6';
/**
 * Delays up to this hold the whole response or POST; a longer hold would
 * starve Engine.IO's heartbeat (the server's pingTimeout is 20 s by default).
 */
export const HOLD_MAX_MS = 10_000;
/** Packets owed to one side of one session at most; beyond, the oldest goes (recorded as dropped, counted in `lost`). */
const MAX_OWED = 1000;
const MAX_SESSIONS = 64;
const SID = /[?&]sid=([^&#]*)/;

const { apply, defineProperty } = Reflect;
const NativeEvent = Event;
const NativeProgressEvent = typeof ProgressEvent === 'function' ? ProgressEvent : undefined;
const NativeResponse = typeof Response === 'function' ? Response : undefined;
const NativePromise = Promise;
const NativeTypeError = TypeError;
const dispatch = EventTarget.prototype.dispatchEvent;
const stopImmediate = Event.prototype.stopImmediatePropagation;
const xhrProto = typeof XMLHttpRequest === 'function' ? XMLHttpRequest.prototype : undefined;
const readyStateOf = uncurry(getter(xhrProto, 'readyState') as (this: never) => number);
const statusOf = uncurry(getter(xhrProto, 'status') as (this: never) => number);
const responseTextOf = uncurry(getter(xhrProto, 'responseText') as (this: never) => string);
const responseTypeOf = uncurry(getter(xhrProto, 'responseType') as (this: never) => string);
const isTrustedOf = uncurry(getter(Event.prototype, 'isTrusted') as (this: never) => boolean);
const responseTextFn = typeof Response === 'function' ? Response.prototype.text : undefined;
const responseCloneFn = typeof Response === 'function' ? Response.prototype.clone : undefined;
const responseOkOf = uncurry(getter(typeof Response === 'function' ? Response.prototype : undefined, 'ok') as (this: never) => boolean);
const DONE = 4;

/** One packet on its way, and whether (and how) the capture shows it. */
interface Entry {
  text: string;
  record: boolean;
  mark?: Mark;
}

/** The app's poll (GET) in flight, however it is answered: an XMLHttpRequest made done, a fetch resolved. */
export interface AppPoll {
  /** `orphaned`: its request is still in flight, and its response is the next poll's. */
  answer(status: number, body: string, orphaned: boolean): void;
  /** Still waiting for its response (not done by the browser, not answered here). */
  live(): boolean;
}

/** A response or POST body being faulted: released (to the app, to the server) once no rule holds it. */
interface Batch {
  out: Entry[];
  pending: number;
  released: boolean;
  fail: boolean;
  onRelease?: () => void;
}

interface Session {
  key: string;
  /** Closed (a close packet, a poll failed by a rule): nothing more is owed to it. */
  gone?: boolean;
  client: CapturedClient;
  url: string;
  /** Owed to the app: the head of the next poll response it reads. */
  inbox: Entry[];
  /** Owed to the server: the head of the app's next POST. */
  outbox: Entry[];
  /** The app's poll whose request is in flight to the server. */
  poll?: AppPoll;
  /** Requests in flight whose app poll was answered early: the next response is theirs. */
  orphans: number;
  /** The app's poll that waits for an orphan's response (it never left the page). */
  waiting?: AppPoll;
  /** Batches held back by a delay. */
  held: number;
  /** The batch being faulted per direction: a reorder's release joins it. */
  open: { in?: Batch; out?: Batch };
}

export interface PollingFaults {
  /** True while anything is held or owed: the taps then hand their polls over even with no rule on. */
  busy(): boolean;
  /** Whether the capture of this request's bodies is done here (the tap records nothing of it). */
  recorded(x: object): boolean;
  /** An XMLHttpRequest to an Engine.IO URL was opened: its first listener, so a response is faulted before the app reads it. */
  opened(xhr: XMLHttpRequest, url: string, method: string): void;
  /** The app sends an Engine.IO request by XMLHttpRequest: `send(body)` sends it natively. */
  xhrSend(xhr: XMLHttpRequest, url: string, body: unknown, send: (body: unknown) => unknown): unknown;
  /**
   * The app fetches an Engine.IO URL: `fetch(body)` fetches natively (the app's
   * body when undefined). A session's poll always comes here (its promise is
   * ours, so a rule that comes on while it waits, or what the app is owed, can
   * answer it; with no rule on it resolves to the browser's own Response); a
   * POST only while a rule is on. Undefined: the tap goes its usual way.
   */
  fetch(url: string, body: unknown, fetch: (body?: string) => Promise<Response>): Promise<Response> | undefined;
  /** Packets owed lost to MAX_OWED. */
  readonly lost: number;
}

export function createPollingFaults(buffer: CaptureBuffer, clientFor: (url: string) => CapturedClient): PollingFaults {
  const { natives } = buffer;
  const sessions = new BoundedMap<string, Session>(MAX_SESSIONS);
  const busySessions: Set<Session> = new SafeSet();
  /** Requests whose bodies this module records. */
  const own: WeakSet<object> = new SafeWeakSet();
  /** XMLHttpRequests with our first listener. */
  const gated: WeakSet<XMLHttpRequest> = new SafeWeakSet();
  /** The app's XMLHttpRequest polls and their state here. */
  const xhrs: WeakMap<XMLHttpRequest, { session: Session; url: string; state: 'bound' | 'orphan' | 'answered' | 'held' }> = new SafeWeakMap();
  let lost = 0;

  const touch = (s: Session) => {
    if (!s.gone && (s.inbox.length || s.outbox.length || s.orphans || s.waiting || s.held)) busySessions.add(s);
    else busySessions.delete(s);
  };

  function sessionOf(url: string): Session | undefined {
    const m = exec(SID, url);
    if (!m) return undefined;
    const q = indexOf(url, '?');
    const key = `${q === -1 ? url : slice(url, 0, q)}\u0000${m[1]}`;
    let s = sessions.get(key);
    if (!s) {
      s = { key, client: clientFor(url), url, inbox: [], outbox: [], orphans: 0, held: 0, open: {} };
      sessions.set(key, s);
    }
    s.url = url;
    return s;
  }

  const split = (body: string): string[] => {
    const out: string[] = [];
    let from = 0;
    for (;;) {
      const i = indexOf(body, SEP, from);
      out[out.length] = i === -1 ? slice(body, from) : slice(body, from, i);
      if (i === -1) return out;
      from = i + 1;
    }
  };
  const join = (entries: Entry[]): string => {
    let s = '';
    for (let i = 0; i < entries.length; i++) s += (i ? SEP : '') + entries[i]!.text;
    return s || NOOP;
  };

  /** What the capture shows of a body: packets passed in one frame, each faulted one in its own with the rule's mark. */
  function record(s: Session, dir: 'in' | 'out', entries: Entry[]): void {
    try {
      let plain = '';
      const flush = () => {
        if (plain) buffer.record(s.client, 'frame', { dir, url: s.url, ...textPayload(plain) });
        plain = '';
      };
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        if (!e.record) continue;
        if (!e.mark) {
          plain += (plain ? SEP : '') + e.text;
          continue;
        }
        flush();
        buffer.faulting(e.mark, () => buffer.record(s.client, 'frame', { dir, url: s.url, ...textPayload(e.text) }));
      }
      flush();
    } catch {
      // Capture is best effort.
    }
  }

  function owe(s: Session, dir: 'in' | 'out', e: Entry): void {
    const open = s.open[dir];
    if (open && !open.released) {
      open.out[open.out.length] = e;
      return;
    }
    const list = dir === 'in' ? s.inbox : s.outbox;
    list[list.length] = e;
    if (list.length > MAX_OWED) {
      // Shown, not silent: the capture has it as dropped, under the rule that held it.
      lost++;
      const gone = list[0]!;
      for (let i = 1; i < list.length; i++) list[i - 1] = list[i]!;
      list.length--;
      record(s, dir, [{ text: gone.text, record: true, mark: { rule: gone.mark?.rule ?? 'owed', did: 'dropped' } }]);
    }
    touch(s);
    if (dir === 'in') natives.setTimeout(() => push(s), 0);
  }

  const drain = (list: Entry[]): Entry[] => {
    const out: Entry[] = [];
    for (let i = 0; i < list.length; i++) out[i] = list[i]!;
    list.length = 0;
    return out;
  };

  /** What the app is owed answers its poll now: the one waiting, or the one in flight (its request goes on as an orphan). */
  function push(s: Session): void {
    try {
      if (!s.inbox.length) return;
      if (s.poll && !s.poll.live()) s.poll = undefined;
      const poll = s.waiting ?? s.poll;
      if (!poll) return;
      const orphaned = !s.waiting;
      if (orphaned) {
        s.poll = undefined;
        s.orphans++;
      } else s.waiting = undefined;
      const entries = drain(s.inbox);
      touch(s);
      record(s, 'in', entries);
      poll.answer(200, join(entries), orphaned);
    } catch {
      // Never into the app.
    }
  }

  /** A session that ended: what was still owed to it goes with it (shown as dropped, as a lost link loses it). */
  function forget(s: Session): void {
    s.gone = true;
    const lostIn = drain(s.inbox);
    const lostOut = drain(s.outbox);
    for (let i = 0; i < lostIn.length; i++) record(s, 'in', [{ text: lostIn[i]!.text, record: true, mark: { rule: lostIn[i]!.mark?.rule ?? 'owed', did: 'dropped' } }]);
    for (let i = 0; i < lostOut.length; i++) record(s, 'out', [{ text: lostOut[i]!.text, record: true, mark: { rule: lostOut[i]!.mark?.rule ?? 'owed', did: 'dropped' } }]);
    if (sessions.get(s.key) === s) sessions.delete(s.key);
    busySessions.delete(s);
  }

  /** The packets of a body through the rules; `done` once no rule holds the batch. */
  function runBatch(s: Session, dir: 'in' | 'out', body: string, done: (b: Batch) => void): Batch {
    const b: Batch = { out: dir === 'in' ? drain(s.inbox) : drain(s.outbox), pending: 0, released: false, fail: false };
    const before = s.open[dir];
    s.open[dir] = b;
    const packets = split(body);
    const f = hookFaults;
    for (let i = 0; i < packets.length; i++) {
      const p = packets[i]!;
      let taken = false;
      try {
        if (f?.active) taken = handle(s, dir, p, b);
      } catch {
        taken = false;
      }
      if (!taken) b.out[b.out.length] = { text: p, record: true };
    }
    s.open[dir] = before;
    let closing = false;
    for (let i = 0; i < packets.length; i++) if (packets[i] === CLOSE) closing = true;
    const release = () => {
      b.released = true;
      if (s.open[dir] === b) s.open[dir] = undefined;
      done(b);
      if (closing || b.fail) forget(s);
    };
    if (b.pending === 0) release();
    else {
      s.held++;
      touch(s);
      b.onRelease = () => {
        s.held--;
        touch(s);
        release();
      };
      // A batch held: later deliveries of the same direction join it until it goes.
      s.open[dir] = b;
    }
    return b;
  }

  function handle(s: Session, dir: 'in' | 'out', packet: string, b: Batch): boolean {
    const f = hookFaults;
    const ev = decodeFrame(packet, true);
    if (!f || !ev) return false;
    const inbound = dir === 'in';
    const deliver = (d: unknown, mark?: Mark) => {
      // An outbound copy of a faulted event goes unrecorded: the app sent it once, recorded with the mark.
      const e: Entry = { text: d as string, record: inbound || mark !== undefined, ...(mark ? { mark } : {}) };
      if (!b.released) b.out[b.out.length] = e;
      else owe(s, dir, e);
    };
    const carrier: Carrier = {
      record: (d, mark) => record(s, dir, [{ text: d as string, record: true, mark }]),
      deliver,
      close: () => {
        b.fail = true;
      },
      ...(!inbound && ev.packet === '2' && ev.ackId !== undefined ? { ackToApp: (value: unknown, mark: Mark) => owe(s, 'in', { text: ackFrame(ev.nsp, ev.ackId!, value), record: true, mark }) } : {}),
      defer: (ms, fn) => {
        if (b.released || ms > HOLD_MAX_MS) {
          natives.setTimeout(fn, ms);
          return;
        }
        b.pending++;
        natives.setTimeout(() => {
          fn();
          if (--b.pending === 0) b.onRelease?.();
        }, ms);
      },
    };
    return f.handle({ direction: inbound ? 'to-client' : 'from-client', transport: 'socket.io', client: `${buffer.hook}/${s.client.id}`, ev, encode: (payload, ackId) => encodeFrame(ev, payload, ackId), carrier, original: packet });
  }

  // ── XMLHttpRequest ──────────────────────────────────────────────────────

  const own1 = (xhr: object, name: string, value: unknown) => defineProperty(xhr, name, { get: () => value, enumerable: true, configurable: true });
  const body1 = (xhr: XMLHttpRequest, body: string) => {
    own1(xhr, 'responseText', body);
    const type = responseTypeOf ? responseTypeOf(xhr) : '';
    own1(xhr, 'response', type === '' || type === 'text' ? body : null);
  };
  const fire = (xhr: XMLHttpRequest, size: number) => {
    apply(dispatch, xhr, [new NativeEvent('readystatechange')]);
    const progress = (t: string) => (NativeProgressEvent ? new NativeProgressEvent(t, { lengthComputable: true, loaded: size, total: size }) : new NativeEvent(t));
    apply(dispatch, xhr, [progress(size ? 'load' : 'error')]);
    apply(dispatch, xhr, [progress('loadend')]);
  };

  /** An XMLHttpRequest made done as the browser does, with this status and body (status 0: a network error). */
  function answerXhr(xhr: XMLHttpRequest, status: number, body: string): void {
    own1(xhr, 'readyState', DONE);
    own1(xhr, 'status', status);
    own1(xhr, 'statusText', status === 200 ? 'OK' : '');
    body1(xhr, status ? body : '');
    fire(xhr, status ? body.length : 0);
  }

  const xhrPoll = (xhr: XMLHttpRequest, session: Session, url: string): AppPoll => ({
    answer(status, body, orphaned) {
      own.add(xhr);
      xhrs.set(xhr, { session, url, state: orphaned ? 'orphan' : 'answered' });
      answerXhr(xhr, status, body);
    },
    live: () => xhrs.get(xhr)?.state === 'bound' && (readyStateOf ? readyStateOf(xhr) : DONE) !== DONE,
  });

  /** Our first listener on an Engine.IO request: faults a poll response before any of the app's listeners reads it. */
  function gate(xhr: XMLHttpRequest, e: Event): void {
    if (!faultsOn && busySessions.size === 0) return;
    let st = xhrs.get(xhr);
    if (!st) {
      // A poll sent before the rules came on: its response is read by them all the same.
      const o = openedAs.get(xhr);
      const session = o?.get ? sessionOf(o.url) : undefined;
      if (!session || !o) return;
      st = { session, url: o.url, state: 'bound' };
      xhrs.set(xhr, st);
    }
    const trusted = isTrustedOf ? isTrustedOf(e) : e.isTrusted;
    if (!trusted) return;
    // Made done here, or its response is another poll's: the browser's own events are not the app's to see.
    if (st.state === 'answered' || st.state === 'held') return void apply(stopImmediate, e, []);
    if (st.state === 'orphan') {
      apply(stopImmediate, e, []);
      if (e.type !== 'readystatechange' || (readyStateOf ? readyStateOf(xhr) : xhr.readyState) !== DONE) return;
      st.state = 'answered';
      const status = statusOf ? statusOf(xhr) : xhr.status;
      orphanDone(st.session, status, status === 200 ? (responseTextOf ? responseTextOf(xhr) : xhr.responseText) : '');
      return;
    }
    if (e.type !== 'readystatechange' || (readyStateOf ? readyStateOf(xhr) : xhr.readyState) !== DONE) return;
    const s = st.session;
    if (s.poll === pollOf.get(xhr)) s.poll = undefined;
    const status = statusOf ? statusOf(xhr) : xhr.status;
    if (status !== 200) return;
    const text = responseTextOf ? responseTextOf(xhr) : xhr.responseText;
    own.add(xhr);
    let sync = true;
    const batch = runBatch(s, 'in', text, (b) => {
      record(s, 'in', b.out);
      if (b.fail) {
        own1(xhr, 'status', 0);
        own1(xhr, 'statusText', '');
        body1(xhr, '');
      } else {
        const out = join(b.out);
        // What the rules let through as it came: the browser's own getters stay.
        if (out !== text || !sync) body1(xhr, out);
      }
      if (!sync) {
        st.state = 'answered';
        fire(xhr, b.fail ? 0 : 1);
      }
    });
    sync = false;
    if (!batch.released) {
      st.state = 'held';
      apply(stopImmediate, e, []);
    }
  }
  /** What each Engine.IO XMLHttpRequest was opened for. */
  const openedAs: WeakMap<XMLHttpRequest, { url: string; get: boolean }> = new SafeWeakMap();
  /** The AppPoll made for each bound XMLHttpRequest. */
  const pollOf: WeakMap<XMLHttpRequest, AppPoll> = new SafeWeakMap();

  /** An orphan's response: the app's next poll gets it (through the rules), or the app is owed it. */
  function orphanDone(s: Session, status: number, text: string): void {
    s.orphans = s.orphans > 0 ? s.orphans - 1 : 0;
    touch(s);
    if (status !== 200) {
      const w = s.waiting;
      s.waiting = undefined;
      touch(s);
      w?.answer(status, '', false);
      return;
    }
    runBatch(s, 'in', text, (b) => {
      const w = s.waiting;
      if (b.fail) {
        s.waiting = undefined;
        touch(s);
        record(s, 'in', b.out);
        w?.answer(0, '', false);
        return;
      }
      for (let i = 0; i < b.out.length; i++) s.inbox[s.inbox.length] = b.out[i]!;
      touch(s);
      push(s);
    });
  }

  /** A poll the app sends: answered from what it is owed, or made to wait for an orphan's response, or sent. */
  function appPoll(s: Session, poll: AppPoll, send: () => unknown): unknown {
    if (s.orphans > 0) {
      s.waiting = poll;
      touch(s);
      if (s.inbox.length) natives.setTimeout(() => push(s), 0);
      return undefined;
    }
    if (s.inbox.length) {
      s.waiting = poll;
      touch(s);
      natives.setTimeout(() => push(s), 0);
      return undefined;
    }
    s.poll = poll;
    return send();
  }

  /** A POST the app sends: its packets through the rules, then sent (maybe later), or failed. */
  function appPost(s: Session, body: string, send: (body: string) => unknown, fail: () => void): unknown {
    let result: unknown;
    let sync = true;
    runBatch(s, 'out', body, (b) => {
      record(s, 'out', b.out);
      const go = () => (b.fail ? fail() : send(join(b.out)));
      if (sync) result = go();
      else {
        try {
          go();
        } catch {
          // Closed meanwhile: the browser says so to the app as it would.
        }
      }
    });
    sync = false;
    return result;
  }

  return {
    busy: () => busySessions.size > 0,
    recorded: (x) => own.has(x),
    get lost() {
      return lost;
    },
    opened(xhr, url, method) {
      openedAs.set(xhr, { url, get: method.toUpperCase() === 'GET' });
      if (gated.has(xhr)) return;
      gated.add(xhr);
      const g = (e: Event) => {
        try {
          gate(xhr, e);
        } catch {
          // Never into the app.
        }
      };
      natives.listen(xhr, 'readystatechange', g);
      natives.listen(xhr, 'load', g);
      natives.listen(xhr, 'error', g);
      natives.listen(xhr, 'loadend', g);
    },
    xhrSend(xhr, url, body, send) {
      const s = sessionOf(url);
      if (!s) return send(body);
      xhrs.delete(xhr);
      if (body === undefined || body === null) {
        own.add(xhr);
        const poll = xhrPoll(xhr, s, url);
        xhrs.set(xhr, { session: s, url, state: 'bound' });
        pollOf.set(xhr, poll);
        return appPoll(s, poll, () => send(body));
      }
      if (typeof body !== 'string') return send(body);
      own.add(xhr);
      return appPost(s, body, (b) => send(b), () => natives.setTimeout(() => answerXhr(xhr, 0, ''), 0));
    },
    fetch(url, body, fetch) {
      const s = sessionOf(url);
      if (!s) return undefined;
      if (body === undefined || body === null) {
        return new NativePromise<Response>((resolve, reject) => {
          let bound = true;
          const poll: AppPoll = {
            answer(status, text) {
              bound = false;
              if (!status || !NativeResponse) reject(new NativeTypeError('Failed to fetch'));
              else resolve(new NativeResponse(text, { status, headers: { 'content-type': 'text/plain; charset=UTF-8' } }));
            },
            live: () => bound,
          };
          appPoll(s, poll, () => {
            const lost = (err: unknown) => {
              if (bound) {
                bound = false;
                if (s.poll === poll) s.poll = undefined;
                reject(err);
              } else orphanDone(s, 0, '');
            };
            natives.after(
              fetch(),
              (res) => {
                const ok = responseOkOf ? responseOkOf(res) : res.ok;
                if (bound && !faultsOn && busySessions.size === 0) {
                  // No rule on: the browser's own Response, as it came (recorded from a copy).
                  bound = false;
                  if (s.poll === poll) s.poll = undefined;
                  resolve(res);
                  if (ok && responseTextFn && responseCloneFn) natives.after(apply(responseTextFn, apply(responseCloneFn, res, []), []) as Promise<string>, (text) => record(s, 'in', [{ text, record: true }]), () => {});
                  return;
                }
                if (!ok || !responseTextFn) {
                  if (!bound) return orphanDone(s, 0, '');
                  bound = false;
                  if (s.poll === poll) s.poll = undefined;
                  return resolve(res);
                }
                natives.after(
                  apply(responseTextFn, res, []) as Promise<string>,
                  (text) => {
                    if (!bound) return orphanDone(s, 200, text);
                    if (s.poll === poll) s.poll = undefined;
                    bound = false;
                    runBatch(s, 'in', text, (b) => {
                      record(s, 'in', b.out);
                      poll.answer(b.fail ? 0 : 200, join(b.out), false);
                    });
                  },
                  lost,
                );
              },
              lost,
            );
            return undefined;
          });
        });
      }
      if (typeof body !== 'string' || (!faultsOn && busySessions.size === 0)) return undefined;
      return new NativePromise<Response>((resolve, reject) => {
        appPost(
          s,
          body,
          (b) => {
            natives.after(fetch(b), resolve, reject);
            return undefined;
          },
          () => reject(new NativeTypeError('Failed to fetch')),
        );
      });
    },
  };
}
