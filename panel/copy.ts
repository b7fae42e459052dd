import { stringifyJson } from '../src/protocol/json-text.ts';

/** What every text put on the clipboard goes through (redaction.ts sets it: the session's secrets replaced). */
let scrubber: (text: string) => string = (t) => t;

export function setCopyScrubber(fn: (text: string) => string): void {
  scrubber = fn;
}

/** A text as the clipboard may hold it: never throws (a scrub that fails copies the marker, not the secret). */
export function scrubForCopy(text: string): string {
  try {
    return scrubber(text);
  } catch {
    return '[REDACTED]';
  }
}

/**
 * Copy text to the clipboard, scrubbed of the session's secrets. DevTools
 * panels often lack the clipboard permission, so fall back to a selected
 * textarea and execCommand.
 */
export async function copyText(raw: string): Promise<boolean> {
  const text = scrubForCopy(raw);
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/**
 * JSON of any value, never throwing: page data can be cyclic, absurdly large
 * or nested 100,000 levels deep (written whole by stringifyJson; on one line
 * when its indented text would be too long to build).
 */
export function safeJson(value: unknown, indent = 2): string {
  try {
    return stringifyJson(value, indent) ?? 'undefined';
  } catch (e) {
    try {
      if (indent && e instanceof RangeError) return stringifyJson(value) ?? 'undefined';
    } catch {
      // Said below, with the first reason.
    }
    return `/* cannot serialise: ${(e as Error).message} */`;
  }
}
