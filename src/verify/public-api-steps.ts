import { createShippingClient, type ShippingApi, type ShippingClient } from '../client/create-shipping-client.js';
import type { components } from '../client/schema.js';

type Schemas = components['schemas'];

/** Credentials of the company the verification acts for (the provider's test company). */
export interface CompanyAccess {
  baseUrl: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
}

/**
 * A provider-state setup step failed: which call, what it answered. Fails its interaction loudly.
 * @example throw new StateSetupError('POST /v1/parcels answered 500, expected 201', 500);
 */
export class StateSetupError extends Error {
  readonly status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'StateSetupError';
    this.status = status;
  }
}

/** An account created for one interaction, with its token. */
export interface StateAccount {
  accountId: string;
  accountToken: string;
  api: ShippingApi;
}

/** A carrier service that serves a route, found through the public catalogue. */
export interface RouteChoice {
  carrierId: string;
  serviceId: string;
}

const ADDRESSES: Record<string, Omit<Schemas['AddressRequest'], 'name' | 'countryCode'>> = {
  DE: { street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115' },
  FR: { street: '12 Rue de Rivoli', city: 'Paris', postalCode: '75001' },
  NL: { street: 'Damrak 1', city: 'Amsterdam', postalCode: '1012 LG' },
  AT: { street: 'Stephansplatz 1', city: 'Wien', postalCode: '1010' },
  BE: { street: 'Grote Markt 1', city: 'Brussel', postalCode: '1000' },
  PL: { street: 'Marszalkowska 1', city: 'Warszawa', postalCode: '00-001' },
  GB: { street: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA' },
  US: { street: '1600 Amphitheatre Parkway', city: 'Mountain View', postalCode: '94043', stateCode: 'CA' },
};

type ApiResult = { response: Response; error?: unknown; data?: unknown };

/** Throws a StateSetupError unless the call answered `expected`. */
function expectStatus<T extends ApiResult>(what: string, result: T, expected: number): T {
  if (result.response.status !== expected) {
    const problem = result.error as { type?: string; detail?: string } | undefined;
    const why = [problem?.type?.split('/').pop(), problem?.detail].filter(Boolean).join(': ');
    throw new StateSetupError(`${what} answered ${result.response.status}${why ? ` (${why})` : ''}, expected ${expected}`, result.response.status);
  }
  return result;
}

/** An id from a 201 `{id}` answer. */
function createdId(what: string, result: ApiResult): string {
  const id = (expectStatus(what, result, 201).data as { id?: string } | undefined)?.id;
  if (!id) throw new StateSetupError(`${what} answered 201 without an id`);
  return id;
}

/**
 * The steps that work inside one account (its token and client come with it): they need nothing
 * of the company's session, so they live apart from it.
 */
const accountSteps = {
  /** A carrier with a home-delivery service that serves the route without customs (routes the catalogue lists). */
  async findRoute(account: StateAccount, routeFrom: string, routeTo: string): Promise<RouteChoice> {
    const query = { route_from: routeFrom, route_to: routeTo };
    const carriers = expectStatus('GET /v1/carriers', await account.api.GET('/v1/carriers', { params: { query: { ...query, limit: 100 } } }), 200);
    for (const carrier of carriers.data?.items ?? []) {
      const services = expectStatus(
        `GET /v1/carriers/${carrier.id}/services`,
        await account.api.GET('/v1/carriers/{carrier-id}/services', { params: { path: { 'carrier-id': carrier.id }, query: { ...query, limit: 100 } } }),
        200,
      );
      for (const service of services.data?.items ?? []) {
        if (service.deliveryType === 'PUDO') continue;
        const route = service.routes.find((r) => r.from === routeFrom && r.to === routeTo);
        if (route && !route.dutiable) return { carrierId: carrier.id, serviceId: service.id };
      }
    }
    throw new StateSetupError(`no carrier service serves ${routeFrom} → ${routeTo} without customs`);
  },

  async createCarrierDefinition(account: StateAccount, carrierId: string, name = 'DHL Parcel EU', group = 'EU'): Promise<string> {
    return createdId('POST /v0/carrier-definitions', await account.api.POST('/v0/carrier-definitions', { body: { carrierId, name, group } }));
  },

  async createServiceDefinition(account: StateAccount, carrierDefinitionId: string, serviceId: string): Promise<string> {
    return createdId(
      'POST /v1/service-definitions',
      await account.api.POST('/v1/service-definitions', { body: { carrierDefinitionId, serviceId, name: 'Standard' } }),
    );
  },

  async createShipmentChannel(account: StateAccount): Promise<string> {
    return createdId(
      'POST /v1/shipment-channels',
      await account.api.POST('/v1/shipment-channels', { body: { name: 'Web shop', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' }, default: true } }),
    );
  },

  async createAddress(account: StateAccount, countryCode: string, name = 'Erika Mustermann'): Promise<string> {
    const fields = ADDRESSES[countryCode];
    if (!fields) throw new StateSetupError(`no sample address for country ${countryCode} (known: ${Object.keys(ADDRESSES).join(', ')})`);
    return createdId('POST /v1/addresses', await account.api.POST('/v1/addresses', { body: { name, countryCode, ...fields } }));
  },

  async createParcel(account: StateAccount, weight = 1.5): Promise<string> {
    return createdId(
      'POST /v1/parcels',
      await account.api.POST('/v1/parcels', {
        body: { weight, weightUnit: 'KG', dimensions: { length: 30, width: 20, height: 10, unit: 'CM' }, reference: 'ORDER-1001' },
      }),
    );
  },

  async createBooking(account: StateAccount, input: Schemas['ShipmentBookingRequest']): Promise<Schemas['ShipmentBooking']> {
    const id = createdId('POST /v1/shipment-bookings', await account.api.POST('/v1/shipment-bookings', { body: input }));
    const booking = expectStatus(
      `GET /v1/shipment-bookings/${id}`,
      await account.api.GET('/v1/shipment-bookings/{shipment-booking-id}', { params: { path: { 'shipment-booking-id': id } } }),
      200,
    ).data!;
    if (booking.status !== 'BOOKED') throw new StateSetupError(`booking ${id} is ${booking.status}${booking.failureReason ? ` (${booking.failureReason})` : ''}, expected BOOKED`);
    return booking;
  },

  async createDispatch(account: StateAccount, carrierDefinitionId: string, shipmentBookingIds: string[], pickupDate: string): Promise<string> {
    return createdId(
      'POST /v1/shipment-dispatches',
      await account.api.POST('/v1/shipment-dispatches', {
        body: { carrierDefinitionId, shipmentBookingIds, pickupDate, pickupWindowFrom: '09:00', pickupWindowTo: '17:00' },
      }),
    );
  },

  async createManifest(account: StateAccount, shipmentDispatchId: string): Promise<string> {
    return createdId(
      'POST /v1/shipment-dispatches/{id}/shipment-manifests',
      await account.api.POST('/v1/shipment-dispatches/{shipment-dispatch-id}/shipment-manifests', {
        params: { path: { 'shipment-dispatch-id': shipmentDispatchId } },
      }),
    );
  },

  async createZone(account: StateAccount, countryCodes: string[]): Promise<string> {
    return createdId('POST /v1/zones', await account.api.POST('/v1/zones', { body: { name: `Zone ${countryCodes.join('+')}`, countryCodes } }));
  },

  async createDeliveryOption(account: StateAccount, serviceDefinitionId: string, zoneIds: string[]): Promise<string> {
    return createdId(
      'POST /v1/delivery-options',
      await account.api.POST('/v1/delivery-options', {
        body: {
          name: 'Standard',
          serviceDefinitionId,
          zoneIds,
          priceRules: [{ maxWeightKg: 5, price: { amount: 4.9, currency: 'EUR' } }, { maxWeightKg: 31.5, price: { amount: 9.9, currency: 'EUR' } }],
          deliveryDaysMin: 1,
          deliveryDaysMax: 3,
        },
      }),
    );
  },

  async queryPudoPoints(account: StateAccount, addressId: string): Promise<void> {
    expectStatus('POST /v1/pudo-points/queries', await account.api.POST('/v1/pudo-points/queries', { body: { addressId, limit: 5 } }), 200);
  },

  async createEventChannel(account: StateAccount, topics: Schemas['EventTopic'][], url: string): Promise<string> {
    return createdId('POST /v1/event-channels', await account.api.POST('/v1/event-channels', { body: { name: 'Contract verification', topics, webhook: { url } } }));
  },

  async createTracker(account: StateAccount, trackingNumber: string): Promise<string> {
    return createdId('POST /v1/trackers', await account.api.POST('/v1/trackers', { body: { trackingNumber } }));
  },

  async createMockEvent(account: StateAccount, input: Schemas['MockEventRequest']): Promise<void> {
    expectStatus('POST /v1/event-channels/events', await account.api.POST('/v1/event-channels/events', { body: input }), 201);
  },
};

/**
 * The public-API building blocks of provider states: each creates what a state needs through
 * the documented endpoints only (so it works against a service we do not control) and records
 * the accounts it created, which `cleanUp()` deletes again. Everything else an interaction
 * creates lives inside those accounts.
 *
 * @example
 * const steps = createPublicApiSteps({ baseUrl, companyId, clientId, clientSecret });
 * const account = await steps.createAccount('Warehouse Berlin');
 * const addressId = await steps.createAddress(account, 'DE');
 * await steps.cleanUp();
 */
export function createPublicApiSteps(access: CompanyAccess, options: { fetch?: (request: Request) => Promise<Response> } = {}) {
  const client: ShippingClient = createShippingClient({ ...access, fetch: options.fetch, maxRetries: 2, maxRetryWaitMs: 5_000 });
  const createdAccounts: string[] = [];

  const steps = {
    client,
    companyId: access.companyId,
    basicCredentials: Buffer.from(`${access.clientId}:${access.clientSecret}`).toString('base64'),
    wrongBasicCredentials: Buffer.from(`${access.clientId}:not-the-secret-${access.clientSecret.length}`).toString('base64'),

    async companyToken(): Promise<string> {
      client.tokens.invalidate({ level: 'COMPANY' });
      return client.tokens.token({ level: 'COMPANY' });
    },

    async createAccount(alias = 'Warehouse Berlin'): Promise<StateAccount> {
      const result = await client.company.POST('/v1/accounts', {
        body: {
          alias,
          company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
          contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
        },
      });
      const accountId = createdId('POST /v1/accounts', result);
      createdAccounts.push(accountId);
      const accountToken = await client.tokens.token({ level: 'ACCOUNT', accountId });
      return { accountId, accountToken, api: client.forAccount(accountId) };
    },

    /** Ids of the newest accounts (DESC), to tell afterwards which ones an interaction created. */
    async newestAccountIds(limit = 20): Promise<string[]> {
      const result = expectStatus('GET /v1/accounts', await client.company.GET('/v1/accounts', { params: { query: { limit, sort: 'DESC' } } }), 200);
      return (result.data?.items ?? []).map((a) => a.id);
    },

    async deleteAccount(accountId: string): Promise<void> {
      const { response } = await client.company.DELETE('/v1/accounts/{account-id}', { params: { path: { 'account-id': accountId } } });
      // Already gone (the interaction deleted it) is fine; anything else is worth knowing.
      if (response.status !== 204 && response.status !== 404) {
        throw new StateSetupError(`DELETE /v1/accounts/${accountId} answered ${response.status}`, response.status);
      }
    },

    ...accountSteps,

    /** The accounts created since the last cleanUp (this interaction's), oldest first. */
    createdAccountIds(): string[] {
      return [...createdAccounts];
    },

    /** Records an account created outside these steps (e.g. by the interaction itself) so cleanUp deletes it. */
    rememberAccount(accountId: string): void {
      createdAccounts.push(accountId);
    },

    /** Deletes every account the steps created, newest first; reports the ones that would not go. */
    async cleanUp(): Promise<string[]> {
      const problems: string[] = [];
      while (createdAccounts.length) {
        const accountId = createdAccounts.pop()!;
        await steps.deleteAccount(accountId).catch((error: Error) => problems.push(error.message));
      }
      return problems;
    },
  };
  return steps;
}

export type PublicApiSteps = ReturnType<typeof createPublicApiSteps>;
