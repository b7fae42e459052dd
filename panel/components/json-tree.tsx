/**
 * A JSON value as an expandable tree. Page data is shown as text only, and a
 * huge or deep value never freezes the panel: children render only when a
 * node is opened, long lists show a page at a time, long strings are cut.
 * Alt+click (or Alt+Enter, Alt+→ / Alt+←) on a node opens or closes its
 * whole subtree, as DevTools does, up to a budget of nodes opened at once.
 */
import { useState } from 'preact/hooks';
import { copyText, safeJson } from '../copy.ts';

const PAGE = 100;
const STRING_CAP = 300;
/** Nodes an Alt+click opens at most: a huge or 10,000-deep value opens this far, the rest stays one click away. */
export const DEEP_OPEN_BUDGET = 2000;

/** What an Alt+click hands down its subtree: how many more nodes it may open. */
interface DeepOpen {
  left: number;
}

function preview(value: unknown): string {
  if (Array.isArray(value)) return `Array(${value.length})`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    const head = keys.slice(0, 4).join(', ');
    return `{${head}${keys.length > 4 ? ', …' : ''}}`;
  }
  return scalar(value);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') {
    const cut = value.length > STRING_CAP ? `${value.slice(0, STRING_CAP)}… (${value.length - STRING_CAP} more chars)` : value;
    return JSON.stringify(cut);
  }
  if (value === undefined) return 'undefined';
  return String(value);
}

function scalarClass(value: unknown): string {
  if (value === null || value === undefined) return 'j-null';
  return `j-${typeof value}`;
}

function Node({ name, value, depth, open: initiallyOpen, deep: deepIn, openKeys }: { name: string | null; value: unknown; depth: number; open: boolean; deep?: DeepOpen | undefined; openKeys?: readonly string[] | undefined }) {
  const isObject = value !== null && typeof value === 'object';
  // Opened by an Alt+click above: each container takes one node of the budget, and opens its own children the same way.
  const [deep, setDeep] = useState<DeepOpen | undefined>(() => (deepIn && isObject && deepIn.left > 0 ? (deepIn.left--, deepIn) : undefined));
  const [open, setOpen] = useState(initiallyOpen || deep !== undefined);
  const toggle = (next: boolean, all: boolean) => {
    setDeep(all && next ? { left: DEEP_OPEN_BUDGET } : undefined);
    setOpen(next);
  };
  const [shown, setShown] = useState(PAGE);
  const isContainer = isObject;
  const label = name === null ? null : <span class="j-key">{name}: </span>;
  if (!isContainer) {
    return (
      <div class="j-row" style={{ paddingLeft: `${depth * 12 + 12}px` }}>
        {label}
        <span class={scalarClass(value)}>{scalar(value)}</span>
      </div>
    );
  }
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.slice(0, shown).map((v, i) => [String(i), v])
    : Object.keys(value as object)
        .slice(0, shown)
        .map((k) => [k, (value as Record<string, unknown>)[k]]);
  const total = Array.isArray(value) ? value.length : Object.keys(value as object).length;
  return (
    <div>
      <div
        class="j-row j-toggle"
        role="treeitem"
        aria-expanded={open}
        tabIndex={0}
        style={{ paddingLeft: `${depth * 12}px` }}
        title="Alt+click to expand or collapse everything inside"
        onClick={(e) => toggle(!open, e.altKey)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
            e.preventDefault();
            toggle(e.key === 'ArrowRight' ? true : e.key === 'ArrowLeft' ? false : !open, e.altKey);
          }
        }}
      >
        <span class="j-arrow">{open ? '▾' : '▸'}</span>
        {label}
        <span class="j-preview">{preview(value)}</span>
        <CopyButton value={value} title={`Copy ${name === null ? 'the value' : name} as JSON`} />
      </div>
      {open && entries.map(([k, v]) => <Node key={k} name={k} value={v} depth={depth + 1} open={!!openKeys?.includes(k)} deep={deep} />)}
      {open && total > shown && (
        <button class="link" style={{ marginLeft: `${depth * 12 + 24}px` }} onClick={() => setShown(shown + PAGE)}>
          show {Math.min(PAGE, total - shown)} more of {total - shown}
        </button>
      )}
    </div>
  );
}

/** `openKeys`: children of the root shown open (a failed result's `error`). */
export function JsonTree({ value, label, open = true, openKeys }: { value: unknown; label?: string; open?: boolean; openKeys?: readonly string[] }) {
  return (
    <div class="json-tree" role="tree">
      <Node name={label ?? null} value={value} depth={0} open={open} openKeys={openKeys} />
    </div>
  );
}

export function CopyButton({ value, title = 'Copy as JSON' }: { value: unknown; title?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      class="copy"
      title={title}
      onClick={async (e) => {
        e.stopPropagation();
        setDone(await copyText(safeJson(value)));
        setTimeout(() => setDone(false), 1200);
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}
