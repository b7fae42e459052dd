/**
 * A form generated from an action's `input` JSON Schema. It sends exactly the
 * types the schema says (integers as integers, booleans as booleans), fills
 * defaults, marks required fields, and offers the alternatives of
 * `oneOf`/`anyOf`. The raw JSON editor beside it edits the same value, so
 * anything the form cannot express (or invalid params, on purpose) can still
 * be sent.
 */
import type { JSONSchema } from '../../src/protocol/index.ts';
import { describeType } from './schema-view.tsx';

const MAX_DEPTH = 10;

type Value = unknown;

function typeOf(s: JSONSchema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') ?? s.type[0];
  if (s.type) return s.type;
  if (s.properties) return 'object';
  if (s.items) return 'array';
  if (Array.isArray(s.enum) && s.enum.length) return typeof s.enum[0];
  return undefined;
}

/** The value a fresh form starts from: defaults, consts, required members. */
export function initialValue(s: JSONSchema | undefined, depth = 0): Value {
  if (!s || typeof s !== 'object' || depth > MAX_DEPTH) return undefined;
  if ('const' in s) return s.const;
  if ('default' in s) return s.default;
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives) && alternatives[0] && !s.properties) return initialValue(alternatives[0], depth + 1);
  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, Value> = {};
      const required = new Set(s.required ?? []);
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        const v = initialValue(sub, depth + 1);
        if (v !== undefined && (required.has(k) || (sub && 'default' in sub))) out[k] = v;
        else if (required.has(k)) out[k] = emptyOf(sub);
      }
      return out;
    }
    case 'array':
      return [];
    default:
      return undefined;
  }
}

function emptyOf(s: JSONSchema): Value {
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  switch (typeOf(s)) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'object':
      return initialValue(s) ?? {};
    case 'array':
      return [];
    default:
      return null;
  }
}

/** Which alternative of a oneOf/anyOf the current value fits best: the first whose required keys and consts it has. */
function pickAlternative(alts: JSONSchema[], value: Value): number {
  if (!value || typeof value !== 'object') return 0;
  const v = value as Record<string, unknown>;
  const i = alts.findIndex((a) => {
    const req = a.required ?? [];
    if (!req.every((k) => k in v)) return false;
    return Object.entries(a.properties ?? {}).every(([k, p]) => !(p && 'const' in p) || v[k] === p.const);
  });
  return Math.max(0, i);
}

interface FieldProps {
  schema: JSONSchema;
  value: Value;
  onChange: (v: Value) => void;
  path: string;
  depth: number;
}

function Field({ schema, value, onChange, path, depth }: FieldProps) {
  if (depth > MAX_DEPTH) return <span class="muted">too deep for the form: use the JSON editor</span>;
  if ('const' in schema) return <code class="const">{JSON.stringify(schema.const)}</code>;
  const alts = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alts) && alts.length && !schema.properties) {
    const index = pickAlternative(alts, value);
    return (
      <div class="alt">
        <select
          aria-label={`${path || 'params'}: alternative`}
          value={String(index)}
          onChange={(e) => onChange(initialValue(alts[Number((e.target as HTMLSelectElement).value)], depth + 1) ?? emptyOf(alts[Number((e.target as HTMLSelectElement).value)]!))}
        >
          {alts.map((a, i) => (
            <option value={String(i)}>{a.description ?? `${i + 1}: ${describeType(a)}`}</option>
          ))}
        </select>
        <Field schema={alts[index]!} value={value} onChange={onChange} path={path} depth={depth + 1} />
      </div>
    );
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum;
    const index = options.findIndex((o) => o === value);
    return (
      <select aria-label={path} value={index < 0 ? '' : String(index)} onChange={(e) => {
        const v = (e.target as HTMLSelectElement).value;
        onChange(v === '' ? undefined : options[Number(v)]);
      }}>
        <option value="">—</option>
        {options.map((o, i) => (
          <option value={String(i)}>{JSON.stringify(o)}</option>
        ))}
      </select>
    );
  }
  switch (typeOf(schema)) {
    case 'string':
      return (
        <input
          aria-label={path}
          type="text"
          value={typeof value === 'string' ? value : ''}
          minLength={schema.minLength}
          maxLength={schema.maxLength}
          pattern={schema.pattern}
          placeholder={schema.format ?? ''}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
    case 'number':
    case 'integer': {
      const integer = typeOf(schema) === 'integer';
      return (
        <input
          aria-label={path}
          type="number"
          step={integer ? 1 : 'any'}
          min={schema.minimum}
          max={schema.maximum}
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => {
            const raw = (e.target as HTMLInputElement).value;
            if (raw === '') return onChange(undefined);
            const n = integer ? parseInt(raw, 10) : parseFloat(raw);
            onChange(Number.isNaN(n) ? undefined : n);
          }}
        />
      );
    }
    case 'boolean':
      return <input aria-label={path} type="checkbox" checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />;
    case 'object':
      return <ObjectFields schema={schema} value={value} onChange={onChange} path={path} depth={depth} />;
    case 'array': {
      const list = Array.isArray(value) ? value : [];
      const items = (schema.items && typeof schema.items === 'object' ? schema.items : {}) as JSONSchema;
      return (
        <div class="array">
          {list.map((item, i) => (
            <div class="array-item" key={i}>
              <Field schema={items} value={item} path={`${path}/${i}`} depth={depth + 1} onChange={(v) => onChange(list.map((x, j) => (j === i ? v : x)))} />
              <button class="icon" aria-label={`remove ${path}/${i}`} onClick={() => onChange(list.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
          ))}
          <button onClick={() => onChange([...list, initialValue(items, depth + 1) ?? emptyOf(items)])}>Add item</button>
        </div>
      );
    }
    default:
      return <span class="muted">any JSON: use the JSON editor</span>;
  }
}

function ObjectFields({ schema, value, onChange, path, depth }: FieldProps) {
  const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Value>) : {};
  const required = new Set(schema.required ?? []);
  const set = (k: string, v: Value) => {
    const next = { ...obj };
    if (v === undefined || (v === '' && !required.has(k))) delete next[k];
    else next[k] = v;
    onChange(next);
  };
  return (
    <div class="object">
      {Object.entries(schema.properties ?? {}).map(([k, sub]) => {
        const s = (sub && typeof sub === 'object' ? sub : {}) as JSONSchema;
        return (
          <div class="form-row" key={k}>
            <label title={s.description}>
              <code>{k}</code>
              {required.has(k) && <span class="req">*</span>}
            </label>
            <div class="form-input">
              <Field schema={s} value={obj[k]} path={`${path}/${k}`} depth={depth + 1} onChange={(v) => set(k, v)} />
              {!Array.isArray(s.enum) && <span class="muted hint">{describeType(s)}</span>}
            </div>
          </div>
        );
      })}
    </div>
  );
}

export function SchemaForm({ schema, value, onChange }: { schema: JSONSchema; value: Value; onChange: (v: Value) => void }) {
  return (
    <div class="schema-form" role="group" aria-label="Params form">
      <Field schema={schema} value={value} onChange={onChange} path="" depth={0} />
    </div>
  );
}
