import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import type { Entity } from '../../src/store/collection.js';
import { createHarness, newAccount, type Harness, harnessInternals } from '../support/harness.js';

/**
 * A handler that answers something the contract does not allow is a bug: the client gets a
 * 500 `response-validation-failed` naming the field (error mode), or the body passes with a
 * logged warning (warn mode, for users serving a modified contract). To provoke one, an
 * address that breaks the contract is planted straight into the store, as a buggy service would.
 */
async function plantBrokenAddress(h: Harness) {
  const account = await newAccount(h);
  const id = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';
  harnessInternals(h).runtime.store.account(account.accountId).collection<Entity & Record<string, unknown>>('addresses').insert({
    id, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    name: 'No City', street: 'Hauptstrasse 5', postalCode: '10115', countryCode: 'DE', secret: 'leaked',
  });
  return { account, id };
}

describe('response validation', () => {
  it('turns a contract-breaking answer into a 500 problem naming the fields (error mode)', async () => {
    const h = createHarness();
    const { account, id } = await plantBrokenAddress(h);
    const res = await h.http.get(`/v1/addresses/${id}`).set('Authorization', account.auth);
    expect(res.status).toBe(500);
    expect(res.body.type).toBe('https://shipmock.dev/problems/response-validation-failed');
    expect(res.body.detail).toMatch(/getAddress/);
    expect(res.body.properties.violations).toEqual(
      expect.arrayContaining([
        { field: 'body/city', message: 'is required' },
        { field: 'body/secret', message: 'is not allowed' },
      ]),
    );
    // Spec, Limits: responses with status 500 carry none of the rate-limit headers.
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('passes the body and logs the violation in warn mode', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const h = createHarness({ responseValidation: 'warn' }, createLogger({ level: 'warn', format: 'json', destination: sink }));
    const { account, id } = await plantBrokenAddress(h);
    const res = await h.http.get(`/v1/addresses/${id}`).set('Authorization', account.auth);
    expect(res.status).toBe(200);
    expect(res.body.secret).toBe('leaked');
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.operationId === 'getAddress');
    expect(warning.level).toBe(40);
    expect(warning.violations).toContainEqual({ field: 'body/city', message: 'is required' });
  });
});
