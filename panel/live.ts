/**
 * The panel's live state: the recorder fed by the connection, exposed as
 * signals. Many wire events arrive in bursts, so the view re-renders on a
 * version counter bumped once per batch rather than per event.
 */
import { signal } from '@preact/signals';
import { Recorder } from '../src/session/recorder.ts';
import { connectPanel, type Connection } from './connection.ts';

export const recorder = new Recorder();
export const version = signal(0);
export const connected = signal(false);
export const paused = signal(false);
/** How often the port to the background dropped (a stopped service worker, an extension reload). */
export const reconnects = signal(0);
export let connection: Connection | null = null;

export function startLive(tabId: number): void {
  connection = connectPanel(tabId, {
    cursors: () => recorder.intake.cursors(),
    capture(frameId, message) {
      const fresh = recorder.accept(frameId, message);
      if (fresh.length || (message as { type?: string })?.type === 'items') version.value++;
    },
    status(on) {
      if (!on) reconnects.value++;
      connected.value = on;
    },
  });
}
