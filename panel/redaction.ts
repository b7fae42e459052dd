/**
 * Redaction in the panel: what leaves the panel (Export, HAR, every Copy)
 * goes through the rules of src/session/redact; the user's own pointers are
 * kept per origin in extension storage, as saved requests and scenarios are.
 *
 * Copy: copy.ts hands every text it puts on the clipboard to the scrubber set
 * here, which replaces each secret value the session holds (found by the
 * same rules as an export) and every card number; the secrets are worked
 * out again only when the session changed since the last copy.
 */
import { signal } from '@preact/signals';
import type { SavedStore } from './injector.ts';
import type { Recorder } from '../src/session/wire/recorder.ts';
import type { Finding } from '../src/session/model/model-types.ts';
import { redactRecording, type Redacted } from '../src/session/redact/session.ts';
import { unredactedSessionFile, verdictsFor } from '../src/session/redact/session.ts';
import { redactHarFile } from '../src/session/redact/har-file.ts';
import { parsePointer } from '../src/session/redact/pointer.ts';
import type { RedactOptions, UserPointer } from '../src/session/redact/redactor.ts';
import { exportSession, sessionFileText } from '../src/session/wire/session-file.ts';
import { exportHar, harText } from '../src/session/har/export.ts';
import { setCopyScrubber } from './copy.ts';

const storageKey = (origin: string) => `redact:${origin}`;
const MAX_POINTERS = 200;

/** The user's pointers for the page's origin (one JSON pointer a line in the preview). */
export class RedactionSettings {
  readonly origin = signal('');
  readonly pointers = signal<string[]>([]);

  constructor(private readonly saved: SavedStore) {}

  async load(origin: string): Promise<void> {
    this.origin.value = origin;
    if (!origin) return;
    const kept = await this.saved.get(storageKey(origin)).catch(() => undefined);
    const list = Array.isArray(kept) ? kept.filter((p): p is string => typeof p === 'string' && parsePointer(p) !== null).slice(0, MAX_POINTERS) : [];
    if (this.origin.peek() === origin) this.pointers.value = list;
  }

  async save(pointers: string[]): Promise<void> {
    this.pointers.value = pointers.slice(0, MAX_POINTERS);
    const origin = this.origin.peek();
    if (origin) await this.saved.set(storageKey(origin), this.pointers.peek()).catch(() => {});
  }

  options(): RedactOptions {
    const origin = this.origin.peek();
    const pointers: UserPointer[] = this.pointers.peek().map((pointer) => ({ ...(origin ? { origin } : {}), pointer }));
    return { pointers };
  }
}

/** The text of a pointer box: one pointer a line; the lines that are not pointers, for the box to say so. */
export function readPointerLines(text: string): { pointers: string[]; bad: string[] } {
  const pointers: string[] = [];
  const bad: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (parsePointer(line) === null) bad.push(line);
    else if (!pointers.includes(line)) pointers.push(line);
  }
  return { pointers, bad };
}

export function previewOf(recorder: Recorder, opts: RedactOptions): Redacted {
  return redactRecording(recorder.clients.values(), recorder.events, opts);
}

/** A redacted session file: the events redacted, the list, and the findings judged before redaction. */
export function redactedSessionText(r: Redacted, findings: Iterable<Finding>): string {
  return sessionFileText(exportSession(r.clients, r.events, new Date(), { redaction: r.info, verdicts: verdictsFor(findings, r.scrub) }));
}

/**
 * A redacted HAR: the HAR of the capture as it was, through the HAR
 * redactor, so its list names each redacted record as a linter finds it.
 */
export async function redactedHarText(recorder: Recorder, opts: RedactOptions, version?: string): Promise<string> {
  const har = exportHar(recorder.clients.values(), recorder.events, version ? { version } : {});
  // Lint's own verdicts on the HAR before redaction go with it (lint names a HAR's events by their place in the file, not by the panel's ids).
  return (await redactHarFile(har, harText(har), opts)).text;
}

/** An unredacted export, made on purpose: the file says so (`redaction.unredacted`), and so does its name. */
export function unredactedSessionText(recorder: Recorder): string {
  return sessionFileText(unredactedSessionFile(exportSession(recorder.clients.values(), recorder.events)));
}

export function unredactedHarText(recorder: Recorder): string {
  const har = exportHar(recorder.clients.values(), recorder.events);
  const { entries, ...rest } = har.log;
  return harText({ log: { ...rest, _ouiRedaction: { unredacted: true }, entries } as never });
}

/**
 * Every Copy of the panel scrubbed of the session's secrets. `current`
 * gives the recorder and the user's options; the scrubber is rebuilt when the
 * recorder has more events (or another recorder) than at the last copy.
 */
export function scrubCopies(current: () => { recorder: Recorder; opts: RedactOptions }): void {
  let cached: { recorder: Recorder; n: number; key: string; scrub: (t: string) => string } | null = null;
  setCopyScrubber((text) => {
    const { recorder, opts } = current();
    const key = JSON.stringify(opts);
    if (!cached || cached.recorder !== recorder || cached.n !== recorder.events.length || cached.key !== key) {
      cached = { recorder, n: recorder.events.length, key, scrub: previewOf(recorder, opts).scrub };
    }
    return cached.scrub(text);
  });
}
