/**
 * The bridge's post (content/post-split.ts): what the browser refuses is
 * split until it goes, clients before items; an item that cannot go alone is
 * said as skipped, with its size; a port gone mid-send stops the rest.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakePort } from '../support/fake-port.ts';
import { FakeHook } from '../support/capture-items.ts';
import { postSplitting } from '../../content/post-split.ts';
import type { HookMessage, ItemsMessage } from '../../src/messages.ts';

/** A port that refuses messages over `limit` characters of JSON, as Chrome refuses those over 64 MiB. */
class RefusingPort extends FakePort {
  refused = 0;
  constructor(
    private readonly limit: number,
    private readonly error = 'Message length exceeded maximum allowed length.',
  ) {
    super('capture');
  }
  override postMessage(message: unknown): void {
    if (JSON.stringify(message).length > this.limit) {
      this.refused++;
      throw new Error(this.error);
    }
    super.postMessage(message);
  }
}

function session(): { message: ItemsMessage; hook: FakeHook } {
  const hook = new FakeHook('h1');
  const ws = hook.client('websocket', 'ws://app.test/agent');
  const items = [hook.frame(ws, 'in', 'a'.repeat(100)), hook.frame(ws, 'in', 'b'.repeat(100)), hook.frame(ws, 'in', 'c'.repeat(5_000)), hook.frame(ws, 'in', 'd'.repeat(100))];
  return { message: hook.message(items), hook };
}

describe('the bridge\'s post', () => {
  it('sends a message that fits as it is', () => {
    const port = new RefusingPort(1e9);
    const { message } = session();
    assert.ok(postSplitting(port, message, () => true));
    assert.deepEqual(port.received, [message]);
  });

  it('splits a refused message, clients first, and says an item too large alone as skipped, with its size', () => {
    const port = new RefusingPort(2_000);
    const { message } = session();
    assert.ok(postSplitting(port, message, () => true));
    assert.ok(port.refused > 0, 'the browser refused something');
    const got = port.received as HookMessage[];
    const first = got[0] as ItemsMessage;
    assert.equal(first.type, 'items');
    assert.equal(first.clients.length, 1, 'the client is announced first');
    assert.equal(first.items.length, 0);
    const delivered = got.flatMap((m) => (m.type === 'items' ? m.items.map((i) => i.seq) : []));
    assert.deepEqual(delivered, [1, 2, 4], 'every item that fits goes, in order');
    const skipped = got.filter((m) => m.type === 'skipped');
    assert.deepEqual(skipped, [{ type: 'skipped', hook: 'h1', through: { c1: 3 }, size: 5_000 }]);
    // In capture order: the skip is said between items 2 and 4.
    const order = got.flatMap((m) => (m.type === 'items' ? m.items.map((i) => `i${i.seq}`) : m.type === 'skipped' ? ['skip'] : []));
    assert.deepEqual(order, ['i1', 'i2', 'skip', 'i4']);
  });

  it('stops when the port went away mid-send', () => {
    const { message } = session();
    const gone = new RefusingPort(0, 'Attempting to use a disconnected port object');
    assert.equal(postSplitting(gone, message, () => true), false);
    assert.equal(gone.refused, 1, 'not split: a disconnected port refuses everything');
    const replaced = new RefusingPort(2_000);
    assert.equal(postSplitting(replaced, message, () => false), false, 'no longer the bridge\'s port');
    assert.equal(replaced.received.length, 0);
  });
});
