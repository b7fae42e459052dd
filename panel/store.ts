/**
 * The panel's state, created once (panel/main.tsx) and handed to the views by
 * context (panel/store-context.ts): the recorder (capture → wire events), the
 * session model (wire events → surfaces, requests, findings), the injector,
 * the capture-site check and what each view remembers, as signals.
 *
 * State is signals only. The session (recorder, model feed, model) is one
 * signal, set only by `replaceSession`: when a part is replaced (import,
 * clear, a rebuild of the model) and, once per frame, after batches were
 * taken in, since the recorder and the model are mutated in place. A view
 * that reads `store.recorder` or `store.model` in render reads that signal,
 * and so re-renders when the session changes. What is derived from it (the
 * Timeline's matches) is a `computed`.
 *
 * Everything the browser provides (settings, the next frame, the port to the
 * background) comes in through `PanelEnv`, so the store runs in Node tests.
 */
import { batch, computed, signal, type ReadonlySignal, type Signal } from '@preact/signals';
import { Recorder } from '../src/session/wire/recorder.ts';
import { AsOfIndex } from '../src/session/model/as-of.ts';
import { ModelFeed, REORDER_WINDOW_MS } from '../src/session/model/merge.ts';
import { LATEST_SPEC_VERSION, isSpecVersion, type SpecVersion } from '../src/session/model/rules.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import { isTimerValue, resolveTimers, TIMER_KEYS, type Timers } from '../src/session/model/timers.ts';
import type { Party, RequestState, Severity } from '../src/session/model/model-types.ts';
import { exportSession, importOutcome, sessionFileText } from '../src/session/wire/session-file.ts';
import { RedactionSettings } from './redaction.ts';
import { redactedFileFindings } from '../src/session/redact/carried.ts';
import { withinWindow, type TimeWindow } from './sequence-window.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';
import { PROTOCOL } from '../src/messages.ts';
import { isWorkerHook } from '../src/capture/captured-items.ts';
import type { Connection, ConnectionHandlers } from './connection.ts';
import { Injector, type SavedStore } from './injector.ts';
import { FaultRules } from './faults.ts';
import { StandInSeats } from './stand-in.ts';
import { ScenarioBook } from './scenarios.ts';
import { CaptureSite, type SiteAccess } from './capture-site.ts';
import { COVERAGE_POLL_MS, CoverageWatch } from './coverage-watch.ts';
import { TimelineFilter, type Matches, type UpdateMode } from './incremental-filter.ts';
import { SavedFilters } from './query-saved.ts';
import { EventRows, Exchanges, type Rows } from './exchanges.ts';
import { composed, freshComposer, type ComposerState } from './composer.ts';
import { clock, typeLabel, type Category } from './display-text.ts';

export type View = 'timeline' | 'sequence' | 'compare' | 'surfaces' | 'hashes' | 'observations' | 'acks' | 'approvals' | 'findings' | 'inject' | 'faults' | 'runtime' | 'scenarios' | 'coverage';
export type DetailTab = 'payload' | 'raw' | 'exchange';
/** The Timeline's rows: one per exchange (a request with its receipt, results and acks), or one per event. */
export type RowsMode = 'exchanges' | 'events';

/** What the browser gives the panel; tests give plain objects. */
export interface PanelEnv {
  /** The user's settings (localStorage in the panel). */
  settings: { get(key: string): string | null; set(key: string, value: string): void };
  /** Runs `fn` before the next paint; a hidden panel runs it when shown. */
  nextFrame(fn: () => void): void;
  /** Opens the line to the background for a tab. */
  connect(tabId: number, handlers: ConnectionHandlers): Connection;
  saved: SavedStore;
  sites: SiteAccess;
  /** DevTools tells of a navigation to a page no hook runs on (which says nothing itself). */
  onNavigated?(fn: () => void): void;
}

/** What each view remembers while the panel is open. */
function viewState() {
  return {
    timeline: {
      category: signal<Category | ''>(''),
      status: signal(''),
      text: signal(''),
      rows: signal<RowsMode>('exchanges'),
      /** Exchanges (by key, panel/exchanges.ts) whose events are shown under their row. */
      expanded: signal<ReadonlySet<string>>(new Set()),
      /** What opening an event had to change to show it (a filter cleared), said once. */
      note: signal<string | null>(null),
      /** A row to focus once it is rendered: an event opened from a link. */
      focus: signal<{ id: string; seq: number } | null>(null),
      /** A time range brushed in the Sequence view: only events within it are listed. */
      window: signal<TimeWindow | null>(null),
    },
    /** The event detail's tab, and for which event: a newly selected event opens on its payload. */
    detailTab: signal<{ eventId: string; tab: DetailTab } | null>(null),
    composer: signal<ComposerState>(freshComposer()),
    /** Injection history rows opened to show their answer. */
    expanded: signal<ReadonlySet<string>>(new Set()),
    findingSeverities: signal<Record<Severity, boolean>>({ critical: true, error: true, warning: true, info: true }),
    findingParties: signal<Record<Party, boolean>>({ client: true, runtime: true }),
    findingsCopied: signal(false),
    showExperiments: signal(false),
  };
}

/** What the panel shows: the recorder (capture → wire events), the feed that orders them into the model, and the model as of this value. */
export interface Session {
  readonly recorder: Recorder;
  readonly feed: ModelFeed;
  readonly model: SessionModel;
}

/** The Timeline's list: the matching events, how many are shown in all, and how the filter got them (for the bench). */
export interface TimelineList {
  /** The matching events. */
  readonly matches: Matches;
  /** What the list shows: the matches folded by exchange, or one row each ("All events"). */
  readonly rows: Rows;
  readonly end: number;
  readonly mode: UpdateMode;
  readonly testedLast: number;
  readonly testedTotal: number;
}

export class PanelStore {
  readonly connected = signal(false);
  /** How often the port to the background dropped (a stopped service worker, an extension reload). */
  readonly reconnects = signal(0);
  readonly view = signal<View>('timeline');
  readonly selectedClient = signal<string>('');
  readonly selectedEvent = signal<string | null>(null);
  /**
   * The event whose moment Surfaces, Observations, Hashes and Approvals show
   * (panel/views/as-of.tsx), or null for now. Turned on from the event
   * detail (**As of this event**); while on, selecting another event moves
   * the moment there; **Live** turns it off. Not on every selection: a view
   * that silently showed the past after a click in the Timeline would read
   * as the present.
   */
  readonly asOf = signal<string | null>(null);
  /** Checkpoints of the state over the recorder's list, for `asOf`. */
  readonly asOfIndex = new AsOfIndex();
  /** Paused: the timeline stops at this many events; everything is still recorded. */
  readonly pausedAt = signal<number | null>(null);
  readonly preserveLog: Signal<boolean>;
  readonly notice = signal<string | null>(null);
  readonly source = signal<'live' | 'import'>('live');
  /** The spec release clients are judged by: the traffic declares none, so the user's pick (default: the newest). */
  readonly specVersion: Signal<SpecVersion>;
  /**
   * The timers the app's parties run with (§7.5's are the runtime's and
   * configurable, §7.3.7's re-answer interval the client's): the user's
   * setting, the spec's defaults for what is not set.
   */
  readonly timers: Signal<Readonly<Timers>>;
  readonly ui = viewState();

  readonly injector: Injector;
  /** The user's fault rules for this tab (the Faults view, the banner). */
  readonly faults: FaultRules;
  /** The panel in the runtime's seat: stand-ins per client, takeovers, the virtual server (the Runtime view). */
  readonly standIn: StandInSeats;
  /** Scenarios saved per origin, and their runs (the Scenarios view). */
  readonly scenarios: ScenarioBook;
  /** The user's redaction pointers per origin (the export preview; every Copy). */
  readonly redaction: RedactionSettings;
  readonly site: CaptureSite;
  /** Which frames and workers of the tab the capture sees, and why not the others. */
  readonly coverage = new CoverageWatch(() => this.session.peek().recorder.clients.values());
  /**
   * The model is fed through the merge (src/session/model/merge.ts), never in
   * arrival order: batches of an iframe's hook and of the host's race each
   * other, and a rebuild may replace the model, so the session's model is
   * taken from the feed each time the session is set.
   */
  readonly session: Signal<Session>;
  /** Reads the session as it is now, whatever has been published. */
  private readonly filter = new TimelineFilter({
    request: (client, id) => this.session.peek().model.clients.get(client)?.requests.get(id),
    event: (id) => this.session.peek().recorder.byId.get(id),
    clientNames: (key) => {
      const c = this.session.peek().recorder.clients.get(key);
      let names = c && this.clientNames.get(c);
      if (c && !names) this.clientNames.set(c, (names = [c.key, c.kind, c.label]));
      return names ?? [key];
    },
    findingEvents: () => new Set(this.session.peek().model.findings.flatMap((f) => f.events)),
    isExperiment: (id) => this.session.peek().model.isExperiment(id),
    modelMark: () => this.session.peek().model.revision,
  });
  private readonly clientNames = new WeakMap<object, readonly string[]>();
  /** Filters saved per origin (the Timeline's filter box). */
  readonly savedFilters: SavedFilters;
  /** Which exchange each event belongs to, for the Timeline's exchange rows. */
  private readonly exchanges = new Exchanges((id) => this.session.peek().recorder.byId.get(id));
  /** The Timeline's list under its filter bar, from the session as published. */
  readonly timeline: ReadonlySignal<TimelineList>;
  /** Some filter of the Timeline narrows it (the client picker included). */
  readonly filtersActive: ReadonlySignal<boolean>;
  private focusSeq = 0;
  connection: Connection | null = null;
  private redrawScheduled = false;
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Live capture runs (between `startLive` and its disposer): timers may be set. */
  private live = false;

  constructor(private readonly env: PanelEnv) {
    this.preserveLog = signal(env.settings.get('oui.preserveLog') === '1');
    const v = env.settings.get('oui.specVersion');
    this.specVersion = signal<SpecVersion>(isSpecVersion(v) ? v : LATEST_SPEC_VERSION);
    this.timers = signal(resolveTimers(parseSetting(env.settings.get('oui.timers'))));
    if (env.settings.get('oui.timelineRows') === 'events') this.ui.timeline.rows.value = 'events';
    this.injector = new Injector(env.saved);
    this.savedFilters = new SavedFilters(env.saved);
    this.faults = new FaultRules(env.saved);
    this.standIn = new StandInSeats({
      send: (m) => (this.connection ? (this.connection.send(m), true) : false),
      recorder: () => this.session.peek().recorder,
      model: () => this.session.peek().model,
      timers: () => this.timers.peek(),
      setSeats: (rules) => this.faults.setSeats(rules),
      faults: () => ({ rules: this.faults.rules.peek(), seed: this.faults.seed.peek() }),
    });
    this.scenarios = new ScenarioBook(env.saved, this.standIn);
    this.redaction = new RedactionSettings(env.saved);
    this.site = new CaptureSite(env.sites);
    this.selectedEvent.subscribe((id) => {
      if (id !== null && this.asOf.peek() !== null) this.asOf.value = id;
    });
    const recorder = this.liveRecorder();
    const feed = this.newFeed(recorder);
    this.session = signal({ recorder, feed, model: feed.model });
    this.timeline = computed(() => {
      const { recorder, model } = this.session.value;
      const paused = this.pausedAt.value;
      const t = this.ui.timeline;
      const events = recorder.events;
      const end = paused === null ? events.length : Math.min(paused, events.length);
      const criteria = { client: this.selectedClient.value, category: t.category.value, status: t.status.value, text: t.text.value };
      const source = { events, end, evicted: recorder.evicted };
      const filtered = this.filter.update(source, criteria, model);
      const range = t.window.value;
      const matches = range ? withinWindow(filtered, source, range) : filtered;
      const rows = t.rows.value === 'exchanges' ? this.exchanges.fold(source, matches, t.expanded.value) : new EventRows(matches);
      return { matches, rows, end, mode: this.filter.mode, testedLast: this.filter.testedLast, testedTotal: this.filter.testedTotal };
    });
    this.filtersActive = computed(() => {
      const t = this.ui.timeline;
      return !!(this.selectedClient.value || t.category.value || t.status.value || t.text.value || t.window.value);
    });
  }

  /** The recorder of the session shown; read in render, it re-renders the view when the session changes. */
  get recorder(): Recorder {
    return this.session.value.recorder;
  }

  /** The model of the session shown; read in render, it re-renders the view when the session changes. */
  get model(): SessionModel {
    return this.session.value.model;
  }

  /**
   * The one way the session changes: parts replaced, or (none given) the same
   * parts after batches were taken in, with the feed's model as it is now.
   */
  private replaceSession(parts: { recorder?: Recorder; feed?: ModelFeed } = {}): void {
    const now = this.session.peek();
    const recorder = parts.recorder ?? now.recorder;
    const feed = parts.feed ?? now.feed;
    this.session.value = { recorder, feed, model: feed.model };
  }

  /** The request an event belongs to (its own, the one a result answers, the one an ack acknowledges). */
  requestOf(ev: WireEvent): RequestState | undefined {
    const id = this.filter.requestIdOf(ev);
    return id ? this.model.clients.get(ev.client)?.requests.get(id) : undefined;
  }

  /** Builds searchable text ahead while `deadline` leaves time (idle time); true while some remains. */
  prepareSearch(deadline: { timeRemaining(): number }): boolean {
    return this.filter.prepare(this.session.peek().recorder, deadline);
  }

  /** Pause stops the Timeline at the events it shows (everything is still recorded); Resume shows all again. */
  togglePause(): void {
    this.pausedAt.value = this.pausedAt.value === null ? this.session.peek().recorder.events.length : null;
  }

  /** Sends what a composer state holds (the composer's Send, and Replay, which sends without opening it). */
  sendComposed(state: ComposerState): void {
    const { recorder, model } = this.session.peek();
    const c = composed(state, recorder, model);
    if (c) this.injector.inject(this.connection, c.client, c.input, c.opts);
  }

  /** Opens the composer on a captured request (Edit and send). */
  openComposer(prefill: Partial<ComposerState>): void {
    this.ui.composer.value = { ...freshComposer(), ...prefill };
    this.view.value = 'inject';
  }

  /** Resets every filter of the Timeline: type, status, the query box and the client picker. */
  /** Exchanges or All events, remembered as DevTools remembers its panels' toggles. */
  setRows(mode: RowsMode): void {
    this.ui.timeline.rows.value = mode;
    this.env.settings.set('oui.timelineRows', mode);
  }

  clearFilters(): void {
    const t = this.ui.timeline;
    batch(() => {
      t.category.value = '';
      t.status.value = '';
      t.text.value = '';
      t.window.value = null;
      this.selectedClient.value = '';
      t.note.value = null;
    });
  }

  /** Shows or hides an exchange's events under its row. */
  toggleExchange(key: string, open?: boolean): void {
    const now = this.ui.timeline.expanded.peek();
    if ((open ?? !now.has(key)) === now.has(key)) return;
    const next = new Set(now);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    this.ui.timeline.expanded.value = next;
  }

  /** Asks the Timeline to focus the row of event `id` once it is rendered. */
  focusRow(id: string): void {
    this.ui.timeline.focus.value = { id, seq: ++this.focusSeq };
  }

  /**
   * Opens an event, as DevTools' "Reveal in Network panel" does: the
   * Timeline, the event selected, its row scrolled into view and focused.
   * What hides its row is undone: its exchange is expanded, and filters
   * that hide it are cleared (the Timeline says so), a pause that stops
   * before it is resumed.
   */
  openEvent(id: string): void {
    const t = this.ui.timeline;
    const ev = this.session.peek().recorder.byId.get(id);
    batch(() => {
      this.view.value = 'timeline';
      this.selectedEvent.value = id;
      t.note.value = ev ? null : 'That event is no longer in the list: the oldest events were dropped.';
    });
    if (!ev) return;
    const shown = () => this.timeline.value.rows.indexOf(ev) >= 0;
    const exchange = () => (t.rows.peek() === 'exchanges' ? this.exchanges.of(ev) : undefined);
    const changed: string[] = [];
    if (!shown()) {
      const x = exchange();
      if (x) this.toggleExchange(x.key, true);
    }
    if (!shown() && this.filtersActive.peek()) {
      this.clearFilters();
      changed.push('Filters cleared');
      const x = exchange();
      if (x && !shown()) this.toggleExchange(x.key, true);
    }
    if (!shown() && this.pausedAt.peek() !== null) {
      this.pausedAt.value = null;
      changed.push(changed.length ? 'the Timeline resumed' : 'Timeline resumed');
    }
    if (changed.length) t.note.value = `${changed.join(' and ')} to show ${typeLabel(ev)} at ${clock(ev.t)}.`;
    this.focusRow(id);
  }

  private liveRecorder(): Recorder {
    // The inspected page navigated or reloaded: start afresh unless the log is preserved. Runs before the new page's first batch is taken in.
    return new Recorder(undefined, () => {
      if (!this.preserveLog.value) this.clearAll();
    });
  }

  /** A feed for `recorder`'s clients, judging with the settings as they are now. */
  private newFeed(recorder: Recorder): ModelFeed {
    return new ModelFeed((key) => recorder.clients.get(key), { model: { specVersion: this.specVersion.value, timers: this.timers.value } });
  }

  /** The session is published once per frame however many batches arrive: a busy page sends dozens a second. */
  private redraw(): void {
    if (this.redrawScheduled) return;
    this.redrawScheduled = true;
    this.env.nextFrame(() => {
      this.redrawScheduled = false;
      this.replaceSession();
    });
  }

  /** Events held in the reorder window are applied when it closes, even if nothing else arrives. */
  private scheduleRelease(): void {
    const due = this.session.peek().feed.nextRelease();
    if (!this.live || due === undefined || this.releaseTimer !== undefined) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      if (this.source.value !== 'live') return;
      if (this.session.peek().feed.release(Date.now())) this.redraw();
      this.scheduleRelease();
    }, Math.max(0, due - Date.now()) + 1);
  }

  private feedLive(events: WireEvent[]): void {
    this.session.peek().feed.add(events, Date.now());
    this.scheduleRelease();
  }

  /**
   * Takes in the capture of tab `tabId`, with a tick of the model every
   * second and the reorder window's release timer. Returns what stops it:
   * the timers cleared, the line to the background closed.
   */
  startLive(tabId: number): () => void {
    this.live = true;
    this.connection = this.env.connect(tabId, {
      cursors: () => this.session.peek().recorder.intake.cursors(),
      capture: (frameId, message) => {
        if (message.type === 'answer') return void (this.faults.onAnswer(frameId, message.id) || this.standIn.onAnswer(message) || this.injector.onAnswer(message));
        if (this.source.value !== 'live') return;
        this.site.heardHook();
        if (message.type === 'coverage') return this.coverage.heard(frameId, message.hook, undefined, message.report);
        // A worker's hook speaks through its page's frame: the frame's place is its page hook's (its workers are in that hook's report).
        if (message.type === 'state' && !isWorkerHook(message.hook)) this.coverage.heard(frameId, message.hook, message.path);
        const recorder = this.session.peek().recorder;
        const clientsBefore = recorder.clients.size;
        const fresh = recorder.accept(frameId, message);
        if (recorder.otherProtocol !== undefined && !this.notice.value) this.notice.value = protocolNotice(recorder.otherProtocol);
        // After accept: a new top-frame hook (a navigation) has started a fresh feed by then.
        this.session.peek().feed.noteHook(message.hook, Date.now());
        if (fresh.length) {
          this.feedLive(fresh);
          this.standIn.observe(fresh);
        }
        if (recorder.clients.size !== clientsBefore) this.coverage.touch();
        // A state (what the hook dropped) or a skip (what could not be carried) changes the status line's counts.
        if (fresh.length || message.type === 'items' || message.type === 'state' || message.type === 'skipped') this.redraw();
      },
      status: (on) => {
        if (!on) this.reconnects.value++;
        this.connected.value = on;
        // A new line (a restarted service worker forgot them): the rules again.
        if (on) this.faults.apply();
      },
      restored: (frameId) => {
        if (this.source.value !== 'live') return;
        // Back/Forward to a cached page is a navigation to an older document. As the Network panel does, start
        // afresh unless the log is preserved, and show that page as a panel opened now would: all its hook
        // still holds, from its load. With the log preserved, go on from the cursors: nothing twice, nothing lost.
        if (frameId === 0 && !this.preserveLog.value) {
          this.clearAll(this.liveRecorder());
          this.connection?.send({ type: 'subscribe', cursors: {} });
        } else this.connection?.send({ type: 'subscribe', cursors: this.session.peek().recorder.intake.cursors() });
      },
      stale: (line) => {
        this.notice.value = line;
      },
    });
    void this.faults.attach(tabId, (m) => this.connection?.send(m));
    this.site.expectHook();
    this.env.onNavigated?.(() => {
      this.site.expectHook();
      this.coverage.reset();
    });
    const askCoverage = () => {
      if (this.source.value !== 'live') return;
      this.coverage.nextRound();
      this.connection?.send({ type: 'hook:coverage' });
      this.env.sites.granted().then(
        (g) => {
          if (g.length !== this.coverage.granted.value.length || g.some((p, i) => p !== this.coverage.granted.value[i])) this.coverage.granted.value = g;
        },
        () => {},
      );
    };
    askCoverage();
    const coverageTimer = setInterval(askCoverage, COVERAGE_POLL_MS);
    // The model's clock: deadlines (a request with no result, an ack not sent) pass with no traffic. Published
    // whatever the feed says: it reports new findings, not a request that timed out (shown on the request alone).
    const tickTimer = setInterval(() => {
      if (this.source.value !== 'live') return;
      this.session.peek().feed.tick(Date.now());
      this.redraw();
    }, 1000);
    return () => {
      this.live = false;
      clearInterval(coverageTimer);
      clearInterval(tickTimer);
      clearTimeout(this.releaseTimer);
      this.releaseTimer = undefined;
      this.faults.detach();
      this.standIn.close();
      this.connection?.close();
      this.connection = null;
    };
  }

  /** Judge by another spec release: the session is evaluated again from what was recorded, at once. */
  setSpecVersion(v: string): void {
    if (!isSpecVersion(v) || v === this.specVersion.value) return;
    this.specVersion.value = v;
    this.env.settings.set('oui.specVersion', v);
    this.rejudge();
  }

  /**
   * Judge by other timers (each in ms; the spec's default for one not given):
   * the session is evaluated again from what was recorded, at once, as for
   * the spec release. A value that is not a timer changes nothing and
   * returns false.
   */
  setTimers(next: Partial<Record<keyof Timers, unknown>>): boolean {
    const merged: Timers = { ...this.timers.value };
    for (const k of TIMER_KEYS) {
      if (!Object.hasOwn(next, k)) continue;
      const n = next[k];
      if (!isTimerValue(n)) return false;
      merged[k] = n;
    }
    if (TIMER_KEYS.every((k) => merged[k] === this.timers.value[k])) return true;
    this.timers.value = Object.freeze(merged);
    this.env.settings.set('oui.timers', JSON.stringify(merged));
    this.rejudge();
    return true;
  }

  /** The session evaluated again from what was recorded, with the settings as they are now. */
  private rejudge(): void {
    const recorder = this.session.peek().recorder;
    const feed = this.newFeed(recorder);
    // Stamped as arrived a window ago: nothing waits, the whole recording is judged now.
    const now = Date.now();
    feed.add(recorder.events, now - REORDER_WINDOW_MS - 1);
    if (this.source.value === 'import') feed.finish();
    else feed.release(now);
    this.replaceSession({ feed });
  }

  setPreserveLog(on: boolean): void {
    this.preserveLog.value = on;
    this.env.settings.set('oui.preserveLog', on ? '1' : '0');
  }

  /**
   * Forget what the panel shows (into `recorder`, when a fresh one replaces
   * it); the page's buffer and cursors are untouched, so nothing is replayed
   * twice. A paused Timeline stays paused, at nothing.
   */
  clearAll(recorder = this.session.peek().recorder): void {
    recorder.clear();
    batch(() => {
      this.replaceSession({ recorder, feed: this.newFeed(recorder) });
      this.selectedEvent.value = null;
      this.pausedAt.value = this.pausedAt.value === null ? null : 0;
    });
  }

  exportJson(): string {
    const { recorder } = this.session.peek();
    return sessionFileText(exportSession(recorder.clients.values(), recorder.events));
  }

  /** Opens a session file; one that cannot be opened says why in one line and leaves the session on screen as it was. */
  importJson(text: string, name?: string): void {
    const parsed = importOutcome(text, name);
    if (!parsed.ok) {
      this.notice.value = parsed.line;
      return;
    }
    const recorder = new Recorder();
    for (const c of parsed.file.clients) recorder.clients.set(c.key, c);
    recorder.add(parsed.file.events);
    // A finished recording: merged, ticked at its end, and what is still missing is missing for certain.
    const feed = this.newFeed(recorder);
    feed.add(parsed.file.events, Date.now());
    feed.finish();
    // A redacted file: its verdicts judged before redaction stand where the markers would change them (as `oui-devtools lint` reads it).
    const redacted = redactedFileFindings(feed.model.findings, parsed.file.redaction, parsed.file.verdicts);
    if (redacted.note) feed.model.standBy(redacted.findings);
    batch(() => {
      this.source.value = 'import';
      this.replaceSession({ recorder, feed });
      this.selectedEvent.value = null;
      this.selectedClient.value = '';
      this.notice.value = redacted.note ? `${parsed.line} This is ${redacted.note}.` : parsed.line;
    });
  }

  /** Leaves an imported session for the tab's capture, replayed from the start of what the page still holds. */
  backToLive(): void {
    const recorder = this.liveRecorder();
    batch(() => {
      this.source.value = 'live';
      this.replaceSession({ recorder, feed: this.newFeed(recorder) });
      this.selectedEvent.value = null;
      this.notice.value = null;
    });
    this.connection?.send({ type: 'subscribe', cursors: {} });
  }
}

function parseSetting(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the panel says when a page still runs a hook of another extension version. */
export function protocolNotice(v: number): string {
  return `This page runs an OUI DevTools hook of another version (capture protocol ${v || 'unnamed'}, this panel speaks ${PROTOCOL}): reload the page to capture it fully.`;
}
