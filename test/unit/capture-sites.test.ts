/**
 * Where the hook runs: local hosts by the manifest, other sites only once
 * enabled. The rules, and the sync of the registered scripts with what the
 * user granted, against an in-memory registry that keeps what it is given
 * (the wiring to chrome.scripting is exercised in real Chromium by
 * test/e2e/capture-sites.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BRIDGE_SCRIPT_ID, HOOK_SCRIPT_ID, LOCAL_MATCHES, enabledSites, isLocalUrl, sitePattern, syncCaptureSites, type ContentScript } from '../../src/background/capture-sites.ts';

describe('capture sites', () => {
  it('the manifest injects only on local hosts, holds only them, and can ask for any other', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../manifest.json', import.meta.url), 'utf8')) as { content_scripts: Array<{ matches: string[]; js: string[]; world?: string }>; optional_host_permissions?: string[]; host_permissions?: string[] };
    for (const cs of manifest.content_scripts) assert.deepEqual(cs.matches, [...LOCAL_MATCHES], cs.js.join());
    assert.deepEqual(manifest.optional_host_permissions, ['<all_urls>']);
    // Held for the same local hosts only: so the worker can put a bridge back into their tabs after an update.
    assert.deepEqual(manifest.host_permissions, [...LOCAL_MATCHES]);
  });

  it('tells local URLs from others', () => {
    for (const u of ['http://localhost:5173/', 'https://localhost/', 'http://127.0.0.1:8080/x', 'http://[::1]:3000/', 'http://app.localhost/', 'https://shop.test/', 'file:///srv/app/index.html']) assert.ok(isLocalUrl(u), u);
    for (const u of ['https://example.com/', 'http://localhost.example.com/', 'http://test/', 'chrome://extensions', 'not a url', 'http://127.0.0.2/']) assert.ok(!isLocalUrl(u), u);
  });

  it('makes a site pattern from an origin', () => {
    assert.equal(sitePattern('https://shop.example.com:8443'), 'https://shop.example.com/*');
    assert.equal(sitePattern('http://[::1]:3000'), 'http://[::1]/*');
    assert.equal(sitePattern('http://127.0.0.2:8080/path?q'), 'http://127.0.0.2/*');
    assert.equal(sitePattern('chrome://extensions'), null);
    assert.equal(sitePattern('nonsense'), null);
  });

  it('enabled sites are the granted ones beyond the local ones; all sites collapse to one pattern', () => {
    assert.deepEqual(enabledSites([...LOCAL_MATCHES]), []);
    assert.deepEqual(enabledSites([...LOCAL_MATCHES, 'https://b.example/*', 'https://a.example/*', 'https://a.example/*']), ['https://a.example/*', 'https://b.example/*']);
    assert.deepEqual(enabledSites(['https://a.example/*', '<all_urls>']), ['<all_urls>']);
    assert.deepEqual(enabledSites(['*://*/*']), ['<all_urls>']);
  });

  it('registers, updates and removes the scripts to follow the grants', async () => {
    let granted: string[] = [...LOCAL_MATCHES];
    const registry = new Map<string, ContentScript>();
    const deps = {
      grantedOrigins: async () => granted,
      registered: async (ids: string[]) => ids.flatMap((id) => (registry.has(id) ? [registry.get(id)!] : [])),
      register: async (scripts: ContentScript[]) => {
        for (const s of scripts) {
          assert.ok(!registry.has(s.id), `registered twice: ${s.id}`);
          registry.set(s.id, s);
        }
      },
      update: async (scripts: ContentScript[]) => {
        for (const s of scripts) {
          assert.ok(registry.has(s.id), `updated before registered: ${s.id}`);
          registry.set(s.id, { ...registry.get(s.id)!, ...s });
        }
      },
      unregister: async (ids: string[]) => {
        for (const id of ids) registry.delete(id);
      },
    };
    assert.deepEqual(await syncCaptureSites(deps), []);
    assert.equal(registry.size, 0, 'nothing beyond the manifest while no site is enabled');
    granted = [...granted, 'https://shop.example.com/*'];
    assert.deepEqual(await syncCaptureSites(deps), ['https://shop.example.com/*']);
    const hook = registry.get(HOOK_SCRIPT_ID)!;
    assert.deepEqual(hook.matches, ['https://shop.example.com/*']);
    assert.equal(hook.world, 'MAIN');
    assert.equal(hook.runAt, 'document_start');
    assert.equal(hook.allFrames, true);
    assert.deepEqual(registry.get(BRIDGE_SCRIPT_ID)!.js, ['bridge.js']);
    granted = [...granted, 'https://b.example/*'];
    await syncCaptureSites(deps);
    assert.deepEqual(registry.get(BRIDGE_SCRIPT_ID)!.matches, ['https://b.example/*', 'https://shop.example.com/*']);
    await syncCaptureSites(deps);
    assert.equal(registry.size, 2, 'idempotent');
    granted = [...LOCAL_MATCHES];
    await syncCaptureSites(deps);
    assert.equal(registry.size, 0, 'a removed grant removes the scripts');
  });
});
