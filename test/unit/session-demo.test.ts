/**
 * The demo's conformant OUI client (test/demo/app/oui-client.ts), driven
 * through a link that records what it sends and receives as wire events:
 * the session model must find nothing wrong with it, and must see what it
 * did (repeats ignored, refused results trimmed, approvals, async actions).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActionError, OUIClient, type ClientLink } from '../demo/app/oui-client.ts';
import { argsHashSync, surfacesHash } from '../../src/protocol/index.ts';
import type { OUISurface } from '../../src/protocol/index.ts';
import { replay } from '../../src/session/model/session-model.ts';
import type { WireClient, WireEvent } from '../../src/session/wire/wire.ts';
import { makeClient, uuid } from './session-helpers.ts';
import { SLOW_MS, until } from '../support/wait.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A link that writes every send, delivery and acknowledgment down as the decoder would. */
class RecordingLink implements ClientLink {
  connected = true;
  readonly events: Array<{ ev: WireEvent; client: WireClient }> = [];
  readonly client = makeClient('demo');
  private seq = 0;
  private handlers = new Set<(type: string, payload: unknown, ack?: (v: unknown) => void) => void>();
  private pendingAcks = new Map<string, (ack: unknown) => void>();
  /** How the receiver answers each result: accept by default. */
  resultAck: (payload: Record<string, unknown>) => unknown = () => ({ ok: true });

  private push(partial: Omit<WireEvent, 'id' | 'client' | 't' | 'size'>): WireEvent {
    const ev: WireEvent = { id: `demo/${++this.seq}`, client: this.client.key, t: Date.now(), size: 0, ...partial };
    this.events.push({ ev, client: this.client });
    return ev;
  }

  send(type: string, payload: unknown, onAck?: (ack: unknown) => void): void {
    const ev = this.push({ dir: 'out', kind: 'event', type, payload: JSON.parse(JSON.stringify(payload)), ...(onAck ? { wantsAck: true } : {}) });
    if (!onAck) return;
    if (type === 'action:result') {
      const ack = this.resultAck(payload as Record<string, unknown>);
      // The receiver answers asynchronously, as a socket would.
      setTimeout(() => {
        this.push({ dir: 'in', kind: 'ack', ackOf: ev.id, payload: ack });
        onAck(ack);
      }, 1);
    } else this.pendingAcks.set(ev.id, onAck);
  }

  onMessage(h: (type: string, payload: unknown, ack?: (v: unknown) => void) => void): () => void {
    this.handlers.add(h);
    return () => void this.handlers.delete(h);
  }

  onStatus(): () => void {
    return () => {};
  }

  /** The runtime sends an event, asking for a receipt. */
  deliver(type: string, payload: unknown): string {
    const ev = this.push({ dir: 'in', kind: 'event', type, payload, wantsAck: true });
    const receipt = (v: unknown) => void this.push({ dir: 'out', kind: 'ack', ackOf: ev.id, payload: v });
    for (const h of this.handlers) h(type, payload, receipt);
    return ev.id;
  }

  /** Resolves once the client gave its receipt for the event `id` it was delivered. */
  async receipted(id: string): Promise<void> {
    await until(() => this.events.some(({ ev }) => ev.dir === 'out' && ev.kind === 'ack' && ev.ackOf === id), `the receipt for ${id}`, SLOW_MS);
  }

  results(requestId: string): Array<Record<string, unknown>> {
    return this.events
      .filter(({ ev }) => ev.type === 'action:result' && (ev.payload as { requestId?: string }).requestId === requestId)
      .map(({ ev }) => ev.payload as Record<string, unknown>);
  }

  /** The final results sent for `requestId` (not interim, not a trimmed re-send). */
  finals(requestId: string): Array<Record<string, unknown>> {
    return this.results(requestId).filter((r) => r.interim !== true && !r.delivery);
  }

  async finalOf(requestId: string): Promise<Record<string, unknown>> {
    await until(() => this.finals(requestId).length > 0, `a final result for ${requestId}`, SLOW_MS);
    return this.finals(requestId)[0]!;
  }

  /** Resolves once the client has sent an event of `type` whose payload has `match`'s fields. */
  async sent(type: string, match: Record<string, unknown> = {}): Promise<void> {
    const has = () =>
      this.events.some(({ ev }) => ev.dir === 'out' && ev.type === type && Object.entries(match).every(([k, v]) => (ev.payload as Record<string, unknown> | null)?.[k] === v));
    await until(has, `${type} ${JSON.stringify(match)} sent`, SLOW_MS);
  }
}

const shop: OUISurface = {
  id: 'shop',
  name: 'Shop',
  description: 'A shop — café edition',
  activation: { routes: ['/'] },
  actions: [
    { id: 'add', description: 'add', effect: 'edit', input: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] }, output: { type: 'object' } },
    { id: 'pay', description: 'pay', effect: 'transaction', input: { type: 'object', properties: { amount: { type: 'number', minimum: 1 } }, required: ['amount'] } },
    { id: 'slow', description: 'slow', effect: 'job', async: true, input: { type: 'object', properties: {} } },
    { id: 'boom', description: 'boom', effect: 'edit', input: { type: 'object' } },
  ],
  observations: [
    { id: 'count', description: 'count', schema: { type: 'integer' }, updateFrequency: 'on-change' },
    { id: 'heavy', description: 'heavy', schema: { type: 'integer' }, updateFrequency: 'polling' },
  ],
};
const other: OUISurface = {
  id: 'other-page',
  name: 'Other',
  description: 'another page',
  activation: { routes: '/other/**' },
  actions: [{ id: 'noop', description: 'noop', effect: 'view', input: { type: 'object' } }],
};

describe('the demo client through the session model', () => {
  it('conformant traffic raises only what the runtime got wrong on purpose', async () => {
    const link = new RecordingLink();
    let route = '/';
    const items: string[] = [];
    const client = new OUIClient({ name: 'demo', link, route: () => route, reanswerMs: 300, settleQuietMs: 5, warn: () => {}, onApprovalAsk: async () => true });
    client.define({
      surface: shop,
      handlers: {
        add: (p: { text: string }) => {
          items.push(p.text);
          client.notify();
          return { count: items.length };
        },
        pay: (p: { amount: number }) => ({ paid: p.amount }),
        slow: async (_p, ctx) => {
          await sleep(10);
          ctx.progress(50, { half: true });
          await sleep(10);
          return { done: true };
        },
        boom: () => {
          throw new ActionError('app:boom', 'it went boom');
        },
      },
      observe: { count: () => items.length, heavy: () => 42 },
    });
    client.define({ surface: other, handlers: { noop: () => ({}) } });

    const request = (actionId: string, params: unknown, more: Record<string, unknown> = {}, surfaceId = 'shop') => {
      const requestId = (more.requestId as string | undefined) ?? uuid();
      link.deliver('action:request', { requestId, surfaceId, actionId, params, timestamp: Date.now(), ...more });
      return requestId;
    };

    const a = request('add', { text: 'one' });
    const ra = await link.finalOf(a);
    // A repeat within the re-answer interval: receipt only.
    request('add', { text: 'one' }, { requestId: a });
    await link.finalOf(request('add', { text: 'two' }, { knownSurfaces: ra.surfacesHash }));
    await link.finalOf(request('add', { text: '' }));
    await link.finalOf(request('fly', {}));
    await link.finalOf(request('noop', {}, {}, 'ghost'));
    await link.finalOf(request('boom', {}));
    await link.finalOf(request('slow', {}));

    // Approval: ask, the page grants, the request carries the grant.
    link.deliver('x-approval:ask', { approvalId: 'ap1', surfaceId: 'shop', actionId: 'pay', params: { amount: 5 } });
    await link.sent('x-approval:granted', { approvalId: 'ap1' });
    await link.finalOf(request('pay', { amount: 5 }, { approval: { approvalId: 'ap1', argsHash: argsHashSync({ amount: 5 }) } }));
    // Without approval: denied.
    await link.finalOf(request('pay', { amount: 9 }));

    // A receiver that refuses big results: the client trims and re-sends (§7.3.6).
    link.resultAck = (r) => (r.surfaces !== undefined ? { ok: false, error: 'too large' } : { ok: true });
    const big = request('add', { text: 'three' });
    await link.finalOf(big);
    // The receiver refused it: the trimmed re-send (it carries `delivery`), and the receiver's answer to it.
    const resent = () => link.events.find(({ ev }) => ev.type === 'action:result' && (ev.payload as { requestId?: string; delivery?: unknown }).requestId === big && (ev.payload as { delivery?: unknown }).delivery);
    await until(() => resent() !== undefined && link.events.some(({ ev }) => ev.kind === 'ack' && ev.ackOf === resent()!.ev.id), 'the trimmed re-send, answered', SLOW_MS);
    link.resultAck = () => ({ ok: true });

    // Navigation: surfaces change, the next result reports them.
    route = '/other/page';
    client.setRoute();
    await link.finalOf(request('noop', {}, {}, 'other-page'));
    // Off the shop's route: the client refuses it in its receipt.
    await link.receipted(link.deliver('observation:request', { surfaceId: 'shop', observationId: 'heavy', timestamp: Date.now() }));
    client.dispose();

    const model = replay(link.events);
    model.tick(Date.now() + 60_000);
    assert.equal(model.internalErrors, 0, model.lastInternalError);
    const byRule = model.findings.map((f) => f.rule).sort();
    // What the runtime sent wrong on purpose; the client answered each correctly.
    assert.deepEqual(byRule, ['approval-missing', 'params-invalid', 'request-unknown-action', 'request-unknown-surface'].sort(), model.findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));

    const c = model.clients.get('demo')!;
    assert.ok(c.hashes.length >= 10);
    assert.ok(c.hashes.every((h) => h.verdict === 'match'), JSON.stringify(c.hashes.filter((h) => h.verdict !== 'match')));
    assert.deepEqual(c.acks.filter((x) => x.kind === 'repeat').map((x) => x.handling), ['receipt only']);
    assert.deepEqual(c.acks.filter((x) => x.kind === 'trimmed-resend').map((x) => x.omitted), [['surfaces', 'observations']]);
    const [pay, denied] = c.approvals;
    assert.equal(pay!.outcome, 'ran');
    assert.equal(pay!.hashMatches, true);
    assert.equal(typeof pay!.expiresAt, 'number');
    assert.equal(denied!.outcome, 'refused');
    assert.equal(denied!.code, 'ACTION_DENIED');
    assert.deepEqual([...c.surfaces.keys()], ['other-page']);
    assert.equal(c.requests.get(big)!.status, 'succeeded');
    assert.ok([...c.requests.values()].every((r) => r.status === 'succeeded' || r.status === 'failed'));
    assert.deepEqual(c.surfaceSets.map((s) => s.summary), [['added surface shop'], ['removed surface shop'], ['added surface other-page']]);
    assert.equal(c.surfaceSets.at(-1)!.after, surfacesHash([other]));
  });
});
