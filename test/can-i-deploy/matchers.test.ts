import { describe, expect, it } from 'vitest';
import { checkPactsAgainstContract, type InteractionResult } from '../../src/can-i-deploy/check-pacts.js';
import { ruleSet } from '../../src/can-i-deploy/matching-rules.js';
import { loadContract, type OpenApiDocument } from '../../src/contract/load-contract.js';
import type { PactFile } from '../../src/verify/pact-files.js';

// A small contract and hand-written V4 interactions: what each kind of Pact matcher lets a
// contract change without breaking the consumer, and what it does not.
const document: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10 } },
        ],
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-Count': { schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { description: 'none', content: { 'application/problem+json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/things': {
      post: {
        operationId: 'createThing',
        security: [{ Bearer: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingRequest' } } } },
        responses: { '201': { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, '400': { description: 'bad' } },
      },
    },
  },
  components: {
    securitySchemes: { Bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      ThingRequest: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', maxLength: 10 }, color: { type: 'string', enum: ['RED', 'BLUE'] } } },
      Thing: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'status', 'tags', 'weight', 'count'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['NEW', 'DONE'] },
          code: { type: 'string', pattern: '^[A-Z]{3}$' },
          tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
          weight: { type: 'number' },
          count: { type: 'integer' },
          createdAt: { type: 'string', format: 'date-time' },
          note: { type: ['string', 'null'] },
        },
      },
    },
  },
};
const contract = loadContract(document);
const ID = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';
const thing = { id: ID, status: 'NEW', tags: ['a'], weight: 1.5, count: 2 };

function interaction(response: Record<string, unknown>, rules: Record<string, unknown> = {}, request: Record<string, unknown> = {}) {
  return {
    type: 'Synchronous/HTTP',
    description: 'x',
    request: { method: 'GET', path: `/things/${ID}`, ...request },
    response: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: { content: response, contentType: 'application/json' }, matchingRules: { body: rules }, ...(response === undefined ? { body: undefined } : {}) },
  };
}
const check = (...interactions: Record<string, unknown>[]): InteractionResult[] => {
  const pact: PactFile = { path: 'test', consumer: 'C', provider: 'P', interactions: interactions as never, raw: { metadata: { pactSpecification: { version: '4.0' } } } };
  return checkPactsAgainstContract(contract, [pact]).results;
};
const type = { matchers: [{ match: 'type' }] };
const verdictOf = (...args: Parameters<typeof interaction>) => check(interaction(...args))[0];

describe('can-i-deploy reads the consumer expectation through its matchers', () => {
  it('accepts an expectation the contract can produce', () => {
    expect(verdictOf(thing)).toMatchObject({ verdict: 'ok', operation: { method: 'GET', path: '/things/{id}' }, status: 200 });
  });

  it('an exact value outside the enum breaks; the same value under a type matcher does not', () => {
    expect(verdictOf({ ...thing, status: 'GONE' }).verdict).toBe('broken');
    expect(verdictOf({ ...thing, status: 'GONE' }, { '$.status': type }).verdict).toBe('ok');
    expect(verdictOf({ ...thing, status: 7 }, { '$.status': type }).verdict).toBe('broken'); // a number where the contract sends a string
  });

  it('a type rule cascades (like/eachLike): everything below is judged by type', () => {
    expect(verdictOf({ ...thing, status: 'GONE' }, { $: type }).verdict).toBe('ok');
  });

  it('a regex against an enum: fine when some value matches it, broken when none does', () => {
    expect(verdictOf(thing, { '$.status': { matchers: [{ match: 'regex', regex: '^(NEW|OLD)$' }] } }).verdict).toBe('ok');
    const result = verdictOf({ ...thing, status: 'OLD' }, { '$.status': { matchers: [{ match: 'regex', regex: '^OLD$' }] } });
    expect(result.verdict).toBe('broken');
    expect(result.findings[0]).toMatchObject({ pointer: '#/components/schemas/Thing/properties/status/enum', at: 'response.body $.status' });
  });

  it('a regex against a pattern: undecidable, so an example outside the pattern only warns', () => {
    expect(verdictOf({ ...thing, code: 'ABC' }, { '$.code': { matchers: [{ match: 'regex', regex: '^[A-Z]+$' }] } }).findings.filter((f) => f.message.includes('regex'))).toEqual([]);
    const result = verdictOf({ ...thing, code: 'ABCD' }, { '$.code': { matchers: [{ match: 'regex', regex: '^[A-Z]+$' }] } });
    expect(result.findings.find((f) => f.at === 'response.body $.code')).toMatchObject({ severity: 'warning' });
  });

  it('number kinds: decimal against an integer breaks, integer against a number may break', () => {
    expect(verdictOf({ ...thing, count: 2.5 }, { '$.count': { matchers: [{ match: 'decimal' }] } }).verdict).toBe('broken');
    expect(verdictOf({ ...thing, weight: 2 }, { '$.weight': { matchers: [{ match: 'integer' }] } }).findings).toContainEqual(expect.objectContaining({ severity: 'warning', at: 'response.body $.weight' }));
    expect(verdictOf(thing, { '$.weight': { matchers: [{ match: 'number' }] }, '$.count': { matchers: [{ match: 'integer' }] } }).verdict).toBe('ok');
  });

  it('eachLike min beyond maxItems breaks; an exact array must fit the bounds', () => {
    expect(verdictOf({ ...thing, tags: ['a'] }, { '$.tags': { matchers: [{ match: 'type', min: 5 }] } }).findings[0]).toMatchObject({ severity: 'broken', pointer: '#/components/schemas/Thing/properties/tags/maxItems' });
    expect(verdictOf({ ...thing, tags: ['a', 'b', 'c', 'd'] }).verdict).toBe('broken');
    expect(verdictOf({ ...thing, tags: ['a'] }, { '$.tags': { matchers: [{ match: 'type', min: 1 }] } }).verdict).toBe('ok');
  });

  it('date/time matchers must meet the format the contract sends', () => {
    expect(verdictOf({ ...thing, createdAt: '2026-01-15T09:30:00.000Z' }, { '$.createdAt': { matchers: [{ match: 'datetime', format: "yyyy-MM-dd'T'HH:mm:ss.SSSX" }] } }).findings.filter((f) => f.severity === 'broken')).toEqual([]);
    expect(verdictOf({ ...thing, createdAt: '2026-01-15' }, { '$.createdAt': { matchers: [{ match: 'date', format: 'yyyy-MM-dd' }] } }).findings).toContainEqual(expect.objectContaining({ severity: 'broken', pointer: '#/components/schemas/Thing/properties/createdAt/format' }));
  });

  it('null: only where the contract allows null', () => {
    expect(verdictOf({ ...thing, note: null }).findings.filter((f) => f.severity === 'broken')).toEqual([]);
    expect(verdictOf({ ...thing, code: null }).verdict).toBe('broken');
  });

  it('a field the contract does not have breaks; one it has but does not require may break', () => {
    const missing = verdictOf({ ...thing, colour: 'red' });
    expect(missing.findings).toContainEqual(expect.objectContaining({ severity: 'broken', at: 'response.body $.colour', pointer: '#/components/schemas/Thing/properties' }));
    const optional = verdictOf({ ...thing, code: 'ABC' });
    expect(optional).toMatchObject({ verdict: 'warning', findings: [expect.objectContaining({ pointer: '#/components/schemas/Thing/required', at: 'response.body $.code' })] });
  });

  it('arrayContains: every variant must be an item the schema allows', () => {
    const rules = { '$.tags': { matchers: [{ match: 'arrayContains', variants: [{ index: 0, rules: {} }, { index: 1, rules: { $: type } }] }] } };
    expect(verdictOf({ ...thing, tags: ['a', 'b'] }, rules).verdict).toBe('ok');
    expect(verdictOf({ ...thing, tags: ['a', 5] }, rules).verdict).toBe('broken');
  });

  it('checks the status, the media type and the declared headers of the response', () => {
    expect(check({ ...interaction(thing), response: { status: 201, body: { content: thing } } })[0].findings[0]).toMatchObject({ at: 'response.status', pointer: '#/paths/~1things~1{id}/get/responses' });
    const wrongMedia = check({ ...interaction(thing), response: { status: 404, headers: { 'Content-Type': ['application/json'] }, body: { content: {}, contentType: 'application/json' } } })[0];
    expect(wrongMedia.findings[0]).toMatchObject({ severity: 'broken', at: 'response.headers.Content-Type' });
    const byRegex = check({ ...interaction(thing), response: { status: 404, headers: { 'Content-Type': ['application/json'] }, body: { content: {}, contentType: 'application/json' }, matchingRules: { header: { 'Content-Type': { matchers: [{ match: 'regex', regex: '^application/(problem\\+)?json' }] } } } } })[0];
    expect(byRegex.verdict).toBe('ok');
    const headers = check({ ...interaction(thing), response: { status: 200, headers: { 'X-Count': ['many'], 'X-Other': ['1'] }, body: { content: thing, contentType: 'application/json' } } })[0];
    expect(headers.findings.map((f) => [f.severity, f.at])).toEqual([['broken', 'response.headers.x-count'], ['warning', 'response.headers.x-other']]);
  });

  it('checks what the consumer sends: route, parameters, credentials and body', () => {
    expect(check(interaction(thing, {}, { path: '/nothing' }))[0].findings[0]).toMatchObject({ severity: 'broken', at: 'request.path' });
    expect(check(interaction(thing, {}, { method: 'DELETE' }))[0].findings[0].message).toContain('not declared');
    expect(check(interaction(thing, {}, { path: '/things/x', query: { limit: ['20'], page: ['1'] } }))[0].findings.map((f) => f.at).sort()).toEqual(['request.path/id', 'request.query/limit', 'request.query/page']);
    const create = (body: unknown, headers: Record<string, string[]> = { Authorization: ['Bearer t'], 'Content-Type': ['application/json'] }, status = 201) =>
      check({ type: 'Synchronous/HTTP', description: 'c', request: { method: 'POST', path: '/things', headers, body: { content: body, contentType: 'application/json' } }, response: { status, body: { content: thing, contentType: 'application/json' } } })[0];
    expect(create({ name: 'x' }).verdict).toBe('ok');
    expect(create({ name: 'x', color: 'GREEN' }).findings[0]).toMatchObject({ severity: 'broken', at: 'request.body/color', pointer: '#/components/schemas/ThingRequest/properties/color' });
    expect(create({ name: 'x' }, { 'Content-Type': ['application/json'] }).findings[0]).toMatchObject({ pointer: '#/paths/~1things/post/security' });
    // A consumer that expects a 400 sends a bad request on purpose; if the contract accepts it, the 400 may not come.
    expect(check({ type: 'Synchronous/HTTP', description: 'bad', request: { method: 'POST', path: '/things', headers: { Authorization: ['Bearer t'] }, body: { content: { name: 'x'.repeat(20) }, contentType: 'application/json' } }, response: { status: 400 } })[0].verdict).toBe('ok');
    expect(check({ type: 'Synchronous/HTTP', description: 'bad', request: { method: 'POST', path: '/things', headers: { Authorization: ['Bearer t'] }, body: { content: { name: 'x' }, contentType: 'application/json' } }, response: { status: 400 } })[0].verdict).toBe('warning');
  });

  it('reads V3 pacts: HTTP interactions with plain bodies, message files with metaData', () => {
    const v3: PactFile = {
      path: 'v3',
      consumer: 'C3',
      provider: 'P',
      interactions: [{ description: 'v3', request: { method: 'GET', path: `/things/${ID}`, query: 'limit=2' }, response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { ...thing, status: 'GONE' }, matchingRules: { body: { '$.status': { matchers: [{ match: 'type' }] } } } } }] as never,
      raw: { metadata: { pactSpecification: { version: '3.0.0' } } },
    };
    expect(checkPactsAgainstContract(contract, [v3]).results[0]).toMatchObject({ kind: 'http', verdict: 'ok', status: 200 });
    const v2 = { ...v3, interactions: [{ description: 'v2', request: { method: 'GET', path: `/things/${ID}`, query: 'limit=20' }, response: { status: 200, body: thing, matchingRules: { '$.body.status': { match: 'type' } } } }] as never };
    expect(checkPactsAgainstContract(contract, [v2]).results[0].findings.map((f) => f.at)).toEqual(['request.query/limit']);
    const messages: PactFile = { path: 'm', consumer: 'M', provider: 'P', interactions: [{ description: 'm', contents: { topic: 'X' }, metaData: { contentType: 'application/json' } }] as never, raw: { messages: [], metadata: { pactSpecification: { version: '3.0.0' } } } };
    expect(checkPactsAgainstContract(contract, [messages]).results[0]).toMatchObject({ kind: 'message', verdict: 'broken' });
  });

  it('a message with no webhook in the contract breaks', () => {
    const [result] = check({ type: 'Asynchronous/Messages', description: 'm', contents: { content: { topic: 'X' }, contentType: 'application/json' }, metadata: { contentType: 'application/json' } });
    expect(result).toMatchObject({ kind: 'message', verdict: 'broken', findings: [expect.objectContaining({ pointer: '#/webhooks' })] });
  });
});

describe('matching rules', () => {
  it('reads V2 flat keys and V3/V4 categories, and prefers the most specific path', () => {
    const v2 = ruleSet({ '$.body.items': { match: 'type', min: 1 }, '$.headers.X-Id': { match: 'regex', regex: 'x' } }, 'body');
    expect(v2.at(['items', 0, 'id'])).toMatchObject({ exact: false, spec: { matchers: [{ match: 'type', min: 1 }] } });
    const v3 = ruleSet({ body: { '$.items': { matchers: [{ match: 'type' }] }, '$.items[*].id': { matchers: [{ match: 'regex', regex: 'x' }] }, '$.items[0].id': { matchers: [{ match: 'integer' }] } } }, 'body');
    expect(v3.at(['items', 1, 'id'])?.spec.matchers[0].match).toBe('regex');
    expect(v3.at(['items', 0, 'id'])?.spec.matchers[0].match).toBe('integer');
    expect(v3.at(['other'])).toBeUndefined();
    expect(ruleSet({ header: { 'Content-Type': { matchers: [{ match: 'regex', regex: 'json' }] } } }, 'header').named('content-type')?.matchers[0].regex).toBe('json');
  });
});
