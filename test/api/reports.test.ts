import { describe, expect, it } from 'vitest';
import { companyToken, createHarness, newAccount, type Harness, type TestAccount, harnessInternals } from '../support/harness.js';
import { renewToken } from '../support/shipping-fixtures.js';

const DAY = 24 * 3600_000;

async function pudoQuery(h: Harness, account: TestAccount) {
  const res = await h.http.post('/v1/pudo-points/queries').set('Authorization', account.auth).send({ postalCode: '10115', countryCode: 'DE', limit: 1 });
  expect(res.status).toBe(200);
  return res.body.queryId as string;
}

/** Books N parcels the way the bookings service will: one CONSUME/PARCEL token per parcel. */
function bookParcels(h: Harness, account: TestAccount, parcels: number, bookingId = '9e5b6a7c-8f9d-4e0f-8a1b-3c4d5e6f7a8b') {
  harnessInternals(h).services.usage.recordUsage({ accountId: account.accountId, companyId: h.companyId, operation: 'CONSUME', topic: 'PARCEL', tokens: parcels, reference: bookingId });
}

const lines = (consume: number, query: number) => [
  { operation: 'CONSUME', topic: 'PARCEL', tokens: consume },
  { operation: 'QUERY', topic: 'PUDO_POINT', tokens: query },
];

describe('usage reports', () => {
  it('reconcile exactly at account and company level (N parcels, M PUDO queries)', async () => {
    const h = createHarness();
    const a = await newAccount(h, { alias: 'A' });
    const b = await newAccount(h, { alias: 'B' });
    const idle = await newAccount(h, { alias: 'Idle' });
    const M = 4;
    for (let i = 0; i < M; i++) await pudoQuery(h, a);
    bookParcels(h, a, 2);
    bookParcels(h, a, 1);
    await pudoQuery(h, b);
    bookParcels(h, b, 5);

    const reportA = await h.http.get('/v1/reports').set('Authorization', a.auth);
    expect(reportA.status).toBe(200);
    expect(reportA.body).toEqual({
      periodFrom: '2026-01-01T00:00:00.000Z',
      periodTo: '2026-02-01T00:00:00.000Z',
      level: 'ACCOUNT',
      companyId: h.companyId,
      accountId: a.accountId,
      usage: lines(3, M),
    });
    expect((await h.http.get('/v1/reports').set('Authorization', b.auth)).body.usage).toEqual(lines(5, 1));

    const company = await h.http.get('/v1/reports').set('Authorization', await companyToken(h));
    expect(company.status).toBe(200);
    expect(company.body).toMatchObject({ level: 'COMPANY', companyId: h.companyId, usage: lines(8, M + 1) });
    expect(company.body).not.toHaveProperty('accountId');
    expect(company.body.accounts).toEqual([
      { accountId: a.accountId, usage: lines(3, M) },
      { accountId: b.accountId, usage: lines(5, 1) },
      { accountId: idle.accountId, usage: lines(0, 0) },
    ]);
  });

  it('counts [period_from, period_to) on the virtual clock; the default is the current UTC month', async () => {
    const h = createHarness();
    let a = await newAccount(h);
    await pudoQuery(h, a); // 2026-01-01T00:00:00Z, the first instant of January
    h.clock.advance(30 * DAY + 23 * 3600_000); // 2026-01-31T23:00
    bookParcels(h, a, 2);
    h.clock.advance(3600_000); // 2026-02-01T00:00, the first instant of February
    a = await renewToken(h, a);
    bookParcels(h, a, 7);
    await pudoQuery(h, a);

    const february = await h.http.get('/v1/reports').set('Authorization', a.auth);
    expect(february.body).toMatchObject({ periodFrom: '2026-02-01T00:00:00.000Z', periodTo: '2026-03-01T00:00:00.000Z', usage: lines(7, 1) });
    const january = await h.http.get('/v1/reports?period_from=2026-01-01T00:00:00Z&period_to=2026-02-01T00:00:00Z').set('Authorization', a.auth);
    expect(january.body.usage).toEqual(lines(2, 1));
    const both = await h.http.get('/v1/reports?period_from=2026-01-01T00:00:00Z&period_to=2026-02-01T00:00:00.001Z').set('Authorization', a.auth);
    expect(both.body.usage).toEqual(lines(9, 2));
    const fromOnly = await h.http.get('/v1/reports?period_from=2026-01-31T00:00:00Z').set('Authorization', a.auth);
    expect(fromOnly.body).toMatchObject({ periodFrom: '2026-01-31T00:00:00.000Z', periodTo: '2026-03-01T00:00:00.000Z', usage: lines(9, 1) });
  });

  it.each([
    ['period_from after period_to', '?period_from=2026-02-01T00:00:00Z&period_to=2026-01-01T00:00:00Z'],
    ['an empty period', '?period_from=2026-01-01T00:00:00Z&period_to=2026-01-01T00:00:00Z'],
    ['period_to before the default start', '?period_to=2025-12-01T00:00:00Z'],
  ])('refuses %s with 400', async (_label, query) => {
    const h = createHarness();
    const a = await newAccount(h);
    const res = await h.http.get(`/v1/reports${query}`).set('Authorization', a.auth);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe('query/period_from');
  });

  it('refuses callers without an Account or Company token (client credentials are not a token)', async () => {
    const h = createHarness();
    expect((await h.http.get('/v1/reports')).status).toBe(401);
    expect((await h.http.get('/v1/reports').set('Authorization', h.basic)).status).toBe(401);
  });
});
