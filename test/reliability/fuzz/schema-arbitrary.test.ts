import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../../src/contract/compiled-contract.js';
import { addContractFormats } from '../../../src/contract/formats.js';
import { createValidators } from '../../../src/contract/validators.js';
import { codePointLength, localResolver, schemaArbitrary, stableJson } from './schema-arbitrary.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
addContractFormats(ajv);

const defs = {
  $defs: {
    Money: { type: 'object', additionalProperties: false, required: ['amount', 'currency'], properties: { amount: { type: 'number', minimum: 0, exclusiveMaximum: 1e6 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } },
  },
};
const resolve = localResolver(defs);

/** Every keyword the translator claims to cover, each in a schema of its own and in combination. */
const SCHEMAS: Record<string, Record<string, any>> = {
  const: { const: 'FIXED' },
  enum: { enum: ['A', 'B', 3, null] },
  uuid: { type: 'string', format: 'uuid' },
  dateTime: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
  email: { type: 'string', format: 'email', maxLength: 254 },
  uri: { type: 'string', format: 'uri', maxLength: 2048 },
  uriReference: { type: 'string', format: 'uri-reference' },
  webhookUrl: { type: 'string', format: 'webhook-url', maxLength: 2048 },
  regex: { type: 'string', format: 'regex' },
  lengths: { type: 'string', minLength: 3, maxLength: 5 },
  unicodeLengths: { type: 'string', minLength: 1, maxLength: 2 },
  patternCountry: { type: 'string', pattern: '^[A-Z]{2}$' },
  patternPhone: { type: 'string', pattern: '^\\+?[0-9 ()-]{5,20}$' },
  patternEnumLike: { type: 'string', pattern: '^[A-Z0-9]+(_[A-Z0-9]+)*$', maxLength: 10 },
  patternWithFormat: { type: 'string', format: 'uri', pattern: '^https?://' },
  integerRange: { type: 'integer', minimum: 1, maximum: 1000 },
  integerExclusive: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 5 },
  int32: { type: 'integer', format: 'int32' },
  multipleOf: { type: 'integer', minimum: 0, maximum: 100, multipleOf: 5 },
  number: { type: 'number', exclusiveMinimum: 0, maximum: 70 },
  unboundedNumber: { type: 'number' },
  nullable: { type: ['string', 'null'], maxLength: 3 },
  array: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 4 },
  uniqueItems: { type: 'array', items: { enum: ['X', 'Y', 'Z'] }, uniqueItems: true, minItems: 1 },
  uniqueObjects: { type: 'array', items: { type: 'object', properties: { a: { type: 'boolean' } } }, uniqueItems: true, maxItems: 3 },
  prefixItems: { type: 'array', prefixItems: [{ const: 1 }, { type: 'string' }], items: { type: 'boolean' }, minItems: 2, maxItems: 4 },
  closedObject: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'tags'],
    properties: { id: { type: 'string', format: 'uuid' }, tags: { type: 'array', items: { type: 'string', maxLength: 4 }, maxItems: 2 }, note: { type: 'string' } },
  },
  mapObject: { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9-]{1,64}$' }, additionalProperties: { type: 'string', maxLength: 1024 }, maxProperties: 3 },
  mapByLength: { type: 'object', propertyNames: { type: 'string', minLength: 1, maxLength: 64 }, additionalProperties: { type: 'integer' }, minProperties: 1 },
  dependentRequired: {
    type: 'object',
    additionalProperties: false,
    properties: { maxValue: { type: 'number', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' }, postalCode: { type: 'string' }, countryCode: { type: 'string' } },
    dependentRequired: { maxValue: ['currency'], postalCode: ['countryCode'] },
  },
  maxProperties: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' } }, required: ['a'], maxProperties: 2 },
  ref: { $ref: '#/$defs/Money' },
  refWithSibling: { $ref: '#/$defs/Money', description: 'annotation beside a $ref' },
  allOf: { allOf: [{ $ref: '#/$defs/Money' }, { properties: { amount: { maximum: 10 } } }] },
  anyOf: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'integer', minimum: 100 }] },
  oneOf: { oneOf: [{ type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: { const: 'A' } } }, { type: 'array', maxItems: 1 }] },
  untyped: { minimum: 3, maximum: 4 },
  anything: {},
};

describe('schema → arbitrary', () => {
  it.each(Object.entries(SCHEMAS))('%s: every generated value validates', (_name, schema) => {
    const validate = ajv.compile({ ...defs, ...schema });
    // Sampling, not fc.assert: a failure prints the value at once instead of shrinking through filters.
    for (const value of fc.sample(schemaArbitrary(schema, { resolve }), { numRuns: 150, seed: 42 })) {
      expect(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('explores: optional properties both present and absent, enums all drawn, lengths at both ends', () => {
    const objects = fc.sample(schemaArbitrary(SCHEMAS.closedObject), { numRuns: 200, seed: 7 }) as Record<string, unknown>[];
    expect(objects.some((o) => 'note' in o)).toBe(true);
    expect(objects.some((o) => !('note' in o))).toBe(true);
    const enums = new Set(fc.sample(schemaArbitrary(SCHEMAS.enum), { numRuns: 200, seed: 7 }).map((v) => JSON.stringify(v)));
    expect(enums.size).toBe(4);
    const lengths = new Set((fc.sample(schemaArbitrary(SCHEMAS.lengths), { numRuns: 300, seed: 7 }) as string[]).map(codePointLength));
    expect([...lengths].sort()).toEqual([3, 4, 5]);
    const dependents = fc.sample(schemaArbitrary(SCHEMAS.dependentRequired), { numRuns: 200, seed: 7 }) as Record<string, unknown>[];
    expect(dependents.some((o) => 'maxValue' in o)).toBe(true);
  });

  it('refuses what it does not understand instead of guessing', () => {
    expect(() => schemaArbitrary({ type: 'string', format: 'ipv6' })).toThrow(/format "ipv6"/);
    expect(() => schemaArbitrary({ type: 'object', patternProperties: { '^x': {} } })).toThrow(/unsupported keyword "patternProperties"/);
    expect(() => schemaArbitrary({ $ref: '#/nowhere' }, { resolve })).toThrow(/dangling/);
  });

  it('lets the caller override a subschema by property name (ids drawn from a pool)', () => {
    const schema = { type: 'object', required: ['parcelId'], properties: { parcelId: { type: 'string', format: 'uuid' } } };
    const arb = schemaArbitrary(schema, { override: (_s, ctx) => (ctx.key === 'parcelId' ? fc.constant('from-pool') : undefined) });
    expect(fc.sample(arb, { numRuns: 5, seed: 1 })).toEqual(Array(5).fill({ parcelId: 'from-pool' }));
  });

  it('stableJson: equal values, equal text, whatever the key order', () => {
    expect(stableJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe(stableJson({ a: [{ x: 1, y: 2 }], b: 1 }));
  });
});

describe('schema → arbitrary on the contract', () => {
  const { contract, schemas } = loadCompiledContract();
  const validators = createValidators(contract, schemas);
  const contractResolve = localResolver(contract.document);
  const withBody = contract.operations.filter((op) => op.requestBody?.schemaPointer);

  it.each(withBody.map((op) => [op.operationId, op] as const))('%s: generated bodies pass the mock’s own body validator', (_id, op) => {
    const arb = schemaArbitrary({ $ref: op.requestBody!.schemaPointer! }, { resolve: contractResolve });
    const check = validators.forOperation(op.operationId).body!;
    for (const body of fc.sample(arb, { numRuns: 40, seed: 3 })) expect(check(body), JSON.stringify(body)).toEqual([]);
  });

  it('generated parameters pass the mock’s own parameter validators, for every operation', () => {
    for (const op of contract.operations) {
      const arb = fc.record(
        Object.fromEntries(
          (['path', 'query', 'header'] as const).map((where) => [
            where,
            fc.record(Object.fromEntries(op.parameters.filter((p) => p.in === where).map((p) => [p.name, schemaArbitrary(p.schema, { resolve: contractResolve })])), {
              requiredKeys: op.parameters.filter((p) => p.in === where && p.required).map((p) => p.name),
            }),
          ]),
        ),
      ) as fc.Arbitrary<{ path: Record<string, unknown>; query: Record<string, unknown>; headers?: Record<string, unknown>; header: Record<string, unknown> }>;
      for (const params of fc.sample(arb, { numRuns: 20, seed: 5 })) {
        const violations = validators.forOperation(op.operationId).parameters({ path: params.path, query: params.query, headers: params.header });
        expect(violations, `${op.operationId} ${JSON.stringify(params)}`).toEqual([]);
      }
    }
  });
});
