/**
 * A message over MessagePorts whose both ends are hooked is captured twice:
 * where the page posted it (`postMessage`) and where its message event
 * arrived (`message`), often by two hooks in two frames, whose batches reach
 * the panel in any order. This shows each message once: the first of its two
 * records to arrive, whichever it is.
 *
 * Per conversation and direction, a port delivers in the order it was
 * posted, and each hook's records arrive in the order they were made. So the
 * records of one side are matched with the other side's first record of the
 * same text, in order; a record of the other side passed over on the way
 * (its counterpart was never recorded: posted through a function no hook
 * wraps, or never delivered) is forgotten. A message posted twice with the
 * same text is shown twice. Bounded: records are kept as fingerprints of
 * their text, and the oldest unmatched are forgotten first.
 */
import { portConversationKey, type PortRecordSide } from '../../capture/message-port.ts';

/** Unmatched records kept per conversation, direction and side. */
export const MAX_UNMATCHED = 256;
/** Conversations remembered; the least recently used are forgotten past this. */
export const MAX_CONVERSATIONS = 1024;

interface Sides {
  postMessage: string[];
  message: string[];
}

export class PortEchoes {
  private conversations = new Map<string, Sides>();

  /**
   * True when this record is the second of a message already shown (drop
   * it); false when it is shown, and remembered for its echo.
   */
  isEcho(key: string, dir: 'in' | 'out', side: PortRecordSide, text: string): boolean {
    const id = `${dir} ${key}`;
    let sides = this.conversations.get(id);
    if (sides) {
      this.conversations.delete(id);
    } else {
      sides = { postMessage: [], message: [] };
      if (this.conversations.size >= MAX_CONVERSATIONS) this.conversations.delete(this.conversations.keys().next().value as string);
    }
    this.conversations.set(id, sides);
    const print = portConversationKey(text);
    const other = side === 'postMessage' ? sides.message : sides.postMessage;
    const at = other.indexOf(print);
    if (at >= 0) {
      other.splice(0, at + 1);
      return true;
    }
    const mine = sides[side];
    mine.push(print);
    if (mine.length > MAX_UNMATCHED) mine.shift();
    return false;
  }
}
