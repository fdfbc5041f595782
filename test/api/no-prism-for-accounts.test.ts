import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractOperation } from '../../src/contract/load-contract.js';
import { createOperationHandlers } from '../../src/resources/index.js';
import { createHarness, newAccount, type Harness, type TestAccount, harnessInternals } from '../support/harness.js';
import { sampleRequest } from '../support/contract-samples.js';

/**
 * Issue 5, "Done when": no account-level operation is answered by the Prism fallback any more.
 * Statically, every operation of the contract that accepts an Account token has a stateful
 * handler; at runtime, calling each one with an Account token (the contract's own sample
 * request) never gets an answer marked `X-Shipmock-Source: prism`, nor a 5xx.
 */
const h = createHarness();
const accountOperations = h.contract.operations.filter((op) => op.security.includes('AccountToken'));
const label = (op: ContractOperation) => `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;

async function probe(harness: Harness, account: TestAccount, op: ContractOperation) {
  const sample = sampleRequest(harness.contract, op);
  let req = (harness.http as any)[op.method](sample.path).query(sample.query).set('Authorization', account.auth);
  if (sample.body !== undefined) req = req.send(sample.body);
  return req;
}

describe('no Prism fallback for account-level operations', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(h);
  });

  it('covers the account-level part of the contract', () => {
    expect(accountOperations.length).toBeGreaterThanOrEqual(80);
  });

  it('has a stateful handler for every operation that accepts an Account token', () => {
    const handlers = createOperationHandlers(harnessInternals(h).services);
    expect(accountOperations.filter((op) => !(handlers as Record<string, unknown>)[op.operationId]).map(label)).toEqual([]);
  });

  it.each(accountOperations.map((op) => [label(op), op] as const))('%s is answered by its handler, not by Prism', async (_name, op) => {
    const res = await probe(h, account, op);
    expect(res.headers['x-shipmock-source']).toBeUndefined();
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });

  it('would notice a Prism answer (contract-only mode marks every answer)', async () => {
    const contractOnly = createHarness({ stateful: false });
    const { companyId, clientId } = contractOnly.credentials;
    // Contract-only mode keeps no accounts: a correctly signed Account token is all it checks.
    const token = contractOnly.tokens.sign({ lvl: 'ACCOUNT', cid: companyId, aid: account.accountId, sub: clientId }, 3_600_000).token;
    const op = accountOperations.find((o) => o.operationId === 'listShipmentBookings')!;
    const res = await probe(contractOnly, { ...account, auth: `Bearer ${token}` }, op);
    expect(res.status).toBe(200);
    expect(res.headers['x-shipmock-source']).toBe('prism');
  });
});
