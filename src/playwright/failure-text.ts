/**
 * The failure text of `toHaveNoFindings`: each finding on a few lines, with
 * its severity, rule id, spec section, party at fault, the client, and the
 * event that shows it (its type, its index in the attached oui-session.json
 * and its time from the session's first event).
 */
import type { Finding } from '../session/model/model-types.ts';
import type { WireClient, WireEvent } from '../session/wire/wire.ts';

export interface FormatSource {
  clients: readonly WireClient[];
  events: readonly WireEvent[];
}

/** One line, never longer than `max`: finding messages quote page data. */
function oneLine(text: string, max = 240): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function seconds(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(3)} s`;
}

/** "#12 action:result (dir out) at +1.234 s, id …", or the id alone when the event is not in the session. */
export function describeEvent(id: string, index: Map<string, number>, events: readonly WireEvent[]): string {
  const i = index.get(id);
  if (i === undefined) return `id ${id} (not in the session)`;
  const ev = events[i]!;
  const start = events[0]!.t;
  const what = ev.kind === 'event' || ev.kind === 'lifecycle' ? (ev.type ?? ev.kind) : ev.kind === 'ack' ? 'acknowledgment' : `${ev.kind} frame`;
  const dir = ev.dir === 'out' ? 'client → runtime' : 'runtime → client';
  return `#${i + 1} ${what} (${dir}) at ${seconds(ev.t - start)}, id ${id}`;
}

function clientLine(key: string, clients: Map<string, WireClient>): string {
  const c = clients.get(key);
  if (!c) return oneLine(key, 160);
  const frame = c.frameUrl ? ` in ${oneLine(c.frameUrl, 120)}` : '';
  return `${c.kind} ${oneLine(c.label, 120)}${frame}`;
}

export function formatFindings(findings: readonly Finding[], source: FormatSource): string {
  const index = new Map<string, number>();
  source.events.forEach((ev, i) => index.set(ev.id, i));
  const clients = new Map(source.clients.map((c) => [c.key, c]));
  const lines: string[] = [];
  findings.forEach((f, n) => {
    lines.push(`${n + 1}. ${f.severity} ${f.rule} ${f.section} (party at fault: ${f.party})`);
    lines.push(`   ${oneLine(f.message)}`);
    lines.push(`   client: ${clientLine(f.client, clients)}`);
    const [first, ...rest] = f.events;
    if (first !== undefined) lines.push(`   event: ${describeEvent(first, index, source.events)}`);
    for (const id of rest.slice(0, 3)) lines.push(`   see also: ${describeEvent(id, index, source.events)}`);
    if (rest.length > 3) lines.push(`   and ${rest.length - 3} more events`);
  });
  return lines.join('\n');
}
