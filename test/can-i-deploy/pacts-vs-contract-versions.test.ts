import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPactsAgainstContract, type CanIDeployReport } from '../../src/can-i-deploy/check-pacts.js';
import { DEFAULT_CONTRACT_PATH, loadContract, parseYaml, type OpenApiDocument } from '../../src/contract/load-contract.js';
import { readPactFiles, type PactInteraction } from '../../src/verify/pact-files.js';

// The gate against the project's own pacts: the current contract deploys, and three contract
// versions made here from contract/openapi.yaml — a field renamed, a status changed, an enum
// narrowed — break exactly the interactions that use what changed. The expected sets are
// computed from the pact files alone (which interactions send or expect that field, status or
// value), never from the checker.
const text = readFileSync(DEFAULT_CONTRACT_PATH, 'utf8');
const pacts = readPactFiles([new URL('../../pacts', import.meta.url).pathname]);
const fresh = (): OpenApiDocument => parseYaml(text);
const check = (document: OpenApiDocument): CanIDeployReport => checkPactsAgainstContract(loadContract(document), pacts);
const key = (consumer: string, description: string) => `${consumer}: ${description}`;
const brokenSet = (report: CanIDeployReport) => report.results.filter((r) => r.verdict === 'broken').map((r) => key(r.consumer, r.interaction)).sort();

interface HttpPart {
  method?: string;
  path?: string;
  status?: number;
  body?: { content?: unknown };
  matchingRules?: { body?: Record<string, unknown> };
}
const all = pacts.flatMap((pact) => pact.interactions.map((interaction) => ({ consumer: pact.consumer, interaction })));
const http = all.filter(({ interaction }) => interaction.type === 'Synchronous/HTTP');
const requestOf = (i: PactInteraction) => i.request as HttpPart;
const responseOf = (i: PactInteraction) => i.response as HttpPart;

/** Every [path, value] of a JSON value, paths written as Pact writes them ($.a[0].b). */
function leaves(value: unknown, path = '$'): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [[`${path}.${k}`, v] as [string, unknown], ...leaves(v, `${path}.${k}`)]);
  return [];
}
const hasKey = (value: unknown, name: string) => leaves(value).some(([path]) => path.endsWith(`.${name}`));

/** Whether a Pact matching rule covers a body path (the rule's path, `[*]` any index, is the path or one of its ancestors). */
function covered(rules: Record<string, unknown> | undefined, path: string): boolean {
  return Object.keys(rules ?? {}).some((rule) => {
    const pattern = rule.replace(/[.$^()|?+{}\\]/g, (c) => `\\${c}`).replace(/\[\\?\*\]/g, '\\[\\d+\\]').replace(/\[(\d+)\]/g, '\\[$1\\]');
    return new RegExp(`^${pattern}(?:$|[.[])`).test(path);
  });
}

describe('can-i-deploy: the pacts in pacts/ against versions of contract/openapi.yaml', () => {
  it('the current contract breaks no interaction, and every interaction is checked against an operation', () => {
    const report = check(fresh());
    expect(brokenSet(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.results).toHaveLength(all.length);
    for (const result of report.results) {
      expect(result.operation, result.interaction).toBeDefined();
      if (result.kind === 'http') expect(result.status).toBe(responseOf(all.find((a) => a.interaction.description === result.interaction)!.interaction).status);
    }
    // What may break is only fields the consumer reads that the contract makes optional.
    const warnings = report.results.flatMap((r) => r.findings);
    expect(warnings.every((f) => f.severity === 'warning' && f.message.includes('makes optional'))).toBe(true);
  });

  it('a field renamed (alias → nickname on accounts) breaks the interactions that send or read alias, and only those', () => {
    const document = fresh();
    for (const name of ['AccountRequest', 'AccountResponse']) {
      const schema = document.components.schemas[name];
      schema.properties.nickname = schema.properties.alias;
      delete schema.properties.alias;
      if (Array.isArray(schema.required)) schema.required = schema.required.map((r: string) => (r === 'alias' ? 'nickname' : r));
    }
    const expected = http
      .filter(({ interaction }) => (hasKey(requestOf(interaction).body?.content, 'alias') && responseOf(interaction).status! < 400) || hasKey(responseOf(interaction).body?.content, 'alias'))
      .map(({ consumer, interaction }) => key(consumer, interaction.description))
      .sort();
    expect(expected.length).toBeGreaterThanOrEqual(3);
    const report = check(document);
    expect(brokenSet(report)).toEqual(expected);
    const fetch = report.results.find((r) => r.interaction === 'a request to fetch an account')!;
    expect(fetch.findings).toContainEqual(expect.objectContaining({ severity: 'broken', at: 'response.body $.alias', pointer: '#/components/schemas/AccountResponse/properties' }));
    expect(fetch.operation).toMatchObject({ method: 'GET', path: '/v1/accounts/{account-id}' });
  });

  it('a status changed (createAddress answers 200 instead of 201) breaks the interactions that expect 201 from it, and only those', () => {
    const document = fresh();
    const responses = document.paths['/v1/addresses'].post.responses;
    responses['200'] = responses['201'];
    delete responses['201'];
    const expected = http
      .filter(({ interaction }) => requestOf(interaction).method === 'POST' && requestOf(interaction).path === '/v1/addresses' && responseOf(interaction).status === 201)
      .map(({ consumer, interaction }) => key(consumer, interaction.description));
    expect(expected).toHaveLength(1);
    const report = check(document);
    expect(brokenSet(report)).toEqual(expected);
    const result = report.results.find((r) => r.verdict === 'broken')!;
    expect(result).toMatchObject({ operation: { method: 'POST', path: '/v1/addresses', operationId: 'createAddress' }, status: 201 });
    expect(result.findings).toContainEqual(expect.objectContaining({ at: 'response.status', pointer: '#/paths/~1v1~1addresses/post/responses' }));
    // The 400 interaction of the same operation is unaffected.
    expect(report.results.find((r) => r.interaction.includes('without street'))!.verdict).not.toBe('broken');
  });

  it('an enum narrowed (no STAGING mode in answers: Carrier Definitions and Shipment Bookings) breaks the interactions that expect STAGING as written, not those that match it by type', () => {
    const document = fresh();
    for (const name of ['CarrierDefinition', 'ShipmentBooking']) document.components.schemas[name].properties.mode.enum = ['PRODUCTION'];
    const expected = http
      .filter(({ interaction }) => {
        const response = responseOf(interaction);
        return leaves(response.body?.content).some(([path, value]) => path.endsWith('.mode') && value === 'STAGING' && !covered(response.matchingRules?.body, path));
      })
      .map(({ consumer, interaction }) => key(consumer, interaction.description))
      .sort();
    // Some interactions expect STAGING under an eachLike (any string will do); they must not be named.
    const byType = http.filter(({ interaction }) => leaves(responseOf(interaction).body?.content).some(([path, value]) => path.endsWith('.mode') && value === 'STAGING'));
    expect(expected.length).toBeGreaterThanOrEqual(1);
    expect(byType.length).toBeGreaterThan(expected.length);
    const report = check(document);
    expect(brokenSet(report)).toEqual(expected);
    const finding = report.results.find((r) => r.interaction === 'a request to fetch a v1 carrier definition')!.findings.find((f) => f.severity === 'broken')!;
    expect(finding).toMatchObject({ at: 'response.body $.mode', pointer: '#/components/schemas/CarrierDefinition/properties/mode/enum' });
  });

  it('a webhook topic dropped (EventTopic without CARRIER_STATUS) breaks the message interactions on that topic, and only those', () => {
    const document = fresh();
    const topic = document.components.schemas.EventTopic;
    topic.enum = topic.enum.filter((t: string) => t !== 'CARRIER_STATUS');
    const expected = all
      .filter(({ interaction }) => interaction.type === 'Asynchronous/Messages' && ((interaction.contents as { content?: { topic?: string } }).content?.topic === 'CARRIER_STATUS'))
      .map(({ consumer, interaction }) => key(consumer, interaction.description));
    expect(expected).toHaveLength(1);
    expect(http.some(({ interaction }) => JSON.stringify(interaction).includes('CARRIER_STATUS'))).toBe(false);
    const report = check(document);
    expect(brokenSet(report)).toEqual(expected);
    expect(report.results.find((r) => r.verdict === 'broken')!.operation).toMatchObject({ method: 'POST', path: 'event', webhook: true });
  });
});
