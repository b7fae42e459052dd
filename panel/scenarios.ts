/**
 * The panel's scenarios (issue 21, item 3): kept per origin in extension
 * storage, as the injector keeps saved requests; exported and imported as
 * the versioned file src/runtime/scenario.ts reads; run step by step or all
 * at once through the panel's stand-in runtime (panel/stand-in.ts), each
 * step's verdict kept with the exchange it made.
 */
import { signal } from '@preact/signals';
import { parseScenario, runStep, scenarioFromRequests, scenarioText, type ReadScenario, type Scenario, type StepResult } from '../src/runtime/scenario.ts';
import type { RequestState } from '../src/session/model/model-types.ts';
import type { SavedStore } from './injector.ts';
import type { StandInSeats } from './stand-in.ts';

const MAX_SCENARIOS = 100;
const storageKey = (origin: string) => `scenarios:${origin}`;

/** A step's state in the view: not run, running, or its verdict. */
export type StepState = 'running' | StepResult;

export interface Run {
  steps: Array<StepState | undefined>;
  running: boolean;
}

/** A scenario's name: its own, or "Scenario N". */
export function nameOf(s: Scenario, i = 0): string {
  return s.name?.trim() || `Scenario ${i + 1}`;
}

/** The file a scenario is exported to. */
export function fileNameOf(s: Scenario): string {
  const base = nameOf(s)
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${base || 'scenario'}.oui-scenario.json`;
}

/** Whether a file's text is a scenario (the drop import tells them from sessions and HARs by this). */
export function looksLikeScenario(text: string): boolean {
  return /^\s*\{[\s\S]{0,200}"format"\s*:\s*"oui-devtools-scenario"/.test(text);
}

export class ScenarioBook {
  readonly origin = signal('');
  readonly list = signal<Scenario[]>([]);
  /** Runs by scenario name. */
  readonly runs = signal<Record<string, Run>>({});
  /** What the last import or save said. */
  readonly message = signal<{ ok: boolean; text: string } | null>(null);

  constructor(
    private readonly saved: SavedStore,
    private readonly seats: StandInSeats,
  ) {}

  /** The scenarios of an origin, read from storage. */
  async load(origin: string): Promise<void> {
    if (!origin) return;
    this.origin.value = origin;
    const kept = await this.saved.get(storageKey(origin)).catch(() => undefined);
    const list: Scenario[] = [];
    if (Array.isArray(kept)) {
      for (const x of kept) {
        const r = parseScenario(JSON.stringify(x));
        if (r.ok) list.push(r.scenario);
      }
    }
    if (this.origin.peek() === origin) this.list.value = list;
  }

  private async store(list: Scenario[]): Promise<void> {
    this.list.value = list.slice(0, MAX_SCENARIOS);
    if (this.origin.peek()) await this.saved.set(storageKey(this.origin.peek()), this.list.peek()).catch(() => {});
  }

  /** Keeps a scenario under its name (replacing one of that name; the newest first), its old run forgotten. */
  async save(s: Scenario): Promise<void> {
    const name = nameOf(s, this.list.peek().length);
    const named: Scenario = { ...s, name };
    const { [name]: _old, ...runs } = this.runs.peek();
    this.runs.value = runs;
    await this.store([named, ...this.list.peek().filter((x) => nameOf(x) !== name)]);
  }

  async remove(name: string): Promise<void> {
    await this.store(this.list.peek().filter((x) => nameOf(x) !== name));
  }

  /** "Save as scenario": the chosen captured requests, in capture order, as steps expecting what each got. */
  async saveFromRequests(requests: readonly RequestState[], name: string, clientOf?: (r: RequestState) => string | undefined): Promise<Scenario> {
    const ordered = [...requests].sort((a, b) => (a.sends[0]?.t ?? 0) - (b.sends[0]?.t ?? 0));
    const s = scenarioFromRequests(ordered, { ...(this.origin.peek() ? { origin: this.origin.peek() } : {}), name: name.trim() || `Scenario ${this.list.peek().length + 1}`, ...(clientOf ? { clientOf } : {}) });
    await this.save(s);
    this.message.value = { ok: true, text: `Saved "${nameOf(s)}" with ${s.steps.length} ${s.steps.length === 1 ? 'step' : 'steps'}.` };
    return s;
  }

  /** Imports a scenario file's text: kept on success, every problem said otherwise. */
  async importText(text: string, fileName = 'the file'): Promise<ReadScenario> {
    const r = parseScenario(text);
    if (!r.ok) {
      this.message.value = { ok: false, text: `${fileName} is not a scenario: ${r.errors.slice(0, 5).join('; ')}${r.errors.length > 5 ? ` (+${r.errors.length - 5} more)` : ''}` };
      return r;
    }
    await this.save(r.scenario);
    this.message.value = { ok: true, text: `Imported "${nameOf(r.scenario)}" (${r.scenario.steps.length} ${r.scenario.steps.length === 1 ? 'step' : 'steps'}) from ${fileName}.` };
    return r;
  }

  exportText(name: string): string | undefined {
    const s = this.list.peek().find((x) => nameOf(x) === name);
    return s ? scenarioText(s) : undefined;
  }

  private setStep(name: string, i: number, state: StepState | undefined, running?: boolean): void {
    const s = this.list.peek().find((x) => nameOf(x) === name);
    const run = this.runs.peek()[name] ?? { steps: [], running: false };
    const steps = [...run.steps];
    steps.length = Math.max(steps.length, s?.steps.length ?? 0);
    steps[i] = state;
    this.runs.value = { ...this.runs.peek(), [name]: { steps, running: running ?? run.running } };
  }

  /** Runs one step through the stand-in. */
  async runStep(name: string, i: number): Promise<StepResult | undefined> {
    const s = this.list.peek().find((x) => nameOf(x) === name);
    const step = s?.steps[i];
    if (!step) return undefined;
    this.setStep(name, i, 'running');
    const r = await runStep(step, i, this.seats.driver());
    this.setStep(name, i, r);
    return r;
  }

  /** Runs every step in order, each whatever the one before came to: a failing step is reported and the run goes on. */
  async runAll(name: string): Promise<void> {
    const s = this.list.peek().find((x) => nameOf(x) === name);
    if (!s || this.runs.peek()[name]?.running) return;
    this.runs.value = { ...this.runs.peek(), [name]: { steps: s.steps.map(() => undefined), running: true } };
    for (let i = 0; i < s.steps.length; i++) await this.runStep(name, i);
    const run = this.runs.peek()[name];
    if (run) this.runs.value = { ...this.runs.peek(), [name]: { ...run, running: false } };
  }
}
