/**
 * Single mutations of a conformant abstract session, one per normative
 * sentence that traffic can show. Each breaks exactly one sentence, by the
 * party named, and keeps everything else conformant (later traffic is fixed
 * up where the defect changes what a conformant peer would then do).
 */
import type { Rng } from './rng.ts';
import type { AbsClient, AbsSession, Ev, Obj, Tag } from './model.ts';
import { hasAcks } from './model.ts';
import { argsHash, surfacesHash, surfacesHashUtf8 } from './hashes.ts';
import { actionSpec, invalidParams, requiresApproval } from './surfaces.ts';

export interface Mutation {
  name: string;
  sentence: string;
  section: string;
  party: 'client' | 'runtime';
  expectRule?: string;
  /** Findings that are the unavoidable other face of the same defect (see README). */
  companions?: string[];
  apply(s: AbsSession, rng: Rng): AbsSession | null;
}

type ResultTag = Tag & { kind: 'result' };
type RequestTag = Tag & { kind: 'request' };

// ── helpers ─────────────────────────────────────────────────────────────────

const clone = (s: AbsSession): AbsSession => structuredClone(s);
const sorted = (c: AbsClient): Ev[] => [...c.events].sort((a, b) => a.t - b.t || a.id - b.id);
const isResult = (e: Ev): e is Ev & { tag: ResultTag } => e.tag?.kind === 'result';
const isRequest = (e: Ev): e is Ev & { tag: RequestTag } => e.tag?.kind === 'request';

function add(s: AbsSession, c: AbsClient, e: Omit<Ev, 'id'>): Ev {
  const ev: Ev = { ...e, id: s.nextId++, frozen: true };
  c.events.push(ev);
  return ev;
}
function remove(c: AbsClient, pred: (e: Ev) => boolean): void {
  c.events = c.events.filter((e) => !pred(e));
}
/** Candidate (client, event) pairs, shuffled. */
function candidates(s: AbsSession, rng: Rng, pred: (e: Ev, c: AbsClient) => boolean): Array<[AbsClient, Ev]> {
  const out: Array<[AbsClient, Ev]> = [];
  for (const c of s.clients) for (const e of c.events) if (pred(e, c)) out.push([c, e]);
  return rng.shuffle(out);
}
const resultsOf = (c: AbsClient, rid: string) => sorted(c).filter((e) => isResult(e) && e.tag.rid === rid) as Array<Ev & { tag: ResultTag }>;
const requestsOf = (c: AbsClient, rid: string) => sorted(c).filter((e) => isRequest(e) && e.tag.rid === rid) as Array<Ev & { tag: RequestTag }>;
const acksOf = (c: AbsClient, id: number) => c.events.filter((e) => e.kind === 'ack' && e.ackOf === id);
const receiptsOf = (c: AbsClient, rid: string) => c.events.filter((e) => e.tag?.kind === 'receipt' && e.tag.rid === rid);
/** Is there any event of the client strictly between two times? Used to leave room for an insertion. */
const free = (c: AbsClient, t: number) => !c.events.some((e) => Math.abs(e.t - t) < 0.05);
const connAt = (c: AbsClient, t: number) => [...c.events].filter((e) => e.t <= t).reduce((m, e) => Math.max(m, e.conn), 1);
/** Whole capture of this client (its connection was seen opening): absence of something means something. */
const complete = (c: AbsClient) => !c.lateStart;

/**
 * A result arrived (accepted) that left the runtime holding `newHash`
 * instead of `oldHash` (undefined: nothing): later requests that sent
 * `oldHash` as knownSurfaces send that instead, and their answers carry
 * surfaces when the hash they compare with now differs.
 */
function replaceKnown(c: AbsClient, fromT: number, oldHash: string, newHash: string | undefined): void {
  const changed = new Set<string>();
  for (const e of sorted(c)) {
    if (e.t <= fromT) continue;
    if (isResult(e) && e.payload.surfaces && !e.tag.lost && e.tag.copy === 'first' && !changed.has(e.tag.rid)) {
      const ack = acksOf(c, e.id)[0];
      if (!ack || ack.payload?.ok === true) break; // the runtime holds something else from here on
    }
    if (isRequest(e) && e.payload.knownSurfaces === oldHash && !e.frozen) {
      if (newHash === undefined) delete e.payload.knownSurfaces;
      else e.payload.knownSurfaces = newHash;
      changed.add(e.tag.rid);
    }
    if (isResult(e) && changed.has(e.tag.rid) && !e.frozen && (e.tag.phase !== 'final')) {
      e.tag.compareWith = newHash;
      if (!e.payload.surfaces && !e.payload.delivery && e.payload.surfacesHash !== newHash) e.payload.surfaces = structuredClone(e.tag.surfaces);
    }
  }
}

function firstAnswer(c: AbsClient, rid: string): (Ev & { tag: ResultTag }) | undefined {
  return resultsOf(c, rid).find((e) => e.tag.copy === 'first' && e.tag.phase !== 'final');
}

function newRid(rng: Rng): string {
  return rng.uuid();
}

/** A request (first copy) of a sync action that the client ran and answered, with its first answer. */
function syncRuns(s: AbsSession, rng: Rng, extra: (c: AbsClient, req: Ev & { tag: RequestTag }, ans: Ev & { tag: ResultTag }) => boolean = () => true) {
  const out: Array<{ c: AbsClient; req: Ev & { tag: RequestTag }; ans: Ev & { tag: ResultTag } }> = [];
  for (const [c, e] of candidates(s, rng, (e) => isRequest(e) && e.tag.copy === 0 && !e.tag.async)) {
    const req = e as Ev & { tag: RequestTag };
    const ans = firstAnswer(c, req.tag.rid);
    if (ans && !ans.tag.late && extra(c, req, ans)) out.push({ c, req, ans });
  }
  return out;
}

function repeatCopy(s: AbsSession, c: AbsClient, req: Ev & { tag: RequestTag }, t: number, wantsAck = false): Ev {
  const copies = requestsOf(c, req.tag.rid).length;
  return add(s, c, { t, conn: connAt(c, t), dir: 'in', kind: 'event', type: 'action:request', payload: structuredClone(req.payload), wantsAck, tag: { ...req.tag, copy: copies } });
}

function resultCopy(s: AbsSession, c: AbsClient, of: Ev & { tag: ResultTag }, t: number, patch?: (p: Obj) => void): Ev {
  const payload = structuredClone(of.payload);
  patch?.(payload);
  return add(s, c, { t, conn: connAt(c, t), dir: 'out', kind: 'event', type: 'action:result', payload, wantsAck: of.wantsAck, tag: { ...structuredClone(of.tag), copy: 'reanswer' } });
}

/** The last copy of an answer before time t, and whether it was acknowledged by then. */
function lastCopyBefore(c: AbsClient, rid: string, t: number) {
  const copies = resultsOf(c, rid).filter((e) => e.t < t && e.tag.phase !== 'final');
  const last = copies[copies.length - 1];
  if (!last) return undefined;
  const acked = copies.some((e) => acksOf(c, e.id).some((a) => a.t < t && a.payload?.ok === true));
  const ackAfter = copies.some((e) => acksOf(c, e.id).some((a) => a.t >= t));
  return { last, acked, ackAfter };
}

const noReceiptBefore = (c: AbsClient, rid: string, t: number) => !receiptsOf(c, rid).some((e) => e.t < t);

/**
 * The first sync answer that carried its surfaces, with its surfacesHash
 * replaced by `wrong(hash, answer)` (undefined: left out; null: no spot
 * here), and the runtime's later knownSurfaces following it, as a runtime
 * that took the answer in would.
 */
function rehashAnswer(s0: AbsSession, rng: Rng, wrong: (h: string, ans: Ev) => string | undefined | null, also: (ans: Ev) => boolean = () => true): AbsSession | null {
  const s = clone(s0);
  for (const { c, ans } of syncRuns(s, rng, (c, req, a) => !!a.payload.surfaces && also(a) && resultsOf(c, req.tag.rid).length === 1)) {
    const h: string = ans.payload.surfacesHash;
    const next = wrong(h, ans);
    if (next === null) continue;
    if (next === undefined) delete ans.payload.surfacesHash;
    else ans.payload.surfacesHash = next;
    ans.frozen = true;
    replaceKnown(c, ans.t, h, next);
    return s;
  }
  return null;
}

// ── the catalogue ───────────────────────────────────────────────────────────

const S737 = '§7.3.7';
/** §7.3.7's default re-answer interval: what an inspector not told the client's own judges by. */
const SPEC_REANSWER_MS = 8_000;
const APPROVALS = 'approvals (oui-spec 0.6.0)';

export const MUTATIONS: Mutation[] = [
  {
    name: 'repeat answered too soon',
    sentence: 'The client MUST NOT answer a repeat while the first answer is unacknowledged and was sent less than a re-answer interval ago (default 8 s).',
    section: S737,
    party: 'client',
    expectRule: 'repeat-answered-too-soon',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => resultsOf(c, req.tag.rid).length === 1 && requestsOf(c, req.tag.rid).length === 1)) {
        // A copy crossing the answer on the wire (sent before the runtime had it), answered at once.
        const t = ans.t + Math.min(3, c.latencyMs * 0.9);
        if (t >= req.tag.deadline || !noReceiptBefore(c, req.tag.rid, t)) continue;
        if (acksOf(c, ans.id).some((a) => a.t <= t + 2)) continue;
        repeatCopy(s, c, req, t);
        resultCopy(s, c, ans, t + 1);
        return s;
      }
      return null;
    },
  },
  {
    name: 'repeat answered after acknowledgment',
    sentence: 'It MUST NOT answer a repeat while the first answer is being worked out, or once the receiver acknowledged it.',
    section: S737,
    party: 'client',
    expectRule: 'repeat-answered-after-ack',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req) => requestsOf(c, req.tag.rid).length === 1)) {
        const copies = resultsOf(c, req.tag.rid);
        const okAck = copies.flatMap((e) => acksOf(c, e.id)).find((a) => a.payload?.ok === true);
        if (!okAck) continue;
        const last = copies[copies.length - 1]!;
        const t = Math.max(okAck.t + 50, last.t + c.reanswerMs + 200);
        if (t >= req.tag.deadline - 10 || !noReceiptBefore(c, req.tag.rid, t)) continue;
        repeatCopy(s, c, req, t);
        resultCopy(s, c, last, t + 2);
        return s;
      }
      return null;
    },
  },
  {
    name: 'repeat answered while the first answer is worked out',
    sentence: 'It MUST NOT answer a repeat while the first answer is being worked out, or once the receiver acknowledged it.',
    section: S737,
    party: 'client',
    expectRule: 'repeat-answered-in-flight',
    apply(s0, rng) {
      const s = clone(s0);
      // The first run's own answer must follow the second run's within a re-answer interval: a later one, unacknowledged,
      // reads on the wire exactly as a conformant re-answer after the interval (bullet 3), whichever run sent it.
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => ans.t - req.t > 1500 && ans.t - (req.t + 1002) < Math.min(c.reanswerMs, SPEC_REANSWER_MS) && requestsOf(c, req.tag.rid).length === 1 && resultsOf(c, req.tag.rid).length === 1)) {
        const t = req.t + 1000;
        if (!noReceiptBefore(c, req.tag.rid, t)) continue;
        repeatCopy(s, c, req, t);
        // Answered straight away by a second run, while the first run is still going.
        resultCopy(s, c, ans, t + 2, (p) => {
          p.timestamp = Math.floor(t + 2);
          delete p.durationMs;
        });
        const e = c.events[c.events.length - 1]!;
        (e.tag as ResultTag).copy = 'first';
        return s;
      }
      return null;
    },
  },
  {
    name: 'repeat re-run with another outcome',
    sentence: 'The client MUST run a request id once. … After that interval the answer may have been lost, and the client answers the repeat with the same result.',
    section: S737,
    party: 'client',
    expectRule: 'repeat-ran-twice',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isResult(e) && e.tag.copy === 'reanswer' && e.tag.phase === 'sync')) {
        e.frozen = true;
        if (e.payload.success) {
          e.payload.success = false;
          delete e.payload.data;
          e.payload.error = { code: 'EXECUTION_ERROR', message: 'failed on the second run' };
        } else {
          e.payload.success = true;
          delete e.payload.error;
          e.payload.data = { rerun: true };
        }
        void c;
        return s;
      }
      // No re-answer in this session: make one after a lost answer's interval.
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => requestsOf(c, req.tag.rid).length === 1 && resultsOf(c, req.tag.rid).length === 1 && acksOf(c, ans.id).length === 0)) {
        const t = ans.t + c.reanswerMs + 300;
        if (t >= req.tag.deadline - 10 || !noReceiptBefore(c, req.tag.rid, t)) continue;
        repeatCopy(s, c, req, t);
        resultCopy(s, c, ans, t + 2, (p) => {
          p.success = !p.success;
          if (p.success) (delete p.error, (p.data = { rerun: true }));
          else (delete p.data, (p.error = { code: 'EXECUTION_ERROR', message: 'second run failed' }));
        });
        return s;
      }
      return null;
    },
  },
  {
    name: 'second result without a repeat',
    sentence: 'Exactly one `action:result` MUST be sent for each `action:request` (for sync actions)',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'duplicate-result',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req) => requestsOf(c, req.tag.rid).length === 1 && resultsOf(c, req.tag.rid).length === 1)) {
        const t = ans.t + 2;
        if (!free(c, t)) continue;
        void req;
        resultCopy(s, c, ans, t, (p) => (p.timestamp = Math.floor(t)));
        return s;
      }
      return null;
    },
  },
  {
    name: 'single-use grant used twice',
    sentence: 'Its approval store issues a single-use grant when the user confirms … The surface runtime runs the action only when that matches a grant this tab received from the user\'s own confirmation.',
    section: APPROVALS,
    party: 'client',
    apply(s0, rng) {
      const s = clone(s0);
      for (const c of rng.shuffle([...s.clients])) {
        const ran = sorted(c).filter((e) => isRequest(e) && e.tag.copy === 0 && e.payload.approval && firstAnswer(c, e.tag.rid)?.payload.success === true) as Array<Ev & { tag: RequestTag }>;
        if (ran.length < 2) continue;
        const [a, b] = [ran[0]!, ran[1]!];
        const id = a.payload.approval.approvalId;
        for (const r of requestsOf(c, b.tag.rid)) {
          r.payload.approval.approvalId = id;
          r.frozen = true;
        }
        return s;
      }
      return null;
    },
  },
  {
    name: 'trimmed re-send changes data',
    sentence: "The action's own outcome — `success`, `error`, and `data` unless omitted — is still the one that happened (§7.3.6).",
    section: '§7.3.6',
    party: 'client',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => isResult(e) && e.tag.copy === 'trim1' && e.payload.data !== undefined)) {
        e.payload.data = { changed: 'after trimming' };
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'trimmed re-send changes success',
    sentence: "The action's outcome (`success`, `error`) is never trimmed.",
    section: '§7.3.6',
    party: 'client',
    expectRule: 'trim-changed-outcome',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => isResult(e) && (e.tag.copy === 'trim1' || e.tag.copy === 'trim2'))) {
        e.frozen = true;
        if (e.payload.success) {
          e.payload.success = false;
          delete e.payload.data;
          e.payload.error = { code: 'EXECUTION_ERROR', message: 'x' };
        } else {
          e.payload.success = true;
          delete e.payload.error;
        }
        return s;
      }
      return null;
    },
  },
  {
    name: 'result after navigation reports the old surfacesHash',
    sentence: 'The client MUST send `surfacesHash`. It is `fnv1a64:` followed by the 64-bit FNV-1a hash … of the surfaces\' JSON (the surfaces active on the client once the action\'s effects settled).',
    section: '§7.3.4',
    party: 'client',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e, c) => isResult(e) && e.tag.copy === 'first' && e.tag.phase === 'sync' && c.requests[e.tag.rid]?.nav === true)) {
        const known = requestsOf(c, (e.tag as ResultTag).rid)[0]?.payload.knownSurfaces as string | undefined;
        if (!known || known === e.payload.surfacesHash) continue;
        const newHash = e.payload.surfacesHash;
        e.payload.surfacesHash = known;
        delete e.payload.surfaces;
        e.frozen = true;
        for (const x of resultsOf(c, (e.tag as ResultTag).rid)) if (x !== e) ((x.payload.surfacesHash = known), delete x.payload.surfaces, (x.frozen = true));
        void newHash;
        return s;
      }
      return null;
    },
  },
  {
    name: 'async repeat starts a second job',
    sentence: 'The client MUST run a request id once.',
    section: S737,
    party: 'client',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isRequest(e) && e.tag.copy === 0 && e.tag.async)) {
        const req = e as Ev & { tag: RequestTag };
        const interim = resultsOf(c, req.tag.rid).find((x) => x.tag.phase === 'interim');
        if (!interim || interim.tag.late) continue;
        const t = interim.t + Math.min(3, c.latencyMs * 0.9);
        if (t >= req.tag.deadline || !noReceiptBefore(c, req.tag.rid, t) || requestsOf(c, req.tag.rid).length > 1) continue;
        repeatCopy(s, c, req, t);
        resultCopy(s, c, interim, t + 1, (p) => {
          p.data = { jobId: 'job-second-run' };
          p.timestamp = Math.floor(t + 1);
        });
        return s;
      }
      return null;
    },
  },
  {
    name: 'runtime retries after its timeout',
    sentence: 'The agent runtime MUST NOT retry automatically (retry policy is the agent\'s decision)',
    section: '§7.5',
    party: 'runtime',
    expectRule: 'retry-after-timeout',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isRequest(e) && e.tag.copy === 0)) {
        const req = e as Ev & { tag: RequestTag };
        const firstPhase = resultsOf(c, req.tag.rid).filter((x) => x.tag.phase !== 'final');
        const answered = firstPhase.some((x) => !x.tag.lost && !x.tag.late);
        if (answered) continue;
        // The timer fired: the runtime's copy well after it, with none of its own receipts held.
        const t = req.tag.deadline + 2000;
        const lastT = Math.max(...c.events.map((x) => x.t));
        if (t > lastT || receiptsOf(c, req.tag.rid).length) continue;
        if (firstPhase.some((x) => x.t > t - c.reanswerMs && x.t < t + 10)) continue;
        // Without acknowledgments, an answer the client sent in time reads on the wire as one the runtime got: a send after
        // the deadline then is no retry of a timed-out request, and nothing shows the answer was lost.
        if (!hasAcks(c.transport) && firstPhase.some((x) => x.t < t)) continue;
        repeatCopy(s, c, req, t);
        return s;
      }
      return null;
    },
  },
  {
    name: 'result without surfaces for a request without knownSurfaces',
    sentence: "The client MUST include `surfaces` when `surfacesHash` differs from the request's `knownSurfaces`, or the request carried none.",
    section: '§7.3.4',
    party: 'client',
    expectRule: 'surfaces-missing',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => !req.payload.knownSurfaces && !!ans.payload.surfaces && resultsOf(c, req.tag.rid).every((x) => x.tag.copy === 'first' || x.tag.copy === 'reanswer'))) {
        const h = ans.payload.surfacesHash;
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), delete x.payload.surfaces);
        replaceKnown(c, ans.t, h, undefined);
        return s;
      }
      return null;
    },
  },
  {
    name: 'wrong surfacesHash',
    sentence: 'It is `fnv1a64:` followed by the 64-bit FNV-1a hash, in 16 lowercase hex digits, of the surfaces\' JSON with every object\'s keys sorted, taken over its UTF-16 code units.',
    section: '§7.3.4',
    party: 'client',
    expectRule: 'hash-mismatch',
    apply: (s0, rng) => rehashAnswer(s0, rng, (h) => h.slice(0, -1) + (h.endsWith('0') ? '1' : '0')),
  },
  {
    name: 'surfacesHash over UTF-8 bytes',
    sentence: '… taken over its UTF-16 code units.',
    section: '§7.3.4',
    party: 'client',
    expectRule: 'hash-byte-variant',
    apply: (s0, rng) => rehashAnswer(s0, rng, (h, ans) => {
      const wrong = surfacesHashUtf8(ans.payload.surfaces);
      return wrong === h ? null : wrong;
    }),
  },
  {
    name: 'surfacesHash missing',
    sentence: 'The client MUST send `surfacesHash`.',
    section: '§7.3.4',
    party: 'client',
    expectRule: 'hash-missing',
    apply: (s0, rng) => rehashAnswer(s0, rng, () => undefined),
  },
  {
    name: 'surfacesHash in upper case',
    sentence: 'It is `fnv1a64:` followed by the 64-bit FNV-1a hash, in 16 lowercase hex digits',
    section: '§7.3.4',
    party: 'client',
    expectRule: 'hash-format',
    apply: (s0, rng) => rehashAnswer(s0, rng, (h) => `fnv1a64:${h.slice(8).toUpperCase()}`, (ans) => /[a-f]/.test(ans.payload.surfacesHash.slice(8))),
  },
  {
    name: 'success for a request to an unregistered surface',
    sentence: 'SURFACE_UNAVAILABLE: The target surface is not currently active (standard error codes); a surface that is not activated MUST NOT be presented to the agent as available.',
    section: '§4 Standard Error Codes',
    party: 'client',
    expectRule: 'unknown-target-accepted',
    companions: ['request-unknown-surface'],
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => complete(c) && ans.payload.success === true && !req.tag.approval && !req.tag.nav)) {
        for (const r of requestsOf(c, req.tag.rid)) ((r.payload.surfaceId = 'ghost-panel'), (r.frozen = true), ((r.tag as RequestTag).surfaceId = 'ghost-panel'));
        return s;
      }
      return null;
    },
  },
  {
    name: 'runtime requests a surface never registered (client refuses correctly)',
    sentence: 'The agent runtime MUST remove the surface\'s actions from the available tool set (§7.2); a surface that is not activated MUST NOT be presented to the agent as available.',
    section: '§7.2',
    party: 'runtime',
    expectRule: 'request-unknown-surface',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req) => complete(c) && !req.tag.approval && !req.tag.nav)) {
        for (const r of requestsOf(c, req.tag.rid)) ((r.payload.surfaceId = 'ghost-panel'), (r.frozen = true));
        for (const x of resultsOf(c, req.tag.rid)) {
          x.frozen = true;
          x.payload.success = false;
          delete x.payload.data;
          x.payload.error = { code: 'SURFACE_UNAVAILABLE', message: 'no such surface' };
        }
        return s;
      }
      return null;
    },
  },
  {
    name: 'success for params that violate the input schema',
    sentence: 'The agent runtime SHOULD validate `params` before sending; the surface MUST validate upon receipt',
    section: '§7.3.1',
    party: 'client',
    expectRule: 'params-invalid-accepted',
    companions: ['params-invalid'],
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => ans.payload.success === true && !req.tag.approval)) {
        const bad = invalidParams(rng, actionSpec(req.tag.surfaceId, req.tag.actionId).input, req.payload.params);
        if (!bad) continue;
        for (const r of requestsOf(c, req.tag.rid)) ((r.payload.params = structuredClone(bad)), (r.frozen = true));
        return s;
      }
      return null;
    },
  },
  {
    name: 'runtime sends params that violate the input (client refuses with VALIDATION_ERROR)',
    sentence: '`params` MUST conform to the action\'s declared `input` schema',
    section: '§7.3.1',
    party: 'runtime',
    expectRule: 'params-invalid',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req) => !req.tag.approval)) {
        const bad = invalidParams(rng, actionSpec(req.tag.surfaceId, req.tag.actionId).input, req.payload.params);
        if (!bad) continue;
        for (const r of requestsOf(c, req.tag.rid)) ((r.payload.params = structuredClone(bad)), (r.frozen = true));
        for (const x of resultsOf(c, req.tag.rid)) {
          x.frozen = true;
          x.payload.success = false;
          delete x.payload.data;
          x.payload.error = { code: 'VALIDATION_ERROR', message: 'params do not match the input' };
        }
        return s;
      }
      return null;
    },
  },
  {
    name: 'unapproved transaction ran',
    sentence: 'The surface runtime runs such an action only when this matches a grant the tab received from the user\'s own confirmation, for exactly `params`.',
    section: APPROVALS,
    party: 'client',
    expectRule: 'unapproved-run',
    companions: ['approval-missing'],
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => ans.payload.success === true && !!req.payload.approval && requiresApproval(actionSpec(req.tag.surfaceId, req.tag.actionId).effect, actionSpec(req.tag.surfaceId, req.tag.actionId).confirm))) {
        for (const r of requestsOf(c, req.tag.rid)) ((r.frozen = true), delete r.payload.approval);
        return s;
      }
      return null;
    },
  },
  {
    name: 'request for an approval action without approval (client denies)',
    sentence: 'Whether running an action needs the user\'s approval of the exact request: a `transaction` always, and a `write` declared destructive. … nothing waives these.',
    section: APPROVALS,
    party: 'runtime',
    expectRule: 'approval-missing',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req) => !!req.payload.approval && requiresApproval(actionSpec(req.tag.surfaceId, req.tag.actionId).effect, actionSpec(req.tag.surfaceId, req.tag.actionId).confirm))) {
        for (const r of requestsOf(c, req.tag.rid)) ((r.frozen = true), delete r.payload.approval);
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.success = false), delete x.payload.data, (x.payload.error = { code: 'ACTION_DENIED', message: 'no approval' }));
        return s;
      }
      return null;
    },
  },
  {
    name: 'approval argsHash of other params (client denies)',
    sentence: '`argsHash(params)` of the request the user approved.',
    section: APPROVALS,
    party: 'runtime',
    expectRule: 'approval-hash-mismatch',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req) => !!req.payload.approval)) {
        const other = argsHash({ ...req.payload.params, tampered: true });
        for (const r of requestsOf(c, req.tag.rid)) ((r.frozen = true), (r.payload.approval.argsHash = other));
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.success = false), delete x.payload.data, (x.payload.error = { code: 'ACTION_DENIED', message: 'approval does not match' }));
        return s;
      }
      return null;
    },
  },
  {
    name: 'receipt refusal with error instead of reason',
    sentence: 'It acknowledges with `{ "ok": true }`, or with `{ "ok": false, "reason" }` for a request it does not accept.',
    section: S737,
    party: 'client',
    expectRule: 'ack-shape',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => e.tag?.kind === 'receipt' && !e.tag.ok)) {
        e.payload = { ok: false, error: e.payload.reason };
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'receipt of another shape',
    sentence: 'It acknowledges with `{ "ok": true }`, or with `{ "ok": false, "reason" }` for a request it does not accept.',
    section: S737,
    party: 'client',
    expectRule: 'ack-shape',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => e.tag?.kind === 'receipt' && e.tag.ok)) {
        e.payload = { received: true };
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'result refusal without a reason',
    sentence: 'A receiver that refuses a result SHOULD acknowledge it as refused, with a reason (`{ "ok": false, "error": "<reason>" }` on a Socket.IO acknowledgment).',
    section: '§7.3.6',
    party: 'runtime',
    expectRule: 'result-ack-shape',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => e.tag?.kind === 'result-ack' && !e.tag.ok)) {
        e.payload = { ok: false };
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'no re-registration after reconnect',
    sentence: 'On reconnection, surfaces MUST re-register',
    section: '§7.6.1',
    party: 'client',
    expectRule: 'not-reregistered',
    companions: ['request-after-transport-loss', 'request-unknown-surface', 'unknown-target-accepted'],
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => e.tag?.kind === 'register' && e.tag.reason === 'reconnect')) {
        // A capture that starts late may show nothing of the lost connection but its close: nothing then says the new
        // connection replaces it, nor what it had registered.
        if (c.lateStart) continue;
        const sid = (e.tag as { surfaceId: string }).surfaceId;
        const later = sorted(c).find((x) => x.t > e.t && isRequest(x) && x.tag.surfaceId === sid && x.conn === e.conn);
        const reg = sorted(c).find((x) => x.t > e.t && x.tag?.kind === 'register' && x.tag.surfaceId === sid);
        if (!later || (reg && reg.t < later.t)) continue;
        remove(c, (x) => x === e);
        return s;
      }
      return null;
    },
  },
  {
    name: 'trimmed re-send leaves out data first',
    sentence: 'It first leaves out `surfaces` and `observations`, and then also `data`.',
    section: '§7.3.6',
    party: 'client',
    expectRule: 'trim-order',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isResult(e) && e.tag.copy === 'trim1' && e.payload.data !== undefined)) {
        const orig = resultsOf(c, (e.tag as ResultTag).rid).find((x) => x.tag.copy === 'first');
        if (!orig?.payload.surfaces) continue;
        const p = structuredClone(orig.payload);
        delete p.data;
        p.delivery = { trimmed: true, reason: e.payload.delivery.reason, omitted: ['data'] };
        e.payload = p;
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'trimmed re-send without delivery',
    sentence: 'A client whose result is refused MUST send it again, trimmed, with `delivery: { trimmed: true, reason, omitted }`.',
    section: '§7.3.6',
    party: 'client',
    expectRule: 'resend-unmarked',
    companions: ['surfaces-missing'],
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => isResult(e) && (e.tag.copy === 'trim1' || e.tag.copy === 'trim2'))) {
        delete e.payload.delivery;
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'refused result never sent again',
    sentence: 'A client whose result is refused MUST send it again, trimmed',
    section: '§7.3.6',
    party: 'client',
    expectRule: 'refused-not-resent',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => e.tag?.kind === 'result-ack' && !e.tag.ok)) {
        const rid = (e.tag as { rid: string }).rid;
        const trims = resultsOf(c, rid).filter((x) => x.t > e.t && (x.tag.copy === 'trim1' || x.tag.copy === 'trim2' || x.tag.copy === 'reanswer'));
        const ids = new Set(trims.map((x) => x.id));
        remove(c, (x) => ids.has(x.id) || (x.kind === 'ack' && x.ackOf !== undefined && ids.has(x.ackOf)));
        // Later copies of the request would now be answerable; drop them too (the runtime had its refusal, an answer).
        remove(c, (x) => isRequest(x) && x.tag.rid === rid && x.t > e.t);
        return s;
      }
      return null;
    },
  },
  {
    name: 'delivery.trimmed on a result nobody refused',
    sentence: 'Present when this answer was trimmed to be delivered (§7.3.6).',
    section: '§7.3.6',
    party: 'client',
    expectRule: 'trimmed-without-refusal',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => !!ans.payload.observations && resultsOf(c, req.tag.rid).length === 1)) {
        delete ans.payload.observations;
        ans.payload.delivery = { trimmed: true, reason: 'too large', omitted: ['observations'] };
        ans.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'delivery.omitted names a field that is still there',
    sentence: 'omitted: The fields left out of this answer.',
    section: '§7.3.6',
    party: 'client',
    expectRule: 'trim-shape',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => isResult(e) && e.tag.copy === 'trim1' && e.payload.data !== undefined)) {
        e.payload.delivery.omitted = [...e.payload.delivery.omitted, 'data'];
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'failure without error',
    sentence: 'If `success` is `false`, the `error` field MUST be present',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'error-missing',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => ans.payload.success === false)) {
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), delete x.payload.error);
        return s;
      }
      return null;
    },
  },
  {
    name: 'success with error',
    sentence: 'If `success` is `true`, the `error` field MUST NOT be present',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'error-with-success',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => ans.payload.success === true)) {
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.error = { code: 'EXECUTION_ERROR', message: 'odd' }));
        return s;
      }
      return null;
    },
  },
  {
    name: 'sync result marked interim',
    sentence: 'Exactly one `action:result` MUST be sent for each `action:request` (for sync actions); an async action\'s acknowledgment result MUST set `interim: true`',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'interim-on-sync',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng)) {
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.interim = true));
        return s;
      }
      return null;
    },
  },
  {
    name: 'async action without its interim acknowledgment',
    sentence: 'For async actions: one immediate acknowledgment result, then one final result (both with the same `requestId`)',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'async-no-interim',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isRequest(e) && e.tag.copy === 0 && e.tag.async)) {
        const rs = resultsOf(c, (e.tag as RequestTag).rid);
        const interims = rs.filter((x) => x.tag.phase === 'interim');
        if (!interims.length || !rs.some((x) => x.tag.phase === 'final')) continue;
        const ids = new Set(interims.map((x) => x.id));
        remove(c, (x) => ids.has(x.id) || (x.kind === 'ack' && x.ackOf !== undefined && ids.has(x.ackOf)));
        for (const f of rs.filter((x) => x.tag.phase === 'final')) {
          f.frozen = true;
          // A trimmed re-send left its surfaces out on purpose (§7.3.6): only the answers compared with knownSurfaces get them back.
          if (!f.payload.surfaces && !String(f.tag.copy).startsWith('trim')) f.payload.surfaces = structuredClone(f.tag.surfaces);
        }
        return s;
      }
      return null;
    },
  },
  {
    name: 'async final result without interim: false',
    sentence: "An async action's acknowledgment result MUST set `interim: true`; its final result MUST set `interim: false`",
    section: '§7.3.3',
    party: 'client',
    expectRule: 'async-final-interim-unset',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => isResult(e) && e.tag.phase === 'final' && e.tag.copy === 'first')) {
        for (const x of resultsOf(c, (e.tag as ResultTag).rid)) if (x.tag.phase === 'final') ((x.frozen = true), delete x.payload.interim);
        return s;
      }
      return null;
    },
  },
  {
    name: 'result for a request never sent',
    sentence: 'The `requestId` in the result MUST exactly match the request\'s `requestId`',
    section: '§7.3.3',
    party: 'client',
    expectRule: 'result-unknown-request',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c) => complete(c))) {
        const rid = newRid(rng);
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.requestId = rid));
        // The real request now got no answer: make it one the runtime timed out and stopped on.
        remove(c, (x) => isRequest(x) && x.tag.rid === req.tag.rid && x.tag.copy > 0);
        return s;
      }
      return null;
    },
  },
  // No mutation for answering a request refused on receipt: §7.3.7 forbids nothing there, and §7.3.3's
  // "Exactly one `action:result` MUST be sent for each `action:request`" asks for that answer
  // (docs/conformance.md, 7.3.7-c, the reading the rules take).
  {
    name: 'one requestId for two different requests',
    sentence: '`requestId` MUST be a globally unique string.',
    section: '§7.3.1',
    party: 'runtime',
    expectRule: 'request-id-reused',
    apply(s0, rng) {
      const s = clone(s0);
      for (const c of rng.shuffle([...s.clients])) {
        const runs = sorted(c).filter((e) => isRequest(e) && e.tag.copy === 0 && !e.tag.async && requestsOf(c, e.tag.rid).length === 1) as Array<Ev & { tag: RequestTag }>;
        for (let i = 0; i + 1 < runs.length; i++) {
          const a = runs[i]!;
          const b = runs[i + 1]!;
          const aLast = resultsOf(c, a.tag.rid).pop();
          if (!aLast || aLast.t > b.t || JSON.stringify(a.payload.params) === JSON.stringify(b.payload.params) && a.payload.actionId === b.payload.actionId) continue;
          // The client sees a copy of an answered id: it does not run or answer it (the first answer was acknowledged or is within the interval).
          const acked = resultsOf(c, a.tag.rid).some((x) => acksOf(c, x.id).some((k) => k.payload?.ok === true && k.t < b.t));
          if (!acked && b.t - aLast.t >= c.reanswerMs) continue;
          const bid = b.tag.rid;
          const drop = new Set(resultsOf(c, bid).map((x) => x.id));
          remove(c, (x) => drop.has(x.id) || (x.kind === 'ack' && x.ackOf !== undefined && drop.has(x.ackOf)) || (x.tag?.kind === 'receipt' && x.tag.rid === bid));
          b.payload.requestId = a.tag.rid;
          b.frozen = true;
          return s;
        }
      }
      return null;
    },
  },
  {
    name: 'request id not a UUID v4',
    sentence: '`requestId` MUST be a globally unique string. UUID v4 is RECOMMENDED.',
    section: '§7.3.1',
    party: 'runtime',
    expectRule: 'request-id-format',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng)) {
        const rid = `req-${rng.int(1, 1e6)}`;
        for (const r of requestsOf(c, req.tag.rid)) ((r.frozen = true), (r.payload.requestId = rid));
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.requestId = rid));
        return s;
      }
      return null;
    },
  },
  {
    name: 'runtime repeats although it holds a receipt',
    sentence: 'A sender that holds a receipt SHOULD wait for the answer rather than send the request again',
    section: S737,
    party: 'runtime',
    expectRule: 'resent-despite-receipt',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => requestsOf(c, req.tag.rid).length === 1)) {
        const rc = receiptsOf(c, req.tag.rid).find((x) => x.tag?.kind === 'receipt' && x.tag.ok);
        if (!rc || ans.t - rc.t < 400 + 2 * c.latencyMs) continue;
        repeatCopy(s, c, req, rc.t + 2 * c.latencyMs + 100);
        return s;
      }
      return null;
    },
  },
  {
    name: 'runtime repeats without backing off',
    sentence: 'and SHOULD back off between sends while it holds none.',
    section: S737,
    party: 'runtime',
    expectRule: 'resent-without-backoff',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req, ans } of syncRuns(s, rng, (c, req, ans) => ans.t - req.t > 2500 && requestsOf(c, req.tag.rid).length === 1 && receiptsOf(c, req.tag.rid).length === 0)) {
        for (let k = 1; k <= 4; k++) repeatCopy(s, c, req, req.t + k * 500);
        void ans;
        return s;
      }
      return null;
    },
  },
  // No mutation for knownSurfaces the runtime cannot hold: every generated client registers, and a runtime holds what
  // registrations gave it under that set's hash too (docs/conformance.md 7.3.4-j), so no trimmed answer names a hash
  // the runtime cannot hold. test/unit/session-rules.test.ts and conformance-review.test.ts cover the rule.
  {
    name: 'observation value off its schema',
    sentence: 'The `value` MUST conform to the observation\'s declared `schema`',
    section: '§7.4',
    party: 'client',
    expectRule: 'observation-invalid',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => e.tag?.kind === 'obs' && e.tag.freq === 'on-change')) {
        e.payload.value = { not: 'the schema' };
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'observation update for an undeclared observation',
    sentence: 'Observation IDs … MUST be unique within a single surface (an update names an observation its surface declares)',
    section: '§7.4',
    party: 'client',
    expectRule: 'observation-unknown',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [, e] of candidates(s, rng, (e) => e.tag?.kind === 'obs' && e.tag.freq === 'on-change')) {
        e.payload.observationId = 'no_such_observation';
        e.frozen = true;
        return s;
      }
      return null;
    },
  },
  {
    name: 'polling observation pushed',
    sentence: '`polling`: The agent runtime must explicitly request the value. The surface does not push updates proactively.',
    section: '§5.3.1',
    party: 'client',
    expectRule: 'polling-pushed',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => e.tag?.kind === 'obs-request')) {
        remove(c, (x) => x === e);
        return s;
      }
      return null;
    },
  },
  {
    name: 'on-change updates faster than 10 a second',
    sentence: 'Surfaces SHOULD batch rapid observation updates (e.g., debounce to max 10 updates/second for `on-change` observations)',
    section: '§7.4',
    party: 'client',
    expectRule: 'observation-rate',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e) => e.tag?.kind === 'obs' && e.tag.freq === 'on-change')) {
        for (let k = 1; k <= 20; k++) {
          const t = e.t + k * 20;
          add(s, c, { t, conn: e.conn, dir: 'out', kind: 'event', type: 'observation:update', payload: { ...structuredClone(e.payload), timestamp: e.payload.timestamp + k * 20 }, tag: structuredClone(e.tag!) });
        }
        // Keep later timestamps monotonic: nothing of this client within the burst window.
        if (c.events.some((x) => !x.frozen && x.t > e.t && x.t < e.t + 420)) continue;
        return s;
      }
      return null;
    },
  },
  {
    name: 'surface id not kebab-case',
    sentence: 'Surface IDs: MUST match the pattern `^[a-z][a-z0-9-]*[a-z0-9]$`',
    section: '§3.2',
    party: 'client',
    expectRule: 'surface-id',
    apply: (s0, rng) => renameSurface(s0, rng, 'Bad_Surface'),
  },
  {
    name: 'action id not snake_case',
    sentence: 'Action IDs: MUST match the pattern `^[a-z][a-z0-9_]*[a-z0-9]$`',
    section: '§4.2',
    party: 'client',
    expectRule: 'action-id',
    apply: (s0, rng) => editManifest(s0, rng, (m) => {
      const a = m.actions.find((x: Obj) => x.id === 'open_help' || x.id === 'list_items' || x.id === 'search_orders');
      if (!a) return false;
      a.id = 'Open-Help';
      return true;
    }),
  },
  {
    name: 'surface without actions',
    sentence: '`actions`: Array of actions available on this surface. MUST contain at least one action.',
    section: '§3.1',
    party: 'client',
    expectRule: 'surface-no-actions',
    apply: (s0, rng) => editManifest(s0, rng, (m) => ((m.actions = []), true), true),
  },
  {
    name: 'deregistration of a surface never registered',
    sentence: 'When a surface becomes inactive or is destroyed, it MUST send a `surface:deregister` event (of a surface it registered).',
    section: '§7.2',
    party: 'client',
    expectRule: 'deregister-unknown',
    apply(s0, rng) {
      const s = clone(s0);
      for (const [c, e] of candidates(s, rng, (e, c) => complete(c) && e.tag?.kind === 'deregister')) {
        const t = e.t + 0.1;
        add(s, c, { t, conn: e.conn, dir: 'out', kind: 'event', type: 'surface:deregister', payload: { surfaceId: 'never-there', timestamp: e.payload.timestamp }, tag: { kind: 'deregister', surfaceId: 'never-there' } });
        return s;
      }
      return null;
    },
  },
  {
    name: 'custom error code not namespaced',
    sentence: 'Custom codes SHOULD use a namespaced format (e.g., `app:quota_exceeded`).',
    section: '§4 Standard Error Codes',
    party: 'client',
    expectRule: 'error-code-namespace',
    apply(s0, rng) {
      const s = clone(s0);
      for (const { c, req } of syncRuns(s, rng, (c, req, ans) => ans.payload.success === false && ans.payload.error?.code === 'app:quota_exceeded')) {
        for (const x of resultsOf(c, req.tag.rid)) ((x.frozen = true), (x.payload.error.code = 'QUOTA_EXCEEDED'));
        return s;
      }
      return null;
    },
  },
];

/** Give one surface an invalid id everywhere it appears (registrations, results), hashes recomputed. */
function renameSurface(s0: AbsSession, rng: Rng, to: string): AbsSession | null {
  return editManifest(s0, rng, (m) => {
    if (m.id !== 'checkout-form' && m.id !== 'settings-panel') return false;
    const from = m.id;
    m.id = to;
    return from;
  });
}

/**
 * Edit the manifest of one surface of one client everywhere it appears, and
 * follow the change through: requests to it, observation updates, every
 * result's surfaces and surfacesHash, and knownSurfaces built from them.
 */
function editManifest(s0: AbsSession, rng: Rng, edit: (m: Obj) => boolean | string, registrationOnly = false): AbsSession | null {
  const s = clone(s0);
  for (const c of rng.shuffle([...s.clients])) {
    if (!complete(c)) continue;
    const regs = sorted(c).filter((e) => e.tag?.kind === 'register');
    for (const reg of rng.shuffle([...regs])) {
      const probe = structuredClone(reg.payload.surface);
      const res = edit(probe);
      if (res === false) continue;
      const oldId: string = reg.payload.surface.id;
      const newId: string = probe.id;
      const pristine: Obj[] = structuredClone(reg.payload.surface.actions);
      const renamedAction = pristine.find((a) => !(probe.actions as Obj[]).some((b: Obj) => b.id === a.id))?.id;
      const newAction = (probe.actions as Obj[]).find((b) => !pristine.some((a: Obj) => a.id === b.id))?.id;
      if (registrationOnly) {
        // Only the registration changes; the surface then has no action a request could reach.
        if (sorted(c).some((e) => isRequest(e) && e.tag.surfaceId === oldId)) continue;
        const ids = new Set(regs.filter((r) => r.payload.surface.id === oldId).map((r) => r.id));
        for (const e of c.events) if (ids.has(e.id)) ((edit(e.payload.surface)), (e.frozen = true));
        fixHashes(c);
        return s;
      }
      for (const e of c.events) {
        if (e.tag?.kind === 'register' && e.payload.surface.id === oldId) edit(e.payload.surface);
        if (e.tag?.kind === 'deregister' && e.payload.surfaceId === oldId) e.payload.surfaceId = newId;
        if ((e.tag?.kind === 'obs' || e.tag?.kind === 'obs-request') && e.payload.surfaceId === oldId) e.payload.surfaceId = newId;
        if (isRequest(e) && e.payload.surfaceId === oldId) {
          e.payload.surfaceId = newId;
          if (e.payload.actionId !== undefined && typeof res === 'boolean') {
            // an action renamed: the request for it follows (a runtime uses the registered id)
            const m = { ...probe };
            void m;
          }
        }
        if (isResult(e)) {
          for (const m of e.tag.surfaces) if (m.id === oldId) edit(m);
          if (e.payload.surfaces) for (const m of e.payload.surfaces) if (m.id === oldId) edit(m);
          if (e.payload.observations?.[oldId]) ((e.payload.observations[newId] = e.payload.observations[oldId]), newId !== oldId && delete e.payload.observations[oldId]);
        }
      }
      // Requests for a renamed action use the new id.
      if (renamedAction) {
        for (const e of c.events) if (isRequest(e) && e.payload.surfaceId === newId && e.payload.actionId === renamedAction) e.payload.actionId = newAction;
      }
      fixHashes(c);
      return s;
    }
  }
  return null;
}

/** Recompute every result's surfacesHash from its surfaces and map knownSurfaces through. */
function fixHashes(c: AbsClient): void {
  const map = new Map<string, string>();
  for (const e of c.events) {
    if (!isResult(e)) continue;
    const h = surfacesHash(e.tag.surfaces);
    if (e.payload.surfacesHash !== h) {
      map.set(e.payload.surfacesHash, h);
      e.payload.surfacesHash = h;
    }
    if (e.payload.surfaces) e.payload.surfaces = structuredClone(e.tag.surfaces);
  }
  for (const e of c.events) {
    if (isRequest(e) && e.payload.knownSurfaces && map.has(e.payload.knownSurfaces)) e.payload.knownSurfaces = map.get(e.payload.knownSurfaces);
    if (isResult(e) && e.tag.compareWith && map.has(e.tag.compareWith)) e.tag.compareWith = map.get(e.tag.compareWith);
  }
}

export { hasAcks };
