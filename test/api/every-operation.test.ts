import { describe, expect, it } from 'vitest';
import type { SecuritySchemeName } from '../../src/contract/load-contract.js';
import { createHarness } from '../support/harness.js';
import { preferredScheme, sampleRequest } from '../support/contract-samples.js';

/**
 * Contract-only mode (`stateful: false`): every operation of the contract, called once with a
 * valid request, answers a contract-valid 2xx through Prism (the app checks every response and
 * would answer 500 otherwise); called once with an invalid request, answers a 400 problem whose
 * violations name the offending field. Stateful behaviour is tested per resource family.
 */
const h = createHarness({ stateful: false });
const { contract, tokens, credentials: company } = h;
const affiliate = h.companies.list().affiliates[0];

function authFor(scheme: SecuritySchemeName | undefined): string | undefined {
  const hour = 3_600_000;
  switch (scheme) {
    case 'AccountToken':
      return `Bearer ${tokens.sign({ lvl: 'ACCOUNT', cid: company.companyId, aid: '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11', sub: company.clientId }, hour).token}`;
    case 'CompanyToken':
      return `Bearer ${tokens.sign({ lvl: 'COMPANY', cid: company.companyId, sub: company.clientId }, hour).token}`;
    case 'AffiliateToken':
      return `Bearer ${tokens.sign({ lvl: 'AFFILIATE', afid: affiliate.affiliateId, sub: affiliate.clientId }, hour).token}`;
    case 'AdminToken':
      return `Bearer ${tokens.sign({ lvl: 'ADMIN', sub: 'admin' }, hour).token}`;
    case 'ClientCredentials':
      return h.basic;
    default:
      return undefined;
  }
}

function call(method: string, path: string, query: Record<string, unknown>, auth: string | undefined, body?: unknown) {
  let req = (h.http as any)[method](path).query(query);
  if (auth) req = req.set('Authorization', auth);
  if (body !== undefined) req = req.send(body);
  return req;
}

const operations = contract.operations.map((o) => [`${o.method.toUpperCase()} ${o.path} (${o.operationId})`, o] as const);

describe('every operation of the contract (contract-only mode)', () => {
  it('covers the whole contract', () => {
    expect(contract.operations.length).toBeGreaterThanOrEqual(100);
  });

  it.each(operations)('%s answers a contract-valid 2xx to a valid request', async (_name, operation) => {
    const sample = sampleRequest(contract, operation);
    const res = await call(operation.method, sample.path, sample.query, authFor(preferredScheme(operation)), sample.body);
    expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(300);
    expect(res.headers['x-shipmock-source']).toBe('prism');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it.each(operations)('%s answers 400 with violations to an invalid request', async (_name, operation) => {
    const sample = sampleRequest(contract, operation);
    const auth = authFor(preferredScheme(operation));
    const res = sample.body !== undefined
      ? await call(operation.method, sample.path, sample.query, auth, { ...(sample.body as object), unexpectedField: true })
      : await call(operation.method, sample.path, { ...sample.query, unexpected_param: '1' }, auth);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.type).toBe('https://shipmock.dev/problems/validation-error');
    const fields = res.body.properties.violations.map((v: { field: string }) => v.field);
    expect(fields).toContain(sample.body !== undefined ? 'body/unexpectedField' : 'query/unexpected_param');
  });
});
