/**
 * Coverage: every frame and worker of the inspected tab, captured or not and
 * why, with the one click that captures a frame whose site is not enabled.
 * The conversations of which only one side can be seen point to the frame
 * that hides the other.
 */
import { useStore } from '../store-context.ts';
import type { CoverageRow } from '../../src/capture/coverage.ts';

const STATUS: Record<CoverageRow['status'], string> = { captured: 'captured', missing: 'not captured', idle: 'nothing to capture' };

function Action({ row, tabId }: { row: CoverageRow; tabId: number | null }) {
  const { site } = useStore();
  if (row.enable) {
    const { enable, reloadOrigin } = row;
    return (
      <button
        class="primary"
        data-testid="coverage-enable"
        title={`The browser asks you for ${enable}; the frames of ${reloadOrigin ?? 'that site'} then reload with the hook`}
        onClick={() => void site.run(() => site.enableFrames(enable, reloadOrigin ?? null, tabId))}
      >
        Capture {enable.replace(/\/\*$/, '')}
      </button>
    );
  }
  if (row.status === 'missing' && row.reloadOrigin && tabId !== null) {
    const origin = row.reloadOrigin;
    return (
      <button title={`Reload the frames of ${origin}, so the hook runs from their start`} onClick={() => void site.run(() => site.reloadFrames(tabId, origin))}>
        Reload frame
      </button>
    );
  }
  return null;
}

export function Coverage({ tabId }: { tabId: number | null }) {
  const store = useStore();
  const { rows, halves, missing } = store.coverage.coverage.value;
  const frames = rows.filter((r) => r.kind === 'frame').length;
  const workers = rows.length - frames;
  return (
    <div class="view" data-testid="coverage-view">
      <p data-testid="coverage-summary" class={missing ? 'warn' : ''}>
        {missing
          ? `${missing} of ${rows.length} not captured: what they send and receive is missing from this session.`
          : rows.length
            ? `Every frame${workers ? ' and worker' : ''} the page has is captured (${frames} frame${frames === 1 ? '' : 's'}${workers ? `, ${workers} worker${workers === 1 ? '' : 's'}` : ''}).`
            : 'No hook has answered yet.'}
      </p>
      {halves.length > 0 && (
        <ul class="coverage-halves" data-testid="coverage-halves">
          {halves.map((h) => (
            <li key={`${h.client}-${h.missingPath}`} class="warn">
              <span class="mono">{h.label}</span>: only one side is captured; {h.missing} cannot be seen, because frame <span class="mono">{h.missingPath}</span> is not captured.
            </li>
          ))}
        </ul>
      )}
      <table class="grid coverage">
        <thead>
          <tr>
            <th>Frame</th>
            <th>Address</th>
            <th>Status</th>
            <th>Why</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.kind}-${r.path}-${r.url}`} data-status={r.status} data-path={r.path} data-kind={r.kind} class={r.status === 'missing' ? 'refused' : ''}>
              <td class="mono">
                {r.path}
                {r.kind === 'worker' ? ' › worker' : ''}
              </td>
              <td class="mono">{r.url}</td>
              <td>{STATUS[r.status]}</td>
              <td>{r.reason}</td>
              <td>
                <Action row={r} tabId={tabId} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        Captured without asking: localhost, 127.0.0.1, [::1], *.localhost, *.test and file: pages, and the about:, data: and blob: frames they make. Other loopback hosts (all of 127.0.0.0/8) and other sites are one click each: the browser's host patterns cannot name them ahead. A frame that is not captured cannot list the frames inside it.
      </p>
    </div>
  );
}

/** The toolbar's word that the tab is not wholly captured; opens the Coverage view. */
export function CoverageWarning() {
  const store = useStore();
  const { missing } = store.coverage.coverage.value;
  if (!missing) return null;
  return (
    <button class="link warn" data-testid="coverage-warning" title="Some frames or workers of this tab are not captured: their traffic is missing" onClick={() => (store.view.value = 'coverage')}>
      {missing} not captured
    </button>
  );
}
