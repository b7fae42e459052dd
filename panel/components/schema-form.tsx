/**
 * A form generated from an action's `input` JSON Schema. It sends exactly the
 * types the schema says (integers as integers, booleans as booleans), fills
 * defaults, marks required fields, and offers the alternatives of
 * `oneOf`/`anyOf`. The raw JSON editor beside it edits the same value, so
 * anything the form cannot express (or invalid params, on purpose) can still
 * be sent.
 */
import { createContext } from 'preact';
import { useContext, useId } from 'preact/hooks';
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
  /** JSON Pointer of the value in the params. */
  path: string;
  depth: number;
  /** What a user calls this field: its property name, "tags item 2", "params". */
  name: string;
  /** Set when a visible <label for> names this control; otherwise the control names itself with `name`. */
  id?: string;
  /** The hint that describes this field. */
  describedBy?: string;
  /** A required member: said to assistive technology, since the asterisk is hidden from it. */
  required?: boolean;
}

/** Whether the field renders one form control that a <label for> can point at. */
function isSingleControl(s: JSONSchema): boolean {
  if ('const' in s) return false;
  const alts = s.oneOf ?? s.anyOf;
  if (Array.isArray(alts) && alts.length && !s.properties) return false;
  if (Array.isArray(s.enum)) return true;
  const t = typeOf(s);
  return t === 'string' || t === 'number' || t === 'integer' || t === 'boolean';
}

/** An id a <label for> can point at: unique per form, from the pointer. */
function idFor(formId: string, path: string): string {
  return `${formId}-f${path.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}

function Field({ schema, value, onChange, path, depth, name, id, describedBy, required }: FieldProps) {
  if (depth > MAX_DEPTH) return <span class="muted">too deep for the form: use the JSON editor</span>;
  if ('const' in schema) return <code class="const">{JSON.stringify(schema.const)}</code>;
  // A control named by a <label for> takes its name from it; one without takes `name` (array items, the top level).
  const named = {
    ...(id ? { id } : { 'aria-label': name }),
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(required ? { 'aria-required': true } : {}),
    'data-path': path,
  };
  const alts = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alts) && alts.length && !schema.properties) {
    const index = pickAlternative(alts, value);
    return (
      <div class="alt">
        <select
          aria-label={`${name}: alternative`}
          data-path={path}
          value={String(index)}
          onChange={(e) => onChange(initialValue(alts[Number((e.target as HTMLSelectElement).value)], depth + 1) ?? emptyOf(alts[Number((e.target as HTMLSelectElement).value)]!))}
        >
          {alts.map((a, i) => (
            <option value={String(i)}>{a.description ?? `${i + 1}: ${describeType(a)}`}</option>
          ))}
        </select>
        <Field schema={alts[index]!} value={value} onChange={onChange} path={path} depth={depth + 1} name={name} />
      </div>
    );
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum;
    const index = options.findIndex((o) => o === value);
    return (
      <select {...named} value={index < 0 ? '' : String(index)} onChange={(e) => {
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
      // No `pattern` attribute: the browser would run the page's regex with its backtracking engine on every
      // keystroke; the composer validates with the linear-time engine instead (src/protocol/linear-regexp.ts).
      return (
        <input
          {...named}
          type="text"
          value={typeof value === 'string' ? value : ''}
          minLength={schema.minLength}
          maxLength={schema.maxLength}
          placeholder={schema.format ?? ''}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
    case 'number':
    case 'integer': {
      const integer = typeOf(schema) === 'integer';
      return (
        <input
          {...named}
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
      return <input {...named} type="checkbox" checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />;
    case 'object':
      return <ObjectFields schema={schema} value={value} onChange={onChange} path={path} depth={depth} name={name} />;
    case 'array': {
      const list = Array.isArray(value) ? value : [];
      const items = (schema.items && typeof schema.items === 'object' ? schema.items : {}) as JSONSchema;
      return (
        <div class="array">
          {list.map((item, i) => (
            <div class="array-item" key={i}>
              <Field schema={items} value={item} path={`${path}/${i}`} depth={depth + 1} name={`${name} item ${i + 1}`} onChange={(v) => onChange(list.map((x, j) => (j === i ? v : x)))} />
              <button class="icon" aria-label={`remove ${name} item ${i + 1}`} onClick={() => onChange(list.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
          ))}
          <button aria-label={`add ${name} item`} onClick={() => onChange([...list, initialValue(items, depth + 1) ?? emptyOf(items)])}>Add item</button>
        </div>
      );
    }
    default:
      return <span class="muted">any JSON: use the JSON editor</span>;
  }
}

/** The id prefix of the form being rendered: ids must be unique in the document, pointers repeat across forms. */
const FormId = createContext('sf');

function ObjectFields({ schema, value, onChange, path, depth }: FieldProps) {
  const formId = useContext(FormId);
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
        const id = idFor(formId, `${path}/${k}`);
        const hint = !Array.isArray(s.enum) ? `${id}-hint` : undefined;
        // One control: its <label> points at it. Several (an object, a list, alternatives): the label names their group.
        // The name is the property alone: "required" is said by the hint, so the asterisk stays outside the label.
        const single = isSingleControl(s);
        return (
          <div class="form-row" key={k} {...(single ? {} : { role: 'group', 'aria-labelledby': `${id}-label` })}>
            <span class="form-label">
              {single ? (
                <label for={id} id={`${id}-label`} title={s.description}>
                  <code>{k}</code>
                </label>
              ) : (
                <span id={`${id}-label`} title={s.description}>
                  <code>{k}</code>
                </span>
              )}
              {required.has(k) && (
                <span class="req" title="required" aria-hidden="true">
                  *
                </span>
              )}
            </span>
            <div class="form-input">
              <Field
                schema={s}
                value={obj[k]}
                path={`${path}/${k}`}
                depth={depth + 1}
                name={k}
                {...(single ? { id } : {})}
                {...(hint ? { describedBy: hint } : {})}
                required={required.has(k)}
                onChange={(v) => set(k, v)}
              />
              {hint && (
                <span class="muted hint" id={hint}>
                  {required.has(k) ? 'required · ' : ''}
                  {describeType(s)}
                </span>
              )}
            </div>
          </div>
        );
      })}
    </div>
  );
}

export function SchemaForm({ schema, value, onChange }: { schema: JSONSchema; value: Value; onChange: (v: Value) => void }) {
  const formId = useId();
  return (
    <FormId.Provider value={formId}>
      <div class="schema-form" role="group" aria-label="Params form">
        <Field schema={schema} value={value} onChange={onChange} path="" depth={0} name="params" />
      </div>
    </FormId.Provider>
  );
}
