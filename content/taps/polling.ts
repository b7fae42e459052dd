/**
 * Socket.IO's long-polling phase: Engine.IO over XMLHttpRequest and fetch. A
 * default socket.io-client sends its first packets (often the surface
 * registrations) this way before it upgrades to WebSocket. Only requests to an
 * Engine.IO URL are looked at; every other request passes untouched.
 */
import { bytesPayload, textPayload, type CaptureBuffer } from '../capture-buffer.ts';
import type { CapturedClient } from '../../src/capture/captured-items.ts';
import { disguise, ownerOf, replaceProperty } from '../disguise.ts';
import { BoundedMap } from '../bounded-map.ts';
import { SafeWeakMap, exec, indexOf, slice } from '../primordials.ts';
import type { VirtualServer } from '../virtual/server.ts';
import { faultsOn } from '../faults.ts';
import { createPollingFaults, type PollingFaults } from './polling-faults.ts';

const ENGINE_URL = /[?&]EIO=\d/;
const { apply } = Reflect;
const NativeURL = URL;
const isView = ArrayBuffer.isView;
/** Engine.IO endpoints a page keeps a client for; beyond, the oldest is let go (and gets a new client if it is used again). */
export const MAX_ENDPOINTS = 64;

export function tapPolling(buffer: CaptureBuffer, virtual?: VirtualServer): { readonly evicted: () => number } {
  const clients = new BoundedMap<string, CapturedClient>(MAX_ENDPOINTS);

  /** One client per Engine.IO endpoint; the panel splits sessions by the `sid` in each URL. */
  function clientFor(url: string, served?: boolean): CapturedClient {
    const q = indexOf(url, '?');
    const endpoint = q === -1 ? url : slice(url, 0, q);
    let c = clients.get(endpoint);
    if (!c) {
      c = buffer.addClient('polling', endpoint);
      clients.set(endpoint, c);
    }
    if (served) c.served = true;
    return c;
  }

  function recordBody(client: CapturedClient, url: string, dir: 'in' | 'out', body: unknown): void {
    if (typeof body === 'string') {
      if (body) buffer.record(client, 'frame', { dir, url, ...textPayload(body) });
    } else if (body instanceof ArrayBuffer) {
      buffer.record(client, 'frame', { dir, url, ...bytesPayload(new Uint8Array(body)) });
    } else if (isView(body)) {
      buffer.record(client, 'frame', { dir, url, ...bytesPayload(new Uint8Array(body.buffer, body.byteOffset, body.byteLength)) });
    }
  }

  // Fault rules in this phase (polling-faults.ts): consulted only while a rule is on or something is still owed.
  const faults = createPollingFaults(buffer, (url) => clientFor(url));
  tapXhr(buffer, clientFor, recordBody, faults, virtual);
  tapFetch(buffer, clientFor, recordBody, faults, virtual);
  return { evicted: () => clients.evicted };
}

type ClientFor = (url: string, served?: boolean) => CapturedClient;
type RecordBody = (client: CapturedClient, url: string, dir: 'in' | 'out', body: unknown) => void;

function absolute(url: unknown): string {
  try {
    return new NativeURL(String(url), location.href).href;
  } catch {
    return String(url);
  }
}

/** Whether the virtual server (content/virtual/) answers this Engine.IO URL: then the request never leaves the page. */
function served(virtual: VirtualServer | undefined, url: string | undefined): virtual is VirtualServer {
  try {
    return url !== undefined && virtual !== undefined && virtual.servesPolling(url);
  } catch {
    return false;
  }
}

function tapXhr(buffer: CaptureBuffer, clientFor: ClientFor, recordBody: RecordBody, faults: PollingFaults, virtual?: VirtualServer): void {
  // globalThis: the same tap runs in a page and in a worker (content/workers).
  const proto = globalThis.XMLHttpRequest?.prototype;
  if (!proto) return;
  const urls: WeakMap<XMLHttpRequest, string> = new SafeWeakMap();
  const nativeOpen = proto.open;
  const nativeSend = proto.send;

  replaceProperty(
    proto,
    'open',
    disguise(nativeOpen, (target, xhr, args) => {
      try {
        const url = String(args[1]);
        if (exec(ENGINE_URL, url)) {
          const full = absolute(url);
          urls.set(xhr as XMLHttpRequest, full);
          // First of its listeners: a poll response is faulted before the app's handler reads it.
          faults.opened(xhr as XMLHttpRequest, full, String(args[0]));
        } else urls.delete(xhr as XMLHttpRequest);
      } catch {
        // Not ours to look at.
      }
      return apply(target, xhr, args);
    }),
  );

  replaceProperty(
    proto,
    'send',
    disguise(nativeSend, (target, thisArg, args) => {
      const xhr = thisArg as XMLHttpRequest;
      const url = urls.get(xhr);
      const virtualOne = served(virtual, url);
      const result = virtualOne ? virtual.xhr(xhr, url!, args[0]) : url && (faultsOn || faults.busy()) ? faults.xhrSend(xhr, url, args[0], (body) => apply(target, thisArg, [body])) : apply(target, thisArg, args);
      if (url) {
        try {
          const client = clientFor(url, virtualOne);
          if (!faults.recorded(xhr)) recordBody(client, url, 'out', args[0]);
          buffer.natives.listen(xhr, 'load', () => {
            try {
              // Recorded packet by packet where the rules read it.
              if (faults.recorded(xhr)) return;
              const type = xhr.responseType;
              recordBody(client, url, 'in', type === '' || type === 'text' ? xhr.responseText : xhr.response);
            } catch {
              // An unreadable response is not captured.
            }
          });
        } catch {
          // The request is already on its way.
        }
      }
      return result;
    }),
  );
}

function tapFetch(buffer: CaptureBuffer, clientFor: ClientFor, recordBody: RecordBody, faults: PollingFaults, virtual?: VirtualServer): void {
  const { after } = buffer.natives;
  const nativeFetch = globalThis.fetch;
  if (typeof nativeFetch !== 'function') return;
  const fetch = disguise(nativeFetch, (target, thisArg, args) => {
    // A string or URL the virtual server answers (engine.io-client's): it never leaves the page. A Request's body could not be read in time.
    let virtualUrl: string | undefined;
    try {
      const input = args[0];
      if (virtual && !(input instanceof Request) && exec(ENGINE_URL, String(input))) {
        const url = absolute(input);
        if (served(virtual, url)) virtualUrl = url;
      }
    } catch {
      virtualUrl = undefined;
    }
    if (virtualUrl === undefined) {
      // A session's poll, or a POST while a rule is on: the fault rules' (polling-faults.ts), which record it.
      try {
        const input = args[0];
        const init = args[1] as RequestInit | undefined;
        if (!(input instanceof Request) && exec(ENGINE_URL, String(input))) {
          const faulted = faults.fetch(absolute(input), init?.body, (body) => apply(target, thisArg, body === undefined ? args : [input, { ...init, body }]) as Promise<Response>);
          if (faulted) return faulted;
        }
      } catch {
        // The app's fetch goes as it was.
      }
    }
    const promise = (virtualUrl !== undefined ? virtual!.fetch(virtualUrl, (args[1] as RequestInit | undefined)?.body) : apply(target, thisArg, args)) as Promise<Response>;
    try {
      const input = args[0];
      const raw = input instanceof Request ? input.url : String(input);
      if (exec(ENGINE_URL, raw)) {
        const url = absolute(raw);
        const client = clientFor(url, virtualUrl !== undefined);
        recordBody(client, url, 'out', (args[1] as RequestInit | undefined)?.body);
        // A side branch: the app's own promise is returned untouched.
        after(
          promise,
          (res) => {
            try {
              after(res.clone().text(), (text) => recordBody(client, url, 'in', text), () => {});
            } catch {
              // Body already taken.
            }
          },
          () => {},
        );
      }
    } catch {
      // Not ours to look at.
    }
    return promise;
  });
  replaceProperty(ownerOf(globalThis, 'fetch'), 'fetch', fetch);
}
