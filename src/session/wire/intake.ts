/**
 * The panel's side of the capture line: accepts batches from any number of
 * hooks (frames, reloads), drops what it already has, counts what never
 * arrived, and keeps the cursors a reconnecting panel resumes from. Sequence
 * numbers are per hook client and gap-free at the source, so a gap is exactly
 * what the page's bounded buffer dropped before the panel read it.
 */
import { PROTOCOL } from '../../messages.ts';
import type { CapturedClient, CapturedItem, Cursors, DropCounts } from '../../capture/captured-items.ts';

export interface IntakeResult {
  /** A hook said where its frame sits in the tab. */
  frame?: { path: string; frameId: number };
  /** A hook speaks another capture protocol than this panel (an older hook after an extension update): its version, 0 when it names none. */
  otherProtocol?: number;
  clients: Array<{ hook: string; frameId: number; client: CapturedClient }>;
  items: CapturedItem[];
}

export class CaptureIntake {
  private last: Cursors = {};
  private knownClients = new Set<string>();
  /** Items that never reached the panel, per `${hook}/${client}`. */
  readonly lost: DropCounts = {};
  /**
   * Items the hook captured but the extension could not carry (a message
   * refused on the way), per `${hook}/${client}`: counted, never silent.
   */
  readonly undelivered: DropCounts = {};
  /** What each hook says it dropped, per `${hook}/${client}`. */
  readonly hookDrops: DropCounts = {};
  /**
   * What the hooks said this panel will never get (their `lost` reports, each
   * counted once), per `${hook}/${client}`: the items, their size, and the
   * last seq accounted. A client all of whose items were dropped leaves no
   * gap to count; this says it.
   */
  readonly reported = new Map<string, { items: number; size: number; through: number }>();
  /** The size of what could not be carried, as the hooks measured it (older hooks say none). */
  undeliveredSize = 0;
  duplicates = 0;

  cursors(): Cursors {
    return { ...this.last };
  }

  /** Items dropped by the pages' buffers before the panel read them: per client the gaps in its numbers, or the hook's count where it says more. */
  totalLost(): number {
    let n = 0;
    for (const k in this.lost) n += Math.max(this.lost[k]!, this.reported.get(k)?.items ?? 0);
    for (const [k, r] of this.reported) if (!Object.hasOwn(this.lost, k)) n += r.items;
    return n;
  }

  /** The size of the items the hooks report dropped before the panel read them (as `size` measures a frame). */
  totalLostSize(): number {
    let n = 0;
    for (const r of this.reported.values()) n += r.size;
    return n;
  }

  totalUndelivered(): number {
    let n = 0;
    for (const k in this.undelivered) n += this.undelivered[k]!;
    return n;
  }

  /** One hook's report of what this subscription will never get, counted once across resubscriptions. */
  private noteLost(hook: string, lost: unknown): void {
    if (!lost || typeof lost !== 'object') return;
    for (const [client, r] of Object.entries(lost as Record<string, unknown>)) {
      const { items, size, from, to } = (r ?? {}) as Record<string, unknown>;
      if (![items, size, from, to].every((x) => Number.isSafeInteger(x) && (x as number) >= 0) || (items as number) < 1 || (from as number) > (to as number)) continue;
      const key = `${hook}/${client}`;
      const known = this.reported.get(key) ?? { items: 0, size: 0, through: 0 };
      if ((to as number) <= known.through) continue;
      // A report that reaches back over seqs already counted (a resubscription from an older cursor): only the new part, its size by share.
      const span = (to as number) - (from as number) + 1;
      const fresh = (from as number) > known.through ? 1 : ((to as number) - known.through) / span;
      const n = Math.min(items as number, Math.round((items as number) * fresh));
      this.reported.set(key, { items: known.items + n, size: known.size + Math.round((size as number) * fresh), through: to as number });
    }
  }

  /** One message relayed from a frame's hook. Anything malformed is ignored: it came from a page. */
  accept(frameId: number, message: unknown): IntakeResult {
    const result: IntakeResult = { clients: [], items: [] };
    const m = message as { type?: unknown; items?: unknown; clients?: unknown; hook?: unknown; drops?: unknown } | null;
    if (!m || typeof m !== 'object') return result;
    if (m.type === 'state' && typeof m.hook === 'string' && m.drops && typeof m.drops === 'object') {
      for (const [client, n] of Object.entries(m.drops as Record<string, unknown>)) {
        if (typeof n === 'number' && n >= 0) this.hookDrops[`${m.hook}/${client}`] = n;
      }
      const v = (m as { v?: unknown }).v;
      if (v !== PROTOCOL) result.otherProtocol = typeof v === 'number' && Number.isInteger(v) ? v : 0;
      const path = (m as { path?: unknown }).path;
      if (typeof path === 'string' && /^top(\/-?\d+){0,64}$/.test(path)) result.frame = { path, frameId };
      this.noteLost(m.hook, (m as { lost?: unknown }).lost);
      return result;
    }
    if (m.type === 'skipped' && typeof m.hook === 'string') {
      // Advancing the cursor: a resubscription must not retry what cannot be carried, and the gap is not the buffer's.
      const through = (m as { through?: unknown }).through;
      if (!through || typeof through !== 'object') return result;
      let counted = false;
      for (const [client, seq] of Object.entries(through as Record<string, unknown>)) {
        if (!Number.isInteger(seq) || (seq as number) < 1) continue;
        const key = `${m.hook}/${client}`;
        const last = this.last[key] ?? 0;
        if ((seq as number) <= last) continue;
        this.undelivered[key] = (this.undelivered[key] ?? 0) + ((seq as number) - last);
        this.last[key] = seq as number;
        counted = true;
      }
      // Said once: a skip already counted (a replay of the same items) adds nothing.
      const size = (m as { size?: unknown }).size;
      if (counted && Number.isSafeInteger(size) && (size as number) > 0) this.undeliveredSize += size as number;
      return result;
    }
    if (m.type !== 'items' || !Array.isArray(m.items)) return result;
    if (Array.isArray(m.clients)) {
      for (const c of m.clients as CapturedClient[]) {
        if (!c || typeof c.id !== 'string' || typeof c.kind !== 'string') continue;
        const hook = m.hook;
        if (typeof hook !== 'string') continue;
        const key = `${hook}/${c.id}`;
        if (this.knownClients.has(key)) continue;
        this.knownClients.add(key);
        result.clients.push({ hook, frameId, client: c });
      }
    }
    for (const it of m.items as CapturedItem[]) {
      if (!it || typeof it.hook !== 'string' || typeof it.client !== 'string' || !Number.isInteger(it.seq) || it.seq < 1) continue;
      const key = `${it.hook}/${it.client}`;
      const last = this.last[key] ?? 0;
      if (it.seq <= last) {
        this.duplicates++;
        continue;
      }
      if (it.seq > last + 1) this.lost[key] = (this.lost[key] ?? 0) + (it.seq - last - 1);
      this.last[key] = it.seq;
      result.items.push(it);
    }
    return result;
  }
}
