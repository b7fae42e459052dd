/**
 * Base64 of our own (standard alphabet, padded): atob/btoa are byte-string
 * based and slow on big data, and the hook, the bridge and the codecs move
 * binary frames through JSON as base64.
 *
 * Pure: no DOM, no Node builtins, no extension APIs.
 */

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) t[B64.charCodeAt(i)] = i;
  // Accept the URL-safe alphabet too.
  t['-'.charCodeAt(0)] = 62;
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

/** Bytes to standard padded base64. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(start + CHUNK, bytes.length);
    let s = '';
    let i = start;
    for (; i + 2 < end; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
    }
    const rest = end - i;
    if (rest === 1) {
      const n = bytes[i]! << 16;
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + '==';
    } else if (rest === 2) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
      s += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + '=';
    }
    parts.push(s);
  }
  return parts.join('');
}

/** Base64 (standard or URL-safe, padding optional) to bytes; null when malformed. */
export function base64ToBytes(text: string): Uint8Array | null {
  let len = text.length;
  while (len > 0 && text.charCodeAt(len - 1) === 61 /* = */) len--;
  if (text.length - len > 2) return null;
  if (len % 4 === 1) return null;
  if (text.length % 4 !== 0 && text.length !== len) return null; // padded but wrong length
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? B64_INDEX[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return o === out.length ? out : out.subarray(0, o);
}
