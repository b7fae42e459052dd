/**
 * Filters the user saved per origin, in extension storage (through
 * `SavedStore`, as panel/injector.ts keeps saved requests): a query the
 * user types every morning for one app is one pick away on the next visit.
 */
import { signal } from '@preact/signals';
import type { SavedStore } from './injector.ts';

const MAX_SAVED = 50;
const storageKey = (origin: string) => `filters:${origin}`;

function readList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((q): q is string => typeof q === 'string' && q.trim() !== '').slice(0, MAX_SAVED) : [];
}

export class SavedFilters {
  /** The origin the list is of, and the list, newest first. */
  readonly origin = signal('');
  readonly list = signal<readonly string[]>([]);

  constructor(private readonly saved: SavedStore) {}

  async load(origin: string): Promise<void> {
    this.origin.value = origin;
    const list = origin ? readList(await this.saved.get(storageKey(origin))) : [];
    // Another origin may have been picked while this one was read.
    if (this.origin.peek() === origin) this.list.value = list;
  }

  async save(query: string): Promise<void> {
    const origin = this.origin.peek();
    const q = query.trim();
    if (!origin || !q) return;
    const list = [q, ...this.list.peek().filter((x) => x !== q)].slice(0, MAX_SAVED);
    this.list.value = list;
    await this.saved.set(storageKey(origin), list);
  }

  async forget(query: string): Promise<void> {
    const origin = this.origin.peek();
    if (!origin) return;
    const list = this.list.peek().filter((x) => x !== query.trim());
    this.list.value = list;
    await this.saved.set(storageKey(origin), list);
  }
}
