/** An extension port for the background's router in Node: records what the router posts, and plays the other end. */
import type { PortLike } from '../../src/background/router.ts';

export class FakePort implements PortLike {
  received: unknown[] = [];
  disconnected = false;
  private messageFns: Array<(m: unknown) => void> = [];
  private disconnectFns: Array<() => void> = [];
  readonly onMessage = { addListener: (fn: (m: unknown) => void) => void this.messageFns.push(fn) };
  readonly onDisconnect = { addListener: (fn: () => void) => void this.disconnectFns.push(fn) };

  constructor(
    readonly name: string,
    readonly sender?: PortLike['sender'],
  ) {}

  postMessage(message: unknown): void {
    this.received.push(message);
  }
  disconnect(): void {
    this.disconnected = true;
  }
  /** A message from the other end. */
  send(message: unknown): void {
    for (const fn of this.messageFns) fn(message);
  }
  /** The other end went away. */
  close(): void {
    for (const fn of this.disconnectFns) fn();
  }
  get listening(): boolean {
    return this.messageFns.length > 0;
  }
}
