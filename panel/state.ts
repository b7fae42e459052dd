/**
 * The panel's state: the recorder (capture → wire events) and the session
 * model (wire events → surfaces, requests, findings), exposed as signals.
 * Traffic arrives in bursts, so views re-render on a version counter bumped
 * once per batch rather than per event.
 */
import { signal } from '@preact/signals';
import { Recorder } from '../src/session/recorder.ts';
import { SessionModel } from '../src/session/model.ts';
import { exportSession, parseSessionFile } from '../src/session/session-file.ts';
import type { WireEvent } from '../src/session/wire.ts';
import { connectPanel, type Connection } from './connection.ts';
import { onAnswer } from './injector.ts';

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
export let model = new SessionModel();
export let connection: Connection | null = null;

/** The inspected page navigated or reloaded: start afresh unless the log is preserved. Runs before the new page's first batch is taken in. */
function onNavigate(): void {
  if (!preserveLog.value) clearAll();
}

function feed(events: WireEvent[]): void {
  for (const ev of events) {
    const client = recorder.clients.get(ev.client);
    if (client) model.apply(ev, client);
  }
}

export function startLive(tabId: number): void {
  connection = connectPanel(tabId, {
    cursors: () => recorder.intake.cursors(),
    capture(frameId, message) {
      if ((message as { type?: unknown } | null)?.type === 'answer') return onAnswer(message);
      if (source.value !== 'live') return;
      const fresh = recorder.accept(frameId, message);
      feed(fresh);
      if (fresh.length || (message as { type?: string })?.type === 'items') redraw();
    },
    status(on) {
      if (!on) reconnects.value++;
      connected.value = on;
    },
  });
  setInterval(() => {
    if (source.value !== 'live') return;
    const before = model.findings.length;
    model.tick(Date.now());
    if (model.findings.length !== before) redraw();
  }, 1000);
}

export function setPreserveLog(on: boolean): void {
  preserveLog.value = on;
  localStorage.setItem('oui.preserveLog', on ? '1' : '0');
}

/** Forget what the panel shows; the page's buffer and cursors are untouched, so nothing is replayed twice. */
export function clearAll(): void {
  recorder.clear();
  model = new SessionModel();
  selectedEvent.value = null;
  pausedAt.value = pausedAt.value === null ? null : 0;
  version.value++;
}

export function exportJson(): string {
  return JSON.stringify(exportSession(recorder.clients.values(), recorder.events));
}

export function importJson(text: string): void {
  const parsed = parseSessionFile(text);
  if (!parsed.ok) {
    notice.value = `Import failed: ${parsed.error}`;
    return;
  }
  source.value = 'import';
  recorder = new Recorder();
  for (const c of parsed.file.clients) recorder.clients.set(c.key, c);
  recorder.add(parsed.file.events);
  model = new SessionModel();
  feed(recorder.events);
  const last = recorder.events.at(-1);
  if (last) model.tick(last.t);
  selectedEvent.value = null;
  selectedClient.value = '';
  notice.value = `Imported ${parsed.file.events.length} events from a session exported ${parsed.file.exportedAt || 'at an unknown time'}${parsed.skipped ? `; ${parsed.skipped} malformed entries skipped` : ''}. Live capture is off until you go back to live.`;
  version.value++;
}

export function backToLive(): void {
  source.value = 'live';
  recorder = new Recorder(undefined, onNavigate);
  model = new SessionModel();
  notice.value = null;
  // Replays everything the page still holds, from the start.
  connection?.send({ type: 'subscribe', cursors: {} });
  version.value++;
}
