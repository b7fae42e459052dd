/**
 * Protocol-core benchmark: `node --import tsx bench/bench.ts` (`npm run bench`).
 *
 * Side by side, in one run, median of several timed rounds after warmup:
 * - argsHashSync and argsHash vs the reference pair `canonicalize` (npm) +
 *   node:crypto SHA-256, on ~1 KB and ~100 KB params;
 * - surfacesHash vs plain JSON.stringify on the same ~500 KB surfaces array.
 *
 * Goals: argsHash no slower than the reference pair; surfacesHash within 2x
 * of JSON.stringify. Writes bench/results.json.
 */

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import { argsHash, argsHashSync, canonicalJson, surfacesHash } from '../src/protocol/index.ts';

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'invoice', 'customer', 'order', 'line', 'amount', 'currency', 'status', 'draft', 'approved', 'export',
  'chart', 'series', 'axis', 'label', 'filter', 'range', 'document', 'paragraph', 'heading', 'selection',
  'préférence', 'données', 'über', 'größe', '日本語', 'émoji 🚀', 'quoted "name"', 'path\\to',
];

function params(targetBytes: number): Record<string, unknown> {
  const r = rng(42);
  const rows: unknown[] = [];
  const out: Record<string, unknown> = { query: 'status:open owner:me', page: 1, pageSize: 50, rows };
  let i = 0;
  while (JSON.stringify(out).length < targetBytes) {
    rows.push({
      id: `row-${i}`,
      title: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} #${i}`,
      amount: Math.round(r() * 1e6) / 100,
      ratio: r(),
      quantity: Math.floor(r() * 100),
      active: r() > 0.5,
      tags: [WORDS[i % 5], WORDS[(i + 3) % 11]],
      address: { street: `${i} Main St`, city: 'Zürich', zip: String(8000 + (i % 100)), note: 'line\nbreak\ttab' },
      createdAt: 1_700_000_000_000 + i * 1000,
      parent: i % 3 === 0 ? null : `row-${i - 1}`,
    });
    i++;
  }
  return out;
}

function propertySchema(r: () => number, name: string): Record<string, unknown> {
  const kind = Math.floor(r() * 5);
  const description = `The ${name} of the ${WORDS[Math.floor(r() * WORDS.length)]}, as the user sees it in the form.`;
  switch (kind) {
    case 0:
      return { type: 'string', description, minLength: 1, maxLength: 200 };
    case 1:
      return { type: 'number', description, minimum: 0, maximum: 1_000_000, default: 0 };
    case 2:
      return { type: 'string', description, enum: ['draft', 'pending', 'approved', 'rejected', 'archived'], default: 'draft' };
    case 3:
      return { type: 'array', description, items: { type: 'string', pattern: '^[a-z0-9-]+$' }, maxItems: 20 };
    default:
      return {
        type: 'object',
        description,
        properties: {
          start: { type: 'string', format: 'date-time', description: 'Start of the range' },
          end: { type: 'string', format: 'date-time', description: 'End of the range' },
        },
        required: ['start'],
        additionalProperties: false,
      };
  }
}

function surfaces(targetBytes: number): unknown[] {
  const r = rng(7);
  const list: unknown[] = [];
  let s = 0;
  while (JSON.stringify(list).length < targetBytes) {
    const actions: unknown[] = [];
    for (let a = 0; a < 25; a++) {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const n = 3 + Math.floor(r() * 6);
      for (let p = 0; p < n; p++) {
        const name = `${WORDS[(a + p) % 20]!.replace(/\W/g, '')}_${p}`;
        properties[name] = propertySchema(r, name);
        if (r() > 0.5) required.push(name);
      }
      actions.push({
        id: `action_${s}_${a}`,
        description: `Does ${WORDS[a % WORDS.length]} things on the ${WORDS[(a + s) % WORDS.length]} — ${a}.`,
        title: `Action ${a}`,
        effect: ['view', 'edit', 'mutate', 'transaction'][a % 4],
        confirm: a % 7 === 0,
        input: { type: 'object', properties, required, additionalProperties: false },
        output: { type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'string' } } },
        tags: ['write', `group-${a % 3}`],
        estimatedDuration: 'instant',
      });
    }
    list.push({
      id: `surface-${s}`,
      name: `Surface ${s}`,
      description: `Lets the agent work with ${WORDS[s % WORDS.length]} records.`,
      version: '1.2.0',
      actions,
      observations: [
        {
          id: 'current_selection',
          description: 'What is selected',
          schema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } } },
          updateFrequency: 'on-change',
        },
      ],
      activation: { routes: [`/app/${s}/**`], condition: 'A record is open' },
      metadata: { team: 'backoffice', owner: `team-${s}` },
    });
    s++;
  }
  return list;
}

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median microseconds per call over `rounds` rounds of `iters` calls, after warmup. */
function timeSync(fn: () => unknown, iters: number, rounds = 9): number {
  for (let i = 0; i < iters * 2; i++) fn();
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / iters);
  }
  return median(samples);
}

async function timeAsync(fn: () => Promise<unknown>, iters: number, rounds = 9): Promise<number> {
  for (let i = 0; i < iters * 2; i++) await fn();
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) await fn();
    samples.push(((performance.now() - t0) * 1000) / iters);
  }
  return median(samples);
}

const reference = (p: unknown): string => createHash('sha256').update(canonicalize(p) as string, 'utf8').digest('hex');

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    node: process.version,
    date: new Date().toISOString(),
    platform: `${process.platform} ${process.arch}`,
    unit: 'microseconds per call (median of rounds after warmup)',
  };
  const figures: Record<string, unknown> = {};
  const ratios: Record<string, number> = {};

  for (const [label, size, iters] of [
    ['1KB', 1024, 4000],
    ['100KB', 100 * 1024, 60],
  ] as const) {
    const p = params(size);
    const bytes = Buffer.byteLength(JSON.stringify(p));
    // Same answer first.
    const want = reference(p);
    if (argsHashSync(p) !== want || (await argsHash(p)) !== want) throw new Error(`argsHash disagrees with the reference on ${label}`);
    if (canonicalJson(p) !== canonicalize(p)) throw new Error(`canonicalJson disagrees with canonicalize on ${label}`);

    const ref = timeSync(() => reference(p), iters);
    const sync = timeSync(() => argsHashSync(p), iters);
    const asyncUs = await timeAsync(() => argsHash(p), iters);
    const canon = timeSync(() => canonicalJson(p), iters);
    const refCanon = timeSync(() => canonicalize(p), iters);
    figures[`args_${label}`] = {
      bytes,
      reference_canonicalize_plus_node_sha256_us: round(ref),
      argsHashSync_us: round(sync),
      argsHash_async_us: round(asyncUs),
      canonicalJson_only_us: round(canon),
      canonicalize_only_us: round(refCanon),
    };
    ratios[`argsHashSync_vs_reference_${label}`] = round(sync / ref, 3);
    ratios[`argsHash_vs_reference_${label}`] = round(asyncUs / ref, 3);
    console.log(
      `args ${label} (${bytes} B): reference ${round(ref)} us | argsHashSync ${round(sync)} us (x${round(sync / ref, 3)}) | ` +
        `argsHash ${round(asyncUs)} us (x${round(asyncUs / ref, 3)}) | canonicalJson ${round(canon)} us vs canonicalize ${round(refCanon)} us`,
    );
  }

  const surf = surfaces(500 * 1024);
  const sBytes = JSON.stringify(surf).length;
  const stringify = timeSync(() => JSON.stringify(surf), 20, 11);
  const hash = timeSync(() => surfacesHash(surf), 20, 11);
  figures.surfaces_500KB = {
    utf16_units: sBytes,
    surfaces: surf.length,
    json_stringify_us: round(stringify),
    surfacesHash_us: round(hash),
  };
  ratios.surfacesHash_vs_JSON_stringify = round(hash / stringify, 3);
  console.log(
    `surfaces (${sBytes} UTF-16 units, ${surf.length} surfaces): JSON.stringify ${round(stringify)} us | surfacesHash ${round(hash)} us (x${round(hash / stringify, 3)})`,
  );

  const goals = {
    argsHash_not_slower_than_reference:
      Object.entries(ratios).filter(([k]) => k.startsWith('args')).every(([, v]) => v <= 1),
    surfacesHash_within_2x_of_JSON_stringify: ratios.surfacesHash_vs_JSON_stringify! <= 2,
  };
  results.figures = figures;
  results.ratios = ratios;
  results.goals = goals;
  console.log('goals:', goals);
  writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify(results, null, 2) + '\n');
}

await main();
