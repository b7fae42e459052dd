/**
 * The generator's application: pages of surfaces (ids, actions, observations
 * per §3–§5 and the 0.6.0 types), valid params for an input schema, values
 * for an observation schema, and what makes a request need approval.
 */
import type { Rng } from './rng.ts';
import type { Obj } from './model.ts';

const SLUG = '^[a-z0-9-]{3,20}$';

interface ActionSpec {
  id: string;
  effect?: string;
  confirm?: boolean;
  async?: boolean;
  input: Obj;
  output?: Obj;
  /** Using it moves the page (§7.3.4 navigation case). */
  navigates?: string;
}
interface ObsSpec {
  id: string;
  schema: Obj;
  updateFrequency?: 'realtime' | 'on-change' | 'polling';
}
interface SurfaceSpec {
  id: string;
  name: string;
  description: string;
  actions: ActionSpec[];
  observations: ObsSpec[];
  routes?: string[];
}

const str = (description: string, extra: Obj = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, minimum: number, maximum: number) => ({ type: 'integer', description, minimum, maximum });
const OK_OUT = { type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'string' } }, required: ['ok'] };

const SPECS: SurfaceSpec[] = [
  {
    id: 'nav-bar',
    name: 'Navigation',
    description: 'Moves between the pages of the shop — « navigation » ✓',
    actions: [
      { id: 'go_to', effect: 'navigate', input: { type: 'object', properties: { page: str('Page to open', { enum: ['shop', 'docs', 'orders', 'settings'] }) }, required: ['page'], additionalProperties: false }, navigates: 'param' },
      { id: 'open_help', effect: 'open', input: { type: 'object', properties: { topic: str('Help topic', { minLength: 1, maxLength: 40 }) } } },
    ],
    observations: [{ id: 'current_page', schema: { type: 'string', enum: ['shop', 'docs', 'orders', 'settings'] }, updateFrequency: 'on-change' }],
  },
  {
    id: 'cart',
    name: 'Café — panier',
    description: 'The shopping cart: add, remove and order items. Prix en €.',
    routes: ['/shop', '/shop/**'],
    actions: [
      { id: 'add_item', effect: 'edit', input: { type: 'object', properties: { sku: str('Item SKU', { pattern: SLUG }), qty: int('Quantity', 1, 99) }, required: ['sku', 'qty'], additionalProperties: false }, output: OK_OUT },
      { id: 'remove_item', effect: 'mutate', confirm: true, input: { type: 'object', properties: { sku: str('Item SKU', { pattern: SLUG }) }, required: ['sku'] } },
      { id: 'place_order', effect: 'transaction', input: { type: 'object', properties: { note: str('Note for the order', { maxLength: 60 }), express: { type: 'boolean', description: 'Express delivery' } }, required: [] }, navigates: 'orders' },
      { id: 'list_items', effect: 'view', input: { type: 'object', properties: {} } },
    ],
    observations: [
      { id: 'item_count', schema: { type: 'integer', minimum: 0 }, updateFrequency: 'on-change' },
      { id: 'total', schema: { type: 'number', minimum: 0 }, updateFrequency: 'polling' },
    ],
  },
  {
    id: 'checkout-form',
    name: 'Checkout',
    description: 'Delivery and payment form.',
    actions: [
      { id: 'fill_address', effect: 'edit', input: { type: 'object', properties: { street: str('Street', { minLength: 1 }), zip: str('Postcode', { pattern: SLUG }) }, required: ['street'] } },
      { id: 'pay_now', effect: 'transaction', async: true, input: { type: 'object', properties: { amount: { type: 'number', description: 'Amount in €', minimum: 0.5, maximum: 5000 } }, required: ['amount'] } },
    ],
    observations: [{ id: 'form_valid', schema: { type: 'boolean' } }],
  },
  {
    id: 'doc-editor',
    name: 'Éditeur de documents',
    description: 'Edits one document: title, text, export. 文档编辑器.',
    actions: [
      { id: 'set_title', effect: 'edit', input: { type: 'object', properties: { title: str('Document title', { minLength: 1, maxLength: 80 }) }, required: ['title'] }, output: OK_OUT },
      { id: 'delete_document', confirm: true, input: { type: 'object', properties: { id: str('Document id', { pattern: SLUG }) }, required: ['id'] } },
      { id: 'export_pdf', effect: 'file', async: true, input: { type: 'object', properties: { pages: { type: 'array', description: 'Pages', items: { type: 'integer', minimum: 1, maximum: 500 }, maxItems: 5 } } } },
      { id: 'select_text', effect: 'selection', confirm: true, input: { type: 'object', properties: { from: int('Start', 0, 1000), to: int('End', 0, 1000) }, required: ['from', 'to'] } },
    ],
    observations: [
      { id: 'word_count', schema: { type: 'integer', minimum: 0 }, updateFrequency: 'on-change' },
      { id: 'cursor', schema: { type: 'object', properties: { line: { type: 'integer', minimum: 0 }, column: { type: 'integer', minimum: 0 } }, required: ['line', 'column'] }, updateFrequency: 'realtime' },
    ],
  },
  {
    id: 'order-list',
    name: 'Orders',
    description: 'Lists past orders and refunds them.',
    actions: [
      { id: 'search_orders', effect: 'view', input: { type: 'object', properties: { query: str('Search text', { maxLength: 50 }), limit: int('Max rows', 1, 100) } } },
      { id: 'refund_order', effect: 'transaction', input: { type: 'object', properties: { order_id: str('Order', { pattern: SLUG }), amount: { type: 'number', description: 'Refund in €', minimum: 0, maximum: 1000 } }, required: ['order_id', 'amount'] }, output: OK_OUT },
    ],
    observations: [{ id: 'selected_order', schema: { type: 'string' }, updateFrequency: 'on-change' }],
  },
  {
    id: 'settings-panel',
    name: 'Settings',
    description: 'Theme, language and maintenance jobs.',
    actions: [
      { id: 'set_theme', effect: 'edit', input: { type: 'object', properties: { theme: str('Theme', { enum: ['light', 'dark', 'system'] }) }, required: ['theme'] } },
      { id: 'reindex', effect: 'job', async: true, input: { type: 'object', properties: { full: { type: 'boolean', description: 'Full reindex' } } } },
    ],
    observations: [{ id: 'theme', schema: { type: 'string', enum: ['light', 'dark', 'system'] }, updateFrequency: 'polling' }],
  },
];

export const PAGES: Record<string, string[]> = {
  shop: ['nav-bar', 'cart', 'checkout-form'],
  docs: ['nav-bar', 'doc-editor'],
  orders: ['nav-bar', 'order-list'],
  settings: ['nav-bar', 'settings-panel'],
};
export const PAGE_NAMES = Object.keys(PAGES);

export function specOf(id: string): SurfaceSpec {
  const s = SPECS.find((x) => x.id === id);
  if (!s) throw new Error(`no surface ${id}`);
  return s;
}

/** The manifest of a surface at a version (hot reloads bump it and change the description). */
export function manifest(id: string, version: number): Obj {
  const s = specOf(id);
  const m: Obj = {
    id: s.id,
    name: s.name,
    description: version > 0 ? `${s.description} (rev ${version})` : s.description,
    version: `1.0.${version}`,
    actions: s.actions.map((a) => {
      const o: Obj = { id: a.id, description: `${a.id.replace(/_/g, ' ')} on ${s.name}` };
      if (a.effect) o.effect = a.effect;
      o.input = structuredClone(a.input);
      if (a.output) o.output = structuredClone(a.output);
      if (a.confirm) o.confirm = true;
      if (a.async) o.async = true;
      return o;
    }),
  };
  if (s.observations.length) {
    m.observations = s.observations.map((o) => {
      const x: Obj = { id: o.id, description: `${o.id.replace(/_/g, ' ')} of ${s.name}`, schema: structuredClone(o.schema) };
      if (o.updateFrequency) x.updateFrequency = o.updateFrequency;
      return x;
    });
  }
  if (s.routes) m.activation = { routes: s.routes };
  return m;
}

export function actionSpec(surfaceId: string, actionId: string): ActionSpec {
  const a = specOf(surfaceId).actions.find((x) => x.id === actionId);
  if (!a) throw new Error(`no action ${surfaceId}.${actionId}`);
  return a;
}

const READ = new Set(['view', 'selection', 'navigate', 'open']);
/** requiresApproval(effect, destructive) of the 0.6.0 types: a transaction always, a write declared destructive. */
export function requiresApproval(effect: string | undefined, confirm: boolean | undefined): boolean {
  if (effect === 'transaction') return true;
  const write = effect === undefined || !READ.has(effect);
  return write && confirm === true;
}

// ── values ──────────────────────────────────────────────────────────────────

function slug(rng: Rng): string {
  const al = 'abcdefghijklmnopqrstuvwxyz0123456789-';
  return Array.from({ length: rng.int(3, 12) }, () => al[rng.int(0, al.length - 1)]).join('');
}

/** A value conforming to one of the schemas used above. */
export function valueFor(rng: Rng, schema: Obj): unknown {
  if (schema.enum) return rng.pick(schema.enum as unknown[]);
  switch (schema.type) {
    case 'object': {
      const out: Obj = {};
      const req = new Set<string>(schema.required ?? []);
      for (const [k, sub] of Object.entries((schema.properties ?? {}) as Record<string, Obj>)) {
        if (req.has(k) || rng.chance(0.6)) out[k] = valueFor(rng, sub);
      }
      return out;
    }
    case 'string': {
      if (schema.pattern === SLUG) return slug(rng);
      const words = ['alpha', 'Crème brûlée', 'note', '東京', 'x', 'order #12', 'ünïcode ✓'];
      let s = rng.pick(words);
      if (schema.minLength && s.length < schema.minLength) s = s.padEnd(schema.minLength, 'z');
      if (schema.maxLength && s.length > schema.maxLength) s = s.slice(0, schema.maxLength);
      return s;
    }
    case 'integer':
      return rng.int(schema.minimum ?? 0, schema.maximum ?? 1000);
    case 'number':
      return Math.round(rng.range(schema.minimum ?? 0, schema.maximum ?? 1000) * 100) / 100;
    case 'boolean':
      return rng.chance(0.5);
    case 'array': {
      const n = rng.int(0, schema.maxItems ?? 3);
      return Array.from({ length: n }, () => valueFor(rng, schema.items ?? { type: 'string' }));
    }
  }
  return null;
}

/** Params that do NOT conform to the input: a required property of the wrong type, or missing. Null if none can be made. */
export function invalidParams(rng: Rng, input: Obj, valid: Obj): Obj | null {
  const props = Object.entries((input.properties ?? {}) as Record<string, Obj>);
  if (!props.length) return input.additionalProperties === false ? { ...valid, bogus: 1 } : null;
  const req: string[] = input.required ?? [];
  if (req.length && rng.chance(0.5)) {
    const out = { ...valid };
    delete out[rng.pick(req)];
    return out;
  }
  const [k, s] = rng.pick(props);
  const wrong = s.type === 'string' ? 12345 : s.type === 'boolean' ? 'yes' : s.type === 'array' ? 'not-an-array' : 'not-a-number';
  return { ...valid, [k]: wrong };
}
