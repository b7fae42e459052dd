/**
 * The panel store, handed down by context from panel/main.tsx, and the one
 * hook by which a view follows the session model.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { PanelStore } from './store.ts';

export const StoreContext = createContext<PanelStore | null>(null);

export function useStore(): PanelStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('no panel store: render views inside <StoreContext.Provider>');
  return store;
}

/**
 * The store, for a view that shows the session: its `recorder` and `model`
 * read the store's `session` signal, which is set again after each frame's
 * batches, so a view that reads them in render re-renders when the session
 * changes. A component that shows a part of the model handed down as props is
 * rendered by the view above it, which reads them.
 */
export function useModel(): PanelStore {
  return useStore();
}
