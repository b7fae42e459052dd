import { render } from 'preact';
import { App } from './app.tsx';
import { inspectedTabId } from './connection.ts';
import { startLive } from './state.ts';

// Follow the DevTools theme; a panel opened as a page follows the system's.
const devtoolsTheme = (globalThis as { chrome?: typeof chrome }).chrome?.devtools?.panels?.themeName;
if (devtoolsTheme) document.documentElement.dataset.theme = devtoolsTheme === 'dark' ? 'dark' : 'light';
const forced = new URLSearchParams(location.search).get('theme');
if (forced === 'dark' || forced === 'light') document.documentElement.dataset.theme = forced;

const tabId = inspectedTabId();
if (tabId !== null) startLive(tabId);
render(<App tabId={tabId} />, document.getElementById('app')!);
