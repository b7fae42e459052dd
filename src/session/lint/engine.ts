/**
 * The linter's core: records of a session file or a HAR in, in file order,
 * findings out. It runs the panel's path and nothing else:
 *
 *   HAR: HarCapture → captured items (as the page hook records them)
 *        → WireDecoder (clients, Socket.IO sessions across polling and upgrade)
 *   session file: the panel's own record readers (session-file.ts)
 *   → the panel's ModelFeed (merge.ts): the canonical order of wire/order.ts,
 *     SessionModel.apply, then tick at the last event and finish(): what an
 *     imported session in the panel does.
 *
 * Bounded memory: records are ordered through two bounded windows instead of
 * collecting the file: captured items by time before the decoder (a HAR's
 * entries each hold their own messages; the hook would have captured them
 * interleaved), and wire events in the feed, which holds REORDER_WINDOW of
 * them and retains none for a rebuild. Input whose disorder is within the
 * window is ordered exactly as the panel orders a whole import; a record
 * later than that is applied where it comes and counted, as the panel's live
 * merge does once its list is past its bound.
 *
 * Pure (no Node API): the CLI feeds it from a stream, tests feed it directly.
 */
import { HAR_HOOK, HarCapture, type HarItem } from '../har/read.ts';
import { WireDecoder } from '../wire/decoder.ts';
import { SESSION_FORMAT, SESSION_VERSION, readClient, readEvent, short } from '../wire/session-file.ts';
import type { SessionModel } from '../model/session-model.ts';
import type { Timers } from '../model/timers.ts';
import { ModelFeed, comparePlaced, type Placed } from '../model/merge.ts';
import { sortedIndex } from '../sorted-index.ts';
import type { Finding } from '../model/model-types.ts';
import type { WireClient, WireEvent } from '../wire/wire.ts';
import type { CapturedClient, CapturedItem } from '../../capture/captured-items.ts';
import { Redactor } from '../redact/redactor.ts';
import { readRedactionInfo, readVerdicts, redactedFileFindings, type CarriedVerdicts, type RedactionInfo } from '../redact/carried.ts';

/**
 * Records held for reordering, per window. A session file is in time order
 * already (the panel's recorder keeps it so); a HAR is in order within each
 * entry, and one client's entries (polling, then its upgrade) follow each
 * other: only that per-client order changes findings.
 */
export const REORDER_WINDOW = 4_096;
/** Event locations remembered for findings raised later (a timeout cites its request): two generations of this many. */
const LOCATION_GENERATION = 20_000;

/** Where an event came from in the file. */
export interface Location {
  /** 0-based position of the record among the file's traffic records (session events, WebSocket messages, polling bodies), in file order. */
  index: number;
  /** JSON path of the record: `events[12]`, `log.entries[3]._webSocketMessages[17]`, `log.entries[5].response.content.text`. */
  path: string;
  /** 1-based line of the record in the file. */
  line: number;
}

export interface LintedFinding extends Finding {
  /** Where each of `events` is in the file, when known. */
  locations: Array<Location | null>;
}

export type InputKind = 'session' | 'har';

export interface LintReport {
  kind: InputKind;
  /** Wire events the model was fed. */
  events: number;
  clients: WireClient[];
  findings: LintedFinding[];
  /** Findings of the user's own injected or replayed requests, left out as the panel does by default. */
  experiments: number;
  /** Bounds and skips, each one line: nothing dropped silently. */
  notes: string[];
}

/** The input cannot be linted: one line saying why. */
export class InputError extends Error {}

/**
 * A HAR's captured items held for reordering by capture time, least first.
 * Input is nearly always in order already, so an item goes at the end after
 * one comparison; one that is not is put in its place by binary search.
 * Taking the least is reading the front. No two items compare equal (their
 * arrival number breaks ties), so they leave in the order a priority queue
 * would give.
 */
class ItemWindow {
  private a: Array<QueuedItem | undefined> = [];
  private head = 0;
  get size(): number {
    return this.a.length - this.head;
  }
  push(v: QueuedItem): void {
    const a = this.a;
    const n = a.length;
    if (n === this.head || !itemLess(v, a[n - 1]!)) {
      a.push(v);
      return;
    }
    // The first held item v sorts before (there is one: the last).
    a.splice(sortedIndex(a, v, itemNotAfter, this.head, n - 1), 0, v);
  }
  pop(): QueuedItem | undefined {
    const a = this.a;
    if (this.head >= a.length) return undefined;
    const v = a[this.head]!;
    a[this.head++] = undefined;
    if (this.head === a.length) {
      a.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= a.length) {
      // Dropping the taken front now and then: a copy of what is held, at most once per as many items taken.
      this.a = a.slice(this.head);
      this.head = 0;
    }
    return v;
  }
}

/** What a record's JSON path is, by the kind of record. */
const enum At {
  Event,
  Entry,
  WsMessage,
  OuiMessage,
  PostData,
  Content,
}

/**
 * Where a record is, kept compact while its event waits and is remembered:
 * the JSON path is written only for a finding that cites it.
 */
class Place {
  constructor(
    readonly index: number,
    readonly line: number,
    readonly at: At,
    readonly entry: number,
    readonly j: number,
  ) {}

  location(): Location {
    return { index: this.index, path: this.path(), line: this.line };
  }

  private path(): string {
    switch (this.at) {
      case At.Event:
        return `events[${this.index}]`;
      case At.Entry:
        return `log.entries[${this.entry}]`;
      case At.WsMessage:
        return `log.entries[${this.entry}]._webSocketMessages[${this.j}]`;
      case At.OuiMessage:
        return `log.entries[${this.entry}]._ouiMessages[${this.j}]`;
      case At.PostData:
        return `log.entries[${this.entry}].request.postData.text`;
      case At.Content:
        return `log.entries[${this.entry}].response.content.text`;
    }
  }
}

interface QueuedItem {
  item: HarItem;
  loc: Place;
  n: number;
}

const itemLess = (x: QueuedItem, y: QueuedItem): boolean => x.item.t < y.item.t || (x.item.t === y.item.t && x.n < y.n);
/** Only ever compared with `v` in the window's search, whose elements are all set. */
const itemNotAfter = (held: QueuedItem | undefined, v: QueuedItem): boolean => !itemLess(v, held!);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface EngineOptions {
  specVersion?: string;
  /** The timers the app's parties run with (§7.5, §7.3.7); the spec's defaults for what is not set. */
  timers?: Partial<Timers>;
  /** Records held for reordering (default REORDER_WINDOW). */
  window?: number;
  /** Called with each wire event as the model takes it, in the order it does. */
  onApply?: (ev: WireEvent) => void;
}

export class LintEngine {
  kind?: InputKind;
  private readonly feed: ModelFeed;
  private readonly window: number;
  private readonly clients = new Map<string, WireClient>();
  /** The clients' keys, as readEvent asks for them. */
  private readonly clientKeys = { has: (k: string) => this.clients.has(k) } as Set<string>;
  private locations = new Map<string, Place>();
  private oldLocations = new Map<string, Place>();
  /** Per client, the last event applied: an event of the same client that sorts before it came too late to be ordered. */
  private readonly lastOfClient = new Map<string, Placed>();
  private readonly located = new Map<string, Array<Location | null>>();
  private lastFindingSeq = 0;
  private lastFinding: Finding | undefined;
  private records = 0;
  private fed = 0;
  private outOfOrder = 0;
  private readonly notes: string[] = [];
  // session file
  private format: unknown;
  private version: unknown;
  private skipped = 0;
  private readonly problems: string[] = [];
  private readonly unknownClient: Array<{ raw: unknown; index: number; line: number }> = [];
  private sessionEvents = 0;
  // HAR
  private har?: HarCapture;
  private decoder?: WireDecoder;
  private readonly added = new Set<string>();
  private readonly seqs = new Map<string, number>();
  private itemN = 0;
  private readonly items = new ItemWindow();
  /** Where each event the feed holds is in the file, until the model takes it. */
  private readonly waiting = new Map<WireEvent, Place>();
  private harEntries = false;
  private readonly onApply: ((ev: WireEvent) => void) | undefined;
  /**
   * Learns the recording's secrets as events are applied (the panel's rules,
   * src/session/redact), so that no message the linter prints echoes one:
   * a schema verdict or an unknown id can quote a value.
   */
  private readonly secrets = new Redactor({ noList: true });
  private readonly seenClients = new Set<string>();
  /** What a redacted file carries: its redaction list and the verdicts judged before redaction. */
  private redaction?: RedactionInfo;
  private verdicts?: CarriedVerdicts;
  /** A redacted HAR's records with redacted values (by path), and the events decoded from them. */
  private redactedRecords?: Set<string>;
  private readonly redactedEvents = new Set<string>();

  constructor(opts: EngineOptions = {}) {
    this.window = Math.max(1, opts.window ?? REORDER_WINDOW);
    this.onApply = opts.onApply;
    this.feed = new ModelFeed((key) => this.clients.get(key), {
      model: { ...(opts.specVersion ? { specVersion: opts.specVersion } : {}), ...(opts.timers ? { timers: opts.timers } : {}) },
      hold: this.window,
      maxEvents: 0,
      onApply: (p, client) => this.applied(p, client),
    });
  }

  /** The model being fed: the feed retains nothing to rebuild from, so it stays this one. */
  get model(): SessionModel {
    return this.feed.model;
  }

  private setKind(kind: InputKind): void {
    if (this.kind && this.kind !== kind) throw new InputError('the file mixes a session ("format", "events") and a HAR ("log")');
    this.kind = kind;
  }

  // -- session file -----------------------------------------------------------

  /** A top-level member of the file (`format`, `version`, `exportedAt`, …) as parsed JSON. */
  top(key: string, value: unknown): void {
    if (key === 'format') {
      this.setKind('session');
      this.format = value;
      if (value !== SESSION_FORMAT) throw new InputError(`not an OUI DevTools session: its format is ${short(value)} (format must be "${SESSION_FORMAT}")`);
    } else if (key === 'version') {
      this.version = value;
      if (this.kind === 'session' || this.format === undefined) this.checkVersion();
    } else if (key === 'redaction') this.redaction = readRedactionInfo(value);
    else if (key === 'verdicts') this.verdicts = readVerdicts(value);
  }

  private checkVersion(): void {
    if (this.version === SESSION_VERSION || this.kind !== 'session') return;
    const newer = typeof this.version === 'number' && this.version > SESSION_VERSION;
    throw new InputError(
      `unsupported version ${short(this.version, 20)}; this linter reads version ${SESSION_VERSION}${newer ? ' (the file was written by a newer OUI DevTools: update oui-devtools)' : ''}`,
    );
  }

  sessionClient(raw: unknown, index: number): void {
    this.setKind('session');
    const c = readClient(raw);
    if (!c.ok) return this.skip(`client ${index + 1}: ${c.why}`);
    if (!this.clients.has(c.value.key)) this.clients.set(c.value.key, c.value);
  }

  sessionEvent(raw: unknown, index: number, line: number): void {
    this.setKind('session');
    this.sessionEvents++;
    const clientKey = isObj(raw) ? raw.client : undefined;
    // A file that lists its events before its clients: held until the clients are read.
    if (typeof clientKey === 'string' && !this.clients.has(clientKey) && this.unknownClient.length < 200_000) {
      this.unknownClient.push({ raw, index, line });
      return;
    }
    this.readSessionEvent(raw, index, line);
  }

  private readSessionEvent(raw: unknown, index: number, line: number): void {
    const ev = readEvent(raw, this.clientKeys);
    if (!ev.ok) return this.skip(`event ${index + 1}: ${ev.why}`);
    this.records++;
    this.queueWire(this.lean(ev.value), new Place(index, line, At.Event, -1, -1));
  }

  /**
   * An event read from the file, as it waits for its turn: without the raw
   * frame text (the model never reads it; the panel's raw view does), and
   * naming its client by the client record's own key string rather than a
   * copy per event.
   */
  private lean(ev: WireEvent): WireEvent {
    if (ev.raw !== undefined) ev.raw = undefined;
    const client = this.clients.get(ev.client);
    if (client) ev.client = client.key;
    return ev;
  }

  private skip(why: string): void {
    this.skipped++;
    if (this.problems.length < 5) this.problems.push(why);
  }

  // -- HAR ----------------------------------------------------------------------

  /** A member of `log` other than its entries. */
  log(key: string, value: unknown): void {
    this.setKind('har');
    if (key === 'entries') throw new InputError('not a HAR file: log.entries is not an array');
    if (key === '_ouiRedaction') {
      this.redaction = readRedactionInfo(value);
      this.redactedRecords = new Set(this.redaction?.redacted.flatMap((r) => (r.record !== undefined ? [r.record] : [])));
    }
    else if (key === '_ouiVerdicts') this.verdicts = readVerdicts(value);
  }

  private capture(): HarCapture {
    this.setKind('har');
    this.harEntries = true;
    if (!this.har) {
      this.har = new HarCapture();
      this.decoder = new WireDecoder((c) => this.clients.set(c.key, c));
    }
    return this.har;
  }

  /** An entry's members up to its message list. */
  harHead(index: number, entry: Obj, line: number, list: string): void {
    const har = this.capture();
    if (list === '_webSocketMessages') this.queueItems(har.head(index, entry), new Place(-1, line, At.Entry, index, -1));
    else if (isObj(entry._ouiClient)) this.ouiClient(entry._ouiClient, index);
  }

  /** One element of an entry's message list. */
  harMessage(index: number, j: number, raw: unknown, line: number, list: string): void {
    const har = this.capture();
    if (list === '_ouiMessages') {
      // Wire events of a client HAR has no record for (our own export): read as a session file's events.
      const ev = readEvent(raw, this.clientKeys);
      if (!ev.ok) return this.skip(`log.entries[${index}]._ouiMessages[${j}]: ${ev.why}`);
      this.records++;
      this.queueWire(this.lean(ev.value), new Place(this.records - 1, line, At.OuiMessage, index, j));
      return;
    }
    const loc = new Place(this.records++, line, At.WsMessage, index, j);
    this.queueItems(har.message(index, j, raw), loc);
  }

  /** The entry once complete (without its message lists). */
  harEnd(index: number, entry: Obj, line: number): void {
    const har = this.capture();
    if (isObj(entry._ouiClient)) this.ouiClient(entry._ouiClient, index);
    const items = har.end(index, entry);
    for (const item of items) {
      const body = item.kind === 'frame' && item.url !== undefined;
      const at = body ? (item.dir === 'out' ? At.PostData : At.Content) : At.Entry;
      this.queueItems([item], new Place(body ? this.records++ : -1, line, at, index, -1));
    }
  }

  private ouiClient(raw: unknown, index: number): void {
    const c = readClient(raw);
    if (!c.ok) return this.skip(`log.entries[${index}]._ouiClient: ${c.why}`);
    if (!this.clients.has(c.value.key)) this.clients.set(c.value.key, c.value);
  }

  private queueItems(items: HarItem[], loc: Place): void {
    for (const item of items) {
      const q: QueuedItem = { item, loc, n: this.itemN++ };
      this.items.push(q);
      if (this.items.size > this.window) this.decode(this.items.pop()!);
    }
  }

  /** A captured item in time order: numbered per client as the hook numbers them, then decoded. */
  private decode(q: QueuedItem): void {
    const har = this.har!;
    const decoder = this.decoder!;
    const id = q.item.client;
    if (!this.added.has(id)) {
      const info = har.clients.get(id) as CapturedClient;
      decoder.addClient(info, HAR_HOOK, 0);
      this.added.add(id);
    }
    const seq = (this.seqs.get(id) ?? 0) + 1;
    this.seqs.set(id, seq);
    // The item is the engine's own (HarCapture made it for this queue): numbered in place.
    const item = q.item as CapturedItem;
    item.seq = seq;
    for (const ev of decoder.push(item)) {
      // The model never reads the raw frame text (the panel's raw view does): not kept while the event waits.
      if (ev.raw !== undefined) ev.raw = undefined;
      this.queueWire(ev, q.loc.index >= 0 ? q.loc : null);
    }
  }

  // -- the model ------------------------------------------------------------------

  private queueWire(ev: WireEvent, loc: Place | null): void {
    if (loc) this.waiting.set(ev, loc);
    this.feed.add([ev], 0);
  }

  /** The model took `p` (its client's, when the file names it). */
  private applied(p: Placed, client: WireClient | undefined): void {
    const last = this.lastOfClient.get(p.ev.client);
    if (last && comparePlaced(p, last) < 0) this.outOfOrder++;
    else this.lastOfClient.set(p.ev.client, p);
    const loc = this.waiting.get(p.ev);
    if (loc) {
      this.waiting.delete(p.ev);
      if (this.locations.size >= LOCATION_GENERATION) {
        this.oldLocations = this.locations;
        this.locations = new Map();
      }
      this.locations.set(p.ev.id, loc);
      if (this.redactedRecords?.size && this.redactedRecords.has(loc.location().path)) this.redactedEvents.add(p.ev.id);
    }
    this.onApply?.(p.ev);
    if (client && !this.seenClients.has(client.key)) {
      this.seenClients.add(client.key);
      this.secrets.client(client);
    }
    if (p.ev.payload !== undefined) this.secrets.event(p.ev);
    if (!client) return;
    this.fed++;
    this.noteFindings();
  }

  private locationOf(id: string): Location | null {
    return (this.locations.get(id) ?? this.oldLocations.get(id))?.location() ?? null;
  }

  /** Findings raised since the last look: their events' places in the file, while they are remembered. */
  private noteFindings(): void {
    const list = this.model.findings;
    // New findings go at the end: the same last finding as at the last look means none came.
    const last = list.length ? list[list.length - 1] : undefined;
    if (last === this.lastFinding) return;
    this.lastFinding = last;
    for (let i = list.length - 1; i >= 0; i--) {
      const f = list[i]!;
      const seq = Number(f.id.slice(1));
      if (seq <= this.lastFindingSeq) break;
      this.located.set(f.id, f.events.map((id) => this.locationOf(id)));
    }
    const newest = list.at(-1);
    if (newest) this.lastFindingSeq = Math.max(this.lastFindingSeq, Number(newest.id.slice(1)));
  }

  /** The end of the input: drain, tick at the last event, finish, and report. */
  finish(): LintReport {
    if (!this.kind) throw new InputError('not a HAR or session file (no log.entries, no format)');
    if (this.kind === 'session') {
      if (this.format === undefined) throw new InputError(`not an OUI DevTools session: the file is JSON without a "format" (format must be "${SESSION_FORMAT}")`);
      this.checkVersion();
      for (const e of this.unknownClient.splice(0)) this.readSessionEvent(e.raw, e.index, e.line);
    } else if (!this.harEntries) throw new InputError('not a HAR file: no log.entries');
    while (this.items.size) this.decode(this.items.pop()!);
    // Applies what is held, ticks at the last capture time, and judges what is still missing.
    this.feed.finish();
    this.noteFindings();
    if (this.kind === 'session') {
      const total = this.sessionEvents;
      if (!this.records) throw new InputError(total ? `none of its ${total} events could be read (${this.problems[0] ?? ''})` : 'the session holds no events');
    } else {
      const c = this.har!.counts;
      if (!c.websockets && !c.polling && !this.records)
        throw new InputError(
          `no OUI traffic: ${c.entries} ${c.entries === 1 ? 'entry' : 'entries'}, none a WebSocket or Engine.IO long-polling exchange (export the HAR with its WebSocket messages: Chrome DevTools → Network → "Export HAR (with content)")`,
        );
      this.skipped += c.skipped;
      this.problems.push(...this.har!.problems);
    }
    return this.report();
  }

  private report(): LintReport {
    const notes = this.notes;
    if (this.skipped) notes.push(`${this.skipped} ${this.skipped === 1 ? 'record' : 'records'} skipped (${this.problems[0] ?? ''}${this.skipped > 1 ? ', …' : ''})`);
    if (this.outOfOrder) notes.push(`${this.outOfOrder} events of a client more than ${this.window} records out of time order in the file: applied where they came`);
    const m = this.model;
    if (m.findingsDropped) notes.push(`${m.findingsDropped} older findings dropped (the model keeps ${m.findings.length})`);
    if (m.clientsDropped) notes.push(`${m.clientsDropped} events of clients past the model's client limit not checked`);
    if (m.internalErrors) notes.push(`${m.internalErrors} events the model failed on (a bug of OUI DevTools, not of the traffic): ${m.lastInternalError ?? ''}`);
    const dropped: Record<string, number> = {};
    for (const c of m.clients.values()) for (const [k, n] of Object.entries(c.dropped)) dropped[k] = (dropped[k] ?? 0) + n;
    const parts = Object.entries(dropped).filter(([, n]) => n > 0);
    if (parts.length) notes.push(`bounded lists dropped their oldest entries: ${parts.map(([k, n]) => `${k} ${n}`).join(', ')}`);
    let experiments = 0;
    const findings: LintedFinding[] = [];
    const scrub = (f: Finding): Finding => {
      const message = this.secrets.scrub(f.message);
      // A HAR's client key holds its URL (and a ?token=… in it).
      const client = this.secrets.scrub(f.client);
      return message === f.message && client === f.client ? f : { ...f, message, client };
    };
    const { findings: judged, note } = redactedFileFindings(m.findings, this.redaction, this.verdicts, this.redactedEvents);
    if (note) notes.push(note);
    for (const f of judged) {
      if (f.experiment) {
        experiments++;
        continue;
      }
      findings.push({ ...scrub(f), locations: this.located.get(f.id) ?? f.events.map((id) => this.locationOf(id)) });
    }
    // Labels (URLs with ?token=…) and notes (a skipped record quoted) are scrubbed as messages are.
    const clients = [...this.clients.values()].map((c) => {
      const out = this.secrets.client(c);
      const key = this.secrets.scrub(out.key);
      return key === out.key ? out : { ...out, key };
    });
    return { kind: this.kind!, events: this.fed, clients, findings, experiments, notes: notes.map((n) => this.secrets.scrub(n)) };
  }
}

