/**
 * Light or dark: DevTools' own theme inside DevTools, `?theme=` when asked
 * (tests, screenshots), else the system's, followed live. The stylesheet keys
 * everything on `data-theme`, so there is one dark palette, not two.
 */
export function applyTheme(): void {
  const root = document.documentElement;
  const forced = new URLSearchParams(location.search).get('theme');
  if (forced === 'dark' || forced === 'light') {
    root.dataset.theme = forced;
    return;
  }
  const devtools = (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.panels?.themeName;
  if (devtools) {
    root.dataset.theme = devtools === 'dark' ? 'dark' : 'light';
    return;
  }
  const media = matchMedia('(prefers-color-scheme: dark)');
  const follow = () => (root.dataset.theme = media.matches ? 'dark' : 'light');
  follow();
  media.addEventListener('change', follow);
}
