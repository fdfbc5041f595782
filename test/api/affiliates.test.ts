import { describe, expect, it } from 'vitest';
import { companyToken, createHarness, type Harness } from '../support/harness.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const GRANT = { grantType: 'client_credentials' };
const OWN = { affiliateId: '8d3b2a1c-4e5f-4a6b-9c7d-0e1f2a3b4c5d', name: 'Own', clientId: 'own-aff', clientSecret: 'own-secret' };
const OTHER = { affiliateId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f', name: 'Other', clientId: 'other-aff', clientSecret: 'other-secret' };
const ADMIN = { clientId: 'admin-client', clientSecret: 'admin-secret' };
const UNKNOWN = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';
const CONFIG = {
  billingGracePeriodDays: 30,
  checkoutUrlSuccess: 'https://shop.example.com/ok',
  checkoutUrlFailure: 'https://shop.example.com/failed',
};

function harness(): Harness {
  return createHarness({
    credentials: {
      companies: [{ companyId: '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84', name: 'C', clientId: 'c-client', clientSecret: 'c-secret' }],
      affiliates: [OWN, OTHER],
      admins: [ADMIN],
    },
  });
}

async function affiliateToken(h: Harness): Promise<string> {
  const res = await h.http.post('/v1/affiliates/tokens').set('Authorization', basic(OWN.clientId, OWN.clientSecret)).send(GRANT);
  expect(res.status).toBe(200);
  return `Bearer ${res.body.accessToken}`;
}

async function adminToken(h: Harness): Promise<string> {
  const res = await h.http.post('/__admin/tokens').send({ level: 'ADMIN' });
  expect(res.status).toBe(200);
  return `Bearer ${res.body.accessToken}`;
}

describe('affiliate configuration', () => {
  it('answers the service defaults before any replace', async () => {
    const h = harness();
    const res = await h.http.get(`/v1/affiliates/${OWN.affiliateId}`).set('Authorization', await affiliateToken(h));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: OWN.affiliateId, billingGracePeriodDays: 14, updatedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('replaces fully: omitted fields fall back to defaults', async () => {
    const h = harness();
    const auth = await affiliateToken(h);
    const path = `/v1/affiliates/${OWN.affiliateId}`;
    expect((await h.http.put(path).set('Authorization', auth).send(CONFIG)).status).toBe(204);
    expect((await h.http.get(path).set('Authorization', auth)).body).toEqual({ id: OWN.affiliateId, ...CONFIG, updatedAt: '2026-01-01T00:00:00.000Z' });
    h.clock.advance(60_000);
    expect((await h.http.put(path).set('Authorization', auth).send({ checkoutUrlSuccess: CONFIG.checkoutUrlSuccess })).status).toBe(204);
    expect((await h.http.get(path).set('Authorization', auth)).body).toEqual({
      id: OWN.affiliateId,
      billingGracePeriodDays: 14,
      checkoutUrlSuccess: CONFIG.checkoutUrlSuccess,
      updatedAt: '2026-01-01T00:01:00.000Z',
    });
  });

  it.each(['javascript:alert(1)', 'https://', 'http://shop.example.com:99999/ok', 'ftp://shop.example.com/ok'])(
    'refuses the checkout redirect %j: 400 naming the field, nothing stored',
    async (url) => {
      const h = harness();
      const auth = await affiliateToken(h);
      const path = `/v1/affiliates/${OWN.affiliateId}`;
      const res = await h.http.put(path).set('Authorization', auth).send({ ...CONFIG, checkoutUrlFailure: url });
      expect(res.status).toBe(400);
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toEqual(['body/checkoutUrlFailure']);
      expect((await h.http.get(path).set('Authorization', auth)).body).not.toHaveProperty('checkoutUrlFailure');
    },
  );

  it('publishes an AFFILIATE event on replace', async () => {
    const h = harness();
    const seen: string[] = [];
    h.events.subscribe((e) => seen.push(`${e.topic}:${e.type}`));
    await h.http.put(`/v1/affiliates/${OWN.affiliateId}`).set('Authorization', await affiliateToken(h)).send(CONFIG);
    expect(seen).toEqual(['AFFILIATE:UPDATED']);
  });

  it.each([
    ['an affiliate token, own id', 'affiliate', OWN.affiliateId, 204],
    ['affiliate Basic credentials, own id', 'affiliate-basic', OWN.affiliateId, 204],
    ['an affiliate token, another affiliate', 'affiliate', OTHER.affiliateId, 403],
    ['an affiliate token, an unknown id', 'affiliate', UNKNOWN, 403],
    ['an admin token, another affiliate', 'admin', OTHER.affiliateId, 204],
    ['admin Basic credentials, another affiliate', 'admin-basic', OTHER.affiliateId, 204],
    ['an admin token, an unknown id', 'admin', UNKNOWN, 404],
    ['company Basic credentials', 'company-basic', OWN.affiliateId, 403],
    ['a company token', 'company', OWN.affiliateId, 403],
  ])('PUT with %s → %i', async (_label, who, id, status) => {
    const h = harness();
    const auth = {
      affiliate: () => affiliateToken(h),
      'affiliate-basic': async () => basic(OWN.clientId, OWN.clientSecret),
      admin: () => adminToken(h),
      'admin-basic': async () => basic(ADMIN.clientId, ADMIN.clientSecret),
      'company-basic': async () => h.basic,
      company: () => companyToken(h),
    }[who]!;
    const put = await h.http.put(`/v1/affiliates/${id}`).set('Authorization', await auth()).send(CONFIG);
    expect(put.status).toBe(status);
    const get = await h.http.get(`/v1/affiliates/${id}`).set('Authorization', await auth());
    expect(get.status).toBe(status === 204 ? 200 : status);
    if (status !== 204) {
      // A refused replace changed nothing.
      const admin = await adminToken(h);
      const stored = await h.http.get(`/v1/affiliates/${OWN.affiliateId}`).set('Authorization', admin);
      expect(stored.body.billingGracePeriodDays).toBe(14);
    }
  });

  it('refuses an out-of-range grace period with 400 and keeps the config', async () => {
    const h = harness();
    const auth = await affiliateToken(h);
    const res = await h.http.put(`/v1/affiliates/${OWN.affiliateId}`).set('Authorization', auth).send({ billingGracePeriodDays: 400 });
    expect(res.status).toBe(400);
    expect((await h.http.get(`/v1/affiliates/${OWN.affiliateId}`).set('Authorization', auth)).body.billingGracePeriodDays).toBe(14);
  });
});

describe('admin tokens from the control plane', () => {
  it('mints an ADMIN token valid 1 h on the virtual clock', async () => {
    const h = harness();
    const res = await h.http.post('/__admin/tokens').send({ level: 'ADMIN' });
    expect(res.body).toEqual({ accessToken: expect.any(String), expiresAt: h.clock.epochMs() + 3_600_000, tokenType: 'Bearer' });
    const auth = `Bearer ${res.body.accessToken}`;
    expect((await h.http.get(`/v1/affiliates/${OTHER.affiliateId}`).set('Authorization', auth)).status).toBe(200);
    h.clock.advance(3_600_000);
    expect((await h.http.get(`/v1/affiliates/${OTHER.affiliateId}`).set('Authorization', auth)).status).toBe(401);
  });

  it.each([
    ['another level', { level: 'COMPANY' }, 'application/json'],
    ['a malformed body', '{"level":', 'application/json'],
  ])('answers %s with 400', async (_label, body, type) => {
    const h = harness();
    const res = await h.http.post('/__admin/tokens').set('Content-Type', type).send(body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.type).toMatch(/^https:\/\/shipmock\.dev\/problems\/(validation-error|malformed-json)$/);
    expect(res.body.detail).toEqual(expect.any(String));
  });

  it('is refused by operations that do not accept Admin tokens (403)', async () => {
    const h = harness();
    const res = await h.http.get('/v1/accounts').set('Authorization', await adminToken(h));
    expect(res.status).toBe(403);
  });
});
