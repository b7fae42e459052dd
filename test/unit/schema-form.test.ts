/**
 * The Inject form's pure part (panel/components/schema-form.tsx): the value a
 * fresh form starts from (defaults, consts, required members, arrays,
 * oneOf/anyOf), which alternative a value fits, how alternatives and enum
 * options are named, and where each validation error is shown.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchema } from '../../src/protocol/index.ts';
import { validateJson } from '../../src/protocol/index.ts';
import { alternativeLabel, emptyOf, enumLabel, errorsByField, initialValue, pickAlternative } from '../../panel/components/schema-form.tsx';

/** The demo's payment: a card or an invoice, told apart by a const. */
const payment: JSONSchema = {
  description: 'A card on file (last four digits) or an invoice',
  oneOf: [
    { type: 'object', properties: { type: { const: 'card' }, last4: { type: 'string', pattern: '^[0-9]{4}$' } }, required: ['type', 'last4'] },
    { type: 'object', properties: { type: { const: 'invoice' }, poNumber: { type: 'string', minLength: 3 } }, required: ['type'] },
  ],
};
/** The demo's export range: a named range or explicit dates. */
const range: JSONSchema = {
  anyOf: [
    { type: 'string', enum: ['all', 'last_30_days'] },
    { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'] },
  ],
};

describe('initialValue: what a fresh form starts from', () => {
  it('defaults and consts as given, required members filled, optional ones left out', () => {
    const s: JSONSchema = {
      type: 'object',
      properties: {
        productId: { type: 'string', enum: ['mug-classic', 'mug-travel'] },
        quantity: { type: 'integer', minimum: 1, default: 1 },
        name: { type: 'string' },
        count: { type: 'integer', minimum: 3 },
        gift: { type: 'boolean' },
        kind: { const: 'order' },
        note: { type: 'string' },
      },
      required: ['productId', 'name', 'count', 'gift', 'kind'],
    };
    assert.deepEqual(initialValue(s), { productId: 'mug-classic', quantity: 1, name: '', count: 3, gift: false, kind: 'order' });
  });

  it('arrays start empty (or at their default); nested required objects are built', () => {
    assert.deepEqual(initialValue({ type: 'array', items: { type: 'string' } }), []);
    assert.deepEqual(initialValue({ type: 'array', items: { type: 'string' }, default: ['x'] }), ['x']);
    const s: JSONSchema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, required: ['tags', 'address'] };
    assert.deepEqual(initialValue(s), { tags: [], address: { city: '' } });
  });

  it('oneOf/anyOf start from the first alternative, or the default', () => {
    assert.deepEqual(initialValue(payment), { type: 'card', last4: '' });
    assert.equal(initialValue({ ...range, default: 'all' }), 'all');
    const order: JSONSchema = { type: 'object', properties: { payment, range }, required: ['payment', 'range'] };
    assert.deepEqual(initialValue(order), { payment: { type: 'card', last4: '' }, range: 'all' });
    assert.deepEqual(emptyOf(range), 'all');
  });
});

describe('pickAlternative: which alternative a value fits', () => {
  it('by its consts and required keys', () => {
    assert.equal(pickAlternative(payment.oneOf!, { type: 'card', last4: '4242' }), 0);
    assert.equal(pickAlternative(payment.oneOf!, { type: 'invoice' }), 1);
    assert.equal(pickAlternative(payment.oneOf!, { type: 'invoice', poNumber: 'PO-1' }), 1);
  });

  it('by its type first: an object is not the string alternative, a number not the string', () => {
    assert.equal(pickAlternative(range.anyOf!, 'last_30_days'), 0);
    assert.equal(pickAlternative(range.anyOf!, { from: '2026-01-01', to: '2026-02-01' }), 1);
    assert.equal(pickAlternative(range.anyOf!, { from: '2026-01-01' }), 1, 'an object missing a key still edits as the object');
    const style = [{ type: 'string', enum: ['short', 'detailed'] }, { type: 'integer', minimum: 1 }] as JSONSchema[];
    assert.equal(pickAlternative(style, 'detailed'), 0);
    assert.equal(pickAlternative(style, 2), 1);
    assert.equal(pickAlternative(style, undefined), 0);
    assert.equal(pickAlternative(style, null), 0, 'nothing fits: the first');
  });
});

describe('how choices are named', () => {
  it('alternatives are numbered, with their title, consts and required keys', () => {
    assert.equal(alternativeLabel(payment.oneOf![0]!, 0), '1. type = card · requires type, last4');
    assert.equal(alternativeLabel(payment.oneOf![1]!, 1), '2. type = invoice · requires type');
    assert.equal(alternativeLabel({ title: 'By dates', type: 'object', required: ['from', 'to'] } as JSONSchema, 1), '2. By dates · requires from, to');
    assert.match(alternativeLabel(range.anyOf![0]!, 0), /^1\. .*all/);
  });

  it('enum options show strings as themselves, anything else (and what would read the same) as JSON', () => {
    assert.equal(enumLabel('mug-classic'), 'mug-classic');
    assert.equal(enumLabel(3), '3');
    assert.equal(enumLabel(true), 'true');
    assert.equal(enumLabel(''), '""');
    assert.equal(enumLabel('1', ['1', 1]), '"1"');
    assert.equal(enumLabel('one', ['one', 1]), 'one');
  });
});

describe('errorsByField: each error beside the field it concerns', () => {
  const schema: JSONSchema = {
    type: 'object',
    properties: { productId: { type: 'string', enum: ['mug-classic'] }, quantity: { type: 'integer', maximum: 10 }, 'a/b': { type: 'string' } },
    required: ['productId', 'a/b'],
  };

  it("a value's error at its pointer, a missing member at the member's own", () => {
    const v = validateJson({ quantity: 99 }, schema);
    assert.equal(v.valid, false);
    const byField = errorsByField(v.errors);
    assert.ok(byField.get('/quantity')?.some((m) => /10/.test(m)), JSON.stringify([...byField]));
    assert.ok(byField.has('/productId'), JSON.stringify([...byField]));
    assert.ok(byField.has('/a~1b'), 'pointer-escaped');
    assert.equal(byField.has(''), false, 'nothing left for the form as a whole');
  });

  it('an error of the whole value stays at the top', () => {
    assert.deepEqual([...errorsByField([{ pointer: '', message: 'must be object' }])], [['', ['must be object']]]);
  });
});
