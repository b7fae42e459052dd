import { render } from 'preact';
import { App } from './app.tsx';
import { inspectedTabId } from './connection.ts';
import { PanelStore } from './store.ts';
import { StoreContext } from './store-context.ts';
import { browserEnv } from './browser-env.ts';
import { applyTheme } from './theme.ts';
import { DropImport } from './drop-import.tsx';
import { copyHashesWhole } from './hash-copy.ts';

applyTheme();
copyHashesWhole(document);

const store = new PanelStore(browserEnv());
const tabId = inspectedTabId();
if (tabId !== null) {
  const stopLive = store.startLive(tabId);
  addEventListener('pagehide', stopLive, { once: true });
}
render(
  <StoreContext.Provider value={store}>
    <App tabId={tabId} />
    <DropImport />
  </StoreContext.Provider>,
  document.getElementById('app')!,
);
