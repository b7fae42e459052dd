import { generateAbstract } from './generate.ts';
const seed = Number(process.argv[2]); const from = Number(process.argv[3] ?? 0); const to = Number(process.argv[4] ?? 1e15);
const s = generateAbstract(seed);
for (const c of s.clients) { console.log(c.name, c.transport, c.lateStart); for (const e of c.events) { const rel = e.t - s.t0; if (rel < from || rel > to) continue; console.log(rel.toFixed(1), e.conn, e.dir, e.kind, e.type ?? '', e.tag ? JSON.stringify({ ...e.tag, surfaces: undefined, observations: undefined }) : '', e.kind === 'ack' ? JSON.stringify(e.payload) : ''); } }
