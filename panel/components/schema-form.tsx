/**
 * A form generated from an action's `input` JSON Schema. It sends exactly the
 * types the schema says (integers as integers, booleans as booleans), fills
 * defaults, marks required fields, offers the alternatives of `oneOf`/`anyOf`
 * as a numbered choice that switches the sub-form, and shows the schema's
 * verdict beside each field it concerns (the field marked invalid). The raw
 * JSON editor beside it edits the same value, so anything the form cannot
 * express (or invalid params, on purpose) can still be sent.
 */
import { createContext } from 'preact';
import { useContext, useId } from 'preact/hooks';
import { validateJson, type JSONSchema } from '../../src/protocol/index.ts';
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

/** A value of the schema's type that a user fills in: the first option, "", the minimum, false, {} with its required members, []. */
export function emptyOf(s: JSONSchema): Value {
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives) && alternatives[0] && !s.properties) return initialValue(alternatives[0]) ?? emptyOf(alternatives[0]);
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

/** The JSON type of a value, as a schema names it ("integer" for a whole number). */
function jsonType(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Whether `v` is of a type the schema allows (a schema naming no type allows any). */
function typeFits(s: JSONSchema, v: Value): boolean {
  if ('const' in s) return s.const === v || (typeof s.const === 'object' && JSON.stringify(s.const) === JSON.stringify(v));
  if (Array.isArray(s.enum)) return s.enum.some((o) => o === v);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : typeOf(s) ? [typeOf(s)!] : [];
  if (!types.length) return true;
  const t = jsonType(v);
  return types.some((x) => x === t || (x === 'number' && t === 'integer'));
}

/**
 * Which alternative of a oneOf/anyOf the current value fits best: the first
 * of its type whose required keys and consts it has; else the first of its
 * type; else the first.
 */
export function pickAlternative(alts: JSONSchema[], value: Value): number {
  if (value === undefined) return 0;
  const fits = (a: JSONSchema) => !!a && typeof a === 'object' && typeFits(a, value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const i = alts.findIndex((a) => {
      if (!fits(a)) return false;
      if (!(a.required ?? []).every((k) => k in v)) return false;
      return Object.entries(a.properties ?? {}).every(([k, p]) => !(p && 'const' in p) || v[k] === p.const);
    });
    if (i >= 0) return i;
  }
  return Math.max(0, alts.findIndex(fits));
}

/** How the choice of alternatives names one: "2. invoice · type = invoice · requires type". */
export function alternativeLabel(a: JSONSchema, i: number): string {
  const title = (a as { title?: unknown }).title;
  const consts = Object.entries(a.properties ?? {})
    .filter(([, p]) => p && typeof p === 'object' && 'const' in p)
    .map(([k, p]) => `${k} = ${enumLabel(p.const)}`);
  const name = typeof title === 'string' && title ? title : typeof a.description === 'string' && a.description ? a.description : null;
  const parts = [name ?? (consts.length ? consts.join(', ') : describeType(a) || 'any JSON')];
  if (name && consts.length) parts.push(consts.join(', '));
  if (a.required?.length) parts.push(`requires ${a.required.join(', ')}`);
  return `${i + 1}. ${parts.join(' · ')}`;
}

/** A value as a choice shows it: a string as itself (`mug-classic`, the JSON value is what is sent), anything else as JSON. */
export function enumLabel(o: unknown, all: readonly unknown[] = []): string {
  if (typeof o !== 'string' || o === '') return JSON.stringify(o) ?? String(o);
  // A string that reads as another option's JSON ("1" beside 1) is shown quoted, so the two tell apart.
  return all.some((x) => typeof x !== 'string' && JSON.stringify(x) === o) ? JSON.stringify(o) : o;
}

/** The schema's verdict on the params, by the pointer of the field it concerns. */
export type FieldErrors = ReadonlyMap<string, string[]>;

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The validation errors by field: each at its pointer, a missing required
 * property at the property's own pointer (the field to fill in).
 */
export function errorsByField(errors: ReadonlyArray<{ pointer: string; message: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of errors) {
    const missing = /^missing required property "(.*)"$/.exec(e.message);
    const at = missing ? `${e.pointer}/${escapePointer(missing[1]!)}` : e.pointer;
    const message = missing ? 'required: missing' : e.message;
    out.set(at, [...(out.get(at) ?? []), message]);
  }
  return out;
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
  /** The hint (and the error, when the field is invalid) that describe this field. */
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

/** The id prefix of the form being rendered: ids must be unique in the document, pointers repeat across forms. */
const FormId = createContext('sf');
/** The schema's verdict on the params being edited, by field. */
const Errors = createContext<FieldErrors>(new Map());

/** The errors of the field at `path`, beside it: the message the field's aria-describedby names. */
function FieldError({ path, id }: { path: string; id: string }) {
  const errors = useContext(Errors).get(path);
  if (!errors?.length) return null;
  return (
    <span class="warn field-error" id={id} data-testid="field-error" data-path={path}>
      {errors.join('; ')}
    </span>
  );
}

const joinIds = (...ids: Array<string | undefined | false>) => ids.filter(Boolean).join(' ') || undefined;

function Field({ schema, value, onChange, path, depth, name, id, describedBy, required }: FieldProps) {
  const formId = useContext(FormId);
  const invalid = useContext(Errors).has(path);
  if (depth > MAX_DEPTH) return <span class="muted">too deep for the form: use the JSON editor</span>;
  if ('const' in schema) return <code class="const">{enumLabel(schema.const)}</code>;
  // A control named by a <label for> takes its name from it; one without takes `name` (array items, the top level).
  const describe = joinIds(describedBy, invalid && `${idFor(formId, path)}-error`);
  const named = {
    ...(id ? { id } : { 'aria-label': name }),
    ...(describe ? { 'aria-describedby': describe } : {}),
    ...(required ? { 'aria-required': true } : {}),
    ...(invalid ? { 'aria-invalid': true } : {}),
    'data-path': path,
  };
  const alts = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alts) && alts.length && !schema.properties) {
    return <Alternatives schema={schema} alts={alts} value={value} onChange={onChange} path={path} depth={depth} name={name} {...(describe ? { describedBy: describe } : {})} />;
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum;
    const index = options.findIndex((o) => o === value);
    return (
      <select
        {...named}
        value={index < 0 ? '' : String(index)}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          onChange(v === '' ? undefined : options[Number(v)]);
        }}
      >
        <option value="">—</option>
        {options.map((o, i) => (
          <option value={String(i)}>{enumLabel(o, options)}</option>
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
              <FieldError path={`${path}/${i}`} id={`${idFor(formId, `${path}/${i}`)}-error`} />
            </div>
          ))}
          <button aria-label={`add ${name} item`} onClick={() => onChange([...list, initialValue(items, depth + 1) ?? emptyOf(items)])}>
            Add item
          </button>
        </div>
      );
    }
    default:
      return <span class="muted">any JSON: use the JSON editor</span>;
  }
}

/**
 * A oneOf/anyOf: a numbered choice of alternatives, and the chosen one's
 * sub-form. When the value matches none, the schema only says so at the
 * whole value; the chosen alternative's own verdict is shown beside its
 * fields, which is what there is to fix.
 */
function Alternatives({ schema, alts, value, onChange, path, depth, name, describedBy }: FieldProps & { alts: JSONSchema[] }) {
  const outer = useContext(Errors);
  const index = pickAlternative(alts, value);
  const chosen = alts[index] ?? {};
  let errors = outer;
  if (outer.has(path) && value !== undefined) {
    const own = validateJson(value, chosen);
    if (!own.valid) {
      const merged = new Map(outer);
      for (const [at, messages] of errorsByField(own.errors.filter((e) => !e.message.startsWith('schema error')))) {
        const key = path + at;
        if (key !== path) merged.set(key, [...(merged.get(key) ?? []), ...messages]);
      }
      errors = merged;
    }
  }
  const pick = (i: number) => {
    const alt = alts[i];
    if (alt) onChange(initialValue(alt, depth + 1) ?? emptyOf(alt));
  };
  return (
    <div class="alt">
      <select aria-label={`${name}: alternative`} title={schema.oneOf ? 'exactly one of these' : 'any of these'} data-path={path} value={String(index)} onChange={(e) => pick(Number((e.target as HTMLSelectElement).value))}>
        {alts.map((a, i) => (
          <option value={String(i)}>{alternativeLabel(a ?? {}, i)}</option>
        ))}
      </select>
      <Errors.Provider value={errors}>
        <Field schema={chosen} value={value} onChange={onChange} path={path} depth={depth + 1} name={name} {...(describedBy ? { describedBy } : {})} />
      </Errors.Provider>
    </div>
  );
}

function ObjectFields({ schema, value, onChange, path, depth }: FieldProps) {
  const formId = useContext(FormId);
  const errors = useContext(Errors);
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
        const at = `${path}/${escapePointer(k)}`;
        const id = idFor(formId, at);
        const hint = !Array.isArray(s.enum) ? `${id}-hint` : undefined;
        const annotation = hint && (
          <span class="muted hint" id={hint}>
            {required.has(k) ? 'required · ' : ''}
            {describeType(s)}
          </span>
        );
        const asterisk = required.has(k) && (
          <span class="req" title="required" aria-hidden="true">
            *
          </span>
        );
        const field = (
          <Field schema={s} value={obj[k]} path={at} depth={depth + 1} name={k} {...(isSingleControl(s) ? { id } : {})} {...(hint ? { describedBy: hint } : {})} required={required.has(k)} onChange={(v) => set(k, v)} />
        );
        if ('const' in s) {
          // A constant: named, shown, never edited.
          return (
            <div class="form-row" key={k}>
              <span class="form-label">
                <code id={`${id}-label`} title={s.description}>
                  {k}
                </code>
                {asterisk}
              </span>
              <div class="form-input">
                <code class="const" data-path={at}>
                  {enumLabel(s.const)}
                </code>
                <span class="muted hint">constant</span>
              </div>
            </div>
          );
        }
        if (isSingleControl(s)) {
          // One control: its <label> points at it; the hint and the error sit beside it.
          // The name is the property alone: "required" is said by the hint, so the asterisk stays outside the label.
          return (
            <div class="form-row" key={k}>
              <span class="form-label">
                <label for={id} id={`${id}-label`} title={s.description}>
                  <code>{k}</code>
                </label>
                {asterisk}
              </span>
              <div class="form-input">
                {field}
                {annotation}
                <FieldError path={at} id={`${id}-error`} />
              </div>
            </div>
          );
        }
        // Several controls (an object, a list, alternatives): a group named by the property, its annotation in its legend.
        const invalid = errors.has(at);
        return (
          <fieldset class="form-group" key={k} aria-labelledby={`${id}-label`} {...(hint || invalid ? { 'aria-describedby': joinIds(hint, invalid && `${id}-error`) } : {})} {...(invalid ? { 'aria-invalid': true } : {})}>
            <legend>
              <span id={`${id}-label`} title={s.description}>
                <code>{k}</code>
              </span>
              {asterisk} {annotation} <FieldError path={at} id={`${id}-error`} />
            </legend>
            {field}
          </fieldset>
        );
      })}
    </div>
  );
}

export function SchemaForm({ schema, value, onChange, errors = [] }: { schema: JSONSchema; value: Value; onChange: (v: Value) => void; errors?: ReadonlyArray<{ pointer: string; message: string }> }) {
  const formId = useId();
  const byField = errorsByField(errors);
  return (
    <FormId.Provider value={formId}>
      <Errors.Provider value={byField}>
        <div class="schema-form" role="group" aria-label="Params form">
          <FieldError path="" id={`${idFor(formId, '')}-error`} />
          <Field schema={schema} value={value} onChange={onChange} path="" depth={0} name="params" />
        </div>
      </Errors.Provider>
    </FormId.Provider>
  );
}
