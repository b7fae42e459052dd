/**
 * A JSON Schema read as a person reads a form: each property with its type,
 * bounds, enum (strings quoted), default and whether it is required;
 * `oneOf`/`anyOf` alternatives as numbered sub-lists. The raw schema is one
 * click away. Schemas come from the page: rendered as text, depth-capped.
 */
import { useState } from 'preact/hooks';
import type { JSONSchema } from '../../src/protocol/index.ts';
import { JsonTree } from './json-tree.tsx';
import { short } from '../display-text.ts';

const MAX_DEPTH = 8;

/** A literal as it is written in JSON: strings quoted (so an empty default reads `""`), other values as their JSON text. */
export function literal(v: unknown, max = 40): string {
  return typeof v === 'string' ? JSON.stringify(short(v, max)) : short(v, max);
}

/** A schema's alternatives, and how they combine, when it has them. */
export function alternativesOf(s: JSONSchema): { kind: 'oneOf' | 'anyOf'; list: JSONSchema[] } | null {
  if (Array.isArray(s.oneOf)) return { kind: 'oneOf', list: s.oneOf.map(asSchema) };
  if (Array.isArray(s.anyOf)) return { kind: 'anyOf', list: s.anyOf.map(asSchema) };
  return null;
}

function asSchema(v: unknown): JSONSchema {
  return (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as JSONSchema;
}

export function describeType(s: JSONSchema): string {
  const parts: string[] = [];
  if ('const' in s) return `= ${literal(s.const, 60)}`;
  if (Array.isArray(s.enum)) parts.push(`one of ${s.enum.map((v) => literal(v, 30)).join(' | ')}`);
  else {
    const alts = alternativesOf(s);
    const combined = alts ? `${alts.kind === 'oneOf' ? 'exactly one of' : 'any of'} ${alts.list.length} alternatives` : null;
    const type = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? combined ?? (s.properties ? 'object' : 'any'));
    parts.push(type);
    if (s.type === 'array' && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) parts[0] = `array of ${describeType(s.items)}`;
    if (s.type && combined) parts.push(combined);
  }
  if (typeof s.minLength === 'number' || typeof s.maxLength === 'number') parts.push(`${s.minLength ?? 0}–${s.maxLength ?? '∞'} chars`);
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  if (typeof s.pattern === 'string') parts.push(`/${short(s.pattern, 40)}/`);
  if (typeof s.format === 'string') parts.push(s.format);
  if ('default' in s) parts.push(`default ${literal(s.default)}`);
  return parts.join(', ');
}

/** What is listed under a schema: its properties (or its array items' properties), then its alternatives. */
function Inside({ schema, depth }: { schema: JSONSchema; depth: number }) {
  const items = schema.type === 'array' && schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items) ? asSchema(schema.items) : null;
  const props = schema.properties && typeof schema.properties === 'object' ? schema : items && (items.properties || alternativesOf(items)) ? items : null;
  const alts = alternativesOf(schema);
  if (!props && !alts) return null;
  if (depth > MAX_DEPTH) return <div class="muted">… deeper levels in the raw schema</div>;
  return (
    <>
      {props && <Props schema={props} depth={depth} />}
      {props && props !== schema && alternativesOf(props) && <Alternatives schema={props} depth={depth} />}
      {alts && <Alternatives schema={schema} depth={depth} />}
    </>
  );
}

function Alternatives({ schema, depth }: { schema: JSONSchema; depth: number }) {
  const alts = alternativesOf(schema)!;
  return (
    <ol class="alternatives" data-kind={alts.kind} aria-label={alts.kind === 'oneOf' ? 'exactly one of' : 'any of'}>
      {alts.list.map((alt, i) => (
        <li key={i}>
          <span class="muted">{describeType(alt)}</span>
          {alt.description ? <span class="desc"> — {short(alt.description, 200)}</span> : null}
          <Inside schema={alt} depth={depth + 1} />
        </li>
      ))}
    </ol>
  );
}

function Props({ schema, depth }: { schema: JSONSchema; depth: number }) {
  const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(props);
  if (!names.length) return null;
  return (
    <ul class="props">
      {names.map((name) => {
        const s = asSchema((props as Record<string, unknown>)[name]);
        return (
          <li key={name}>
            <code>{name}</code>
            {required.has(name) ? <span class="req" title="required">*</span> : null} <span class="muted">{describeType(s)}</span>
            {s.description ? <span class="desc"> — {short(s.description, 200)}</span> : null}
            <Inside schema={s} depth={depth + 1} />
          </li>
        );
      })}
    </ul>
  );
}

export function SchemaView({ schema, label }: { schema: unknown; label: string }) {
  const [raw, setRaw] = useState(false);
  if (!schema || typeof schema !== 'object') return <span class="muted">{label}: none</span>;
  const s = schema as JSONSchema;
  return (
    <div class="schema">
      <span class="schema-label">{label}</span> <span class="muted">{describeType(s)}</span>{' '}
      <button class="link" onClick={() => setRaw(!raw)}>
        {raw ? 'readable' : 'raw'}
      </button>
      {raw ? <JsonTree value={schema} /> : <Inside schema={s} depth={0} />}
    </div>
  );
}
