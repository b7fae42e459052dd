/**
 * OUI events carried over MessagePorts: a client and its runtime that talk
 * over a `MessageChannel` (its port2 handed to an iframe or a worker through
 * postMessage, or both ports kept in one page).
 *
 * Which ports: both ports of every `new MessageChannel()` of this frame,
 * every port that arrives in a trusted message event of this window or of a
 * port already tapped, and every port the page reads from a trusted message
 * event's `ports` (a worker's, a service worker's): each before any listener
 * of the app's is on it. A port of this realm the hook saw none of these ways
 * (a SharedWorker's) is tapped at the page's first `postMessage` on it.
 *
 * What is recorded, of OUI-typed messages only: what each tapped port
 * receives (a listener added with the browser's own addEventListener before
 * any of the app's, which neither starts the port nor changes what the app's
 * listeners get or when: the data is copied before they run), and what the
 * page posts on it (after the browser's own postMessage took it, so a message
 * the browser refuses is not recorded). A message whose both ends are hooked
 * is recorded twice (where it was posted and where it arrived); the panel
 * shows it once. A message posted through another same-origin frame's
 * `postMessage` is recorded by the port's own hook (content/realm-link.ts),
 * and where it arrives in any case.
 *
 * Ends in different frames each make a client of their own hook, under the
 * key both compute from the client's first message to its runtime
 * (src/capture/message-port.ts); until that message, a conversation's
 * messages wait here, bounded, and after PORT_HOLD_MS without it the
 * conversation is a client of its own.
 *
 * Nothing here holds a port: ports are keys of a WeakMap, and a listener
 * refers to its conversation, never to its port.
 */
import type { CaptureBuffer, Sink } from '../capture-buffer.ts';
import { copyValue, jsonPayload } from '../payloads.ts';
import { disguise, disguiseConstructor, disguiseMethod, replaceProperty } from '../disguise.ts';
import { connectRealms, foreignRealmOp, provideRealmOp } from '../realm-link.ts';
import { framePath } from './post-message.ts';
import { isOuiType } from '../../src/capture/contract.ts';
import { HOOK_PORT_MARKER } from '../../src/messages.ts';
import type { CapturedClient } from '../../src/capture/captured-items.ts';
import { getter } from '../scope-natives.ts';
import { SafeWeakMap } from '../primordials.ts';
import {
  PORT_HOLD_BYTES,
  PORT_HOLD_ITEMS,
  PORT_HOLD_MS,
  clientEndFrom,
  namesConversation,
  otherEnd,
  portConversationKey,
  portDirection,
  type PortEnd,
  type PortRecordSide,
} from '../../src/capture/message-port.ts';

// The browser's own functions, taken when the hook is evaluated (before any page script).
const { apply, construct } = Reflect;
const getPrototypeOf = Object.getPrototypeOf;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const parse = JSON.parse;
const NativeChannel = typeof MessageChannel === 'function' ? MessageChannel : undefined;
const PortProto: object | undefined = typeof MessagePort === 'function' ? MessagePort.prototype : undefined;
const nativePost = typeof MessagePort === 'function' ? MessagePort.prototype.postMessage : undefined;
const port1Getter = getter(NativeChannel?.prototype, 'port1');
const port2Getter = getter(NativeChannel?.prototype, 'port2');
const portsGetter = getter(typeof MessageEvent === 'function' ? MessageEvent.prototype : undefined, 'ports');
const dataGetter = getter(typeof MessageEvent === 'function' ? MessageEvent.prototype : undefined, 'data');
const sourceGetter = getter(typeof MessageEvent === 'function' ? MessageEvent.prototype : undefined, 'source');
const MessageEventProto: object | undefined = typeof MessageEvent === 'function' ? MessageEvent.prototype : undefined;
const NO_PORTS: readonly MessagePort[] = Object.freeze([]);

function portsOf(e: MessageEvent): readonly MessagePort[] {
  const p = (portsGetter ? apply(portsGetter, e, []) : e.ports) as readonly MessagePort[] | null;
  return p ?? NO_PORTS;
}

function dataOf(e: MessageEvent): unknown {
  return dataGetter ? apply(dataGetter, e, []) : e.data;
}

type Origin = 'channel' | 'received' | 'unseen';

/** One message kept until its conversation has a key. */
interface Held {
  sender: PortEnd;
  side: PortRecordSide;
  type: string;
  value: unknown;
  t: number;
}

/** A conversation as this hook sees it: one MessageChannel made here (both ends), or one port that arrived here (end 1) and its partner. */
interface Conversation {
  readonly origin: Origin;
  /** Where a received port came from: the frame path of the window whose message carried it. */
  readonly from?: string;
  client?: CapturedClient;
  clientEnd?: PortEnd;
  /** Sinks by direction and side: [in/message, in/postMessage, out/message, out/postMessage]. */
  sinks?: Array<Sink | undefined>;
  held?: Held[];
  heldWeight: number;
}

interface End {
  readonly conv: Conversation;
  readonly end: PortEnd;
}

/** Returns its window message handler (ports arriving in this window's messages), for the hook's one shared listener; null when the browser has no ports to tap. */
export function tapMessagePorts(buffer: CaptureBuffer): ((event: Event) => void) | null {
  if (!NativeChannel || !PortProto || !nativePost || !port1Getter || !port2Getter) return null;
  const { natives } = buffer;
  const ends: WeakMap<object, End> = new SafeWeakMap();
  let nextFallback = 1;

  connectRealms();

  function sinkOf(conv: Conversation, client: CapturedClient, dir: 'in' | 'out', side: PortRecordSide): Sink {
    const i = (dir === 'in' ? 0 : 2) + (side === 'message' ? 0 : 1);
    const sinks = (conv.sinks ??= [undefined, undefined, undefined, undefined]);
    return (sinks[i] ??= buffer.sink(client, dir, { method: side }));
  }

  /** Into the buffer: the client is known. */
  function emit(conv: Conversation, client: CapturedClient, sender: PortEnd, side: PortRecordSide, type: string, value: unknown, t: number): void {
    conv.clientEnd ??= clientEndFrom(sender, type);
    buffer.value(sinkOf(conv, client, portDirection(conv.clientEnd, sender, type), side), value, undefined, t);
  }

  function makeClient(conv: Conversation, key: string): CapturedClient {
    const client = buffer.addClient('postmessage', conv.origin === 'channel' ? 'MessageChannel' : 'MessagePort', key);
    let at = '';
    try {
      at = framePath(window);
    } catch {
      // Said as unknown.
    }
    client.port = conv.from !== undefined ? { at, from: conv.from } : { at };
    conv.client = client;
    const held = conv.held ?? [];
    conv.held = undefined;
    conv.heldWeight = 0;
    // Index loops and index writes on the hook's own arrays: a page that patched Array.prototype sees none of them.
    for (let i = 0; i < held.length; i++) {
      const h = held[i]!;
      emit(conv, client, h.sender, h.side, h.type, h.value, h.t);
    }
    return client;
  }

  /** No message of the client's named the conversation in time: a client of its own. */
  function ownClient(conv: Conversation): void {
    if (!conv.client) makeClient(conv, `port:${buffer.hook}/${nextFallback++}`);
  }

  /**
   * A copy that no later change of the app's reaches, and its weight (a value
   * that is not plain data: its JSON, read back; one that is not JSON either:
   * the marker the buffer would keep, and `json: false`).
   */
  function keep(value: unknown): { value: unknown; weight: number; json: boolean } {
    const copied = copyValue(value);
    if (copied) return { value: copied.value, weight: copied.weight, json: true };
    const json = jsonPayload(value);
    const p = json.payload as { text?: string; head?: string };
    if (p.text !== undefined) return { value: parse(p.text) as unknown, weight: p.text.length * 2, json: true };
    const head = p.head ?? '';
    return { value: head, weight: head.length * 2, json: false };
  }

  /** One OUI message of `conv`, sent by its end `sender`, seen where it was posted or where it arrived. */
  function record(conv: Conversation, sender: PortEnd, side: PortRecordSide, type: string, value: unknown, t: number): void {
    if (conv.client) {
      emit(conv, conv.client, sender, side, type, value, t);
      return;
    }
    const copied = keep(value);
    const held = (conv.held ??= []);
    held[held.length] = { sender, side, type, value: copied.value, t };
    conv.heldWeight += copied.weight;
    if (namesConversation(type)) {
      // The client's first message to its runtime: both ends name the conversation after it, and read the client's end from it.
      const json = copied.json ? jsonPayload(copied.value) : undefined;
      conv.clientEnd = clientEndFrom(sender, type);
      // A message that is not JSON (a cycle, a BigInt) names nothing both ends could agree on.
      makeClient(conv, json?.text ? portConversationKey(json.text) : `port:${buffer.hook}/${nextFallback++}`);
      return;
    }
    if (held.length >= PORT_HOLD_ITEMS || conv.heldWeight >= PORT_HOLD_BYTES) {
      ownClient(conv);
      return;
    }
    if (held.length === 1) natives.setTimeout(() => ownClient(conv), PORT_HOLD_MS);
  }

  function received(conv: Conversation, end: PortEnd, e: MessageEvent): void {
    const data = dataOf(e);
    if (!data || typeof data !== 'object') return;
    const type = (data as { type?: unknown }).type;
    if (!isOuiType(type)) return;
    record(conv, otherEnd(end), 'message', type, data, natives.now());
  }

  /** Starts listening on `port` as end `end` of `conv` (once per port). */
  function tap(port: MessagePort, conv: Conversation, end: PortEnd): End {
    const known = ends.get(port);
    if (known) return known;
    const at: End = { conv, end };
    ends.set(port, at);
    // addEventListener, unlike the onmessage setter, does not start the port: an app that never starts it gets nothing, as before.
    natives.listen(port, 'message', (event) => {
      try {
        const e = event as MessageEvent;
        // A page can dispatch any MessageEvent on a port; only the browser's are traffic.
        if (!e.isTrusted) return;
        const ports = portsOf(e);
        if (ports.length) arrived(ports, undefined);
        received(conv, end, e);
      } catch {
        // A message we cannot read is the app's business only.
      }
    });
    return at;
  }

  function arrived(ports: readonly MessagePort[], from: string | undefined): void {
    for (let i = 0; i < ports.length; i++) {
      const port = ports[i]!;
      // Another realm's port (an event of another frame's, read through this frame's getter) is its own hook's.
      if (ends.has(port) || getPrototypeOf(port) !== PortProto) continue;
      tap(port, { origin: 'received', heldWeight: 0, ...(from !== undefined ? { from } : {}) }, 1);
    }
  }

  // Ports that arrive in this window's messages, before any listener of the app's can take them.
  const onWindowMessage = (event: Event): void => {
    try {
      const e = event as MessageEvent;
      if (!e.isTrusted) return;
      const ports = portsOf(e);
      if (!ports.length) return;
      const data = dataOf(e);
      // The hook's own line to its bridge (hook-port.ts): named by this hook's id, which no page knows.
      if (data && typeof data === 'object' && (data as Record<string, unknown>)[HOOK_PORT_MARKER] === buffer.hook) return;
      const source = sourceGetter ? (apply(sourceGetter, e, []) as MessageEventSource | null) : e.source;
      let from: string | undefined;
      try {
        if (source && 'frames' in source) from = framePath(source as Window);
      } catch {
        from = undefined;
      }
      arrived(ports, from);
    } catch {
      // The ports go on to the app untouched.
    }
  };

  // Ports the page takes from any other message event (a worker's): tapped as it reads them, so before it can listen.
  const portsDescriptor = MessageEventProto ? getOwnPropertyDescriptor(MessageEventProto, 'ports') : undefined;
  if (MessageEventProto && portsDescriptor?.get && portsDescriptor.configurable) {
    const readPorts = disguise(portsDescriptor.get as () => readonly MessagePort[], (target, thisArg, args) => {
      const ports = apply(target, thisArg, args) as readonly MessagePort[] | null;
      try {
        // isTrusted is each event's own unforgeable property.
        if (ports && ports.length && (thisArg as Event).isTrusted) arrived(ports, undefined);
      } catch {
        // The ports are the app's as they were.
      }
      return ports;
    });
    defineProperty(MessageEventProto, 'ports', { ...portsDescriptor, get: readPorts });
  }

  const Channel = NativeChannel;
  const channelProxy = disguiseConstructor(Channel, (target, args, newTarget) => {
    const channel = construct(target, args, newTarget) as MessageChannel;
    try {
      const conv: Conversation = { origin: 'channel', heldWeight: 0 };
      tap(apply(port1Getter, channel, []) as MessagePort, conv, 1);
      tap(apply(port2Getter, channel, []) as MessagePort, conv, 2);
    } catch {
      // The channel works without us.
    }
    return channel;
  });

  const post = nativePost;
  const postMessage = disguiseMethod(post, {
    // A method definition of the native's name and length: see disguiseMethod.
    postMessage(this: MessagePort, message: unknown): void {
      const isObject = typeof this === 'object' && this !== null;
      let at = isObject ? ends.get(this) : undefined;
      const own = isObject && !at && getPrototypeOf(this) === PortProto;
      if (isObject && !at && !own) {
        // A port of another realm (this frame's postMessage, borrowed by a same-origin frame): its own hook posts and records it.
        const done = foreignRealmOp('port.postMessage', this, arguments);
        if (done) return done.value as void;
      }
      // eslint-disable-next-line prefer-rest-params
      const result = apply(post, this, arguments) as void;
      try {
        if (!message || typeof message !== 'object') return result;
        const type = (message as { type?: unknown }).type;
        if (!isOuiType(type)) return result;
        if (!at) {
          if (!own) return result;
          // A port of this realm the hook never saw made or arrive (a worker's message brought it): tapped now.
          at = tap(this, { origin: 'unseen', heldWeight: 0 }, 1);
        }
        record(at.conv, at.end, 'postMessage', type, message, natives.now());
      } catch {
        // The message is on its way; capture is best effort.
      }
      return result;
    },
  }.postMessage);

  // For a same-origin frame whose postMessage the page borrowed: a port of this realm is this hook's to post and record.
  provideRealmOp('port.postMessage', (target, args) => (ends.has(target) || getPrototypeOf(target) === PortProto ? { value: apply(postMessage, target, args) } : undefined));
  replaceProperty(PortProto, 'postMessage', postMessage);
  replaceProperty(window, 'MessageChannel', channelProxy);
  return onWindowMessage;
}
