/**
 * Command line and `.ouirc.json`: the same options in both, the command line
 * winning. A usage mistake is one line and exit 2.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isRuleId, isSpecVersion, SPEC_VERSIONS } from '../session/model/rules.ts';
import type { Severity } from '../session/model/model-types.ts';
import { isTimerValue, SPEC_TIMERS, TIMER_KEYS, type Timers } from '../session/model/timers.ts';
import { errorText, parseQuery } from '../query/parse.ts';

export const FORMATS = ['text', 'json', 'junit', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];
export const FAIL_ON = ['critical', 'error', 'warning', 'info', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export type RuleSetting = 'off' | Severity;
const RULE_SETTINGS = ['off', 'info', 'warning', 'error', 'critical'] as const;

export const CONFIG_NAME = '.ouirc.json';

export interface Options {
  files: string[];
  format: Format;
  failOn: FailOn;
  rules: Record<string, RuleSetting>;
  spec?: string;
  /** The timers the app's runtime and clients run with (§7.5, §7.3.7), as set; the spec's defaults for the rest. */
  timers?: Partial<Timers>;
  /** The config file read, if any. */
  config?: string;
  /** `--filter QUERY`: only findings with an event that matches it are reported (src/query grammar). */
  filter?: string;
  help: boolean;
  version: boolean;
}

export class UsageError extends Error {}

export const USAGE = `Usage: oui-devtools lint [options] FILE...

Checks OUI traffic against the conformance rules of the OUI DevTools panel.
FILE is a session file exported by the panel (.json) or a HAR 1.2 file with
WebSocket messages (Chrome DevTools, Playwright) or Engine.IO long-polling
bodies; "-" reads standard input.

Options:
  --format text|json|junit|sarif|github   output on standard output (default: text)
  --fail-on critical|error|warning|info|never
                                  exit 1 when a finding is at least this severe (default: error)
  --rule ID=off|info|warning|error|critical
                                  turn a rule off or change its severity (repeatable)
  --spec VERSION                  judge clients that declare no spec release by this one
                                  (${SPEC_VERSIONS.join(', ')}; default: the newest)
  --sync-timeout MS               the runtime's deadline for a sync action's result (§7.5; default ${SPEC_TIMERS.syncMs})
  --ack-timeout MS                the runtime's deadline for an async action's interim ack (§7.5; default ${SPEC_TIMERS.asyncAckMs})
  --pull-timeout MS               the runtime's deadline for an observation pull's update (§7.5; default ${SPEC_TIMERS.observationPullMs})
  --reanswer-interval MS          the client's re-answer interval for a repeated request (§7.3.7; default ${SPEC_TIMERS.reanswerMs})
                                  MS is milliseconds, or a number with s or m (30s, 2m); the
                                  spec makes these configurable, so set the ones your app runs with
  --filter QUERY                  report only findings with an event that matches QUERY, in the
                                  panel's filter grammar (docs/panel.md): type: client: surface:
                                  action: status: dir: dur:>500ms size:>1kb has:finding is:experiment,
                                  - to negate, "quoted values", /regex/; the whole session is judged
  --config PATH                   read options from PATH instead of ${CONFIG_NAME}
  --no-config                     read no config file
  -h, --help                      show this help
  --version                       show the version

Config file: ${CONFIG_NAME}, looked up from the current directory upwards:
  { "format": "text", "failOn": "error", "spec": "0.6.0",
    "rules": { "request-id-format": "off", "observation-rate": "error" },
    "timers": { "syncMs": 30000, "asyncAckMs": 5000, "observationPullMs": 5000, "reanswerMs": 8000 } }

Exit status: 0 no finding at or above --fail-on, 1 findings at or above it,
2 unusable input or usage (one line on standard error says why).`;

function oneOf<T extends string>(list: readonly T[], v: unknown, what: string): T {
  if (typeof v === 'string' && (list as readonly string[]).includes(v)) return v as T;
  throw new UsageError(`${what} must be one of ${list.join(', ')} (got ${JSON.stringify(v)})`);
}

function setRule(rules: Record<string, RuleSetting>, id: string, value: unknown, where: string): void {
  if (!isRuleId(id)) throw new UsageError(`${where}: unknown rule ${JSON.stringify(id)}`);
  rules[id] = oneOf(RULE_SETTINGS, value, `${where}: rule ${id}`);
}

/** The command line's timer flags, by the timer each sets. */
const TIMER_FLAGS: Readonly<Record<string, keyof Timers>> = {
  '--sync-timeout': 'syncMs',
  '--ack-timeout': 'asyncAckMs',
  '--pull-timeout': 'observationPullMs',
  '--reanswer-interval': 'reanswerMs',
};

const TIMER_RANGE = 'more than 0 and at most a day';

/** A duration flag's value in ms: `30000`, `30000ms`, `30s`, `1.5s`, `2m`. */
export function parseDuration(v: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m)?\s*$/.exec(v);
  if (!m) throw new UsageError(`${what} takes milliseconds, or a number with s or m (30000, 30s, 2m) (got ${JSON.stringify(v)})`);
  const ms = Number(m[1]) * (m[2] === 'm' ? 60_000 : m[2] === 's' ? 1000 : 1);
  if (!isTimerValue(ms)) throw new UsageError(`${what} must be ${TIMER_RANGE} (got ${JSON.stringify(v)})`);
  return ms;
}

function readTimers(v: unknown, where: string): Partial<Timers> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${where}: timers must be an object of ${TIMER_KEYS.join(', ')} to milliseconds`);
  const out: Partial<Timers> = {};
  for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
    if (!(TIMER_KEYS as readonly string[]).includes(k)) throw new UsageError(`${where}: unknown timer ${JSON.stringify(k)} (known: ${TIMER_KEYS.join(', ')})`);
    if (!isTimerValue(n)) throw new UsageError(`${where}: timers.${k} must be a number of milliseconds, ${TIMER_RANGE} (got ${JSON.stringify(n)})`);
    out[k as keyof Timers] = n;
  }
  return out;
}

/** `.ouirc.json` from `cwd` upwards, or null. */
export function findConfig(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_NAME);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

interface ConfigValues {
  format?: Format;
  failOn?: FailOn;
  spec?: string;
  rules: Record<string, RuleSetting>;
  timers?: Partial<Timers>;
}

export function readConfig(path: string): ConfigValues {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`config ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(e as Error).message})`}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UsageError(`config ${path}: not a JSON object`);
  const out: ConfigValues = { rules: {} };
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    switch (k) {
      case 'format':
        out.format = oneOf(FORMATS, v, `config ${path}: format`);
        break;
      case 'failOn':
      case 'fail-on':
        out.failOn = oneOf(FAIL_ON, v, `config ${path}: failOn`);
        break;
      case 'spec':
        if (!isSpecVersion(v)) throw new UsageError(`config ${path}: spec must be one of ${SPEC_VERSIONS.join(', ')}`);
        out.spec = v;
        break;
      case 'rules':
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`config ${path}: rules must be an object of rule id to off|info|warning|error|critical`);
        for (const [id, s] of Object.entries(v as Record<string, unknown>)) setRule(out.rules, id, s, `config ${path}`);
        break;
      case 'timers':
        out.timers = readTimers(v, `config ${path}`);
        break;
      case '$schema':
      case 'comment':
        break;
      default:
        throw new UsageError(`config ${path}: unknown option ${JSON.stringify(k)} (known: format, failOn, spec, rules, timers)`);
    }
  }
  return out;
}

/** Parses `lint`'s arguments (without the command name). */
export function parseArgs(args: string[], cwd: string): Options {
  const files: string[] = [];
  const cli: Partial<ConfigValues> & { rules: Record<string, RuleSetting>; filter?: string } = { rules: {} };
  let config: string | null | undefined;
  let help = false;
  let version = false;
  let onlyFiles = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (onlyFiles || a === '-' || !a.startsWith('-')) {
      files.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--':
        onlyFiles = true;
        break;
      case '-h':
      case '--help':
        help = true;
        break;
      case '--version':
        version = true;
        break;
      case '--format':
      case '-f':
        cli.format = oneOf(FORMATS, value(), '--format');
        break;
      case '--fail-on':
        cli.failOn = oneOf(FAIL_ON, value(), '--fail-on');
        break;
      case '--spec': {
        const v = value();
        if (!isSpecVersion(v)) throw new UsageError(`--spec must be one of ${SPEC_VERSIONS.join(', ')} (got ${JSON.stringify(v)})`);
        cli.spec = v;
        break;
      }
      case '--rule': {
        const v = value();
        const at = v.lastIndexOf('=');
        if (at <= 0) throw new UsageError(`--rule takes ID=off|info|warning|error|critical (got ${JSON.stringify(v)})`);
        setRule(cli.rules, v.slice(0, at), v.slice(at + 1), '--rule');
        break;
      }
      case '--sync-timeout':
      case '--ack-timeout':
      case '--pull-timeout':
      case '--reanswer-interval':
        (cli.timers ??= {})[TIMER_FLAGS[name]!] = parseDuration(value(), name);
        break;
      case '--filter': {
        const v = value();
        const bad = parseQuery(v).errors;
        if (bad.length) throw new UsageError(`--filter: ${bad.map((e) => errorText(e, v)).join('; ')}`);
        cli.filter = v;
        break;
      }
      case '--config':
        config = resolve(cwd, value());
        break;
      case '--no-config':
        config = null;
        break;
      default:
        throw new UsageError(`unknown option ${name} (see --help)`);
    }
  }
  if (help || version) return { files, format: 'text', failOn: 'error', rules: {}, help, version };
  if (!files.length) throw new UsageError('no input: give FILE... or - for standard input (see --help)');
  const path = config === undefined ? findConfig(cwd) : config;
  const fromFile: ConfigValues = path ? readConfig(path) : { rules: {} };
  // Timer by timer: a flag sets its timer over the file's, and leaves the file's others.
  const timers: Partial<Timers> = { ...fromFile.timers, ...cli.timers };
  return {
    files,
    format: cli.format ?? fromFile.format ?? 'text',
    failOn: cli.failOn ?? fromFile.failOn ?? 'error',
    rules: { ...fromFile.rules, ...cli.rules },
    ...((cli.spec ?? fromFile.spec) ? { spec: cli.spec ?? fromFile.spec } : {}),
    ...(Object.keys(timers).length ? { timers } : {}),
    ...(path ? { config: path } : {}),
    ...(cli.filter !== undefined ? { filter: cli.filter } : {}),
    help,
    version,
  };
}
