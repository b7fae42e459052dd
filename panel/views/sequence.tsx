/**
 * The Sequence view: a lane per client and one for the runtime, each
 * request a span from its send to the last of its receipt, interim, result
 * and acknowledgment (src/session/sequence). Spans are drawn on a canvas
 * (panel/sequence-draw.ts); every word on screen is DOM text. Zoom: wheel,
 * Ctrl+wheel, + and -, the buttons; pan: Shift+wheel, a horizontal wheel,
 * dragging the axis, Shift+arrows; a drag across the spans brushes a time
 * range that narrows the Timeline; a click opens the span's exchange;
 * arrows move between spans and Enter opens the selected one.
 */
import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { compareSpans, FLAG, RUNTIME_LANE, type Lane, type Span } from '../../src/session/sequence/spans.ts';
import { LiveSequence } from '../../src/session/sequence/live.ts';
import { windowLatency, type LatencyRow } from '../../src/session/sequence/latency.ts';
import { sortedIndex } from '../../src/session/sorted-index.ts';
import { drawSequence, fit, laneGeometry, pan, spanAt, ticks, zoom, type Palette, type Viewport } from '../sequence-draw.ts';
import { clock, ms } from '../display-text.ts';
import { useModel, useStore } from '../store-context.ts';
import type { PanelStore } from '../store.ts';

/** The window shown; null follows the whole session as it grows. Kept while the panel is open. */
const viewport = signal<Viewport | null>(null);
/** The selected span, by what names it across updates. */
const selection = signal<{ lane: number; client: string; requestId: string } | null>(null);

/**
 * When the user's last zoom, pan or brush began (performance.now()): the
 * draw that follows writes how long the step took, input to drawn, on the
 * canvas (data-step-ms, data-steps) for bench/sequence.ts.
 */
let stepStart = 0;
let steps = 0;
/** Whole layouts built (data-builds on the canvas): a step that took one in is no zoom figure. */
let builds = 0;
const stepping = () => (stepStart = performance.now());

/** A live session's layout is brought up to date at most this often while events pour in. */
const UPDATE_MS = 250;

interface Built {
  live: LiveSequence;
  /** Updates so far: what memos of the (mutated in place) layout depend on. */
  version: number;
  revision: number;
  recorder: unknown;
  model: unknown;
  /** Recorder events told to the layout so far (evicted ones included). */
  told: number;
  at: number;
  /** The last update: how long it took and how many spans it laid out again (data-tick-ms, data-ticks on the canvas). */
  tickMs: number;
  ticks: number;
  relaid: number;
}

/** Events of the recorder looked at again each update besides the new ones: the recorder keeps canonical order, so a late one may land a little before the end. */
const TOUCH_SLACK = 64;

function useLayout(store: PanelStore): Built {
  const { recorder, model } = store;
  const live = store.source.value === 'live';
  const ref = useRef<Built | null>(null);
  const [, rerender] = useState(0);
  const events = recorder.events;
  const last = events[events.length - 1];
  const now = live ? Math.max(Date.now(), last?.t ?? 0) : (last?.t ?? Date.now());
  let prev = ref.current;
  if (!prev || prev.recorder !== recorder || prev.model !== model) {
    const seq = new LiveSequence(model, (id) => recorder.byId.get(id));
    const t0 = performance.now();
    seq.update(now);
    builds++;
    prev = ref.current = { live: seq, version: 1, revision: model.revision, recorder, model, told: events.length + recorder.evicted, at: performance.now(), tickMs: performance.now() - t0, ticks: 0, relaid: seq.stats.lastRelaid };
  }
  // Live, spans in flight run on with the clock even when nothing arrives.
  const stale = prev.revision !== model.revision || (live && prev.live.index.inFlight.length > 0);
  const due = performance.now() - prev.at >= UPDATE_MS;
  if (stale && due) {
    const t0 = performance.now();
    // Only what came since the last update (and a few before it): the cost follows the traffic, not the session.
    const total = events.length + recorder.evicted;
    const fresh = Math.min(events.length, total - prev.told + TOUCH_SLACK);
    for (let i = events.length - fresh; i < events.length; i++) prev.live.touch(events[i]);
    const rebuilds = prev.live.stats.rebuilds;
    prev.live.update(now);
    if (prev.live.stats.rebuilds !== rebuilds) builds++;
    prev.told = total;
    prev.revision = model.revision;
    prev.version++;
    prev.at = performance.now();
    prev.tickMs = prev.at - t0;
    prev.ticks++;
    prev.relaid = prev.live.stats.lastRelaid;
  }
  useEffect(() => {
    if (!stale || due) return;
    const timer = setTimeout(() => rerender((n) => n + 1), UPDATE_MS);
    return () => clearTimeout(timer);
  });
  return prev;
}

/** The colours, read from the stylesheet once per theme (reading computed style forces a style pass). */
let paletteCache: { theme: string | undefined; palette: Palette } | undefined;

function palette(el: Element): Palette {
  const theme = document.documentElement.dataset.theme;
  if (paletteCache && paletteCache.theme === theme) return paletteCache.palette;
  const read = readPalette(el);
  paletteCache = { theme, palette: read };
  return read;
}

function readPalette(el: Element): Palette {
  const css = getComputedStyle(el);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { line: v('--line'), span: v('--accent'), open: /^#[0-9a-f]{6}$/i.test(v('--accent')) ? `${v('--accent')}80` : v('--seq-open'), failed: v('--error'), fault: v('--j-key'), warn: v('--warn'), selected: v('--fg'), tick: v('--bg') };
}

/** One line naming a span, its moments and marks: the selection's status line and the marked list. */
export function describeSpan(s: Span, lanes: readonly Lane[]): string {
  const who = s.lane === 0 ? `runtime's acknowledgment to ${s.client}` : lanes[s.lane]?.label ?? s.client;
  const d = s.durations;
  const moments = [
    d.receipt !== undefined ? `receipt ${ms(d.receipt)}` : '',
    d.interim !== undefined ? `interim ${ms(d.interim)}` : '',
    d.result !== undefined ? `result ${ms(d.result)}` : '',
    d.ack !== undefined ? `ack ${ms(d.ack)}` : '',
  ].filter(Boolean);
  const state = s.flags & FLAG.open ? 'in flight' : s.code ? `failed ${s.code}` : s.status;
  const marks = s.marks.filter((m) => m.kind !== 'failed').map((m) => m.text);
  return [`${s.surfaceId} › ${s.actionId}`, who, state, `${ms(s.end - s.start)}${s.flags & FLAG.open ? ' so far' : ''}`, moments.join(', '), ...marks].filter(Boolean).join(' · ');
}

function openSpan(store: PanelStore, s: Span): void {
  store.openEvent(s.eventId);
  store.ui.detailTab.value = { eventId: s.eventId, tab: 'exchange' };
}

/** The Timeline's chip for a brushed range: what it is, and a way to drop it. */
export function TimeWindowChip() {
  const store = useStore();
  const w = store.ui.timeline.window.value;
  if (!w) return null;
  return (
    <span class="active time-window" data-active="true">
      {`${clock(w.from)} – ${clock(w.to)}`}{' '}
      <button class="icon" aria-label="Clear the time range" title="Clear the time range (brushed in Sequence)" onClick={() => (store.ui.timeline.window.value = null)}>
        ✕
      </button>
    </span>
  );
}

const MARKED = FLAG.fault | FLAG.refusal | FLAG.resend | FLAG.finding | FLAG.failed;
const MAX_MARKED = 50;

export function Sequence() {
  const store = useModel();
  const built = useLayout(store);
  const layout = built.live;
  const index = layout.index;
  const version = built.version;
  const lanes = useMemo(() => laneGeometry(layout), [layout, version]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const wrap = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [brush, setBrush] = useState<{ x0: number; x1: number } | null>(null);
  const drag = useRef<{ x: number; mode: 'brush' | 'pan'; view: Viewport; moved: boolean } | null>(null);
  const view = viewport.value ?? fit(layout);
  const sel = selection.value;
  const selected = sel ? layout.spanOf(sel.client, sel.requestId, sel.lane) : undefined;
  const setView = (v: Viewport) => (stepping(), (viewport.value = v));
  const tOf = (px: number) => view.from + (px / Math.max(1, width)) * (view.to - view.from);

  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const c = canvas.current;
    if (!c || !width) return;
    const dpr = globalThis.devicePixelRatio || 1;
    // Setting a canvas's size clears and may reallocate it: only when it changed.
    const w = Math.round(width * dpr);
    const h = Math.round(lanes.height * dpr);
    if (c.width !== w) c.width = w;
    if (c.height !== h) c.height = h;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const d0 = performance.now();
    const drawn = drawSequence(ctx, index, view, width, lanes, palette(c), selected);
    c.dataset.drawMs = (performance.now() - d0).toFixed(2);
    c.dataset.spansDrawn = String(drawn.spans);
    c.dataset.builds = String(builds);
    c.dataset.tickMs = built.tickMs.toFixed(2);
    c.dataset.ticks = String(built.ticks);
    c.dataset.relaid = String(built.relaid);
    if (stepStart) {
      c.dataset.stepMs = (performance.now() - stepStart).toFixed(2);
      c.dataset.steps = String(++steps);
      stepStart = 0;
    }
  });

  // Wheel: zoom around the pointer; Shift or a sideways wheel pans. Not passive: the panel must not scroll instead.
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const onWheel = (e: WheelEvent) => {
      stepping();
      const v = viewport.peek() ?? fit(layout);
      const rect = c.getBoundingClientRect();
      const at = v.from + ((e.clientX - rect.left) / Math.max(1, rect.width)) * (v.to - v.from);
      const sideways = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      e.preventDefault();
      if (sideways) setView(pan(v, ((e.deltaX || e.deltaY) / Math.max(1, rect.width)) * (v.to - v.from)));
      else setView(zoom(v, Math.exp(e.deltaY * (e.ctrlKey ? 0.01 : 0.002)), at));
    };
    c.addEventListener('wheel', onWheel, { passive: false });
    return () => c.removeEventListener('wheel', onWheel);
  }, [layout, version]);

  const select = (s: Span | undefined) => {
    if (!s) return;
    selection.value = { lane: s.lane, client: s.client, requestId: s.requestId };
    // Keep it in view.
    if (s.end < view.from || s.start > view.to) setView(pan(view, s.start - (view.from + view.to) / 2));
  };

  const step = (dir: 1 | -1, laneStep: 0 | 1 | -1) => {
    if (!index.size) return;
    if (!selected) {
      let first: Span | undefined;
      index.visit(view.from, view.to, (s) => ((first = s), false));
      return select(first ?? index.all()[0]);
    }
    if (laneStep === 0) {
      // The lane's spans are in order: the neighbour is one place on.
      const spans = layout.laneSpans(selected.lane);
      const i = sortedIndex(spans, selected, (a, x) => compareSpans(a, x) < 0);
      return select(spans[i + dir]);
    }
    // Another lane: its span nearest in time to the selected one.
    for (let lane = selected.lane + laneStep; lane >= 0 && lane < layout.lanes.length; lane += laneStep) {
      let best: Span | undefined;
      for (const s of index.query(view.from, view.to)) if (s.lane === lane && (!best || Math.abs(s.start - selected.start) < Math.abs(best.start - selected.start))) best = s;
      if (best) return select(best);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    const k = e.key;
    const handled = () => (e.preventDefault(), e.stopPropagation());
    if (k === '+' || k === '=') return handled(), setView(zoom(view, 0.5, selected ? (selected.start + selected.end) / 2 : undefined));
    if (k === '-' || k === '_') return handled(), setView(zoom(view, 2));
    if (k === '0') return handled(), stepping(), (viewport.value = null);
    if (e.shiftKey && (k === 'ArrowLeft' || k === 'ArrowRight')) return handled(), setView(pan(view, (k === 'ArrowLeft' ? -0.2 : 0.2) * (view.to - view.from)));
    if (k === 'ArrowRight') return handled(), step(1, 0);
    if (k === 'ArrowLeft') return handled(), step(-1, 0);
    if (k === 'ArrowDown') return handled(), step(1, 1);
    if (k === 'ArrowUp') return handled(), step(1, -1);
    if (k === 'Enter' && selected) return handled(), openSpan(store, selected);
    if (k === 'Escape' && selected) return handled(), (selection.value = null);
  };

  const xOf = (e: PointerEvent) => e.clientX - (e.currentTarget as HTMLElement).getBoundingClientRect().left;
  const onDown = (mode: 'brush' | 'pan') => (e: PointerEvent) => {
    if (e.button !== 0) return;
    (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
    drag.current = { x: xOf(e), mode: e.shiftKey ? 'pan' : mode, view, moved: false };
  };
  const onMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const x = xOf(e);
    if (Math.abs(x - d.x) > 4) d.moved = true;
    if (!d.moved) return;
    if (d.mode === 'pan') setView(pan(d.view, ((d.x - x) / Math.max(1, width)) * (d.view.to - d.view.from)));
    else setBrush({ x0: Math.min(d.x, x), x1: Math.max(d.x, x) });
  };
  const onUp = (e: PointerEvent) => {
    const d = drag.current;
    drag.current = null;
    if (!d) return;
    if (d.moved && d.mode === 'brush' && brush) {
      stepping();
      store.ui.timeline.window.value = { from: Math.floor(tOf(brush.x0)), to: Math.ceil(tOf(brush.x1)) };
      setBrush(null);
      return;
    }
    setBrush(null);
    if (d.moved || d.mode !== 'brush') return;
    const rect = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const s = spanAt(index, view, width, lanes, e.clientX - rect.left, e.clientY - rect.top);
    if (s) {
      select(s);
      openSpan(store, s);
    }
  };

  const inView = useMemo(() => {
    let n = 0;
    const marked: Span[] = [];
    // Whole chunks inside the window count by their size and give their marked spans: the step reads chunks, not every span.
    index.walk(
      view.from,
      view.to,
      (c) => {
        n += c.size;
        for (let i = 0; i < c.marked.length && marked.length < MAX_MARKED; i++) if (c.marked[i]!.lane !== 0) marked.push(c.marked[i]!);
        return true;
      },
      (s) => {
        n++;
        if (s.lane !== 0 && s.flags & MARKED && marked.length < MAX_MARKED) marked.push(s);
      },
    );
    return { n, marked };
  }, [index, version, view.from, view.to]);

  const axis = ticks(view, Math.max(2, Math.floor(width / 110)));
  const w = store.ui.timeline.window.value;
  // The whole session's table is kept up to date span by span; a brushed range's reads the requests of the range.
  const latency: LatencyRow[] = useMemo(() => (w ? windowLatency(index, w.from, w.to) : layout.latency.rows()), [layout, version, w?.from, w?.to]);
  return (
    <div class="sequence">
      <div class="seq-toolbar" role="toolbar" aria-label="Sequence">
        <button title="Zoom in (+)" aria-label="Zoom in" onClick={() => setView(zoom(view, 0.5))}>
          +
        </button>
        <button title="Zoom out (-)" aria-label="Zoom out" onClick={() => setView(zoom(view, 2))}>
          −
        </button>
        <button title="Show the whole session, following it as it grows (0)" onClick={() => (viewport.value = null)}>
          Fit
        </button>
        <button title="Earlier (Shift+←)" aria-label="Pan earlier" onClick={() => setView(pan(view, -0.25 * (view.to - view.from)))}>
          ←
        </button>
        <button title="Later (Shift+→)" aria-label="Pan later" onClick={() => setView(pan(view, 0.25 * (view.to - view.from)))}>
          →
        </button>
        <span class="muted" data-testid="seq-range">
          {`${clock(view.from)} – ${clock(view.to)} (${ms(view.to - view.from)}) · ${inView.n} spans in view`}
        </span>
        <span class="seq-legend muted" aria-label="Legend">
          <i class="k-ok" /> done <i class="k-open" /> in flight <i class="k-failed" /> failed or refused <i class="k-fault" /> faulted by you <i class="k-warn" /> re-send or finding
        </span>
      </div>
      {w && (
        <p class="seq-window" role="status">
          {`Timeline narrowed to ${clock(w.from)} – ${clock(w.to)}. `}
          <button onClick={() => (store.view.value = 'timeline')}>Show in Timeline</button>{' '}
          <button onClick={() => (store.ui.timeline.window.value = null)}>Clear range</button>
        </p>
      )}
      {index.size === 0 ? (
        <p class="muted">No request yet: spans appear here as the runtime sends action:request.</p>
      ) : (
        <div class="seq-body">
          <ul class="seq-lanes" aria-label="Lanes">
            <li class="seq-axis-gap" aria-hidden="true" />
            {layout.lanes.map((l, i) => (
              <li key={l.key} style={{ height: `${lanes.heights[i]}px` }} title={l.kind === 'runtime' ? "The runtime's acknowledgments of results" : l.key} data-lane={l.kind === 'runtime' ? 'runtime' : l.key}>
                <span class="seq-lane-name">{l.key === RUNTIME_LANE ? 'Runtime' : l.label}</span> <span class="muted">{layout.laneSpans(i).length}</span>
              </li>
            ))}
          </ul>
          <div class="seq-plot" ref={wrap}>
            <div class="seq-axis" aria-hidden="true" onPointerDown={onDown('pan') as never} onPointerMove={onMove as never} onPointerUp={onUp as never} title="Drag to pan">
              {axis.at.map((t) => (
                <span key={t} style={{ left: `${((t - view.from) / (view.to - view.from)) * width}px` }}>
                  {axis.step < 1000 ? clock(t).slice(-9) : clock(t).slice(0, -4)}
                </span>
              ))}
            </div>
            <canvas
              ref={canvas}
              tabIndex={0}
              role="img"
              aria-label={`Spans of ${layout.lanes.length - 1} clients and the runtime; ${inView.n} in view. Arrows move between spans, Enter opens one, + and - zoom, drag to narrow the Timeline to a time range.`}
              aria-describedby="seq-selected"
              style={{ height: `${lanes.height}px`, width: '100%' }}
              onKeyDown={onKey as never}
              onPointerDown={onDown('brush') as never}
              onPointerMove={onMove as never}
              onPointerUp={onUp as never}
            />
            {brush && <div class="seq-brush" style={{ left: `${brush.x0}px`, width: `${brush.x1 - brush.x0}px`, height: `${lanes.height}px` }} />}
          </div>
        </div>
      )}
      <p id="seq-selected" class="seq-selected" role="status" data-testid="sequence-selected">
        {selected ? describeSpan(selected, layout.lanes) : ''}
        {selected && (
          <>
            {' '}
            <button onClick={() => openSpan(store, selected)}>Open exchange</button>
          </>
        )}
      </p>
      {inView.marked.length > 0 && (
        <section class="seq-marked">
          <h3>Marked in view</h3>
          <ul aria-label="Marked spans in view">
            {inView.marked.map((s) => (
              <li key={`${s.lane}/${s.requestId}`} data-flags={s.flags}>
                <button class="link" onClick={() => (select(s), openSpan(store, s))}>
                  {describeSpan(s, layout.lanes)}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {latency.length > 0 && (
        <section>
          <h3>Latency per action</h3>
          <p class="muted" data-testid="seq-latency-scope">
            {w ? `Requests sent within ${clock(w.from)} – ${clock(w.to)} (the brushed range). ` : ''}From the request to its final result; percentiles by nearest rank over the requests that have one.
          </p>
          <table class="grid seq-latency" aria-label="Latency per action">
            <thead>
              <tr>
                <th>Action</th>
                <th class="num">Count</th>
                <th class="num">p50</th>
                <th class="num">p95</th>
                <th class="num">Max</th>
                <th class="num">In flight</th>
                <th class="num">Failed</th>
              </tr>
            </thead>
            <tbody>
              {latency.map((r) => (
                <tr key={r.action}>
                  <td class="mono">{r.action}</td>
                  <td class="num">{r.count}</td>
                  <td class="num">{r.count ? ms(r.p50) : '—'}</td>
                  <td class="num">{r.count ? ms(r.p95) : '—'}</td>
                  <td class="num">{r.count ? ms(r.max) : '—'}</td>
                  <td class="num">{r.open}</td>
                  <td class="num">{r.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
