/**
 * The Node side of the Playwright fixture: one browser context's OUI traffic,
 * decoded and judged by the same recorder, merge and session model as the
 * panel.
 *
 * Every frame of every page of the context runs the page hook and the
 * fixture's bridge (content/fixture-bridge.ts, from the init script); the
 * bridge hands each batch to the context's binding, which lands here. Each
 * page gets a Recorder of its own, as each tab gets a panel of its own: frame
 * paths and postMessage pairing keys are per tab. A page keeps its traffic
 * across navigations (the panel's "preserve log").
 */
import type { BrowserContext, Frame, Page } from '@playwright/test';
import { Recorder } from '../session/wire/recorder.ts';
import { ModelFeed, canonicalOrder } from '../session/model/merge.ts';
import type { SessionModel } from '../session/model/session-model.ts';
import type { Finding, Severity } from '../session/model/types.ts';
import { exportSession, type SessionFile } from '../session/wire/session-file.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';
import { OUI_FIXTURE_BINDING } from './binding.ts';
import type { Oui, OuiFindingsOptions } from './api.d.ts';

export const SEVERITIES: readonly Severity[] = ['critical', 'error', 'warning', 'info'];

export function isSeverity(v: unknown): v is Severity {
  return typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v);
}

/** Whether severity `s` is at `min` or above. */
export function atLeast(s: Severity, min: Severity): boolean {
  return SEVERITIES.indexOf(s) <= SEVERITIES.indexOf(min);
}

/** The hook sends a frame's batches this often (content/capture-buffer.ts, FLUSH_DELAY_MS = 16), plus room for a busy machine. */
const HOOK_FLUSH_WAIT_MS = 60;

interface PageCapture {
  /** In order of the first traffic: the first page keeps its clients' keys as they are. */
  index: number;
  page: Page | null;
  recorder: Recorder;
  frames: WeakMap<Frame, number>;
  nextFrame: number;
}

/** A consistent view at one moment: clients (keys made unique across pages) and events in the canonical order. */
export interface Snapshot {
  clients: WireClient[];
  events: WireEvent[];
}

export class OuiCapture implements Oui {
  private readonly pages: PageCapture[] = [];
  private readonly byPage = new WeakMap<Page, PageCapture>();
  /** Messages the binding could not attribute to a page (none expected). */
  private orphan: PageCapture | null = null;
  /** Batches that could not be read (never expected: the bridge sends JSON). */
  unreadable = 0;
  private closed = false;

  private constructor(
    private readonly context: BrowserContext,
    private readonly specVersion?: string,
  ) {}

  /** Installs the binding and the init script on `context`: every page and frame opened or navigated from now on is captured. */
  static async attach(context: BrowserContext, initScript: string, opts: { specVersion?: string } = {}): Promise<OuiCapture> {
    const capture = new OuiCapture(context, opts.specVersion);
    await context.exposeBinding(OUI_FIXTURE_BINDING, (source: { page?: Page | null; frame?: Frame | null }, text: unknown) => {
      capture.accept(source.page ?? null, source.frame ?? null, text);
    });
    await context.addInitScript({ content: initScript });
    return capture;
  }

  /** One batch from a frame's bridge. */
  accept(page: Page | null, frame: Frame | null, text: unknown): void {
    if (this.closed || typeof text !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.unreadable++;
      return;
    }
    const capture = this.pageCapture(page);
    capture.recorder.accept(this.frameId(capture, frame), message);
  }

  private pageCapture(page: Page | null): PageCapture {
    if (!page) return (this.orphan ??= this.newPage(null));
    let capture = this.byPage.get(page);
    if (!capture) {
      capture = this.newPage(page);
      this.byPage.set(page, capture);
    }
    return capture;
  }

  private newPage(page: Page | null): PageCapture {
    // Navigations keep what was captured: a test reads its whole story.
    const capture: PageCapture = { index: this.pages.length, page, recorder: new Recorder(undefined, () => {}), frames: new WeakMap(), nextFrame: 1 };
    this.pages.push(capture);
    return capture;
  }

  /** 0 for a page's main frame (as the browser numbers it for extensions), then 1, 2… in order of first traffic. */
  private frameId(capture: PageCapture, frame: Frame | null): number {
    if (!frame) return 0;
    let id = capture.frames.get(frame);
    if (id === undefined) {
      id = capture.page && frame === capture.page.mainFrame() ? 0 : frame.parentFrame() === null ? 0 : capture.nextFrame++;
      capture.frames.set(frame, id);
    }
    return id;
  }

  async settle(): Promise<void> {
    if (this.closed) return;
    await new Promise((r) => setTimeout(r, HOOK_FLUSH_WAIT_MS));
    // A round trip to each frame: its binding calls made before are delivered before the answer.
    const frames = this.context.pages().flatMap((p) => (p.isClosed() ? [] : p.frames()));
    await Promise.all(frames.map((f) => f.evaluate('0').catch(() => undefined)));
  }

  /** What was captured so far, without waiting for the pages. */
  snapshot(): Snapshot {
    const clients: WireClient[] = [];
    const events: WireEvent[] = [];
    const used = new Set<string>();
    for (const p of this.pages) {
      // Frame paths ('top/0') make postMessage keys: two pages can pair frames at the same paths.
      const rename = new Map<string, string>();
      for (const c of p.recorder.clients.values()) {
        let key = c.key;
        if (used.has(key)) {
          key = `${c.key}#page${p.index + 1}`;
          for (let n = 2; used.has(key); n++) key = `${c.key}#page${p.index + 1}.${n}`;
          rename.set(c.key, key);
        }
        used.add(key);
        clients.push(key === c.key ? { ...c } : { ...c, key });
      }
      for (const ev of p.recorder.events) {
        const to = rename.get(ev.client);
        events.push(to ? { ...ev, client: to } : ev);
      }
    }
    return { clients, events: canonicalOrder(events) };
  }

  /** The model of a snapshot, judged as the panel judges an imported recording: merged, ticked at its end, absences certain. */
  modelOf(snap: Snapshot): SessionModel {
    const byKey = new Map(snap.clients.map((c) => [c.key, c]));
    const feed = new ModelFeed((key) => byKey.get(key), { model: this.specVersion ? { specVersion: this.specVersion } : {} });
    feed.add(snap.events, Date.now());
    feed.finish();
    return feed.model;
  }

  async findings(options: OuiFindingsOptions = {}): Promise<Finding[]> {
    await this.settle();
    return filterFindings(this.modelOf(this.snapshot()).findings, options.min);
  }

  async session(): Promise<SessionModel> {
    await this.settle();
    return this.modelOf(this.snapshot());
  }

  async clients(): Promise<WireClient[]> {
    await this.settle();
    return this.snapshot().clients;
  }

  async events(): Promise<WireEvent[]> {
    await this.settle();
    return this.snapshot().events;
  }

  async sessionFile(): Promise<SessionFile> {
    await this.settle();
    const snap = this.snapshot();
    return exportSession(snap.clients, snap.events);
  }

  /** What the capture could not see: items the hook dropped or that never reached the test, per page. */
  losses(): { lost: number; undelivered: number; unreadable: number } {
    let lost = 0;
    let undelivered = 0;
    for (const p of this.pages) {
      lost += p.recorder.intake.totalLost();
      undelivered += p.recorder.intake.totalUndelivered();
    }
    return { lost, undelivered, unreadable: this.unreadable };
  }

  /** Stops taking batches in (the context is being torn down). */
  close(): void {
    this.closed = true;
  }
}

/** Findings of the app's own traffic at `min` or above, the most severe first, then in capture order. */
export function filterFindings(findings: readonly Finding[], min: Severity = 'error'): Finding[] {
  return findings
    .filter((f) => !f.experiment && atLeast(f.severity, min))
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITIES.indexOf(a.f.severity) - SEVERITIES.indexOf(b.f.severity) || a.f.t - b.f.t || a.i - b.i)
    .map(({ f }) => f);
}
