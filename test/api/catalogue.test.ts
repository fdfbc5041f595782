import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { companyToken, createHarness, newAccount, type TestAccount } from '../support/harness.js';

const DHL_PARCEL = catalogueIds.carrier('DHL_PARCEL');
const DHL_PAKET = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const DHL_PAKET_INTERNATIONAL = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL');
const ROYAL_MAIL = catalogueIds.carrier('ROYAL_MAIL');
const UNKNOWN = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';

/** Reads a whole binary body (supertest buffers only text and JSON by default). */
function binary(res: { on(event: string, fn: (arg?: any) => void): void; setEncoding?: unknown }, done: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('carrier catalogue', () => {
  const h = createHarness();
  let account: TestAccount;
  let company: string;

  beforeAll(async () => {
    account = await newAccount(h);
    company = await companyToken(h);
  });
  afterAll(() => h.dispose());

  const get = (path: string, auth = account.auth) => h.http.get(path).set('Authorization', auth);

  async function walk(path: string, query: Record<string, string | number> = {}): Promise<any[]> {
    const items: any[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const res = await get(path).query({ ...query, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
      if (!cursor) return items;
    }
    throw new Error('more than 100 pages');
  }

  describe('carriers', () => {
    it('lists at least 8 carriers of every category, each with logo URL and serial types', async () => {
      const carriers = await walk('/v1/carriers', { limit: 100 });
      expect(carriers.length).toBeGreaterThanOrEqual(8);
      expect(new Set(carriers.map((c) => c.category))).toEqual(new Set(['PARCEL', 'PUDO', 'EXPRESS', 'FREIGHT']));
      for (const carrier of carriers) {
        expect(carrier.logoUrl).toBe(`/v1/carriers/${carrier.id}/logo`);
        expect(carrier.serialTypeIds.length).toBeGreaterThan(0);
      }
      expect(carriers.map((c) => c.name)).toEqual(expect.arrayContaining(['DHL Parcel', 'DPD', 'GLS', 'PostNL', 'UPS', 'FedEx Express', 'Royal Mail', 'DB Schenker Freight']));
    });

    it('walks the carrier list page by page with a cursor, in both orders', async () => {
      const all = await walk('/v1/carriers', { limit: 100 });
      const paged = await walk('/v1/carriers', { limit: 3 });
      expect(paged.map((c) => c.id)).toEqual(all.map((c) => c.id));
      const reversed = await walk('/v1/carriers', { limit: 4, sort: 'DESC' });
      expect(reversed.map((c) => c.id)).toEqual(all.map((c) => c.id).reverse());
      const first = await get('/v1/carriers').query({ limit: 1 });
      expect(first.body.items).toHaveLength(1);
      expect(first.body.nextCursor).toEqual(expect.any(String));
    });

    it('gets one carrier; an unknown id is 404', async () => {
      const res = await get(`/v1/carriers/${DHL_PARCEL}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: DHL_PARCEL, code: 'DHL_PARCEL', name: 'DHL Parcel', category: 'PARCEL' });
      const missing = await get(`/v1/carriers/${UNKNOWN}`);
      expect(missing.status).toBe(404);
      expect(missing.body.type).toBe('https://shipmock.dev/problems/not-found');
    });

    it.each([
      ['route_from and route_to', { route_from: 'GB', route_to: 'GB' }],
      ['route_from alone', { route_from: 'GB' }],
      ['route_to alone', { route_to: 'SE' }],
    ])('narrows the list with %s to carriers serving the route', async (_name, query) => {
      const carriers = await walk('/v1/carriers', { limit: 100, ...query });
      const all = await walk('/v1/carriers', { limit: 100 });
      expect(carriers.length).toBeGreaterThan(0);
      expect(carriers.length).toBeLessThan(all.length);
      for (const carrier of carriers) {
        const services = await walk(`/v1/carriers/${carrier.id}/services`, { limit: 100, ...query });
        expect(services.length, carrier.code).toBeGreaterThan(0);
      }
    });

    it('lists for GB → GB only carriers with a domestic UK service', async () => {
      const codes = (await walk('/v1/carriers', { route_from: 'GB', route_to: 'GB', limit: 100 })).map((c) => c.code);
      expect(codes).toContain('ROYAL_MAIL');
      expect(codes).not.toContain('DHL_PARCEL');
      expect(codes).not.toContain('POSTNORD');
    });

    it('gets a carrier with a route it serves; a route it does not serve is 400 naming both parameters', async () => {
      expect((await get(`/v1/carriers/${ROYAL_MAIL}`).query({ route_from: 'GB', route_to: 'DE' })).status).toBe(200);
      const res = await get(`/v1/carriers/${ROYAL_MAIL}`).query({ route_from: 'DE', route_to: 'FR' });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('https://shipmock.dev/problems/rule-violation');
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toEqual(['query/route_from', 'query/route_to']);
    });

    it('rejects a malformed route parameter', async () => {
      const res = await get('/v1/carriers').query({ route_from: 'deu' });
      expect(res.status).toBe(400);
      expect(res.body.properties.violations[0].field).toBe('query/route_from');
    });
  });

  describe('services and routes', () => {
    it('lists the services of a carrier, all of that carrier, each with routes', async () => {
      const services = await walk(`/v1/carriers/${DHL_PARCEL}/services`);
      expect(services.length).toBeGreaterThanOrEqual(3);
      for (const service of services) {
        expect(service.carrierId).toBe(DHL_PARCEL);
        expect(service.routes.length).toBeGreaterThan(0);
      }
      expect((await get(`/v1/carriers/${UNKNOWN}/services`)).status).toBe(404);
    });

    it('lists every service, filtered by carrier_id; an unknown carrier_id gives an empty page', async () => {
      const all = await walk('/v1/services', { limit: 100 });
      expect(all.length).toBeGreaterThanOrEqual(8 * 3);
      const dhl = await walk('/v1/services', { carrier_id: DHL_PARCEL, limit: 2 });
      expect(dhl.map((s) => s.id)).toEqual(all.filter((s) => s.carrierId === DHL_PARCEL).map((s) => s.id));
      const none = await get('/v1/services').query({ carrier_id: UNKNOWN });
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ items: [] });
    });

    it('narrows services by route: each listed service has the route entry, the others do not', async () => {
      const all = await walk('/v1/services', { limit: 100 });
      const matching = await walk('/v1/services', { route_from: 'DE', route_to: 'CH', limit: 100 });
      const has = (s: any) => s.routes.some((r: any) => r.from === 'DE' && r.to === 'CH');
      expect(matching.map((s) => s.id)).toEqual(all.filter(has).map((s) => s.id));
      expect(matching.length).toBeGreaterThan(1);
      const fromOnly = await walk('/v1/services', { route_from: 'SE', limit: 100 });
      expect(fromOnly.map((s) => s.id)).toEqual(all.filter((s) => s.routes.some((r: any) => r.from === 'SE')).map((s) => s.id));
      const combined = await walk('/v1/services', { route_from: 'DE', route_to: 'CH', carrier_id: DHL_PARCEL });
      expect(combined.every((s) => s.carrierId === DHL_PARCEL && has(s))).toBe(true);
      expect(combined.length).toBeGreaterThan(0);
    });

    it('gets a service; a route filter it does not serve is 400; unknown is 404', async () => {
      const res = await get(`/v1/services/${DHL_PAKET}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: DHL_PAKET, code: 'DHL_PAKET', carrierId: DHL_PARCEL, routes: [{ from: 'DE', to: 'DE', dutiable: false, domestic: true }] });
      expect((await get(`/v1/services/${DHL_PAKET}`).query({ route_from: 'DE', route_to: 'DE' })).status).toBe(200);
      const wrong = await get(`/v1/services/${DHL_PAKET}`).query({ route_to: 'FR' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.properties.violations).toEqual([{ field: 'query/route_to', message: expect.stringContaining('any country → FR') }]);
      expect((await get(`/v1/services/${UNKNOWN}`)).status).toBe(404);
    });

    it.each([
      ['DE', 'DE', DHL_PAKET, { supported: true, dutiable: false, domestic: true }],
      ['DE', 'FR', DHL_PAKET_INTERNATIONAL, { supported: true, dutiable: false, domestic: false }],
      ['DE', 'GB', DHL_PAKET_INTERNATIONAL, { supported: true, dutiable: true, domestic: false }],
      ['DE', 'CH', DHL_PAKET_INTERNATIONAL, { supported: true, dutiable: true, domestic: false }],
      ['DE', 'US', DHL_PAKET_INTERNATIONAL, { supported: true, dutiable: true, domestic: false }],
      ['FR', 'DE', DHL_PAKET_INTERNATIONAL, { supported: false }],
      ['DE', 'FR', DHL_PAKET, { supported: false }],
    ])('fetch-service-route %s → %s', async (from, to, serviceId, expected) => {
      const res = await get(`/v1/services/${serviceId}/routes`).query({ route_from: from, route_to: to });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ serviceId, routeFrom: from, routeTo: to, ...expected });
    });

    it('fetch-service-route needs both countries and a known service', async () => {
      const missing = await get(`/v1/services/${DHL_PAKET}/routes`).query({ route_from: 'DE' });
      expect(missing.status).toBe(400);
      expect(missing.body.properties.violations).toEqual([{ field: 'query/route_to', message: 'is required' }]);
      expect((await get(`/v1/services/${UNKNOWN}/routes`).query({ route_from: 'DE', route_to: 'DE' })).status).toBe(404);
    });

    it('marks every route domestic exactly when from = to, and dutiable across EU ↔ GB/CH/NO/US', async () => {
      const all = await walk('/v1/services', { limit: 100 });
      const eu = new Set(['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE']);
      let dutiable = 0;
      for (const route of all.flatMap((s) => s.routes)) {
        expect(route.domestic).toBe(route.from === route.to);
        if (eu.has(route.from) && eu.has(route.to)) expect(route.dutiable).toBe(false);
        if ((eu.has(route.from) && ['GB', 'CH', 'NO', 'US'].includes(route.to)) || (route.from === 'GB' && eu.has(route.to))) {
          expect(route.dutiable).toBe(true);
          dutiable++;
        }
      }
      expect(dutiable).toBeGreaterThan(50);
    });
  });

  describe('logos', () => {
    it('serves a real PNG with Cache-Control and a strong ETag, and 304 for If-None-Match', async () => {
      const res = await get(`/v1/carriers/${DHL_PARCEL}/logo`).buffer(true).parse(binary);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      const etag = res.headers.etag;
      expect(etag).toMatch(/^"[^"]+"$/);
      const body = res.body as Buffer;
      expect(body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const image = PNG.sync.read(body);
      expect(image.width).toBeGreaterThan(0);
      // The badge is drawn in the brand colour: DHL yellow in the middle of the left edge.
      const at = (image.height / 2) * image.width * 4 + 4 * 4;
      expect([...image.data.subarray(at, at + 4)]).toEqual([0xff, 0xcc, 0x00, 0xff]);

      const again = await get(`/v1/carriers/${DHL_PARCEL}/logo`).buffer(true).parse(binary);
      expect(again.headers.etag).toBe(etag);
      expect((again.body as Buffer).equals(body)).toBe(true);

      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const cached = await get(`/v1/carriers/${DHL_PARCEL}/logo`).set('If-None-Match', header);
        expect(cached.status, header).toBe(304);
        expect(cached.headers.etag).toBe(etag);
        expect(cached.headers['cache-control']).toBe('public, max-age=86400');
        expect(cached.text ?? '').toBe('');
      }
      const stale = await get(`/v1/carriers/${DHL_PARCEL}/logo`).set('If-None-Match', '"stale"').buffer(true).parse(binary);
      expect(stale.status).toBe(200);
    });

    it('gives every carrier its own logo', async () => {
      const carriers = await walk('/v1/carriers', { limit: 100 });
      const tags = new Set<string>();
      for (const carrier of carriers) {
        const res = await get(carrier.logoUrl).buffer(true).parse(binary);
        expect(res.status).toBe(200);
        tags.add(res.headers.etag);
      }
      expect(tags.size).toBe(carriers.length);
      expect((await get(`/v1/carriers/${UNKNOWN}/logo`)).status).toBe(404);
    });
  });

  describe('type catalogues', () => {
    it.each([
      ['/v1/serial-types', ['UPS_1Z', 'ROYAL_MAIL_S10', 'SCHENKER_SSCC']],
      ['/v1/packing-types', ['PARCEL', 'EURO_PALLET', 'ENVELOPE']],
      ['/v1/customs-declaration-types', ['CN22', 'CN23', 'COMMERCIAL_INVOICE', 'PROFORMA_INVOICE']],
      ['/v1/dangerous-goods-declaration-types', ['LITHIUM_ION_PI966', 'DRY_ICE_UN1845', 'LIMITED_QUANTITY']],
    ])('%s lists and gets items by id', async (path, codes) => {
      const items = await walk(path, { limit: 5 });
      expect(items.map((i) => i.code)).toEqual(expect.arrayContaining(codes));
      const one = await get(`${path}/${items[0].id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(items[0]);
      const missing = await get(`${path}/${UNKNOWN}`);
      expect(missing.status).toBe(404);
    });

    it('has document types for every kind with media types matching the rendering', async () => {
      const items = await walk('/v1/document-types', { limit: 100 });
      const kinds = new Set(items.map((d) => d.type));
      expect(kinds).toEqual(new Set(['LABEL', 'INVOICE', 'WAYBILL', 'CUSTOMS', 'MANIFEST', 'DANGEROUS_GOODS', 'RETURN_LABEL']));
      const media = { PDF: 'application/pdf', PNG: 'image/png', ZPL: 'application/x-zpl' } as Record<string, string>;
      for (const item of items) expect(item.mediaType).toBe(media[item.contentType]);
      expect(items.filter((d) => d.type === 'LABEL').map((d) => d.contentType).sort()).toEqual(['PDF', 'PNG', 'ZPL']);
      expect((await get(`/v1/document-types/${items[0].id}`)).body).toEqual(items[0]);
      expect((await get(`/v1/document-types/${UNKNOWN}`)).status).toBe(404);
    });

    it('CN22 carries its value limit with a currency', async () => {
      const items = await walk('/v1/customs-declaration-types');
      expect(items.find((i) => i.code === 'CN22')).toMatchObject({ maxValue: 425, currency: 'EUR' });
    });

    it('every serial type example belongs to its carrier', async () => {
      const carriers = await walk('/v1/carriers', { limit: 100 });
      const serialTypes = await walk('/v1/serial-types', { limit: 100 });
      for (const serial of serialTypes) {
        expect(new RegExp(serial.pattern).test(serial.example)).toBe(true);
        expect(carriers.find((c) => c.id === serial.carrierId)?.serialTypeIds).toContain(serial.id);
      }
    });
  });

  describe('access', () => {
    it.each([
      ['an Account token', () => account.auth],
      ['a Company token', () => company],
      ['Basic client credentials', () => h.basic],
    ])('accepts %s on every carrier-data read', async (_name, auth) => {
      for (const path of ['/v1/carriers', `/v1/carriers/${DHL_PARCEL}`, `/v1/carriers/${DHL_PARCEL}/services`, '/v1/services', `/v1/services/${DHL_PAKET}`, '/v1/serial-types', '/v1/packing-types', '/v1/customs-declaration-types', '/v1/document-types', '/v1/dangerous-goods-declaration-types']) {
        const res = await get(path, auth());
        expect(res.status, path).toBe(200);
      }
      expect((await get(`/v1/services/${DHL_PAKET}/routes?route_from=DE&route_to=DE`, auth())).status).toBe(200);
      expect((await get(`/v1/carriers/${DHL_PARCEL}/logo`, auth()).buffer(true).parse(binary)).status).toBe(200);
    });

    it('refuses no credentials and wrong credentials', async () => {
      expect((await h.http.get('/v1/carriers')).status).toBe(401);
      expect((await get('/v1/carriers', `Basic ${Buffer.from('nobody:wrong').toString('base64')}`)).status).toBe(401);
    });
  });

  it('keeps catalogue ids when the seed changes', async () => {
    const other = createHarness({ seed: 99 });
    try {
      const mine = await walk('/v1/services', { limit: 100 });
      const res = await other.http.get('/v1/services').query({ limit: 100 }).set('Authorization', other.basic);
      expect(res.body.items.map((s: { id: string }) => s.id)).toEqual(mine.slice(0, 100).map((s) => s.id));
      expect(mine.find((s) => s.code === 'DHL_PAKET')?.id).toBe(DHL_PAKET);
    } finally {
      other.dispose();
    }
  });
});
