/**
 * Page-supplied regular expressions (a schema's `pattern` and
 * `patternProperties`) run in linear time. The JS engine backtracks: one
 * pattern like `^(a+)+$` against 30 characters would freeze the panel that
 * validates captured params. RE2 (re2js, a pure-JS port: no eval) matches in
 * time linear in the input, so no pattern a page sends can cost more than its
 * input's length. What RE2 cannot express (lookaround, backreferences) is
 * refused up front, never run.
 */
import { RE2JS } from 're2js';

const MAX_CACHED = 500;
const compiled = new Map<string, RE2JS | Error>();

function compile(source: string): RE2JS | Error {
  let c = compiled.get(source);
  if (c === undefined) {
    try {
      c = RE2JS.compile(RE2JS.translateRegExp(source));
    } catch (e) {
      c = e instanceof Error ? e : new Error(String(e));
    }
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(source, c);
  }
  return c;
}

/** Why a pattern cannot run in linear time (lookaround, backreference…), or null when it can. */
export function linearRegExpError(source: string): string | null {
  const c = compile(source);
  return c instanceof Error ? c.message.replace(/^error parsing regexp: /, '') : null;
}

/** Whether `source` matches somewhere in `input`, in linear time. Throws for a pattern linearRegExpError refuses. */
export function linearTest(source: string, input: string): boolean {
  const c = compile(source);
  if (c instanceof Error) throw c;
  return c.test(input);
}

const NativeRegExp = RegExp;

/**
 * Runs `fn` with `RegExp` standing for a linear-time engine: a validator
 * library that builds `new RegExp(pattern).test(s)` for a schema gets RE2.
 * Patterns RE2 refuses are built natively: in a validator they are only
 * compiled (the `regex` format), since schemas using them are refused first.
 * Synchronous and restored in every case, so nothing else ever sees it.
 */
export function withLinearRegExp<T>(fn: () => T): T {
  const g = globalThis as { RegExp: RegExpConstructor };
  const Linear = function (this: unknown, source: unknown, flags?: unknown) {
    const s = source instanceof NativeRegExp ? source.source : String(source);
    const c = compile(s);
    if (c instanceof Error) return new NativeRegExp(s, flags === undefined ? undefined : String(flags));
    return { source: s, test: (input: unknown) => c.test(String(input)) };
  } as unknown as RegExpConstructor;
  g.RegExp = Linear;
  try {
    return fn();
  } finally {
    g.RegExp = NativeRegExp;
  }
}
