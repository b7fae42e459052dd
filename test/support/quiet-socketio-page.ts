/**
 * A page script for the quiet-upgrade end-to-end test: one Socket.IO client
 * on `/oui` that joins and registers over long-polling, answers requests, and
 * after the upgrade to WebSocket sends nothing of its own. The WebSocket
 * transport is held back until the test calls `__quiet.upgrade()`, so the
 * registration always goes over long-polling. `?transport=websocket` opens on
 * WebSocket only (no gate).
 */
import { io } from 'socket.io-client';
import { WebSocket as EngineWebSocket, XHR } from 'engine.io-client';
import { surfacesHash } from '../../src/protocol/index.ts';

const SURFACE = {
  id: 'counter',
  name: 'Counter',
  description: 'A counter the agent can bump',
  actions: [
    {
      id: 'bump',
      description: 'Add to the counter',
      effect: 'edit',
      input: { type: 'object', properties: { by: { type: 'integer', minimum: 1, description: 'How much to add' } }, required: ['by'] },
    },
  ],
};

let release!: () => void;
const gate = new Promise<void>((r) => (release = r));

class GatedWebSocket extends EngineWebSocket {
  override doOpen(): this {
    void gate.then(() => super.doOpen());
    return this;
  }
}

const wsOnly = new URLSearchParams(location.search).get('transport') === 'websocket';
const socket = io(`${location.origin}/oui`, wsOnly ? { transports: ['websocket'] } : { transports: [XHR, GatedWebSocket] });

let count = 0;
const ran: string[] = [];

socket.emit('surface:register', { surface: SURFACE, timestamp: Date.now() });

socket.on('action:request', (req: { requestId?: unknown; actionId?: unknown; params?: { by?: unknown } }, receipt?: (v: unknown) => void) => {
  receipt?.({ ok: true });
  if (typeof req?.requestId !== 'string') return;
  ran.push(req.requestId);
  const by = req.params?.by;
  const valid = req.actionId === 'bump' && typeof by === 'number' && Number.isInteger(by) && by >= 1;
  if (valid) count += by;
  document.getElementById('count')!.textContent = String(count);
  socket.emit('action:result', {
    requestId: req.requestId,
    success: valid,
    ...(valid ? { data: { count } } : { error: { code: 'VALIDATION_ERROR', message: '/by must be an integer of at least 1' } }),
    surfacesHash: surfacesHash([SURFACE]),
    timestamp: Date.now(),
  });
});

(window as unknown as { __quiet: unknown }).__quiet = {
  upgrade: () => release(),
  transport: () => socket.io.engine?.transport?.name ?? '',
  connected: () => socket.connected,
  ran,
};
