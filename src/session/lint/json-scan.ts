/**
 * A streaming splitter for the two big JSON shapes the linter reads: it walks
 * the bytes once, never builds the whole document, and hands over the records
 * that matter as small JSON texts (parsed with the native JSON.parse, which is
 * far faster than a token-by-token parser):
 *
 *   session file: `format`, `version`, `exportedAt`, each of `clients[i]`, `events[i]`
 *   HAR 1.2:      `log.version`, `log.creator`, each `log.entries[i]` without its
 *                 `_webSocketMessages`, and each `_webSocketMessages[j]` on its own
 *                 (a long-lived WebSocket is one entry that may hold most of the file)
 *
 * Everything else is skipped structurally. Memory: one record at a time plus
 * the members of the current HAR entry. Lines are counted (outside strings) so
 * a finding can point at the line of its record.
 *
 * Pure: bytes in (Uint8Array chunks of any size, which the caller may
 * refill once write() returns: nothing of a chunk is kept but copies),
 * callbacks out.
 */

export interface ScanHandler {
  /** A member of the top-level object other than clients, events and log (parsed lazily by the handler). */
  top(key: string, text: string): void;
  /** `log.version`, `log.creator`, … (not entries). */
  log(key: string, text: string): void;
  record(array: 'clients' | 'events', index: number, text: string, line: number): void;
  /** A HAR entry reached `_webSocketMessages`: the members before it. */
  entryHead(index: number, members: Array<[string, string]>, line: number, list: MessageList): void;
  /** One element of an entry's `_webSocketMessages` (or of our own export's `_ouiMessages`). */
  wsMessage(entry: number, index: number, text: string, line: number, list: MessageList): void;
  /** The entry's members (without `_webSocketMessages`). */
  entryEnd(index: number, members: Array<[string, string]>, line: number): void;
}

export class ScanError extends Error {}

export type MessageList = '_webSocketMessages' | '_ouiMessages';
const LISTS = new Set<string>(['_webSocketMessages', '_ouiMessages']);

/** What a structural frame is: decides what its members / elements become. */
type Role = 'root' | 'log' | 'clients' | 'events' | 'entries' | 'entry' | 'messages';

interface Frame {
  kind: 'obj' | 'arr';
  role: Role;
  /** obj: 'key' | 'colon' | 'value' | 'comma'; arr: 'value' | 'comma' (value also allows `]` when empty). */
  expect: 'key' | 'colon' | 'value' | 'comma';
  key: string;
  index: number;
  /** Members kept for a HAR entry. */
  members?: Array<[string, string]>;
  line: number;
  /** A member/element was seen (for trailing-comma checks). */
  any: boolean;
}

const enum C {
  QUOTE = 0x22,
  BACKSLASH = 0x5c,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d,
  COMMA = 0x2c,
  COLON = 0x3a,
  NL = 0x0a,
  SPACE = 0x20,
  TAB = 0x09,
  CR = 0x0d,
}

/** Where a captured value goes when it is complete. */
type Sink = { to: 'top' | 'log'; key: string } | { to: 'record'; array: 'clients' | 'events'; index: number; line: number } | { to: 'member'; frame: Frame; key: string } | { to: 'message'; entry: number; index: number; line: number; list: MessageList } | { to: 'skip' };

const decoder = new TextDecoder('utf-8', { fatal: false });
/** Whole chunks, BOM kept (so that a chunk starting with one never lines up with its bytes, below). */
const chunkDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export class JsonScanner {
  private stack: Frame[] = [];
  /** Capturing or skipping one value: its nesting depth inside it, string state. */
  private value: { sink: Sink; depth: number; inStr: boolean; esc: boolean; parts: Uint8Array[]; scalar: boolean; started: boolean } | null = null;
  /** Reading a key: its bytes so far. */
  private keyParts: Uint8Array[] | null = null;
  private keyEsc = false;
  private done = false;
  private started = false;
  line = 1;
  /** Bytes consumed so far. */
  offset = 0;
  /**
   * The current chunk as text, when each of its bytes is one UTF-16 unit
   * (ASCII, as files nearly always are): a record inside it is then a slice of
   * it, not a decode of its own. Null when the chunk has other characters.
   */
  private chunkText: string | null = null;
  private chunkOf: Uint8Array | null = null;

  constructor(private readonly h: ScanHandler) {}

  write(chunk: Uint8Array): void {
    const n = chunk.length;
    let i = 0;
    // A caller may refill the same array: its text is decoded again.
    this.chunkOf = null;
    this.chunkText = null;
    // A UTF-8 byte-order mark at the very start.
    if (!this.started && this.offset === 0 && n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    while (i < n) {
      if (this.value) {
        i = this.scanValue(chunk, i);
        continue;
      }
      if (this.keyParts) {
        i = this.scanKey(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (c === C.SPACE || c === C.TAB || c === C.CR) {
        i++;
        continue;
      }
      if (c === C.NL) {
        this.line++;
        i++;
        continue;
      }
      i = this.structural(chunk, i, c);
    }
    this.offset += n;
  }

  end(): void {
    if (!this.started) throw new ScanError('empty input');
    if (this.value || this.keyParts || this.stack.length || !this.done) throw new ScanError(`truncated JSON (input ends inside ${this.where()})`);
  }

  private where(): string {
    const f = this.stack.at(-1);
    if (!f) return 'the top-level value';
    switch (f.role) {
      case 'events':
      case 'clients':
        return `${f.role}[${f.index}]`;
      case 'entries':
        return `log.entries[${f.index}]`;
      case 'messages':
        return `a _webSocketMessages list`;
      case 'entry':
        return `log.entries[${this.stack.at(-2)?.index ?? 0}]`;
      default:
        return f.role === 'root' ? 'the top-level object' : `"${f.role}"`;
    }
  }

  private fail(why: string): never {
    throw new ScanError(`invalid JSON at line ${this.line}: ${why}`);
  }

  private structural(buf: Uint8Array, i: number, c: number): number {
    const f = this.stack.at(-1);
    if (!f) {
      if (this.done) this.fail(`unexpected ${show(c)} after the top-level value`);
      this.started = true;
      if (c === C.LBRACE) {
        this.stack.push(frame('obj', 'root', this.line));
        return i + 1;
      }
      // A session or HAR is an object: say what this is instead.
      if (c === C.LBRACKET) throw new ScanError('the file is a JSON array, not an object');
      if (c === C.QUOTE || c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) throw new ScanError('the file is a single JSON value, not an object');
      throw new ScanError(`not JSON (it starts with ${show(c)})`);
    }
    if (f.kind === 'obj') {
      switch (f.expect) {
        case 'key':
          if (c === C.QUOTE) {
            this.keyParts = [];
            this.keyEsc = false;
            return i + 1;
          }
          if (c === C.RBRACE && !f.any) return this.close(f, i);
          return this.fail(`expected a member name, found ${show(c)}`);
        case 'colon':
          if (c !== C.COLON) this.fail(`expected ":" after "${f.key}", found ${show(c)}`);
          f.expect = 'value';
          return i + 1;
        case 'comma':
          if (c === C.COMMA) {
            f.expect = 'key';
            return i + 1;
          }
          if (c === C.RBRACE) return this.close(f, i);
          return this.fail(`expected "," or "}", found ${show(c)}`);
        case 'value':
          f.expect = 'comma';
          f.any = true;
          return this.startValue(f, buf, i, c);
      }
    }
    // array
    if (f.expect === 'comma') {
      if (c === C.COMMA) {
        f.expect = 'value';
        f.index++;
        return i + 1;
      }
      if (c === C.RBRACKET) return this.close(f, i);
      return this.fail(`expected "," or "]", found ${show(c)}`);
    }
    if (c === C.RBRACKET && !f.any) return this.close(f, i);
    f.expect = 'comma';
    f.any = true;
    return this.startValue(f, buf, i, c);
  }

  private close(f: Frame, i: number): number {
    this.stack.pop();
    if (f.role === 'entry') {
      const entries = this.stack.at(-1)!;
      this.h.entryEnd(entries.index, f.members ?? [], f.line);
    }
    if (!this.stack.length) this.done = true;
    return i + 1;
  }

  /** A value starts at buf[i] inside frame f: descend into it, capture it, or skip it. */
  private startValue(f: Frame, buf: Uint8Array, i: number, c: number): number {
    let descend: Role | null = null;
    let sink: Sink = { to: 'skip' };
    switch (f.role) {
      case 'root':
        if (f.key === 'log' && c === C.LBRACE) descend = 'log';
        else if ((f.key === 'clients' || f.key === 'events') && c === C.LBRACKET) descend = f.key;
        else sink = { to: 'top', key: f.key };
        break;
      case 'log':
        if (f.key === 'entries' && c === C.LBRACKET) descend = 'entries';
        else if (f.key !== 'pages') sink = { to: 'log', key: f.key };
        break;
      case 'clients':
      case 'events':
        sink = { to: 'record', array: f.role, index: f.index, line: this.line };
        break;
      case 'entries':
        if (c === C.LBRACE) descend = 'entry';
        else sink = { to: 'skip' };
        break;
      case 'entry':
        if (LISTS.has(f.key) && c === C.LBRACKET) {
          const entries = this.stack.at(-2)!;
          this.h.entryHead(entries.index, f.members ?? [], f.line, f.key as MessageList);
          descend = 'messages';
        } else sink = { to: 'member', frame: f, key: f.key };
        break;
      case 'messages':
        sink = { to: 'message', entry: this.stack.at(-3)!.index, index: f.index, line: this.line, list: f.key as MessageList };
        break;
    }
    if (descend) {
      const kind = c === C.LBRACE ? 'obj' : 'arr';
      const nf = frame(kind, descend, this.line);
      if (descend === 'entry') nf.members = [];
      if (descend === 'messages') nf.key = f.key;
      this.stack.push(nf);
      return i + 1;
    }
    this.value = { sink, depth: 0, inStr: false, esc: false, parts: [], scalar: false, started: false };
    return i;
  }

  /**
   * Scans a captured or skipped value from buf[i]; returns where it stopped.
   * One pass over the bytes in a tight loop: strings are mostly short, and a
   * call out (indexOf) per string costs more than reading their bytes here.
   */
  private scanValue(buf: Uint8Array, i: number): number {
    const v = this.value!;
    const keep = v.sink.to !== 'skip';
    const start = i;
    const n = buf.length;
    let { depth, inStr, esc } = v;
    if (!v.started) {
      const c = buf[i]!;
      v.started = true;
      if (c !== C.LBRACE && c !== C.LBRACKET && c !== C.QUOTE) v.scalar = true;
    }
    if (v.scalar) {
      // A number or literal ends at the first structural character or whitespace.
      while (i < n) {
        const c = buf[i]!;
        if (c === C.COMMA || c === C.RBRACE || c === C.RBRACKET || c === C.SPACE || c === C.NL || c === C.TAB || c === C.CR) {
          this.value = null;
          this.finishValueWith(v, keep ? buf : null, start, i);
          return i;
        }
        i++;
      }
      if (keep) v.parts.push(copyOf(buf, start, n));
      return n;
    }
    let line = this.line;
    while (i < n) {
      const c = buf[i]!;
      if (inStr) {
        // Inside a string only its end matters: a quote not escaped by a backslash (newlines here are not counted).
        if (esc) esc = false;
        else if (c === C.BACKSLASH) esc = true;
        else if (c === C.QUOTE) {
          inStr = false;
          if (depth === 0) {
            // A whole string value.
            this.line = line;
            this.value = null;
            this.finishValueWith(v, keep ? buf : null, start, i + 1);
            return i + 1;
          }
        }
        i++;
        continue;
      }
      switch (c) {
        case C.QUOTE:
          inStr = true;
          break;
        case C.LBRACE:
        case C.LBRACKET:
          depth++;
          break;
        case C.RBRACE:
        case C.RBRACKET:
          depth--;
          if (depth === 0) {
            this.line = line;
            this.value = null;
            this.finishValueWith(v, keep ? buf : null, start, i + 1);
            return i + 1;
          }
          if (depth < 0) {
            this.line = line;
            this.fail(`unexpected ${show(c)}`);
          }
          break;
        case C.NL:
          line++;
          break;
      }
      i++;
    }
    this.line = line;
    v.depth = depth;
    v.inStr = inStr;
    v.esc = esc;
    if (keep) v.parts.push(copyOf(buf, start, n));
    return n;
  }

  private finishValueWith(v: NonNullable<JsonScanner['value']>, buf: Uint8Array | null, start: number, end: number): void {
    const s = v.sink;
    if (s.to === 'skip' || !buf) return;
    const text = v.parts.length ? decoder.decode(concat([...v.parts, buf.subarray(start, end)])) : this.textOf(buf, start, end);
    switch (s.to) {
      case 'top':
        this.h.top(s.key, text);
        return;
      case 'log':
        this.h.log(s.key, text);
        return;
      case 'record':
        this.h.record(s.array, s.index, text, s.line);
        return;
      case 'member':
        s.frame.members!.push([s.key, text]);
        return;
      case 'message':
        this.h.wsMessage(s.entry, s.index, text, s.line, s.list);
        return;
    }
  }

  /**
   * The text of buf[start, end). A chunk whose decoded length equals its byte
   * length has only one-byte characters (every longer UTF-8 sequence, and
   * every invalid run of more than one byte, decodes to fewer units than it
   * has bytes), so its units line up with its bytes and the slice is what
   * decoding those bytes alone gives.
   */
  private textOf(buf: Uint8Array, start: number, end: number): string {
    if (this.chunkOf !== buf) {
      this.chunkOf = buf;
      const text = chunkDecoder.decode(buf);
      this.chunkText = text.length === buf.length ? text : null;
    }
    const text = this.chunkText;
    return text === null ? decoder.decode(buf.subarray(start, end)) : text.slice(start, end);
  }

  private scanKey(buf: Uint8Array, i: number): number {
    const start = i;
    const n = buf.length;
    let esc = this.keyEsc;
    while (i < n) {
      const c = buf[i]!;
      if (esc) esc = false;
      else if (c === C.BACKSLASH) esc = true;
      else if (c === C.QUOTE) {
        const parts = this.keyParts!;
        parts.push(buf.subarray(start, i));
        this.keyParts = null;
        const raw = decoder.decode(concat(parts));
        let key: string;
        try {
          key = JSON.parse(`"${raw}"`) as string;
        } catch {
          this.fail('bad member name');
        }
        const f = this.stack.at(-1)!;
        f.key = key;
        f.expect = 'colon';
        return i + 1;
      }
      i++;
    }
    this.keyEsc = esc;
    this.keyParts!.push(copyOf(buf, start, n));
    if (this.keyParts!.reduce((a, p) => a + p.length, 0) > 4096) this.fail('member name over 4096 bytes');
    return n;
  }
}

function frame(kind: 'obj' | 'arr', role: Role, line: number): Frame {
  return { kind, role, expect: kind === 'obj' ? 'key' : 'value', key: '', index: 0, line, any: false };
}

/**
 * A copy of buf[start, end): the caller may reuse its chunk once write()
 * returns (and a Node Buffer's slice() is a view, not a copy).
 */
function copyOf(buf: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(buf.subarray(start, end));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}


function show(c: number): string {
  return c >= 0x20 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `byte 0x${c.toString(16).padStart(2, '0')}`;
}
