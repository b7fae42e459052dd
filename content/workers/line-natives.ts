/**
 * The browser functions a hook's worker lines use (in the page and in a
 * worker), taken before any script of the app's runs: an app that wraps
 * ports or listeners later (zone.js patches MessagePort's `onmessage`)
 * neither sees nor changes the lines.
 */
import type { LineNatives } from './lines.ts';

const { apply } = Reflect;
const portPostMessage = MessagePort.prototype.postMessage;
const portStart = MessagePort.prototype.start;
const portClose = MessagePort.prototype.close;
const addListener = EventTarget.prototype.addEventListener;
const removeListener = EventTarget.prototype.removeEventListener;
const stopImmediate = Event.prototype.stopImmediatePropagation;
const NativeMessageChannel = MessageChannel;
const getter = (proto: object, name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
const eventData = getter(MessageEvent.prototype, 'data');
const eventPorts = getter(MessageEvent.prototype, 'ports');

export const lineNatives: LineNatives & {
  unlisten(target: EventTarget, type: string, fn: (e: Event) => void, capture?: boolean): void;
  stopImmediate(e: Event): void;
  ports(e: MessageEvent): readonly MessagePort[];
} = {
  channel: () => new NativeMessageChannel(),
  portPost(port, message) {
    apply(portPostMessage, port, [message]);
  },
  listen(target, type, fn, capture = false) {
    apply(addListener, target, [type, fn, capture]);
  },
  unlisten(target, type, fn, capture = false) {
    apply(removeListener, target, [type, fn, capture]);
  },
  start(port) {
    apply(portStart, port, []);
  },
  close(port) {
    apply(portClose, port, []);
  },
  messageData: (e) => (eventData ? apply(eventData, e, []) : e.data),
  ports: (e) => (eventPorts ? (apply(eventPorts, e, []) as readonly MessagePort[]) : e.ports),
  stopImmediate(e) {
    apply(stopImmediate, e, []);
  },
};
