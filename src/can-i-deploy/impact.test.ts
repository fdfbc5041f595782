import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT_PATH, loadContract, parseYaml, type OpenApiDocument } from '../contract/load-contract.js';
import { diffContracts } from '../contract-diff/diff.js';
import { readPactFiles } from '../verify/pact-files.js';
import { checkPactsAgainstContract } from './check-pacts.js';
import { formatImpact, impactOfChanges, impactSentence } from './impact.js';

// The diff joined with the project's own pacts: a change is traced to the interactions that use
// what it changed, and consumers it does not reach are named unaffected.
const text = readFileSync(DEFAULT_CONTRACT_PATH, 'utf8');
const pacts = readPactFiles([new URL('../../pacts', import.meta.url).pathname]);
const current = parseYaml(text) as OpenApiDocument;
const impactOf = (next: OpenApiDocument) => impactOfChanges(diffContracts(parseYaml(text), next), checkPactsAgainstContract(loadContract(next), pacts));
const interactionsOf = (consumer: string, method: string, path: string, status: number) =>
  pacts
    .filter((pact) => pact.consumer === consumer)
    .flatMap((pact) => pact.interactions)
    .filter((i) => {
      const request = i.request as { method?: string; path?: string } | undefined;
      const response = i.response as { status?: number } | undefined;
      return request?.method === method && request.path === path && response?.status === status;
    })
    .map((i) => i.description);

describe('impactOfChanges', () => {
  it('names the consumer a changed status breaks, at the interaction that expects it, and the other consumer unaffected', () => {
    const next = parseYaml(text) as OpenApiDocument;
    const responses = (next.paths as any)['/v1/addresses'].post.responses;
    responses['200'] = responses['201'];
    delete responses['201'];
    const impact = impactOf(next);
    const expected = interactionsOf('ShippingClient', 'POST', '/v1/addresses', 201);
    expect(expected.length).toBeGreaterThan(0);
    expect(impact.broken).toEqual({ ShippingClient: expected });
    expect(impact.unaffected).toEqual(['ShippingWebhookReceiver']);
    expect(impactSentence(impact)).toBe(`this change breaks ShippingClient at ${expected.length} interaction(s); ShippingWebhookReceiver is unaffected`);
    const removed = impact.changes.find(({ change }) => change.class === 'breaking' && change.status === '201');
    expect(removed?.interactions.map((ref) => ref.interaction)).toEqual(expected);
    expect(formatImpact(impact, 'text')).toContain(`ShippingClient — broken\n  - ${expected[0]}`);
  });

  it('reaches the webhook receiver through a webhook change, and no HTTP consumer', () => {
    const next = parseYaml(text) as OpenApiDocument;
    const topic = (next.components as any).schemas.EventTopic;
    topic.enum = topic.enum.filter((value: string) => value !== 'CARRIER_STATUS');
    const impact = impactOf(next);
    expect(Object.keys(impact.broken)).toEqual(['ShippingWebhookReceiver']);
    expect(impact.unaffected).not.toContain('ShippingWebhookReceiver');
  });

  it('finds no consumer broken or exposed by a contract that did not change', () => {
    const impact = impactOf(current);
    expect(impact).toEqual({ changes: [], broken: {}, exposed: {}, unaffected: ['ShippingClient', 'ShippingWebhookReceiver'] });
    expect(impactSentence(impact)).toBe('this change breaks no consumer; ShippingClient and ShippingWebhookReceiver are unaffected');
  });
});
