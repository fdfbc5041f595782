import { describe, expect, it } from 'vitest';
import { EX, M, accountAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, stateId, statePath, uuid } from './support/pact.js';

const pact = createPact();
const json = { 'Content-Type': jsonContentType };

describe('dispatch and manifest', () => {
  it('dispatches a booked shipment for pickup', async () => {
    await pact
      .addInteraction()
      .given('a shipment booking exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to dispatch a booked shipment')
      .withRequest('POST', '/v1/shipment-dispatches', (b) =>
        b.headers({ ...accountAuth, ...jsonRequest }).jsonBody({
          carrierDefinitionId: stateId('carrierDefinitionId', EX.carrierDefinitionId),
          shipmentBookingIds: [stateId('shipmentBookingId', EX.shipmentBookingId)],
          pickupDate: stateId('pickupDate', EX.pickupDate),
          pickupWindowFrom: '09:00',
          pickupWindowTo: '17:00',
        }),
      )
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.shipmentDispatchId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/shipment-dispatches', {
          body: {
            carrierDefinitionId: EX.carrierDefinitionId,
            shipmentBookingIds: [EX.shipmentBookingId],
            pickupDate: EX.pickupDate,
            pickupWindowFrom: '09:00',
            pickupWindowTo: '17:00',
          },
        });
        expect(data?.id).toBe(EX.shipmentDispatchId);
      });
  });

  it('fetches an open dispatch', async () => {
    await pact
      .addInteraction()
      .given('an open shipment dispatch exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to fetch an open dispatch')
      .withRequest('GET', statePath('/v1/shipment-dispatches/${shipmentDispatchId}', `/v1/shipment-dispatches/${EX.shipmentDispatchId}`), (b) =>
        b.headers(accountAuth),
      )
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          id: uuid(EX.shipmentDispatchId),
          createdAt: isoDateTime(),
          updatedAt: isoDateTime(),
          status: 'OPEN',
          carrierDefinitionId: uuid(EX.carrierDefinitionId),
          shipmentBookingIds: M.eachLike(uuid(EX.shipmentBookingId)),
          pickupDate: M.regex(/^\d{4}-\d{2}-\d{2}$/, EX.pickupDate),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/shipment-dispatches/{shipment-dispatch-id}', {
          params: { path: { 'shipment-dispatch-id': EX.shipmentDispatchId } },
        });
        expect(data?.status).toBe('OPEN');
      });
  });

  it('creates the manifest of an open dispatch', async () => {
    await pact
      .addInteraction()
      .given('an open shipment dispatch exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to create the manifest of an open dispatch')
      .withRequest(
        'POST',
        statePath('/v1/shipment-dispatches/${shipmentDispatchId}/shipment-manifests', `/v1/shipment-dispatches/${EX.shipmentDispatchId}/shipment-manifests`),
        (b) => b.headers(accountAuth),
      )
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.shipmentManifestId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/shipment-dispatches/{shipment-dispatch-id}/shipment-manifests', {
          params: { path: { 'shipment-dispatch-id': EX.shipmentDispatchId } },
        });
        expect(data?.id).toBe(EX.shipmentManifestId);
      });
  });

  it('fetches a shipment manifest', async () => {
    await pact
      .addInteraction()
      .given('a shipment manifest exists', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request to fetch a shipment manifest')
      .withRequest('GET', statePath('/v1/shipment-manifests/${shipmentManifestId}', `/v1/shipment-manifests/${EX.shipmentManifestId}`), (b) =>
        b.headers(accountAuth),
      )
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          id: uuid(EX.shipmentManifestId),
          createdAt: isoDateTime(),
          updatedAt: isoDateTime(),
          shipmentDispatchId: uuid(EX.shipmentDispatchId),
          carrierDefinitionId: uuid(EX.carrierDefinitionId),
          carrierId: uuid(EX.carrierId),
          shipmentBookingIds: M.eachLike(uuid(EX.shipmentBookingId)),
          parcelCount: M.integer(1),
          totalWeightKg: M.number(1.5),
          documentId: uuid(EX.documentId),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/shipment-manifests/{shipment-manifest-id}', {
          params: { path: { 'shipment-manifest-id': EX.shipmentManifestId } },
        });
        expect(data?.parcelCount).toBeGreaterThan(0);
      });
  });
});
