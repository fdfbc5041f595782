import type { ExampleSite, RuleExample } from './rules.js';

/**
 * Builds a small OpenAPI 3.1 contract around one fragment of a rule's example (rules.ts), so
 * every rule can be run end to end: `exampleDocument('request-body', schema)` is a contract
 * whose POST /things takes that schema as its JSON body.
 *
 * @example diffContracts(exampleDocument(ex.site, ex.old), exampleDocument(ex.site, ex.new))
 */
export function exampleDocument(site: ExampleSite, fragment: unknown): Record<string, unknown> {
  const clone = <T>(value: T): T => (value === undefined ? value : structuredClone(value));
  const f = clone(fragment);
  const schemaOf = (s: ExampleSite, fallback: unknown) => (site === s ? f : fallback);
  const get: Record<string, unknown> = {
    operationId: 'listThings',
    parameters: site === 'parameters' ? f : [],
    responses: site === 'responses' ? f : { '200': { description: 'ok', content: { 'application/json': { schema: schemaOf('response-body', { type: 'object' }) } } } },
  };
  if (site === 'security') get.security = f;
  const post: Record<string, unknown> = {
    operationId: 'createThing',
    responses: { '201': { description: 'created' } },
  };
  const body = site === 'request-body-object' ? f : { required: true, content: { 'application/json': { schema: schemaOf('request-body', { type: 'object' }) } } };
  if (body !== null && body !== undefined) post.requestBody = body;
  const webhooks =
    site === 'webhooks'
      ? f
      : {
          thingChanged: {
            post: {
              requestBody: { required: true, content: { 'application/json': { schema: schemaOf('webhook-body', { type: 'object' }) } } },
              responses: site === 'webhook-responses' ? f : { '200': { description: 'received' } },
            },
          },
        };
  return {
    openapi: '3.1.0',
    info: { title: 'Example', version: '1.0.0' },
    security: [{ Bearer: [] }],
    paths: site === 'paths' ? f : { '/things': { get, post } },
    webhooks,
    components: {
      securitySchemes:
        site === 'security-schemes'
          ? f
          : {
              Bearer: { type: 'http', scheme: 'bearer' },
              ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
              OAuth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: { read: 'read things', write: 'change things' } } } },
            },
    },
  };
}

/** The three contracts of an example: old, new and the near miss. */
export function exampleDocuments(example: RuleExample): { old: Record<string, unknown>; new: Record<string, unknown>; nearMiss: Record<string, unknown> } {
  return { old: exampleDocument(example.site, example.old), new: exampleDocument(example.site, example.new), nearMiss: exampleDocument(example.site, example.nearMiss) };
}
