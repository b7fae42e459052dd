/**
 * The Node side of the Playwright fixture: one browser context's OUI traffic,
 * decoded and judged by the same recorder, merge and session model as the
 * panel.
 *
 * Every frame of every page of the context runs the page hook and the
 * fixture's bridge (content/fixture-bridge.ts, from the init script); the
 * bridge hands each batch to the context's binding, which lands here. Each
 * page gets a Recorder of its own, as each tab gets a panel of its own: frame
 * paths and postMessage pairing keys are per tab. A page keeps its traffic
 * across navigations (the panel's "preserve log").
 */
import { compileQuery, filterEvents } from '../query/event-facts.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { BrowserContext, Frame, Page } from '@playwright/test';
import { readHookMessage, type FlushedMessage } from '../messages.ts';
import { isWorkerHook } from '../capture/captured-items.ts';
import { Recorder } from '../session/wire/recorder.ts';
import { ModelFeed, canonicalOrder } from '../session/model/merge.ts';
import type { SessionModel } from '../session/model/session-model.ts';
import type { Timers } from '../session/model/timers.ts';
import type { Finding, Severity } from '../session/model/model-types.ts';
import { exportSession, type SessionFile } from '../session/wire/session-file.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import { OUI_COMMAND_EVENT_PLACEHOLDER, OUI_FIXTURE_BINDING, OUI_FLUSH_EVENT_PLACEHOLDER } from './binding.ts';
import { FixtureRuntime, type CallOptions, type ClientRef, type CommandAnswer } from './runtime.ts';
import { FixtureFaults } from './faults.ts';
import { FixtureServe, type ServeOptions, type Served } from './serve.ts';
import { takeoverOf } from '../runtime/stand-in-wire.ts';
import type { OUIActionResult } from '../protocol/index.ts';
import { readFile } from 'node:fs/promises';
import { parseScenario, readScenario, runScenario, type Scenario, type ScenarioDriver, type ScenarioReport, type StepResult } from '../runtime/scenario.ts';
import type { Oui, OuiFindingsOptions, OuiSettleReport, OuiUnflushedFrame } from './api.d.ts';

export const SEVERITIES: readonly Severity[] = ['critical', 'error', 'warning', 'info'];

export function isSeverity(v: unknown): v is Severity {
  return typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v);
}

/** Whether severity `s` is at `min` or above. */
export function atLeast(s: Severity, min: Severity): boolean {
  return SEVERITIES.indexOf(s) <= SEVERITIES.indexOf(min);
}

/** Times a frame whose document changes under a flush is asked again (its new document's hook): bounded, never a loop. */
const FLUSH_ATTEMPTS = 3;

/** One flush request in flight: the frame asked, and its marker once it came. */
interface FlushWaiter {
  frame: Frame;
  marker: FlushedMessage | null;
  /** Items the hook had numbered that had not reached this process when its marker did. */
  behind: number;
}

/** How one frame's flush ended. */
type FrameFlush = { status: 'flushed'; waiting: number; behind: number; navigated: boolean } | { status: 'no-hook' } | { status: 'unflushed'; reason: OuiUnflushedFrame['reason'] };

/**
 * What the fixture evaluates in a frame to ask its bridge for a flush: an
 * event of the context's secret type with a fresh id, whose detail the bridge
 * answers with a promise. No answer: no bridge (or hook) in that frame.
 * A string, not a function: nothing of this module's compiled form goes into the page.
 */
function flushExpression(type: string, id: string): string {
  return `(() => { const d = { id: ${JSON.stringify(id)} }; try { dispatchEvent(new CustomEvent(${JSON.stringify(type)}, { detail: d })); } catch {} return d.answer || 'no-hook'; })()`;
}


/** The expression that hands a command to a frame's bridge (a string, as the flush's). */
function commandExpression(type: string, text: string): string {
  return `(() => { const d = { command: ${JSON.stringify(text)} }; try { dispatchEvent(new CustomEvent(${JSON.stringify(type)}, { detail: d })); } catch {} return d.answer || 'no-hook'; })()`;
}

interface PageCapture {
  /** In order of the first traffic: the first page keeps its clients' keys as they are. */
  index: number;
  page: Page | null;
  recorder: Recorder;
  frames: WeakMap<Frame, number>;
  /** The other way: the frame of each id, for commands addressed to a client's frame. */
  byFrameId: Map<number, Frame>;
  /** The hook of each frame's current document (a navigation brings a new one). */
  frameHooks: Map<number, string>;
  nextFrame: number;
}

/** A consistent view at one moment: clients (keys made unique across pages) and events in the canonical order. */
export interface Snapshot {
  clients: WireClient[];
  events: WireEvent[];
  /** Each client's page and key in that page's recorder. */
  refs?: ClientRef[];
}

export class OuiCapture implements Oui {
  private readonly pages: PageCapture[] = [];
  private readonly byPage = new WeakMap<Page, PageCapture>();
  /** Messages the binding could not attribute to a page (none expected). */
  private orphan: PageCapture | null = null;
  /** Batches that could not be read (never expected: the bridge sends JSON). */
  unreadable = 0;
  private closed = false;
  /** Flush requests in flight, by id (fresh random ids: a page cannot guess one). */
  private readonly flushes = new Map<string, FlushWaiter>();
  /** What the last settle found. */
  lastSettle: OuiSettleReport | null = null;
  /** The flush requests' event type in this context's init script: secret, fresh per context. */
  private readonly flushEvent = `oui-flush-${randomBytes(16).toString('hex')}`;
  /** Whether the init script has the command channel. */
  private commands = true;
  /** The commands' event type, secret likewise. */
  private readonly commandEvent = `oui-command-${randomBytes(16).toString('hex')}`;
  /** Told of each page's fresh events as they are decoded (the stand-in runtime listens). */
  private readonly listeners = new Set<(page: number, events: WireEvent[]) => void>();

  private constructor(
    private readonly context: BrowserContext,
    private readonly specVersion?: string,
    private readonly timers?: Partial<Timers>,
  ) {}

  /** Installs the binding and the init script on `context`: every page and frame opened or navigated from now on is captured. */
  static async attach(context: BrowserContext, initScript: string, opts: { specVersion?: string; timers?: Partial<Timers> } = {}): Promise<OuiCapture> {
    const capture = new OuiCapture(context, opts.specVersion, opts.timers);
    await context.exposeBinding(OUI_FIXTURE_BINDING, (source: { page?: Page | null; frame?: Frame | null }, text: unknown) => {
      capture.accept(source.page ?? null, source.frame ?? null, text);
    });
    if (!initScript.includes(OUI_FLUSH_EVENT_PLACEHOLDER)) {
      throw new Error('oui-devtools/playwright: the init script has no flush handshake (it is from an older build); build it again with `node scripts/build-playwright.mjs`');
    }
    // Without it (an older build) the capture works; the stand-in, faults and the virtual server say why they cannot.
    capture.commands = initScript.includes(OUI_COMMAND_EVENT_PLACEHOLDER);
    await context.addInitScript({ content: initScript.split(OUI_FLUSH_EVENT_PLACEHOLDER).join(capture.flushEvent).split(OUI_COMMAND_EVENT_PLACEHOLDER).join(capture.commandEvent) });
    return capture;
  }

  /** One batch from a frame's bridge. */
  accept(page: Page | null, frame: Frame | null, text: unknown): void {
    if (this.closed || typeof text !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.unreadable++;
      return;
    }
    const capture = this.pageCapture(page);
    if ((message as { type?: unknown } | null)?.type === 'flushed') {
      this.marked(capture, frame, message);
      return;
    }
    const frameId = this.frameId(capture, frame);
    const hook = (message as { hook?: unknown } | null)?.hook;
    if (typeof hook === 'string' && !isWorkerHook(hook)) capture.frameHooks.set(frameId, hook);
    const fresh = capture.recorder.accept(frameId, message);
    if (fresh.length) for (const l of this.listeners) l(capture.index, fresh);
  }

  /** Calls `fn` with each page's fresh events as they are decoded; returns the way to stop. */
  listen(fn: (page: number, events: WireEvent[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A page's events so far (its recorder's keys). */
  pageEvents(page: number): readonly WireEvent[] {
    return this.pages[page]?.recorder.events ?? [];
  }

  /**
   * Whether a client is of its frame's current document: one of a document
   * the page navigated away from is gone, though no close was captured.
   */
  isLive(page: number, client: WireClient): boolean {
    const p = this.pages[page];
    const t = client.inject;
    if (!p || !t || t.via === 'postmessage') return true;
    const now = p.frameHooks.get(t.frameId);
    return now === undefined || t.hook === now || t.hook.startsWith(`${now}.`);
  }

  /** A page's client by its recorder key, as it is now (its injection target can come later). */
  pageClient(page: number, key: string): WireClient | undefined {
    return this.pages[page]?.recorder.clients.get(key);
  }

  /**
   * Hands a command to the hook of one frame of one page (frame ids as this
   * capture numbers them), through the frame's bridge; resolves with its answer.
   */
  async command(page: number, frameId: number, command: unknown): Promise<CommandAnswer> {
    this.needCommands();
    const p = this.pages[page];
    const frame = p?.byFrameId.get(frameId);
    if (!p || !frame || frame.isDetached() || frame.page().isClosed()) return 'no-frame';
    try {
      return (await frame.evaluate(commandExpression(this.commandEvent, JSON.stringify(command)))) as CommandAnswer;
    } catch {
      return 'no-frame';
    }
  }

  private needCommands(): void {
    if (!this.commands) throw new Error('oui-devtools/playwright: the init script has no command channel (it is from an older build); build it again with `node scripts/build-playwright.mjs`');
  }

  /** Hands a command to one frame's hook. */
  async commandFrame(frame: Frame, command: unknown): Promise<CommandAnswer> {
    this.needCommands();
    if (frame.isDetached() || frame.page().isClosed()) return 'no-frame';
    try {
      return (await frame.evaluate(commandExpression(this.commandEvent, JSON.stringify(command)))) as CommandAnswer;
    } catch {
      return 'no-frame';
    }
  }

  /** Hands a command to every frame of every open page (fault rules apply wherever a client is). */
  async broadcast(command: unknown): Promise<CommandAnswer[]> {
    this.needCommands();
    const text = JSON.stringify(command);
    const frames = this.context.pages().flatMap((p) => (p.isClosed() ? [] : p.frames()));
    return Promise.all(frames.map((f) => f.evaluate(commandExpression(this.commandEvent, text)).then((a) => a as CommandAnswer, () => 'no-frame' as const)));
  }

  /**
   * A flush marker: taken only for a request in flight, from the frame it was
   * asked of, once. Everything that frame's hook captured before the request
   * came through the same binding before it, so is in the recorder now; what
   * the hook numbered and the recorder has not seen is counted, never silent.
   */
  private marked(capture: PageCapture, frame: Frame | null, message: unknown): void {
    const m = readHookMessage(message);
    if (m?.type !== 'flushed') return;
    const waiter = this.flushes.get(m.id);
    if (!waiter || waiter.marker || waiter.frame !== frame) return;
    waiter.marker = m;
    const seen = capture.recorder.intake.cursors();
    for (const [client, seq] of Object.entries(m.through)) {
      if (Number.isInteger(seq) && seq > 0) waiter.behind += Math.max(0, seq - (seen[`${m.hook}/${client}`] ?? 0));
    }
  }

  private pageCapture(page: Page | null): PageCapture {
    if (!page) return (this.orphan ??= this.newPage(null));
    let capture = this.byPage.get(page);
    if (!capture) {
      capture = this.newPage(page);
      this.byPage.set(page, capture);
    }
    return capture;
  }

  private newPage(page: Page | null): PageCapture {
    // Navigations keep what was captured: a test reads its whole story.
    const capture: PageCapture = { index: this.pages.length, page, recorder: new Recorder(undefined, () => {}), frames: new WeakMap(), byFrameId: new Map(), frameHooks: new Map(), nextFrame: 1 };
    this.pages.push(capture);
    return capture;
  }

  /** 0 for a page's main frame (as the browser numbers it for extensions), then 1, 2… in order of first traffic. */
  private frameId(capture: PageCapture, frame: Frame | null): number {
    if (!frame) return 0;
    let id = capture.frames.get(frame);
    if (id === undefined) {
      id = capture.page && frame === capture.page.mainFrame() ? 0 : frame.parentFrame() === null ? 0 : capture.nextFrame++;
      capture.frames.set(frame, id);
    }
    // The latest frame under an id: the main frame keeps 0 across navigations.
    capture.byFrameId.set(id, frame);
    return id;
  }

  /**
   * The flush handshake with every frame of every open page: each frame's
   * hook sends what it captured, then a marker through the same binding; this
   * resolves once every frame answered. A frame with no hook, or that is
   * detached, closed or keeps navigating, ends its wait by that condition (its
   * evaluate answers or rejects) and is counted in the report.
   */
  async settle(): Promise<OuiSettleReport> {
    const report: OuiSettleReport = { frames: 0, flushed: 0, noHook: 0, navigated: 0, unflushed: [], waiting: 0, behind: 0 };
    if (this.closed) return report;
    const frames = this.context.pages().flatMap((p) => (p.isClosed() ? [] : p.frames()));
    report.frames = frames.length;
    const results = await Promise.all(frames.map((f) => this.flushFrame(f)));
    results.forEach((r, i) => {
      if (r.status === 'flushed') {
        report.flushed++;
        report.waiting += r.waiting;
        report.behind += r.behind;
        if (r.navigated) report.navigated++;
      } else if (r.status === 'no-hook') report.noHook++;
      else report.unflushed.push({ url: frames[i]!.url(), reason: r.reason });
    });
    this.lastSettle = report;
    return report;
  }

  private async flushFrame(frame: Frame): Promise<FrameFlush> {
    let navigated = false;
    for (let attempt = 0; attempt < FLUSH_ATTEMPTS; attempt++) {
      if (frame.page().isClosed()) return { status: 'unflushed', reason: 'closed' };
      if (frame.isDetached()) return { status: 'unflushed', reason: 'detached' };
      const id = randomUUID();
      const waiter: FlushWaiter = { frame, marker: null, behind: 0 };
      this.flushes.set(id, waiter);
      let answer: unknown;
      try {
        // Resolves once the bridge's binding call for the marker returned: the marker has been taken in here by then.
        answer = await frame.evaluate(flushExpression(this.flushEvent, id));
      } catch {
        // The frame went away (detached, its page closed) or its document changed mid-flush (navigation): ask its new document.
        if (frame.page().isClosed()) return { status: 'unflushed', reason: 'closed' };
        if (frame.isDetached()) return { status: 'unflushed', reason: 'detached' };
        navigated = true;
        continue;
      } finally {
        this.flushes.delete(id);
      }
      if (waiter.marker) return { status: 'flushed', waiting: waiter.marker.waiting, behind: waiter.behind, navigated };
      if (answer === 'no-hook') return { status: 'no-hook' };
      // The marker could not go (the page or context is closing), or went but never arrived.
      return { status: 'unflushed', reason: answer === 'lost' ? 'lost' : 'no-marker' };
    }
    return { status: 'unflushed', reason: 'navigated' };
  }

  /** What was captured so far, without waiting for the pages. */
  snapshot(): Snapshot {
    const clients: WireClient[] = [];
    const events: WireEvent[] = [];
    const refs: ClientRef[] = [];
    const used = new Set<string>();
    for (const p of this.pages) {
      // Frame paths ('top/0') make postMessage keys: two pages can pair frames at the same paths.
      const rename = new Map<string, string>();
      const first = clients.length;
      for (const c of p.recorder.clients.values()) {
        let key = c.key;
        if (used.has(key)) {
          key = `${c.key}#page${p.index + 1}`;
          for (let n = 2; used.has(key); n++) key = `${c.key}#page${p.index + 1}.${n}`;
          rename.set(c.key, key);
        }
        used.add(key);
        clients.push(key === c.key ? { ...c } : { ...c, key });
        refs.push({ key, page: p.index, client: c });
      }
      // A reconnection names the client it replaces, of the same page: renamed with it.
      for (let i = first; i < clients.length; i++) {
        const to = clients[i]!.replaces === undefined ? undefined : rename.get(clients[i]!.replaces!);
        if (to !== undefined) clients[i]!.replaces = to;
      }
      for (const ev of p.recorder.events) {
        const to = rename.get(ev.client);
        events.push(to ? { ...ev, client: to } : ev);
      }
    }
    return { clients, events: canonicalOrder(events), refs };
  }

  /** The model of a snapshot, judged as the panel judges an imported recording: merged, ticked at its end, absences certain. */
  modelOf(snap: Snapshot): SessionModel {
    const byKey = new Map(snap.clients.map((c) => [c.key, c]));
    const feed = new ModelFeed((key) => byKey.get(key), { model: { ...(this.specVersion ? { specVersion: this.specVersion } : {}), ...(this.timers ? { timers: this.timers } : {}) } });
    feed.add(snap.events, Date.now());
    feed.finish();
    return feed.model;
  }

  async findings(options: OuiFindingsOptions = {}): Promise<Finding[]> {
    await this.settle();
    return filterFindings(this.modelOf(this.snapshot()).findings, options.min);
  }

  async session(): Promise<SessionModel> {
    await this.settle();
    return this.modelOf(this.snapshot());
  }

  async clients(): Promise<WireClient[]> {
    await this.settle();
    return this.snapshot().clients;
  }

  /** Every event, or with `filter` those that match it (the panel's filter grammar, src/query), read against the model of everything captured. A bad query throws, naming the term and its column. */
  async events(options: { filter?: string } = {}): Promise<WireEvent[]> {
    const terms = options.filter === undefined ? undefined : compileQuery(options.filter);
    await this.settle();
    const snap = this.snapshot();
    if (!terms) return snap.events;
    const model = this.modelOf(snap);
    const byId = new Map(snap.events.map((e) => [e.id, e]));
    return filterEvents(snap.events, terms, {
      clients: new Map(snap.clients.map((c) => [c.key, c])),
      event: (id) => byId.get(id),
      request: (client, id) => model.clients.get(client)?.requests.get(id),
      findings: model.findings,
      isExperiment: (id) => model.isExperiment(id),
    });
  }

  async sessionFile(): Promise<SessionFile> {
    await this.settle();
    const snap = this.snapshot();
    return exportSession(snap.clients, snap.events);
  }

  /** What the capture could not see: items the hook dropped or that never reached the test, per page. */
  losses(): { lost: number; undelivered: number; unreadable: number } {
    let lost = 0;
    let undelivered = 0;
    for (const p of this.pages) {
      lost += p.recorder.intake.totalLost();
      undelivered += p.recorder.intake.totalUndelivered();
    }
    return { lost, undelivered, unreadable: this.unreadable };
  }

  private runtimeOf: FixtureRuntime | undefined;
  /** The stand-in runtime behind `call` (made on first use). */
  get runtime(): FixtureRuntime {
    if (!this.runtimeOf) {
      this.runtimeOf = new FixtureRuntime(this, this.timers);
      this.runtimeOf.refuse = (call) => this.faults.refusal(call);
    }
    return this.runtimeOf;
  }

  /** Fault rules on every page of the context (the hooks apply them; the stand-in refuses results by them). */
  get faults(): FixtureFaults {
    return (this.faultsOf ??= new FixtureFaults(this, this.context));
  }
  private faultsOf: FixtureFaults | undefined;

  /** The virtual server for a URL pattern (serve.ts). */
  serve(urlPattern: string, options?: ServeOptions): Promise<Served> {
    return (this.serverOf ??= new FixtureServe(this, this.context)).serve(urlPattern, options);
  }
  private serverOf: FixtureServe | undefined;

  /** Sends a request to the page's client as its runtime would; resolves with the client's final `action:result` payload. */
  async call(surfaceId: string, actionId: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<OUIActionResult> {
    const report = await this.runtime.call(surfaceId, actionId, params, options);
    if (report.status === 'timeout') {
      throw new Error(`oui.call(${JSON.stringify(surfaceId)}, ${JSON.stringify(actionId)}): ${report.result.error?.message ?? 'timed out'} (client ${report.client}, requestId ${report.requestId}, sent ${report.sends} time${report.sends === 1 ? '' : 's'})`);
    }
    if (report.status === 'not-sent') throw new Error(`oui.call(${JSON.stringify(surfaceId)}, ${JSON.stringify(actionId)}): not sent: ${report.reason ?? report.result.error?.message}`);
    return report.result;
  }

  /**
   * Takes over the client that has `surfaceId` mounted (or `client`): a fault
   * rule drops everything the app's real runtime sends it, so only the stand-in
   * (`call`) speaks to it. Resolves with the rule's id (`faults.clear()` or a
   * rule of that id `enabled: false` ends it).
   */
  async takeover(surfaceId: string, options: { client?: string } = {}): Promise<string> {
    const { ref, client } = await this.runtime.clientFor(surfaceId, options);
    const t = takeoverOf(client);
    if (!t.ok) throw new Error(`oui.takeover: cannot take over ${ref.key}: ${t.error}`);
    await this.faults.add(t.rule);
    return t.rule.id;
  }

  /** An observation's latest value the capture holds (of `client` when given, a key or a part of its key or label), or undefined. */
  async observation(surfaceId: string, observationId: string, options: { client?: string } = {}): Promise<unknown> {
    await this.settle();
    const snap = this.snapshot();
    const model = this.modelOf(snap);
    const w = options.client;
    const keys = snap.clients.filter((c) => w === undefined || c.key === w || c.key.includes(w) || c.label.includes(w)).map((c) => c.key);
    let best: { value: unknown; t: number } | undefined;
    for (const key of keys) {
      const o = model.clients.get(key)?.observations.get(`${surfaceId}/${observationId}`);
      const last = o?.history.at(-1);
      if (o && o.current !== undefined && (!best || (last?.t ?? 0) >= best.t)) best = { value: o.current, t: last?.t ?? 0 };
    }
    return best?.value;
  }

  /** Runs a scenario (a file path or the object) through `call`, step by step. */
  async runScenario(file: string | Scenario, options: { stopOnFailure?: boolean; onStep?: (r: StepResult) => void } = {}): Promise<ScenarioReport> {
    let scenario: Scenario;
    if (typeof file === 'string') {
      const read = parseScenario(await readFile(file, 'utf8'));
      if (!read.ok) throw new Error(`oui.runScenario: ${file} is not a scenario:\n  ${read.errors.join('\n  ')}`);
      scenario = read.scenario;
    } else {
      const read = readScenario(file);
      if (!read.ok) throw new Error(`oui.runScenario: not a scenario:\n  ${read.errors.join('\n  ')}`);
      scenario = read.scenario;
    }
    const driver: ScenarioDriver = {
      call: async (step) => {
        const r = await this.runtime.call(step.surfaceId, step.actionId, step.params, { ...(step.client ? { client: step.client } : {}), ...(step.approve ? { approve: step.approve } : {}), ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}) });
        const base = { requestId: r.requestId, eventIds: r.eventIds, client: r.client };
        return r.status === 'not-sent' ? { ...base, error: `not sent: ${r.reason ?? r.result.error?.message}` } : { ...base, result: r.result };
      },
      observation: (client, surfaceId, observationId) => this.observation(surfaceId, observationId, client !== undefined ? { client } : {}),
    };
    return runScenario(scenario, driver, options);
  }

  /** Stops taking batches in (the context is being torn down). */
  close(): void {
    this.closed = true;
    this.runtimeOf?.close();
    this.faultsOf?.close();
  }
}

/** Findings of the app's own traffic at `min` or above, the most severe first, then in capture order. */
export function filterFindings(findings: readonly Finding[], min: Severity = 'error'): Finding[] {
  return findings
    .filter((f) => !f.experiment && atLeast(f.severity, min))
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITIES.indexOf(a.f.severity) - SEVERITIES.indexOf(b.f.severity) || a.f.t - b.f.t || a.i - b.i)
    .map(({ f }) => f);
}
