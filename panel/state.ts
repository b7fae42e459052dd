/**
 * The panel's state: the recorder (capture → wire events) and the session
 * model (wire events → surfaces, requests, findings), exposed as signals.
 * Traffic arrives in bursts, so views re-render on a version counter bumped
 * once per batch rather than per event.
 */
import { signal } from '@preact/signals';
import { Recorder } from '../src/session/wire/recorder.ts';
import { ModelFeed, REORDER_WINDOW_MS } from '../src/session/model/merge.ts';
import { LATEST_SPEC_VERSION, isSpecVersion, type SpecVersion } from '../src/session/model/rules.ts';
import type { SessionModel } from '../src/session/model/session-model.ts';
import { exportSession, importOutcome } from '../src/session/wire/session-file.ts';
import type { WireEvent } from '../src/session/wire/wire.ts';
import { connectPanel, type Connection } from './connection.ts';
import { PROTOCOL } from '../src/messages.ts';
import { onAnswer } from './injector.ts';
import { expectHook, heardHook } from './capture-site.ts';

export type View = 'timeline' | 'surfaces' | 'hashes' | 'observations' | 'acks' | 'approvals' | 'findings' | 'inject';

export const version = signal(0);
export const connected = signal(false);
/** How often the port to the background dropped (a stopped service worker, an extension reload). */
export const reconnects = signal(0);
export const view = signal<View>('timeline');
export const selectedClient = signal<string>('');
export const selectedEvent = signal<string | null>(null);
/** Paused: the timeline stops at this many events; everything is still recorded. */
export const pausedAt = signal<number | null>(null);
export const preserveLog = signal(localStorage.getItem('oui.preserveLog') === '1');
export const notice = signal<string | null>(null);
export const source = signal<'live' | 'import'>('live');
/** The spec release clients are judged by: the traffic declares none, so the user's pick (default: the newest). */
export const specVersion = signal<SpecVersion>(storedSpecVersion());

function storedSpecVersion(): SpecVersion {
  const v = localStorage.getItem('oui.specVersion');
  return isSpecVersion(v) ? v : LATEST_SPEC_VERSION;
}

let redrawScheduled = false;
/**
 * One redraw per animation frame however many batches arrive: a busy page
 * sends dozens a second, and a hidden panel (no frames) redraws when shown.
 */
function redraw(): void {
  if (redrawScheduled) return;
  redrawScheduled = true;
  requestAnimationFrame(() => {
    redrawScheduled = false;
    version.value++;
  });
}

export let recorder = new Recorder(undefined, onNavigate);
/**
 * The model is fed through the merge (src/session/model/merge.ts), never in
 * arrival order: batches of an iframe's hook and of the host's race each
 * other, and a rebuild may replace the model, so `model` is re-read from the
 * feed after each step.
 */
let feed = newFeed();
export let model: SessionModel = feed.model;
export let connection: Connection | null = null;

function newFeed(): ModelFeed {
  return new ModelFeed((key) => recorder.clients.get(key), { model: { specVersion: specVersion.value } });
}

let releaseTimer: ReturnType<typeof setTimeout> | undefined;
/** Events held in the reorder window are applied when it closes, even if nothing else arrives. */
function scheduleRelease(): void {
  const due = feed.nextRelease();
  if (due === undefined || releaseTimer !== undefined) return;
  releaseTimer = setTimeout(() => {
    releaseTimer = undefined;
    if (source.value !== 'live') return;
    if (feed.release(Date.now())) {
      model = feed.model;
      redraw();
    }
    scheduleRelease();
  }, Math.max(0, due - Date.now()) + 1);
}

/** The inspected page navigated or reloaded: start afresh unless the log is preserved. Runs before the new page's first batch is taken in. */
function onNavigate(): void {
  if (!preserveLog.value) clearAll();
}

function feedLive(events: WireEvent[]): void {
  feed.add(events, Date.now());
  model = feed.model;
  scheduleRelease();
}

/** What the panel says when a page still runs a hook of another extension version. */
export function protocolNotice(v: number): string {
  return `This page runs an OUI DevTools hook of another version (capture protocol ${v || 'unnamed'}, this panel speaks ${PROTOCOL}): reload the page to capture it fully.`;
}

export function startLive(tabId: number): void {
  connection = connectPanel(tabId, {
    cursors: () => recorder.intake.cursors(),
    capture(frameId, message) {
      if (message.type === 'answer') return onAnswer(message);
      if (source.value !== 'live') return;
      heardHook();
      const fresh = recorder.accept(frameId, message);
      if (recorder.otherProtocol !== undefined && !notice.value) notice.value = protocolNotice(recorder.otherProtocol);
      // After accept: a new top-frame hook (a navigation) has started a fresh feed by then.
      feed.noteHook(message.hook, Date.now());
      if (fresh.length) feedLive(fresh);
      if (fresh.length || message.type === 'items') redraw();
    },
    status(on) {
      if (!on) reconnects.value++;
      connected.value = on;
    },
    restored(frameId) {
      if (source.value !== 'live') return;
      // Back/Forward to a cached page is a navigation to an older document. As the Network panel does, start
      // afresh unless the log is preserved, and show that page as a panel opened now would: all its hook
      // still holds, from its load. With the log preserved, go on from the cursors: nothing twice, nothing lost.
      if (frameId === 0 && !preserveLog.value) {
        recorder = new Recorder(undefined, onNavigate);
        clearAll();
        connection?.send({ type: 'subscribe', cursors: {} });
      } else connection?.send({ type: 'subscribe', cursors: recorder.intake.cursors() });
    },
    stale(line) {
      notice.value = line;
    },
  });
  expectHook();
  // A navigation to a site the hook does not run on sends nothing: only DevTools tells the panel it happened.
  (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.network?.onNavigated.addListener(() => expectHook());
  setInterval(() => {
    if (source.value !== 'live') return;
    const changed = feed.tick(Date.now());
    model = feed.model;
    if (changed) redraw();
  }, 1000);
}

/** Judge by another spec release: the session is evaluated again from what was recorded, at once. */
export function setSpecVersion(v: string): void {
  if (!isSpecVersion(v) || v === specVersion.value) return;
  specVersion.value = v;
  localStorage.setItem('oui.specVersion', v);
  feed = newFeed();
  // Stamped as arrived a window ago: nothing waits, the whole recording is judged now.
  const now = Date.now();
  feed.add(recorder.events, now - REORDER_WINDOW_MS - 1);
  if (source.value === 'import') feed.finish();
  else feed.release(now);
  model = feed.model;
  version.value++;
}

export function setPreserveLog(on: boolean): void {
  preserveLog.value = on;
  localStorage.setItem('oui.preserveLog', on ? '1' : '0');
}

/** Forget what the panel shows; the page's buffer and cursors are untouched, so nothing is replayed twice. */
export function clearAll(): void {
  recorder.clear();
  feed = newFeed();
  model = feed.model;
  selectedEvent.value = null;
  pausedAt.value = pausedAt.value === null ? null : 0;
  version.value++;
}

export function exportJson(): string {
  return JSON.stringify(exportSession(recorder.clients.values(), recorder.events));
}

/** Opens a session file; one that cannot be opened says why in one line and leaves the session on screen as it was. */
export function importJson(text: string, name?: string): void {
  const parsed = importOutcome(text, name);
  if (!parsed.ok) {
    notice.value = parsed.line;
    return;
  }
  source.value = 'import';
  recorder = new Recorder();
  for (const c of parsed.file.clients) recorder.clients.set(c.key, c);
  recorder.add(parsed.file.events);
  // A finished recording: merged, ticked at its end, and what is still missing is missing for certain.
  feed = newFeed();
  feed.add(parsed.file.events, Date.now());
  feed.finish();
  model = feed.model;
  selectedEvent.value = null;
  selectedClient.value = '';
  notice.value = parsed.line;
  version.value++;
}

export function backToLive(): void {
  source.value = 'live';
  recorder = new Recorder(undefined, onNavigate);
  feed = newFeed();
  model = feed.model;
  notice.value = null;
  // Replays everything the page still holds, from the start.
  connection?.send({ type: 'subscribe', cursors: {} });
  version.value++;
}
