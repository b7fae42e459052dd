/**
 * The smallest OUI app a panel test needs: a page on a plain WebSocket that
 * registers one surface (notes, with add_note) and answers every request
 * with success, as a 0.4.1 client does (its state, no surfacesHash); and a
 * server that sends it one request once it registered.
 */
import type { FixtureServer } from './fixture-server.ts';

/** The page; `surfaceExtra` is source text spliced into the surface literal (e.g. `metadata: { … },`). */
export function notesPage(surfaceExtra = ''): string {
  return `<!doctype html><title>notes</title><script>
  const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
  ws.onopen = () => ws.send(JSON.stringify({ type: 'surface:register', payload: { surface: { id: 'notes', name: 'Notes', description: 'd', ${surfaceExtra}
    actions: [{ id: 'add_note', description: 'd', input: { type: 'object' } }] }, timestamp: Date.now() } }));
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    ws.send(JSON.stringify({ type: 'action:result', payload: { requestId: m.payload.requestId, success: true, data: {}, settled: true, timestamp: Date.now() } }));
    document.title = 'answered';
  };
</script>`;
}

/** Every registration on `server` is answered with one add_note request. */
export function requestOnRegister(server: FixtureServer): void {
  server.onConnection((ws) =>
    ws.on('message', (d) =>
      String(d).includes('surface:register') &&
      ws.send(JSON.stringify({ type: 'action:request', payload: { requestId: '2b9c1f5e-0d7a-4e7b-9a61-3c1f2e4d5a6b', surfaceId: 'notes', actionId: 'add_note', params: {}, timestamp: Date.now() } })),
    ),
  );
}
