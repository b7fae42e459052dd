/**
 * All conformance findings, filterable by severity and by the party at fault
 * (the page's client or its agent runtime), each linked to the events that
 * show it, judged by the spec release picked in the toolbar.
 */
import type { Finding, Party, Severity } from '../../src/session/model/model-types.ts';
import { ruleById } from '../../src/session/model/rules.ts';
import { useState } from 'preact/hooks';
import { SortToggle } from '../components/sort-toggle.tsx';
import { copyText, safeJson } from '../copy.ts';
import { clock } from '../display-text.ts';
import { oldestFirst } from '../sort-order.ts';
import { useModel, useStore } from '../store-context.ts';
import { groupFindings, type FindingGroup } from '../view-order.ts';
import type { SessionModel } from '../../src/session/model/session-model.ts';
import type { Timers } from '../../src/session/model/timers.ts';
import { customTimers } from './timers.tsx';

const SEVERITIES: Severity[] = ['critical', 'error', 'warning', 'info'];
const PARTIES: Party[] = ['client', 'runtime'];
/**
 * The findings that count: the app's own, and the experiments' too when shown.
 * Findings of the user's own experiments (injected or replayed requests, and
 * what answered them) are the app's behaviour under test, not its traffic:
 * left out of the list, the counts and the tab's badge unless asked for.
 */
export function counted(list: Finding[], withExperiments: boolean): Finding[] {
  return withExperiments ? list : list.filter((f) => !f.experiment);
}

/** What the export carries: each finding with its rule's title, the release and the timers it is judged by. */
export function findingsExport(list: Finding[], judgedBy: string, timers: Readonly<Timers>): unknown {
  return {
    specVersion: judgedBy,
    timers,
    findings: list.map((f) => ({ ...f, title: ruleById(f.rule)?.title ?? '', since: ruleById(f.rule)?.since ?? '' })),
  };
}

export function FindingLine({ finding: f }: { finding: Finding }) {
  const store = useStore();
  return (
    <li class={`finding sev-${f.severity}${f.experiment ? ' experiment' : ''}`} data-rule={f.rule} data-experiment={f.experiment ? 'true' : undefined}>
      <span class={`badge sev-${f.severity}`}>{f.severity}</span>
      {f.experiment && (
        <span class="badge experiment" title="Raised by a request you injected or replayed, or by what answered it: not the app's own traffic">
          experiment
        </span>
      )}
      <span class="section">{f.section}</span>
      <span class={`party party-${f.party}`} data-party={f.party} title={f.party === 'client' ? "The page's OUI client is at fault" : 'The agent runtime is at fault'}>
        {f.party}
      </span>
      <span class="message">{f.message}</span>
      <span class="events">
        {f.events.slice(0, 4).map((id, i) => (
          <button class="link" key={id} onClick={() => store.openEvent(id)} title={id}>
            {i === 0 ? 'event' : `#${i + 1}`}
          </button>
        ))}
      </span>
    </li>
  );
}

/** One rule's findings, as the Console shows a repeated message: once, with a count, expandable to each occurrence and its events. */
function FindingGroupRow({ group: g }: { group: FindingGroup }) {
  const { recorder } = useModel();
  const [open, setOpen] = useState(false);
  const rule = ruleById(g.rule);
  const first = g.findings[0]!;
  const n = g.findings.length;
  const experiments = g.findings.filter((f) => f.experiment).length;
  return (
    <li class={`finding-group sev-${g.severity}`} data-rule={g.rule} data-count={n}>
      <button class="group-toggle" aria-expanded={open} onClick={() => setOpen(!open)} title={open ? 'Hide each finding' : 'Show each finding, with its events'}>
        <span class="j-arrow" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span class={`badge sev-${g.severity}`}>{g.severity}</span>
        <span class="group-title">{rule?.title ?? g.rule}</span>
        <span class="group-count" title={`${n} ${n === 1 ? 'finding' : 'findings'} of this rule`}>
          ×{n}
        </span>
        {experiments > 0 && <span class="badge experiment">{experiments === n ? 'experiment' : `${experiments} experiments`}</span>}
        <span class="section">{first.section}</span>
        <span class={`party party-${first.party}`}>{first.party}</span>
        <span class="muted">latest {clock(g.latest)}</span>
      </button>
      {open && (
        <div class="finding-list">
          {g.findings.map((f) => (
            <div key={f.id} class="finding-row" data-t={f.t}>
              <span class="muted">
                {clock(f.t)} · {recorder.clients.get(f.client)?.kind ?? ''}
              </span>
              <FindingLine finding={f} />
            </div>
          ))}
        </div>
      )}
    </li>
  );
}

export function severityCounts(list: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { critical: 0, error: 0, warning: 0, info: 0 };
  for (const f of list) counts[f.severity]++;
  return counts;
}

/** Clients whose surfaces declare the release they implement, as [label, release]. */
function declaring(model: SessionModel, client: string | null): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, c] of model.clients) {
    if (c.declaredVersion && (!client || key === client)) out.push([c.client.label || key, c.declaredVersion]);
  }
  return out;
}

export function Findings() {
  const { model, recorder, selectedClient, specVersion, ui } = useModel();
  const { findingSeverities: shown, findingParties: parties, findingsCopied: copied, showExperiments } = ui;
  const copyAll = async (list: Finding[]) => {
    copied.value = await copyText(safeJson(findingsExport(list, specVersion.value, model.timers)));
    setTimeout(() => (copied.value = false), 1500);
  };
  const client = selectedClient.value;
  const ofClient = model.findings.filter((f) => !client || f.client === client);
  const experiments = ofClient.filter((f) => f.experiment).length;
  const all = counted(ofClient, showExperiments.value);
  const counts = severityCounts(all);
  const byParty: Record<Party, number> = { client: 0, runtime: 0 };
  for (const f of all) byParty[f.party]++;
  const list = all.filter((f) => shown.value[f.severity] && parties.value[f.party]);
  return (
    <div class="view findings" data-testid="findings-view">
      <div class="filterbar">
        {SEVERITIES.map((s) => (
          <label class={`toggle sev-${s}`}>
            <input type="checkbox" checked={shown.value[s]} onChange={() => (shown.value = { ...shown.value, [s]: !shown.value[s] })} />
            {s} ({counts[s]})
          </label>
        ))}
        {PARTIES.map((p) => (
          <label class={`toggle party-${p}`}>
            <input type="checkbox" checked={parties.value[p]} onChange={() => (parties.value = { ...parties.value, [p]: !parties.value[p] })} />
            {p === 'client' ? 'client at fault' : 'runtime at fault'} ({byParty[p]})
          </label>
        ))}
        <label class="toggle experiment" title="Findings raised by requests you injected or replayed from this panel, and by what answered them. They are not counted as the app's unless shown.">
          <input type="checkbox" checked={showExperiments.value} onChange={() => (showExperiments.value = !showExperiments.value)} />
          show my experiments ({experiments})
        </label>
        <span class="muted" data-testid="judged-version" title="Pick another release in the toolbar; a client whose surfaces declare their release in metadata is judged by it">
          judged by spec {specVersion.value}
          {declaring(model, client).map(([label, v]) => `; ${label} declares ${v}`).join('')}
        </span>
        {customTimers(model.timers).length > 0 && (
          <span class="muted" data-testid="judged-timers" title="The timers set in the toolbar's Timers…; the spec's defaults for the others">
            timers: {customTimers(model.timers).join(', ')}
          </span>
        )}
        <SortToggle />
        <button title="Copy the findings shown, as JSON" onClick={() => void copyAll(list)}>
          {copied.value ? 'Copied' : 'Copy as JSON'}
        </button>
        {model.findingsDropped > 0 && <span class="warn">{model.findingsDropped} older findings dropped</span>}
      </div>
      {list.length === 0 ? (
        <p class="empty">
          {all.length
            ? 'No finding of the selected severities.'
            : experiments && !showExperiments.value
              ? `No finding of the app's own traffic; ${experiments} from your experiments are hidden.`
              : 'No conformance findings so far.'}
        </p>
      ) : (
        <ul class="finding-groups">
          {groupFindings(list, oldestFirst.value).map((g) => (
            <FindingGroupRow key={g.rule} group={g} />
          ))}
        </ul>
      )}
    </div>
  );
}
