/** Says when the inspected page is not captured, offers one click to capture it, and lists the sites enabled. */
import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { captureState, disableSite, enable, enableSite, enabledList, inspectedOrigin, refreshEnabled } from '../capture-site.ts';

const origin = signal<string | null>(null);
const showSites = signal(false);
const error = signal<string | null>(null);

async function run(action: () => Promise<unknown>): Promise<void> {
  error.value = null;
  try {
    await action();
  } catch (e) {
    error.value = e instanceof Error ? e.message : String(e);
  }
}

function Sites({ tabId }: { tabId: number | null }) {
  return (
    <div class="sites" data-testid="capture-sites">
      <p>
        Always captured: localhost, 127.0.0.1, [::1], *.localhost, *.test and file: pages. Also captured, because you enabled them:
      </p>
      {enabledList.value.length === 0 ? (
        <p class="muted">no other site.</p>
      ) : (
        <ul>
          {enabledList.value.map((p) => (
            <li key={p}>
              <code>{p === '<all_urls>' ? 'all sites' : p}</code>{' '}
              <button class="link" onClick={() => void run(() => disableSite(p))}>
                remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {!enabledList.value.includes('<all_urls>') && (
        <button onClick={() => void run(() => enable(['<all_urls>'], tabId))} title="The hook then runs on every page of every site you visit">
          Capture on all sites…
        </button>
      )}
    </div>
  );
}

export function CaptureBanner({ tabId }: { tabId: number | null }) {
  useEffect(() => {
    void inspectedOrigin().then((o) => (origin.value = o));
    void refreshEnabled().catch(() => {});
  }, []);
  const notHere = captureState.value === 'not-here';
  if (!notHere && !showSites.value) return null;
  return (
    <div class="capture-banner" role="region" aria-label="Capture on this site" data-testid="capture-banner">
      {notHere && (
        <p>
          OUI DevTools is not capturing {origin.value ? <code>{origin.value}</code> : 'this page'}: it runs only on local development hosts and on sites you enable.{' '}
          {origin.value && (
            <button class="primary" onClick={() => void run(() => enableSite(origin.value!, tabId))}>
              Capture on this site
            </button>
          )}{' '}
          <button class="link" aria-expanded={showSites.value} onClick={() => (showSites.value = !showSites.value)}>
            Sites…
          </button>
        </p>
      )}
      {showSites.value && <Sites tabId={tabId} />}
      {error.value && <p class="warn">{error.value}</p>}
    </div>
  );
}

/** The toolbar's way to the sites list when the page is captured. */
export function SitesButton() {
  return (
    <button title="Where OUI DevTools captures" aria-expanded={showSites.value} onClick={() => (showSites.value = !showSites.value)}>
      Sites
    </button>
  );
}
