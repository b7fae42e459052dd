/**
 * A JSON Schema read as a person reads a form: each property with its type,
 * bounds, enum, default and whether it is required. The raw schema is one
 * click away. Schemas come from the page: rendered as text, depth-capped.
 */
import { useState } from 'preact/hooks';
import type { JSONSchema } from '../../src/protocol/index.ts';
import { JsonTree } from './json-tree.tsx';
import { short } from '../display-text.ts';

const MAX_DEPTH = 8;

export function describeType(s: JSONSchema): string {
  const parts: string[] = [];
  if ('const' in s) return `= ${short(s.const, 60)}`;
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => short(v, 30)).join(' | ')}`;
  const type = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? (s.oneOf ? 'one of' : s.anyOf ? 'any of' : s.properties ? 'object' : 'any'));
  parts.push(type);
  if (s.type === 'array' && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) parts[0] = `array of ${describeType(s.items)}`;
  if (typeof s.minLength === 'number' || typeof s.maxLength === 'number') parts.push(`${s.minLength ?? 0}–${s.maxLength ?? '∞'} chars`);
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  if (typeof s.pattern === 'string') parts.push(`/${short(s.pattern, 40)}/`);
  if (typeof s.format === 'string') parts.push(s.format);
  if ('default' in s) parts.push(`default ${short(s.default, 40)}`);
  return parts.join(', ');
}

function Props({ schema, depth }: { schema: JSONSchema; depth: number }) {
  if (depth > MAX_DEPTH) return <li class="muted">… deeper levels in the raw schema</li>;
  const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null;
  return (
    <>
      {Object.entries(props).map(([name, sub]) => {
        const s = (sub && typeof sub === 'object' ? sub : {}) as JSONSchema;
        const nested = s.properties ? s : s.type === 'array' && s.items && typeof s.items === 'object' && (s.items as JSONSchema).properties ? (s.items as JSONSchema) : null;
        return (
          <li key={name}>
            <code>{name}</code>
            {required.has(name) ? <span class="req" title="required">*</span> : null} <span class="muted">{describeType(s)}</span>
            {s.description ? <span class="desc"> — {short(s.description, 200)}</span> : null}
            {nested && (
              <ul>
                <Props schema={nested} depth={depth + 1} />
              </ul>
            )}
          </li>
        );
      })}
      {alternatives && (
        <li>
          <span class="muted">{schema.oneOf ? 'exactly one of:' : 'any of:'}</span>
          <ol>
            {alternatives.map((alt, i) => (
              <li key={i}>
                <span class="muted">{describeType(alt ?? {})}</span>
                {alt?.properties && (
                  <ul>
                    <Props schema={alt} depth={depth + 1} />
                  </ul>
                )}
              </li>
            ))}
          </ol>
        </li>
      )}
    </>
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
      {raw ? (
        <JsonTree value={schema} />
      ) : (
        <ul class="props">
          <Props schema={s} depth={0} />
        </ul>
      )}
    </div>
  );
}
