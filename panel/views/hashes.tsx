/** Each reported surfacesHash beside the recomputed one, and what changed between consecutive surface sets. */
import type { ClientState, HashVerdict } from '../../src/session/model/model-types.ts';
import { JsonTree } from '../components/json-tree.tsx';
import { HashText } from '../components/hash-text.tsx';
import { SortToggle } from '../components/sort-toggle.tsx';
import { clock } from '../display-text.ts';
import { oldestFirst } from '../sort-order.ts';
import { inOrder } from '../view-order.ts';
import { PerClient } from './clients.tsx';
import { AsOfBanner, useAsOfClients } from './as-of.tsx';
import { EventLink } from './event-detail.tsx';

const VERDICT: Record<HashVerdict, string> = {
  match: 'matches',
  mismatch: 'MISMATCH',
  'utf8-variant': 'hashed UTF-8 bytes (not UTF-16 code units)',
  'utf16le-variant': 'hashed UTF-16LE bytes (not code units)',
  'bad-format': 'not fnv1a64: + 16 hex digits',
  missing: 'no surfacesHash (MUST be sent)',
  unverifiable: 'cannot verify: surfaces not carried and none held under this hash',
};

/** `oldest` is read by the parent, never here: @preact/signals skips re-rendering a component that reads a signal when its props are the same objects, and `c` is the model's, changed in place. */
function ClientHashes({ c, oldest }: { c: ClientState; oldest: boolean }) {
  return (
    <>
      <table class="grid hashes">
        <thead>
          <tr>
            <th>Time</th>
            <th>Request</th>
            <th>knownSurfaces</th>
            <th>Reported</th>
            <th>Recomputed</th>
            <th>Surfaces</th>
            <th>Verdict</th>
          </tr>
        </thead>
        <tbody>
          {inOrder(c.hashes, oldest).map((h) => (
            <tr key={h.eventId} data-t={h.t} class={`v-${h.verdict}`} data-verdict={h.verdict}>
              <td>{clock(h.t)}</td>
              <td>
                <EventLink id={h.eventId} label={h.requestId} />
              </td>
              <td class="mono">{typeof h.knownSurfaces === 'string' ? <HashText value={h.knownSurfaces} /> : '—'}</td>
              <td class="mono">{typeof h.reported === 'string' ? <HashText value={h.reported} other={h.recomputed} /> : '—'}</td>
              <td class="mono">{typeof h.recomputed === 'string' ? <HashText value={h.recomputed} other={h.reported} /> : '—'}</td>
              <td>{h.carriedSurfaces ? 'carried' : 'left out'}</td>
              <td class="verdict">{VERDICT[h.verdict]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {c.hashes.length === 0 && <p class="muted">No result has reported a surfacesHash yet.</p>}
      <h4>Surface set changes</h4>
      {c.surfaceSets.length === 0 && <p class="muted">No change yet.</p>}
      <ol class="changes">
        {inOrder(c.surfaceSets, oldest).map((s) => (
          <li key={s.eventId} data-t={s.t} data-testid="surface-change">
            <div>
              {clock(s.t)} <span class="mono">{typeof s.before === 'string' ? <HashText value={s.before} /> : '—'}</span> → <span class="mono">{typeof s.after === 'string' ? <HashText value={s.after} /> : '—'}</span> <EventLink id={s.eventId} label="event" />
            </div>
            <ul class="summary">
              {s.summary.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
            <details>
              <summary>RFC 6902 patch ({s.patch.length} ops)</summary>
              <JsonTree value={s.patch} />
            </details>
          </li>
        ))}
      </ol>
    </>
  );
}

export function Hashes() {
  const list = useAsOfClients();
  return (
    <div class="view" data-testid="hashes-view">
      <div class="filterbar">
        <SortToggle />
      </div>
      <AsOfBanner />
      <PerClient list={list} empty="No client yet." nothing="No result has reported a surfacesHash yet, and no surface set changed." hasContent={(c) => c.hashes.length > 0 || c.surfaceSets.length > 0} render={(c) => <ClientHashes c={c} oldest={oldestFirst.value} />} />
    </div>
  );
}
