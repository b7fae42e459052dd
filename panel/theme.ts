/**
 * Light or dark: DevTools' own theme inside DevTools (followed when the user
 * switches it), `?theme=` when asked (tests, screenshots), else the system's,
 * followed live. The stylesheet keys everything on `data-theme`, so there is
 * one dark palette, not two; type size and face are DevTools' in both
 * (panel.css).
 */
type Devtools = { panels?: { themeName?: string; setThemeChangeHandler?(fn: (theme: string) => void): void; onThemeChanged?: { addListener(fn: (theme: string) => void): void } } };

export function applyTheme(): void {
  const root = document.documentElement;
  const forced = new URLSearchParams(location.search).get('theme');
  if (forced === 'dark' || forced === 'light') {
    root.dataset.theme = forced;
    return;
  }
  const g = globalThis as { chrome?: { devtools?: Devtools }; browser?: { devtools?: Devtools } };
  const panels = g.chrome?.devtools?.panels ?? g.browser?.devtools?.panels;
  if (panels?.themeName) {
    const set = (name: string) => (root.dataset.theme = name === 'dark' ? 'dark' : 'light');
    set(panels.themeName);
    // Chrome calls the handler on a switch in DevTools' settings; Firefox fires onThemeChanged.
    try {
      if (typeof panels.setThemeChangeHandler === 'function') panels.setThemeChangeHandler(set);
      else panels.onThemeChanged?.addListener(set);
    } catch {
      // An older browser: the theme at opening stays.
    }
    return;
  }
  const media = matchMedia('(prefers-color-scheme: dark)');
  const follow = () => (root.dataset.theme = media.matches ? 'dark' : 'light');
  follow();
  media.addEventListener('change', follow);
}
