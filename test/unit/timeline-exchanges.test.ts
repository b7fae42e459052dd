/**
 * The Timeline's exchange rows and what follows from them, in the store as
 * the panel runs it (a session imported, read through `store.timeline`): one
 * row per request carrying its status and failure, a status filter that
 * matches exchanges and not their acks, expansion to the raw events, "All
 * events" as before, one "Clear filters", and `openEvent` revealing an event
 * whatever hides it. The fold itself is held to its definition by the
 * property test in timeline-filter.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PanelStore, type PanelEnv } from '../../panel/store.ts';
import { Exchanges, type Rows } from '../../panel/exchanges.ts';
import { TimelineFilter } from '../../panel/incremental-filter.ts';
import { answerOf, failureText, requestSummary } from '../../panel/event-request.ts';
import { NO_CRITERIA } from '../../panel/timeline-criteria.ts';
import { exportSession } from '../../src/session/wire/session-file.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';

const T0 = 1_767_225_600_000;
const CLIENT: WireClient = { key: 'ws:app', kind: 'socket.io', label: 'ws://app.test/socket.io', origin: 'http://app.test', frameUrl: 'http://app.test/', frameId: 0 };
const DENIED = 'approval required: the request carries no approval';

function env(): PanelEnv {
  return {
    settings: { get: () => null, set: () => {} },
    nextFrame: (fn) => fn(),
    connect: () => ({ send: () => {}, close: () => {} }),
    saved: { get: async () => undefined, set: async () => {} },
    sites: { granted: async () => [], request: async () => false, remove: async () => {}, sync: async () => {}, reload: async () => {}, reloadFrames: async () => {}, inspectedOrigin: async () => null },
  };
}

/** A session: a registration, a request that succeeds and one that is denied (each with its receipt, result and ack), observation updates between. */
function traffic(): WireEvent[] {
  let t = T0;
  const ev = (e: Omit<WireEvent, 'client' | 't' | 'size'>): WireEvent => ({ client: CLIENT.key, t: (t += 10), size: 50, ...e });
  const surface = {
    id: 'checkout',
    name: 'Checkout',
    description: 'Pay',
    actions: [
      { id: 'place_order', description: 'Order', effect: 'transaction', input: { type: 'object' } },
      { id: 'quote', description: 'Quote', effect: 'read', input: { type: 'object' } },
    ],
    observations: [{ id: 'total', description: 'Total', schema: { type: 'number' } }],
  };
  const exchange = (n: number, actionId: string, answer: Record<string, unknown>): WireEvent[] => [
    ev({ id: `q${n}`, dir: 'in', kind: 'event', type: 'action:request', payload: { requestId: `r${n}`, surfaceId: 'checkout', actionId, params: { n }, timestamp: t } }),
    ev({ id: `rc${n}`, dir: 'out', kind: 'ack', ackOf: `q${n}`, payload: [{ ok: true }] }),
    ev({ id: `u${n}`, dir: 'out', kind: 'event', type: 'observation:update', payload: { surfaceId: 'checkout', observationId: 'total', value: n, timestamp: t } }),
    ev({ id: `res${n}`, dir: 'out', kind: 'event', type: 'action:result', payload: { requestId: `r${n}`, ...answer, timestamp: t } }),
    ev({ id: `ack${n}`, dir: 'in', kind: 'ack', ackOf: `res${n}`, payload: [{ ok: true }] }),
  ];
  return [
    ev({ id: 'reg', dir: 'out', kind: 'event', type: 'surface:register', payload: { surface, timestamp: t } }),
    ...exchange(1, 'quote', { success: true, data: { total: 3 } }),
    ...exchange(2, 'place_order', { success: false, error: { code: 'ACTION_DENIED', message: DENIED } }),
  ];
}

function imported(): PanelStore {
  const store = new PanelStore(env());
  store.importJson(JSON.stringify(exportSession([CLIENT], traffic())), 'rec.json');
  return store;
}

/** The rows as "kind id", an exchange's with its size. */
function shown(rows: Rows): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows.at(i)!;
    out.push(r.kind === 'exchange' ? `exchange ${r.ev.id} ${r.size}${r.expanded ? ' open' : ''}` : `${r.kind} ${r.ev.id}`);
  }
  return out;
}

describe('Timeline exchanges', () => {
  it('one row per exchange by default, carrying its status; observation updates and registrations stay rows of their own', () => {
    const store = imported();
    assert.equal(store.ui.timeline.rows.value, 'exchanges');
    assert.deepEqual(shown(store.timeline.value.rows), ['event reg', 'exchange q1 4', 'event u1', 'exchange q2 4', 'event u2']);
    assert.equal(store.timeline.value.matches.length, 11, 'the filter still counts events');
    assert.equal(store.requestOf(store.recorder.byId.get('q2')!)?.status, 'failed');
  });

  it('a status filter matches exchanges, not their acks: "failed" gives the one failed exchange as one row; "All events" gives its four events', () => {
    const store = imported();
    store.ui.timeline.status.value = 'failed';
    assert.deepEqual(shown(store.timeline.value.rows), ['exchange q2 4']);
    store.ui.timeline.rows.value = 'events';
    assert.deepEqual(shown(store.timeline.value.rows), ['event q2', 'event rc2', 'event res2', 'event ack2']);
    store.ui.timeline.rows.value = 'exchanges';
    store.ui.timeline.status.value = 'succeeded';
    assert.deepEqual(shown(store.timeline.value.rows), ['exchange q1 4']);
  });

  it('free text found in a result shows its exchange, and an expanded exchange shows its raw events under it', () => {
    const store = imported();
    store.ui.timeline.text.value = 'action_denied';
    assert.deepEqual(shown(store.timeline.value.rows), ['exchange q2 4']);
    store.toggleExchange(store.timeline.value.rows.at(0)!.exchange!.key);
    assert.deepEqual(shown(store.timeline.value.rows), ['exchange q2 4 open', 'member rc2', 'member res2', 'member ack2']);
    store.toggleExchange(store.timeline.value.rows.at(0)!.exchange!.key);
    assert.deepEqual(shown(store.timeline.value.rows), ['exchange q2 4']);
  });

  it('a failed answer reads as its code and message, at the top of the detail', () => {
    const store = imported();
    const req = store.requestOf(store.recorder.byId.get('ack2')!)!;
    assert.equal(failureText(req), `ACTION_DENIED: ${DENIED}`);
    assert.equal(requestSummary(req), `failed · ACTION_DENIED: ${DENIED}`);
    assert.equal(answerOf(req)?.eventId, 'res2');
    const ok = store.requestOf(store.recorder.byId.get('q1')!)!;
    assert.equal(failureText(ok), undefined);
    assert.match(requestSummary(ok), /^succeeded · \d+ ms$/);
  });

  it('Clear filters resets every filter, the client picker included', () => {
    const store = imported();
    const t = store.ui.timeline;
    assert.equal(store.filtersActive.value, false);
    t.category.value = 'acks';
    t.status.value = 'failed';
    t.text.value = 'surface:check action:place x';
    store.selectedClient.value = CLIENT.key;
    assert.equal(store.filtersActive.value, true);
    store.clearFilters();
    assert.deepEqual([t.category.value, t.status.value, t.text.value, store.selectedClient.value], ['', '', '', '']);
    assert.equal(store.filtersActive.value, false);
    assert.equal(store.timeline.value.rows.length, 5);
  });

  it('openEvent reveals an event: the Timeline, its exchange expanded, filters that hide it cleared and said, its row to be focused', () => {
    const store = imported();
    store.view.value = 'acks';
    store.openEvent('q1');
    assert.equal(store.view.value, 'timeline');
    assert.equal(store.selectedEvent.value, 'q1');
    assert.equal(store.ui.timeline.note.value, null, 'nothing hid it');
    assert.equal(store.ui.timeline.expanded.value.size, 0, 'an exchange row is its request: nothing to expand');
    assert.equal(store.ui.timeline.focus.value?.id, 'q1');
    // A member of a collapsed exchange, under a filter that hides it.
    store.ui.timeline.status.value = 'succeeded';
    store.openEvent('ack2');
    assert.equal(store.ui.timeline.status.value, '', 'the filter that hid it is cleared');
    assert.match(store.ui.timeline.note.value ?? '', /^Filters cleared to show ack at /);
    const rows = store.timeline.value.rows;
    const at = rows.indexOf(store.recorder.byId.get('ack2')!);
    assert.ok(at >= 0, 'its row is shown');
    assert.equal(rows.at(at)!.kind, 'member');
    assert.equal(store.ui.timeline.focus.value?.id, 'ack2');
    // A filter that shows it is kept.
    store.ui.timeline.status.value = 'failed';
    store.openEvent('res2');
    assert.equal(store.ui.timeline.status.value, 'failed');
    assert.equal(store.ui.timeline.note.value, null);
    // Paused before it: resumed, and said.
    store.pausedAt.value = 3;
    store.openEvent('u2');
    assert.equal(store.pausedAt.value, null);
    assert.match(store.ui.timeline.note.value ?? '', /Filters cleared and the Timeline resumed to show observation:update/);
    // An event no longer recorded: said, nothing else changes.
    store.openEvent('gone');
    assert.match(store.ui.timeline.note.value ?? '', /no longer in the list/);
  });

  it('a live batch folds on from the last fold; a request whose status changed under a status filter folds again', () => {
    const ev = (id: string, rid: string, type = 'action:request'): WireEvent => ({ id, client: 'a', t: 0, dir: 'in', kind: 'event', type, size: 1, payload: { requestId: rid, surfaceId: 's', actionId: 'go' } });
    const list: WireEvent[] = [ev('q1', 'r1'), ev('q2', 'r2')];
    const byId = new Map(list.map((e) => [e.id, e]));
    const requests = new Map([
      ['r1', { status: 'succeeded', surfaceId: 's', actionId: 'go' }],
      ['r2', { status: 'running', surfaceId: 's', actionId: 'go' }],
    ]);
    const filter = new TimelineFilter({ request: (_c, id) => requests.get(id), event: (id) => byId.get(id) });
    const x = new Exchanges((id) => byId.get(id));
    const running = { ...NO_CRITERIA, status: 'running' };
    // The same set each time, as the store's signal holds it.
    const none = new Set<string>();
    const fold = () => {
      const source = { events: list, end: list.length, evicted: 0 };
      return shown(x.fold(source, filter.update(source, running, 1), none));
    };
    assert.deepEqual(fold(), ['exchange q2 1']);
    // r1 runs again: it joins the matches before r2's.
    requests.get('r1')!.status = 'running';
    assert.deepEqual(fold(), ['exchange q1 1', 'exchange q2 1']);
    // A live batch: r2's result, and a new request.
    const more = [ev('res2', 'r2', 'action:result'), ev('q3', 'r3')];
    for (const e of more) byId.set(e.id, e);
    list.push(...more);
    requests.set('r3', { status: 'running', surfaceId: 's', actionId: 'go' });
    assert.deepEqual(fold(), ['exchange q1 1', 'exchange q2 2', 'exchange q3 1']);
  });

  it('an exchange whose first request was evicted is shown as its first request still recorded', () => {
    const ev = (id: string, e: Partial<WireEvent>): WireEvent => ({ id, client: 'a', t: 0, dir: 'in', kind: 'event', size: 1, ...e });
    const events: WireEvent[] = [
      ev('q', { type: 'action:request', payload: { requestId: 'r', surfaceId: 's', actionId: 'go' } }),
      ev('u', { type: 'observation:update', dir: 'out', payload: { surfaceId: 's', observationId: 'n', value: 1 } }),
      ev('res', { type: 'action:result', dir: 'out', payload: { requestId: 'r', success: true } }),
      ev('again', { type: 'action:request', payload: { requestId: 'r', surfaceId: 's', actionId: 'go' } }),
    ];
    const byId = new Map(events.map((e) => [e.id, e]));
    const filter = new TimelineFilter({ request: () => undefined, event: (id) => byId.get(id) });
    const x = new Exchanges((id) => byId.get(id));
    // The recorder's list, evicted from in place.
    const list = [...events];
    const fold = (evicted: number) => {
      const source = { events: list, end: list.length, evicted };
      return shown(x.fold(source, filter.update(source, NO_CRITERIA, 1), new Set()));
    };
    assert.deepEqual(fold(0), ['exchange q 3', 'event u']);
    list.splice(0, 1);
    assert.deepEqual(fold(1), ['event u', 'exchange again 2'], 'shown as the repeat, where its first match is');
  });
});
