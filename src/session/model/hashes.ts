/**
 * A result's surfacesHash (§7.3.4): reported against recomputed, which byte
 * variant a non-conformant client used, and whether `surfaces` had to be
 * sent. Recomputed from the surfaces the result carried; without them, from
 * the runtime's view: the set the client registered or reported under that
 * hash.
 */
import { SURFACES_HASH_PATTERN, surfacesHashVariants } from '../../protocol/index.ts';
import type { OUISurface } from '../../protocol/index.ts';
import { q, type EventContext } from './client-track.ts';
import { jsonEqual } from '../diff/json-equal.ts';
import type { HashRecord, HashVerdict } from './model-types.ts';

export interface HashCheck {
  verdict: HashVerdict;
  recomputed?: string;
  /** For a byte variant: the hash the spec's way. */
  expected?: string;
}

function variantsOf(surfaces: unknown): ReturnType<typeof surfacesHashVariants> | undefined {
  try {
    return surfacesHashVariants(surfaces);
  } catch {
    return undefined;
  }
}

function compare(reported: string, surfaces: unknown): HashCheck {
  const v = variantsOf(surfaces);
  if (!v) return { verdict: 'unverifiable' };
  if (reported === v.utf16) return { verdict: 'match', recomputed: v.utf16 };
  if (reported === v.utf8) return { verdict: 'utf8-variant', recomputed: v.utf16, expected: v.utf16 };
  if (reported === v.utf16le) return { verdict: 'utf16le-variant', recomputed: v.utf16, expected: v.utf16 };
  return { verdict: 'mismatch', recomputed: v.utf16 };
}

/**
 * The verdict on a reported hash. `held` is what the runtime holds under a
 * hash; `current` the client's mounted set as the inspector knows it, or
 * undefined when it does not.
 */
export function hashVerdict(
  reported: unknown,
  carried: unknown[] | undefined,
  held: (hash: string) => OUISurface[] | undefined,
  current: OUISurface[] | undefined,
  knownSurfaces?: string,
): HashCheck {
  if (reported === undefined) {
    const v = carried ? variantsOf(carried) : undefined;
    return { verdict: 'missing', ...(v ? { recomputed: v.utf16 } : {}) };
  }
  if (typeof reported !== 'string' || !SURFACES_HASH_PATTERN.test(reported)) {
    const v = carried ? variantsOf(carried) : undefined;
    return { verdict: 'bad-format', ...(v ? { recomputed: v.utf16 } : {}) };
  }
  if (carried) return compare(reported, carried);
  if (held(reported)) return { verdict: 'match', recomputed: reported };
  if (!current) return { verdict: 'unverifiable' };
  const check = compare(reported, current);
  // The runtime said it holds this set: a set the inspector never saw whole, so not a mismatch it can prove.
  if (check.verdict === 'mismatch' && reported === knownSurfaces) return { verdict: 'unverifiable', ...(check.recomputed ? { recomputed: check.recomputed } : {}) };
  return check;
}

const VARIANT_TEXT: Partial<Record<HashVerdict, string>> = {
  'utf8-variant': 'the client hashed UTF-8 bytes, not UTF-16 code units',
  'utf16le-variant': 'the client hashed UTF-16LE bytes (two steps per code unit), not UTF-16 code units',
};

/** Records the hash of one result and raises what it shows. Returns the verdict. */
export function checkResultHash(
  c: EventContext,
  r: Record<string, unknown>,
  requestId: string,
  knownSurfaces: string | undefined,
): HashRecord {
  const { track, ev } = c;
  // What the client hashed is what it sent, not the parser's copy with unusable members left out.
  const sent = sentResult(c, r);
  const carried = Array.isArray(sent.surfaces) ? sent.surfaces : undefined;
  const current = track.setComplete ? track.wireSurfaces() : undefined;
  const check = hashVerdict(sent.surfacesHash, carried, (h) => track.setsByHash.get(h), current, knownSurfaces);
  const record: HashRecord = {
    eventId: ev.id,
    t: ev.t,
    requestId,
    ...(typeof sent.surfacesHash === 'string' ? { reported: sent.surfacesHash } : {}),
    ...(check.recomputed ? { recomputed: check.recomputed } : {}),
    verdict: check.verdict,
    carriedSurfaces: carried !== undefined,
    ...(knownSurfaces !== undefined ? { knownSurfaces } : {}),
  };
  track.push('hashes', record);

  const raise = (rule: 'hash-missing' | 'hash-format' | 'hash-byte-variant' | 'hash-mismatch', subject: string, message: string, severity?: 'warning') =>
    track.log.raise({ rule, client: track.key, subject, message, events: [ev.id], t: ev.t, ...(severity ? { severity } : {}) });
  const rid = q(requestId);
  switch (check.verdict) {
    case 'missing':
      raise('hash-missing', 'client', `result for ${rid} carries no surfacesHash (a client MUST send it)`);
      break;
    case 'bad-format':
      raise('hash-format', 'client', `surfacesHash ${q(sent.surfacesHash)} of the result for ${rid} is not fnv1a64: and 16 lowercase hex digits`);
      break;
    case 'utf8-variant':
    case 'utf16le-variant':
      raise(
        'hash-byte-variant',
        check.verdict,
        `surfacesHash ${q(sent.surfacesHash)} of the result for ${rid} should be ${check.expected}: ${VARIANT_TEXT[check.verdict]}`,
      );
      break;
    case 'mismatch':
      if (carried) {
        raise('hash-mismatch', 'carried', `surfacesHash ${q(sent.surfacesHash)} of the result for ${rid} does not match the surfaces it carries (they hash to ${check.recomputed})`);
      } else {
        raise(
          'hash-mismatch',
          'held',
          `surfacesHash ${q(sent.surfacesHash)} of the result for ${rid} matches no surface set this client registered or reported (its mounted set hashes to ${check.recomputed})`,
          'warning',
        );
      }
      break;
  }
  return record;
}

/** The result as the client sent it, where the model has it; else the parser's copy. */
export function sentResult(c: EventContext, r: Record<string, unknown>): Record<string, unknown> {
  return c.raw ?? r;
}

/**
 * `surfaces` MUST be present when surfacesHash differs from what the runtime
 * holds: the request's knownSurfaces, or for an async result the hash of the
 * interim the runtime received before it.
 */
export function checkSurfacesPresent(
  c: EventContext,
  r: Record<string, unknown>,
  requestId: string,
  baseline: string[],
  baselineName: string,
): void {
  // Sent is present, usable or not: a malformed set is its own finding, not also a missing one.
  if (Object.hasOwn(sentResult(c, r), 'surfaces') || typeof r.surfacesHash !== 'string') return;
  const delivery = r.delivery as { omitted?: unknown } | undefined;
  if (delivery && Array.isArray(delivery.omitted) && delivery.omitted.includes('surfaces')) return;
  if (baseline.includes(r.surfacesHash)) return;
  const { track, ev } = c;
  const message = baseline.length
    ? `result for ${q(requestId)} has no surfaces although its surfacesHash ${r.surfacesHash} differs from ${baselineName} ${baseline[0]}`
    : `result for ${q(requestId)} has no surfaces although its request carried no knownSurfaces`;
  track.log.raise({ rule: 'surfaces-missing', client: track.key, subject: baseline.length ? 'differs' : 'no-known', message, events: [ev.id], t: ev.t });
}

/**
 * A result that reports, without `surfaces`, the hash of a set the client no
 * longer has: its hash is not of "the surfaces active on the client once the
 * action's effects settled" (§7.3.4), as after a navigation that registered
 * and deregistered surfaces while the result kept the old hash. Raised only
 * where the capture proves it, whatever order the client keeps its array in:
 * the inspector knows the client's whole set (it saw a result report it, or
 * the connection open), the reported hash is one it saw a set under, and that
 * set's content differs from the set mounted now. A client that says it
 * answered unsettled (`settled: false`) may still be changing.
 */
export function checkSettledHash(c: EventContext, r: Record<string, unknown>, requestId: string): void {
  const { track } = c;
  const sent = sentResult(c, r);
  const reported = sent.surfacesHash;
  if (typeof reported !== 'string' || Object.hasOwn(sent, 'surfaces') || sent.settled === false) return;
  if (!track.setComplete || track.setHashes.includes(reported)) return;
  const then = track.setsByHash.get(reported);
  const now = track.wireSurfaces();
  if (!then || sameContent(then, now)) return;
  track.log.raise({
    rule: 'hash-mismatch',
    client: track.key,
    subject: `stale@${c.ev.id}`,
    message: `surfacesHash ${q(reported)} of the result for ${q(requestId)} is the hash of surfaces the client had earlier (${idsOf(then)}), not of those it has now (${idsOf(now)}); a result reports the surfaces once the action's effects settled`,
    events: [c.ev.id],
    t: c.ev.t,
  });
}

function idsOf(surfaces: OUISurface[]): string {
  return surfaces.map((s) => s.id).join(', ') || 'none';
}

/** The same surfaces, in any order. */
function sameContent(a: OUISurface[], b: OUISurface[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(b.map((s) => [s.id, s]));
  return a.every((s) => byId.has(s.id) && (byId.get(s.id) === s || jsonEqual(byId.get(s.id), s)));
}
