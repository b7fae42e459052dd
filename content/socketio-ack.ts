/**
 * The acknowledgment a held Socket.IO answer gets: when the app sends an
 * `action:result` event that asks for an ack (`42/ns,17["action:result",…]`,
 * or `45<n>-…` with binary attachments) and the hook holds it back from the
 * runtime, the app is told `43/ns,17[{"ok":true}]`, as the runtime would.
 *
 * Not src/protocol/socketio.ts's decoder: reading a packet there means
 * parsing all of its JSON with the page's JSON and array built-ins (this runs
 * in the page's world, after its code: primordials.ts), and a binary event
 * (45) is decoded only once its attachments, separate frames, have arrived.
 * What is needed is the packet's header and its event name, which this reads
 * in place; test/unit/socketio-ack.test.ts checks it against that decoder.
 */
import { exec } from './primordials.ts';

/** Event (2) or binary event (5 with its attachment count), optional namespace, ack id, then the event name as JSON. */
const RESULT_WITH_ACK = /^4(?:2|5\d+-)(\/[^,]*,)?(\d+)\["action:result"[,\]]/;

/** The ack frame for `text`, or undefined when it is no `action:result` event asking for one. */
export function socketIoResultAck(text: string): string | undefined {
  const m = exec(RESULT_WITH_ACK, text);
  return m ? `43${m[1] ?? ''}${m[2]}[{"ok":true}]` : undefined;
}
