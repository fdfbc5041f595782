import { describe, expect, it } from 'vitest';

import { createHarness, newAccount, type TestAccount, suiteAccounts } from '../support/harness.js';
import { captureEvents } from '../support/shipping-fixtures.js';

function channelBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Webshop EU',
    documentRendering: { labelFormat: 'PDF', labelSize: 'A6' },
    units: { weightUnit: 'KG', dimensionUnit: 'CM' },
    customs: { currency: 'EUR', incoterm: 'DAP', contentType: 'SALE_OF_GOODS' },
    ...overrides,
  };
}

describe('shipment channels', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'Other merchant']);

  async function create(account: TestAccount, body: Record<string, unknown> = channelBody()): Promise<string> {
    const res = await h.http.post('/v1/shipment-channels').set('Authorization', account.auth).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }
  const get = (account: TestAccount, id: string) => h.http.get(`/v1/shipment-channels/${id}`).set('Authorization', account.auth);

  it('creates a channel owned by the token’s account, default false unless asked', async () => {
    const id = await create(a);
    const res = await get(a, id);
    expect(res.body).toEqual({
      id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      accountId: a.accountId,
      name: 'Webshop EU',
      documentRendering: { labelFormat: 'PDF', labelSize: 'A6' },
      units: { weightUnit: 'KG', dimensionUnit: 'CM' },
      customs: { currency: 'EUR', incoterm: 'DAP', contentType: 'SALE_OF_GOODS' },
      default: false,
    });
  });

  it.each([
    ['name', { name: undefined }, 'body/name'],
    ['documentRendering', { documentRendering: undefined }, 'body/documentRendering'],
    ['a label size', { documentRendering: { labelFormat: 'PNG' } }, 'body/documentRendering/labelSize'],
  ])('requires %s at creation', async (_name, overrides, field) => {
    const res = await h.http.post('/v1/shipment-channels').set('Authorization', a.auth).send(channelBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field, message: 'is required' });
  });

  it('refuses ZPL on anything but 4x6 label stock, accepts it on LABEL_4X6', async () => {
    const before = events.length;
    const bad = await h.http.post('/v1/shipment-channels').set('Authorization', a.auth).send(channelBody({ documentRendering: { labelFormat: 'ZPL', labelSize: 'A6' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.properties.violations).toEqual([{ field: 'body/documentRendering/labelSize', message: expect.stringContaining('LABEL_4X6') }]);
    expect(events.length).toBe(before);
    const id = await create(a, channelBody({ documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6', resolutionDpi: 300 } }));
    expect((await get(a, id)).body.documentRendering).toEqual({ labelFormat: 'ZPL', labelSize: 'LABEL_4X6', resolutionDpi: 300 });
    const replace = await h.http.put(`/v1/shipment-channels/${id}`).set('Authorization', a.auth).send(channelBody({ documentRendering: { labelFormat: 'ZPL', labelSize: 'A4' } }));
    expect(replace.status).toBe(400);
  });

  it.each([
    [{ documentRendering: { labelFormat: 'PDF', labelSize: 'A6', resolutionDpi: 72 } }, 'body/documentRendering/resolutionDpi'],
    [{ units: { weightUnit: 'STONE', dimensionUnit: 'CM' } }, 'body/units/weightUnit'],
    [{ customs: { incoterm: 'XYZ' } }, 'body/customs/incoterm'],
    [{ customs: { currency: 'euro' } }, 'body/customs/currency'],
  ])('validates %o', async (overrides, field) => {
    const res = await h.http.post('/v1/shipment-channels').set('Authorization', a.auth).send(channelBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe(field);
  });

  it('keeps one default channel per account: a new default takes the flag', async () => {
    const owner = await newAccount(h, { alias: 'Defaults' });
    const first = await create(owner, channelBody({ name: 'First', default: true }));
    const second = await create(owner, channelBody({ name: 'Second' }));
    expect((await get(owner, first)).body.default).toBe(true);
    const from = events.length;
    const third = await create(owner, channelBody({ name: 'Third', default: true }));
    expect((await get(owner, first)).body.default).toBe(false);
    expect((await get(owner, third)).body.default).toBe(true);
    expect(events.slice(from).map((e) => [e.type, e.payload.id, e.payload.default])).toEqual([
      ['CREATED', third, true],
      ['UPDATED', first, false],
    ]);
    // Replace with default: true moves it again.
    await h.http.put(`/v1/shipment-channels/${second}`).set('Authorization', owner.auth).send(channelBody({ name: 'Second', default: true })).expect(204);
    const list = await h.http.get('/v1/shipment-channels').set('Authorization', owner.auth);
    expect(list.body.items.filter((c: { default: boolean }) => c.default).map((c: { id: string }) => c.id)).toEqual([second]);
    // Another account's default is untouched.
    const other = await create(b, channelBody({ default: true }));
    expect((await get(owner, second)).body.default).toBe(true);
    expect((await get(b, other)).body.default).toBe(true);
  });

  it('replaces in full (omitted parts are cleared) and deletes', async () => {
    const id = await create(a);
    await h.http.put(`/v1/shipment-channels/${id}`).set('Authorization', a.auth).send({ name: 'Bare', documentRendering: { labelFormat: 'PNG', labelSize: 'A4' } }).expect(204);
    const res = await get(a, id);
    expect(res.body).not.toHaveProperty('units');
    expect(res.body).not.toHaveProperty('customs');
    expect(res.body).toMatchObject({ name: 'Bare', default: false });
    await h.http.delete(`/v1/shipment-channels/${id}`).set('Authorization', a.auth).expect(204);
    expect((await get(a, id)).status).toBe(404);
  });

  it('pages with a cursor', async () => {
    const owner = await newAccount(h, { alias: 'Pages' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await create(owner, channelBody({ name: `Channel ${i}` })));
    const page1 = await h.http.get('/v1/shipment-channels?limit=2').set('Authorization', owner.auth);
    const page2 = await h.http.get(`/v1/shipment-channels?limit=2&cursor=${page1.body.nextCursor}`).set('Authorization', owner.auth);
    const page3 = await h.http.get(`/v1/shipment-channels?limit=2&cursor=${page2.body.nextCursor}`).set('Authorization', owner.auth);
    expect([...page1.body.items, ...page2.body.items, ...page3.body.items].map((c: { id: string }) => c.id)).toEqual(ids);
    expect(page3.body.nextCursor).toBeUndefined();
  });

  it('hides account A’s channels from account B', async () => {
    const id = await create(a);
    const path = `/v1/shipment-channels/${id}`;
    expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', b.auth).send(channelBody())).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    const list = await h.http.get('/v1/shipment-channels?limit=100').set('Authorization', b.auth);
    expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(id);
    expect((await get(a, id)).status).toBe(200);
  });

  it('publishes SHIPMENT_CHANNEL events for create, replace and delete', async () => {
    const from = events.length;
    const id = await create(a);
    await h.http.put(`/v1/shipment-channels/${id}`).set('Authorization', a.auth).send(channelBody({ name: 'Renamed' })).expect(204);
    await h.http.delete(`/v1/shipment-channels/${id}`).set('Authorization', a.auth).expect(204);
    const mine = events.slice(from).filter((e) => e.topic === 'SHIPMENT_CHANNEL');
    expect(mine.map((e) => [e.type, e.accountId, e.payload.id])).toEqual([
      ['CREATED', a.accountId, id],
      ['UPDATED', a.accountId, id],
      ['DELETED', a.accountId, id],
    ]);
  });
});
