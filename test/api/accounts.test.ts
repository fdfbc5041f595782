import { describe, expect, it } from 'vitest';
import { accountBody, companyToken, createHarness, newAccount, type Harness, harnessInternals } from '../support/harness.js';

const DAY = 24 * 3_600_000;
const GRANT = { grantType: 'client_credentials' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function createAccount(h: Harness, auth: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.http.post('/v1/accounts').set('Authorization', auth).send(accountBody(overrides));
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('accounts', () => {
  it('creates an account with server defaults and reads it back', async () => {
    const h = createHarness();
    const auth = await companyToken(h);
    const id = await createAccount(h, auth, { sources: [] });
    const res = await h.http.get(`/v1/accounts/${id}`).set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      ...accountBody(),
      enabled: true,
      persistence: { type: 'PERMANENT' },
      type: 'NORMAL',
    });
  });

  it('publishes ACCOUNT events for create, replace and delete', async () => {
    const h = createHarness();
    const seen: string[] = [];
    h.events.subscribe((e) => seen.push(`${e.topic}:${e.type}:${e.accountId === undefined ? '-' : 'id'}`));
    const auth = await companyToken(h);
    const id = await createAccount(h, auth);
    await h.http.put(`/v1/accounts/${id}`).set('Authorization', auth).send(accountBody({ alias: 'Renamed' }));
    await h.http.delete(`/v1/accounts/${id}`).set('Authorization', auth);
    expect(seen).toEqual(['ACCOUNT:CREATED:id', 'ACCOUNT:UPDATED:id', 'ACCOUNT:DELETED:id']);
  });

  it.each([
    ['company missing', { company: undefined }, 'body/company'],
    ['contact.email missing', { contact: { name: 'A', phone: '+4930123456' } }, 'body/contact/email'],
    ['an unknown type', { type: 'GOLD' }, 'body/type'],
    ['an unknown persistence type', { persistence: { type: 'FOREVER' } }, 'body/persistence/type'],
  ])('refuses a create with %s (400, nothing stored)', async (_label, overrides, field) => {
    const h = createHarness();
    const auth = await companyToken(h);
    const res = await h.http.post('/v1/accounts').set('Authorization', auth).send(accountBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
    expect((await h.http.get('/v1/accounts').set('Authorization', auth)).body.items).toEqual([]);
  });

  it('replaces fully: omitted optional fields are cleared and take their defaults', async () => {
    const h = createHarness();
    const auth = await companyToken(h);
    const id = await createAccount(h, auth, { meta: { shop: 'x' }, sources: ['ERP'], type: 'SHARED', enabled: false });
    h.clock.advance(1000);
    const put = await h.http.put(`/v1/accounts/${id}`).set('Authorization', auth).send(accountBody({ alias: undefined }));
    expect(put.status).toBe(204);
    const res = await h.http.get(`/v1/accounts/${id}`).set('Authorization', auth);
    expect(res.body).toEqual({
      id,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      company: accountBody().company,
      contact: accountBody().contact,
      enabled: true,
      persistence: { type: 'PERMANENT' },
      type: 'NORMAL',
    });
  });

  it('lists with cursor pagination and the enabled/type filters', async () => {
    const h = createHarness();
    const auth = await companyToken(h);
    const ids = [
      await createAccount(h, auth),
      await createAccount(h, auth, { type: 'SHARED' }),
      await createAccount(h, auth, { enabled: false }),
    ];
    const first = await h.http.get('/v1/accounts?limit=2').set('Authorization', auth);
    expect(first.body.items.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2));
    const second = await h.http.get(`/v1/accounts?limit=2&cursor=${first.body.nextCursor}`).set('Authorization', auth);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids[2] })] });
    const disabled = await h.http.get('/v1/accounts?enabled=false').set('Authorization', auth);
    expect(disabled.body.items.map((a: { id: string }) => a.id)).toEqual([ids[2]]);
    const shared = await h.http.get('/v1/accounts?type=SHARED').set('Authorization', auth);
    expect(shared.body.items.map((a: { id: string }) => a.id)).toEqual([ids[1]]);
  });

  it('deletes an account: 404 afterwards, its data gone, its tokens 401, no new tokens', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const address = await h.http
      .post('/v1/addresses')
      .set('Authorization', account.auth)
      .send({ name: 'A', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    expect(address.status).toBe(201);
    expect(harnessInternals(h).services.addresses.all(account.accountId)).toHaveLength(1);

    expect((await h.http.delete(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth)).status).toBe(204);
    expect(harnessInternals(h).services.addresses.all(account.accountId)).toHaveLength(0);
    expect((await h.http.get(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth)).status).toBe(404);
    expect((await h.http.delete(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth)).status).toBe(404);
    const use = await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(use.status).toBe(401);
    expect(use.body.type).toBe('https://shipmock.dev/problems/invalid-token');
    const issue = await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send(GRANT);
    expect(issue.status).toBe(401);
  });

  it('lets the company read, re-enable and delete a disabled account', async () => {
    const h = createHarness();
    const auth = await companyToken(h);
    const id = await createAccount(h, auth, { enabled: false });
    const issue = () => h.http.post(`/v1/accounts/${id}/tokens`).set('Authorization', h.basic).send(GRANT);
    expect((await issue()).status).toBe(401);
    expect((await h.http.get(`/v1/accounts/${id}`).set('Authorization', auth)).body.enabled).toBe(false);
    expect((await h.http.put(`/v1/accounts/${id}`).set('Authorization', auth).send(accountBody({ enabled: true }))).status).toBe(204);
    expect((await issue()).status).toBe(200);
    expect((await h.http.delete(`/v1/accounts/${id}`).set('Authorization', auth)).status).toBe(204);
  });
});

describe('temporary accounts', () => {
  it('expire 30 days after creation on the virtual clock, like a delete', async () => {
    const h = createHarness();
    const deleted: string[] = [];
    h.events.subscribe((e) => e.type === 'DELETED' && deleted.push(e.accountId!));
    const account = await newAccount(h, { persistence: { type: 'TEMPORARY' } });
    const got = await h.http.get(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth);
    expect(got.body.persistence).toEqual({ type: 'TEMPORARY', expiresAt: '2026-01-31T00:00:00.000Z' });

    h.clock.advance(30 * DAY - 1);
    const fresh = await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send(GRANT);
    expect(fresh.status).toBe(200);
    h.clock.advance(1);
    expect(deleted).toEqual([account.accountId]);
    const company = await companyToken(h);
    expect((await h.http.get(`/v1/accounts/${account.accountId}`).set('Authorization', company)).status).toBe(404);
    expect((await h.http.get('/v1/accounts').set('Authorization', company)).body.items).toEqual([]);
    expect((await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send(GRANT)).status).toBe(401);
    expect((await h.http.get('/v1/addresses').set('Authorization', `Bearer ${fresh.body.accessToken}`)).status).toBe(401);
  });

  it('keep their expiry across replaces; switching to PERMANENT removes it, switching back restarts it', async () => {
    const h = createHarness();
    const id = await createAccount(h, await companyToken(h), { persistence: { type: 'TEMPORARY' } });
    // Company tokens live 4 h and this test moves days: a fresh token per call.
    const get = async () => h.http.get(`/v1/accounts/${id}`).set('Authorization', await companyToken(h));
    const put = async (body: object) => h.http.put(`/v1/accounts/${id}`).set('Authorization', await companyToken(h)).send(body);
    const expiry = async () => (await get()).body.persistence;
    h.clock.advance(DAY);
    await put(accountBody({ persistence: { type: 'TEMPORARY' } }));
    expect(await expiry()).toEqual({ type: 'TEMPORARY', expiresAt: '2026-01-31T00:00:00.000Z' });
    await put(accountBody());
    expect(await expiry()).toEqual({ type: 'PERMANENT' });
    await put(accountBody({ persistence: { type: 'TEMPORARY' } }));
    expect(await expiry()).toEqual({ type: 'TEMPORARY', expiresAt: '2026-02-01T00:00:00.000Z' });
    // The first schedule (Jan 31) must not remove an account whose expiry moved.
    h.clock.set(Date.parse('2026-01-31T12:00:00.000Z'));
    expect((await get()).status).toBe(200);
    h.clock.set(Date.parse('2026-02-01T00:00:00.000Z'));
    expect((await get()).status).toBe(404);
  });

  it('expire on lookup too, after a snapshot restore lost the timers', async () => {
    const h = createHarness();
    const auth = await companyToken(h);
    const id = await createAccount(h, auth, { persistence: { type: 'TEMPORARY' } });
    const restored = createHarness();
    harnessInternals(restored).runtime.store.restore(harnessInternals(h).runtime.store.snapshot());
    restored.clock.advance(31 * DAY);
    const company = await companyToken(restored);
    expect((await restored.http.get(`/v1/accounts/${id}`).set('Authorization', company)).status).toBe(404);
    expect((await restored.http.get('/v1/accounts').set('Authorization', company)).body.items).toEqual([]);
  });
});

describe('company isolation', () => {
  const OTHER = { companyId: '2a9c4e7d-6b1f-4d3a-8e5c-7f0a1b2c3d4e', name: 'Other', clientId: 'other-client', clientSecret: 'other-secret' };

  it("company B never sees company A's accounts (404 on get, replace, delete; absent from lists)", async () => {
    const h = createHarness({
      credentials: {
        companies: [{ companyId: '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84', name: 'A', clientId: 'a-client', clientSecret: 'a-secret' }, OTHER],
      },
    });
    const a = await newAccount(h);
    const tokenB = await h.http
      .post(`/v1/companies/${OTHER.companyId}/tokens`)
      .set('Authorization', basic(OTHER.clientId, OTHER.clientSecret))
      .send(GRANT);
    const authB = `Bearer ${tokenB.body.accessToken}`;
    const path = `/v1/accounts/${a.accountId}`;
    expect((await h.http.get(path).set('Authorization', authB)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', authB).send(accountBody({ alias: 'Hijacked' }))).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', authB)).status).toBe(404);
    expect((await h.http.get('/v1/accounts').set('Authorization', authB)).body.items).toEqual([]);
    const own = await h.http.get(path).set('Authorization', a.companyAuth);
    expect(own.body.alias).toBe('Warehouse Berlin');
  });
});
