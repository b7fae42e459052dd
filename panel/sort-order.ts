/**
 * The one sort order of the panel's chronological lists (Acks, Hashes,
 * Approvals, Observations' histories, Findings' groups): newest first, or
 * oldest first when the user ticks "Oldest first" in any of those views. One
 * signal for all of them, remembered across panel reloads in the panel's
 * settings (localStorage), as the toolbar's other settings are.
 */
import { signal } from '@preact/signals';

const KEY = 'oui.oldestFirst';

function stored(): boolean {
  try {
    return globalThis.localStorage?.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export const oldestFirst = signal(stored());

export function setOldestFirst(on: boolean): void {
  oldestFirst.value = on;
  try {
    globalThis.localStorage?.setItem(KEY, on ? '1' : '0');
  } catch {
    // A panel without storage keeps the order for this session only.
  }
}
