// The one manifest.json at the top level is the source; each browser's manifest is derived from it here,
// with package.json's version stamped in (the only place a version is written by hand).

/** The add-on id Firefox knows us by (also the key of the fixed UUID the Firefox tests set). */
export const GECKO_ID = 'oui-devtools@oui.dev';
/**
 * Firefox 128 is the first with `world: "MAIN"` content scripts, but 140 (the current ESR) is the first
 * that reads `data_collection_permissions`, which addons.mozilla.org requires of new add-ons; web-ext lint
 * warns on the declaration under a lower minimum. Firefox for Android reads it from 142 (and has no DevTools,
 * so nothing is lost there).
 */
export const FIREFOX_MIN_VERSION = '140.0';
export const FIREFOX_ANDROID_MIN_VERSION = '142.0';

/** Chrome's manifest: the source as it is, with the package's version. */
export function chromeManifest(source, version) {
  return { ...structuredClone(source), version };
}

/**
 * Firefox's manifest: a background event page instead of a service worker
 * (Firefox has no extension service worker), the gecko id and minimum
 * version, the data-collection declaration addons.mozilla.org requires (we
 * collect nothing), and no keys only Chrome knows.
 */
export function firefoxManifest(source, version) {
  const m = structuredClone(source);
  m.version = version;
  delete m.minimum_chrome_version;
  const worker = m.background?.service_worker;
  if (worker) m.background = { scripts: [worker] };
  m.browser_specific_settings = {
    gecko: {
      id: GECKO_ID,
      strict_min_version: FIREFOX_MIN_VERSION,
      data_collection_permissions: { required: ['none'] },
    },
    gecko_android: { strict_min_version: FIREFOX_ANDROID_MIN_VERSION },
  };
  return m;
}
