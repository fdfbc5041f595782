import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';

import { createHarness, newAccount, type Harness, type TestAccount, suiteAccounts } from '../support/harness.js';
import { captureEvents } from '../support/shipping-fixtures.js';

const DHL_PARCEL = catalogueIds.carrier('DHL_PARCEL');
const DPD = catalogueIds.carrier('DPD');
const UNKNOWN = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';

function definitionBody(overrides: Record<string, unknown> = {}) {
  return {
    carrierId: DHL_PARCEL,
    name: 'DHL Parcel Germany',
    group: 'main_warehouse',
    settings: [
      { key: 'username', value: 'api-user-4711' },
      { key: 'password', value: 's3cr3t-staging' },
    ],
    ...overrides,
  };
}

describe('carrier definitions', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'Second warehouse']);

  async function create(account: TestAccount, body: Record<string, unknown> = definitionBody(), version: 'v0' | 'v1' = 'v1'): Promise<string> {
    const res = await h.http.post(`/${version}/carrier-definitions`).set('Authorization', account.auth).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id']);
    return res.body.id;
  }

  describe('create and read (v0 and v1 share one store)', () => {
    it('creates through v0 and reads through v1 and back, with defaults applied', async () => {
      const id = await create(a, definitionBody({ mode: undefined }), 'v0');
      const v1 = await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth);
      expect(v1.status).toBe(200);
      expect(v1.body).toEqual({
        id,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        carrierId: DHL_PARCEL,
        name: 'DHL Parcel Germany',
        group: 'main_warehouse',
        mode: 'STAGING',
        settings: [
          { key: 'username', value: 'api-user-4711' },
          { key: 'password', value: 's3cr3t-staging' },
        ],
      });
      const v0 = await h.http.get(`/v0/carrier-definitions/${id}`).set('Authorization', a.auth);
      expect(v0.body).toEqual(v1.body);
    });

    it('reads the empty-string mode as STAGING and never returns it', async () => {
      const id = await create(a, definitionBody({ mode: '' }));
      expect((await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).body.mode).toBe('STAGING');
    });

    it('omits empty settings and an empty group', async () => {
      const id = await create(a, { carrierId: DPD, name: 'DPD', group: '', settings: [] });
      const res = await h.http.get(`/v0/carrier-definitions/${id}`).set('Authorization', a.auth);
      expect(res.body).not.toHaveProperty('settings');
      expect(res.body).not.toHaveProperty('group');
    });
  });

  describe('mode transitions', () => {
    it('creates PRODUCTION when asked', async () => {
      const id = await create(a, definitionBody({ mode: 'PRODUCTION' }));
      expect((await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).body.mode).toBe('PRODUCTION');
    });

    it('moves STAGING → PRODUCTION by replace (v0 and v1), bumping updatedAt', async () => {
      for (const version of ['v0', 'v1']) {
        const id = await create(a);
        h.clock.advance(60_000);
        const put = await h.http.put(`/${version}/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ mode: 'PRODUCTION', name: 'Live' }));
        expect(put.status).toBe(204);
        expect(put.text).toBe('');
        const res = await h.http.get(`/${version}/carrier-definitions/${id}`).set('Authorization', a.auth);
        expect(res.body).toMatchObject({ mode: 'PRODUCTION', name: 'Live' });
        expect(Date.parse(res.body.updatedAt) - Date.parse(res.body.createdAt)).toBe(60_000);
      }
    });

    it.each([['STAGING'], [''], [undefined]])('refuses PRODUCTION → %s and changes nothing', async (mode) => {
      const id = await create(a, definitionBody({ mode: 'PRODUCTION' }));
      const before = (await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).body;
      const res = await h.http.put(`/v0/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ mode, name: 'Back to test' }));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('https://shipmock.dev/problems/rule-violation');
      expect(res.body.properties.violations).toEqual([{ field: 'body/mode', message: expect.stringContaining('cannot go back to STAGING') }]);
      expect((await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).body).toEqual(before);
    });

    it('keeps PRODUCTION on a replace that restates it', async () => {
      const id = await create(a, definitionBody({ mode: 'PRODUCTION' }));
      const res = await h.http.put(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ mode: 'PRODUCTION', name: 'Renamed' }));
      expect(res.status).toBe(204);
    });

    it('keeps STAGING when a replace omits the mode', async () => {
      const id = await create(a);
      await h.http.put(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ name: 'Still test' })).expect(204);
      expect((await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).body.mode).toBe('STAGING');
    });
  });

  describe('bad input changes nothing', () => {
    it.each([
      ['an unknown carrierId', { carrierId: UNKNOWN }, 400, 'body/carrierId'],
      ['a duplicate setting key', { settings: [{ key: 'user', value: 'a' }, { key: 'password', value: 'b' }, { key: 'user', value: 'c' }] }, 400, 'body/settings/2/key'],
      ['a bad group', { group: 'has space' }, 400, 'body/group'],
      ['a bad mode', { mode: 'LIVE' }, 400, 'body/mode'],
      ['a missing name', { name: undefined }, 400, 'body/name'],
      ['an extra field', { colour: 'red' }, 400, 'body/colour'],
    ])('%s → %i naming %s (v0 and v1)', async (_name, overrides, status, field) => {
      for (const version of ['v0', 'v1']) {
        const before = events.length;
        const res = await h.http.post(`/${version}/carrier-definitions`).set('Authorization', a.auth).send(definitionBody(overrides));
        expect(res.status).toBe(status);
        expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
        expect(events.length).toBe(before);
      }
    });

    it('refuses an unknown carrierId on replace too', async () => {
      const id = await create(a);
      const res = await h.http.put(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ carrierId: UNKNOWN }));
      expect(res.status).toBe(400);
      expect(res.body.properties.violations[0].field).toBe('body/carrierId');
    });

    it('refuses a Company token (403)', async () => {
      const res = await h.http.get('/v0/carrier-definitions').set('Authorization', a.companyAuth);
      expect(res.status).toBe(403);
    });
  });

  describe('v0 404 body', () => {
    it.each([
      ['GET', 'get'],
      ['PUT', 'put'],
      ['DELETE', 'delete'],
    ] as const)('%s of an unknown id answers 404 with the errors array, status as a string', async (_m, method) => {
      let req = h.http[method](`/v0/carrier-definitions/${UNKNOWN}`).set('Authorization', a.auth);
      if (method === 'put') req = req.send(definitionBody());
      const res = await req;
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        type: 'https://shipmock.dev/problems/not-found',
        status: 404,
        instance: `/v0/carrier-definitions/${UNKNOWN}`,
        errors: [{ status: '404', code: 'NOT_FOUND', title: 'Resource not found', detail: expect.stringContaining(UNKNOWN) }],
      });
      expect(h.validators.validate('#/components/schemas/ProblemV0', res.body)).toEqual([]);
    });

    it('v1 404s keep the plain problem body', async () => {
      const res = await h.http.get(`/v1/carrier-definitions/${UNKNOWN}`).set('Authorization', a.auth);
      expect(res.status).toBe(404);
      expect(res.body).not.toHaveProperty('errors');
    });
  });

  describe('v0 pagination (page/size)', () => {
    let h2: Harness;
    let owner: TestAccount;
    const ids: string[] = [];

    // Made in a hook, so disposed here (see createHarness).
    afterAll(() => h2.dispose());
    beforeAll(async () => {
      h2 = createHarness();
      owner = await newAccount(h2);
      for (let i = 0; i < 25; i++) {
        const res = await h2.http
          .post('/v0/carrier-definitions')
          .set('Authorization', owner.auth)
          .send(definitionBody({ name: `Definition ${i}`, group: i % 5 === 0 ? 'returns' : 'main' }));
        ids.push(res.body.id);
      }
    });
    afterAll(() => h2.dispose());

    const list = (query: Record<string, unknown>) => h2.http.get('/v0/carrier-definitions').query(query).set('Authorization', owner.auth);

    it('defaults to page 0 of size 10', async () => {
      const res = await list({});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ currentPage: 0, pageSize: 10, totalPages: 3 });
      expect(res.body.items.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 10));
    });

    it('serves the last, partial page and 404s one past it with the v0 body', async () => {
      const last = await list({ page: 2 });
      expect(last.body).toMatchObject({ currentPage: 2, pageSize: 10, totalPages: 3 });
      expect(last.body.items.map((d: { id: string }) => d.id)).toEqual(ids.slice(20));
      const past = await list({ page: 3 });
      expect(past.status).toBe(404);
      expect(past.body.errors).toEqual([{ status: '404', code: 'NOT_FOUND', title: 'Resource not found', detail: expect.stringContaining('Page 3') }]);
      expect((await list({ page: 2147483647 })).status).toBe(404);
    });

    it('accepts size 1000 (everything on page 0) and size 1', async () => {
      const big = await list({ size: 1000 });
      expect(big.body).toMatchObject({ currentPage: 0, pageSize: 1000, totalPages: 1 });
      expect(big.body.items).toHaveLength(25);
      const one = await list({ size: 1, page: 24 });
      expect(one.body).toMatchObject({ currentPage: 24, pageSize: 1, totalPages: 25, items: [{ id: ids[24] }] });
    });

    it.each([
      [{ size: 1001 }, 'query/size'],
      [{ size: 0 }, 'query/size'],
      [{ page: -1 }, 'query/page'],
      [{ page: 'first' }, 'query/page'],
      [{ group: 'no-dashes' }, 'query/group'],
    ])('refuses %o with 400 naming %s', async (query, field) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.properties.violations[0].field).toBe(field);
    });

    it('filters by group before paging', async () => {
      const res = await list({ group: 'returns', size: 2 });
      expect(res.body).toMatchObject({ currentPage: 0, pageSize: 2, totalPages: 3 });
      expect(res.body.items.map((d: { id: string }) => d.id)).toEqual([ids[0], ids[5]]);
      const lastPage = await list({ group: 'returns', size: 2, page: 2 });
      expect(lastPage.body.items.map((d: { id: string }) => d.id)).toEqual([ids[20]]);
      const none = await list({ group: 'nothing_here' });
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ currentPage: 0, pageSize: 10, totalPages: 0, items: [] });
    });

    it('answers page 0 of an empty account with an empty page, not a 404', async () => {
      const empty = await newAccount(h2);
      const res = await h2.http.get('/v0/carrier-definitions').set('Authorization', empty.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ currentPage: 0, pageSize: 10, totalPages: 0, items: [] });
      expect((await h2.http.get('/v0/carrier-definitions?page=1').set('Authorization', empty.auth)).status).toBe(404);
    });

    it('walks the same definitions with v1 cursors, filtered by group, carrier and mode', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await h2.http
          .get('/v1/carrier-definitions')
          .query({ limit: 7, ...(cursor ? { cursor } : {}) })
          .set('Authorization', owner.auth);
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((d: { id: string }) => d.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(ids);
      const group = await h2.http.get('/v1/carrier-definitions').query({ group: 'returns' }).set('Authorization', owner.auth);
      expect(group.body.items).toHaveLength(5);
      const byCarrier = await h2.http.get('/v1/carrier-definitions').query({ carrier_id: DPD }).set('Authorization', owner.auth);
      expect(byCarrier.body).toEqual({ items: [] });
      const byMode = await h2.http.get('/v1/carrier-definitions').query({ mode: 'STAGING', limit: 100 }).set('Authorization', owner.auth);
      expect(byMode.body.items).toHaveLength(25);
      const production = await h2.http.get('/v1/carrier-definitions').query({ mode: 'PRODUCTION' }).set('Authorization', owner.auth);
      expect(production.body).toEqual({ items: [] });
    });
  });

  describe('delete', () => {
    it('removes permanently (v0 and v1): 204, then 404 everywhere', async () => {
      for (const version of ['v0', 'v1']) {
        const id = await create(a);
        const del = await h.http.delete(`/${version}/carrier-definitions/${id}`).set('Authorization', a.auth);
        expect(del.status).toBe(204);
        expect((await h.http.get(`/v0/carrier-definitions/${id}`).set('Authorization', a.auth)).status).toBe(404);
        expect((await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth)).status).toBe(404);
        expect((await h.http.delete(`/${version}/carrier-definitions/${id}`).set('Authorization', a.auth)).status).toBe(404);
      }
    });
  });

  describe('isolation', () => {
    it('hides account A’s definition from account B in get, replace, delete and lists', async () => {
      const id = await create(a);
      for (const version of ['v0', 'v1']) {
        const path = `/${version}/carrier-definitions/${id}`;
        expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
        expect((await h.http.put(path).set('Authorization', b.auth).send(definitionBody({ mode: 'PRODUCTION' }))).status).toBe(404);
        expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
      }
      const v0 = await h.http.get('/v0/carrier-definitions?size=1000').set('Authorization', b.auth);
      expect(v0.body.items.map((d: { id: string }) => d.id)).not.toContain(id);
      const v1 = await h.http.get('/v1/carrier-definitions?limit=100').set('Authorization', b.auth);
      expect(v1.body.items.map((d: { id: string }) => d.id)).not.toContain(id);
      const own = await h.http.get(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth);
      expect(own.body.mode).toBe('STAGING');
    });

    it('the foreign 404 on v0 carries the errors array too', async () => {
      const id = await create(a);
      const res = await h.http.get(`/v0/carrier-definitions/${id}`).set('Authorization', b.auth);
      expect(res.status).toBe(404);
      expect(res.body.errors[0].status).toBe('404');
    });
  });

  describe('events', () => {
    it('publishes CARRIER_DEFINITION CREATED, UPDATED and DELETED with the account id', async () => {
      const from = events.length;
      const id = await create(a, definitionBody(), 'v0');
      await h.http.put(`/v0/carrier-definitions/${id}`).set('Authorization', a.auth).send(definitionBody({ mode: 'PRODUCTION' })).expect(204);
      await h.http.delete(`/v1/carrier-definitions/${id}`).set('Authorization', a.auth).expect(204);
      const mine = events.slice(from).filter((e) => e.topic === 'CARRIER_DEFINITION');
      expect(mine.map((e) => [e.type, e.accountId, e.payload.id])).toEqual([
        ['CREATED', a.accountId, id],
        ['UPDATED', a.accountId, id],
        ['DELETED', a.accountId, id],
      ]);
      expect(mine[0].payload.mode).toBe('STAGING');
      expect(mine[1].payload.mode).toBe('PRODUCTION');
    });
  });
});
