/**
 * The browser lookup (scripts/browsers.ts) that lets `npm test` run with no
 * set-up: the order it looks in, that it installs where it can and never
 * when told not to, the one line it stops with, and that it works in an
 * empty environment.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserNotFoundError, NOT_FOUND, findBrowser, installSteps, type InstallStep, type LookupDeps } from '../../scripts/browsers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A machine where nothing exists until an install step "installs" `installs`. */
function machine(over: Partial<LookupDeps> & { present?: string[]; installs?: string[] } = {}): LookupDeps & { ran: InstallStep[]; logged: string[] } {
  const present = new Set(over.present ?? []);
  const ran: InstallStep[] = [];
  const logged: string[] = [];
  return {
    env: {},
    candidates: (name) => (name === 'chromium' ? ['/fake/chromium', '/fake/playwright/chrome'] : ['/fake/firefox-esr', '/fake/firefox']),
    exists: (p) => present.has(p),
    isRoot: false,
    hasAptGet: false,
    mayInstall: true,
    run: (step) => {
      ran.push(step);
      for (const p of over.installs ?? []) present.add(p);
      return true;
    },
    log: (line) => logged.push(line),
    ...over,
    ran,
    logged,
  };
}

test('the environment variable comes first, then the candidates in order', () => {
  assert.equal(findBrowser('chromium', machine({ env: { CHROMIUM_PATH: '/mine/chrome' }, present: ['/mine/chrome', '/fake/chromium'] })), '/mine/chrome');
  assert.equal(findBrowser('chromium', machine({ present: ['/fake/chromium', '/fake/playwright/chrome'] })), '/fake/chromium');
  assert.equal(findBrowser('chromium', machine({ present: ['/fake/playwright/chrome'] })), '/fake/playwright/chrome');
  assert.equal(findBrowser('firefox', machine({ env: { FIREFOX_PATH: '/mine/firefox' }, present: ['/mine/firefox'] })), '/mine/firefox');
  assert.equal(findBrowser('firefox', machine({ present: ['/fake/firefox'] })), '/fake/firefox');
  assert.throws(() => findBrowser('firefox', machine({ env: { FIREFOX_PATH: '/nowhere' }, present: ['/fake/firefox'] })), /FIREFOX_PATH=\/nowhere does not exist/);
});

test('nothing found and told not to install: the one line, and no install tried', () => {
  for (const name of ['chromium', 'firefox'] as const) {
    const m = machine({ mayInstall: false, isRoot: true, hasAptGet: true });
    assert.throws(() => findBrowser(name, m), (e: unknown) => e instanceof BrowserNotFoundError && e.message === NOT_FOUND[name]);
    assert.deepEqual(m.ran, []);
    assert.doesNotMatch(NOT_FOUND[name], /\n/);
  }
  assert.equal(
    NOT_FOUND.chromium,
    'No Chromium found: install it with `sudo apt-get install -y chromium` (Debian/Ubuntu) or `npx playwright install chromium`, or set CHROMIUM_PATH to a Chromium binary (branded Google Chrome ignores --load-extension).',
  );
  assert.equal(NOT_FOUND.firefox, 'No Firefox found: install it with `sudo apt-get install -y firefox-esr` (Debian/Ubuntu; any Firefox 140 or later works), or set FIREFOX_PATH to a Firefox binary.');
});

test("as root with apt-get, Debian's package is installed and then found", () => {
  const m = machine({ isRoot: true, hasAptGet: true, installs: ['/fake/chromium'] });
  assert.equal(findBrowser('chromium', m), '/fake/chromium');
  assert.deepEqual(m.ran.map((s) => [s.command, ...s.args].join(' ')), ['apt-get update -qq', 'apt-get install -y -qq chromium']);
  const f = machine({ isRoot: true, hasAptGet: true, installs: ['/fake/firefox-esr'] });
  assert.equal(findBrowser('firefox', f), '/fake/firefox-esr');
  assert.deepEqual(f.ran.at(-1)?.args, ['install', '-y', '-qq', 'firefox-esr']);
});

test("on an ordinary machine, Chromium is Playwright's download; Firefox cannot be installed and the line says how", () => {
  const m = machine({ installs: ['/fake/playwright/chrome'] });
  assert.equal(findBrowser('chromium', m), '/fake/playwright/chrome');
  assert.equal(m.ran.length, 1);
  assert.deepEqual(m.ran[0]!.args.slice(-2), ['install', 'chromium']);
  assert.equal(m.ran[0]!.command, process.execPath);
  assert.deepEqual(installSteps('firefox', { isRoot: false, hasAptGet: true }), []);
  const f = machine();
  assert.throws(() => findBrowser('firefox', f), (e: unknown) => e instanceof Error && e.message === NOT_FOUND.firefox);
  assert.deepEqual(f.ran, []);
});

test('an install that fails stops with the one line', () => {
  const m = machine({ isRoot: true, hasAptGet: true, run: () => false });
  assert.throws(() => findBrowser('chromium', m), (e: unknown) => e instanceof Error && e.message === NOT_FOUND.chromium);
});

/** The command in an environment that holds only `env` (no PATH, no HOME): what `npm test` may meet in a bare CI job. */
function command(env: Record<string, string>, ...names: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/browsers.ts', '--no-install', ...names], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });
}

test('in an otherwise empty environment, browsers named by CHROMIUM_PATH and FIREFOX_PATH that exist are found and printed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oui-browsers-'));
  try {
    const chromium = join(dir, 'my chromium');
    const firefox = join(dir, 'my-firefox');
    for (const p of [chromium, firefox]) {
      writeFileSync(p, '#!/bin/sh\n');
      chmodSync(p, 0o755);
    }
    const r = command({ CHROMIUM_PATH: chromium, FIREFOX_PATH: firefox }, 'chromium', 'firefox');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${chromium}\n${firefox}\n`);
    assert.equal(r.stderr, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('in an otherwise empty environment, a CHROMIUM_PATH that does not exist stops with the one line saying so, and exit status 1', () => {
  const missing = join(tmpdir(), `oui-no-such-browser-${process.pid}`, 'chromium');
  assert.ok(!existsSync(missing));
  const r = command({ CHROMIUM_PATH: missing }, 'chromium');
  assert.equal(r.status, 1, r.stdout);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `CHROMIUM_PATH=${missing} does not exist.\n`);
});
