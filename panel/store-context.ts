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
 * The store, for a view that shows the session model: the model is mutated in
 * place, so reading the version counter here is what re-renders the view when
 * a batch has been taken in.
 */
export function useModel(): PanelStore {
  const store = useStore();
  store.version.value;
  return store;
}
