/**
 * `oui.faults`: fault rules (src/runtime/faults.ts) on every page and frame
 * of the test's context. Each frame's hook gets the whole list, with the
 * seed, as `hook:faults` through the bridge's command channel; a document
 * that starts later (a navigation, a new page or frame) gets it as soon as it
 * commits. The stand-in runtime (`oui.call`) refuses results by the
 * `refuse-result` rules itself, since the answers to its requests never reach
 * the app's runtime.
 */
import type { BrowserContext, Frame, Page } from '@playwright/test';
import { createFaultDecider, readFaultRule, type FaultDecider, type FaultRule, type FaultTransport } from '../runtime/faults.ts';
import type { CaptureLink, CommandAnswer } from './runtime.ts';

/** The seed when the test names none: the same faults on every run. */
export const DEFAULT_FAULT_SEED = 21;

export class FixtureFaults {
  private list: FaultRule[] = [];
  private seedValue = DEFAULT_FAULT_SEED;
  private decider: FaultDecider | null = null;
  private readonly watched = new WeakSet<Page>();
  private readonly onPage = (page: Page) => this.watch(page);
  private readonly onNavigated = (frame: Frame) => {
    if (this.list.length) void this.send(frame);
  };

  constructor(
    private readonly capture: Pick<CaptureLink, 'broadcast' | 'commandFrame'>,
    private readonly context: BrowserContext,
  ) {
    context.on('page', this.onPage);
    for (const p of context.pages()) this.watch(p);
  }

  private watch(page: Page): void {
    if (this.watched.has(page)) return;
    this.watched.add(page);
    page.on('framenavigated', this.onNavigated);
  }

  /** The rules in force, in order. */
  rules(): FaultRule[] {
    return this.list.map((r) => ({ ...r }));
  }

  /** Adds a rule (checked as the hook reads it; a rule with the id of one in force replaces it) and applies the list everywhere. */
  async add(rule: FaultRule, options: { seed?: number } = {}): Promise<void> {
    const read = readFaultRule(rule);
    if (!read) throw new Error(`oui.faults.add: not a fault rule: ${JSON.stringify(rule)} (see FaultRule in docs/playwright.md)`);
    if (options.seed !== undefined) {
      if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff) throw new Error('oui.faults.add: seed must be an unsigned 32-bit integer');
      this.seedValue = options.seed;
    }
    const at = this.list.findIndex((r) => r.id === read.id);
    if (at >= 0) this.list[at] = read;
    else this.list.push(read);
    await this.apply();
  }

  /** Removes every rule, everywhere. */
  async clear(): Promise<void> {
    this.list = [];
    await this.apply();
  }

  private async apply(): Promise<void> {
    this.decider = createFaultDecider(this.list, this.seedValue, this.decider);
    const answers = await this.capture.broadcast(this.command());
    const refused = answers.filter((a) => a === 'refused');
    if (refused.length) throw new Error(`oui.faults: ${refused.length} frame(s) refused the rules (a hook of another version?)`);
  }

  private command(): { type: 'hook:faults'; rules: FaultRule[]; seed: number } {
    return { type: 'hook:faults', rules: this.list, seed: this.seedValue };
  }

  private async send(frame: Frame): Promise<CommandAnswer> {
    return this.capture.commandFrame(frame, this.command());
  }

  /** The stand-in's acknowledgment of a result of its own request: a reason when a `refuse-result` rule takes it, else null. */
  refusal(call: { surfaceId: string; actionId: string; transport: FaultTransport; client: string; clientKey: string }): string | null {
    if (!this.decider || !this.list.some((r) => r.fault.kind === 'refuse-result')) return null;
    const d = this.decider.decide({ direction: 'from-client', type: 'action:result', transport: call.transport, client: call.client, clientKey: call.clientKey, surfaceId: call.surfaceId, actionId: call.actionId });
    return d?.fault.kind === 'refuse-result' ? d.fault.error : null;
  }

  close(): void {
    this.context.off('page', this.onPage);
  }
}
