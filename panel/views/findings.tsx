/** All conformance findings, filterable by severity, each linked to the events that show it. */
import { signal } from '@preact/signals';
import type { Finding, Severity } from '../../src/session/model-types.ts';
import { clock } from '../format.ts';
import { model, recorder, selectedClient, selectedEvent, version, view } from '../state.ts';

const SEVERITIES: Severity[] = ['critical', 'error', 'warning', 'info'];
const shown = signal<Record<Severity, boolean>>({ critical: true, error: true, warning: true, info: true });

function open(id: string): void {
  selectedEvent.value = id;
  view.value = 'timeline';
}

export function FindingLine({ finding: f }: { finding: Finding }) {
  return (
    <li class={`finding sev-${f.severity}`} data-rule={f.rule}>
      <span class={`badge sev-${f.severity}`}>{f.severity}</span>
      <span class="section">{f.section}</span>
      <span class="message">{f.message}</span>
      <span class="events">
        {f.events.slice(0, 4).map((id, i) => (
          <button class="link" key={id} onClick={() => open(id)} title={id}>
            {i === 0 ? 'event' : `#${i + 1}`}
          </button>
        ))}
      </span>
    </li>
  );
}

export function severityCounts(list: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { critical: 0, error: 0, warning: 0, info: 0 };
  for (const f of list) counts[f.severity]++;
  return counts;
}

export function Findings() {
  void version.value;
  const client = selectedClient.value;
  const all = model.findings.filter((f) => !client || f.client === client);
  const counts = severityCounts(all);
  const list = all.filter((f) => shown.value[f.severity]);
  return (
    <div class="view findings" data-testid="findings-view">
      <div class="filterbar">
        {SEVERITIES.map((s) => (
          <label class={`toggle sev-${s}`}>
            <input type="checkbox" checked={shown.value[s]} onChange={() => (shown.value = { ...shown.value, [s]: !shown.value[s] })} />
            {s} ({counts[s]})
          </label>
        ))}
        {model.findingsDropped > 0 && <span class="warn">{model.findingsDropped} older findings dropped</span>}
      </div>
      {list.length === 0 ? (
        <p class="empty">{all.length ? 'No finding of the selected severities.' : 'No conformance findings so far.'}</p>
      ) : (
        <ul class="finding-list">
          {list.map((f) => (
            <div key={f.id} class="finding-row">
              <span class="muted">{clock(f.t)} · {recorder.clients.get(f.client)?.kind ?? ''}</span>
              <FindingLine finding={f} />
            </div>
          ))}
        </ul>
      )}
    </div>
  );
}
