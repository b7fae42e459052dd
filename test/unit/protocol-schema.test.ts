/**
 * validateJson: readable pointer + message errors, wrappers dropped, never throws.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageAnything, pageJson, pageObject } from '../support/page-data.ts';
import { checkSchema, validateJson, type SchemaError } from '../../src/protocol/index.ts';

function errs(value: unknown, schema: unknown): Array<[string, string]> {
  const r = validateJson(value, schema);
  assert.equal(r.valid, r.errors.length === 0);
  return r.errors.map((e: SchemaError) => [e.pointer, e.message]);
}

const input = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    template: { type: 'string', enum: ['blank', 'notes'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2, uniqueItems: true },
    range: {
      type: 'object',
      properties: { start: { type: 'string', format: 'date-time' } },
      required: ['start'],
      additionalProperties: false,
    },
    either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['title'],
  additionalProperties: false,
};

describe('validateJson', () => {
  it('valid values have no errors', () => {
    assert.deepEqual(validateJson({ title: 'abc', count: 3, tags: ['a'], range: { start: '2024-01-01T00:00:00Z' }, either: 2 }, input), { valid: true, errors: [] });
    assert.deepEqual(validateJson('anything', true), { valid: true, errors: [] });
    assert.deepEqual(validateJson({}, {}), { valid: true, errors: [] });
  });
  it('points at each failing value with a readable message', () => {
    const e = errs(
      { count: 0.5, template: 'x', tags: ['a', 'a', 3], range: { end: 1 }, either: true, 'extra/key': 1 },
      input,
    );
    const expect: Array<[string, RegExp]> = [
      ['', /^missing required property "title"$/],
      ['/count', /^expected integer, got number$/],
      ['/count', /^must be >= 1$/],
      ['/template', /^must be one of \["blank","notes"\]$/],
      ['/tags', /^must have at most 2 items \(has 3\)$/],
      ['/tags', /^items 0 and 1 are equal \(uniqueItems\)$/],
      ['/tags/2', /^expected string, got number$/],
      ['/range', /^missing required property "start"$/],
      ['/range/end', /^property "end" is not allowed$/],
      ['/either', /^matches none of the "anyOf" alternatives$/],
      ['/extra~1key', /^property "extra\/key" is not allowed$/],
    ];
    for (const [pointer, message] of expect) {
      assert.ok(e.some(([p, m]) => p === pointer && message.test(m)), `${pointer} ${message} not in ${JSON.stringify(e)}`);
    }
    assert.equal(e.length, expect.length, JSON.stringify(e, null, 1));
    // no wrapper noise
    assert.ok(!e.some(([, m]) => /does not match schema|subschema had errors|Items did not match/.test(m)));
  });
  it('string rules: length, pattern; format is an annotation (2020-12), never a verdict', () => {
    assert.deepEqual(errs({ title: '' }, input), [
      ['/title', 'must be at least 1 characters long (is 0)'],
      ['/title', 'does not match the pattern "^[a-z]+$"'],
    ]);
    assert.deepEqual(errs({ title: 'abcdef' }, input), [['/title', 'must be at most 5 characters long (is 6)']]);
    // Another validator may accept what cfworker's format check refuses: a conformant value must never be a finding.
    assert.deepEqual(errs({ title: 'a', range: { start: 'yesterday' } }, input), []);
    assert.deepEqual(errs('not an email', { type: 'string', format: 'email' }), []);
    assert.deepEqual(errs(3, { type: 'string', format: 'email' }), [['', 'expected string, got number']]);
  });
  it('$ref into $defs, and the top level', () => {
    const s = { $defs: { n: { type: 'number', exclusiveMaximum: 5 } }, type: 'object', properties: { a: { $ref: '#/$defs/n' } } };
    assert.deepEqual(errs({ a: 'x' }, s), [['/a', 'expected number, got string']]);
    assert.deepEqual(errs({ a: 5 }, s), [['/a', 'must be < 5']]);
    assert.deepEqual(errs(3, { type: ['string', 'null'] }), [['', 'expected string or null, got number']]);
    assert.deepEqual(errs(1, false), [['', 'no value is allowed here (the schema is false)']]);
    assert.deepEqual(errs('b', { const: 'a' }), [['', 'must be "a"']]);
    assert.deepEqual(errs(2, { oneOf: [{ type: 'number' }, { type: 'integer' }] }), [['', 'must match exactly one "oneOf" alternative (matches 2)']]);
    assert.deepEqual(errs([1], { type: 'array', items: [{ type: 'string' }] }), [['/0', 'expected string, got number']]);
  });
  it('honours $schema draft-07', () => {
    // draft 7: siblings of $ref are ignored
    const s = { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { s: { type: 'string' } }, $ref: '#/definitions/s', minLength: 3 };
    assert.deepEqual(validateJson('ab', s), { valid: true, errors: [] });
    const { $schema: _, ...s2020 } = s;
    assert.equal(validateJson('ab', s2020).valid, false);
  });
  it('caches per schema object and does not modify the schema', () => {
    const s = { type: 'object', properties: { a: { type: 'string' } } };
    const before = JSON.stringify(s);
    validateJson({ a: 1 }, s);
    validateJson({ a: 1 }, s);
    assert.equal(JSON.stringify(s), before);
    assert.deepEqual(Object.getOwnPropertyNames(s), ['type', 'properties']);
    const frozen = Object.freeze({ type: 'string' });
    assert.deepEqual(errs(1, frozen), [['', 'expected string, got number']]);
  });
  it('a malformed schema never throws: "schema error: ..." at pointer ""', () => {
    const bad: unknown[] = [
      { type: 'string', pattern: '(' },
      { patternProperties: { '[': {} } },
      { $ref: '#/nowhere' },
      { $ref: 'https://example.com/other.json' },
      null,
      42,
      'string',
      [],
      { $id: 'a', properties: { x: { $id: 'a' } } },
    ];
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    bad.push(cyclic);
    bad.push({ properties: { x: { type: 'x' } } }); // an unknown type name: cfworker treats it as a mismatch
    for (const s of bad) {
      let r: ReturnType<typeof validateJson> | undefined;
      assert.doesNotThrow(() => (r = validateJson('x', s)));
      assert.ok(r);
      if (!r.valid) assert.ok(r.errors.length > 0);
    }
    assert.deepEqual(errs('x', { type: 'string', pattern: '(' }).map(([p, m]) => [p, m.startsWith('schema error: invalid pattern at /pattern')]), [['', true]]);
    assert.match(errs(1, { $ref: '#/nowhere' })[0]![1], /^schema error: Unresolved \$ref "#\/nowhere"\.$/);
    assert.match(errs(1, null)[0]![1], /^schema error: a schema must be an object or a boolean/);
    assert.match(errs(1, cyclic)[0]![1], /^schema error:/);
    assert.equal(checkSchema({ type: 'string' }), null);
    assert.match(checkSchema({ pattern: '[' }) ?? '', /invalid pattern/);
  });
  it('values that are not JSON do not throw', () => {
    assert.deepEqual(errs(undefined, { type: 'string' }), [['', 'no value (undefined is not JSON)']]);
    assert.match(errs({ f: () => 1 }, { properties: { f: { type: 'string' } } })[0]![1], /not JSON/);
    assert.doesNotThrow(() => validateJson(10n, { type: 'integer' }));
  });
  it('fast-check: never throws, whatever the value and schema', () => {
    const schemaArb = fc.oneof(
      pageJson({ maxDepth: 4 }),
      fc.record({ type: fc.constantFrom('string', 'number', 'object', 'array', 'bogus'), pattern: fc.string(), minimum: pageAnything(), properties: pageObject({ maxDepth: 2 }) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(pageJson({ maxDepth: 4 }), schemaArb, (value, schema) => {
        const r = validateJson(value, schema);
        assert.equal(typeof r.valid, 'boolean');
        assert.ok(Array.isArray(r.errors));
        for (const e of r.errors) {
          assert.equal(typeof e.pointer, 'string');
          assert.equal(typeof e.message, 'string');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('page-supplied patterns run in linear time', () => {
  // A backtracking engine takes about 2^30 steps here: the test would not end.
  it('a catastrophic pattern gives its verdict at once', { timeout: 20_000 }, () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(x+x+)+y$': { type: 'string' } } };
    assert.deepEqual(errs({ s: 'a'.repeat(30) + '!' }, schema), [['/s', 'does not match the pattern "^(a+)+$"']]);
    assert.deepEqual(errs({ s: 'a'.repeat(5000) }, schema), []);
    assert.deepEqual(errs({ [`${'x'.repeat(40)}`]: 1 }, schema), []);
    assert.deepEqual(errs({ [`${'x'.repeat(40)}y`]: 1 }, schema), [['/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy', 'expected string, got number']]);
  });

  it('a pattern only a backtracking engine can run is refused as a schema error, never run', () => {
    for (const pattern of ['^(?=a)(a+)+$', '^(a)\\1$', '(?<!x)y']) {
      const r = validateJson('a', { type: 'string', pattern });
      assert.equal(r.valid, false);
      assert.match(r.errors[0]!.message, /^schema error: invalid pattern at \/pattern: .* cannot run in linear time/);
    }
  });

  it('leaves the global RegExp as it was, whatever happens inside', () => {
    const before = RegExp;
    validateJson({ s: 'x' }, { properties: { s: { pattern: 'x' } } });
    validateJson(10n, { type: 'integer', pattern: 'x' });
    assert.equal(RegExp, before);
    assert.ok(/a/ instanceof RegExp);
  });

  it('agrees with the JS engine on patterns both can run (fast-check)', () => {
    const atom = fc.oneof(fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', 'é', '😀', '\\.'), fc.constant('c'));
    const pattern = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small', maxDepth: 3 },
        atom,
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => x + y),
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => `(?:${x}|${y})`),
        fc.tuple(tie('re'), fc.constantFrom('*', '+', '?', '{1,3}', '{2}', '*?')).map(([x, q]) => `(?:${x})${q}`),
        tie('re').map((x) => `^${x}`),
        tie('re').map((x) => `${x}$`),
      ),
    })).re;
    const input = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', ' ', '.', 'é', '😀', '\n'), maxLength: 12 });
    fc.assert(
      fc.property(pattern, input, (p, s) => {
        const native = new RegExp(p, 'u').test(s);
        assert.equal(validateJson(s, { pattern: p }).valid, native, `${p} on ${JSON.stringify(s)}`);
      }),
      { numRuns: 1000 },
    );
  });
});
