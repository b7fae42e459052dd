/**
 * Where the tests and `npm start` find their browsers, and what they do when
 * there is none: install one where that can be done without asking anyone,
 * else stop at once with one line that says exactly what to install.
 *
 * Chromium: CHROMIUM_PATH, Debian's Chromium (/usr/lib/chromium/chromium, the
 * real binary, then the /usr/bin/chromium wrapper), Playwright's own download;
 * none found: `apt-get install -y chromium` where apt-get runs as root, else
 * Playwright's download (`npx playwright install chromium`).
 * Firefox: FIREFOX_PATH, /usr/bin/firefox-esr, /usr/bin/firefox (and the
 * macOS app); none found: `apt-get install -y firefox-esr` where apt-get runs
 * as root. Playwright's Firefox is no use here: it cannot load extensions.
 *
 * OUI_NO_BROWSER_INSTALL=1 (or `--no-install`) forbids installing.
 * As a command: `node --import tsx scripts/browsers.ts [--no-install] [chromium] [firefox]`
 * prints each browser's path, or the one line and exit status 1.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BrowserName = 'chromium' | 'firefox';

export interface InstallStep {
  command: string;
  args: string[];
}

export interface LookupDeps {
  env: Record<string, string | undefined>;
  /** Where to look, in order, after the environment variable. */
  candidates(name: BrowserName): string[];
  exists(path: string): boolean;
  isRoot: boolean;
  hasAptGet: boolean;
  /** May this lookup install a browser? */
  mayInstall: boolean;
  /** Runs one install step, its output shown; true when it succeeded. */
  run(step: InstallStep): boolean;
  log(line: string): void;
}

export const ENV_VAR: Record<BrowserName, string> = { chromium: 'CHROMIUM_PATH', firefox: 'FIREFOX_PATH' };

/** The one line said when no browser can be found or installed. */
export const NOT_FOUND: Record<BrowserName, string> = {
  chromium:
    'No Chromium found: install it with `sudo apt-get install -y chromium` (Debian/Ubuntu) or `npx playwright install chromium`, or set CHROMIUM_PATH to a Chromium binary (branded Google Chrome ignores --load-extension).',
  firefox:
    'No Firefox found: install it with `sudo apt-get install -y firefox-esr` (Debian/Ubuntu; any Firefox 140 or later works), or set FIREFOX_PATH to a Firefox binary.',
};

export class BrowserNotFoundError extends Error {
  constructor(readonly browser: BrowserName) {
    super(NOT_FOUND[browser]);
    this.name = 'BrowserNotFoundError';
  }
}

const require = createRequire(import.meta.url);

/** Where Playwright keeps its own Chromium on this machine (whether or not it was downloaded). */
function playwrightChromium(): string | undefined {
  try {
    return (require('playwright-core') as typeof import('playwright-core')).chromium.executablePath();
  } catch {
    return undefined;
  }
}

export function defaultCandidates(name: BrowserName): string[] {
  if (name === 'chromium') return ['/usr/lib/chromium/chromium', '/usr/bin/chromium', playwrightChromium()].filter((p): p is string => !!p);
  return ['/usr/bin/firefox-esr', '/usr/bin/firefox', '/Applications/Firefox.app/Contents/MacOS/firefox'];
}

/** The steps that install `name` here, or none when it cannot be done without asking. */
export function installSteps(name: BrowserName, deps: Pick<LookupDeps, 'isRoot' | 'hasAptGet'>): InstallStep[] {
  if (deps.isRoot && deps.hasAptGet) {
    const pkg = name === 'chromium' ? 'chromium' : 'firefox-esr';
    return [
      { command: 'apt-get', args: ['update', '-qq'] },
      { command: 'apt-get', args: ['install', '-y', '-qq', pkg] },
    ];
  }
  if (name === 'chromium') {
    const cli = join(dirname(require.resolve('playwright-core/package.json')), 'cli.js');
    return [{ command: process.execPath, args: [cli, 'install', 'chromium'] }];
  }
  return [];
}

export function defaultDeps(env: Record<string, string | undefined> = process.env): LookupDeps {
  return {
    env,
    candidates: defaultCandidates,
    exists: existsSync,
    isRoot: process.getuid?.() === 0,
    hasAptGet: existsSync('/usr/bin/apt-get'),
    mayInstall: !/^(1|true|yes)$/i.test(env.OUI_NO_BROWSER_INSTALL ?? ''),
    run: (step) => {
      const r = spawnSync(step.command, step.args, {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      return r.status === 0;
    },
    log: (line) => console.error(line),
  };
}

function firstExisting(name: BrowserName, deps: LookupDeps): string | undefined {
  const fromEnv = deps.env[ENV_VAR[name]];
  if (fromEnv) {
    // A path the user named and that is not there is their mistake to see, not one to paper over.
    if (deps.exists(fromEnv)) return fromEnv;
    throw new Error(`${ENV_VAR[name]}=${fromEnv} does not exist.`);
  }
  return deps.candidates(name).find((p) => deps.exists(p));
}

/** The browser's binary: found, else installed where possible, else a BrowserNotFoundError with the one line. */
export function findBrowser(name: BrowserName, deps?: LookupDeps): string {
  if (!deps) {
    const hit = cache.get(name);
    if (hit) return hit;
  }
  const d = deps ?? defaultDeps();
  let path = firstExisting(name, d);
  if (!path && d.mayInstall) {
    const steps = installSteps(name, d);
    if (steps.length) {
      d.log(`No ${name === 'chromium' ? 'Chromium' : 'Firefox'} found; installing: ${steps.map((s) => [s.command, ...s.args].join(' ')).join(' && ')}`);
      if (steps.every((s) => d.run(s))) path = firstExisting(name, d);
    }
  }
  if (!path) throw new BrowserNotFoundError(name);
  if (!deps) cache.set(name, path);
  return path;
}
const cache = new Map<BrowserName, string>();

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const names = args.filter((a): a is BrowserName => a === 'chromium' || a === 'firefox');
  const deps = defaultDeps();
  if (args.includes('--no-install')) deps.mayInstall = false;
  try {
    for (const name of names.length ? names : (['chromium', 'firefox'] as const)) console.log(findBrowser(name, deps));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
