/**
 * Changes between two JSON values as an RFC 6902 patch (no `test` ops, as
 * RFC 0114 moves them) and as lines a person reads: "changed /items/0/qty
 * from 1 to 2", "added /items/3 = {…}", "removed /coupon (was "X10")". The full values stay
 * the record; the patch is only how a change is shown.
 */
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { jsonPrefix } from '../../protocol/json-text.ts';
import { jsonEqual } from './json-equal.ts';

/** Summary lines per change; the rest is counted in a last line. */
export const MAX_SUMMARY_LINES = 20;

type Shape = 'array' | 'object' | 'scalar';

function shapeOf(v: unknown): Shape {
  if (Array.isArray(v)) return 'array';
  return v !== null && typeof v === 'object' ? 'object' : 'scalar';
}

/**
 * RFC 6902 patch from `prev` to `next`. Values of different shapes (and
 * scalars, which fast-json-patch does not compare) are one `replace` of the
 * root; so is anything the diff cannot walk (cycles, depth).
 */
export function diffValues(prev: unknown, next: unknown): Operation[] {
  const a = shapeOf(prev);
  if (a !== shapeOf(next) || a === 'scalar') {
    return jsonEqual(prev, next) ? [] : [{ op: 'replace', path: '', value: next }];
  }
  try {
    return jsonpatch.compare(prev as object, next as object);
  } catch {
    return [{ op: 'replace', path: '', value: next }];
  }
}

/** A value in a line of text: its JSON, shortened. */
export function formatValue(v: unknown, max = 40): string {
  let text: string;
  try {
    // The start of its JSON at any depth: a line shows 40 characters of a value, never all of a deep one.
    text = v === undefined ? 'undefined' : (jsonPrefix(v, max) ?? String(v));
  } catch {
    text = Array.isArray(v) ? '[…]' : typeof v === 'object' ? '{…}' : String(v);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function unescapeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value at a JSON pointer, or undefined. */
export function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const seg = unescapeSegment(raw);
    if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** Orders pointers as a person reads a document: segment by segment, array indices by number. */
function comparePointers(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const r = y[i]!;
    if (p === r) continue;
    const np = /^\d+$/.test(p) ? Number(p) : NaN;
    const nr = /^\d+$/.test(r) ? Number(r) : NaN;
    if (!Number.isNaN(np) && !Number.isNaN(nr)) return np - nr;
    return p < r ? -1 : 1;
  }
  return x.length - y.length;
}

function line(prev: unknown, op: Operation): string {
  const where = op.path === '' ? '/' : op.path;
  switch (op.op) {
    case 'replace':
      return `changed ${where} from ${formatValue(valueAt(prev, op.path))} to ${formatValue(op.value)}`;
    case 'add':
      return `added ${where} = ${formatValue(op.value)}`;
    case 'remove':
      return `removed ${where} (was ${formatValue(valueAt(prev, op.path))})`;
    case 'move':
      return `moved ${op.from} to ${where}`;
    case 'copy':
      return `copied ${op.from} to ${where}`;
    default:
      return `${op.op} ${where}`;
  }
}

/** Readable lines for `patch`, applied to `prev`, in document order (the patch's own order is the diff's). */
export function summarizePatch(prev: unknown, patch: Operation[], maxLines = MAX_SUMMARY_LINES): string[] {
  const ops = [...patch].sort((a, b) => comparePointers(a.path, b.path));
  const lines = ops.slice(0, maxLines).map((op) => line(prev, op));
  if (ops.length > maxLines) lines.push(`… and ${ops.length - maxLines} more changes`);
  return lines;
}

/** The patch and summary of an observation's first value: one replace of the root. */
export function initialChange(value: unknown): { patch: Operation[]; summary: string[] } {
  return { patch: [{ op: 'replace', path: '', value }], summary: [`initial value ${formatValue(value)}`] };
}

/** The patch from `prev` to `next` and its summary. */
export function describeChange(prev: unknown, next: unknown): { patch: Operation[]; summary: string[] } {
  const patch = diffValues(prev, next);
  return { patch, summary: patch.length ? summarizePatch(prev, patch) : ['no change'] };
}
