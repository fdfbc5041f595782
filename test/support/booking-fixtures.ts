import { PDFParse } from 'pdf-parse';
import type { Response as SuperagentResponse } from 'superagent';
import { catalogueIds, loadCatalogue } from '../../src/carrier-catalogue/load-catalogue.js';
import type { Catalogue } from '../../src/carrier-catalogue/model.js';
import { isStagingSerial, isValidSerial } from '../../src/carrier-catalogue/serial-numbers.js';
import type { Harness, TestAccount } from './harness.js';
import { berlin, createVia, munich } from './shipping-fixtures.js';

/** Catalogue ids of the carriers and services the booking tests use (stable across seeds). */
export const carriers = {
  dhl: catalogueIds.carrier('DHL_PARCEL'),
  dhlPaket: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'),
  dhlInternational: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL'),
  dpd: catalogueIds.carrier('DPD'),
  dpdShop: catalogueIds.service('DPD', 'DPD_SHOP_DELIVERY'),
  dpdClassic: catalogueIds.service('DPD', 'DPD_CLASSIC'),
  ups: catalogueIds.carrier('UPS'),
  upsStandard: catalogueIds.service('UPS', 'UPS_STANDARD'),
  dhlExpress: catalogueIds.carrier('DHL_EXPRESS'),
  dhlExpressWorldwide: catalogueIds.service('DHL_EXPRESS', 'DHL_EXPRESS_WORLDWIDE'),
};

export const zurich = { name: 'Heidi Meier', street: 'Bahnhofstrasse 1', city: 'Zürich', postalCode: '8001', countryCode: 'CH' };
export const paris = { name: 'Jean Dupont', street: '1 Rue de Rivoli', city: 'Paris', postalCode: '75001', countryCode: 'FR' };
export const newYork = { name: 'John Doe', street: '1 Broadway', city: 'New York', postalCode: '10004', countryCode: 'US' };

export interface ServiceSetup {
  carrierDefinitionId: string;
  serviceDefinitionId: string;
}

/** A Carrier Definition (in `mode`) and a Service Definition of `serviceId`, through HTTP. */
export async function defineService(
  h: Harness,
  account: TestAccount,
  options: { carrierId?: string; serviceId?: string; mode?: 'STAGING' | 'PRODUCTION'; name?: string } = {},
): Promise<ServiceSetup> {
  const carrierId = options.carrierId ?? carriers.dhl;
  const carrierDefinitionId = await createVia(h, account, '/v1/carrier-definitions', {
    carrierId,
    name: options.name ?? 'Carrier account',
    ...(options.mode ? { mode: options.mode } : {}),
  });
  const serviceDefinitionId = await createVia(h, account, '/v1/service-definitions', {
    carrierDefinitionId,
    serviceId: options.serviceId ?? carriers.dhlPaket,
    name: 'Service',
  });
  return { carrierDefinitionId, serviceDefinitionId };
}

/** A Shipment Channel rendering labels as asked (PDF A6 by default). */
export async function createChannel(h: Harness, account: TestAccount, labelFormat: 'PDF' | 'PNG' | 'ZPL' = 'PDF'): Promise<string> {
  const labelSize = labelFormat === 'ZPL' ? 'LABEL_4X6' : 'A6';
  return createVia(h, account, '/v1/shipment-channels', { name: `${labelFormat} channel`, documentRendering: { labelFormat, labelSize } });
}

export const parties = (senderId: string, receiverId: string, receiverType: 'ADDRESS' | 'PUDO' = 'ADDRESS') => [
  { role: 'SENDER', entityType: 'ADDRESS', id: senderId },
  { role: 'RECEIVER', entityType: receiverType, id: receiverId },
];

/** Everything a domestic DHL Paket booking needs in one account: definitions, channel, addresses, parcels. */
export interface BookingKit extends ServiceSetup {
  channelId: string;
  senderId: string;
  receiverId: string;
  /** Creates `n` fresh parcels (2.5 kg each unless given). */
  parcels(n?: number, body?: Record<string, unknown>): Promise<string[]>;
  /** A valid booking request body for `parcelIds`, with overrides. */
  body(parcelIds: string[], overrides?: Record<string, unknown>): Record<string, unknown>;
}

export async function bookingKit(
  h: Harness,
  account: TestAccount,
  options: { mode?: 'STAGING' | 'PRODUCTION'; carrierId?: string; serviceId?: string; receiver?: Record<string, unknown>; labelFormat?: 'PDF' | 'PNG' | 'ZPL' } = {},
): Promise<BookingKit> {
  const setup = await defineService(h, account, options);
  const channelId = await createChannel(h, account, options.labelFormat);
  const senderId = await createVia(h, account, '/v1/addresses', berlin);
  const receiverId = await createVia(h, account, '/v1/addresses', options.receiver ?? munich);
  return {
    ...setup,
    channelId,
    senderId,
    receiverId,
    async parcels(n = 1, body = {}) {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push(await createVia(h, account, '/v1/parcels', { weight: 2.5, reference: `P-${i + 1}`, ...body }));
      return ids;
    },
    body(parcelIds, overrides = {}) {
      return {
        serviceDefinitionId: setup.serviceDefinitionId,
        shipmentChannelId: channelId,
        parties: parties(senderId, receiverId),
        parcelIds,
        reference: 'ORDER-1',
        ...overrides,
      };
    },
  };
}

/** POST /v1/shipment-bookings then GET it; fails loudly on anything but 201. */
export async function book(h: Harness, account: TestAccount, body: Record<string, unknown>, path = '/v1/shipment-bookings'): Promise<any> {
  const res = await h.http.post(path).set('Authorization', account.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  const got = await h.http.get(`/v1/shipment-bookings/${res.body.id}`).set('Authorization', account.auth);
  if (got.status !== 200) throw new Error(`GET booking: ${got.status} ${JSON.stringify(got.body)}`);
  return got.body;
}

/** supertest's parser for binary bodies (PDF, PNG, ZPL). */
// superagent hands a node parser the IncomingMessage stream; its types name it `Response`.
export const binary = ((res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}) as unknown as (res: SuperagentResponse, done: (err: Error | null, body: unknown) => void) => void;

/** GET /v1/documents/{id}/data as bytes with its Content-Type. */
export async function download(h: Harness, account: TestAccount, documentId: string): Promise<{ bytes: Buffer; contentType: string }> {
  const res = await h.http.get(`/v1/documents/${documentId}/data`).set('Authorization', account.auth).buffer(true).parse(binary);
  if (res.status !== 200) throw new Error(`document data: ${res.status}`);
  return { bytes: res.body as Buffer, contentType: String(res.headers['content-type']) };
}

/** The text of a PDF, as pdf-parse extracts it. */
export async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

/** The built-in catalogue (the one every harness serves), loaded on first use. */
let catalogue: Catalogue | undefined;

/** Whether a tracking number has the service's serial format and a valid check digit (and, for STAGING, the test prefix). */
export function isCarrierNumber(serviceId: string, trackingNumber: string, mode: 'STAGING' | 'PRODUCTION'): boolean {
  catalogue ??= loadCatalogue();
  const service = catalogue.service(serviceId)!;
  const format = catalogue.serialType(service.serialTypeId)!.format;
  return mode === 'STAGING' ? isStagingSerial(format, trackingNumber) : isValidSerial(format, trackingNumber) && !isStagingSerial(format, trackingNumber);
}

export const customsBody = {
  types: [catalogueIds.customsDeclarationType('CN23')],
  declarant: { firstName: 'Erika', lastName: 'Mustermann', city: 'Berlin' },
  currency: 'EUR',
  contentType: 'SALE_OF_GOODS',
  lines: [{ description: 'Paperback novel', quantity: 3, value: 37.5, hsCode: '490199', originCountryCode: 'DE', weight: 1.2 }],
};

export const dgBody = (parcelId?: string) => ({
  typeId: catalogueIds.dangerousGoodsDeclarationType('LITHIUM_ION_PI966'),
  unNumber: 'UN3481',
  properShippingName: 'Lithium ion batteries packed with equipment',
  hazardClass: '9',
  packingGroup: 'II',
  quantity: 0.5,
  quantityUnit: 'KG',
  ...(parcelId ? { parcelId } : {}),
});

/** CONSUME/PARCEL tokens of the account's report for the current month. */
export async function parcelTokens(h: Harness, account: TestAccount): Promise<number> {
  const res = await h.http.get('/v1/reports').set('Authorization', account.auth);
  if (res.status !== 200) throw new Error(`report: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.usage.find((line: { operation: string; topic: string }) => line.operation === 'CONSUME' && line.topic === 'PARCEL').tokens;
}

/** The first PUDO points near a postal code for a carrier (one billed query). */
export async function pudoPoints(h: Harness, account: TestAccount, carrierId: string, postalCode = '10115', countryCode = 'DE'): Promise<any[]> {
  const res = await h.http.post('/v1/pudo-points/queries').set('Authorization', account.auth).send({ postalCode, countryCode, carrierId, limit: 3 });
  if (res.status !== 200) throw new Error(`PUDO query: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.items;
}
