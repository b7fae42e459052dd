/**
 * Coverage rows and site standing, from the cases the issue names: loopback
 * is all of 127.0.0.0/8 and [::1]; a frame no hook reported is named with its
 * reason; a sandbox without scripts is no gap; a conversation whose one frame
 * is not captured points to it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { computeCoverage, type ChildFrame, type FrameReport, type HookPlace } from '../../src/capture/coverage.ts';
import { isLoopbackHost, siteStateOf } from '../../src/background/capture-sites.ts';

const report = (path: string, url: string, children: ChildFrame[] = [], extra: Partial<FrameReport> = {}): FrameReport => ({ path, url, origin: new URL(url).origin, children, workers: [], workersDropped: 0, ...extra });

describe('loopback and site standing', () => {
  it('names every 127.0.0.0/8 address and [::1] loopback, and nothing else', () => {
    for (const h of ['127.0.0.1', '127.0.0.2', '127.1.2.3', '127.255.255.255', '[::1]', 'localhost', '[::ffff:7f00:2]']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['128.0.0.1', '127.0.0.256', '10.0.0.1', '127.0.0', 'example.com', '[::2]', '127.0.0.1.example.com']) assert.equal(isLoopbackHost(h), false, h);
    // As new URL() writes an IPv4-mapped address.
    assert.equal(isLoopbackHost(new URL('http://[::ffff:127.0.0.9]/').hostname), true);
  });

  it('tells local, enabled, one click away and out of reach apart', () => {
    assert.deepEqual(siteStateOf('http://127.0.0.1:3000/', []), { state: 'local' });
    assert.deepEqual(siteStateOf('http://app.localhost/', []), { state: 'local' });
    assert.deepEqual(siteStateOf('http://127.0.0.2:3000/x', []), { state: 'not-enabled', pattern: 'http://127.0.0.2/*', loopback: true });
    assert.deepEqual(siteStateOf('http://127.0.0.2:3000/x', ['http://127.0.0.2/*']), { state: 'enabled' });
    assert.deepEqual(siteStateOf('https://shop.example.com/', ['*://*.example.com/*']), { state: 'enabled' });
    assert.deepEqual(siteStateOf('https://example.com/', ['*://*.example.com/*']), { state: 'enabled' });
    assert.deepEqual(siteStateOf('https://badexample.com/', ['*://*.example.com/*']), { state: 'not-enabled', pattern: 'https://badexample.com/*' });
    assert.deepEqual(siteStateOf('http://shop.example.com/', ['https://shop.example.com/*']), { state: 'not-enabled', pattern: 'http://shop.example.com/*' });
    assert.deepEqual(siteStateOf('https://any.org/', ['<all_urls>']), { state: 'enabled' });
    assert.equal(siteStateOf('chrome://settings/', []).state, 'unsupported');
  });
});

describe('coverage rows', () => {
  const siteOf = (url: string) => siteStateOf(url, []);

  it('lists every frame a captured parent holds, each captured or not and why', () => {
    const hooks: HookPlace[] = [
      {
        frameId: 0,
        path: 'top',
        report: report('top', 'http://127.0.0.1:5000/', [
          { index: 0, element: 'iframe', src: 'http://127.0.0.2:5001/widget' },
          { index: 1, element: 'iframe', src: 'http://127.0.0.1:5000/plain', sandbox: '' },
          { index: 2, element: 'iframe', src: 'https://ads.example/', sandbox: 'allow-scripts' },
          { index: 3, element: 'iframe', src: 'http://127.0.0.1:5000/same', url: 'http://127.0.0.1:5000/same' },
          { index: 4, element: 'iframe', src: 'chrome://newtab/' },
        ]),
      },
      { frameId: 7, path: 'top/3', report: report('top/3', 'http://127.0.0.1:5000/same') },
    ];
    const { rows, missing } = computeCoverage(hooks, siteOf);
    const by = Object.fromEntries(rows.map((r) => [r.path, r]));
    assert.deepEqual(rows.map((r) => r.path), ['top', 'top/0', 'top/1', 'top/2', 'top/3', 'top/4']);
    assert.equal(by.top!.status, 'captured');
    assert.equal(by['top/0']!.status, 'missing');
    assert.match(by['top/0']!.reason, /loopback host 127\.0\.0\.2:5001 is not enabled/);
    assert.equal(by['top/0']!.enable, 'http://127.0.0.2/*');
    assert.equal(by['top/0']!.reloadOrigin, 'http://127.0.0.2:5001');
    assert.equal(by['top/1']!.status, 'idle');
    assert.equal(by['top/2']!.status, 'missing', 'sandboxed with scripts can run OUI: a gap');
    assert.match(by['top/2']!.reason, /https:\/\/ads\.example is not enabled \(sandboxed with scripts\)/);
    assert.equal(by['top/3']!.status, 'captured');
    assert.equal(by['top/3']!.frameId, 7);
    assert.match(by['top/4']!.reason, /extensions cannot run there/);
    assert.equal(missing, 3);
  });

  it('a frame whose host is enabled but that has no hook is one reload away', () => {
    const hooks: HookPlace[] = [{ frameId: 0, path: 'top', report: report('top', 'http://localhost:1/', [{ index: 0, element: 'iframe', src: 'http://localhost:2/w' }]) }];
    const row = computeCoverage(hooks, siteOf).rows[1]!;
    assert.equal(row.status, 'missing');
    assert.equal(row.enable, undefined);
    assert.equal(row.reloadOrigin, 'http://localhost:2');
    assert.match(row.reason, /no hook spoke from it/);
  });

  it('lists workers, and hooks no parent listed (a frame in a shadow root)', () => {
    const hooks: HookPlace[] = [
      {
        frameId: 0,
        path: 'top',
        report: report('top', 'http://localhost/', [], {
          workers: [
            { url: 'http://localhost/w.js', kind: 'dedicated', type: 'classic', captured: true, hook: 'wh' },
            { url: 'blob:http://localhost/1', kind: 'dedicated', type: 'module', captured: false, reason: "the page's CSP does not allow blob: workers" },
          ],
          workersDropped: 3,
        }),
      },
      { frameId: 9, path: 'top/5' },
    ];
    const { rows, missing } = computeCoverage(hooks, siteOf);
    assert.deepEqual(
      rows.map((r) => [r.kind, r.path, r.status]),
      [
        ['frame', 'top', 'captured'],
        ['worker', 'top', 'captured'],
        ['worker', 'top', 'missing'],
        ['worker', 'top', 'missing'],
        ['frame', 'top/5', 'captured'],
      ],
    );
    assert.match(rows[2]!.reason, /Worker \(module\): the page's CSP does not allow blob: workers/);
    assert.match(rows[3]!.reason, /3 more workers/);
    assert.equal(missing, 2);
  });

  it('points from a conversation with a missing side to the frame that hides it', () => {
    const hooks: HookPlace[] = [{ frameId: 0, path: 'top', report: report('top', 'http://127.0.0.1/', [{ index: 0, element: 'iframe', src: 'http://127.0.0.2/' }]) }];
    const pairings = [
      { client: 'postmessage:top<->top/0', label: 'widget', clientPath: 'top/0', peerPath: 'top' },
      { client: 'postmessage:top<->top/1', label: 'both seen', clientPath: 'top/1', peerPath: 'top' },
    ];
    const both = [...hooks, { frameId: 3, path: 'top/1' }];
    const { halves } = computeCoverage(both, siteOf, pairings);
    assert.deepEqual(halves, [{ client: 'postmessage:top<->top/0', label: 'widget', missingPath: 'top/0', missing: 'what the runtime sends to the client (its requests)' }]);
    // The runtime's frame not captured: the client's answers are what is missing.
    const other = computeCoverage([{ frameId: 3, path: 'top/0' }], siteOf, [{ client: 'c', label: 'l', clientPath: 'top/0', peerPath: 'top' }]);
    assert.equal(other.halves[0]!.missing, 'what the client sends to its runtime (its answers)');
  });
});
