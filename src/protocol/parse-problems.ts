/**
 * What parsing found wrong with an event: a JSON pointer, a message, the
 * spec section and the conformance rule it falls under, and whether it makes
 * the event unusable. Bounded: past MAX_PROBLEMS one line says how many more.
 *
 * Pure: no DOM, no extension API, no Node APIs.
 */

export interface Problem {
  /** JSON pointer (RFC 6901) to the offending value. */
  path: string;
  message: string;
  /** The spec section the rule comes from, e.g. '§7.3.2'. */
  section?: string;
  /**
   * The conformance rule it falls under (a rule id of the session model's
   * rule table), given where the problem is raised rather than guessed from
   * its wording later. Absent: a missing or mistyped field of no rule of its
   * own, charged to whoever sent the event.
   */
  rule?: string;
  severity: 'error' | 'warning';
}

/** At most this many problems are listed for one event (then one that says how many more). */
export const MAX_PROBLEMS = 200;
// ---------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------

export class Problems {
  readonly list: Problem[] = [];
  private dropped = 0;
  fatal = false;

  add(severity: 'error' | 'warning', path: string, message: string, section?: string, rule?: string): void {
    if (this.list.length >= MAX_PROBLEMS) {
      this.dropped++;
      return;
    }
    const p: Problem = { path, message, severity };
    if (section !== undefined) p.section = section;
    if (rule !== undefined) p.rule = rule;
    this.list.push(p);
  }
  error(path: string, message: string, section?: string, rule?: string): void {
    this.add('error', path, message, section, rule);
  }
  warn(path: string, message: string, section?: string, rule?: string): void {
    this.add('warning', path, message, section, rule);
  }
  /** An error that makes the event unusable. */
  fail(path: string, message: string, section?: string, rule?: string): void {
    this.fatal = true;
    this.add('error', path, message, section, rule);
  }
  /** Problems collected apart (to decide later whether they are fatal), added here as they are. */
  addAll(list: Problem[]): void {
    for (const q of list) this.add(q.severity, q.path, q.message, q.section, q.rule);
  }
  done(): Problem[] {
    if (this.dropped > 0) {
      this.list.push({ path: '', message: `${this.dropped} more problems not listed`, severity: 'warning' });
      this.dropped = 0;
    }
    return this.list;
  }
}

