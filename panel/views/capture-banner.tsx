/** Says when the inspected page is not captured, offers one click to capture it, and lists the sites enabled. */
import { useEffect } from 'preact/hooks';
import { useStore } from '../store-context.ts';

function Sites({ tabId }: { tabId: number | null }) {
  const { site } = useStore();
  const enabled = site.enabledList.value;
  return (
    <div class="sites" data-testid="capture-sites">
      <p>
        Always captured: localhost, 127.0.0.1, [::1], *.localhost, *.test and file: pages. Also captured, because you enabled them:
      </p>
      {enabled.length === 0 ? (
        <p class="muted">no other site.</p>
      ) : (
        <ul>
          {enabled.map((p) => (
            <li key={p}>
              <code>{p === '<all_urls>' ? 'all sites' : p}</code>{' '}
              <button class="link" onClick={() => void site.run(() => site.disableSite(p))}>
                remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {!enabled.includes('<all_urls>') && (
        <button onClick={() => void site.run(() => site.enable(['<all_urls>'], tabId))} title="The hook then runs on every page of every site you visit">
          Capture on all sites…
        </button>
      )}
    </div>
  );
}

export function CaptureBanner({ tabId }: { tabId: number | null }) {
  const { site } = useStore();
  useEffect(() => {
    void site.learnOrigin().catch(() => {});
    void site.refreshEnabled().catch(() => {});
  }, [site]);
  const notHere = site.state.value === 'not-here';
  const origin = site.origin.value;
  if (!notHere && !site.showSites.value) return null;
  return (
    <div class="capture-banner" role="region" aria-label="Capture on this site" data-testid="capture-banner">
      {notHere && (
        <p>
          OUI DevTools is not capturing {origin ? <code>{origin}</code> : 'this page'}: it runs only on local development hosts and on sites you enable.{' '}
          {origin && (
            <button class="primary" onClick={() => void site.run(() => site.enableSite(origin, tabId))}>
              Capture on this site
            </button>
          )}{' '}
          <button class="link" aria-expanded={site.showSites.value} onClick={() => (site.showSites.value = !site.showSites.value)}>
            Sites…
          </button>
        </p>
      )}
      {site.showSites.value && <Sites tabId={tabId} />}
      {site.error.value && <p class="warn">{site.error.value}</p>}
    </div>
  );
}

/** The toolbar's way to the sites list when the page is captured. */
export function SitesButton() {
  const { site } = useStore();
  return (
    <button title="Where OUI DevTools captures" aria-expanded={site.showSites.value} onClick={() => (site.showSites.value = !site.showSites.value)}>
      Sites
    </button>
  );
}
