/**
 * No test runs against a dist/ older than its sources. The build's stamp is
 * the oldest of its outputs (a build rewrites every one of them); the sources
 * are everything the build reads. When a source is newer, `npm run build` runs
 * once, under a lock so that test files started together do not build twice;
 * with OUI_NO_AUTOBUILD=1 the test fails with one line instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the build reads (scripts/build*.mjs and what they import), relative to the root. */
export const BUILD_SOURCES = ['src', 'content', 'panel', 'scripts', 'manifest.json', 'package.json'];

/** One output of each build step: scripts/build.mjs (both browsers), build-playwright.mjs, build-cli.mjs. */
export const BUILD_OUTPUTS = [
  'dist/chrome/manifest.json',
  'dist/chrome/hook.js',
  'dist/chrome/bridge.js',
  'dist/chrome/background.js',
  'dist/chrome/panel.js',
  'dist/chrome/devtools.js',
  'dist/firefox/manifest.json',
  'dist/firefox/hook.js',
  'dist/firefox/panel.js',
  'dist/playwright/index.js',
  'dist/playwright/oui-init.js',
  'dist/cli/oui-devtools.js',
];

const LOCK = join(ROOT, 'dist/.build-lock');
const STALE_MESSAGE = 'dist/ is older than the sources: run npm run build';

/** The newest modification time under `paths` (files and folders, recursively), with the file that has it. */
export function newestSource(root = ROOT, paths = BUILD_SOURCES): { mtimeMs: number; file: string | null } {
  let best = { mtimeMs: 0, file: null as string | null };
  const visit = (p: string): void => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return; // removed while we looked
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) visit(join(p, name));
    } else if (st.mtimeMs > best.mtimeMs) {
      best = { mtimeMs: st.mtimeMs, file: p };
    }
  };
  for (const p of paths) visit(join(root, p));
  return best;
}

/** The build's stamp: the oldest of its outputs, or 0 when one is missing. */
export function buildStamp(root = ROOT, outputs = BUILD_OUTPUTS): number {
  let oldest = Infinity;
  for (const f of outputs) {
    const p = join(root, f);
    if (!existsSync(p)) return 0;
    oldest = Math.min(oldest, statSync(p).mtimeMs);
  }
  return oldest === Infinity ? 0 : oldest;
}

/** Why dist/ cannot be trusted (missing, or older than a named source), or null when it is fresh. */
export function staleness(root = ROOT): string | null {
  const stamp = buildStamp(root);
  if (stamp === 0) return 'dist/ is missing a build output';
  const newest = newestSource(root);
  return newest.mtimeMs > stamp ? `${newest.file} is newer than dist/` : null;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the build lock, waiting for (or clearing, if its process is gone) another's; false after `ms`. */
function takeLock(ms: number): boolean {
  const deadline = Date.now() + ms;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    } catch {
      // Just made, its pid not yet written.
    }
    if (Number.isInteger(holder) && holder > 0 && !pidAlive(holder)) rmSync(LOCK, { recursive: true, force: true });
    if (Date.now() > deadline) return false;
    sleepSync(250);
  }
}

let checked = false;

/**
 * Makes sure dist/ is at least as new as every source, rebuilding once if not
 * (or failing with one line under OUI_NO_AUTOBUILD=1). Checked once per process.
 */
export function ensureFreshBuild(): void {
  if (checked) return;
  const why = staleness();
  if (why === null) {
    checked = true;
    return;
  }
  if (process.env.OUI_NO_AUTOBUILD) throw new Error(`${STALE_MESSAGE} (${why})`);
  // Another test file may be building right now: wait for it, then look again.
  if (!takeLock(10 * 60_000)) throw new Error(`${STALE_MESSAGE} (another build holds ${LOCK})`);
  try {
    const still = staleness();
    if (still !== null) {
      process.stderr.write(`# ${still}: running npm run build\n`);
      const started = Date.now();
      try {
        execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      } catch {
        throw new Error(`${STALE_MESSAGE} (npm run build failed)`);
      }
      const after = staleness();
      if (after !== null) {
        const newest = newestSource();
        // Dated in the future: no build can be newer; say so rather than build again and again.
        if (newest.mtimeMs > Date.now() + 1000) throw new Error(`${STALE_MESSAGE} (${newest.file} is dated in the future)`);
        // Saved while the build ran (someone is editing): this build is the newest there can be right now.
        if (newest.mtimeMs >= started - 1000) process.stderr.write(`# ${newest.file} changed during the build; testing the build that started after every other change\n`);
        else throw new Error(`${STALE_MESSAGE} (${after} even after a build)`);
      }
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  checked = true;
}
