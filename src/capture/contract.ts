/**
 * The strings the page hook, the decoder, the merge and the CLI must read the
 * same way: each is defined here once and imported by every side (content/
 * may import src/capture). A change here changes both ends at once.
 *
 * Written for the page hook too: nothing here calls a builtin a page can
 * replace on the hot path (no Array.prototype.includes, no iterators).
 */
import { OUI_PROTOCOL_EVENT_TYPES } from '../protocol/oui-types.ts';

const PROTOCOL_TYPES: Record<string, true> = Object.create(null);
for (let i = 0; i < OUI_PROTOCOL_EVENT_TYPES.length; i++) PROTOCOL_TYPES[OUI_PROTOCOL_EVENT_TYPES[i]!] = true;

/**
 * An OUI event type: one the protocol defines, or an extension type (`x-…`,
 * which the spec lets any party send and any receiver ignore). Agrees with
 * protocol/oui-types.ts (`isProtocolEventType || isExtensionEventType`), which
 * the model and the validator judge by: a bare `x-` is an extension there too.
 */
export function isOuiType(type: unknown): type is string {
  return typeof type === 'string' && (PROTOCOL_TYPES[type] === true || (type.length >= 2 && type[0] === 'x' && type[1] === '-'));
}

/**
 * Text that may carry an OUI event, as JSON (`"type":"action:request"`,
 * `"type":"x-approval:ask"`) or as Socket.IO (`42["surface:register",…`,
 * `42/ns,["x-…",…`). A cheap test for what to keep of a socket that has shown
 * no OUI yet: it may say yes to text that is not OUI (the decoder then reads
 * it as other traffic), but it never says no to text whose event `isOuiType`
 * accepts, unless the type is spelled with JSON escapes (`"\\u0061ction:…"`),
 * which no encoder writes for ASCII.
 */
const OUI_TEXT = /"(?:surface|action|observation):|"x-/;
// The engine's own exec, taken now: RegExp.prototype.test looks `exec` up at each call, where a page could answer.
const regexpExec = RegExp.prototype.exec;
const apply = Reflect.apply;
export function looksLikeOuiText(text: string): boolean {
  return apply(regexpExec, OUI_TEXT, [text]) !== null;
}

/**
 * The names under which the direct-call hook records its own entries (the
 * request it delivered, the acknowledgments it saw). Every other call is
 * recorded under the method's own name, so these start with '#', which an
 * app's method names in practice never do: a transport method named `ack`
 * or `receipt` is then read as a call, never as an acknowledgment.
 */
export const DIRECT_METHOD = Object.freeze({
  /** A request the transport delivered to the app's onAction handler. */
  request: '#request',
  /** The app's acknowledgment (receipt) of a request. */
  receipt: '#receipt',
  /** A result the app sent through sendResult. */
  result: '#result',
  /** The transport's acknowledgment of a result. */
  resultAck: '#result-ack',
} as const);
export type DirectMethod = (typeof DIRECT_METHOD)[keyof typeof DIRECT_METHOD];

/**
 * A wire event's id: `${hook}/${client}/${seq}` for the first (or only) event
 * decoded from one captured item, `${…}.${part}` for the part-th after it
 * (part 1, 2, …; part 0 is the first). `hook` and `client` never contain '/'.
 */
export function eventId(hook: string, client: string, seq: number, part = 0): string {
  return part === 0 ? `${hook}/${client}/${seq}` : `${hook}/${client}/${seq}.${part}`;
}

/** The parts of an id `eventId` made; undefined for an id of another shape (an imported file's). */
export function parseEventId(id: string): { hook: string; client: string; source: string; seq: string } | undefined {
  const last = id.lastIndexOf('/');
  const first = id.indexOf('/');
  if (first <= 0 || last <= first) return undefined;
  return { hook: id.slice(0, first), client: id.slice(first + 1, last), source: id.slice(0, last), seq: id.slice(last + 1) };
}

/**
 * Whether `id` is an id of `source` (a `source` that `parseEventId` returned):
 * `parseEventId(id)?.source === source`, without cutting the id.
 */
export function inSource(id: string, source: string): boolean {
  const n = source.length;
  return id.length > n && id.charCodeAt(n) === 0x2f && id.startsWith(source) && id.indexOf('/', n + 1) < 0;
}

/** The function the Playwright fixture exposes on the page and the fixture's bridge calls with captured items. */
export const FIXTURE_BINDING = '__ouiDevtoolsPlaywrightCapture';
