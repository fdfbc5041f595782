import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EX, M, accountAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, stateId, statePath,
  trackingNumber, uuid,
} from './support/pact.js';

const pact = createPact();
const json = { 'Content-Type': jsonContentType };
const SAMPLE_LABEL = fileURLToPath(new URL('./support/sample-label.pdf', import.meta.url));

const party = (role: string, id: unknown) => ({ role, entityType: 'ADDRESS', id });
const bookingRequest = {
  serviceDefinitionId: stateId('serviceDefinitionId', EX.serviceDefinitionId),
  shipmentChannelId: stateId('shipmentChannelId', EX.shipmentChannelId),
  parties: [party('SENDER', stateId('senderAddressId', EX.addressId)), party('RECEIVER', stateId('receiverAddressId', EX.receiverAddressId))],
  parcelIds: [stateId('parcelId', EX.parcelId)],
  reference: 'ORDER-1001',
};
const sender = { name: 'Muster GmbH', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const receiver = { name: 'Erika Mustermann', street: 'Marktplatz 1', city: 'Hamburg', postalCode: '20095', countryCode: 'DE' };

const document = {
  id: uuid(EX.documentId),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
  type: 'LABEL',
  groupId: uuid(EX.shipmentBookingId),
  groupType: 'SHIPMENT_BOOKING',
  mediaType: 'application/pdf',
  contentType: 'PDF',
  fileName: M.string('label-000012345672.pdf'),
  specimen: true,
  trackingNumber: trackingNumber(),
};

const documentPath = (suffix = '') => statePath(`/v1/documents/\${documentId}${suffix}`, `/v1/documents/${EX.documentId}${suffix}`);

describe('shipment bookings', () => {
  it('books a shipment from existing configuration, addresses and parcels', async () => {
    await pact
      .addInteraction()
      .given('the account is ready to book', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to book a shipment')
      .withRequest('POST', '/v1/shipment-bookings', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(bookingRequest))
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.shipmentBookingId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/shipment-bookings', {
          body: {
            serviceDefinitionId: EX.serviceDefinitionId,
            shipmentChannelId: EX.shipmentChannelId,
            parties: [
              { role: 'SENDER', entityType: 'ADDRESS', id: EX.addressId },
              { role: 'RECEIVER', entityType: 'ADDRESS', id: EX.receiverAddressId },
            ],
            parcelIds: [EX.parcelId],
            reference: 'ORDER-1001',
          },
        });
        expect(data?.id).toBe(EX.shipmentBookingId);
      });
  });

  it('books a shipment inline, creating its configuration on the way', async () => {
    const inline = {
      carrierDefinition: { carrierId: stateId('carrierId', EX.carrierId), name: 'DHL Parcel' },
      serviceDefinition: { serviceId: stateId('serviceId', EX.serviceId), name: 'DHL Paket' },
      sender,
      receiver,
      parcels: [{ weight: 2, weightUnit: 'KG' }],
      reference: 'ORDER-1002',
    };
    await pact
      .addInteraction()
      .given('carrier data serves a route', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to book a shipment inline')
      .withRequest('POST', '/v1/shipment-bookings/inline', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(inline))
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.shipmentBookingId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/shipment-bookings/inline', {
          body: {
            carrierDefinition: { carrierId: EX.carrierId, name: 'DHL Parcel' },
            serviceDefinition: { serviceId: EX.serviceId, name: 'DHL Paket' },
            sender,
            receiver,
            parcels: [{ weight: 2, weightUnit: 'KG' }],
            reference: 'ORDER-1002',
          },
        });
        expect(data?.id).toBe(EX.shipmentBookingId);
      });
  });

  it('fetches a booked shipment with its tracking numbers and labels', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to fetch a booked shipment')
      .withRequest('GET', statePath('/v1/shipment-bookings/${shipmentBookingId}', `/v1/shipment-bookings/${EX.shipmentBookingId}`), (b) =>
        b.headers(accountAuth),
      )
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          id: uuid(EX.shipmentBookingId),
          createdAt: isoDateTime(),
          updatedAt: isoDateTime(),
          status: 'BOOKED',
          mode: 'STAGING',
          carrierId: uuid(EX.carrierId),
          serviceId: uuid(EX.serviceId),
          carrierDefinitionId: uuid(EX.carrierDefinitionId),
          serviceDefinitionId: uuid(EX.serviceDefinitionId),
          shipmentChannelId: uuid(EX.shipmentChannelId),
          parties: [
            { role: 'SENDER', entityType: 'ADDRESS', id: uuid(EX.addressId) },
            { role: 'RECEIVER', entityType: 'ADDRESS', id: uuid(EX.receiverAddressId) },
          ],
          parcels: M.eachLike({ parcelId: uuid(EX.parcelId), trackingNumber: trackingNumber(), labelDocumentId: uuid(EX.documentId) }),
          trackingNumbers: M.eachLike(trackingNumber()),
          documentIds: M.eachLike(uuid(EX.documentId)),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/shipment-bookings/{shipment-booking-id}', {
          params: { path: { 'shipment-booking-id': EX.shipmentBookingId } },
        });
        expect(data?.status).toBe('BOOKED');
        expect(data?.parcels[0].trackingNumber).toMatch(/^[0-9A-Z]{8,40}$/);
      });
  });
});

describe('documents', () => {
  it('lists the documents of a booking', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to list the documents of a booking')
      .withRequest('GET', '/v1/documents', (b) =>
        b.headers(accountAuth).query({ group_id: stateId('shipmentBookingId', EX.shipmentBookingId) }),
      )
      .willRespondWith(200, (b) => b.headers(json).jsonBody({ items: M.eachLike(document) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/documents', { params: { query: { group_id: EX.shipmentBookingId } } });
        expect(data?.items[0].type).toBe('LABEL');
      });
  });

  it('fetches a label document', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to fetch a label document')
      .withRequest('GET', documentPath(), (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) => b.headers(json).jsonBody(document))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/documents/{document-id}', {
          params: { path: { 'document-id': EX.documentId } },
        });
        expect(data?.specimen).toBe(true);
      });
  });

  it('downloads the PDF of a label', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to download the data of a label')
      .withRequest('GET', documentPath('/data'), (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) => b.binaryFile('application/pdf', SAMPLE_LABEL))
      .executeTest(async (server) => {
        const { data, response } = await consumerClient(server.url).account.GET('/v1/documents/{document-id}/data', {
          params: { path: { 'document-id': EX.documentId } },
          parseAs: 'arrayBuffer',
        });
        expect(response.headers.get('content-type')).toBe('application/pdf');
        expect(Buffer.from(data!).subarray(0, 5).toString()).toBe('%PDF-');
      });
  });

  it('fetches the meta-data of a label', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to fetch the meta-data of a label')
      .withRequest('GET', documentPath('/meta-data'), (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          id: uuid(EX.documentId),
          documentId: uuid(EX.documentId),
          type: 'LABEL',
          mediaType: 'application/pdf',
          contentType: 'PDF',
          size: M.integer(1329),
          checksum: M.regex(/^[a-f0-9]{64}$/, 'a3f1c2d4e5b6a7980112233445566778899aabbccddeeff00112233445566778'),
          groupId: uuid(EX.shipmentBookingId),
          groupType: 'SHIPMENT_BOOKING',
          specimen: true,
          createdAt: isoDateTime(),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/documents/{document-id}/meta-data', {
          params: { path: { 'document-id': EX.documentId } },
        });
        expect(data?.checksum).toHaveLength(64);
      });
  });
});
