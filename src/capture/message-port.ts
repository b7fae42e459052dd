/**
 * What the page hook and the panel agree on for OUI conversations carried
 * over MessagePorts (a `MessageChannel` whose port was handed to an iframe, a
 * worker or another part of the page).
 *
 * A port has no identity that survives a transfer: the port an iframe
 * receives is a new object in another realm, and nothing the hook could add
 * to it without changing what the app sends or receives would tell the two
 * ends apart from any other pair. So each hook that holds an end names the
 * conversation after what both ends see the same way: the client's first
 * message to its runtime (OUI messages flow from the client in one FIFO
 * direction, so both ends see the same first one, whichever end sends
 * first otherwise). Both ends then give their captured client the same key,
 * and the panel shows one client; the message each end records (the sender
 * when it posts, the receiver when the message event arrives) is shown once.
 *
 * Pure: the hook (content/taps/message-port.ts) and the tests use it as is.
 */
import { sentToClient } from '../protocol/oui-types.ts';

// Taken when the module is evaluated (the hook: before any page script), so a page that replaces them later changes no key.
const imul = Math.imul;
const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt) as (s: string, i: number) => number;
const HEX = '0123456789abcdef';

/** Extension types (`x-…`) say nothing of who sent them. */
function isExtension(type: string): boolean {
  return type.length > 1 && charCodeAt(type, 0) === 120 && charCodeAt(type, 1) === 45;
}

export const PORT_KEY_PREFIX = 'port:';
/**
 * Until the client's first message to its runtime names a conversation, its
 * messages wait in the hook: at most this long, this many, this heavy. Then
 * the conversation becomes a client of its own (its other end, if hooked,
 * shows as another client).
 */
export const PORT_HOLD_MS = 3000;
export const PORT_HOLD_ITEMS = 64;
export const PORT_HOLD_BYTES = 4 * 1024 * 1024;
/** Characters of the naming message that are hashed (with its length): a registration of megabytes is named as quickly as a small one. */
const KEY_CHARS = 65_536;

/**
 * The two ends of a conversation as one hook sees it: port1 and port2 of a
 * MessageChannel made in its frame, or a port it received (1) and that
 * port's partner, wherever it is (2).
 */
export type PortEnd = 1 | 2;

/** Recorded where the message was posted (`postMessage`) or where its message event arrived (`message`). */
export type PortRecordSide = 'postMessage' | 'message';

export function otherEnd(end: PortEnd): PortEnd {
  return end === 1 ? 2 : 1;
}


/** Who sends an OUI event of this type: the runtime (requests to the client), the client (everything else of the protocol), or unknown (extensions). */
export function senderOf(type: string): 'client' | 'runtime' | undefined {
  if (sentToClient(type)) return 'runtime';
  return isExtension(type) ? undefined : 'client';
}

/** True for the messages that name a conversation: what a client sends its runtime. */
export function namesConversation(type: string): boolean {
  return senderOf(type) === 'client';
}

/** The client's end, as a message of `type` sent by `sender` shows it (undefined for extension types). */
export function clientEndFrom(sender: PortEnd, type: string): PortEnd | undefined {
  const role = senderOf(type);
  if (role === 'client') return sender;
  if (role === 'runtime') return otherEnd(sender);
  return undefined;
}

/**
 * A message's direction from the client's point of view (`out`: from the
 * client to its runtime): by the ends once the client's end is known, by its
 * type before (an extension type before anything is known: `in`).
 */
export function portDirection(clientEnd: PortEnd | undefined, sender: PortEnd, type: string): 'in' | 'out' {
  if (clientEnd !== undefined) return sender === clientEnd ? 'out' : 'in';
  return senderOf(type) === 'client' ? 'out' : 'in';
}


function hex32(n: number): string {
  let out = '';
  for (let shift = 28; shift >= 0; shift -= 4) out += HEX[(n >>> shift) & 15];
  return out;
}

/**
 * The key of the conversation a message names, from its JSON text: FNV-1a
 * (64 bits, as two 32-bit lanes of different primes and seeds) of its first
 * characters, with its length. Both ends compute it from the same text.
 */
export function portConversationKey(json: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  const n = json.length < KEY_CHARS ? json.length : KEY_CHARS;
  for (let i = 0; i < n; i++) {
    const c = charCodeAt(json, i);
    a = imul(a ^ c, 0x01000193);
    b = imul(b ^ c, 0x0100019d);
  }
  return `${PORT_KEY_PREFIX}${hex32(a >>> 0)}${hex32(b >>> 0)}-${json.length}`;
}
