import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { PanelStore, View } from './store.ts';
import { useModel, useStore } from './store-context.ts';
import { ClearIcon, PauseIcon, PlayIcon } from './components/icons.tsx';
import { TabStrip } from './components/tab-strip.tsx';
import { focusFallback, isFindKey, isMac, listInView, timelineFilter } from './keyboard.ts';
import { CaptureBanner, SitesButton } from './views/capture-banner.tsx';
import { Timeline } from './views/timeline.tsx';
import { Surfaces } from './views/surfaces.tsx';
import { Hashes } from './views/hashes.tsx';
import { Observations } from './views/observations.tsx';
import { Acks } from './views/acks.tsx';
import { Approvals } from './views/approvals.tsx';
import { Findings, counted, severityCounts } from './views/findings.tsx';
import { Inject, clientOption } from './views/inject.tsx';
import { TimersButton } from './views/timers.tsx';
import { CaptureLosses } from './views/capture-losses.tsx';
import { Coverage, CoverageWarning } from './views/coverage.tsx';
import { Faults, FaultsBanner } from './views/faults.tsx';
import { Runtime, StandInBanner } from './views/runtime.tsx';
import { Scenarios } from './views/scenarios.tsx';
import { Compare } from './views/compare.tsx';
import { Sequence } from './views/sequence.tsx';
import { SPEC_VERSIONS } from '../src/session/model/rules.ts';
import { RedactPreview, exportPreview } from './views/redact-preview.tsx';
import { scrubCopies } from './redaction.ts';
import { pageOrigin } from './views/scenarios.tsx';
import { IMPORT_ACCEPT, importFiles } from './drop-import.tsx';

const VIEWS: Array<{ id: View; label: string; render: (tabId: number | null) => JSX.Element }> = [
  { id: 'timeline', label: 'Timeline', render: () => <Timeline /> },
  { id: 'sequence', label: 'Sequence', render: () => <Sequence /> },
  { id: 'surfaces', label: 'Surfaces', render: () => <Surfaces /> },
  { id: 'hashes', label: 'Hashes', render: () => <Hashes /> },
  { id: 'observations', label: 'Observations', render: () => <Observations /> },
  { id: 'acks', label: 'Acknowledgments', render: () => <Acks /> },
  { id: 'approvals', label: 'Approvals', render: () => <Approvals /> },
  { id: 'findings', label: 'Findings', render: () => <Findings /> },
  { id: 'inject', label: 'Inject', render: () => <Inject /> },
  { id: 'faults', label: 'Faults', render: () => <Faults /> },
  { id: 'runtime', label: 'Runtime', render: () => <Runtime /> },
  { id: 'scenarios', label: 'Scenarios', render: () => <Scenarios /> },
  { id: 'compare', label: 'Compare', render: () => <Compare /> },
  { id: 'coverage', label: 'Coverage', render: (tabId) => <Coverage tabId={tabId} /> },
];

/** The toolbar's Import: the same files a drop takes (session files and HARs, several at once), through the one import path. */
function pickFile(store: PanelStore): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.accept = IMPORT_ACCEPT;
  input.onchange = () => void importFiles(store, [...(input.files ?? [])]);
  input.click();
}

function Tabs() {
  const { model, view, ui } = useModel();
  // The badge counts the app's findings: the user's experiments only when the Findings view shows them.
  const counts = severityCounts(counted(model.findings, ui.showExperiments.value));
  return (
    <TabStrip
      class="tabs"
      label="Views"
      selected={view.value}
      onSelect={(id) => (view.value = id)}
      tabs={VIEWS.map((v) => ({
        id: v.id,
        domId: `tab-${v.id}`,
        label: (
          <>
            {v.label}
            {v.id === 'findings' && counts.critical + counts.error > 0 && (
              <span class={`badge sev-${counts.critical ? 'critical' : 'error'}`} data-testid="findings-badge">
                {counts.critical + counts.error}
              </span>
            )}
          </>
        ),
      }))}
    />
  );
}

/**
 * The panel-wide keys: Ctrl+F (Cmd+F) focuses the Timeline's filter with its
 * text selected, switching to the Timeline first; Escape in that filter (or
 * any control of its bar) goes back to the list, the filter kept; Escape closes the Sites list, focus
 * back on its button. And focus never falls to the document: when the
 * element that held it goes away (a link that opened another event, a closed
 * detail, a view switched by a link), it moves to the list on screen, else
 * the selected view tab.
 */
function usePanelKeys(store: PanelStore): void {
  const wantFilter = useRef(false);
  const focusFilter = (): boolean => {
    const input = timelineFilter.current;
    if (!input) return false;
    input.focus();
    input.select();
    return true;
  };
  // After the render that showed the Timeline: one try, so a later render never takes focus by surprise.
  useLayoutEffect(() => {
    if (!wantFilter.current) return;
    wantFilter.current = false;
    focusFilter();
  });
  useEffect(() => {
    const mac = isMac();
    const onKey = (e: KeyboardEvent) => {
      if (isFindKey(e, mac)) {
        e.preventDefault();
        // Not DevTools' own search too: the panel has its filter.
        e.stopPropagation();
        if (store.view.peek() === 'timeline' && focusFilter()) return;
        wantFilter.current = true;
        store.view.value = 'timeline';
        return;
      }
      if (e.key !== 'Escape') return;
      const bar = timelineFilter.current?.closest('[role=search]');
      // An open completion list is the filter box's to close first (panel/query-box.tsx).
      if (e.target instanceof Element && e.target.getAttribute('aria-expanded') === 'true' && e.target.getAttribute('role') === 'combobox') return;
      if (bar && e.target instanceof Node && bar.contains(e.target)) {
        // From the filter or any control of its bar, to what they filter; a search field's Escape would empty it: kept.
        // Stopped too: in DevTools an Escape that reaches the document is forwarded to DevTools, which opens its console drawer on it.
        e.preventDefault();
        e.stopPropagation();
        listInView()?.focus();
        return;
      }
      const { site } = store;
      if (!site.showSites.peek() || e.defaultPrevented) return;
      const target = e.target as Element | null;
      const toggle = document.querySelector<HTMLElement>('header.toolbar button[data-sites-toggle], header.toolbar button[aria-expanded][title^="Where OUI DevTools"]');
      const inSites = !target || target === document.body || target.closest('[data-testid=capture-banner]') !== null || target === toggle;
      if (!inSites) return;
      e.preventDefault();
      e.stopPropagation();
      site.showSites.value = false;
      (toggle ?? focusFallback())?.focus();
    };
    addEventListener('keydown', onKey, true);
    // Focus lost to the document because its element went away: a mutation removed it.
    let last: Element | null = null;
    const onFocusIn = (e: FocusEvent) => (last = e.target as Element);
    const keep = () => {
      const active = document.activeElement;
      if ((active && active !== document.body) || !last || last.isConnected) return;
      last = null;
      focusFallback()?.focus();
    };
    document.addEventListener('focusin', onFocusIn);
    const watch = new MutationObserver(keep);
    watch.observe(document.body, { childList: true, subtree: true });
    return () => {
      removeEventListener('keydown', onKey, true);
      document.removeEventListener('focusin', onFocusIn);
      watch.disconnect();
    };
  }, [store]);
}

/**
 * The panel's one-line word on what just happened (an import, above all);
 * text only. The live region is always there, so a screen reader announces
 * the line when it appears.
 */
function Notice() {
  const { notice } = useStore();
  return (
    <div class={notice.value ? 'notice' : 'notice-idle'} role="status">
      {notice.value && (
        <>
          <span class="notice-text">{notice.value}</span>{' '}
          <button class="icon" aria-label="Dismiss" onClick={() => (notice.value = null)}>
            ✕
          </button>
        </>
      )}
    </div>
  );
}

/** Every Copy of the panel scrubbed of the session's secrets, with the user's pointers for the page's origin. */
function useRedactedCopies(store: PanelStore): void {
  const origin = pageOrigin(store);
  useEffect(() => scrubCopies(() => ({ recorder: store.recorder, opts: store.redaction.options() })), [store]);
  useEffect(() => {
    if (origin !== store.redaction.origin.peek()) void store.redaction.load(origin);
  }, [store, origin]);
}

export function App({ tabId }: { tabId: number | null }) {
  const store = useModel();
  const { recorder, source, pausedAt, view, connected, reconnects, preserveLog, selectedClient, specVersion } = store;
  usePanelKeys(store);
  useRedactedCopies(store);
  if (tabId === null && source.value === 'live') {
    return (
      <div class="empty">
        No tab to inspect: open this panel in DevTools, or as <code>panel.html?tabId=N</code>. You can still{' '}
        <button class="link" onClick={() => pickFile(store)}>
          open a session file
        </button>
        .
        <Notice />
      </div>
    );
  }
  const clients = [...recorder.clients.values()];
  const isPaused = pausedAt.value !== null;
  const current = VIEWS.find((v) => v.id === view.value) ?? VIEWS[0]!;
  return (
    // The capture state, for tests and tools: 'capturing' once a hook has spoken (no quiet banner can follow).
    <div class="shell" data-capture={store.site.state.value}>
      <header class="toolbar">
        <span
          class={connected.value ? 'dot on' : 'dot'}
          data-testid="connection"
          data-reconnects={reconnects.value}
          title={`${source.value === 'import' ? 'showing an imported session' : connected.value ? 'connected' : 'reconnecting'}; reconnected ${reconnects.value} times`}
        />
        <button
          class={`icon ${isPaused ? 'active' : ''}`}
          aria-pressed={isPaused}
          aria-label={isPaused ? 'Resume' : 'Pause'}
          title={isPaused ? 'Resume the timeline' : 'Pause the timeline (traffic is still recorded)'}
          onClick={() => store.togglePause()}
        >
          {isPaused ? <PlayIcon /> : <PauseIcon />}
        </button>
        <button class="icon" title="Clear" aria-label="Clear" onClick={() => store.clearAll()}>
          <ClearIcon />
        </button>
        <label title="Keep events across reloads and navigations">
          <input type="checkbox" checked={preserveLog.value} onChange={(e) => store.setPreserveLog((e.target as HTMLInputElement).checked)} /> Preserve log
        </label>
        <select aria-label="Filter by client" title="Show one client's traffic in every view" value={selectedClient.value} onChange={(e) => (selectedClient.value = (e.target as HTMLSelectElement).value)}>
          <option value="">All clients ({clients.length})</option>
          {clients.map((c) => (
            <option value={c.key}>{clientOption(store.model, c)}</option>
          ))}
        </select>
        <label title="The spec release clients are judged by: OUI traffic declares none, so pick the one your app implements. Rules written after it raise nothing.">
          Spec{' '}
          <select aria-label="Spec version" data-testid="spec-version" value={specVersion.value} onChange={(e) => store.setSpecVersion((e.target as HTMLSelectElement).value)}>
            {[...SPEC_VERSIONS].reverse().map((v) => (
              <option value={v}>
                {v}
                {v === SPEC_VERSIONS[SPEC_VERSIONS.length - 1] ? ' (newest)' : ''}
              </option>
            ))}
          </select>
        </label>
        <TimersButton />
        <button title="Export the session to a file (redacted: a preview says what first)" data-testid="export" onClick={() => (exportPreview.value = 'json')}>
          Export
        </button>
        <button title="Export the session as HAR 1.2 (WebSocket messages, long-polling entries), for other tools and oui-devtools lint (redacted: a preview says what first)" data-testid="export-har" onClick={() => (exportPreview.value = 'har')}>
          HAR
        </button>
        <button title="Open a session file or a HAR (or drop one on the panel)" onClick={() => pickFile(store)}>
          Import
        </button>
        <SitesButton />
        {source.value === 'import' && <button onClick={() => store.backToLive()}>Back to live</button>}
        {isPaused && <span class="warn">paused · {recorder.events.length - (pausedAt.value ?? 0)} new events</span>}
        <CaptureLosses />
        {recorder.evicted > 0 && <span class="warn">{recorder.evicted} oldest events dropped from the panel</span>}
        {source.value === 'live' && <CoverageWarning />}
      </header>
      {source.value === 'live' && <CaptureBanner tabId={tabId} />}
      <FaultsBanner />
      <StandInBanner />
      <RedactPreview />
      <Tabs />
      <Notice />
      <div class="main" role="tabpanel" aria-labelledby={`tab-${current.id}`}>
        {current.render(tabId)}
      </div>
    </div>
  );
}
