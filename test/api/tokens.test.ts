import { describe, expect, it } from 'vitest';
import { accountBody, companyToken, createHarness, newAccount } from '../support/harness.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const GRANT = { grantType: 'client_credentials' };
const HOUR = 3_600_000;

const OTHER_COMPANY = {
  companyId: '2a9c4e7d-6b1f-4d3a-8e5c-7f0a1b2c3d4e',
  name: 'Other Company',
  clientId: 'other-client',
  clientSecret: 'other-secret',
};
const AFFILIATE = { affiliateId: '8d3b2a1c-4e5f-4a6b-9c7d-0e1f2a3b4c5d', name: 'Aff', clientId: 'aff-client', clientSecret: 'aff-secret' };
const ADMIN = { clientId: 'admin-client', clientSecret: 'admin-secret' };

function twoCompanies() {
  const h = createHarness({
    credentials: {
      companies: [
        { companyId: '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84', name: 'Default', clientId: 'default-client', clientSecret: 'default-secret' },
        OTHER_COMPANY,
      ],
      affiliates: [AFFILIATE],
      admins: [ADMIN],
    },
  });
  return { h, otherBasic: basic(OTHER_COMPANY.clientId, OTHER_COMPANY.clientSecret) };
}

describe('token endpoints', () => {
  it('does the whole token dance: company token → account → account token → account-level call', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const res = await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
  });

  it('answers a Company token with expiresAt 4 h ahead on the virtual clock', async () => {
    const h = createHarness();
    const res = await h.http.post(`/v1/companies/${h.companyId}/tokens`).set('Authorization', h.basic).send(GRANT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), expiresAt: h.clock.epochMs() + 4 * HOUR, tokenType: 'Bearer' });
  });

  it.each([
    ['no Authorization header', 401, 'unauthorized', undefined],
    ['wrong secret', 401, 'invalid-credentials', basic('shipmock-demo-client', 'nope')],
    ['unknown client', 401, 'invalid-credentials', basic('who', 'ever')],
    ['garbage Basic value', 401, 'invalid-credentials', 'Basic !!!'],
    ['a Bearer token instead of Basic', 401, 'invalid-token', 'Bearer abc.def.ghi'],
  ])('company token with %s → %i %s', async (_label, status, slug, auth) => {
    const h = createHarness();
    const req = h.http.post(`/v1/companies/${h.companyId}/tokens`);
    if (auth) req.set('Authorization', auth);
    const res = await req.send(GRANT);
    expect(res.status).toBe(status);
    expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
  });

  it('refuses credentials of another company for a company id (401, not 404)', async () => {
    const { h, otherBasic } = twoCompanies();
    const res = await h.http.post(`/v1/companies/${h.companyId}/tokens`).set('Authorization', otherBasic).send(GRANT);
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('https://shipmock.dev/problems/invalid-credentials');
  });

  it('refuses an unknown company id with 401', async () => {
    const h = createHarness();
    const res = await h.http.post('/v1/companies/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11/tokens').set('Authorization', h.basic).send(GRANT);
    expect(res.status).toBe(401);
  });

  it.each([
    ['an unknown grantType', { grantType: 'password' }],
    ['no grantType', {}],
  ])('answers %s with 400 invalid-grant', async (_label, body) => {
    const h = createHarness();
    const res = await h.http.post(`/v1/companies/${h.companyId}/tokens`).set('Authorization', h.basic).send(body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://shipmock.dev/problems/invalid-grant');
    expect(res.body.properties.violations[0].field).toBe('body/grantType');
  });

  it('issues Account tokens only for accounts of the credentials company (else 401)', async () => {
    const { h, otherBasic } = twoCompanies();
    const account = await newAccount(h);
    const foreign = await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', otherBasic).send(GRANT);
    expect(foreign.status).toBe(401);
    const unknown = await h.http.post('/v1/accounts/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11/tokens').set('Authorization', h.basic).send(GRANT);
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe(foreign.body.detail.replace(account.accountId, '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11'));
  });

  it('refuses an Account token for a disabled account (401) and answers 403 to existing tokens of it', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const disable = await h.http.put(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth).send(accountBody({ enabled: false }));
    expect(disable.status).toBe(204);
    const issue = await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send(GRANT);
    expect(issue.status).toBe(401);
    const use = await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(use.status).toBe(403);
    expect(use.body.type).toBe('https://shipmock.dev/problems/forbidden');
    await h.http.put(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth).send(accountBody({ enabled: true }));
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(200);
  });

  it('issues Affiliate tokens for affiliate credentials only, valid 15 minutes', async () => {
    const { h, otherBasic } = twoCompanies();
    const res = await h.http.post('/v1/affiliates/tokens').set('Authorization', basic(AFFILIATE.clientId, AFFILIATE.clientSecret)).send(GRANT);
    expect(res.status).toBe(200);
    expect(res.body.expiresAt).toBe(h.clock.epochMs() + 15 * 60_000);
    const company = await h.http.post('/v1/affiliates/tokens').set('Authorization', otherBasic).send(GRANT);
    expect(company.status).toBe(401);
  });

  it('honours configured token lifetimes', async () => {
    const h = createHarness({ tokenLifetimes: { affiliate: 4 * HOUR } });
    const res = await h.http.post('/v1/affiliates/tokens').set('Authorization', basic('shipmock-demo-affiliate', 'shipmock-demo-affiliate-secret')).send(GRANT);
    expect(res.body.expiresAt).toBe(h.clock.epochMs() + 4 * HOUR);
  });
});

describe('token use', () => {
  it('lets a token die on the virtual clock', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    h.clock.advance(4 * HOUR - 1);
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(200);
    h.clock.advance(1);
    const res = await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('https://shipmock.dev/problems/invalid-token');
  });

  it('rejects tokens signed by another instance (401) unless the secret is shared', async () => {
    const a = createHarness();
    const b = createHarness();
    const account = await newAccount(a);
    expect((await b.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(401);
    const shared1 = createHarness({ tokenSecret: 'fixed' });
    const shared2 = createHarness({ tokenSecret: 'fixed' });
    const company = await companyToken(shared1);
    expect((await shared2.http.get('/v1/accounts').set('Authorization', company)).status).toBe(200);
  });

  it.each([
    ['garbage', 'Bearer garbage'],
    ['a tampered token', null],
  ])('rejects %s with 401', async (_label, header) => {
    const h = createHarness();
    const company = await companyToken(h);
    const [head, , sig] = company.slice('Bearer '.length).split('.');
    const forged = Buffer.from(JSON.stringify({ lvl: 'ACCOUNT', aid: 'x', sub: 'x', exp: 9e9, iat: 0, expMs: 9e12 })).toString('base64url');
    const res = await h.http.get('/v1/addresses').set('Authorization', header ?? `Bearer ${head}.${forged}.${sig}`);
    expect(res.status).toBe(401);
  });

  it.each([
    ['an Account token on a Company operation', 'account', '/v1/accounts'],
    ['a Company token on an Account operation', 'company', '/v1/addresses'],
  ])('answers %s with 403', async (_label, which, path) => {
    const h = createHarness();
    const account = await newAccount(h);
    const res = await h.http.get(path).set('Authorization', which === 'account' ? account.auth : account.companyAuth);
    expect(res.status).toBe(403);
  });

  it('needs an account before account-level resources can be created (no Account token without one)', async () => {
    const h = createHarness();
    const company = await companyToken(h);
    const res = await h.http.post('/v1/addresses').set('Authorization', company).send({});
    expect(res.status).toBe(403);
    const list = await h.http.get('/v1/accounts').set('Authorization', company);
    expect(list.body).toEqual({ items: [] });
  });
});
