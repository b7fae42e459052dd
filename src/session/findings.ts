/**
 * The bounded, deduplicated list of findings. One cause is reported once:
 * the dedupe key is client + rule + subject (a request id, a surface id, an
 * observation…), so a client that repeats a mistake a thousand times shows
 * one finding, not a thousand.
 */
import type { Finding, Severity } from './model-types.ts';
import { ruleOf, type RuleId } from './rules.ts';

export interface RaiseInput {
  rule: RuleId;
  client: string;
  /** What the finding is about; with rule and client, its dedupe key. */
  subject: string;
  message: string;
  events: string[];
  t: number;
  /** Overrides the rule's severity (a parse problem carries its own). */
  severity?: Severity;
  section?: string;
}

/** Dedupe keys kept after their findings: enough to outlive any realistic session, small enough to bound. */
const MAX_KEYS = 100_000;
/** Event ids one finding lists. */
const MAX_FINDING_EVENTS = 20;

export class FindingLog {
  readonly list: Finding[] = [];
  dropped = 0;
  private readonly keys = new Set<string>();
  private seq = 0;

  constructor(private readonly max: number) {}

  has(client: string, rule: RuleId, subject: string): boolean {
    return this.keys.has(key(client, rule, subject));
  }

  /** Records a finding unless the same cause was reported already; returns it, or null. */
  raise(input: RaiseInput): Finding | null {
    const k = key(input.client, input.rule, input.subject);
    if (this.keys.has(k)) return null;
    this.keys.add(k);
    if (this.keys.size > MAX_KEYS) {
      // Oldest first: a cause not seen for 100k findings may be reported again.
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    const rule = ruleOf(input.rule);
    const severity = input.severity ?? rule.severity;
    if (this.list.length >= this.max && !this.makeRoom(severity)) {
      this.dropped++;
      return null;
    }
    const finding: Finding = {
      id: `f${++this.seq}`,
      rule: rule.id,
      severity,
      section: input.section ?? rule.section,
      message: input.message,
      client: input.client,
      events: dedupeIds(input.events),
      t: input.t,
    };
    this.list.push(finding);
    return finding;
  }

  /**
   * Drops the oldest finding to make room, sparing critical ones: an
   * unapproved irreversible action must stay visible however long the
   * session ran. Returns false when the new finding is the one to drop.
   */
  private makeRoom(incoming: Severity): boolean {
    let i = this.list.findIndex((f) => f.severity !== 'critical');
    if (i < 0) {
      if (incoming !== 'critical') return false;
      i = 0;
    }
    this.list.splice(i, 1);
    this.dropped++;
    return true;
  }
}

function key(client: string, rule: string, subject: string): string {
  return `${client}\u0000${rule}\u0000${subject}`;
}

function dedupeIds(ids: string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    if (typeof id === 'string' && id && !out.includes(id)) out.push(id);
    if (out.length >= MAX_FINDING_EVENTS) break;
  }
  return out;
}
