import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ITEMS_PER_PARCEL } from '../../src/resources/parcel-items/service.js';
import { createHarness, newAccount, type TestAccount } from '../support/harness.js';

/**
 * What the contract bounds the mock never answers beyond (contract/DECISIONS.md, "Bounds the
 * mock keeps"): Parcel.itemIds has maxItems 100, so the 101st item of a Parcel is refused —
 * created or moved there — and the Parcel still validates against the contract.
 */
const h = createHarness();
let a: TestAccount;
const itemBody = (parcelId: string) => ({ parcelId, description: 'Paperback novel', quantity: 1, unitWeight: 0.4, hsCode: '490199' });

beforeAll(async () => {
  a = await newAccount(h);
});

async function parcel(): Promise<string> {
  const res = await h.http.post('/v1/parcels').set('Authorization', a.auth).send({ weight: 2.5 });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('a Parcel holds at most MAX_ITEMS_PER_PARCEL items', () => {
  it('the 101st create and a move into a full Parcel are 400 rule-violation; the Parcel stays valid', async () => {
    expect(MAX_ITEMS_PER_PARCEL).toBe(100);
    const full = await parcel();
    for (let i = 0; i < MAX_ITEMS_PER_PARCEL; i++) {
      const res = await h.http.post('/v1/parcels/items').set('Authorization', a.auth).send(itemBody(full));
      expect(res.status).toBe(201);
    }
    const refused = await h.http.post('/v1/parcels/items').set('Authorization', a.auth).send(itemBody(full));
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('https://shipmock.dev/problems/rule-violation');
    expect(refused.body.properties.violations).toEqual([{ field: 'body/parcelId', message: 'a Parcel holds at most 100 items' }]);

    const other = await parcel();
    const item = await h.http.post('/v1/parcels/items').set('Authorization', a.auth).send(itemBody(other));
    const moved = await h.http.put(`/v1/parcels/items/${item.body.id}`).set('Authorization', a.auth).send(itemBody(full));
    expect(moved.status).toBe(400);

    // Response validation is on ('error'): a Parcel beyond maxItems would be a 500 here.
    const got = await h.http.get(`/v1/parcels/${full}`).set('Authorization', a.auth);
    expect(got.status).toBe(200);
    expect(got.body.itemIds).toHaveLength(100);
  }, 60_000);
});
