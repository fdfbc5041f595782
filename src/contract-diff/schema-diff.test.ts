import { describe, expect, it } from 'vitest';
import { diffContracts } from './diff.js';
import { exampleDocument } from './example-documents.js';
import type { ExampleSite } from './rules.js';

/** The rules (with classes) a change at one site of the example contract triggers. */
const found = (site: ExampleSite, before: unknown, after: unknown) =>
  diffContracts(exampleDocument(site, before), exampleDocument(site, after)).changes.map((c) => `${c.rule} ${c.class}${c.schemaPath ? ` ${c.schemaPath}` : ''}`);

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const str = { type: 'string' };

describe('schema comparison by direction', () => {
  it('reads a new null alternative as may-now-be-null: may-break for readers, safe for writers', () => {
    const before = obj({ a: { $ref: '#/components/schemas/X' } });
    const after = obj({ a: { oneOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }] } });
    const withX = (site: ExampleSite, fragment: unknown) => ({ ...exampleDocument(site, fragment), components: { schemas: { X: obj({ id: str }) } } });
    const response = diffContracts(withX('response-body', before), withX('response-body', after)).changes;
    expect(response.map((c) => [c.rule, c.reason, c.schemaPath])).toEqual([['response-variant-added', 'may now be null (new null alternative)', 'a.oneOf[null]']]);
    const request = diffContracts(withX('request-body', before), withX('request-body', after)).changes;
    expect(request.map((c) => c.rule)).toEqual(['request-variant-added']);
  });

  it('sees anyOf of types and a type array as the same schema, and still a dropped null alternative', () => {
    const union = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    const array = { type: ['string', 'integer'] };
    // (One alternative matched to the whole type array may leave a safe note; nothing that breaks or may.)
    const risky = (changes: string[]) => changes.filter((c) => !c.includes(' safe'));
    for (const site of ['request-body', 'response-body'] as const) {
      expect(risky(found(site, obj({ v: union }), obj({ v: array })))).toEqual([]);
      expect(risky(found(site, obj({ v: array }), obj({ v: union })))).toEqual([]);
    }
    expect(found('request-body', obj({ v: { oneOf: [{ type: 'string' }, { type: 'null' }] } }), obj({ v: str }))).toEqual(['request-variant-removed breaking v.oneOf[null]']);
  });

  it('treats OpenAPI 3.0 nullable like a null type', () => {
    expect(found('response-body', obj({ a: str }), obj({ a: { type: 'string', nullable: true } }))).toEqual(['response-type-widened may-break a']);
    expect(found('response-body', obj({ a: { type: 'string', nullable: true } }), obj({ a: { type: ['string', 'null'] } }))).toEqual([]);
  });

  it('ignores readOnly properties in requests and writeOnly ones in responses', () => {
    const id = { type: 'string', readOnly: true };
    expect(found('request-body', obj({ name: str }), obj({ name: str, id }, { required: ['id'] }))).toEqual([]);
    expect(found('request-body', obj({ name: str, id }), obj({ name: str }))).toEqual([]);
    expect(found('response-body', obj({ name: str, id }), obj({ name: str }))).toEqual(['response-property-removed breaking id']);
    const secret = { type: 'string', writeOnly: true };
    expect(found('response-body', obj({ name: str, secret }), obj({ name: str }))).toEqual([]);
  });

  it('compares integer bounds in effect (exclusiveMinimum 0 is minimum 1) and keeps $ref sibling constraints', () => {
    expect(found('request-body', obj({ n: { type: 'integer', minimum: 1 } }), obj({ n: { type: 'integer', exclusiveMinimum: 0 } }))).toEqual([]);
    const withCode = (fragment: unknown) => ({ ...exampleDocument('request-body', fragment), components: { schemas: { Code: { type: 'string', maxLength: 10 } } } });
    const changes = diffContracts(withCode(obj({ c: { $ref: '#/components/schemas/Code' } })), withCode(obj({ c: { $ref: '#/components/schemas/Code', maxLength: 5 } }))).changes;
    expect(changes.map((c) => [c.rule, c.reason, c.pointer.new])).toEqual([['request-bound-tightened', 'maxLength 10 → 5', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/c/maxLength']]);
  });

  it('matches oneOf alternatives by discriminator value when their components are renamed', () => {
    const doc = (names: [string, string]) => ({
      ...exampleDocument('response-body', { oneOf: names.map((n) => ({ $ref: `#/components/schemas/${n}` })), discriminator: { propertyName: 'kind', mapping: { CAT: `#/components/schemas/${names[0]}`, DOG: `#/components/schemas/${names[1]}` } } }),
      components: { schemas: Object.fromEntries(names.map((n, i) => [n, obj({ kind: { const: i ? 'DOG' : 'CAT' }, name: str })])) },
    });
    expect(diffContracts(doc(['Cat', 'Dog']), doc(['Feline', 'Canine'])).changes).toEqual([]);
  });

  it('compares tuples position by position and array items', () => {
    expect(found('request-body', { type: 'array', prefixItems: [str, { type: 'integer' }] }, { type: 'array', prefixItems: [str, { type: 'integer', maximum: 9 }] })).toEqual(['request-bound-tightened breaking [1]']);
    expect(found('response-body', { type: 'array', items: obj({ a: str }) }, { type: 'array', items: obj({}) })).toEqual(['response-property-removed breaking [].a']);
  });

  it('judges webhook payloads for the receiver: a removed property breaks, a new enum value may, a new required property is safe', () => {
    expect(found('webhook-body', obj({ a: str, b: str }), obj({ a: str }))).toEqual(['response-property-removed breaking b']);
    expect(found('webhook-body', obj({ s: { enum: ['A'] } }), obj({ s: { enum: ['A', 'B'] } }))).toEqual(['response-enum-widened may-break s']);
    expect(found('webhook-body', obj({ a: str }), obj({ a: str, b: str }, { required: ['b'] }))).toEqual(['response-property-added safe b']);
  });

  it('reads a change inside a then branch only under the same if', () => {
    const cond = (sizes: string[]) => obj({ f: str, s: str }, { if: { properties: { f: { const: 'ZPL' } } }, then: { properties: { s: { enum: sizes } } } });
    expect(found('request-body', cond(['4X6']), cond(['4X6', 'A6']))).toEqual(['request-enum-widened safe (then).s']);
    expect(found('request-body', cond(['4X6', 'A6']), cond(['4X6']))).toEqual(['request-enum-narrowed breaking (then).s']);
  });
});

describe('operations', () => {
  const op = (extra: Record<string, unknown>) => ({ '/things/{id}': { parameters: [{ name: 'id', in: 'path', required: true, schema: str }, { name: 'X-Trace', in: 'header', schema: str }], get: { responses: { '200': { description: 'ok' } }, ...extra } } });

  it('merges path-level and operation-level parameters (the operation wins) and matches headers in any case', () => {
    expect(found('paths', op({}), op({ parameters: [{ name: 'x-trace', in: 'header', schema: str }] }))).toEqual([]);
    expect(found('paths', op({}), op({ parameters: [{ name: 'X-TRACE', in: 'header', required: true, schema: str }] }))).toEqual(['request-parameter-became-required breaking']);
  });

  it('matches media types without case, spaces or a utf-8 charset', () => {
    const content = (type: string) => ({ required: true, content: { [type]: { schema: obj({ a: str }) } } });
    expect(found('request-body-object', content('application/json'), content('Application/JSON; charset=UTF-8'))).toEqual([]);
    expect(found('request-body-object', content('application/json'), content('application/merge-patch+json'))).toEqual(['request-media-type-removed breaking', 'request-media-type-added safe']);
  });

  it('inherits the document security and sees anonymous access as one more way in', () => {
    expect(found('security', undefined, [{ Bearer: [] }])).toEqual([]);
    expect(found('security', undefined, [{ Bearer: [] }, {}])).toEqual(['security-alternative-added safe']);
    expect(found('security', undefined, [])).toEqual(['security-alternative-added safe']);
    expect(found('security', [], [{ Bearer: [] }])).toEqual(['security-alternative-removed breaking']);
  });
});
