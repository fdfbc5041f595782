import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractOperation, SecuritySchemeName } from '../../src/contract/load-contract.js';
import { createHarness, newAccount, type TestAccount } from '../support/harness.js';
import { preferredScheme, resolveSchema, sampleRequest } from '../support/contract-samples.js';

/**
 * Numeric query parameters are finite integers within their declared range: anything else is
 * a 400 problem naming the parameter, never a 500 and never a page of everything. The table is
 * generated from the contract: every integer query parameter of every operation, with values
 * Ajv's own coercion used to let through (`Infinity`, `1e309`, `0x10`, `+5`, …).
 * Stateful mock with real tokens: a valid value reaches the handler (2xx, or 404 for the
 * sample's made-up path id), an invalid one never does.
 */
const h = createHarness();
const { contract } = h;
let account: TestAccount;
let affiliateAuth: string;

beforeAll(async () => {
  account = await newAccount(h);
  const affiliate = h.companies.list().affiliates[0];
  const basic = `Basic ${Buffer.from(`${affiliate.clientId}:${affiliate.clientSecret}`).toString('base64')}`;
  const res = await h.http.post('/v1/affiliates/tokens').set('Authorization', basic).send({ grantType: 'client_credentials' });
  affiliateAuth = `Bearer ${res.body.accessToken}`;
});

function authFor(scheme: SecuritySchemeName | undefined): string | undefined {
  switch (scheme) {
    case 'AccountToken':
      return account.auth;
    case 'CompanyToken':
      return account.companyAuth;
    case 'AffiliateToken':
      return affiliateAuth;
    case 'ClientCredentials':
      return h.basic;
    default:
      return undefined;
  }
}

interface Row {
  operation: ContractOperation;
  name: string;
  minimum: number;
  maximum: number;
}

const rows: Row[] = contract.operations.flatMap((operation) =>
  operation.parameters
    .filter((p) => p.in === 'query' && resolveSchema(contract, p.schema)?.type === 'integer')
    .map((p) => {
      const schema = resolveSchema(contract, p.schema);
      return { operation, name: p.name, minimum: schema.minimum, maximum: schema.maximum };
    }),
);

/** Values that are not a decimal integer at all: refused as 'must be of type integer'. */
const NOT_INTEGERS = ['Infinity', '-Infinity', '1e309', '1e1', '1.5', '2.0', '0x10', '0b1', '+5', ' 5', '5 ', '', 'NaN', 'null', 'true', '١', '5abc'];

/** Builds the query string by hand: supertest would drop or re-encode some of these values. */
function get(row: Row, value: string) {
  const sample = sampleRequest(contract, row.operation);
  const query = new URLSearchParams(
    Object.entries({ ...sample.query, [row.name]: value }).map(([k, v]) => [k, String(v)]),
  ).toString();
  let req = h.http.get(`${sample.path}?${query}`);
  const auth = authFor(preferredScheme(row.operation));
  if (auth) req = req.set('Authorization', auth);
  return req;
}

const label = (row: Row) => `${row.operation.operationId} ${row.name}`;

describe('integer query parameters (table generated from the contract)', () => {
  it('finds every one (limit on every v1 list, page and size on v0)', () => {
    expect(rows.length).toBeGreaterThanOrEqual(25);
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['limit', 'page', 'size']));
    for (const row of rows) {
      expect(Number.isSafeInteger(row.minimum), label(row)).toBe(true);
      expect(Number.isSafeInteger(row.maximum), label(row)).toBe(true);
    }
  });

  it.each(rows.map((r) => [label(r), r] as const))('%s: not an integer → 400 naming it', async (_name, row) => {
    for (const value of NOT_INTEGERS) {
      const res = await get(row, value);
      expect(res.status, `${row.name}=${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.type).toBe('https://shipmock.dev/problems/validation-error');
      expect(res.body.properties.violations, `${row.name}=${JSON.stringify(value)}`).toEqual([{ field: `query/${row.name}`, message: 'must be of type integer' }]);
    }
  });

  it.each(rows.map((r) => [label(r), r] as const))('%s: out of range → 400 naming the bound', async (_name, row) => {
    const cases: [string, string][] = [
      [String(row.minimum - 1), `must be >= ${row.minimum}`],
      [String(row.maximum + 1), `must be <= ${row.maximum}`],
      ['9'.repeat(400), `must be <= ${row.maximum}`],
      [`-${'9'.repeat(400)}`, `must be >= ${row.minimum}`],
    ];
    for (const [value, message] of cases) {
      const res = await get(row, value);
      expect(res.status, `${row.name}=${value.slice(0, 20)}`).toBe(400);
      // An int32 parameter may add 'must be a valid int32'; every violation names the parameter.
      expect(res.body.properties.violations).toContainEqual({ field: `query/${row.name}`, message });
      for (const v of res.body.properties.violations) expect(v.field).toBe(`query/${row.name}`);
    }
  });

  it.each(rows.map((r) => [label(r), r] as const))('%s: the bounds themselves are accepted', async (_name, row) => {
    for (const value of [row.minimum, row.maximum]) {
      const res = await get(row, String(value));
      // Past validation: a 2xx, or the handler's 404 for the sample's made-up path id.
      expect([200, 404], `${row.name}=${value}: ${JSON.stringify(res.body)}`).toContain(res.status);
      if (res.status === 404) expect(res.body.type).toBe('https://shipmock.dev/problems/not-found');
    }
  });
});
