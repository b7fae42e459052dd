/**
 * A HAR opened in the panel (dropped on it, as the Network panel takes one):
 * its entries become captured items exactly as the command-line linter reads
 * them (src/session/har/read.ts), the decoder turns those into wire events,
 * and the result is a session file, so the store's one import path judges it.
 * Untrusted input: nothing here throws on a malformed entry.
 */
import { HAR_HOOK, HarCapture, type HarItem } from '../src/session/har/read.ts';
import { WireDecoder } from '../src/session/wire/decoder.ts';
import { exportSession, parseSessionFile, readClient, readEvent, type SessionFile } from '../src/session/wire/session-file.ts';
import type { WireClient, WireEvent } from '../src/session/wire/wire.ts';
import type { CapturedItem } from '../src/capture/captured-items.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export type FileRead = { ok: true; file: SessionFile } | { ok: false; why: string };

/** The HAR in `doc` as a session; null when `doc` is no HAR (no `log`). */
export function harSession(doc: unknown): FileRead | null {
  if (!isObj(doc) || !isObj(doc.log)) return null;
  const entries = doc.log.entries;
  if (!Array.isArray(entries)) return { ok: false, why: 'not a HAR file: log.entries is not an array' };
  const har = new HarCapture();
  const clients = new Map<string, WireClient>();
  const decoder = new WireDecoder((c) => clients.set(c.key, c));
  const items: HarItem[] = [];
  // Clients our own HAR export writes for traffic HAR has no record of (postMessage, direct hook), with their events as they are.
  const own = new Map<string, WireClient>();
  const ownRaw: unknown[] = [];
  entries.forEach((e: unknown, i) => {
    if (!isObj(e)) return;
    if (isObj(e._ouiClient)) {
      const c = readClient(e._ouiClient);
      if (c.ok) own.set(c.value.key, c.value);
    }
    if (Array.isArray(e._ouiMessages)) ownRaw.push(...(e._ouiMessages as unknown[]));
    if (Array.isArray(e._webSocketMessages)) {
      items.push(...har.head(i, e));
      (e._webSocketMessages as unknown[]).forEach((m, j) => items.push(...har.message(i, j, m)));
    }
    items.push(...har.end(i, e));
  });
  // The decoder reads each client's items in capture order, numbered as the hook numbers them; sort is stable for equal times.
  items.sort((a, b) => a.t - b.t);
  const seqs = new Map<string, number>();
  const events: WireEvent[] = [];
  for (const item of items) {
    const info = har.clients.get(item.client);
    if (!info) continue;
    if (!seqs.has(item.client)) decoder.addClient(info, HAR_HOOK, 0);
    const seq = (seqs.get(item.client) ?? 0) + 1;
    seqs.set(item.client, seq);
    events.push(...decoder.push({ ...item, seq } as CapturedItem));
  }
  for (const c of own.values()) if (!clients.has(c.key)) clients.set(c.key, c);
  const keys = new Set(own.keys());
  for (const raw of ownRaw) {
    const ev = readEvent(raw, keys);
    if (ev.ok) events.push(ev.value);
  }
  if (!events.length) return { ok: false, why: `the HAR holds no OUI traffic (${har.counts.entries} entries, ${har.counts.websockets} WebSockets, ${har.counts.polling} polling requests)` };
  return { ok: true, file: exportSession(clients.values(), events) };
}

/** A session file or a HAR, by what the text holds; `har` says which it was. */
export function readDroppedFile(text: string): { ok: true; file: SessionFile; har: boolean } | { ok: false; why: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, why: `not JSON: ${(e as Error).message.slice(0, 120)}` };
  }
  const har = harSession(doc);
  if (har) return har.ok ? { ...har, har: true } : har;
  const r = parseSessionFile(text);
  return r.ok ? { ok: true, file: r.file, har: false } : { ok: false, why: r.error };
}

/**
 * Several files dropped at once are one session. A file met again (the same
 * clients and events) counts once; a file whose client keys or event ids
 * another file already uses (two recordings of the same page) keeps its own,
 * renamed, so neither file's traffic is lost or mixed into the other's.
 */
export function mergeSessions(files: SessionFile[]): SessionFile {
  const clients = new Map<string, WireClient>();
  const events = new Map<string, WireEvent>();
  files.forEach((f, k) => {
    const same = (ev: WireEvent) => {
      const had = events.get(ev.id);
      if (!had) return false;
      try {
        return JSON.stringify(had) === JSON.stringify(ev);
      } catch {
        // Too deep to write out: not known to be the same.
        return false;
      }
    };
    const seen = f.events.every(same) && f.clients.every((c) => clients.has(c.key));
    if (seen && k > 0) return;
    const clash = f.events.some((ev) => events.has(ev.id)) || f.clients.some((c) => clients.has(c.key));
    const key = (v: string) => (clash ? `${v}~${k + 1}` : v);
    const id = (v: string) => (clash ? `file${k + 1}:${v}` : v);
    for (const c of f.clients) {
      const renamed: WireClient = { ...c, key: key(c.key) };
      if (c.replaces !== undefined) renamed.replaces = key(c.replaces);
      clients.set(renamed.key, renamed);
    }
    for (const ev of f.events) {
      const renamed: WireEvent = clash ? { ...ev, id: id(ev.id), client: key(ev.client) } : ev;
      if (clash && ev.ackOf !== undefined) renamed.ackOf = id(ev.ackOf);
      events.set(renamed.id, renamed);
    }
  });
  const merged = exportSession(clients.values(), events.values());
  // One file keeps its own export date, which the import line names.
  if (files.length === 1) merged.exportedAt = files[0]!.exportedAt;
  return merged;
}
