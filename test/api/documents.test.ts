import { createHash } from 'node:crypto';
import { PDFParse } from 'pdf-parse';
import { describe, expect, it } from 'vitest';
import type { LabelDocumentRequest } from '../../src/resources/documents/model.js';
import { createHarness, newAccount, harnessInternals, suiteAccounts } from '../support/harness.js';
import { captureEvents } from '../support/shipping-fixtures.js';
import { binary } from '../support/booking-fixtures.js';

const bookingId = '9e5b6a7c-8f9d-4e0f-8a1b-3c4d5e6f7a8b';
const parcelId = '5a1d2c3e-4b5f-4a6b-8c7d-9e0f1a2b3c4d';
const label = (overrides: Partial<LabelDocumentRequest> = {}): LabelDocumentRequest => ({
  format: 'PDF',
  size: 'A6',
  specimen: true,
  carrier: { name: 'DHL Parcel' },
  service: { name: 'DHL Paket' },
  sender: { name: 'Erika Mustermann', street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', countryCode: 'DE' },
  receiver: { name: 'Max Muster', street: 'Marienplatz 1', postalCode: '80331', city: 'München', countryCode: 'DE' },
  parcel: { id: parcelId, weight: 2.5, weightUnit: 'KG' },
  trackingNumber: '340434161094',
  shipmentBookingId: bookingId,
  ...overrides,
});

/** supertest buffers binary bodies with this parser. */
describe('documents', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);

  it('serves a label PDF: description, bytes with Content-Type and Content-Disposition, and metadata', async () => {
    const created = harnessInternals(h).services.documents.createLabel(a.accountId, label());
    const doc = await h.http.get(`/v1/documents/${created.id}`).set('Authorization', a.auth);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({
      id: created.id,
      type: 'LABEL',
      groupId: bookingId,
      groupType: 'SHIPMENT_BOOKING',
      mediaType: 'application/pdf',
      contentType: 'PDF',
      fileName: 'label-340434161094.pdf',
      specimen: true,
      trackingNumber: '340434161094',
      parcelId,
    });

    const data = await h.http.get(`/v1/documents/${created.id}/data`).set('Authorization', a.auth).buffer(true).parse(binary);
    expect(data.status).toBe(200);
    expect(data.headers['content-type']).toBe('application/pdf');
    expect(data.headers['content-disposition']).toBe('inline; filename="label-340434161094.pdf"');
    const bytes = data.body as Buffer;
    expect(doc.body).not.toHaveProperty('size');
    const parser = new PDFParse({ data: new Uint8Array(bytes) });
    const text = (await parser.getText()).text;
    await parser.destroy();
    expect(text).toContain('340434161094');
    expect(text).toContain('SPECIMEN');

    const meta = await h.http.get(`/v1/documents/${created.id}/meta-data`).set('Authorization', a.auth);
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ documentId: created.id, size: bytes.length, pages: 1, type: 'LABEL', specimen: true, groupId: bookingId });
    expect(meta.body.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(meta.body.id).not.toBe(created.id);
    expect(events.some((e) => e.topic === 'DOCUMENT' && e.type === 'CREATED' && e.payload.id === created.id && e.accountId === a.accountId)).toBe(true);
  });

  it.each([
    ['PNG', 'image/png', '.png'],
    ['ZPL', 'application/x-zpl', '.zpl'],
  ] as const)('serves a %s label with its own media type', async (format, mediaType, extension) => {
    const created = harnessInternals(h).services.documents.createLabel(a.accountId, label({ format, size: 'LABEL_4X6', trackingNumber: `TN-${format}` }));
    const data = await h.http.get(`/v1/documents/${created.id}/data`).set('Authorization', a.auth).buffer(true).parse(binary);
    expect(data.status).toBe(200);
    expect(data.headers['content-type']).toBe(mediaType);
    expect(created.fileName.endsWith(extension)).toBe(true);
    const bytes = data.body as Buffer;
    if (format === 'PNG') expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    else expect(bytes.toString()).toMatch(/^\^XA[\s\S]*\^BCN[\s\S]*TN-ZPL[\s\S]*\^XZ\s*$/);
    const meta = await h.http.get(`/v1/documents/${created.id}/meta-data`).set('Authorization', a.auth);
    expect(meta.body).not.toHaveProperty('pages');
  });

  it('lists with group_id and type filters', async () => {
    const c = await newAccount(h, { alias: 'C' });
    const otherBooking = '1b3d5f7a-9c1e-4b3d-8f7a-9c1e3b5d7f9a';
    const l1 = harnessInternals(h).services.documents.createLabel(c.accountId, label());
    const l2 = harnessInternals(h).services.documents.createLabel(c.accountId, label({ shipmentBookingId: otherBooking, trackingNumber: '2' }));
    const customs = harnessInternals(h).services.documents.createCustomsForm(c.accountId, {
      shipmentBookingId: bookingId,
      specimen: false,
      typeCodes: ['CN23'],
      carrier: { name: 'DHL Parcel' },
      sender: label().sender,
      receiver: label().receiver,
      declarant: { firstName: 'Erika', lastName: 'Mustermann', city: 'Berlin' },
      currency: 'EUR',
      lines: [{ description: 'Book', quantity: 1, value: 10 }],
      trackingNumbers: ['340434161094'],
    });
    const ids = async (query: string) =>
      (await h.http.get(`/v1/documents${query}`).set('Authorization', c.auth)).body.items.map((d: { id: string }) => d.id);
    expect(await ids('')).toEqual([l1.id, l2.id, customs.id]);
    expect(await ids(`?group_id=${bookingId}`)).toEqual([l1.id, customs.id]);
    expect(await ids('?type=CUSTOMS')).toEqual([customs.id]);
    expect(await ids(`?group_id=${otherBooking}&type=LABEL`)).toEqual([l2.id]);
    expect(await ids('?limit=1&sort=DESC')).toEqual([customs.id]);
  });

  it('files a manifest under its Shipment Manifest', async () => {
    const manifestId = 'f1e2d3c4-0000-4000-8000-000000000001';
    const manifest = harnessInternals(h).services.documents.createManifest(a.accountId, {
      specimen: false,
      carrier: { name: 'DHL Parcel' },
      shipmentManifestId: manifestId,
      shipmentDispatchId: 'a1b2c3d4-0000-4000-8000-000000000002',
      entries: [{ shipmentBookingId: bookingId, receiver: label().receiver, parcels: [{ trackingNumber: '340434161094', weightKg: 2.5 }] }],
    });
    const res = await h.http.get(`/v1/documents/${manifest.id}`).set('Authorization', a.auth);
    expect(res.body).toMatchObject({ type: 'MANIFEST', groupType: 'SHIPMENT_MANIFEST', groupId: manifestId, specimen: false, fileName: `manifest-${manifestId}.pdf` });
  });

  it('keeps what a document was rendered from, not its bytes, and renders it again byte for byte (after a state round trip too)', async () => {
    const formats = ['PDF', 'PNG', 'ZPL'] as const;
    const created = formats.map((format) => harnessInternals(h).services.documents.createLabel(a.accountId, label({ format, size: format === 'ZPL' ? 'LABEL_4X6' : 'A6', trackingNumber: `RE-${format}` })));
    // More documents than the render cache holds, so the labels above must be rendered again.
    for (let i = 0; i < 40; i++) harnessInternals(h).services.documents.createLabel(a.accountId, label({ format: 'ZPL', size: 'LABEL_4X6', trackingNumber: `FILL-${i}` }));
    const stored = harnessInternals(h).runtime.store.account(a.accountId).collection<{ id: string; base64?: string; recipe?: unknown }>('document-contents');
    for (const document of created) {
      const content = stored.get(document.id)!;
      expect(content.base64).toBeUndefined();
      expect(JSON.stringify(content.recipe).length).toBeLessThan(2_000);
      const res = await h.http.get(`/v1/documents/${document.id}/data`).set('Authorization', a.auth).buffer(true).parse(binary);
      const { checksum, size } = harnessInternals(h).services.documents.metaData(a.accountId, document.id);
      expect(res.body.length).toBe(size);
      expect(createHash('sha256').update(res.body).digest('hex')).toBe(checksum);
    }
    // A mock that imports the state renders the same bytes.
    const other = createHarness();
    harnessInternals(other).runtime.store.restore(JSON.parse(JSON.stringify(harnessInternals(h).runtime.store.snapshot())));
    for (const document of created) {
      const bytes = harnessInternals(other).services.documents.data(a.accountId, document.id).bytes;
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(harnessInternals(h).services.documents.metaData(a.accountId, document.id).checksum);
    }
  });

  it('answers a recipe broken by a hand-edited state file with 404, not a 500', async () => {
    const document = harnessInternals(h).services.documents.createLabel(a.accountId, label({ trackingNumber: 'BROKEN' }));
    const contents = harnessInternals(h).runtime.store.account(a.accountId).collection<{ id: string; recipe?: unknown }>('document-contents');
    for (const recipe of [{ kind: 'label', request: { format: 'PDF' }, createdAt: 'x' }, { kind: 'poster', request: {}, createdAt: 'x' }]) {
      contents.update({ id: document.id, recipe });
      // 33 other documents push the broken one out of the render cache.
      for (let i = 0; i < 33; i++) harnessInternals(h).services.documents.createLabel(a.accountId, label({ format: 'ZPL', size: 'LABEL_4X6', trackingNumber: `PUSH-${i}` }));
      const res = await h.http.get(`/v1/documents/${document.id}/data`).set('Authorization', a.auth);
      expect(res.status).toBe(404);
      expect(res.body.detail).toContain('stored recipe is broken');
    }
  });

  it('isolates accounts: 404 on every document path and absent from lists', async () => {
    const created = harnessInternals(h).services.documents.createLabel(a.accountId, label());
    for (const suffix of ['', '/data', '/meta-data']) {
      const res = await h.http.get(`/v1/documents/${created.id}${suffix}`).set('Authorization', b.auth);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
    const list = await h.http.get('/v1/documents?limit=100').set('Authorization', b.auth);
    expect(list.body.items).toEqual([]);
  });
});
