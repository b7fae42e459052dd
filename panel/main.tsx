import { render } from 'preact';
import { App } from './app.tsx';
import { inspectedTabId } from './connection.ts';
import { startLive } from './state.ts';
import { applyTheme } from './theme.ts';

applyTheme();

const tabId = inspectedTabId();
if (tabId !== null) startLive(tabId);
render(<App tabId={tabId} />, document.getElementById('app')!);
