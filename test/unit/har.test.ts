/**
 * HAR in and out: the same traffic as a session file and as the HAR Chrome
 * exports gives the same findings (plain WebSocket, Socket.IO over WebSocket,
 * Socket.IO over long-polling then upgraded), and a session exported as HAR
 * by the panel's exporter reads back to the same findings.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lintStream } from '../../src/cli/lint.ts';
import type { LintReport } from '../../src/session/lint/engine.ts';
import { exportHar } from '../../src/session/har/export.ts';
import { parseSessionFile } from '../../src/session/wire/session-file.ts';
import { Recorder } from '../../src/session/wire/recorder.ts';
import { exportSession } from '../../src/session/wire/session-file.ts';
import { capture, chromeHar, sessionFile, type Transport } from '../fixtures/traffic.ts';

async function* chunks(text: string, size = 997): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const lint = (text: string) => lintStream(chunks(text));

/** What must match across formats: rule, severity, section, party, client (by label), time. */
function summary(r: LintReport): string[] {
  const label = (key: string) => r.clients.find((c) => c.key === key)?.label ?? key;
  return r.findings.map((f) => `${f.rule} ${f.severity} ${f.section} ${f.party} ${label(f.client)} ${Math.round(f.t)} ${f.message}`).sort();
}

const TRANSPORTS: Transport[] = ['websocket', 'socket.io', 'polling-upgrade'];

describe('HAR as the panel reads traffic', () => {
  for (const transport of TRANSPORTS) {
    it(`${transport}: a Chrome HAR gives the findings of the session file`, async () => {
      const c = capture({ transport, requests: 3, badHashAt: 1 });
      const fromSession = await lint(sessionFile(c));
      const fromHar = await lint(chromeHar(c));
      assert.equal(fromHar.kind, 'har');
      assert.ok(summary(fromSession).some((s) => s.startsWith('hash-mismatch error §7.3.4 client')), summary(fromSession).join('\n'));
      assert.deepEqual(summary(fromHar), summary(fromSession));
      assert.equal(fromHar.events, fromSession.events);
      assert.equal(fromHar.clients.length, 1);
    });
  }

  it('a clean capture has no findings in either form', async () => {
    for (const transport of TRANSPORTS) {
      const c = capture({ transport, requests: 2 });
      assert.deepEqual(summary(await lint(sessionFile(c))), [], transport);
      assert.deepEqual(summary(await lint(chromeHar(c))), [], transport);
    }
  });

  it('reads base64 polling bodies, binary and control frames without failing', async () => {
    const c = capture({ transport: 'polling-upgrade', requests: 1, badHashAt: 0 });
    const summary0 = summary(await lint(sessionFile(c)));
    const har = JSON.parse(chromeHar(c)) as { log: { entries: Array<Record<string, any>> } };
    for (const e of har.log.entries) {
      const content = e.response?.content;
      if (content?.text) {
        content.text = Buffer.from(content.text as string).toString('base64');
        content.encoding = 'base64';
      }
      if (e._webSocketMessages) {
        e._webSocketMessages.push({ type: 'receive', time: e._webSocketMessages.at(-1).time, opcode: 2, data: Buffer.from([1, 2, 3]).toString('base64') });
        e._webSocketMessages.push({ type: 'receive', time: e._webSocketMessages.at(-1).time, opcode: 9, data: '' });
      }
    }
    const back = summary(await lint(JSON.stringify(har)));
    // The same findings, and the stray binary frame on the Socket.IO socket is what the decoder says of it in the panel.
    const extra = back.filter((s) => !summary0.includes(s));
    assert.deepEqual(back.filter((s) => summary0.includes(s)), summary0);
    assert.equal(extra.length, 1);
    assert.match(extra[0]!, /^malformed-frame-from-runtime warning §7\.1 runtime .*binary/);
  });
});

describe('export as HAR', () => {
  /** A session with every transport: plain WebSocket, Socket.IO (polling then upgrade), postMessage, direct hook, and a close. */
  function mixed(): { text: string; recorder: Recorder } {
    const parts = TRANSPORTS.map((transport, i) => capture({ transport, requests: 2, badHashAt: i === 1 ? 0 : undefined }));
    const r = new Recorder(Number.MAX_SAFE_INTEGER);
    parts.forEach((p, i) => {
      const hook = `h${i + 1}`;
      r.accept(0, { type: 'items', hook, items: p.items.map((it) => ({ ...it, hook })), clients: p.clients });
    });
    const t = parts[0]!.items.at(-1)!.t;
    const pm = { id: 'p1', kind: 'postmessage' as const, url: 'http://shop.test', origin: 'http://shop.test', frameUrl: 'http://shop.test/', key: 'postmessage:top<->top/0' };
    const direct = { id: 'd1', kind: 'direct' as const, url: 'runtime', origin: 'http://shop.test', frameUrl: 'http://shop.test/' };
    r.accept(0, {
      type: 'items',
      hook: 'h9',
      clients: [pm, direct],
      items: [
        // A result for a request never seen: result-unknown-request, on a postMessage client.
        { hook: 'h9', client: 'p1', seq: 1, t: t + 1, kind: 'frame', dir: 'out', from: 'top/0', to: 'top', payload: { text: JSON.stringify({ type: 'action:result', payload: { requestId: 'nope', success: true, timestamp: 1 } }) } },
        { hook: 'h9', client: 'd1', seq: 1, t: t + 2, kind: 'frame', dir: 'out', method: 'deregister', payload: { text: '"ghost"' } },
        { hook: 'h9', client: 'd1', seq: 2, t: t + 3, kind: 'close' },
      ],
    });
    // And the plain WebSocket closes.
    const ws = parts[0]!.clients[0]!;
    r.accept(0, { type: 'items', hook: 'h1', items: [{ hook: 'h1', client: ws.id, seq: parts[0]!.items.length + 1, t: t + 4, kind: 'close', note: '1006' }], clients: [] });
    return { text: JSON.stringify(exportSession(r.clients.values(), r.events)), recorder: r };
  }

  it('reads back to the same findings as the session', async () => {
    const { text, recorder } = mixed();
    const fromSession = await lint(text);
    const rules = new Set(fromSession.findings.map((f) => f.rule));
    assert.ok(rules.has('hash-mismatch') && rules.has('result-unknown-request'), [...rules].join(', '));
    const har = exportHar(recorder.clients.values(), recorder.events, { version: 'test' });
    assert.equal(har.log.version, '1.2');
    const ws = har.log.entries.filter((e) => e._resourceType === 'websocket');
    assert.equal(ws.length, 3, 'plain WebSocket, Socket.IO WebSocket, upgraded Socket.IO');
    for (const e of ws) {
      assert.equal((e.response as { status: number }).status, 101);
      for (const m of e._webSocketMessages as Array<Record<string, unknown>>) {
        assert.ok(m.type === 'send' || m.type === 'receive');
        assert.equal(typeof m.time, 'number');
        assert.equal(m.opcode, 1);
        assert.equal(typeof m.data, 'string');
      }
    }
    assert.ok(har.log.entries.some((e) => (e.request as { method: string }).method === 'POST' && /transport=polling/.test((e.request as { url: string }).url)), 'polling as entries');
    assert.match(har.log.comment ?? '', /2 OUI clients/);
    const fromHar = await lint(JSON.stringify(har));
    assert.deepEqual(summary(fromHar), summary(fromSession));
    assert.equal(fromHar.clients.length, fromSession.clients.length);
  });

  it('exports what a session file holds, the same way, after an import', async () => {
    const { text } = mixed();
    const parsed = parseSessionFile(text);
    assert.ok(parsed.ok);
    const har = exportHar(parsed.file.clients, parsed.file.events);
    assert.deepEqual(summary(await lint(JSON.stringify(har, null, 1))), summary(await lint(text)));
  });
});
