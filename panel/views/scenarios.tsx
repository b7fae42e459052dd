/**
 * The Scenarios view (issue 21, item 3): scenarios kept for the page's
 * origin, each an ordered list of requests with what must come of them, run
 * one step at a time or all at once through the panel's stand-in runtime,
 * with pass or fail per step, why, and the step's exchange one click away.
 * Scenarios are exported and imported as the versioned JSON file
 * (src/runtime/scenario.ts). "Save as scenario" takes the captured requests
 * the user ticks in a checklist, in the order they were sent.
 */
import { EventLink } from './event-detail.tsx';
import { useEffect, useState } from 'preact/hooks';
import type { Scenario, ScenarioStep, StepResult } from '../../src/runtime/scenario.ts';
import type { RequestState } from '../../src/session/model/model-types.ts';
import { useModel } from '../store-context.ts';
import type { PanelStore } from '../store.ts';
import { clock, short } from '../display-text.ts';
import { fileNameOf, nameOf, type Run } from '../scenarios.ts';

/** The origin scenarios are kept for: the top frame's clients', else any client's. */
export function pageOrigin(store: PanelStore): string {
  const clients = [...store.recorder.clients.values()];
  return (clients.find((c) => c.frameId === 0) ?? clients[0])?.origin ?? '';
}

function download(name: string, text: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function pickScenarioFile(store: PanelStore): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = '.json,application/json';
  input.onchange = async () => {
    const f = input.files?.[0];
    if (!f) return;
    await store.scenarios.importText(await f.text(), f.name);
  };
  input.click();
}

interface Captured {
  key: string;
  client: string;
  req: RequestState;
  t: number;
}

function statusOf(r: RequestState): string {
  const final = [...r.results].reverse().find((x) => x.result.interim !== true)?.result;
  if (final) return final.success ? 'success' : `error ${final.error?.code ?? ''}`;
  return r.resolution ? r.resolution.code : r.status;
}

function SaveFromCapture() {
  const store = useModel();
  const { model, recorder, scenarios } = store;
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [name, setName] = useState('');
  const all: Captured[] = [];
  for (const [key, st] of model.clients) for (const req of st.requests.values()) all.push({ key: `${key}\u0000${req.requestId}`, client: key, req, t: req.sends[0]?.t ?? 0 });
  all.sort((a, b) => a.t - b.t);
  const shown = all.slice(-200);
  const toggle = (k: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(k);
    else next.delete(k);
    setChosen(next);
  };
  const save = async () => {
    const picked = shown.filter((x) => chosen.has(x.key));
    // A step names its client only where the surface is on more than one: a label carries the page's host and port, which change between runs.
    const clientOf = (r: RequestState) => {
      const x = picked.find((p) => p.req === r);
      if (!x) return undefined;
      const having = new Set([x.client, ...[...model.clients.values()].filter((st) => st.surfaces.has(r.surfaceId)).map((st) => st.client.key)]);
      return having.size > 1 ? recorder.clients.get(x.client)?.label : undefined;
    };
    await scenarios.saveFromRequests(
      picked.map((p) => p.req),
      name,
      clientOf,
    );
    setChosen(new Set());
    setName('');
  };
  return (
    <fieldset class="save-scenario" aria-label="Save as scenario">
      <legend>Save as scenario: tick captured requests</legend>
      {shown.length === 0 ? (
        <p class="muted">No request captured yet.</p>
      ) : (
        <>
          <div class="row-inline">
            <button onClick={() => setChosen(new Set(shown.map((x) => x.key)))}>Select all</button> <button onClick={() => setChosen(new Set())}>Select none</button>
          </div>
          <ul class="request-checklist" aria-label="Captured requests">
            {shown.map((x) => (
              <li key={x.key}>
                <label>
                  <input type="checkbox" checked={chosen.has(x.key)} onChange={(e) => toggle(x.key, (e.target as HTMLInputElement).checked)} />{' '}
                  {clock(x.t)} {x.req.surfaceId} › {x.req.actionId} <code>{short(JSON.stringify(x.req.params ?? {}), 60)}</code> — {statusOf(x.req)}
                  {x.req.sends.some((s) => s.injected) ? ' (experiment)' : ''}
                </label>
              </li>
            ))}
          </ul>
        </>
      )}
      <div class="row-inline">
        <label>
          Scenario name <input value={name} placeholder={`Scenario ${scenarios.list.value.length + 1}`} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>{' '}
        <button class="primary" disabled={chosen.size === 0} onClick={() => void save()}>
          Save as scenario ({chosen.size})
        </button>
      </div>
    </fieldset>
  );
}

function expectation(s: ScenarioStep): string {
  const parts = [s.expect && 'error' in s.expect ? `error ${s.expect.error}` : 'success'];
  if (s.data) parts.push('equals' in s.data ? `data = ${short(JSON.stringify(s.data.equals), 40)}` : 'data matches its schema');
  const obs = Object.entries(s.observations ?? {}).flatMap(([sid, o]) => Object.keys(o).map((k) => `${sid}/${k}`));
  if (obs.length) parts.push(`observations ${obs.join(', ')}`);
  return parts.join('; ');
}

function verdictOf(state: Run['steps'][number]): { word: string; detail: string } {
  if (state === undefined) return { word: 'not run', detail: '' };
  if (state === 'running') return { word: 'running…', detail: '' };
  const r = state;
  const got = r.result ? (r.result.success ? 'success' : `error ${r.result.error?.code ?? ''}`) : '';
  return { word: r.pass ? 'pass' : 'fail', detail: r.pass ? `${got} in ${r.ms} ms` : r.failures.join('; ') };
}

function ScenarioCard({ s, index }: { s: Scenario; index: number }) {
  const store = useModel();
  const { scenarios } = store;
  const name = nameOf(s, index);
  const run = scenarios.runs.value[name];
  const next = run ? run.steps.findIndex((x) => x === undefined) : 0;
  const done = run ? run.steps.filter((x) => x !== undefined && x !== 'running') : [];
  const passed = done.filter((x) => (x as StepResult).pass).length;
  return (
    <section class="scenario" aria-label={`Scenario ${name}`} data-scenario={name}>
      <h3>
        {name} <span class="muted">({s.steps.length} {s.steps.length === 1 ? 'step' : 'steps'})</span>
      </h3>
      <div class="row-inline">
        <button class="primary" disabled={run?.running} onClick={() => void scenarios.runAll(name)}>
          Run all
        </button>{' '}
        <button disabled={run?.running || next < 0 || next >= s.steps.length} onClick={() => void scenarios.runStep(name, Math.max(0, next))}>
          Run next step
        </button>{' '}
        <button onClick={() => download(fileNameOf(s), scenarios.exportText(name) ?? '')}>Export</button>{' '}
        <button aria-label={`Delete scenario ${name}`} onClick={() => void scenarios.remove(name)}>
          Delete
        </button>{' '}
        {done.length > 0 && (
          <span data-testid="scenario-summary" class={passed === done.length ? 'ok' : 'warn'}>
            {passed} of {done.length} run {done.length === 1 ? 'step' : 'steps'} passed{run?.running ? ' (running)' : ''}
          </span>
        )}
      </div>
      <table class="fault-rules" aria-label={`Steps of ${name}`}>
        <thead>
          <tr>
            <th>#</th>
            <th>Request</th>
            <th>Expected</th>
            <th>Verdict</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {s.steps.map((step, i) => {
            const state = run?.steps[i];
            const v = verdictOf(state);
            const ev = state && state !== 'running' ? state.eventIds[0] : undefined;
            return (
              <tr key={i} data-step={i} data-verdict={v.word}>
                <td>{i + 1}</td>
                <td>
                  {step.name ? <b>{step.name} </b> : null}
                  {step.surfaceId} › {step.actionId} <code>{short(JSON.stringify(step.params), 60)}</code>
                  {step.client ? <span class="muted"> on {step.client}</span> : null}
                </td>
                <td>{expectation(step)}</td>
                <td data-testid="step-verdict">
                  <b class={v.word === 'pass' ? 'ok' : v.word === 'fail' ? 'warn' : 'muted'}>{v.word}</b> {v.detail}
                </td>
                <td>
                  <button aria-label={`Run step ${i + 1} of ${name}`} disabled={run?.running || state === 'running'} onClick={() => void scenarios.runStep(name, i)}>
                    Run
                  </button>{' '}
                  {ev && <EventLink id={ev} label="Show exchange" />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function Scenarios() {
  const store = useModel();
  const { scenarios, source } = store;
  const origin = pageOrigin(store);
  useEffect(() => {
    if (origin && origin !== scenarios.origin.peek()) void scenarios.load(origin);
  }, [origin, scenarios]);
  const msg = scenarios.message.value;
  return (
    <div class="view scenarios-view" data-testid="scenarios-view">
      <div class="row-inline">
        <span>
          Scenarios for <b>{scenarios.origin.value || origin || 'this page'}</b>
        </span>{' '}
        <button onClick={() => pickScenarioFile(store)}>Import scenario…</button>
      </div>
      <div role="status" class={msg ? (msg.ok ? 'ok' : 'warn') : ''} data-testid="scenario-message">
        {msg?.text}
      </div>
      {source.value === 'import' && <p class="muted">Running a scenario needs the live page: go back to live.</p>}
      {scenarios.list.value.length === 0 ? <p class="muted">No scenario saved for this origin yet: save one from captured requests below, or import a file.</p> : scenarios.list.value.map((s, i) => <ScenarioCard key={nameOf(s, i)} s={s} index={i} />)}
      <SaveFromCapture />
    </div>
  );
}
