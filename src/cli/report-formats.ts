/**
 * The linter's outputs: text for people, JSON for scripts, JUnit XML and
 * SARIF 2.1.0 for CI dashboards and code scanning, and GitHub Actions
 * workflow commands (annotations). Pure string building.
 */
import { RULES } from '../session/model/rules.ts';
import type { Severity } from '../session/model/model-types.ts';
import type { LintReport, LintedFinding, Location } from '../session/lint/engine.ts';
import type { FailOn, Format } from './options.ts';

export interface FileResult {
  /** As given on the command line (`-` for standard input). */
  file: string;
  report: LintReport;
}

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2, critical: 3 };

export function atLeast(s: Severity, failOn: FailOn): boolean {
  return failOn !== 'never' && SEVERITY_RANK[s] >= SEVERITY_RANK[failOn];
}

function displayName(file: string): string {
  return file === '-' ? '<stdin>' : file;
}

function iso(t: number): string {
  const d = new Date(t);
  return Number.isFinite(d.getTime()) ? d.toISOString() : String(t);
}

function main(f: LintedFinding): Location | null {
  return f.locations.find((l) => l !== null) ?? null;
}

function clientLabel(r: LintReport, key: string): string {
  return r.clients.find((c) => c.key === key)?.label ?? key;
}

function counts(results: FileResult[]): Record<Severity, number> {
  const c: Record<Severity, number> = { critical: 0, error: 0, warning: 0, info: 0 };
  for (const r of results) for (const f of r.report.findings) c[f.severity]++;
  return c;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function format(kind: Format, results: FileResult[], failOn: FailOn, version: string): string {
  switch (kind) {
    case 'text':
      return text(results);
    case 'json':
      return `${JSON.stringify(json(results, failOn, version), null, 2)}\n`;
    case 'junit':
      return junit(results, failOn);
    case 'sarif':
      return `${JSON.stringify(sarif(results, version), null, 2)}\n`;
    case 'github':
      return github(results);
  }
}

// -- text ---------------------------------------------------------------------

function text(results: FileResult[]): string {
  const out: string[] = [];
  for (const { file, report } of results) {
    const name = displayName(file);
    out.push(`${name} (${report.kind === 'har' ? 'HAR' : 'session'}: ${plural(report.events, 'event')}, ${plural(report.clients.length, 'client')})`);
    for (const f of report.findings) {
      const loc = main(f);
      const where = loc ? `${name}:${loc.line} ${loc.path}` : name;
      out.push(`  ${f.severity.padEnd(8)} ${f.rule}  ${f.section}  ${f.party} at fault`);
      out.push(`           ${f.message}`);
      out.push(`           client ${clientLabel(report, f.client)} · ${iso(f.t)} · ${where}${loc ? ` (event #${loc.index})` : ''}`);
    }
    if (!report.findings.length) out.push('  no findings');
    for (const n of report.notes) out.push(`  note: ${n}`);
    if (report.experiments) out.push(`  note: ${plural(report.experiments, 'finding')} of injected or replayed requests left out`);
  }
  const c = counts(results);
  const total = c.critical + c.error + c.warning + c.info;
  const parts = (['critical', 'error', 'warning', 'info'] as const).filter((s) => c[s]).map((s) => `${c[s]} ${s}`);
  out.push('');
  out.push(`${plural(total, 'finding')}${parts.length ? ` (${parts.join(', ')})` : ''} in ${plural(results.length, 'file')}`);
  return `${out.join('\n')}\n`;
}

// -- JSON ---------------------------------------------------------------------

function json(results: FileResult[], failOn: FailOn, version: string): unknown {
  return {
    tool: { name: 'oui-devtools', version },
    failOn,
    summary: counts(results),
    files: results.map(({ file, report }) => ({
      file: displayName(file),
      kind: report.kind,
      events: report.events,
      clients: report.clients.map((c) => ({ key: c.key, kind: c.kind, label: c.label })),
      findings: report.findings.map((f) => {
        const loc = main(f);
        return {
          rule: f.rule,
          severity: f.severity,
          section: f.section,
          party: f.party,
          message: f.message,
          client: f.client,
          clientLabel: clientLabel(report, f.client),
          t: f.t,
          time: iso(f.t),
          index: loc?.index ?? null,
          path: loc?.path ?? null,
          line: loc?.line ?? null,
          events: f.events.map((id, i) => ({ id, ...(f.locations[i] ?? {}) })),
        };
      }),
      experiments: report.experiments,
      notes: report.notes,
    })),
  };
}

// -- JUnit --------------------------------------------------------------------

function xml(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function findingLine(report: LintReport, file: string, f: LintedFinding): string {
  const loc = main(f);
  return `${f.severity} ${f.rule} (${f.section}, ${f.party} at fault): ${f.message} [client ${clientLabel(report, f.client)}, ${iso(f.t)}${loc ? `, ${displayName(file)}:${loc.line} ${loc.path}` : ''}]`;
}

/** One test suite per file, one test case per rule: a rule that fired at or above --fail-on is a failure. */
function junit(results: FileResult[], failOn: FailOn): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const { file, report } of results) {
    const name = displayName(file);
    const byRule = new Map<string, LintedFinding[]>();
    for (const f of report.findings) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
    const cases: string[] = [];
    let suiteFailures = 0;
    for (const rule of RULES) {
      const found = byRule.get(rule.id) ?? [];
      byRule.delete(rule.id);
      cases.push(testcase(name, rule.id, `${rule.section}: ${rule.title}`, found, report, file, failOn, () => suiteFailures++));
    }
    // A finding of no listed rule (cannot happen today) still shows.
    for (const [id, found] of byRule) cases.push(testcase(name, id, id, found, report, file, failOn, () => suiteFailures++));
    tests += cases.length;
    failures += suiteFailures;
    suites.push(`  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0">\n${cases.join('\n')}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="oui-devtools lint" tests="${tests}" failures="${failures}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}

function testcase(file: string, id: string, title: string, found: LintedFinding[], report: LintReport, raw: string, failOn: FailOn, fail: () => void): string {
  const head = `    <testcase classname="${xml(file)}" name="${xml(`${id}: ${title}`)}"`;
  if (!found.length) return `${head}/>`;
  const lines = found.map((f) => findingLine(report, raw, f)).join('\n');
  const failing = found.filter((f) => atLeast(f.severity, failOn));
  if (!failing.length) return `${head}>\n      <system-out>${xml(lines)}</system-out>\n    </testcase>`;
  fail();
  const worst = failing.reduce((a, f) => (SEVERITY_RANK[f.severity] > SEVERITY_RANK[a.severity] ? f : a));
  return `${head}>\n      <failure message="${xml(`${plural(found.length, 'finding')}: ${worst.message}`)}" type="${worst.severity}">${xml(lines)}</failure>\n    </testcase>`;
}

// -- SARIF --------------------------------------------------------------------

function level(s: Severity): 'error' | 'warning' | 'note' {
  return s === 'critical' || s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note';
}

function sarif(results: FileResult[], version: string): unknown {
  const index = new Map(RULES.map((r, i) => [r.id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'oui-devtools',
            version,
            informationUri: 'https://github.com/oui-devtools/oui-devtools#conformance',
            rules: RULES.map((r) => ({
              id: r.id,
              name: r.id,
              shortDescription: { text: r.title },
              fullDescription: { text: `${r.title} (${r.section}; binds the ${r.party}; since oui-spec ${r.since})` },
              defaultConfiguration: { level: level(r.severity) },
              properties: { section: r.section, party: r.party, since: r.since, severity: r.severity },
            })),
          },
        },
        results: results.flatMap(({ file, report }) =>
          report.findings.map((f) => {
            const loc = main(f);
            // A URI reference (SARIF's artifactLocation.uri): each path segment percent-encoded.
            const uri = file === '-' ? 'stdin' : file.replace(/\\/g, '/').split('/').map(encodeURIComponent).join('/');
            return {
              ruleId: f.rule,
              ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
              level: level(f.severity),
              message: { text: `${f.message} (${f.section}, ${f.party} at fault; client ${clientLabel(report, f.client)}, ${iso(f.t)})` },
              locations: [
                {
                  physicalLocation: { artifactLocation: { uri }, ...(loc ? { region: { startLine: loc.line } } : {}) },
                  ...(loc ? { logicalLocations: [{ fullyQualifiedName: loc.path, kind: 'element' }] } : {}),
                },
              ],
              properties: { severity: f.severity, section: f.section, party: f.party, client: f.client, time: iso(f.t), index: loc?.index ?? null, events: f.events },
            };
          }),
        ),
      },
    ],
  };
}

// -- GitHub Actions -------------------------------------------------------------

function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function ghProp(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function github(results: FileResult[]): string {
  const out: string[] = [];
  for (const { file, report } of results) {
    for (const f of report.findings) {
      const loc = main(f);
      const cmd = f.severity === 'info' ? 'notice' : f.severity === 'warning' ? 'warning' : 'error';
      const props = [`file=${ghProp(file === '-' ? 'stdin' : file)}`, ...(loc ? [`line=${loc.line}`] : []), `title=${ghProp(`${f.rule} (${f.section})`)}`];
      const where = loc ? ` at ${loc.path}` : '';
      out.push(`::${cmd} ${props.join(',')}::${ghData(`${f.severity}: ${f.message} [${f.party} at fault; client ${clientLabel(report, f.client)}; ${iso(f.t)}${where}]`)}`);
    }
    for (const n of report.notes) out.push(`::notice file=${ghProp(file === '-' ? 'stdin' : file)},title=oui-devtools::${ghData(n)}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

