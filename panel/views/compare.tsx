/**
 * The Compare view: the live session (or the one on screen) against a
 * session file or HAR, or two files against each other
 * (src/session/compare): what changed in the surfaces and their actions and
 * observations, in sentences; findings added and gone, by rule and place;
 * each action's latency before → after.
 */
import { signal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { compareSessions, type CompareSide, type LatencyStats } from '../../src/session/compare/compare.ts';
import { sideOfRecording } from '../../src/session/compare/side.ts';
import { SessionDigest } from '../../src/session/compare/digest.ts';
import type { WireEvent } from '../../src/session/wire/wire.ts';
import { readDroppedFile } from '../har-import.ts';
import type { PanelStore } from '../store.ts';
import { useModel } from '../store-context.ts';

interface FileSide {
  name: string;
  side: CompareSide;
}

/** Kept while the user visits other views: the file compared against (before), and the second file (after) when two are compared. */
const before = signal<FileSide | null>(null);
const after = signal<FileSide | null>(null);
const problem = signal<string | null>(null);

/** The session on screen's digest, fed only what was appended since the last frame; made afresh for another list, or one cleared or cut at its front. */
const onScreen = { events: null as readonly WireEvent[] | null, first: '', n: 0, digest: new SessionDigest() };
function screenDigest(events: readonly WireEvent[]): SessionDigest {
  if (onScreen.events !== events || events.length < onScreen.n || (events.length > 0 && events[0]!.id !== onScreen.first)) {
    onScreen.events = events;
    onScreen.first = events[0]?.id ?? '';
    onScreen.n = 0;
    onScreen.digest = new SessionDigest();
  }
  for (; onScreen.n < events.length; onScreen.n++) onScreen.digest.apply(events[onScreen.n]!);
  return onScreen.digest;
}

async function readSide(store: PanelStore, file: File): Promise<FileSide | null> {
  let text: string;
  try {
    text = await file.text();
  } catch (e) {
    problem.value = `${file.name} could not be read (${(e as Error).message}).`;
    return null;
  }
  const r = readDroppedFile(text);
  if (!r.ok) {
    problem.value = `${file.name} cannot be compared: ${r.why}.`;
    return null;
  }
  problem.value = null;
  return { name: file.name, side: sideOfRecording(r.file.clients, r.file.events, { specVersion: store.specVersion.peek(), timers: store.timers.peek() }) };
}

/** `a` and `b` in backticks become code: the sentences name ids that way. */
function Ticked({ text }: { text: string }) {
  const parts = text.split('`');
  return (
    <>
      {parts.map((p, i) => (i % 2 ? <code key={i}>{p}</code> : p))}
    </>
  );
}

function ms(n: number): string {
  return `${Math.round(n)} ms`;
}

function Pair({ a, b, k }: { a?: LatencyStats; b?: LatencyStats; k: keyof LatencyStats }): ComponentChildren {
  const v = (s?: LatencyStats) => (s ? (k === 'count' ? String(s[k]) : ms(s[k])) : '–');
  const worse = a && b && k !== 'count' && b[k] > a[k];
  return <span class={worse ? 'warn' : ''}>{`${v(a)} → ${v(b)}`}</span>;
}

function Result({ a, b, names }: { a: CompareSide; b: CompareSide; names: [string, string] }) {
  const c = useMemo(() => compareSessions(a, b), [a, b]);
  const { added, gone, kept } = c.findings;
  return (
    <div class="compare-result" data-testid="compare-result">
      <p class="muted">
        <b>{names[0]}</b> (before) → <b>{names[1]}</b> (after)
      </p>
      <h3>Surfaces</h3>
      {c.sentences.length ? (
        <ul class="compare-sentences" data-testid="compare-sentences">
          {c.sentences.map((s, i) => (
            <li key={i} class={`cmp-${s.kind}`} data-kind={s.kind}>
              <span class="cmp-mark" aria-hidden="true">
                {s.kind === 'added' ? '+' : s.kind === 'removed' ? '−' : '~'}
              </span>{' '}
              <Ticked text={s.text} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted" data-testid="compare-no-change">No change in the surfaces, their actions or observations.</p>
      )}
      <h3>
        Findings: {added.length} added, {gone.length} gone, {kept} kept
      </h3>
      {added.length + gone.length > 0 && (
        <table class="grid compare-findings" data-testid="compare-findings">
          <thead>
            <tr>
              <th />
              <th>Severity</th>
              <th>Rule</th>
              <th>Place</th>
              <th>Count</th>
              <th>Example</th>
            </tr>
          </thead>
          <tbody>
            {[...added.map((f) => ({ f, what: 'added' })), ...gone.map((f) => ({ f, what: 'gone' }))].map(({ f, what }) => (
              <tr key={`${what} ${f.rule} ${f.place}`} data-change={what} data-rule={f.rule}>
                <td>{what}</td>
                <td class={`sev-${f.severity}`}>{f.severity}</td>
                <td>
                  <code>{f.rule}</code>
                </td>
                <td>
                  <code>{f.place}</code>
                </td>
                <td>{f.count}</td>
                <td class="compare-example">{f.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Latency per action</h3>
      {c.latency.length ? (
        <table class="grid compare-latency" data-testid="compare-latency">
          <thead>
            <tr>
              <th>Action</th>
              <th>Count</th>
              <th>p50</th>
              <th>p95</th>
              <th>Max</th>
            </tr>
          </thead>
          <tbody>
            {c.latency.map((r) => (
              <tr key={r.action} data-action={r.action}>
                <td>
                  <code>{r.action}</code>
                </td>
                <td>
                  <Pair a={r.before} b={r.after} k="count" />
                </td>
                <td>
                  <Pair a={r.before} b={r.after} k="p50" />
                </td>
                <td>
                  <Pair a={r.before} b={r.after} k="p95" />
                </td>
                <td>
                  <Pair a={r.before} b={r.after} k="max" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No answered request on either side.</p>
      )}
      {(c.droppedRequests.before > 0 || c.droppedRequests.after > 0) && (
        <p class="muted">
          Latency leaves out requests dropped to keep the model bounded ({c.droppedRequests.before} before, {c.droppedRequests.after} after).
        </p>
      )}
    </div>
  );
}

function FilePick({ label, testid, onFile }: { label: string; testid: string; onFile: (f: File) => void }) {
  return (
    <label class="button compare-pick">
      {label}
      <input
        type="file"
        accept=".json,.har,application/json"
        data-testid={testid}
        class="visually-hidden"
        onChange={(e) => {
          const input = e.currentTarget;
          const f = input.files?.[0];
          input.value = '';
          if (f) onFile(f);
        }}
      />
    </label>
  );
}

export function Compare() {
  const store = useModel();
  const { model, recorder, source } = store;
  // The session on screen, as one side, again each time the session is published (its digest only takes in what is new).
  const session = store.session.value;
  const current = useMemo<CompareSide>(() => ({ clients: model.clients, findings: model.findings, digest: screenDigest(recorder.events) }), [session]);
  const a = before.value;
  const b = after.value;
  const screenName = source.value === 'live' ? 'the live session' : 'the imported session';
  return (
    <div class="view compare" data-testid="compare-view">
      <div class="filterbar">
        <FilePick label={a ? `Before: ${a.name}…` : 'Compare with a file…'} testid="compare-before" onFile={async (f) => (before.value = (await readSide(store, f)) ?? before.peek())} />
        <FilePick label={b ? `After: ${b.name}…` : 'Second file (instead of the session on screen)…'} testid="compare-after" onFile={async (f) => (after.value = (await readSide(store, f)) ?? after.peek())} />
        {b && (
          <button class="link" data-testid="compare-use-live" onClick={() => (after.value = null)}>
            Use {screenName} as after
          </button>
        )}
        {a && (
          <button class="link" onClick={() => ((before.value = null), (after.value = null))}>
            Clear
          </button>
        )}
      </div>
      {problem.value && (
        <p class="error" role="alert" data-testid="compare-problem">
          {problem.value}
        </p>
      )}
      {!a && <p class="empty">Pick a session file or HAR (an earlier build's recording, say): it is compared, as before, with {screenName} as after, or with a second file.</p>}
      {a && <Result a={a.side} b={b ? b.side : current} names={[a.name, b ? b.name : screenName]} />}
    </div>
  );
}
