/**
 * The rules of `shipmock contract diff`: one table, in code. Each rule has a stable id (what a
 * `--rules` file names), its default class for a client, what it detects, and an example: an
 * old and a new fragment that trigger it and a near miss that must not. docs/contract-diff.md's
 * table is rendered from this list (a test checks it), and the mutation corpus
 * (test/contract-diff/corpus.test.ts) runs every example.
 *
 * Direction: `request-*` rules judge what the client writes (the server must keep accepting it),
 * `response-*` rules what the client reads (it must keep understanding it). In `webhooks` the roles
 * turn round: the payload the API sends is judged by the `response-*` rules (the receiver reads
 * it) and the receiver's answer by the `request-*` rules.
 */

/** How a change affects an existing client, worst first. */
export type ChangeClass = 'breaking' | 'may-break' | 'safe';
export const CHANGE_CLASSES: readonly ChangeClass[] = ['breaking', 'may-break', 'safe'];

/** Where an example's fragments go in a small generated contract (see example-documents.ts). */
export type ExampleSite =
  | 'request-body' // the JSON schema of POST /things' request body
  | 'response-body' // the JSON schema of GET /things' 200 answer
  | 'webhook-body' // the JSON schema of the thingChanged webhook's payload
  | 'parameters' // the parameters array of GET /things
  | 'request-body-object' // the requestBody object of POST /things
  | 'responses' // the responses object of GET /things
  | 'webhook-responses' // the responses object of the thingChanged webhook
  | 'paths' // the whole paths object
  | 'webhooks' // the whole webhooks object
  | 'security' // the security requirements of GET /things
  | 'security-schemes'; // components.securitySchemes

export interface RuleExample {
  site: ExampleSite;
  old: unknown;
  new: unknown;
  /** A change that looks alike but must not trigger the rule (compared with `old`). */
  nearMiss: unknown;
}

export interface RuleDefinition {
  id: string;
  class: ChangeClass;
  detects: string;
  example: RuleExample;
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const str = { type: 'string' };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const ok = (schema: unknown = obj({ id: str })) => ({ '200': { description: 'ok', content: json(schema) } });
const listThings = (extra: Record<string, unknown> = {}) => ({ get: { operationId: 'listThings', responses: ok(), ...extra } });

export const RULES: readonly RuleDefinition[] = [
  // Operations and webhooks
  { id: 'operation-removed', class: 'breaking', detects: 'an operation (method + path) is gone', example: { site: 'paths', old: { '/things': listThings(), '/others': listThings() }, new: { '/things': listThings() }, nearMiss: { '/others': listThings(), '/things': listThings() } } },
  { id: 'operation-added', class: 'safe', detects: 'a new operation', example: { site: 'paths', old: { '/things': listThings() }, new: { '/things': listThings(), '/others': listThings() }, nearMiss: { '/things': listThings() } } },
  { id: 'operation-deprecated', class: 'safe', detects: 'an operation is marked deprecated (a warning, not a break)', example: { site: 'paths', old: { '/things': listThings() }, new: { '/things': listThings({ deprecated: true }) }, nearMiss: { '/things': listThings({ deprecated: false }) } } },
  { id: 'path-parameter-renamed', class: 'safe', detects: 'a path template names its parameter differently (the URL clients send is the same)', example: { site: 'paths', old: { '/things/{id}': listThings({ parameters: [{ name: 'id', in: 'path', required: true, schema: str }] }) }, new: { '/things/{thingId}': listThings({ parameters: [{ name: 'thingId', in: 'path', required: true, schema: str }] }) }, nearMiss: { '/things/{id}': listThings({ parameters: [{ name: 'id', in: 'path', required: true, schema: str, description: 'renamed nothing' }] }) } } },
  { id: 'webhook-removed', class: 'breaking', detects: 'a webhook the API sent is gone (receivers wait for events that never come)', example: { site: 'webhooks', old: { a: { post: { responses: { '200': { description: 'ok' } } } }, b: { post: { responses: { '200': { description: 'ok' } } } } }, new: { a: { post: { responses: { '200': { description: 'ok' } } } } }, nearMiss: { a: { post: { responses: { '200': { description: 'ok' } } } }, b: { post: { summary: 'b', responses: { '200': { description: 'ok' } } } } } } },
  { id: 'webhook-added', class: 'safe', detects: 'a new webhook', example: { site: 'webhooks', old: { a: { post: { responses: { '200': { description: 'ok' } } } } }, new: { a: { post: { responses: { '200': { description: 'ok' } } } }, b: { post: { responses: { '200': { description: 'ok' } } } } }, nearMiss: { a: { post: { summary: 'a', responses: { '200': { description: 'ok' } } } } } } },

  // Security
  { id: 'security-alternative-removed', class: 'breaking', detects: 'a way to authenticate an operation accepted (a security requirement) is no longer accepted', example: { site: 'security', old: [{ ApiKey: [] }, { Bearer: [] }], new: [{ Bearer: [] }], nearMiss: [{ Bearer: [] }, { ApiKey: [] }] } },
  { id: 'security-alternative-added', class: 'safe', detects: 'a new way to authenticate', example: { site: 'security', old: [{ Bearer: [] }], new: [{ Bearer: [] }, { ApiKey: [] }], nearMiss: [{ Bearer: [] }] } },
  { id: 'security-requirement-scope-added', class: 'breaking', detects: 'an operation needs a scope it did not need (existing tokens may lack it)', example: { site: 'security', old: [{ OAuth: ['read'] }], new: [{ OAuth: ['read', 'write'] }], nearMiss: [{ OAuth: ['read'] }] } },
  { id: 'security-requirement-scope-removed', class: 'safe', detects: 'an operation needs fewer scopes', example: { site: 'security', old: [{ OAuth: ['read', 'write'] }], new: [{ OAuth: ['read'] }], nearMiss: [{ OAuth: ['write', 'read'] }] } },
  { id: 'security-scheme-scope-removed', class: 'breaking', detects: 'an OAuth scope is gone from a security scheme (clients asking for it are refused)', example: { site: 'security-schemes', old: { OAuth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: { read: 'r', write: 'w' } } } } }, new: { OAuth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: { read: 'r' } } } } }, nearMiss: { OAuth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: { read: 'read things', write: 'w' } } } } } } },
  { id: 'security-scheme-changed', class: 'breaking', detects: 'a security scheme changes how credentials are sent (type, HTTP scheme, API key name or place, token URL)', example: { site: 'security-schemes', old: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }, new: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Key' } }, nearMiss: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'the key' } } } },

  // Parameters (path and operation level, merged)
  { id: 'request-parameter-added-required', class: 'breaking', detects: 'a new required parameter', example: { site: 'parameters', old: [], new: [{ name: 'country', in: 'query', required: true, schema: str }], nearMiss: [{ name: 'country', in: 'query', schema: str }] } },
  { id: 'request-parameter-added-optional', class: 'safe', detects: 'a new optional parameter', example: { site: 'parameters', old: [], new: [{ name: 'country', in: 'query', schema: str }], nearMiss: [{ name: 'country', in: 'query', required: true, schema: str }] } },
  { id: 'request-parameter-removed', class: 'may-break', detects: 'a parameter is gone (the server ignores or refuses what clients still send)', example: { site: 'parameters', old: [{ name: 'country', in: 'query', schema: str }], new: [], nearMiss: [{ name: 'country', in: 'query', schema: str, description: 'ISO code' }] } },
  { id: 'request-parameter-became-required', class: 'breaking', detects: 'an optional parameter becomes required', example: { site: 'parameters', old: [{ name: 'country', in: 'query', schema: str }], new: [{ name: 'country', in: 'query', required: true, schema: str }], nearMiss: [{ name: 'country', in: 'query', required: false, schema: str }] } },
  { id: 'request-parameter-became-optional', class: 'safe', detects: 'a required parameter becomes optional', example: { site: 'parameters', old: [{ name: 'country', in: 'query', required: true, schema: str }], new: [{ name: 'country', in: 'query', schema: str }], nearMiss: [{ name: 'country', in: 'query', required: true, schema: str, description: 'ISO code' }] } },
  { id: 'request-parameter-serialization-changed', class: 'breaking', detects: "a parameter's style, explode or allowReserved changes (clients encode it differently)", example: { site: 'parameters', old: [{ name: 'ids', in: 'query', schema: { type: 'array', items: str } }], new: [{ name: 'ids', in: 'query', style: 'pipeDelimited', schema: { type: 'array', items: str } }], nearMiss: [{ name: 'ids', in: 'query', style: 'form', explode: true, schema: { type: 'array', items: str } }] } },

  // Request bodies
  { id: 'request-body-became-required', class: 'breaking', detects: 'a request body becomes required, or an operation without one now requires one', example: { site: 'request-body-object', old: { content: json(obj({ id: str })) }, new: { required: true, content: json(obj({ id: str })) }, nearMiss: { required: false, content: json(obj({ id: str })) } } },
  { id: 'request-body-became-optional', class: 'safe', detects: 'a required request body becomes optional', example: { site: 'request-body-object', old: { required: true, content: json(obj({ id: str })) }, new: { content: json(obj({ id: str })) }, nearMiss: { required: true, content: json(obj({ id: str })), description: 'a thing' } } },
  { id: 'request-body-removed', class: 'may-break', detects: 'an operation no longer takes a body (the server ignores or refuses what clients still send)', example: { site: 'request-body-object', old: { content: json(obj({ id: str })) }, new: null, nearMiss: { content: json(obj({ id: str })), description: 'optional body' } } },
  { id: 'request-body-added-optional', class: 'safe', detects: 'an operation takes an optional body it did not take', example: { site: 'request-body-object', old: null, new: { content: json(obj({ id: str })) }, nearMiss: null } },
  { id: 'request-media-type-removed', class: 'breaking', detects: 'a request media type clients send is no longer accepted', example: { site: 'request-body-object', old: { required: true, content: { ...json(obj({ id: str })), 'application/xml': {} } }, new: { required: true, content: json(obj({ id: str })) }, nearMiss: { required: true, content: { 'application/xml': {}, ...json(obj({ id: str })) } } } },
  { id: 'request-media-type-added', class: 'safe', detects: 'a new request media type is accepted', example: { site: 'request-body-object', old: { required: true, content: json(obj({ id: str })) }, new: { required: true, content: { ...json(obj({ id: str })), 'application/xml': {} } }, nearMiss: { required: true, content: { 'Application/JSON': { schema: obj({ id: str }) } } } } },

  // Responses
  { id: 'response-success-status-removed', class: 'breaking', detects: 'a success (1xx-3xx) status clients handle is gone', example: { site: 'responses', old: { ...ok(), '202': { description: 'accepted' } }, new: ok(), nearMiss: { '202': { description: 'accepted' }, ...ok() } } },
  { id: 'response-error-status-removed', class: 'may-break', detects: 'an error status (4xx, 5xx, default) is no longer documented (a client, or a pact, that relies on getting it for some input gets something else)', example: { site: 'responses', old: { ...ok(), '404': { description: 'not found' } }, new: ok(), nearMiss: { ...ok(), '404': { description: 'no such thing' } } } },
  { id: 'response-success-status-added', class: 'may-break', detects: 'a new success status (clients may treat only the old ones as success)', example: { site: 'responses', old: ok(), new: { ...ok(), '202': { description: 'accepted' } }, nearMiss: { '200': { description: 'fine', content: json(obj({ id: str })) } } } },
  { id: 'response-error-status-added', class: 'may-break', detects: 'a new error status (clients may not handle it)', example: { site: 'responses', old: ok(), new: { ...ok(), '409': { description: 'conflict' } }, nearMiss: ok() } },
  { id: 'response-media-type-removed', class: 'breaking', detects: 'a response media type clients read is gone', example: { site: 'responses', old: { '200': { description: 'ok', content: { ...json(obj({ id: str })), 'text/csv': {} } } }, new: ok(), nearMiss: { '200': { description: 'ok', content: { 'text/csv': {}, ...json(obj({ id: str })) } } } } },
  { id: 'response-media-type-added', class: 'safe', detects: 'a new response media type (served only to clients that ask for it)', example: { site: 'responses', old: ok(), new: { '200': { description: 'ok', content: { ...json(obj({ id: str })), 'text/csv': {} } } }, nearMiss: ok() } },
  { id: 'response-header-removed', class: 'breaking', detects: 'a response header clients read is gone', example: { site: 'responses', old: { '200': { description: 'ok', headers: { 'Retry-After': { schema: { type: 'integer' } } } } }, new: { '200': { description: 'ok' } }, nearMiss: { '200': { description: 'ok', headers: { 'retry-after': { schema: { type: 'integer' } } } } } } },
  { id: 'response-header-became-optional', class: 'breaking', detects: 'a response header that was always sent may now be missing', example: { site: 'responses', old: { '200': { description: 'ok', headers: { 'X-Id': { required: true, schema: str } } } }, new: { '200': { description: 'ok', headers: { 'X-Id': { schema: str } } } }, nearMiss: { '200': { description: 'ok', headers: { 'X-Id': { required: true, schema: str, description: 'id' } } } } } },
  { id: 'response-header-added', class: 'safe', detects: 'a new response header', example: { site: 'responses', old: { '200': { description: 'ok' } }, new: { '200': { description: 'ok', headers: { 'X-Id': { schema: str } } } }, nearMiss: { '200': { description: 'ok', headers: {} } } } },
  { id: 'webhook-response-status-removed', class: 'breaking', detects: 'a status receivers answer a webhook with is no longer understood by the API', example: { site: 'webhook-responses', old: { '200': { description: 'ok' }, '204': { description: 'ok' } }, new: { '200': { description: 'ok' } }, nearMiss: { '204': { description: 'done' }, '200': { description: 'ok' } } } },
  { id: 'webhook-response-status-added', class: 'safe', detects: 'the API understands a new status from receivers', example: { site: 'webhook-responses', old: { '200': { description: 'ok' } }, new: { '200': { description: 'ok' }, '204': { description: 'ok' } }, nearMiss: { '200': { description: 'fine' } } } },

  // Schemas the client writes (request bodies, parameters, webhook answers)
  { id: 'request-type-narrowed', class: 'breaking', detects: 'a type clients may send is no longer accepted (a type removed or changed, null no longer allowed)', example: { site: 'request-body', old: obj({ note: { type: ['string', 'null'] } }), new: obj({ note: str }), nearMiss: obj({ note: { type: ['null', 'string'] } }) } },
  { id: 'request-type-widened', class: 'safe', detects: 'more types are accepted', example: { site: 'request-body', old: obj({ n: { type: 'integer' } }), new: obj({ n: { type: 'number' } }), nearMiss: obj({ n: { type: ['integer'] } }) } },
  { id: 'request-enum-narrowed', class: 'breaking', detects: 'an enum (or const) value clients may send is no longer accepted, or a value set is imposed', example: { site: 'request-body', old: obj({ size: { enum: ['S', 'M', 'L'] } }), new: obj({ size: { enum: ['S', 'M'] } }), nearMiss: obj({ size: { enum: ['L', 'S', 'M'] } }) } },
  { id: 'request-enum-widened', class: 'safe', detects: 'more enum values are accepted', example: { site: 'request-body', old: obj({ size: { const: 'S' } }), new: obj({ size: { enum: ['S', 'M'] } }), nearMiss: obj({ size: { enum: ['S'] } }) } },
  { id: 'request-bound-tightened', class: 'breaking', detects: 'a tighter minimum, maximum, length, item or property count, multipleOf, or uniqueItems', example: { site: 'request-body', old: obj({ name: { type: 'string', maxLength: 100 } }), new: obj({ name: { type: 'string', maxLength: 50 } }), nearMiss: obj({ name: { type: 'string', maxLength: 200 } }) } },
  { id: 'request-bound-loosened', class: 'safe', detects: 'a looser bound', example: { site: 'request-body', old: obj({ n: { type: 'integer', minimum: 1 } }), new: obj({ n: { type: 'integer', minimum: 0 } }), nearMiss: obj({ n: { type: 'integer', exclusiveMinimum: 0 } }) } },
  { id: 'request-pattern-added', class: 'breaking', detects: 'a pattern where there was none', example: { site: 'request-body', old: obj({ code: str }), new: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), nearMiss: obj({ code: { type: 'string', description: 'two letters' } }) } },
  { id: 'request-pattern-changed', class: 'may-break', detects: 'a different pattern (values the old one accepted may fail it)', example: { site: 'request-body', old: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), new: obj({ code: { type: 'string', pattern: '^[A-Z]{2,3}$' } }), nearMiss: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO' } }) } },
  { id: 'request-pattern-removed', class: 'safe', detects: 'a pattern is dropped', example: { site: 'request-body', old: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), new: obj({ code: str }), nearMiss: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }) } },
  { id: 'request-format-narrowed', class: 'breaking', detects: 'a format is added or changed (date-time → date, int64 → int32)', example: { site: 'request-body', old: obj({ at: str }), new: obj({ at: { type: 'string', format: 'date-time' } }), nearMiss: obj({ at: { type: 'string', examples: ['2026-01-15T09:30:00Z'] } }) } },
  { id: 'request-format-widened', class: 'safe', detects: 'a format is dropped or widened (int32 → int64)', example: { site: 'request-body', old: obj({ n: { type: 'integer', format: 'int32' } }), new: obj({ n: { type: 'integer', format: 'int64' } }), nearMiss: obj({ n: { type: 'integer', format: 'int32' } }) } },
  { id: 'request-property-became-required', class: 'breaking', detects: 'a property clients may omit is now required (new or existing)', example: { site: 'request-body', old: obj({ name: str }), new: obj({ name: str }, { required: ['name'] }), nearMiss: obj({ name: str, nick: str }) } },
  { id: 'request-property-became-optional', class: 'safe', detects: 'a required property becomes optional', example: { site: 'request-body', old: obj({ name: str }, { required: ['name'] }), new: obj({ name: str }), nearMiss: { allOf: [obj({ name: str }), { required: ['name'] }] } } },
  { id: 'request-property-added', class: 'safe', detects: 'a new optional property', example: { site: 'request-body', old: obj({ name: str }), new: obj({ name: str, nick: str }), nearMiss: obj({ name: str }) } },
  { id: 'request-property-removed', class: 'may-break', detects: 'a property is no longer declared in an open schema (the server ignores what clients still send)', example: { site: 'request-body', old: obj({ name: str, nick: str }), new: obj({ name: str }), nearMiss: obj({ nick: str, name: str }) } },
  { id: 'request-property-removed-closed', class: 'breaking', detects: 'a property is no longer declared in a closed schema (the server refuses what clients still send)', example: { site: 'request-body', old: obj({ name: str, nick: str }, { additionalProperties: false }), new: obj({ name: str }, { additionalProperties: false }), nearMiss: obj({ name: str, nick: { type: 'string', maxLength: 9999 } }, { additionalProperties: false }) } },
  { id: 'request-additional-properties-closed', class: 'breaking', detects: 'a schema that allowed other properties refuses them now', example: { site: 'request-body', old: obj({ name: str }), new: obj({ name: str }, { additionalProperties: false }), nearMiss: obj({ name: str }, { additionalProperties: true }) } },
  { id: 'request-additional-properties-opened', class: 'safe', detects: 'a closed schema allows other properties', example: { site: 'request-body', old: obj({ name: str }, { additionalProperties: false }), new: obj({ name: str }), nearMiss: obj({ name: str }, { unevaluatedProperties: false }) } },
  { id: 'request-variant-removed', class: 'breaking', detects: 'a oneOf/anyOf alternative (or a discriminator mapping) clients may send is gone', example: { site: 'request-body', old: { oneOf: [obj({ a: str }, { required: ['a'] }), obj({ b: str }, { required: ['b'] })] }, new: { oneOf: [obj({ a: str }, { required: ['a'] })] }, nearMiss: { oneOf: [obj({ b: str }, { required: ['b'] }), obj({ a: str }, { required: ['a'] })] } } },
  { id: 'request-variant-added', class: 'safe', detects: 'a new oneOf/anyOf alternative is accepted', example: { site: 'request-body', old: obj({ a: str }, { required: ['a'] }), new: { anyOf: [obj({ a: str }, { required: ['a'] }), obj({ b: str }, { required: ['b'] })] }, nearMiss: { anyOf: [obj({ a: str }, { required: ['a'] })] } } },
  { id: 'request-dependent-required-added', class: 'breaking', detects: 'dependentRequired: sending one property now requires another', example: { site: 'request-body', old: obj({ a: str, b: str }), new: obj({ a: str, b: str }, { dependentRequired: { a: ['b'] } }), nearMiss: obj({ a: str, b: str }, { dependentRequired: {} }) } },
  { id: 'request-dependent-required-removed', class: 'safe', detects: 'a dependentRequired rule is dropped', example: { site: 'request-body', old: obj({ a: str, b: str }, { dependentRequired: { a: ['b'] } }), new: obj({ a: str, b: str }), nearMiss: obj({ b: str, a: str }, { dependentRequired: { a: ['b'] } }) } },
  { id: 'request-default-changed', class: 'may-break', detects: 'the default the server assumes for an omitted value changes', example: { site: 'request-body', old: obj({ limit: { type: 'integer', default: 20 } }), new: obj({ limit: { type: 'integer', default: 50 } }), nearMiss: obj({ limit: { type: 'integer', default: 20, description: 'page size' } }) } },
  { id: 'request-discriminator-changed', class: 'breaking', detects: 'the discriminator property name changes', example: { site: 'request-body', old: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'kind' } }, new: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'type' } }, nearMiss: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'kind', mapping: {} } } } },
  { id: 'request-condition-added', class: 'breaking', detects: 'a new if/then/else constrains what clients send', example: { site: 'request-body', old: obj({ format: str, size: str }), new: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } } }), nearMiss: obj({ size: str, format: str }) } },
  { id: 'request-condition-removed', class: 'safe', detects: 'an if/then/else on what clients send is dropped', example: { site: 'request-body', old: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } } }), new: obj({ format: str, size: str }), nearMiss: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } }, title: 'x' }) } },
  { id: 'request-condition-changed', class: 'may-break', detects: 'the `if` of an if/then/else changes (other values fall under its then/else)', example: { site: 'request-body', old: obj({ a: str }, { if: { required: ['a'] }, then: { required: ['b'] } }), new: obj({ a: str }, { if: { required: ['c'] }, then: { required: ['b'] } }), nearMiss: obj({ a: str }, { if: { required: ['a'] }, then: { required: ['b'] }, description: 'x' }) } },
  { id: 'request-constraint-changed', class: 'may-break', detects: 'another validation keyword changes (not, contains, propertyNames, patternProperties, dependentSchemas, …)', example: { site: 'request-body', old: obj({ tags: { type: 'array', items: str } }), new: obj({ tags: { type: 'array', items: str, contains: { const: 'x' } } }), nearMiss: obj({ tags: { type: 'array', items: str, title: 'Tags' } }) } },

  // Schemas the client reads (response bodies and headers, webhook payloads)
  { id: 'response-type-changed', class: 'breaking', detects: 'a value now has a type clients never got before (string → integer)', example: { site: 'response-body', old: obj({ n: str }), new: obj({ n: { type: 'integer' } }), nearMiss: obj({ n: { type: ['string'] } }) } },
  { id: 'response-type-widened', class: 'may-break', detects: 'a value may now have another type as well (e.g. may now be null)', example: { site: 'response-body', old: obj({ note: str }), new: obj({ note: { type: ['string', 'null'] } }), nearMiss: obj({ note: { type: 'string', description: 'never null' } }) } },
  { id: 'response-type-narrowed', class: 'safe', detects: 'a value has fewer possible types', example: { site: 'response-body', old: obj({ note: { type: ['string', 'null'] } }), new: obj({ note: str }), nearMiss: obj({ note: { type: ['null', 'string'] } }) } },
  { id: 'response-enum-widened', class: 'may-break', detects: 'a new enum value in what clients read (an exhaustive switch misses it)', example: { site: 'response-body', old: obj({ status: { enum: ['OPEN', 'CLOSED'] } }), new: obj({ status: { enum: ['OPEN', 'CLOSED', 'HELD'] } }), nearMiss: obj({ status: { enum: ['CLOSED', 'OPEN'] } }) } },
  { id: 'response-enum-narrowed', class: 'safe', detects: 'fewer enum values in what clients read', example: { site: 'response-body', old: obj({ status: { enum: ['OPEN', 'CLOSED'] } }), new: obj({ status: { enum: ['OPEN'] } }), nearMiss: obj({ status: { type: 'string', enum: ['OPEN', 'CLOSED'] } }) } },
  { id: 'response-bound-loosened', class: 'may-break', detects: 'a looser bound in what clients read (longer strings, bigger numbers, more items)', example: { site: 'response-body', old: obj({ name: { type: 'string', maxLength: 50 } }), new: obj({ name: { type: 'string', maxLength: 100 } }), nearMiss: obj({ name: { type: 'string', maxLength: 40 } }) } },
  { id: 'response-bound-tightened', class: 'safe', detects: 'a tighter bound in what clients read', example: { site: 'response-body', old: obj({ name: { type: 'string', maxLength: 50 } }), new: obj({ name: { type: 'string', maxLength: 40 } }), nearMiss: obj({ name: { type: 'string', maxLength: 50 } }) } },
  { id: 'response-pattern-removed', class: 'may-break', detects: 'a pattern clients could rely on is dropped', example: { site: 'response-body', old: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), new: obj({ code: str }), nearMiss: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }) } },
  { id: 'response-pattern-changed', class: 'may-break', detects: 'a different pattern in what clients read', example: { site: 'response-body', old: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), new: obj({ code: { type: 'string', pattern: '^[A-Z]{3}$' } }), nearMiss: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$', maxLength: 2 } }) } },
  { id: 'response-pattern-added', class: 'safe', detects: 'a pattern where there was none', example: { site: 'response-body', old: obj({ code: str }), new: obj({ code: { type: 'string', pattern: '^[A-Z]{2}$' } }), nearMiss: obj({ code: str }) } },
  { id: 'response-format-changed', class: 'breaking', detects: 'a different format clients parse (date → date-time)', example: { site: 'response-body', old: obj({ at: { type: 'string', format: 'date' } }), new: obj({ at: { type: 'string', format: 'date-time' } }), nearMiss: obj({ at: { type: 'string', format: 'date', examples: ['2026-01-15'] } }) } },
  { id: 'response-format-custom-changed', class: 'may-break', detects: 'a format changes to or from a custom one (http-url) the diff cannot relate to the other', example: { site: 'response-body', old: obj({ url: { type: 'string', format: 'uri' } }), new: obj({ url: { type: 'string', format: 'http-url' } }), nearMiss: obj({ url: { type: 'string', format: 'uri', maxLength: 2048 } }) } },
  { id: 'response-format-widened', class: 'may-break', detects: 'a format is dropped or widened (int32 → int64) in what clients read', example: { site: 'response-body', old: obj({ n: { type: 'integer', format: 'int32' } }), new: obj({ n: { type: 'integer', format: 'int64' } }), nearMiss: obj({ n: { type: 'integer', format: 'int32' } }) } },
  { id: 'response-format-narrowed', class: 'safe', detects: 'a format is added or narrowed', example: { site: 'response-body', old: obj({ at: str }), new: obj({ at: { type: 'string', format: 'date-time' } }), nearMiss: obj({ at: str }) } },
  { id: 'response-property-removed', class: 'breaking', detects: 'a property clients read is gone (or renamed)', example: { site: 'response-body', old: obj({ id: str, name: str }), new: obj({ id: str }), nearMiss: { allOf: [obj({ id: str }), obj({ name: str })] } } },
  { id: 'response-property-became-optional', class: 'breaking', detects: 'a property that was always there may now be missing', example: { site: 'response-body', old: obj({ id: str }, { required: ['id'] }), new: obj({ id: str }), nearMiss: obj({ id: str }, { required: ['id'], description: 'x' }) } },
  { id: 'response-property-became-required', class: 'safe', detects: 'an optional property is now always there', example: { site: 'response-body', old: obj({ id: str }), new: obj({ id: str }, { required: ['id'] }), nearMiss: obj({ id: str }) } },
  { id: 'response-property-added', class: 'safe', detects: 'a new property in an open schema (clients must ignore unknown properties)', example: { site: 'response-body', old: obj({ id: str }), new: obj({ id: str, name: str }), nearMiss: obj({ id: str }) } },
  { id: 'response-property-added-closed', class: 'may-break', detects: 'a new property in a closed schema (strict clients that validate answers refuse it)', example: { site: 'response-body', old: obj({ id: str }, { additionalProperties: false }), new: obj({ id: str, name: str }, { additionalProperties: false }), nearMiss: obj({ id: str }, { additionalProperties: false }) } },
  { id: 'response-additional-properties-opened', class: 'may-break', detects: 'a closed schema in what clients read allows other properties', example: { site: 'response-body', old: obj({ id: str }, { additionalProperties: false }), new: obj({ id: str }), nearMiss: obj({ id: str }, { unevaluatedProperties: false }) } },
  { id: 'response-additional-properties-closed', class: 'safe', detects: 'a schema in what clients read is closed', example: { site: 'response-body', old: obj({ id: str }), new: obj({ id: str }, { additionalProperties: false }), nearMiss: obj({ id: str }) } },
  { id: 'response-variant-added', class: 'may-break', detects: 'a new oneOf/anyOf alternative in what clients read (e.g. may now be null)', example: { site: 'response-body', old: { oneOf: [obj({ a: str }, { required: ['a'] })] }, new: { oneOf: [obj({ a: str }, { required: ['a'] }), obj({ b: str }, { required: ['b'] })] }, nearMiss: { anyOf: [obj({ a: str }, { required: ['a'] })] } } },
  { id: 'response-variant-removed', class: 'safe', detects: 'a oneOf/anyOf alternative clients read is no longer sent', example: { site: 'response-body', old: { oneOf: [obj({ a: str }, { required: ['a'] }), obj({ b: str }, { required: ['b'] })] }, new: { oneOf: [obj({ a: str }, { required: ['a'] })] }, nearMiss: { oneOf: [obj({ b: str }, { required: ['b'] }), obj({ a: str }, { required: ['a'] })] } } },
  { id: 'response-dependent-required-removed', class: 'may-break', detects: 'a dependentRequired rule clients could rely on is dropped', example: { site: 'response-body', old: obj({ a: str, b: str }, { dependentRequired: { a: ['b'] } }), new: obj({ a: str, b: str }), nearMiss: obj({ a: str, b: str }, { dependentRequired: { a: ['b'] } }) } },
  { id: 'response-dependent-required-added', class: 'safe', detects: 'a new dependentRequired rule in what clients read', example: { site: 'response-body', old: obj({ a: str, b: str }), new: obj({ a: str, b: str }, { dependentRequired: { a: ['b'] } }), nearMiss: obj({ a: str, b: str }) } },
  { id: 'response-discriminator-changed', class: 'breaking', detects: 'the discriminator property clients switch on changes', example: { site: 'response-body', old: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'kind' } }, new: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'type' } }, nearMiss: { oneOf: [obj({ kind: { const: 'a' } })], discriminator: { propertyName: 'kind' } } } },
  { id: 'response-condition-added', class: 'safe', detects: 'a new if/then/else narrows what clients read', example: { site: 'response-body', old: obj({ format: str, size: str }), new: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } } }), nearMiss: obj({ format: str, size: str }) } },
  { id: 'response-condition-removed', class: 'may-break', detects: 'an if/then/else clients could rely on is dropped', example: { site: 'response-body', old: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } } }), new: obj({ format: str, size: str }), nearMiss: obj({ format: str, size: str }, { if: { properties: { format: { const: 'ZPL' } } }, then: { properties: { size: { const: '4X6' } } } }) } },
  { id: 'response-condition-changed', class: 'may-break', detects: 'the `if` of an if/then/else in what clients read changes', example: { site: 'response-body', old: obj({ a: str }, { if: { required: ['a'] }, then: { required: ['b'] } }), new: obj({ a: str }, { if: { required: ['c'] }, then: { required: ['b'] } }), nearMiss: obj({ a: str }, { if: { required: ['a'] }, then: { required: ['b'] } }) } },
  { id: 'response-constraint-changed', class: 'may-break', detects: 'another validation keyword in what clients read changes', example: { site: 'response-body', old: obj({ tags: { type: 'array', items: str, contains: { const: 'x' } } }), new: obj({ tags: { type: 'array', items: str } }), nearMiss: obj({ tags: { type: 'array', items: str, contains: { const: 'x' }, description: 'tags' } }) } },
];

const BY_ID = new Map(RULES.map((rule) => [rule.id, rule]));

/**
 * The rule of an id; throws on an id no rule has (an engine bug, caught by the tests).
 * @example ruleById('response-enum-widened').class // 'may-break'
 */
export function ruleById(id: string): RuleDefinition {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`no contract-diff rule ${id}`);
  return rule;
}

/** Whether an id names a rule. */
export function isRuleId(id: string): boolean {
  return BY_ID.has(id);
}

/** Ranks classes: 2 breaking, 1 may-break, 0 safe. */
export function severityOf(changeClass: ChangeClass): number {
  return changeClass === 'breaking' ? 2 : changeClass === 'may-break' ? 1 : 0;
}
