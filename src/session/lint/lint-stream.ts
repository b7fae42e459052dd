/**
 * A recording (a session file or a HAR, as bytes or text, in chunks) read
 * through the JSON scanner into the lint engine: the whole of `lint` that
 * needs no file system, so the CLI, `oui-devtools redact` and the panel's
 * redacted HAR export judge a recording the same way.
 */
import { JsonScanner } from './json-scan.ts';
import { InputError, LintEngine, type LintReport } from './engine.ts';
import type { Timers } from '../model/timers.ts';
import type { SessionModel } from '../model/session-model.ts';
import type { WireEvent } from '../wire/wire.ts';

export interface LintStreamOptions {
  spec?: string;
  timers?: Partial<Timers>;
  onBytes?: (n: number) => void;
  onApply?: (ev: WireEvent) => void;
  onModel?: (model: SessionModel) => void;
}

/** One line: control characters and newlines flattened. */
export function line(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

function parsed(text: string, where: string, at: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`invalid JSON in ${where} (line ${at}): ${line((e as Error).message).slice(0, 120)}`);
  }
}

function membersOf(members: Array<[string, string]>, where: string, at: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of members) Object.defineProperty(o, k, { value: parsed(v, `${where}.${k}`, at), enumerable: true, writable: true, configurable: true });
  return o;
}

/** Lints one input stream. Throws InputError / ScanError for unusable input. */
export async function lintRecording(input: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, opts: LintStreamOptions = {}): Promise<LintReport> {
  const onApply = opts.onApply;
  const engine = new LintEngine({ ...(opts.spec ? { specVersion: opts.spec } : {}), ...(opts.timers ? { timers: opts.timers } : {}), ...(onApply ? { onApply } : {}) });
  const scanner = new JsonScanner({
    top: (key, text) => engine.top(key, parsed(text, `"${key}"`, scanner.line)),
    log: (key, text) => engine.log(key, parsed(text, `log.${key}`, scanner.line)),
    record: (array, index, text, at) => {
      const value = parsed(text, `${array}[${index}]`, at);
      if (array === 'clients') engine.sessionClient(value, index);
      else engine.sessionEvent(value, index, at);
    },
    entryHead: (index, members, at, list) => engine.harHead(index, membersOf(members, `log.entries[${index}]`, at), at, list),
    wsMessage: (entry, index, text, at, list) => engine.harMessage(entry, index, parsed(text, `log.entries[${entry}].${list}[${index}]`, at), at, list),
    entryEnd: (index, members, at) => engine.harEnd(index, membersOf(members, `log.entries[${index}]`, at), at),
  });
  const enc = new TextEncoder();
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? enc.encode(chunk) : chunk;
    scanner.write(bytes);
    opts.onBytes?.(bytes.length);
  }
  scanner.end();
  const report = engine.finish();
  opts.onModel?.(engine.model);
  return report;
}
