/**
 * The panel's fault rules for its tab (issue 21, item 1): the list the Faults
 * view edits, the seed, and the one command that applies them to every frame
 * (`hook:faults`, which replaces the hook's set). The rules are kept in
 * extension storage per tab, as the injector keeps saved requests per
 * origin, so a panel reloaded on the same tab finds them and applies them
 * again (and the banner says so at once).
 */
import { computed, signal } from '@preact/signals';
import { anyActive, readFaultRules, readSeed, type FaultRule } from '../src/runtime/faults.ts';
import type { FromPanel } from '../src/messages.ts';
import type { SavedStore } from './injector.ts';

const storageKey = (tabId: number) => `faults:tab:${tabId}`;

export class FaultRules {
  readonly rules = signal<FaultRule[]>([]);
  readonly seed = signal<number>(1);
  /** The rules that can fault anything now: what the banner counts. */
  readonly active = computed(() => this.rules.value.filter((r) => r.enabled !== false && r.maxCount !== 0));
  /** How many frames' hooks said they have the current set. */
  readonly applied = signal(0);
  private appliedFrames = new Set<number>();
  private applyId = '';
  private applies = 0;
  private tabId: number | null = null;
  private send: ((m: FromPanel) => void) | null = null;
  private nextId = 1;

  constructor(private readonly store: SavedStore) {}

  /** The tab's line: its rules are read back from storage, then applied. */
  async attach(tabId: number, send: (m: FromPanel) => void): Promise<void> {
    this.tabId = tabId;
    this.send = send;
    try {
      const kept = (await this.store.get(storageKey(tabId))) as { rules?: unknown; seed?: unknown } | undefined;
      const rules = readFaultRules(kept?.rules);
      const seed = readSeed(kept?.seed);
      if (rules) this.rules.value = rules;
      if (seed !== null) this.seed.value = seed;
      for (const r of this.rules.value) {
        const n = /^r(\d+)$/.exec(r.id);
        if (n) this.nextId = Math.max(this.nextId, Number(n[1]) + 1);
      }
    } catch {
      // Nothing kept: no rules.
    }
    this.apply();
  }

  detach(): void {
    this.send = null;
  }

  /**
   * Seats taken by the panel's stand-in runtime (takeover rules, panel/stand-in.ts):
   * no experiment of the user's, so neither listed nor kept; applied before the user's rules.
   */
  readonly seats = signal<FaultRule[]>([]);

  setSeats(rules: FaultRule[]): void {
    this.seats.value = rules;
    this.apply();
  }

  /** Sends the set to every frame (again: a reconnect, a new document). */
  apply(): void {
    const rules = [...this.seats.value, ...(anyActive(this.rules.value) ? this.rules.value : [])];
    this.applyId = `faults:${++this.applies}`;
    this.appliedFrames = new Set();
    this.applied.value = 0;
    this.send?.({ type: 'hook:faults', rules, seed: this.seed.value, id: this.applyId });
  }

  /** A hook's word that it has a set: true when the answer was this list's (an id it gave). */
  onAnswer(frameId: number, id: string): boolean {
    if (!id.startsWith('faults:')) return false;
    if (id === this.applyId) {
      this.appliedFrames.add(frameId);
      this.applied.value = this.appliedFrames.size;
    }
    return true;
  }

  private changed(): void {
    this.apply();
    if (this.tabId !== null) void this.store.set(storageKey(this.tabId), { rules: this.rules.value, seed: this.seed.value }).catch(() => {});
  }

  /** A new rule (its id given here); the list guard decides what is well formed. */
  add(rule: Omit<FaultRule, 'id'>): FaultRule | null {
    const next = { ...rule, id: `r${this.nextId++}` } as FaultRule;
    const list = readFaultRules([...this.rules.value, next]);
    if (!list) return null;
    this.rules.value = list;
    this.changed();
    return next;
  }

  setEnabled(id: string, on: boolean): void {
    this.rules.value = this.rules.value.map((r) => (r.id !== id ? r : on ? (({ enabled: _e, ...rest }) => rest)(r) : { ...r, enabled: false }));
    this.changed();
  }

  remove(id: string): void {
    this.rules.value = this.rules.value.filter((r) => r.id !== id);
    this.changed();
  }

  clear(): void {
    this.rules.value = [];
    this.changed();
  }

  setSeed(seed: number): void {
    const s = readSeed(seed);
    if (s === null) return;
    this.seed.value = s;
    this.changed();
  }
}
