/**
 * The bounded, deduplicated list of findings. One cause is reported once:
 * the dedupe key is client + rule + subject (a request id, a surface id, an
 * observation…), so a client that repeats a mistake a thousand times shows
 * one finding, not a thousand.
 *
 * A finding always carries its rule's section and party, so what the panel
 * cites is what the conformance matrix says; and a rule the client's judged
 * spec release did not have yet raises nothing.
 */
import type { Finding, Severity } from './model-types.ts';
import { LATEST_SPEC_VERSION, ruleApplies, ruleOf, type RuleId, type SpecVersion } from './rules.ts';

export interface RaiseInput {
  rule: RuleId;
  client: string;
  /** What the finding is about; with rule and client, its dedupe key. */
  subject: string;
  message: string;
  events: string[];
  t: number;
  /** Overrides the rule's severity (a parse problem of no rule of its own carries the parser's). */
  severity?: Severity;
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
  /**
   * Whether a finding's events are the user's own experiment (an injected or
   * replayed request, or what answers it): set by the model, which knows.
   */
  experimentOf: (events: readonly string[]) => boolean = () => false;

  constructor(
    private readonly max: number,
    /** The spec release a client is judged by. */
    private readonly versionOf: (client: string) => SpecVersion = () => LATEST_SPEC_VERSION,
  ) {}

  /** The spec release `client` is judged by. */
  versionFor(client: string): SpecVersion {
    return this.versionOf(client);
  }

  has(client: string, rule: RuleId, subject: string): boolean {
    return this.keys.has(key(client, rule, subject));
  }

  /** Records a finding unless the same cause was reported already; returns it, or null. */
  raise(input: RaiseInput): Finding | null {
    const rule = ruleOf(input.rule);
    // Checked before the key is taken, so nothing of a rule the client's release lacks is remembered.
    if (!ruleApplies(rule, this.versionOf(input.client))) return null;
    const experiment = this.experimentOf(input.events);
    // Kept apart in the dedupe too: an experiment must not hide the app's own finding of the same cause, nor the reverse.
    const k = key(input.client, input.rule, input.subject) + (experiment ? '\u0000experiment' : '');
    if (this.keys.has(k)) return null;
    this.keys.add(k);
    if (this.keys.size > MAX_KEYS) {
      // Oldest first: a cause not seen for 100k findings may be reported again.
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    const severity = input.severity ?? rule.severity;
    if (this.list.length >= this.max && !this.makeRoom(severity)) {
      this.dropped++;
      return null;
    }
    const finding: Finding = {
      id: `f${++this.seq}`,
      rule: rule.id,
      severity,
      section: rule.section,
      party: rule.party,
      message: input.message,
      client: input.client,
      events: dedupeIds(input.events),
      t: input.t,
      ...(experiment ? { experiment: true } : {}),
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
