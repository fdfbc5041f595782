import { describe, expect, it } from 'vitest';
import { createHarness, newAccount, type Harness, type TestAccount, suiteAccounts } from '../support/harness.js';
import { berlin, captureEvents, createAddress, ids, schemaErrors } from '../support/shipping-fixtures.js';

interface Point {
  id: string;
  carrierId: string;
  name: string;
  type: string;
  distanceMeters: number;
  address: { postalCode: string; countryCode: string; city: string; street: string };
  latitude: number;
  longitude: number;
  openingHours: { dayOfWeek: string; opensAt: string; closesAt: string }[];
}

async function query(h: Harness, account: TestAccount, body: Record<string, unknown>) {
  return h.http.post('/v1/pudo-points/queries').set('Authorization', account.auth).send(body);
}

describe('PUDO points', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);

  it('finds plausible points near a postal code, nearest first, in the postal area', async () => {
    const res = await query(h, a, { postalCode: '10115', countryCode: 'DE', limit: 8 });
    expect(res.status).toBe(200);
    const items = res.body.items as Point[];
    expect(items).toHaveLength(8);
    const distances = items.map((p) => p.distanceMeters);
    expect(distances).toEqual([...distances].sort((x, y) => x - y));
    for (const point of items) {
      expect(point.address).toMatchObject({ postalCode: '10115', countryCode: 'DE', city: 'Berlin' });
      expect(point.latitude).toBeGreaterThan(52.3);
      expect(point.latitude).toBeLessThan(52.7);
      expect(point.distanceMeters).toBeLessThan(15_000);
      expect(point.openingHours.length).toBeGreaterThan(0);
    }
    const names = items.map((p) => p.name).join(' | ');
    expect(names).toMatch(/DHL Paketshop|DHL Packstation|DPD Pickup|GLS PaketShop|UPS Access Point|Deutsche Post Filiale/);
    const lockers = items.filter((p) => p.type === 'LOCKER');
    for (const locker of lockers) expect(locker.openingHours).toHaveLength(7);
  });

  it('filters by carrier and gives each point a stable id that GET returns without distance', async () => {
    const res = await query(h, a, { postalCode: '80331', countryCode: 'DE', carrierId: ids.dhl, limit: 3 });
    const items = res.body.items as Point[];
    expect(items.every((p) => p.carrierId === ids.dhl)).toBe(true);
    expect(items.every((p) => /^(DHL |Deutsche Post)/.test(p.name))).toBe(true);
    const got = await h.http.get(`/v1/pudo-points/${items[0].id}`).set('Authorization', b.auth);
    expect(got.status).toBe(200);
    const { distanceMeters: _distance, ...withoutDistance } = items[0];
    expect(got.body).toEqual(withoutDistance);
    expect((await h.http.get('/v1/pudo-points/7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f').set('Authorization', a.auth)).status).toBe(404);
  });

  it('is deterministic: same query and seed → same points (in any order of queries); another seed → other points', async () => {
    const q = { postalCode: '1010', countryCode: 'AT', limit: 5 };
    const first = (await query(h, a, q)).body.items as Point[];
    const other = createHarness();
    const o = await newAccount(other);
    await query(other, o, { postalCode: '10115', countryCode: 'DE' });
    const again = (await query(other, o, q)).body.items as Point[];
    expect(again).toEqual(first);
    expect(first[0].address.city).toBe('Wien');

    const seeded = createHarness({ seed: 2 });
    const s = await newAccount(seeded);
    const different = (await query(seeded, s, q)).body.items as Point[];
    expect(different.map((p) => p.id)).not.toEqual(first.map((p) => p.id));
    expect(different.map((p) => p.name)).not.toEqual(first.map((p) => p.name));
  });

  it('queries near an address of the account and measures from latitude/longitude when given', async () => {
    const addressId = await createAddress(h, a, berlin);
    const near = await query(h, a, { addressId, carrierId: ids.dhl, limit: 50 });
    expect(near.status).toBe(200);
    expect((near.body.items as Point[])[0].address.city).toBe('Berlin');
    const target = (near.body.items as Point[])[20];
    const refined = await query(h, a, { addressId, carrierId: ids.dhl, latitude: target.latitude, longitude: target.longitude, limit: 1 });
    expect(refined.body.items[0]).toMatchObject({ id: target.id, distanceMeters: 0 });
  });

  it('queries near an address whose postal code is blanks (found by the contract fuzzer: a 500 before)', async () => {
    const addressId = await createAddress(h, a, { ...berlin, postalCode: '   ' });
    const res = await query(h, a, { addressId, limit: 3 });
    expect(res.status).toBe(200);
    expect((res.body.items as Point[]).map((p) => p.address.postalCode)).toEqual(['   ', '   ', '   ']);
  });

  it.each([
    ['no origin', {}, 'body'],
    ['countryCode without postalCode', { countryCode: 'DE' }, 'body/postalCode'],
    ['an unknown address', { addressId: '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f' }, 'body/addressId'],
    ['both origins', { addressId: '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f', postalCode: '10115', countryCode: 'DE' }, 'body/addressId'],
    ['an unknown carrier', { postalCode: '10115', countryCode: 'DE', carrierId: '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f' }, 'body/carrierId'],
  ])('refuses %s with 400 and bills nothing', async (_label, body, field) => {
    const before = h.usage.records(a.accountId).length;
    const res = await query(h, a, body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe(field);
    expect(h.usage.records(a.accountId)).toHaveLength(before);
  });

  it("refuses another account's address (isolation)", async () => {
    const foreign = await createAddress(h, b, berlin);
    const res = await query(h, a, { addressId: foreign });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe('body/addressId');
  });

  it('bills one QUERY/PUDO_POINT token per query, also with no results, and publishes a USAGE event', async () => {
    const c = await newAccount(h, { alias: 'C' });
    const empty = await query(h, c, { postalCode: '100-0001', countryCode: 'JP' });
    expect(empty.status).toBe(200);
    expect(empty.body.items).toEqual([]);
    const full = await query(h, c, { postalCode: '10115', countryCode: 'DE', limit: 1 });
    expect(h.usage.records(c.accountId).map((r) => [r.operation, r.topic, r.tokens, r.reference])).toEqual([
      ['QUERY', 'PUDO_POINT', 1, empty.body.queryId],
      ['QUERY', 'PUDO_POINT', 1, full.body.queryId],
    ]);
    const usage = events.filter((e) => e.topic === 'PUDO_POINT' && e.type === 'USAGE' && e.accountId === c.accountId);
    expect(usage.map((e) => e.payload)).toEqual([
      { operation: 'QUERY', topic: 'PUDO_POINT', tokens: 1, reference: empty.body.queryId },
      { operation: 'QUERY', topic: 'PUDO_POINT', tokens: 1, reference: full.body.queryId },
    ]);
    expect(schemaErrors(h, 'UsageEvent', usage[0])).toEqual([]);
  });
});
